"""Swiss events' pure parts (issue 30 item 2; docs/web.md "Events"): standings and their
tie-breaks, and the pairing of a round (seep.web.tournament.swiss): known cases, the hard ones
among them, and invariants over random events checked against a brute force."""

from __future__ import annotations

import random
from collections.abc import Sequence

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from seep.web.tournament import TeamId
from seep.web.tournament.swiss import Pairing, Result, Standing, pair, pair_round, standings

TEAMS8 = [f"T{i}" for i in range(1, 9)]


def line(
    team: str,
    rank: int,
    points: int = 0,
    opponents: Sequence[str] = (),
    byes: int = 0,
    withdrawn: bool = False,
) -> Standing:
    """A standings line made by hand (the pairing reads rank, points, opponents, byes)."""
    return Standing(team, rank, points, 0, 0, rank - 1, len(opponents), byes, tuple(opponents),
                    withdrawn)  # fmt: skip


def hand(
    lines: Sequence[tuple[str, int, Sequence[str]]], byes: Sequence[str] = ()
) -> list[Standing]:
    """Standings lines in rank order with symmetric opponents checked."""
    out = [line(t, i + 1, p, o, byes=int(t in byes)) for i, (t, p, o) in enumerate(lines)]
    met = {s.team: set(s.opponents) for s in out}
    for t, others in met.items():
        for o in others:
            assert t in met[o], f"{t} met {o} but not the other way"
    return out


# --- standings ---------------------------------------------------------------------------------


def test_standings_go_by_points_then_buchholz_then_difference_then_seed() -> None:
    results = [
        Result("A", "B", "A", 30),
        Result("C", "D", "C", 10),
        Result("E", "F", "E", 10),
        Result("G", "H", None, 0),
        # Round 2: B and D end on 2 points each; B's opponents have more points.
        Result("A", "C", "A", 5),
        Result("B", "E", "B", 20),
        Result("D", "F", "D", 20),
        Result("G", "H", "H", 1),
    ]
    table = standings(["A", "B", "C", "D", "E", "F", "G", "H"], results)
    by = {s.team: s for s in table}
    assert table[0].team == "A" and by["A"].points == 4
    # B: opponents A (4) and E (2) -> 6; D: C (2) and F (0) -> 2.
    assert (by["B"].points, by["B"].buchholz) == (2, 6)
    assert (by["D"].points, by["D"].buchholz) == (2, 2)
    assert by["B"].rank < by["D"].rank
    # H (draw then win): 3 points; G: 1.
    assert (by["H"].points, by["G"].points) == (3, 1)
    assert by["A"].diff == 35 and by["B"].diff == -10 and by["C"].diff == 5
    assert [s.rank for s in table] == list(range(1, 9))


def test_equal_buchholz_goes_by_the_points_difference_then_the_seed() -> None:
    results = [Result("A", "B", "A", 5), Result("C", "D", "C", 9)]
    table = standings(["A", "B", "C", "D"], results)
    assert [s.team for s in table] == ["C", "A", "B", "D"]  # 2 pts: diff 9 > 5
    results = [Result("A", "B", "A", 5), Result("C", "D", "C", 5)]
    assert [s.team for s in standings(["C", "A", "D", "B"], results)] == ["C", "A", "D", "B"]


def test_a_bye_scores_a_win_and_adds_nothing_to_buchholz() -> None:
    table = standings(["A", "B", "C"], [Result("A", "B", "A", 3), Result("C", None)])
    by = {s.team: s for s in table}
    assert (by["C"].points, by["C"].byes, by["C"].played, by["C"].buchholz) == (2, 1, 0, 0)
    assert by["B"].buchholz == 2 and by["A"].buchholz == 0


def test_bad_results_are_refused() -> None:
    for bad in (lambda: Result("A", "A"), lambda: Result("A", "B", "C")):
        try:
            bad()
        except ValueError:
            continue
        raise AssertionError("accepted")
    try:
        standings(["A", "B"], [Result("A", "Z", "A")])
    except ValueError as exc:
        assert "'Z'" in str(exc)
    else:
        raise AssertionError("accepted")


# --- known pairings ----------------------------------------------------------------------------


def test_round_one_is_top_half_against_bottom_half() -> None:
    p = pair_round(TEAMS8, [])
    assert p == Pairing((("T1", "T5"), ("T2", "T6"), ("T3", "T7"), ("T4", "T8")), None, 0)


def test_an_odd_first_round_gives_the_last_seed_the_bye() -> None:
    p = pair_round(TEAMS8[:7], [])
    assert p.bye == "T7"
    assert p.pairs == (("T1", "T4"), ("T2", "T5"), ("T3", "T6"))


def test_round_two_pairs_the_winners_and_the_losers() -> None:
    r1 = [Result(f"T{i}", f"T{i + 4}", f"T{i}", 10) for i in range(1, 5)]
    p = pair_round(TEAMS8, r1)
    assert p.pairs == (("T1", "T3"), ("T2", "T4"), ("T5", "T7"), ("T6", "T8"))
    assert p.rematches == 0


def test_an_upset_reorders_the_groups() -> None:
    r1 = [
        Result("T1", "T5", "T5", -4),
        Result("T2", "T6", "T2", 8),
        Result("T3", "T7", "T3", 8),
        Result("T4", "T8", "T4", 8),
    ]
    p = pair_round(TEAMS8, r1)
    # Winners T2, T3, T4 (diff 8) then T5 (diff 4): T2-T4, T3-T5; losers T1 (diff -4), T6,
    # T7, T8 (diff -8): T1-T7, T6-T8.
    assert p.pairs == (("T2", "T4"), ("T3", "T5"), ("T1", "T7"), ("T6", "T8"))


def test_a_rematch_in_the_group_is_avoided_by_the_nearest_exchange() -> None:
    table = hand([("A", 2, ["C"]), ("B", 2, ["D"]), ("C", 2, ["A"]), ("D", 2, ["B"])])
    # A-C and B-D met: A takes D (the next in the Dutch order), B takes C.
    assert pair(table).pairs == (("A", "D"), ("B", "C"))
    table = hand([("A", 2, ["C"]), ("B", 2, []), ("C", 2, ["A"]), ("D", 2, [])])
    assert pair(table).pairs == (("A", "D"), ("B", "C"))


def test_an_odd_group_floats_its_lowest_team_down_to_the_top_of_the_next() -> None:
    table = hand([("A", 4, []), ("B", 4, []), ("C", 4, []), ("D", 2, []), ("E", 2, []),
                  ("F", 2, [])])  # fmt: skip
    p = pair(table)
    # A-B (top half of three: A against the second); C floats down and meets the top of the
    # next group, D; E-F.
    assert p.pairs == (("A", "B"), ("C", "D"), ("E", "F"))


def test_a_floater_meets_the_highest_of_the_next_group_it_has_not_met() -> None:
    table = hand([("A", 4, []), ("B", 4, []), ("C", 4, ["D"]), ("D", 2, ["C"]), ("E", 2, []),
                  ("F", 2, []), ("G", 2, [])])  # fmt: skip
    p = pair(table)
    # G (lowest, no bye yet) has the bye; C floats, met D, takes E; D-F.
    assert p.bye == "G" and p.pairs == (("A", "B"), ("C", "E"), ("D", "F"))


def test_a_pair_that_met_at_the_top_both_float_down() -> None:
    table = hand([("A", 4, ["B"]), ("B", 4, ["A"]), ("C", 2, []), ("D", 2, [])])
    assert pair(table).pairs == (("A", "C"), ("B", "D"))


def test_the_leader_floats_to_the_bottom_when_nothing_else_avoids_a_rematch() -> None:
    # R1: A beat B, C beat D; R2: A beat C, B beat D. A has met B and C: only D is left.
    results = [
        Result("A", "B", "A", 1),
        Result("C", "D", "C", 1),
        Result("A", "C", "A", 1),
        Result("B", "D", "B", 1),
    ]
    p = pair_round(["A", "B", "C", "D"], results)
    assert p.pairs == (("A", "D"), ("B", "C")) and p.rematches == 0


def test_the_bottom_cannot_be_paired_so_the_top_group_gives_up_a_pair() -> None:
    # The two bottom teams met: A-B would leave them together, so A and B both float down
    # and the four are paired top half against bottom half.
    table = hand([("A", 4, []), ("B", 4, []), ("C", 0, ["D"]), ("D", 0, ["C"])])
    p = pair(table)
    assert p.rematches == 0
    assert p.pairs == (("A", "C"), ("B", "D"))


def test_a_bye_already_given_goes_to_the_next_lowest() -> None:
    results = [Result("A", "C", "A", 5), Result("B", "D", "B", 5), Result("E", None)]
    p = pair_round(["A", "B", "C", "D", "E"], results)
    # D is last and has had no bye; the 2-point group A, B, E floats E down to C.
    assert p.bye == "D"
    assert p.pairs == (("A", "B"), ("E", "C"))


def test_the_lowest_team_gets_no_bye_when_it_would_force_a_rematch() -> None:
    # A has met B, C and D: a bye to E would leave A a rematch; D takes the bye instead.
    table = hand([("A", 0, ["B", "C", "D"]), ("B", 0, ["A"]), ("C", 0, ["A"]),
                  ("D", 0, ["A"]), ("E", 0, [])])  # fmt: skip
    p = pair(table)
    assert p.bye == "D" and p.rematches == 0
    assert p.pairs == (("A", "E"), ("B", "C"))


def test_every_team_had_a_bye_the_lowest_of_the_fewest_gets_another() -> None:
    table = hand([("A", 4, []), ("B", 2, []), ("C", 2, [])], byes=["A", "B", "C"])
    assert pair(table).bye == "C"
    table = hand([("A", 4, []), ("B", 2, []), ("C", 2, [])], byes=["B", "C"])
    assert pair(table).bye == "A"


def test_a_second_bye_rather_than_a_rematch() -> None:
    # C, the lowest, would leave A-B to meet again: B (a bye already, like everyone) takes it.
    table = hand([("A", 4, ["B"]), ("B", 2, ["A"]), ("C", 2, [])], byes=["A", "B", "C"])
    p = pair(table)
    assert p.bye == "B" and p.pairs == (("A", "C"),) and p.rematches == 0
    table = hand([("A", 4, ["B"]), ("B", 2, ["A"]), ("C", 2, [])], byes=["C"])
    assert pair(table).bye == "B"


def test_a_late_withdrawal_is_never_paired_but_stays_in_the_standings() -> None:
    teams = ["A", "B", "C", "D", "E", "F"]
    r1 = [Result("A", "D", "A", 9), Result("B", "E", "B", 9), Result("C", "F", "C", 9)]
    r2 = [Result("A", "B", "A", 3), Result("C", "D", "D", -3), Result("E", "F", "E", 2)]
    table = standings(teams, r1 + r2, withdrawn=["B"])
    by = {s.team: s for s in table}
    assert by["B"].withdrawn and by["B"].points == 2
    assert by["A"].buchholz == 2 + 2  # D and B: a withdrawn opponent still counts
    p = pair(table)
    assert "B" not in {t for pr in p.pairs for t in pr} and p.bye != "B"
    assert p.bye is not None and p.rematches == 0
    assert sorted([*(t for pr in p.pairs for t in pr), p.bye]) == sorted(set(teams) - {"B"})
    # And the next round after the withdrawn team is gone for good.
    r3 = [Result(a, b, a, 1) for a, b in p.pairs] + [Result(p.bye, None)]
    p4 = pair_round(teams, r1 + r2 + r3, withdrawn=["B"])
    assert "B" not in {t for pr in p4.pairs for t in pr}


def test_two_teams_meet_again_when_nothing_else_is_left() -> None:
    p = pair_round(["A", "B"], [Result("A", "B", "A", 1)])
    assert p.pairs == (("A", "B"),) and p.rematches == 1


def test_a_single_team_has_the_bye_and_nobody_pairs_nobody() -> None:
    assert pair_round(["A"], []) == Pairing((), "A", 0)
    assert pair_round([], []) == Pairing((), None, 0)
    assert pair_round(["A", "B"], [], withdrawn=["A", "B"]) == Pairing((), None, 0)


def test_round_robin_of_eight_in_seven_rounds_without_a_rematch() -> None:
    """The last rounds of a Swiss as long as a round robin: only a perfect schedule avoids a
    rematch, and the search finds it every round (results at random)."""
    rng = random.Random(5)
    results: list[Result] = []
    for _ in range(7):
        p = pair_round(TEAMS8, results)
        assert p.rematches == 0, p
        for a, b in p.pairs:
            results.append(Result(a, b, rng.choice([a, b, None]), rng.randint(-50, 50)))
    met = {frozenset((r.a, r.b)) for r in results if r.b is not None}
    assert len(met) == 28


def test_teams_of_two_pair_as_teams_of_one() -> None:
    """A four-seat event's partnerships are ids like a two-seat event's players."""
    partners: list[TeamId] = [101, 102, 103, 104, 105, 106]
    assert pair_round(partners, []).pairs == ((101, 104), (102, 105), (103, 106))


def test_a_field_of_sixty_four_pairs_quickly_enough_for_a_test() -> None:
    teams: list[TeamId] = list(range(64))
    rng = random.Random(1)
    results: list[Result] = []
    for _ in range(7):
        p = pair_round(teams, results)
        assert p.rematches == 0 and len(p.pairs) == 32
        results += [Result(a, b, rng.choice([a, b, None]), rng.randint(-9, 9)) for a, b in p.pairs]


# --- invariants against a brute force ----------------------------------------------------------


def _cost(pairs: Sequence[tuple[TeamId, TeamId]], table: Sequence[Standing]) -> tuple[int, ...]:
    """Pairs by how often they met, most first: (third meetings, second, first)."""
    met = {s.team: s.opponents for s in table}
    times = [met[a].count(b) for a, b in pairs]
    top = max(times, default=0)
    return tuple(times.count(k) for k in range(top, 0, -1)) if top else ()


def _matchings(teams: list[TeamId]) -> list[list[tuple[TeamId, TeamId]]]:
    if not teams:
        return [[]]
    first, rest = teams[0], teams[1:]
    out = []
    for i, other in enumerate(rest):
        for m in _matchings(rest[:i] + rest[i + 1 :]):
            out.append([(first, other), *m])
    return out


def _best(table: Sequence[Standing]) -> tuple[tuple[int, ...], bool]:
    """The least cost of any pairing (byes any way), and whether one of that cost gives the
    bye to a team without one."""
    active = [s.team for s in table if not s.withdrawn]
    byes = {s.team: s.byes for s in table}
    options: list[tuple[tuple[int, ...], bool]] = []
    choices: list[TeamId | None] = list(active) if len(active) % 2 else [None]
    for bye in choices:
        rest = [t for t in active if t != bye]
        fresh = bye is None or byes[bye] == 0
        for m in _matchings(rest):
            options.append((_cost(m, table), fresh))
    least = min((c for c, _ in options), key=lambda c: (len(c), c))
    return least, any(f for c, f in options if c == least)


@st.composite
def events(draw: st.DrawFn) -> tuple[list[TeamId], list[list[int]], list[set[int]], int]:
    n = draw(st.integers(2, 9))
    rounds = draw(st.integers(1, 8))
    outcomes = [draw(st.lists(st.integers(0, 2), min_size=5, max_size=5)) for _ in range(rounds)]
    withdrawals = [set(draw(st.lists(st.integers(0, n - 1), max_size=1))) for _ in range(rounds)]
    return [f"P{i}" for i in range(n)], outcomes, withdrawals, draw(st.integers(0, 99))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(events())
def test_random_events_keep_the_pairing_rules(
    event: tuple[list[TeamId], list[list[int]], list[set[int]], int],
) -> None:
    teams, outcomes, withdrawals, salt = event
    results: list[Result] = []
    gone: set[TeamId] = set()
    for rnd, (outs, quits) in enumerate(zip(outcomes, withdrawals, strict=True)):
        gone |= {teams[i] for i in quits}
        table = standings(teams, results, gone)
        p = pair(table)
        active = [t for t in teams if t not in gone]
        seated = [t for pr in p.pairs for t in pr] + ([p.bye] if p.bye is not None else [])
        # Everyone still in plays exactly once; nobody withdrawn plays; a bye only when odd.
        assert sorted(seated, key=str) == sorted(active, key=str)
        assert (p.bye is not None) == (len(active) % 2 == 1)
        # Never a rematch (of any depth) that another pairing avoids; nor a second bye.
        least, fresh_bye = _best(table)
        assert _cost(p.pairs, table) == least, (rnd, p, least)
        assert p.rematches == sum(least)
        if p.bye is not None and fresh_bye:
            assert next(s for s in table if s.team == p.bye).byes == 0
        # The higher-ranked team first, the boards in rank order.
        rank = {s.team: s.rank for s in table}
        assert all(rank[a] < rank[b] for a, b in p.pairs)
        assert [rank[a] for a, _ in p.pairs] == sorted(rank[a] for a, _ in p.pairs)
        # The same pairing whatever order the results are given in.
        shuffled = list(results)
        random.Random(salt + rnd).shuffle(shuffled)
        assert pair_round(teams, shuffled, gone) == p
        for i, (a, b) in enumerate(p.pairs):
            o = outs[i % len(outs)]
            results.append(Result(a, b, [a, b, None][o], [3, -3, 0][o]))
        if p.bye is not None:
            results.append(Result(p.bye, None))


def test_round_robin_brute_force_agrees_on_small_fields() -> None:
    """Forty random 6-team events of five rounds (rematches near everywhere by the end): each
    round's pairing has the least cost of any."""
    rng = random.Random(11)
    teams: list[TeamId] = ["A", "B", "C", "D", "E", "F"]
    for _ in range(40):
        results: list[Result] = []
        for _ in range(5):
            table = standings(teams, results)
            p = pair(table)
            assert _cost(p.pairs, table) == _best(table)[0]
            results += [Result(a, b, rng.choice([a, b, None])) for a, b in p.pairs]
