"""Reporting in Debian's chromium (issue 26 item 7): a chat line's "Report" button, reached by
the keyboard, opens the report form with its reason; sent, the page thanks the reporter; the
player's own "Report NAME" button does the same; the reported player sees nothing of it."""

from __future__ import annotations

from typing import Any

import pytest

from seepkit.browser import phone_page, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.filterwarnings("ignore::DeprecationWarning")]


def test_report_a_chat_line_and_a_player_by_keyboard(browser: Any, server: str, page: Any) -> None:
    page.goto(server + "/")
    page.fill("#create-name", "Asha")
    page.select_option("#create-bots", "easy")
    page.check("#create-public")
    page.click("#create-btn")
    page.wait_for_url("**/t/*")
    page.wait_for_selector("#social")
    code = page.url.rstrip("/").rsplit("/", 1)[1]
    other, p2, errors = phone_page(browser)  # Ravi, on his phone
    try:
        p2.goto(server + "/")
        p2.wait_for_selector(f"#lobby-list >> text={code}")
        p2.fill("#create-name", "Ravi")
        p2.select_option("#create-bots", "easy")
        p2.click("#quick-btn")
        p2.wait_for_url(f"**/t/{code}")
        p2.wait_for_selector("#chat-input")
        p2.fill("#chat-input", "you play like a goat")
        p2.press("#chat-input", "Enter")
        page.wait_for_selector(".chat-line >> text=you play like a goat")
        # His own line has no Report button; hers has one, which the keyboard reaches.
        p2.wait_for_selector(".chat-line >> text=you play like a goat")
        assert p2.query_selector(".report-line") is None
        button = page.locator(".chat-line .report-line")
        assert button.get_attribute("aria-label") == "Report this line by Ravi"
        button.focus()
        page.keyboard.press("Enter")
        page.wait_for_selector("#report-form", state="visible")
        assert page.evaluate("document.activeElement.id") == "report-reason"
        assert "Report this line by Ravi" in page.inner_text("#report-what")
        page.select_option("#report-reason", "abuse")
        page.fill("#report-note", "rude")
        screenshot(page, "moderation-report-form")
        page.press("#report-note", "Enter")
        page.wait_for_selector(".toast >> text=Thank you: your report went to the moderators.")
        assert page.is_hidden("#report-form")
        # The player himself, from the table's tools; Cancel closes the form unsent.
        page.click("[data-report-seat='1']")
        page.wait_for_selector("#report-form", state="visible")
        page.click("#report-cancel")
        assert page.is_hidden("#report-form")
        page.click("[data-report-seat='1']")
        page.select_option("#report-reason", "name")
        page.click("#report-form button[type=submit]")
        page.wait_for_selector(".toast >> text=Thank you: your report went to the moderators.")
        # Ravi was told nothing.
        assert "report" not in p2.inner_text("#toasts").lower()
    finally:
        other.close()
    assert not errors, errors


def test_a_banned_players_page_says_so_and_stops_reconnecting(browser: Any, tmp_path: Any) -> None:
    """The operator bans the account of a player at a table: at the server's next refresh of
    the sanctions his page shows the ban (in its words, and "banned" where it said
    "connected") and does not reconnect."""
    from seep.__main__ import main
    from seepkit.browser import app_server

    with app_server(tmp_path, SEEP_MODERATION_SECONDS="0.3") as server:
        ctx, pg, errors = phone_page(browser)
        opened: list[str] = []
        pg.on("websocket", lambda ws: opened.append(ws.url))
        try:
            pg.goto(server + "/")
            pg.wait_for_selector("#account[data-signed-in=no]")
            pg.get_by_label("Account name").fill("Bhola")
            pg.get_by_label("Password").fill("a long family password")
            pg.click("#sign-up-btn")
            pg.wait_for_selector("#account[data-signed-in=yes]")
            pg.select_option("#create-bots", "easy")
            pg.click("#create-btn")
            pg.wait_for_url("**/t/*")
            pg.wait_for_selector("#conn.open")
            url = f"sqlite:///{tmp_path / 'seep.db'}"
            assert (
                main(["admin", "ban", "account", "Bhola", "--for", "1d", "--database-url", url])
                == 0
            )
            pg.wait_for_selector("#conn.banned")
            assert pg.text_content("#conn") == "banned"
            pg.wait_for_selector(".toast >> text=banned from this server")
            sockets = len(opened)
            pg.wait_for_timeout(1500)  # a page that retried would have opened another by now
            assert len(opened) == sockets
            assert not errors, errors
        finally:
            ctx.close()
