"""A table's page told that the player's next table of the event is open (docs/web.md
"Events", ``event_table``), in Debian's chromium: the player plays round 1 of a two-round
event at his table (a bot for his opponent, who never comes), stays on the finished table's
page, and when round 2 opens a banner (a polite live region) offers "Go to your next table";
Tab reaches its button, Enter takes his seat through ``POST /api/events/{id}/seat`` and
the page goes to the new table, where he is seated."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from seepkit.browser import PASSWORD, TIMEOUT, account, play_turn, wait_turn, watch_csp

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def event_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server of its own: a player gone a second is played for by a bot, no message budget
    per address, no limit on the accounts made from it."""
    from seepkit.browser import app_server

    tmp = tmp_path_factory.mktemp("event-next")
    env = {"SEEP_GRACE_SECONDS": "1", "SEEP_MESSAGE_BUDGET": "0", "SEEP_MAX_SIGNUPS_PER_HOUR": "0"}
    with app_server(tmp, **env) as base:
        yield base


def _post(pg: Any, path: str, body: str = "{}") -> int:
    """A POST from the page itself (its session cookie and origin)."""
    status: int = pg.evaluate(
        "async ([p, b]) => (await fetch(p, {method: 'POST',"
        " headers: {'Content-Type': 'application/json'}, body: b})).status",
        [path, body],
    )
    return status


def _tables(http: httpx.Client, event: int, number: int) -> list[dict[str, Any]]:
    rounds = http.get(f"/api/events/{event}").json()["rounds"]
    return rounds[number - 1]["tables"] if len(rounds) >= number else []


def test_the_finished_tables_page_takes_the_player_to_his_next_table(
    event_server: str, browser: Any
) -> None:
    base = event_server
    org = account(base, "Org")
    ravi = account(base, "Ravi")
    body = {"name": "Next table", "format": "two", "rounds": 2, "deals": 1}
    r = org.post("/api/events", json={**body, "starts": time.time() + 3600})
    assert r.status_code == 201, r.text
    event = r.json()["id"]
    assert ravi.post(f"/api/events/{event}/register", json={}).status_code == 201
    assert ravi.post(f"/api/events/{event}/checkin").status_code == 200

    errors: list[str] = []
    ctx = browser.new_context(viewport={"width": 1280, "height": 860})
    ctx.set_default_timeout(TIMEOUT)
    pg = ctx.new_page()
    pg.on("pageerror", lambda e: errors.append(str(e)))
    watch_csp(pg, errors)
    try:
        pg.goto(base + "/")
        pg.wait_for_selector("#account[data-signed-in=no]")
        pg.fill("#account-name", "Asha")
        pg.fill("#account-password", PASSWORD)
        pg.click("#sign-up-btn")
        pg.wait_for_selector("#account[data-signed-in=yes]")
        assert _post(pg, f"/api/events/{event}/register") == 201
        assert _post(pg, f"/api/events/{event}/checkin") == 200
        assert org.post(f"/api/events/{event}/start").status_code == 200

        # Round 1: his page takes his seat and he plays the deal (a bot for Ravi).
        pg.goto(f"{base}/events/{event}")
        pg.wait_for_selector("#event-seat")
        pg.click("#event-seat")
        pg.wait_for_url("**/t/*")
        first = pg.url.rsplit("/", 1)[1]
        rng = random.Random(30)
        while wait_turn(pg):
            play_turn(pg, rng)

        # Round 2 opens when the table ends: the banner comes to the finished table's page.
        pg.wait_for_selector("#event-next-btn")
        [second] = _tables(org, event, 2)
        banner = pg.locator("#event-next")
        assert banner.get_attribute("role") == "status"
        assert banner.get_attribute("aria-live") == "polite"
        assert "Your next table in this event is open." in banner.inner_text()
        assert pg.inner_text("#event-next-btn") == "Go to your next table"
        assert second["code"] not in pg.content()  # the message named no table

        # Keyboard alone: Tab reaches the button, Enter takes the seat and goes there.
        for _ in range(60):
            pg.keyboard.press("Tab")
            if pg.evaluate("() => document.activeElement.id === 'event-next-btn'"):
                break
        else:
            raise AssertionError("Tab never reached the banner's button")
        pg.keyboard.press("Enter")
        pg.wait_for_url(f"**/t/{second['code']}")
        assert second["code"] != first
        held = pg.evaluate(f"() => localStorage.getItem('seep:token:{second['code']}')")
        assert held and "token" in held
        # Seated, not watching: his own hand's faces show.
        pg.wait_for_function(
            "() => [...document.querySelectorAll('.hand .card')].some(e => e.dataset.c)"
        )
        assert not errors, errors
    finally:
        ctx.close()
