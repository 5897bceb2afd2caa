"""The lobby's account panel in Debian's chromium (docs/web.md "Accounts"): a guest creates an
account, the page remembers it across a reload (the HttpOnly cookie, which no script reads),
a second browser signs in with the keyboard alone and signs out without ending the first one's
session; a wrong password is said in the page's words, in an alert a screen reader reads; the
panel speaks Hindi."""

from __future__ import annotations

from typing import Any

import pytest

from seepkit.browser import phone_page

pytestmark = pytest.mark.browser

NAME, PASSWORD = "Sunita", "a long family password"


def _signed_in(pg: Any, yes: bool) -> None:
    pg.wait_for_selector(f"#account[data-signed-in={'yes' if yes else 'no'}]")


def test_an_account_is_made_kept_and_used_on_a_second_browser(server: str, browser: Any) -> None:
    ctx_a, phone, errors_a = phone_page(browser)
    ctx_b, laptop, errors_b = phone_page(browser)
    try:
        phone.goto(server + "/")
        _signed_in(phone, False)
        phone.get_by_label("Account name").fill(NAME)
        phone.get_by_label("Password").fill(PASSWORD)
        phone.click("#sign-up-btn")
        _signed_in(phone, True)
        assert phone.locator("#account-who").inner_text() == f"Signed in as {NAME}"
        assert phone.input_value("#create-name") == NAME  # the lobby takes the account's name
        assert phone.evaluate("() => document.cookie") == ""  # the session is HttpOnly
        phone.reload()
        _signed_in(phone, True)

        # The second browser: the keyboard alone, a wrong password first.
        laptop.goto(server + "/")
        _signed_in(laptop, False)
        laptop.focus("#account-name")
        laptop.keyboard.type(NAME.upper())  # the name in other letters is the same account
        laptop.keyboard.press("Tab")
        laptop.keyboard.type("not the password")
        laptop.keyboard.press("Enter")
        alert = laptop.get_by_role("alert")
        alert.wait_for()
        laptop.wait_for_function(
            "() => document.querySelector('#account-error').textContent.length > 0"
        )
        assert "wrong name or password" in alert.inner_text().lower()
        assert laptop.evaluate("() => document.activeElement.id") == "account-password"
        laptop.keyboard.press("Control+A")
        laptop.keyboard.type(PASSWORD)
        laptop.keyboard.press("Enter")
        _signed_in(laptop, True)
        assert laptop.locator("#account-who").inner_text() == f"Signed in as {NAME}"
        assert laptop.input_value("#account-password") == ""  # not kept once sent

        laptop.click("#sign-out-btn")
        _signed_in(laptop, False)
        laptop.reload()
        _signed_in(laptop, False)
        phone.reload()
        _signed_in(phone, True)  # signing out one browser leaves the other signed in
        assert not errors_a and not errors_b, errors_a + errors_b
    finally:
        ctx_a.close()
        ctx_b.close()


def test_the_account_panel_speaks_hindi(server: str, browser: Any) -> None:
    ctx, pg, errors = phone_page(browser, "hi")
    try:
        pg.goto(server + "/")
        _signed_in(pg, False)
        assert pg.locator("#account-title").inner_text() == "आपका खाता"
        assert pg.locator("#sign-in-btn").inner_text() == "साइन इन करें"
        pg.get_by_label("खाते का नाम").fill("Nobody Here")
        pg.get_by_label("पासवर्ड").fill("some password")
        pg.click("#sign-in-btn")
        pg.wait_for_function(
            "() => document.querySelector('#account-error').textContent.length > 0"
        )
        assert pg.locator("#account-error").inner_text() == "नाम या पासवर्ड ग़लत है।"
        assert not errors, errors
    finally:
        ctx.close()
