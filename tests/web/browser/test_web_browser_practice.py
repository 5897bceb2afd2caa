"""Practice, the end of a match and quick match in Debian's chromium (issue 22 items 5 and 6):
the coach on by default beside the hand (in view at 1280x720 and 390x844), its warnings in
sentences that name their move; the post-deal review and Rematch in the end-of-match summary,
which says the match's result once; quick match taking the name from either box, counting
down for everyone at the table and then filling the empty seats with bots."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from seepkit.browser import (
    TIMEOUT,
    app_server,
    create_table,
    play_turn,
    screenshot,
    start,
    wait_turn,
    watch_csp,
)

pytestmark = [pytest.mark.browser, pytest.mark.filterwarnings("ignore::DeprecationWarning")]

QUICK_SECONDS = 8  # long enough for a second browser to join on a busy machine


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real server as conftest.py starts it, with a short quick-match countdown and a short
    grace period."""
    tmp = tmp_path_factory.mktemp("web-practice")
    # SEEP_GRACE_SECONDS=1: a player who leaves is played for at once.
    with app_server(tmp, SEEP_GRACE_SECONDS="1", SEEP_QUICK_SECONDS=str(QUICK_SECONDS)) as base:
        yield base


def _page(browser: Any, width: int, height: int, errors: list[str]) -> tuple[Any, Any]:
    ctx = browser.new_context(viewport={"width": width, "height": height})
    ctx.set_default_timeout(TIMEOUT)
    pg = ctx.new_page()
    pg.on("pageerror", lambda e: errors.append(str(e)))
    watch_csp(pg, errors)
    return ctx, pg


def _overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return not (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


def _my_play_turn(pg: Any) -> None:
    """Wait until this page is to play a card (the bid, if it is ours, made first)."""
    while True:
        assert wait_turn(pg)
        if pg.locator("[data-act=play-now]").count() == 0:
            return
        play_turn(pg, random.Random(0))


@pytest.mark.parametrize(("width", "height"), [(1280, 720), (390, 844)])
def test_coach_on_by_default_beside_the_hand(
    browser: Any,
    server: str,
    width: int,
    height: int,
) -> None:
    errors: list[str] = []
    ctx, pg = _page(browser, width, height, errors)
    try:
        create_table(pg, server, "Asha", practice=True)
        start(pg)
        _my_play_turn(pg)
        # No switch touched: the coach is on and speaks on our turn.
        pg.wait_for_selector("#coach .coach-top li")
        assert pg.is_checked("#coach-on")
        coach = pg.locator("#coach").bounding_box()
        hand = pg.locator(".me-area .hand").bounding_box()
        assert coach is not None and hand is not None
        for box in (coach, hand):  # both in view, without scrolling
            assert box["x"] >= 0 and box["y"] >= 0, box
            assert box["x"] + box["width"] <= width + 0.5, box
            assert box["y"] + box["height"] <= height + 0.5, box
        assert not _overlap(coach, hand), (coach, hand)
        text = pg.inner_text("#coach")
        assert "Coach: this move" not in text and "may take" not in text
        lines = pg.eval_on_selector_all("#coach .warnings li", "els => els.map(e => e.textContent)")
        for line in lines:
            assert line.startswith("Careful: after ") and line.endswith("."), line
        assert len(set(lines)) == len(lines), lines  # each names its own move
        screenshot(pg, f"coach-{width}")
        # Turned off, it stays off (a remembered choice).
        pg.click("#coach [data-coach-off]")
        pg.wait_for_selector("#coach", state="hidden")
        pg.reload()
        pg.wait_for_selector(".hand .card")
        assert not pg.is_checked("#coach-on")
        assert pg.is_hidden("#coach")
    finally:
        ctx.close()
    assert not errors, errors


def test_practice_review_and_rematch_in_one_clear_summary(browser: Any, server: str) -> None:
    errors: list[str] = []
    ctx, pg = _page(browser, 1280, 860, errors)
    rng = random.Random(5)
    try:
        code = create_table(pg, server, "Asha", practice=True)
        start(pg)
        while wait_turn(pg):
            play_turn(pg, rng)
        # The one-deal match is over: its result said once, then the deal's detail.
        pg.wait_for_selector("#summary #match-winner")
        summary = pg.inner_text("#summary")
        assert summary.count("the match") == 1, summary
        assert pg.locator("#summary .baazi-count").count() == 1
        assert pg.locator("#summary #baazi-banner").count() == 0
        # The bots' review of the deal, with the dearest plays and the better move.
        pg.wait_for_selector("#summary #review")
        review = pg.inner_text("#review")
        assert "Your plays reviewed" in review
        assert "Better:" in review or "as you did at every turn" in review
        # Rematch is in the dialog, not behind it.
        pg.wait_for_selector("#summary #rematch-btn")
        assert "Nobody has asked for a rematch yet." in pg.inner_text("#summary #rematch")
        assert pg.locator("#social #rematch-btn").count() == 0
        screenshot(pg, "practice-summary")
        pg.click("#summary #rematch-btn")
        pg.wait_for_function(f"() => !location.pathname.endsWith('/{code}')")
        pg.wait_for_selector(".hand .card")
    finally:
        ctx.close()
    assert not errors, errors


def test_rematch_shows_who_is_ready_by_seat_and_name(browser: Any, server: str) -> None:
    errors: list[str] = []
    ctx_a, a = _page(browser, 1280, 860, errors)
    ctx_b, b = _page(browser, 390, 844, errors)
    rng = random.Random(9)
    try:
        code = create_table(a, server, "Asha")
        b.goto(server + "/")
        b.fill("#join-code-form input[name=code]", code)
        b.fill("#join-code-form input[name=name]", "Ravi")
        b.click("#join-code-form button[type=submit]")
        b.wait_for_url(f"**/t/{code}")
        a.wait_for_selector("#board >> text=Ravi")
        b.goto(server + "/how-to-play")  # Ravi steps away: a bot plays for him meanwhile
        start(a)
        while wait_turn(a):
            play_turn(a, rng)
        b.goto(f"{server}/t/{code}")  # back for the end of the match
        b.wait_for_selector("#summary #rematch-btn")
        a.wait_for_selector("#summary #rematch-btn")
        a.click("#summary #rematch-btn")
        b.wait_for_selector("#summary #rematch-ready >> text=North (Asha)")
        assert "Ready for a rematch: North (Asha)" in b.inner_text("#summary #rematch-ready")
        assert a.is_disabled("#summary #rematch-btn")
        b.click("#summary #rematch-btn")
        for pg in (a, b):
            pg.wait_for_function(f"() => !location.pathname.endsWith('/{code}')")
    finally:
        ctx_a.close()
        ctx_b.close()
    assert not errors, errors


def test_quick_match_takes_either_name_counts_down_and_fills_with_bots(
    browser: Any,
    server: str,
) -> None:
    errors: list[str] = []
    ctx_a, a = _page(browser, 1280, 860, errors)
    ctx_b, b = _page(browser, 390, 844, errors)
    try:
        # Ravi types his name in the join box only.
        a.goto(server + "/")
        a.fill("#create-name", "")
        a.fill("#join-code-form input[name=name]", "Ravi")
        a.click("#quick-btn")
        a.wait_for_url("**/t/*")
        code = a.url.rstrip("/").rsplit("/", 1)[1]
        a.wait_for_selector("#quick-countdown:not([hidden])")
        assert "starts in" in a.inner_text("#quick-countdown")
        assert "Ravi" in a.inner_text("#board")
        # Mira, on a phone, gets the same table and the same countdown.
        b.goto(server + "/")
        b.fill("#create-name", "Mira")
        b.click("#quick-btn")
        b.wait_for_url(f"**/t/{code}")
        b.wait_for_selector("#quick-countdown:not([hidden])")
        a.wait_for_selector("#board >> text=Mira")
        # When it ends the empty seats get bots and the game starts for both.
        # (No hand to wait for: a human bidder's partner sees his cards only after the bid.)
        for pg in (a, b):
            pg.wait_for_function(
                "() => window.seepTable.state && window.seepTable.state.table.status === 'playing'",
                timeout=(QUICK_SECONDS + 30) * 1000,
            )
            assert pg.is_hidden("#quick-countdown")
        names = a.evaluate("() => window.seepTable.state.table.seats.map(s => s.name)")
        assert names == ["Ravi", "Mira", "Bot S", "Bot E"], names
    finally:
        ctx_a.close()
        ctx_b.close()
    assert not errors, errors


def test_the_coach_review_and_rematch_speak_hindi(browser: Any, server: str) -> None:
    from seepkit.browser import english

    ctx = browser.new_context(viewport={"width": 1280, "height": 860})
    ctx.set_default_timeout(TIMEOUT)
    ctx.add_init_script("localStorage.setItem('seep:lang', 'hi')")
    pg = ctx.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    rng = random.Random(11)
    found: list[str] = []
    try:
        create_table(pg, server, "Asha", practice=True)
        start(pg)
        _my_play_turn(pg)
        pg.wait_for_selector("#coach .coach-top li")
        coach = pg.inner_text("#coach")
        found += [f"coach: {w}" for _, w in english([["#coach", coach]])]
        assert "Good:" not in coach and "Careful" not in coach, coach
        while wait_turn(pg):
            play_turn(pg, rng)
        pg.wait_for_selector("#summary #review")
        pg.wait_for_selector("#summary #rematch-btn")
        pg.click("#review details summary")  # every play, opened
        extra = pg.inner_text("#summary-extra")
        found += [f"summary: {w}" for _, w in english([["#summary-extra", extra]])]
    finally:
        ctx.close()
    assert not found, found
    assert not errors, errors
