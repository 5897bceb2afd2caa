"""Passkeys in the lobby's account panel, in Debian's chromium with its virtual authenticator
(DevTools' WebAuthn domain): a player signs up with a password, adds a passkey, signs out, and
signs in again by clicking "Sign in with a passkey"; the passkey is listed with its last use,
and removed. A browser without WebAuthn is offered no passkey at all.

WebAuthn needs a secure context and a relying party that is a domain name: the page is opened
at http://localhost:PORT (a secure context), not at the server's 127.0.0.1 address."""

from __future__ import annotations

from typing import Any

import pytest

from seepkit.browser import phone_page

pytestmark = pytest.mark.browser

NAME, PASSWORD = "Kavya", "a long family password"


def _signed_in(pg: Any, yes: bool) -> None:
    pg.wait_for_selector(f"#account[data-signed-in={'yes' if yes else 'no'}]")


def _local(server: str) -> str:
    return server.replace("127.0.0.1", "localhost")


def test_a_passkey_is_added_and_signs_in(server: str, browser: Any) -> None:
    ctx, pg, errors = phone_page(browser)
    try:
        cdp = ctx.new_cdp_session(pg)
        cdp.send("WebAuthn.enable")
        made = cdp.send(
            "WebAuthn.addVirtualAuthenticator",
            {
                "options": {
                    "protocol": "ctap2",
                    "transport": "internal",
                    "hasResidentKey": True,
                    "hasUserVerification": True,
                    "isUserVerified": True,
                }
            },
        )
        pg.goto(_local(server) + "/")
        _signed_in(pg, False)
        assert pg.locator("#passkey-sign-in-btn").is_visible()
        pg.get_by_label("Account name").fill(NAME)
        pg.get_by_label("Password").fill(PASSWORD)
        pg.click("#sign-up-btn")
        _signed_in(pg, True)

        # Add a passkey: the virtual authenticator makes it, the list shows it.
        assert pg.locator("#passkeys").is_visible()
        pg.get_by_label("Name for a new passkey (optional)").fill("This phone")
        pg.click("#passkey-add-btn")
        pg.wait_for_selector("#passkey-list[data-count='1']")
        item = pg.locator("#passkey-list li")
        assert "This phone" in item.inner_text() and "not used yet" in item.inner_text()
        keys = cdp.send("WebAuthn.getCredentials", {"authenticatorId": made["authenticatorId"]})
        assert len(keys["credentials"]) == 1 and keys["credentials"][0]["isResidentCredential"]

        pg.click("#sign-out-btn")
        _signed_in(pg, False)
        pg.reload()
        _signed_in(pg, False)

        # Sign in with the passkey: one click, no name, no password.
        pg.click("#passkey-sign-in-btn")
        _signed_in(pg, True)
        assert pg.locator("#account-who").inner_text() == f"Signed in as {NAME}"
        assert pg.locator("#account-error").inner_text() == ""
        pg.wait_for_function(
            "() => document.querySelector('#passkey-list li')?.textContent.includes('last used')"
        )
        pg.reload()
        _signed_in(pg, True)  # the session cookie, as a password's sign-in sets it

        # Removed, it is gone from the list.
        pg.wait_for_selector("#passkey-list[data-count='1']")
        pg.click("#passkey-list li button")
        pg.wait_for_selector("#passkey-list[data-count='0']", state="attached")
        assert not errors, errors
    finally:
        ctx.close()


def test_no_passkey_is_offered_without_webauthn(server: str, browser: Any) -> None:
    ctx, pg, errors = phone_page(browser)
    try:
        ctx.add_init_script("delete window.PublicKeyCredential")
        pg.goto(_local(server) + "/")
        _signed_in(pg, False)
        assert pg.locator("#passkey-sign-in-btn").is_hidden()
        pg.get_by_label("Account name").fill(NAME + "Two")
        pg.get_by_label("Password").fill(PASSWORD)
        pg.click("#sign-up-btn")
        _signed_in(pg, True)
        assert pg.locator("#passkeys").is_hidden()
        assert not errors, errors
    finally:
        ctx.close()
