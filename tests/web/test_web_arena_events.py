"""Arena events' pure parts (issue 30 item 3; docs/web.md "Events"): the streak scoring, the
standings, and a finishing team paired at once with the nearest-ranked free team
(seep.web.tournament.arena)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from seep.web.tournament import TeamId
from seep.web.tournament.arena import (
    STREAK,
    Free,
    Game,
    counts,
    free_teams,
    opponent,
    pair_free,
    pairs_at,
    score,
    standings,
)

# --- scoring -----------------------------------------------------------------------------------


def test_a_win_is_two_a_draw_one_a_loss_nothing() -> None:
    assert score(0, "win") == (2, 1)
    assert score(0, "draw") == (1, 0)
    assert score(0, "loss") == (0, 0)


def test_after_two_wins_in_a_row_a_win_counts_double_until_a_game_is_not_won() -> None:
    streak, got = 0, []
    for outcome in ["win", "win", "win", "win", "draw", "win", "win", "win", "loss", "win"]:
        points, streak = score(streak, outcome)
        got.append(points)
    assert got == [2, 2, 4, 4, 2, 2, 2, 4, 0, 2]
    assert STREAK == 2


def test_an_unknown_outcome_is_refused() -> None:
    with pytest.raises(ValueError, match="'lose'"):
        score(0, "lose")


def test_standings_count_streaks_per_team_in_the_order_games_finished() -> None:
    games = [
        Game("A", "B", "A"),
        Game("C", "D", "C"),
        Game("A", "C", "A"),  # A: 2 in a row, C's streak ends
        Game("B", "D", None),
        Game("A", "D", "A"),  # A on a streak: 4
        Game("C", "B", "C"),
        Game("A", "C", None),  # A's draw on a streak: 2, the streak ends
    ]
    table = standings(["A", "B", "C", "D"], games)
    by = {s.team: s for s in table}
    assert (by["A"].points, by["A"].wins, by["A"].draws, by["A"].streak) == (10, 3, 1, 0)
    assert (by["C"].points, by["C"].streak, by["C"].last) == (2 + 0 + 2 + 1, 0, "A")
    assert (by["B"].points, by["D"].points) == (1, 1)
    assert [s.team for s in table] == ["A", "C", "B", "D"]
    assert not by["A"].on_streak


def test_equal_points_go_to_the_team_with_fewer_games_then_the_seed() -> None:
    games = [Game("A", "B", "A"), Game("C", "D", None), Game("C", "D", None)]
    table = standings(["D", "C", "B", "A"], games)
    # A 2 in 1 game; C and D 2 in 2 games (D seeded first); B 0.
    assert [s.team for s in table] == ["A", "D", "C", "B"]


def test_bad_games_are_refused() -> None:
    with pytest.raises(ValueError):
        Game("A", "A")
    with pytest.raises(ValueError):
        Game("A", "B", "C")
    with pytest.raises(ValueError, match="'Z'"):
        standings(["A"], [Game("A", "Z", "A")])


def test_the_window_pairs_from_its_start_to_its_end_and_counts_games_finished_by_then() -> None:
    assert not pairs_at(99.0, 100.0, 200.0)
    assert pairs_at(100.0, 100.0, 200.0) and pairs_at(199.9, 100.0, 200.0)
    assert not pairs_at(200.0, 100.0, 200.0)
    assert counts(200.0, 200.0) and not counts(200.5, 200.0)


# --- pairing -----------------------------------------------------------------------------------


def test_a_finishing_team_meets_the_nearest_ranked_free_team() -> None:
    free = [Free("B", 2), Free("F", 6), Free("G", 7), Free("J", 10)]
    got = opponent(Free("E", 5), free)
    assert got is not None and got.team == "F"
    got = opponent(Free("H", 8), free)
    assert got is not None and got.team == "G"
    # Equally near: the higher-ranked.
    got = opponent(Free("D", 4), [Free("B", 2), Free("F", 6)])
    assert got is not None and got.team == "B"


def test_no_immediate_rematch_while_another_team_is_free() -> None:
    free = [Free("B", 2, last="C"), Free("F", 6)]
    got = opponent(Free("C", 3, last="B"), free)
    assert got is not None and got.team == "F"
    # Only the last opponent is free: they play again rather than wait.
    got = opponent(Free("C", 3, last="B"), [Free("B", 2, last="C")])
    assert got is not None and got.team == "B"
    assert opponent(Free("C", 3), [Free("C", 3)]) is None


def test_pair_free_takes_the_longest_waiting_first_and_leaves_one_waiting() -> None:
    free = [Free("E", 5), Free("A", 1), Free("F", 6), Free("B", 2), Free("Z", 26)]
    pairs, waiting = pair_free(free)
    assert pairs == [("E", "F"), ("A", "B")]
    assert waiting == "Z"
    assert pair_free([]) == ([], None)
    assert pair_free([Free("A", 1)]) == ([], "A")


def test_free_teams_read_ranks_and_last_opponents_from_the_standings() -> None:
    table = standings(["A", "B", "C", "D"], [Game("A", "B", "B"), Game("C", "D", "C")])
    free = free_teams(table, ["A", "D", "C"])
    # B and C have 2 points in one game each, B seeded first.
    assert free == [Free("A", 3, "B"), Free("D", 4, "C"), Free("C", 2, "D")]
    pairs, waiting = pair_free(free)
    # A's nearest are C (rank 2) and D (rank 4): the higher-ranked; D waits.
    assert (pairs, waiting) == ([("A", "C")], "D")
    assert free_teams(table, ["A"], {"A": None}) == [Free("A", 3, None)]


@settings(max_examples=80, deadline=None)
@given(
    st.integers(2, 12),
    st.lists(st.tuples(st.integers(0, 11), st.integers(0, 11), st.integers(0, 2)), max_size=40),
    st.integers(0, 1000),
)
def test_arena_invariants(n: int, raw: list[tuple[int, int, int]], salt: int) -> None:
    teams: list[TeamId] = [f"P{i}" for i in range(n)]
    games = [
        Game(teams[a % n], teams[b % n], [teams[a % n], teams[b % n], None][o])
        for a, b, o in raw
        if a % n != b % n
    ]
    table = standings(teams, games)
    # Points are each game's score with the streak replayed, and wins/draws/losses add up.
    total = sum(s.points for s in table)
    assert sum(s.played for s in table) == 2 * len(games)
    assert all(s.wins + s.draws + s.losses == s.played for s in table)
    assert total >= 2 * sum(1 for g in games if g.winner) + 2 * sum(
        1 for g in games if not g.winner
    )
    assert [s.rank for s in table] == list(range(1, n + 1))
    for s in table:
        streak, points = 0, 0
        for g in games:
            if s.team in (g.a, g.b):
                outcome = "draw" if g.winner is None else "win" if g.winner == s.team else "loss"
                got, streak = score(streak, outcome)
                points += got
        assert (s.points, s.streak) == (points, streak)
    keys = [(-s.points, s.played, s.seed) for s in table]
    assert keys == sorted(keys)
    # Pairing the free teams: everyone once, at most one left, nobody against himself.
    rng = random.Random(salt)
    waiting = rng.sample(teams, rng.randint(0, n))
    free = free_teams(table, waiting)
    pairs, left = pair_free(free)
    seen = [t for p in pairs for t in p] + ([left] if left is not None else [])
    assert sorted(seen, key=str) == sorted(waiting, key=str)
    assert len(waiting) % 2 == (left is not None)
    rank = {f.team: f.rank for f in free}
    last = {f.team: f.last for f in free}
    taken: set[TeamId] = set()
    for a, b in pairs:
        # a waited longest of those left; b is the nearest in rank to a among the others left,
        # an immediate rematch only when nobody else was left.
        left_now = [t for t in waiting if t not in taken and t != a]
        assert a == next(t for t in waiting if t not in taken)
        fresh = [t for t in left_now if last[a] != t and last[t] != a]
        pool = fresh or left_now
        assert b in pool
        assert abs(rank[a] - rank[b]) == min(abs(rank[a] - rank[t]) for t in pool)
        taken |= {a, b}
