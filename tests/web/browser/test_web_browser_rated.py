"""Rated play in Debian's chromium (docs/web.md "Ratings", "Profiles and leaderboards"): the
lobby offers Rated to a signed-in player only, Rated and Practice exclude each other, the table
shows the match is rated and offers no hints, and once the match is over the account panel
shows the new rating; four accounts play a rated match of four, each on his own page, and see
the ratings beside the names, then the change on their profiles and on the leaderboard."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from seepkit.browser import TIMEOUT, phone_page, play_turn, wait_turn, watch_csp

pytestmark = pytest.mark.browser
PASSWORD = "a long family password"


@pytest.fixture(scope="module")
def rated_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """A real server of its own (its database file known to the test); four pages on one
    address send more than one address's message budget."""
    from seepkit.browser import app_server

    tmp = tmp_path_factory.mktemp("rated")
    with app_server(tmp, SEEP_MESSAGE_BUDGET="0") as base:
        yield base, tmp / "seep.db"


def _page(browser: Any, errors: list[str], width: int = 390, height: int = 844) -> Any:
    ctx = browser.new_context(viewport={"width": width, "height": height})
    ctx.set_default_timeout(TIMEOUT)
    pg = ctx.new_page()
    pg.on("pageerror", lambda e: errors.append(str(e)))
    watch_csp(pg, errors)
    return pg


def _sign_up(pg: Any, base: str, name: str) -> None:
    pg.goto(base + "/")
    pg.wait_for_selector("#account[data-signed-in=no]")
    pg.fill("#account-name", name)
    pg.fill("#account-password", PASSWORD)
    pg.click("#sign-up-btn")
    pg.wait_for_selector("#account[data-signed-in=yes]")


def _settle(db: Path, names: list[str]) -> None:
    """Give the accounts settled ratings (as after many rated matches), so that one more
    match shows on the leaderboard, which lists settled players only."""
    import sqlalchemy

    from seep.web.schema import accounts_t, ratings_t

    engine = sqlalchemy.create_engine(f"sqlite:///{db}")
    with engine.begin() as c:
        for name in names:
            account = c.execute(
                sqlalchemy.select(accounts_t.c.id).where(accounts_t.c.name == name)
            ).scalar_one()
            c.execute(
                sqlalchemy.insert(ratings_t).values(
                    account=account, format="four", mu=25.0, sigma=3.0, games=20, last=time.time()
                )
            )
    engine.dispose()


def test_a_signed_in_player_plays_a_rated_match_and_sees_his_rating(
    rated_server: tuple[str, Path], browser: Any
) -> None:
    server = rated_server[0]
    ctx, pg, errors = phone_page(browser)
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


def test_four_accounts_play_a_rated_match_and_see_it_on_profiles_and_the_leaderboard(
    rated_server: tuple[str, Path], browser: Any
) -> None:
    base, db = rated_server
    names = ["Asha", "Bala", "Chitra", "Dev"]
    errors: list[str] = []
    pages = [_page(browser, errors) for _ in names]
    try:
        for pg, name in zip(pages, names, strict=True):
            _sign_up(pg, base, name)
        _settle(db, names)
        host = pages[0]
        host.reload()
        host.wait_for_selector("#account[data-signed-in=yes]")
        assert "Rating: 1500 with a partner" in host.inner_text("#account-ratings")
        host.check("#create-rated")
        host.fill("#create-count", "1")
        host.click("#create-btn")
        host.wait_for_url("**/t/*")
        code = host.url.rsplit("/", 1)[1]
        for seat, pg in enumerate(pages[1:], start=1):
            pg.goto(f"{base}/t/{code}")
            pg.select_option("#join-seat", str(seat))
            pg.click("#join-btn")
            pg.wait_for_selector(".seat-list")
        host.wait_for_function(
            "() => (document.querySelector('.seat-list')?.innerText ?? '').includes('Dev 1500')"
        )
        host.click("#start-btn")
        for pg in pages:
            pg.wait_for_function("() => document.body.dataset.status === 'playing'")
        # The partner's name at the top, with his rating beside it.
        assert host.inner_text("#seat-top .rating-tag") == "1500"
        rng = random.Random(11)
        deadline = time.monotonic() + 300
        while not all(pg.locator("#summary").count() for pg in pages):
            assert time.monotonic() < deadline, "the match did not end"
            for pg in pages:
                if pg.evaluate("() => document.body.dataset.myturn") == "true":
                    play_turn(pg, rng)
            host.wait_for_timeout(20)
        winner = host.evaluate("() => window.seepTable.state.summary.match_winner")

        # Each profile shows the match and the new rating; the leaderboard lists all four.
        shown: dict[str, int] = {}
        for pg, name in zip(pages, names, strict=True):
            pg.goto(f"{base}/u/{name}")
            pg.wait_for_selector("#match-list table")
            shown[name] = int(pg.inner_text(".rating-big[data-format=four]"))
            assert pg.locator("#match-list tbody tr").count() == 1
            assert pg.locator("#charts svg polyline").count() == 1
            assert pg.locator(f"#match-list a[href='/replay/{code}']").count() == 1
        for seat, name in enumerate(names):
            if winner is None:
                assert shown[name] == 1500
            elif seat % 2 == winner:
                assert shown[name] > 1500, shown
            else:
                assert shown[name] < 1500, shown
        partner = pages[0].inner_text("#match-list tbody tr td:nth-child(2)")
        assert partner == "Chitra"
        pages[1].goto(f"{base}/leaderboard")
        pages[1].wait_for_selector(".board-table")
        rows = pages[1].eval_on_selector_all(
            ".board-table tbody tr", "rs => rs.map(r => [...r.cells].map(c => c.innerText))"
        )
        assert sorted(r[1] for r in rows) == sorted(names)
        assert {r[1]: int(r[2]) for r in rows} == shown
        assert [int(r[2]) for r in rows] == sorted(shown.values(), reverse=True)
        # Hindi: the same leaderboard in the page's other language.
        pages[1].click("[data-lang=hi]")
        pages[1].wait_for_selector(".board-table")
        assert pages[1].inner_text("#leaderboard-view h1") == "लीडरबोर्ड"
        assert not errors, errors
    finally:
        for pg in pages:
            pg.context.close()
