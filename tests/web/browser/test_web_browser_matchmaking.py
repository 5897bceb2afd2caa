"""Rated quick match's wait in Debian's chromium (docs/web.md "Quick match"): the lobby offers
"wait for players, then bots" only with the Rated box checked (in English and Hindi), and the
wait chosen there is the table's countdown."""

from __future__ import annotations

import time
from typing import Any

import pytest

from seepkit.browser import phone_page

pytestmark = pytest.mark.browser


def test_the_rated_box_offers_the_wait_and_quick_match_keeps_it(server: str, browser: Any) -> None:
    ctx, pg, errors = phone_page(browser)
    try:
        pg.goto(server + "/")
        pg.wait_for_selector("#account[data-signed-in=no]")
        assert not pg.is_visible("#wait-box")  # a guest: no rated play, no wait
        pg.fill("#account-name", "Waheeda")
        pg.fill("#account-password", "a long family password")
        pg.click("#sign-up-btn")
        pg.wait_for_selector("#account[data-signed-in=yes]")
        assert not pg.is_visible("#wait-box")
        pg.check("#create-rated")
        assert pg.is_visible("#wait-box")
        assert "wait for players, then bots" in pg.inner_text("#wait-box")
        pg.uncheck("#create-rated")
        assert not pg.is_visible("#wait-box")
        pg.check("#create-rated")
        pg.select_option("#create-wait", "30")
        pg.select_option("#create-bots", "easy")
        asked = time.time()
        pg.click("#quick-btn")
        pg.wait_for_url("**/t/*")
        code = pg.url.rsplit("/", 1)[1]
        table = pg.evaluate(f"async () => (await fetch('/api/tables/{code}')).json()")
        assert table["settings"]["rated"] is True
        assert 25 <= table["starts_at"] - asked <= 31  # her 30 s, not the server's 20
        # In Hindi the control reads in Hindi.
        pg.goto(server + "/")
        pg.evaluate("() => localStorage.setItem('seep:lang', 'hi')")
        pg.reload()
        pg.wait_for_selector("#account[data-signed-in=yes]")
        pg.check("#create-rated")
        assert "खिलाड़ियों का इंतज़ार" in pg.inner_text("#wait-box")
        assert not errors, errors
    finally:
        ctx.close()
