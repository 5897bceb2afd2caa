"""The social side of the page in Debian's chromium (issue 13 items 1, 5, 6): the lobby's open
tables and quick match, chat shown as text (never as HTML) with the CSP intact, hiding the
chat, the coach in a practice game, the position report, and carrying the seat to another
browser by the transfer link."""

from __future__ import annotations

from typing import Any

import pytest

from seepkit.browser import screenshot, watch_csp

pytestmark = [pytest.mark.browser, pytest.mark.filterwarnings("ignore::DeprecationWarning")]


def _create(pg: Any, base: str, name: str, *, public: bool = False, practice: bool = False) -> str:
    pg.goto(base + "/")
    pg.fill("#create-name", name)
    pg.select_option("#create-bots", "easy")
    if public:
        pg.check("#create-public")
    if practice:
        pg.check("#create-practice")
    pg.click("#create-btn")
    pg.wait_for_url("**/t/*")
    pg.wait_for_selector("#social")
    return str(pg.url.rstrip("/").rsplit("/", 1)[1])


def test_lobby_quick_match_and_chat_as_text(browser: Any, server: str, page: Any) -> None:
    code = _create(page, server, "Asha", public=True)
    other = browser.new_context(viewport={"width": 420, "height": 860})
    errors: list[str] = []
    p2 = other.new_page()
    p2.on("pageerror", lambda e: errors.append(str(e)))
    watch_csp(p2, errors)
    try:
        p2.goto(server + "/")
        p2.wait_for_selector(f"#lobby-list >> text={code}")
        assert "Asha" in p2.inner_text("#lobby-list")
        screenshot(p2, "social-lobby")
        p2.fill("#create-name", "Ravi")
        p2.select_option("#create-bots", "easy")
        p2.click("#quick-btn")
        p2.wait_for_url(f"**/t/{code}")
        p2.wait_for_selector("#chat-input")
        # Markup typed into the chat arrives as text: no element is made, nothing runs.
        p2.fill("#chat-input", "<img src=x id=pwned onerror=alert(1)> hi")
        p2.press("#chat-input", "Enter")
        page.wait_for_selector(".chat-line >> text=hi")
        line = page.inner_text(".chat-line")
        assert "<img src=x id=pwned" in line
        assert page.query_selector("#pwned") is None and p2.query_selector("#pwned") is None
        page.click("[data-emote=well_played]")
        p2.wait_for_selector(".chat-line.emote >> text=Well played!")
        # The host mutes Ravi: his chat form goes.
        page.click("[data-mute='1']")
        p2.wait_for_selector("#chat-form", state="hidden")
        # Hiding the chat is remembered.
        page.click("#chat-toggle")
        assert page.is_hidden("#chat-box")
        page.reload()
        page.wait_for_selector("#social")
        assert page.is_hidden("#chat-box")
        page.click("#chat-toggle")
    finally:
        other.close()
    assert not errors, errors


def test_coach_report_and_transfer_to_another_browser(browser: Any, server: str, page: Any) -> None:
    code = _create(page, server, "Asha", practice=True)
    page.click("[data-act=start]")
    page.check("#coach-on")
    page.wait_for_selector("#coach li", timeout=60_000)
    assert page.inner_text("#coach").count("Unseen") == 1
    screenshot(page, "social-coach", full_page=True)
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.click("#report-btn")
    page.wait_for_function("() => window.seepTable.social.lastReport !== undefined")
    report = page.evaluate("window.seepTable.social.lastReport")
    assert report["app"].startswith("seep ") and report["view"]["seat"] == 0
    assert all(isinstance(h, int) for s, h in enumerate(report["view"]["hands"]) if s != 0)
    # The seat goes to another browser by the link (its code in the fragment, never sent).
    page.click("#transfer-btn")
    page.wait_for_selector("#transfer svg.qr path")
    assert "can play for you" in page.inner_text("#transfer")
    link = page.input_value("#transfer-link")
    assert f"/t/{code}#transfer=" in link
    other = browser.new_context(viewport={"width": 420, "height": 860})
    try:
        p2 = other.new_page()
        p2.goto(link)
        p2.wait_for_function("() => window.seepTable && window.seepTable.token")
        assert "#transfer" not in p2.url
        p2.wait_for_selector("#report-btn", state="visible")
        page.wait_for_function("() => window.seepTable.token === null")
    finally:
        other.close()
