"""Cross-check ``seep.protocol.legal`` against the independent brute force
(tests/seepkit/bruteforce.py).

Random games are played through ``seep.protocol`` with uniformly random legal moves (seeded
``random.Random``, so every run is reproducible). At every position reached, including bid
phases and finished deals, the engine's legal moves must be exactly the oracle's, with no move
listed twice (docs/format.md: "A list of legal moves never holds the same move twice"), and
``apply`` must leave its input unchanged.

Runs: uniform random play under the main rule sets (>= 1000 positions each) and other option
combinations (>= 200 each); throw-biased play, which grows floors of 10-15 loose cards; many
bid phases and opening plays (R13-R16); one hand-made position for the owner's duty under
``add_retention: team`` (an open point of docs/rules.md §3, see bruteforce.py).

On a mismatch the test prints the position as JSON and the symmetric difference, so the case can
be replayed in isolation with ``brute_legal(json.loads(...))``.
"""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from seepkit.bruteforce import MoveKey, brute_legal, move_key
from seepkit.builders import N, S, make_position

protocol = pytest.importorskip("seep.protocol")

#: (rules, positions to check). The three main rule sets get >= 1000 positions each; the other
#: option combinations >= 200 each. The whole module stays well under a minute.
RULE_SETS: list[tuple[str | dict[str, Any], int]] = [
    ("standard", 1000),
    ({"capture_rule": "any"}, 1000),
    ({"absorb_loose_groups": "mandatory"}, 1000),
    ({"house_in_sums": True}, 200),
    ({"throw_rule": "always"}, 200),
    ({"throw_rule": "no_other_move"}, 200),
    ({"allow_pair_build": True}, 200),
    ({"partner_cement_free": False}, 200),
    ("two_houses", 200),
    ({"max_houses": 2, "absorb_loose_groups": "never"}, 200),
    ({"absorb_loose_groups": "never"}, 200),
    ({"deal_before_bid": True}, 200),
    (
        {
            "capture_rule": "any",
            "house_in_sums": True,
            "allow_pair_build": True,
            "throw_rule": "always",
            "absorb_loose_groups": "mandatory",
        },
        200,
    ),
    ("family", 200),
    ({"add_retention": "team"}, 200),
    ({"add_retention": "team", "partner_cement_free": False}, 200),
    # Two players (docs/rules.md §12): >= 1000 positions per option set.
    ("two_player", 1000),
    ({"players": 2, "second_deal": False}, 1000),
    ({"players": 2, "deal_before_bid": True}, 1000),
    ({"players": 2, "second_deal": False, "deal_before_bid": True}, 1000),
    ({"players": 2, "majority_tie": "split", "majority_bonus": 4}, 1000),
    ({"players": 2, "min_score_effect": "zero_card_points"}, 1000),
    ({"players": 2, "capture_rule": "any", "absorb_loose_groups": "mandatory"}, 1000),
    # A13/A14 are void with two players (R2P9): the oracle must ignore them too.
    ({"players": 2, "add_retention": "team", "partner_cement_free": False}, 1000),
    ({"majority_tie": "split", "min_score_effect": "zero_card_points"}, 200),
]


def _players(rules: str | dict[str, Any]) -> int:
    if isinstance(rules, str):
        return 2 if rules == "two_player" else 4
    return int(rules.get("players", 4))


FLOOR_CAP = 14  # see run_random_games
MAX_REPORTED = 5  # mismatches shown per rule set before giving up


def _describe(position: dict[str, Any], engine: set[MoveKey], oracle: set[MoveKey]) -> str:
    """A replayable report of one disagreement."""
    return (
        f"position: {json.dumps(position, sort_keys=True)}\n"
        f"  engine only: {sorted(map(_show, engine - oracle))}\n"
        f"  oracle only: {sorted(map(_show, oracle - engine))}"
    )


def _show(key: MoveKey) -> str:
    action, card, value, house, loose, houses = key
    parts = [action] + [f"{n}={x}" for n, x in (("card", card), ("value", value), ("house", house))]
    parts += [f"loose={sorted(loose)}", f"houses={sorted(houses)}"]
    return " ".join(p for p in parts if not p.endswith("=None"))


def _check_position(
    position: dict[str, Any],
) -> tuple[list[dict[str, Any]], set[MoveKey], str | None]:
    """The engine's legal moves, the oracle's keys, and a mismatch description (or ``None``)."""
    moves = protocol.legal(position, limit=1_000_000)
    keys = [move_key(m) for m in moves]
    engine, oracle = set(keys), brute_legal(position)
    if len(keys) != len(engine):
        dupes = sorted({_show(k) for k in keys if keys.count(k) > 1})
        return moves, oracle, f"duplicate moves {dupes} in\n{_describe(position, engine, oracle)}"
    if engine != oracle:
        return moves, oracle, _describe(position, engine, oracle)
    return moves, oracle, None


def _report(rules: str | dict[str, Any], problems: list[str]) -> None:
    """Fail the test with every collected mismatch (also printed for ``pytest -s``)."""
    if problems:
        report = "\n\n".join(problems)
        print(report)
        pytest.fail(f"{len(problems)} mismatch(es) under rules={rules!r}:\n{report}")


def run_random_games(
    rules: str | dict[str, Any], positions: int, seed: int, throw_bias: float = 0.0
) -> list[str]:
    """Play random deals under ``rules`` until ``positions`` positions were checked.

    Moves are uniform among the legal ones; with ``throw_bias`` > 0 a throw (when one is
    legal) is preferred with that probability, which grows large floors (many loose cards,
    many groups) where maximal captures and absorptions are hardest. The bias stops at
    ``FLOOR_CAP`` loose cards: beyond ~15 the number of legal moves explodes (a floor of 25
    small cards has over 300,000 distinct absorbing builds), which tests nothing new.
    """
    rng = random.Random(seed)
    problems: list[str] = []
    checked = 0
    while checked < positions and len(problems) < MAX_REPORTED:
        position = protocol.new_deal(rng.randrange(2**31), rng.randrange(_players(rules)), rules)
        while checked < positions and len(problems) < MAX_REPORTED:
            moves, oracle, problem = _check_position(position)
            checked += 1
            if problem:
                problems.append(problem)
            if position["phase"] == "over" or not moves:
                break
            # Prefer the engine's move list (it is what a client sees); when the two sides
            # disagree, still only follow moves both accept so play can continue.
            agreed = [m for m in moves if move_key(m) in oracle] or moves
            throws = [m for m in agreed if m["action"] == "throw"]
            if throws and len(position["loose"]) < FLOOR_CAP and rng.random() < throw_bias:
                agreed = throws
            move = rng.choice(agreed)
            before = copy.deepcopy(position)
            following = protocol.apply(position, move)
            if position != before:
                problems.append(f"apply mutated its input; move {move}, position {before}")
            position = following
    return problems


@pytest.mark.parametrize(
    ("rules", "positions"),
    RULE_SETS,
    ids=[json.dumps(r, sort_keys=True) if isinstance(r, dict) else r for r, _ in RULE_SETS],
)
def test_legal_matches_bruteforce(rules: str | dict[str, Any], positions: int) -> None:
    problems = run_random_games(rules, positions, seed=20240601)
    _report(rules, problems)


#: Throw-biased games: larger floors (10-15 loose cards) for maximal captures and absorption.
LARGE_FLOOR_SETS: list[str | dict[str, Any]] = [
    "standard",
    "two_player",
    {"capture_rule": "any"},
    {"absorb_loose_groups": "mandatory"},
    {"throw_rule": "always"},
    {"throw_rule": "always", "capture_rule": "any"},
    {"throw_rule": "always", "absorb_loose_groups": "mandatory"},
    {"throw_rule": "always", "house_in_sums": True, "allow_pair_build": True},
]


@pytest.mark.parametrize(
    "rules",
    LARGE_FLOOR_SETS,
    ids=[json.dumps(r, sort_keys=True) if isinstance(r, dict) else r for r in LARGE_FLOOR_SETS],
)
def test_legal_matches_bruteforce_large_floors(rules: str | dict[str, Any]) -> None:
    problems = run_random_games(rules, 400, seed=77, throw_bias=0.9)
    _report(rules, problems)


OPENING_SETS: list[str | dict[str, Any]] = [
    "standard",
    {"throw_rule": "always"},
    {"throw_rule": "no_other_move"},
    {"absorb_loose_groups": "mandatory"},
    {"absorb_loose_groups": "never"},
    {"capture_rule": "any"},
    {"allow_pair_build": True},
    {"deal_before_bid": True},
    {"deal_before_bid": True, "throw_rule": "no_other_move"},
    "two_player",
    {"players": 2, "deal_before_bid": True, "throw_rule": "no_other_move"},
]


@pytest.mark.parametrize(
    "rules",
    OPENING_SETS,
    ids=[json.dumps(r, sort_keys=True) if isinstance(r, dict) else r for r in OPENING_SETS],
)
def test_bid_and_opening_play(rules: str | dict[str, Any]) -> None:
    """Many fresh deals: the bid phase (R13, R14) and play 1 bound to the bid (R16)."""
    rng = random.Random(4242)
    problems: list[str] = []
    for _ in range(250):
        position = protocol.new_deal(rng.randrange(2**31), rng.randrange(_players(rules)), rules)
        while position["phase"] == "bid" or position["plays"] == 0:
            moves, _, problem = _check_position(position)
            if problem:
                problems.append(problem)
                break
            position = protocol.apply(position, rng.choice(moves))
        if len(problems) >= MAX_REPORTED:
            break
    _report(rules, problems)


def test_add_retention_team_keeps_owners_duty() -> None:
    """S built H10[6D 4C] himself and holds TC QC; N (partner) holds TH; loose 2S.

    TC + 2S = H12 would leave S owning H10 without a 10 (R21d). ``add_retention: team`` only
    lets the partner's card count "for adding to an opponent's house" (§3, A14), so the build
    stays illegal; the oracle's reading of the option is documented in bruteforce.py.
    """
    position = make_position(
        ["TC", "QC"],
        mover=S,
        houses=["H10[6D 4C]{S}"],
        loose=["2S"],
        others={N: ["TH", "5C"]},
        rules={"add_retention": "team"},
    )
    _, oracle, problem = _check_position(position)
    assert problem is None, problem
    assert ("build", "TC", 12, None, frozenset({"2S"}), frozenset()) not in oracle


def test_apply_does_not_mutate_input() -> None:
    """``apply`` returns a new position and leaves its argument untouched (brief API)."""
    rng = random.Random(7)
    position = protocol.new_deal(7, 0, "standard")
    for _ in range(60):
        moves = protocol.legal(position, limit=1_000_000)
        if not moves:
            break
        snapshot = copy.deepcopy(position)
        new = protocol.apply(position, rng.choice(moves))
        assert position == snapshot
        position = new
