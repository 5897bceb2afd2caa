"""A rated match in Debian's chromium (docs/web.md "Ratings"): the lobby offers Rated to a
signed-in player only, Rated and Practice exclude each other, the table shows the match is rated
and offers no hints, and once the match is over the account panel shows the new rating."""

from __future__ import annotations

import random
from typing import Any

import pytest

from seepkit.browser import TIMEOUT, play_turn, wait_turn, watch_csp

pytestmark = pytest.mark.browser


def test_a_signed_in_player_plays_a_rated_match_and_sees_his_rating(
    server: str, browser: Any
) -> None:
    ctx = browser.new_context(viewport={"width": 390, "height": 844})  # a phone
    ctx.set_default_timeout(TIMEOUT)
    pg = ctx.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    watch_csp(pg, errors)
    try:
        pg.goto(server + "/")
        pg.wait_for_selector("#account[data-signed-in=no]")
        assert not pg.is_visible("#create-rated")  # a guest is not offered rated play
        pg.get_by_label("Account name").fill("Meera")
        pg.get_by_label("Password").fill("a long family password")
        pg.click("#sign-up-btn")
        pg.wait_for_selector("#account[data-signed-in=yes]")
        assert pg.inner_text("#account-ratings") == (
            "Rating: 1500? with a partner, 1500? head to head"
        )
        pg.check("#create-practice")
        pg.check("#create-rated")
        assert not pg.is_checked("#create-practice")  # rated excludes practice
        assert pg.is_visible("#rated-note")
        pg.check("#create-practice")
        assert not pg.is_checked("#create-rated")
        pg.check("#create-rated")

        pg.select_option("#create-preset", "two_player")
        pg.select_option("#create-bots", "easy")
        pg.fill("#create-count", "1")
        pg.click("#create-btn")
        pg.wait_for_url("**/t/*")
        pg.click("#start-btn")
        pg.wait_for_selector(".hand .card")
        assert "rated" in pg.inner_text(".scores h3")
        assert pg.locator("#hint-btn").count() == 0  # a rated match allows no hints
        rng = random.Random(3)
        while wait_turn(pg):
            play_turn(pg, rng)
        pg.wait_for_selector("#summary #match-winner")

        pg.goto(server + "/")
        pg.wait_for_selector("#account[data-signed-in=yes]")
        me = pg.evaluate("async () => (await fetch('/api/me')).json()")
        two = me["ratings"]["two"]
        assert two["games"] == 1 and two["provisional"] is True
        assert pg.inner_text("#account-ratings") == (
            f"Rating: 1500? with a partner, {two['rating']}? head to head"
        )
        assert not errors, errors
    finally:
        ctx.close()
