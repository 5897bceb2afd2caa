"""Team ratings (docs/web.md "Ratings", seep.web.ratings): openskill's Plackett-Luce over the
partnerships, bots at fixed ratings from the arena's ladder, a rated table's rules, and the
update written once, in the transaction that ends the match, equal to a recomputation from the
stored results."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("openskill")

from openskill.models import PlackettLuce

from seep.web.ratings import (
    BOT_ELO,
    MODEL,
    PROVISIONAL_SIGMA,
    RatedMatch,
    Rating,
    bot_rating,
    elo_gap,
    rate,
    shown,
)
from seepkit.ratings import me_of, play_out, rated_match, recompute, sign_up
from seepkit.web import Player, my_turn, web_client

# --- the model ---------------------------------------------------------------------------------


def test_the_bots_ratings_are_the_arena_ladders() -> None:
    """docs/strength.md: easy and medium from the round robin's Elo, hard and expert chained
    from the duplicate pairs they won (the counts in its tables)."""
    assert (BOT_ELO["easy"], BOT_ELO["medium"]) == (1624, 2018)
    expert1 = 2018 + elo_gap(110, 39, 1)
    assert BOT_ELO["hard"] == round(expert1 + elo_gap(182, 113, 5))
    assert BOT_ELO["expert"] == round(expert1 + elo_gap(101, 47, 2))
    for fmt in ("four", "two"):
        for bots, elo in BOT_ELO.items():
            assert bot_rating(bots, fmt).shown(fmt) == elo
        assert shown(MODEL.mu, fmt) == 1500  # a new player


@pytest.mark.parametrize("fmt", ["four", "two"])
def test_a_rating_gap_predicts_as_elo_does(fmt: str) -> None:
    """openskill's prediction between two bot teams is Elo's expectation of their gap (the
    shown scale's promise): exactly at 200 points, within a few percent elsewhere."""
    size = 2 if fmt == "four" else 1
    for a, b in [("medium", "easy"), ("hard", "medium"), ("expert", "hard"), ("expert", "easy")]:
        ra, rb = bot_rating(a, fmt), bot_rating(b, fmt)
        teams = [[MODEL.rating(mu=r.mu, sigma=0.001) for _ in range(size)] for r in (ra, rb)]
        p = MODEL.predict_win(teams)[0]
        elo = 1 / (1 + 10 ** (-(BOT_ELO[a] - BOT_ELO[b]) / 400))
        assert abs(p - elo) < 0.03, (a, b, p, elo)


def test_a_rating_settles_after_about_fifteen_matches() -> None:
    """PROVISIONAL_SIGMA: the matches a new player needs (against new players, winning and
    losing at random) before his rating is no longer provisional (docs/web.md's figures)."""
    needed = {}
    for fmt, players in (("four", 4), ("two", 2)):
        rng = random.Random(5)
        counts = []
        for _ in range(20):
            me, games = Rating(), 0
            while me.provisional:
                accounts = (1, *range(2, players + 1))
                match = RatedMatch(fmt, accounts, "easy", rng.choice((0, 1)))
                me = rate(match, {1: me})[1]
                games += 1
            counts.append(games)
        needed[fmt] = sorted(counts)[len(counts) // 2]
    assert 14 <= needed["four"] <= 19, needed
    assert 8 <= needed["two"] <= 12, needed
    assert Rating(sigma=PROVISIONAL_SIGMA).provisional is False


def test_rate_is_openskills_plackett_luce_with_bots_fixed() -> None:
    me, partner = Rating(27.0, 5.0, 9), Rating(23.0, 7.0, 2)
    match = RatedMatch("four", (1, None, 2, None), "medium", 0)
    after = rate(match, {1: me, 2: partner})
    assert set(after) == {1, 2}  # the bots' ratings never change
    bot = bot_rating("medium", "four")
    model = PlackettLuce()
    expected = model.rate(
        [
            [model.rating(mu=27.0, sigma=5.0), model.rating(mu=23.0, sigma=7.0)],
            [model.rating(mu=bot.mu, sigma=bot.sigma) for _ in range(2)],
        ],
        ranks=[0, 1],
    )
    assert (after[1].mu, after[1].sigma) == (expected[0][0].mu, expected[0][0].sigma)
    assert (after[2].mu, after[2].sigma) == (expected[0][1].mu, expected[0][1].sigma)
    assert (after[1].games, after[2].games) == (10, 3)
    assert after[1].mu > me.mu and after[2].mu > partner.mu  # they won
    lost = rate(RatedMatch("two", (1, 3), "easy", 1), {})
    assert lost[1].mu < MODEL.mu < lost[3].mu
    drawn = rate(RatedMatch("two", (1, 3), "easy", None), {})
    assert drawn[1].mu == pytest.approx(MODEL.mu) and drawn[1].sigma < MODEL.sigma


# --- rated tables --------------------------------------------------------------------------------


def test_a_rated_match_of_four_accounts_changes_their_ratings_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Four browsers on one test address: the address's message budget would drop their moves.
    monkeypatch.setenv("SEEP_MESSAGE_BUDGET", "0")
    with web_client(tmp_path) as (client, manager, checker):
        app = client.app
        browsers = [sign_up(app, n) for n in ("Asha", "Bala", "Chitra", "Dev")]
        table, last = rated_match(client, manager, checker, browsers)
        assert last["table"]["settings"]["rated"] is True
        winner = last["summary"]["match_winner"]
        mes = [me_of(b) for b in browsers]
        for seat, me in enumerate(mes):
            four = me["ratings"]["four"]
            assert four["games"] == 1 and four["provisional"] is True
            if winner is None:
                assert four["mu"] == pytest.approx(MODEL.mu)
            elif seat % 2 == winner:
                assert four["mu"] > MODEL.mu and four["rating"] > 1500
            else:
                assert four["mu"] < MODEL.mu and four["rating"] < 1500
            assert me["ratings"]["two"] == Rating().to_dict("two")  # not played
        # The end written again (a retry, another instance reloading it) rates nothing.
        assert table.rated_match(table.record()) is not None
        manager.store.finish(table, table.record(), table.rated_match(table.record()))
        assert [me_of(b)["ratings"] for b in browsers] == [m["ratings"] for m in mes]
        assert len({r.id for r in manager.store.rated_matches()}) == 1

        # A second match: a two-player one against an easy bot; then everything recomputed.
        rated_match(client, manager, checker, [browsers[0]], preset="two_player", bots="easy")
        rows = list(manager.store.rated_matches())
        assert len({r.id for r in rows}) == 2
        again = recompute(rows)
        for account, fmt in again:
            stored = manager.store.ratings_of(account)[fmt]
            assert (stored.mu, stored.sigma, stored.games) == pytest.approx(again[account, fmt])
        assert me_of(browsers[0])["ratings"]["two"]["games"] == 1


def test_a_rated_table_keeps_its_rules(tmp_path: Path) -> None:
    with web_client(tmp_path) as (client, manager, checker):
        guest = client.post("/api/tables", json={"rated": True})
        assert guest.status_code == 401 and guest.json()["error"]["code"] == "not_signed_in"
        asha = sign_up(client.app, "Asha")
        for bad, word in [
            ({"rated": True, "practice": True}, "practice"),
            ({"rated": True, "bots": "random"}, "difficulty"),
        ]:
            r = asha.post("/api/tables", json=bad)
            assert r.status_code == 400 and word in r.json()["error"]["message"], r.text
        made = asha.post("/api/tables", json={"rated": True, "bots": "easy"}).json()
        code = made["code"]
        # A guest cannot sit at it; nor can the same account twice.
        r = client.post(f"/api/tables/{code}/join", json={"name": "Guest"})
        assert r.status_code == 401 and r.json()["error"]["code"] == "not_signed_in", r.text
        r = asha.post(f"/api/tables/{code}/join", json={})
        assert r.status_code == 409 and "already has a seat" in r.json()["error"]["message"], r.text
        # No hints, no undo, no coach.
        p = Player(client, checker, code, made["token"])
        p.send({"type": "start"})
        turn = p.until(my_turn)
        refusals: list[tuple[dict[str, Any], Callable[[str], bool]]] = [
            ({"type": "hint"}, lambda m: "no hints" in m),
            ({"type": "undo"}, lambda m: "practice" in m),
            ({"type": "coach"}, lambda m: "practice" in m),
        ]
        for msg, says in refusals:
            p.send(msg)
            err = p.error()
            assert err["code"] == "not_allowed" and says(err["message"]), err
        assert manager.get(code).to_move == turn["seat"]
        p.close()
        # Unrated tables are as before: a guest may play them.
        assert client.post("/api/tables", json={"name": "Guest"}).status_code == 201


def test_rated_quick_match_seats_signed_in_players_together(tmp_path: Path) -> None:
    """``"rated": true`` on quick match: the accounts asking for the same rated settings sit at
    one table, a guest is turned away, and an unrated request never lands at a rated table."""
    with web_client(tmp_path) as (client, manager, checker):
        ask = {"rated": True, "preset": "two_player", "bots": "easy"}
        guest = client.post("/api/quick", json=ask)
        assert guest.status_code == 401 and guest.json()["error"]["code"] == "not_signed_in"
        asha, bala = sign_up(client.app, "Asha"), sign_up(client.app, "Bala")
        first = asha.post("/api/quick", json=ask)
        assert first.status_code == 200, first.text
        code = first.json()["code"]
        table = manager.get(code)
        assert table.settings["rated"] is True and table.starts_at is not None
        # The same account asking again (another tab) keeps its seat, not a second one.
        again = asha.post("/api/quick", json=dict(ask, tokens=[first.json()["token"]]))
        assert again.json()["seat"] == first.json()["seat"]
        host = Player(client, checker, code, first.json()["token"])  # her page is open
        second = bala.post("/api/quick", json=ask)
        assert second.status_code == 200, second.text
        assert second.json()["code"] == code and second.json()["seat"] != first.json()["seat"]
        assert table.status == "playing"  # full: the countdown need not run out
        # The guest's unrated quick match opens a table of its own.
        unrated = client.post("/api/quick", json={"preset": "two_player", "bots": "easy"})
        assert unrated.status_code == 200 and unrated.json()["code"] != code
        assert manager.get(unrated.json()["code"]).settings["rated"] is False
        host.close()


# --- fair play -----------------------------------------------------------------------------------


def test_a_forfeit_is_a_loss_for_him_and_nothing_for_his_partner() -> None:
    """docs/web.md "Fair play": the forfeiter's team ranks last whatever the cards said, his
    rating takes openskill's loss, his partner's stays as it was (games too), the opponents
    gain openskill's win; both sides forfeiting is a draw, each forfeiter counted."""
    a, b, c, d = (Rating(25.0 + i, 7.0, 4) for i in range(4))
    match = RatedMatch("four", (1, 2, 3, 4), "easy", winner=0, forfeited=frozenset({0}))
    assert match.ranked_winner == 1
    assert [match.result(s) for s in range(4)] == ["loss", "win", "loss", "win"]
    after = rate(match, {1: a, 2: b, 3: c, 4: d})
    model = PlackettLuce()
    expected = model.rate(
        [[model.rating(mu=r.mu, sigma=r.sigma) for r in (a, c)] for _ in (0,)]
        + [[model.rating(mu=r.mu, sigma=r.sigma) for r in (b, d)]],
        ranks=[1, 0],
    )
    assert (after[1].mu, after[1].sigma, after[1].games) == (
        expected[0][0].mu,
        expected[0][0].sigma,
        5,
    )
    assert after[3] == c  # the partner: unchanged, the match not counted
    assert after[2].mu == expected[1][0].mu and after[4].mu == expected[1][1].mu
    assert after[2].games == after[4].games == 5
    both = RatedMatch("four", (1, 2, 3, 4), "easy", winner=0, forfeited=frozenset({0, 1}))
    assert both.ranked_winner is None
    assert [both.result(s) for s in range(4)] == ["loss", "loss", "draw", "draw"]
    two = rate(RatedMatch("two", (1, None), "hard", winner=0, forfeited=frozenset({0})), {})
    assert two[1].mu < MODEL.mu and two[1].games == 1


def _wait(until: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + 15.0
    while not until():
        assert time.monotonic() < deadline, what
        time.sleep(0.01)


def test_a_player_who_leaves_a_rated_match_forfeits_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bala leaves the four accounts' match at its start and does not come back within the
    grace period and the forfeit limit: a bot plays his seat, everyone sees he forfeited, and
    at the end his rating takes the loss, his partner Dev's stays, the opponents win; his
    abandons count 1. Coming back later changes nothing."""
    monkeypatch.setenv("SEEP_MESSAGE_BUDGET", "0")
    with web_client(tmp_path, grace_seconds=0.2) as (client, manager, checker):
        manager.forfeit_seconds = 0.3
        browsers = [sign_up(client.app, n) for n in ("Asha", "Bala", "Chitra", "Dev")]
        made = browsers[0].post("/api/tables", json={"rated": True, "deals": 1}).json()
        code, tokens = made["code"], [made["token"]]
        for b in browsers[1:]:
            tokens.append(b.post(f"/api/tables/{code}/join", json={}).json()["token"])
        players = [Player(client, checker, code, t) for t in tokens]
        players[0].send({"type": "start"})
        table = manager.get(code)
        _wait(lambda: table.status == "playing", "the match did not start")
        players[1].close()
        _wait(lambda: table.seats[1].forfeited, "Bala's seat was not forfeited")
        seen = players[0].until(
            lambda m: m["type"] == "state" and m["table"]["seats"][1]["forfeited"]
        )
        assert seen["table"]["seats"][1]["away"] is True
        back = Player(client, checker, code, tokens[1])  # too late: the forfeit stands
        back.close()
        _wait(lambda: table.seats[1].connections == 0, "Bala's socket did not close")
        last = play_out([players[0], players[2], players[3]], table, random.Random(7))
        for p in players:
            p.close()
        assert last["table"]["seats"][1]["forfeited"] is True
        mes = [me_of(b) for b in browsers]
        fours = [m["ratings"]["four"] for m in mes]
        assert fours[1]["mu"] < MODEL.mu and fours[1]["games"] == 1  # Bala: the loss
        assert fours[3] == Rating().to_dict("four")  # Dev: as he was, no game counted
        assert fours[0]["mu"] > MODEL.mu and fours[2]["mu"] > MODEL.mu  # the opponents won
        assert [m["abandons"] for m in mes] == [0, 1, 0, 0]
        rows = list(manager.store.rated_matches())
        assert [r.forfeited for r in rows] == [False, True, False, False]
        again = recompute(rows)
        for (account, fmt), (mu, sigma, games) in again.items():
            now = manager.store.ratings_of(account)[fmt]
            assert (now.mu, now.sigma, now.games) == pytest.approx((mu, sigma, games))


def test_a_rated_match_everyone_left_closes_as_their_loss(tmp_path: Path) -> None:
    """The only player of a rated two-player match leaves; the table closes unfinished (the
    sweep's orphan limit): the match is rated as his forfeit, in the closing transaction."""
    with web_client(tmp_path, grace_seconds=0.2) as (client, manager, checker):
        manager.forfeit_seconds = 0.2
        asha = sign_up(client.app, "Asha")
        made = asha.post(
            "/api/tables", json={"rated": True, "preset": "two_player", "bots": "medium"}
        ).json()
        p = Player(client, checker, made["code"], made["token"])
        p.send({"type": "start"})
        p.until(my_turn)
        p.close()
        table = manager.get(made["code"])
        _wait(lambda: table.seats[0].forfeited, "the seat was not forfeited")
        manager.close(table)
        me = me_of(asha)
        assert me["ratings"]["two"]["games"] == 1 and me["ratings"]["two"]["mu"] < MODEL.mu
        assert me["abandons"] == 1
        rows = list(manager.store.rated_matches())
        assert len(rows) == 2 and rows[0].winner is None  # not played out: no winner by cards
        again = recompute(rows)
        stored = manager.store.ratings_of(1)["two"]
        assert (stored.mu, stored.sigma) == pytest.approx(again[1, "two"][:2])
