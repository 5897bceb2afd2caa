"""Duplicate Seep's pure parts (issue 30 item 4; docs/web.md "Events"): the same shuffles at
every table of a round (the core's seeded dealing), the seats of each side, matchpoints and
percentages, the friendly two tables for eight, and the leak rule tried as an attacker would
(seep.web.tournament.duplicate)."""

from __future__ import annotations

import json
import random
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from seep.moves import MoveRecord
from seep.session import Session
from seep.web.game import GameTable
from seep.web.tournament import TeamId
from seep.web.tournament.duplicate import (
    DealScore,
    DuplicateTable,
    deal_scores,
    deal_seed,
    deal_session,
    margin,
    matchpoints,
    may_see_record,
    may_see_result,
    may_watch,
    seat_people,
    side_seats,
    standings,
    tables,
    two_tables,
    visible_deals,
)

ROUND_SEED = 0x5EE9_0042


def play_out(session: Session, rng: random.Random) -> list[int]:
    """Play the deal with random legal moves; its ``result["score"]``."""
    while not session.deal_over:
        session.play(rng.choice(session.position.legal_codes()))
    out = session.outcome()
    assert out is not None
    return list(out.result["score"])


def hands(session: Session) -> list[list[str]]:
    """Every card each seat held in the deal: the cards it played (all of them, whatever the
    play), read once the deal is over."""
    assert session.deal_over
    held: list[list[str]] = [[] for _ in range(session.rules.players)]
    for seat, code in session.deal_history(0):
        card = MoveRecord(seat, code).to_dict().get("card")
        if card is not None:
            held[seat].append(card)
    return [sorted(h) for h in held]


# --- the same shuffles -------------------------------------------------------------------------


def test_deal_seeds_are_a_pure_function_of_the_round_and_the_deal() -> None:
    assert deal_seed(ROUND_SEED, 3) == deal_seed(ROUND_SEED, 3)
    seeds = {deal_seed(ROUND_SEED, k) for k in range(50)} | {deal_seed(ROUND_SEED + 1, 0)}
    assert len(seeds) == 51
    assert all(0 <= s < 1 << 62 for s in seeds)
    with pytest.raises(ValueError):
        deal_seed(ROUND_SEED, -1)


@pytest.mark.parametrize("rules", ["standard", "two_player"])
def test_every_table_of_a_round_gets_the_same_hands_in_the_same_seats_and_dealer(
    rules: str,
) -> None:
    for deal in range(4):
        starts = []
        for _ in range(3):  # three tables, each its own session
            s = deal_session(rules, ROUND_SEED, deal)
            starts.append(json.dumps(s.position.to_dict(), sort_keys=True))
            assert s.position.dealer == deal_session(rules, ROUND_SEED, deal).position.dealer
        assert len(set(starts)) == 1
    # Different deals, different cards.
    a = deal_session("standard", ROUND_SEED, 0).position.to_dict()
    b = deal_session("standard", ROUND_SEED, 1).position.to_dict()
    assert a != b


def test_the_web_table_deals_the_same_from_the_deal_seed_and_one_deal() -> None:
    """The server side needs no new hook: a GameTable made with the deal's seed and
    ``deals: 1`` deals exactly what deal_session does."""
    for preset in ("standard", "two_player"):
        settings_ = {"preset": preset, "bots": "easy", "deals": 1, "baazis": None}
        table = GameTable("DUPL", settings_, seed=deal_seed(ROUND_SEED, 2))
        table.start(0)
        assert table.session is not None
        mine = deal_session(preset, ROUND_SEED, 2)
        assert table.session.position.to_dict() == mine.position.to_dict()


def test_a_played_deal_is_over_and_its_record_carries_only_its_own_seed() -> None:
    rng = random.Random(3)
    s = deal_session("standard", ROUND_SEED, 5)
    play_out(s, rng)
    assert s.match_over
    record = s.to_record(unfinished=False)
    assert record["seed"] == deal_seed(ROUND_SEED, 5)
    text = json.dumps(record)
    for other in (ROUND_SEED, deal_seed(ROUND_SEED, 4), deal_seed(ROUND_SEED, 6)):
        assert str(other) not in text
    # A replay of the record alone is the same deal: the seed dealt it.
    again = Session("standard", seed=record["seed"], deals=1)
    assert again.position.to_dict() == record["deals"][0]["start"]


# --- seats -------------------------------------------------------------------------------------


def test_sides_and_seats() -> None:
    assert side_seats(0) == (0, 2) and side_seats(1) == (1, 3)
    assert side_seats(0, 2) == (0,) and side_seats(1, 2) == (1,)
    with pytest.raises(ValueError):
        side_seats(2)
    t = DuplicateTable(1, "A", "B", swapped=True)
    assert (t.side("A"), t.side("B")) == (1, 0)
    assert t.seats("A") == (1, 3) and t.seats("B", players=2) == (0,)
    assert (t.team_on(0), t.team_on(1)) == ("B", "A")
    with pytest.raises(ValueError):
        t.side("C")


def test_half_the_tables_are_swapped_so_half_the_field_holds_each_side() -> None:
    pairs: list[tuple[TeamId, TeamId]] = [("A", "B"), ("C", "D"), ("E", "F"), ("G", "H")]
    ts = tables(pairs)
    assert [t.swapped for t in ts] == [False, True, False, True]
    side0 = sorted(t.team_on(0) for t in ts)
    assert side0 == ["A", "D", "E", "H"]
    with pytest.raises(ValueError):
        tables([("A", "B"), ("B", "C")])


def test_two_tables_for_eight_people() -> None:
    t1, t2 = two_tables(["A", "B", "C", "D"])
    assert (t1.first, t1.second, t1.swapped) == ("A", "B", False)
    assert (t2.first, t2.second, t2.swapped) == ("C", "D", True)
    # A and D hold the same cards, and B and C.
    assert t1.side("A") == t2.side("D") == 0 and t1.side("B") == t2.side("C") == 1
    people = {"A": ["Asha", "Amit"], "B": ["Bela", "Bram"], "C": ["Chen", "Cara"],
              "D": ["Dev", "Dina"]}  # fmt: skip
    assert seat_people(t1, people) == ["Asha", "Bela", "Amit", "Bram"]
    assert seat_people(t2, people) == ["Dev", "Chen", "Dina", "Cara"]
    with pytest.raises(ValueError):
        two_tables(["A", "B", "C"])
    with pytest.raises(ValueError):
        seat_people(t1, {"A": ["Asha"], "B": ["Bela", "Bram"]})


def test_the_two_tables_play_the_same_cards_and_compare_the_teams_that_held_them() -> None:
    """Eight people, two deals: table 2's D sits where table 1's A sat and holds A's cards;
    the matchpoints compare A with D and B with C on each deal."""
    t1, t2 = two_tables(["A", "B", "C", "D"])
    people = {t: [f"{t}1", f"{t}2"] for t in "ABCD"}
    rng = random.Random(8)
    scores: list[DealScore] = []
    for deal in range(2):
        s1 = deal_session("standard", ROUND_SEED, deal)
        s2 = deal_session("standard", ROUND_SEED, deal)
        scores += deal_scores(t1, deal, play_out(s1, rng))
        scores += deal_scores(t2, deal, play_out(s2, rng))
        h1, h2 = hands(s1), hands(s2)
        assert all(len(h) == 12 for h in h1)
        seats1, seats2 = seat_people(t1, people), seat_people(t2, people)
        # The cards a person holds follow his team's side: A1 and D1 hold the same, however
        # differently the two tables played them.
        holds1 = {p: h1[i] for i, p in enumerate(seats1)}
        holds2 = {p: h2[i] for i, p in enumerate(seats2)}
        for p1, p2 in (("A1", "D1"), ("A2", "D2"), ("B1", "C1"), ("B2", "C2")):
            assert holds1[p1] == holds2[p2]
    mps = {(m.team, m.deal): m for m in matchpoints(scores)}
    for deal in range(2):
        a, d = mps[("A", deal)], mps[("D", deal)]
        assert a.side == d.side == 0 and a.top == d.top == 2
        assert a.points + d.points == 2
        assert (a.points > d.points) == (a.score > d.score)
        assert a.field == d.score and d.field == a.score


# --- matchpoints -------------------------------------------------------------------------------


def test_margin_is_the_sides_score_less_the_others() -> None:
    assert margin([61, 39], 0) == 22 and margin([61, 39], 1) == -22
    t = DuplicateTable(1, "C", "D", swapped=True)
    assert deal_scores(t, 0, [70, 30]) == [DealScore("C", 0, 1, -40), DealScore("D", 0, 0, 40)]


def test_two_points_for_each_team_beaten_and_one_for_each_tie() -> None:
    scores = [
        DealScore("A", 0, 0, 20),
        DealScore("B", 0, 0, 10),
        DealScore("C", 0, 0, 10),
        DealScore("D", 0, 0, -4),
        # The other side of the deal: compared among themselves only.
        DealScore("E", 0, 1, 50),
        DealScore("F", 0, 1, -50),
        # Another deal: nobody else held these cards.
        DealScore("A", 1, 1, 8),
    ]
    mps = {(m.team, m.deal): m for m in matchpoints(scores)}
    assert [mps[(t, 0)].points for t in "ABCD"] == [6, 3, 3, 0]
    assert all(mps[(t, 0)].top == 6 for t in "ABCD")
    assert (mps[("E", 0)].points, mps[("F", 0)].points, mps[("E", 0)].top) == (2, 0, 2)
    assert mps[("A", 0)].field == Fraction(10 + 10 - 4, 3)
    assert mps[("A", 0)].percent == 100.0 and mps[("B", 0)].percent == 50.0
    lone = mps[("A", 1)]
    assert (lone.points, lone.top, lone.others, lone.field, lone.percent) == (0, 0, 0, None, None)
    with pytest.raises(ValueError):
        matchpoints([DealScore("A", 0, 0, 1), DealScore("A", 0, 1, 1)])


def test_standings_in_percent_exactly_then_seed_and_the_uncompared_last() -> None:
    scores = [
        DealScore("A", 0, 0, 10),
        DealScore("B", 0, 0, 0),
        DealScore("C", 0, 1, 5),
        DealScore("D", 0, 1, 5),
    ]
    table = standings(["D", "C", "B", "A", "E"], scores)
    assert [(s.team, s.points, s.top) for s in table] == [
        ("A", 2, 2),
        ("D", 1, 2),
        ("C", 1, 2),
        ("B", 0, 2),
        ("E", 0, 0),
    ]
    assert table[0].percent == 100.0 and table[1].percent == 50.0 and table[4].percent is None
    with pytest.raises(ValueError):
        standings(["A"], [DealScore("Z", 0, 0, 1)])


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 3), st.integers(0, 1), st.integers(-100, 100)),
        min_size=1,
        max_size=60,
    )
)
def test_matchpoints_share_out_two_per_pair_of_teams_that_held_the_same_cards(
    raw: list[tuple[int, int, int]],
) -> None:
    scores = [DealScore(f"T{i}", deal, side, sc) for i, (deal, side, sc) in enumerate(raw)]
    mps = matchpoints(scores)
    groups: dict[tuple[int, int], list[Any]] = {}
    for m in mps:
        groups.setdefault((m.deal, m.side), []).append(m)
    for members in groups.values():
        n = len(members)
        assert sum(m.points for m in members) == n * (n - 1)
        assert all(m.top == 2 * (n - 1) and 0 <= m.points <= m.top for m in members)
        best = max(m.score for m in members)
        for m in members:
            if m.score == best and n > 1:
                assert m.points >= n - 1
    table = standings([s.team for s in scores], scores)
    percents = [s.percent for s in table if s.percent is not None]
    assert percents == sorted(percents, reverse=True)


def test_a_duplicate_round_of_four_teams_played_out() -> None:
    """Four teams at two tables over three deals (random legal moves): each deal's two
    tables get the same hands, the teams on the same side are compared, and the standings add
    up."""
    ts = tables([("A", "B"), ("C", "D")])
    rng = random.Random(30)
    scores: list[DealScore] = []
    for deal in range(3):
        sessions = [deal_session("standard", ROUND_SEED, deal) for _ in ts]
        for t, s in zip(ts, sessions, strict=True):
            scores += deal_scores(t, deal, play_out(s, rng))
        assert len({json.dumps(hands(s)) for s in sessions}) == 1
    table = standings(["A", "B", "C", "D"], scores)
    assert sum(s.points for s in table) == 3 * 2 * 2  # per deal, two sides, one pair each
    assert all(s.top == 6 and s.deals == 3 for s in table)


# --- the leak rule, as an attacker tries it ----------------------------------------------------


def test_visible_deals_are_those_every_table_finished() -> None:
    assert visible_deals({}) == frozenset()
    assert visible_deals({0: 0, 1: 3}) == frozenset()
    assert visible_deals({0: 3, 1: 4, 2: 3}) == frozenset({0, 1, 2})
    with pytest.raises(ValueError):
        visible_deals({0: -1})


def test_a_finished_team_learns_nothing_of_the_next_deal_or_of_a_table_still_playing() -> None:
    # Deals 0..3 (the "deal 3" of the issue is index 2 here: three finished). Table 0 has
    # finished three deals, table 1 is still playing its third.
    progress = {0: 3, 1: 2}
    # Deal 4 (index 3): no record, no result, for anyone.
    for viewer in (0, 1, None):
        for table in (0, 1):
            assert not may_see_result(progress, 3, table, viewer)
    assert not may_see_record(progress, 3)
    # Deal 3 (index 2): table 0's players know their own result (they saw it end) but not
    # table 1's, nor any record (every hand) of it; table 1 sees nothing of it either.
    assert may_see_result(progress, 2, 0, 0)
    assert not may_see_result(progress, 2, 1, 0)
    assert not may_see_result(progress, 2, 0, 1)
    assert not may_see_result(progress, 2, 0, None)
    assert not may_see_record(progress, 2)
    # Deals both tables finished are open to everyone.
    for deal in (0, 1):
        assert may_see_record(progress, deal)
        assert all(may_see_result(progress, deal, t, v) for t in (0, 1) for v in (0, 1, None))
    # Nobody watches live, not even someone outside the event, until the round is over.
    assert not may_watch(progress, 4)
    assert not may_watch({0: 4, 1: 3}, 4)
    assert may_watch({0: 4, 1: 4}, 4)
    assert not may_watch({}, 4)


@settings(max_examples=100, deadline=None)
@given(
    st.dictionaries(st.integers(0, 7), st.integers(0, 6), min_size=1, max_size=8),
    st.integers(0, 7),
    st.one_of(st.none(), st.integers(0, 7)),
    st.integers(0, 7),
)
def test_nothing_opens_before_every_table_has_finished_the_deal_but_ones_own_result(
    progress: dict[int, int], deal: int, viewer: int | None, table: int
) -> None:
    """Whoever asks and whatever he asks for: a record opens only when every table has
    finished the deal, a result only then or to the table's own players after they finished
    it; and what opens never closes again as tables go on."""
    everyone_done = all(done > deal for done in progress.values())
    assert may_see_record(progress, deal) == everyone_done
    result = may_see_result(progress, deal, table, viewer)
    if result and not everyone_done:
        assert viewer == table and progress.get(table, 0) > deal
    later = {t: done + 1 for t, done in progress.items()}
    if may_see_record(progress, deal):
        assert may_see_record(later, deal)
    if result:
        assert may_see_result(later, deal, table, viewer)
