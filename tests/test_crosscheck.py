"""Cross-check ``seep.protocol.legal`` against the independent brute force (tests/bruteforce.py).

Random games are played through ``seep.protocol`` with uniformly random legal moves (seeded
``random.Random``, so every run is reproducible). At every position reached, including bid
phases and finished deals, the engine's legal moves must be exactly the oracle's, with no move
listed twice (FORMAT.md: "A list of legal moves never holds the same move twice"), and ``apply``
must leave its input unchanged.

On a mismatch the test prints the position as JSON and the symmetric difference, so the case can
be replayed in isolation with ``brute_legal(json.loads(...))``.
"""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from bruteforce import MoveKey, brute_legal, move_key

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
]

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


def _check_position(position: dict[str, Any]) -> tuple[list[dict[str, Any]], str | None]:
    """The engine's legal moves, and a mismatch description (or ``None``)."""
    moves = protocol.legal(position)
    keys = [move_key(m) for m in moves]
    engine, oracle = set(keys), brute_legal(position)
    if len(keys) != len(engine):
        dupes = sorted({_show(k) for k in keys if keys.count(k) > 1})
        return moves, f"duplicate moves {dupes} in\n{_describe(position, engine, oracle)}"
    if engine != oracle:
        return moves, _describe(position, engine, oracle)
    return moves, None


def run_random_games(rules: str | dict[str, Any], positions: int, seed: int) -> list[str]:
    """Play random deals under ``rules`` until ``positions`` positions were checked."""
    rng = random.Random(seed)
    problems: list[str] = []
    checked = 0
    while checked < positions and len(problems) < MAX_REPORTED:
        position = protocol.new_deal(rng.randrange(2**31), rng.randrange(4), rules)
        while checked < positions and len(problems) < MAX_REPORTED:
            moves, problem = _check_position(position)
            checked += 1
            if problem:
                problems.append(problem)
            if position["phase"] == "over" or not moves:
                break
            # Prefer the engine's move list (it is what a client sees); when the two sides
            # disagree, still only follow moves both accept so play can continue.
            oracle = brute_legal(position)
            agreed = [m for m in moves if move_key(m) in oracle] or moves
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
    if problems:
        report = "\n\n".join(problems)
        print(report)
        pytest.fail(f"{len(problems)} mismatch(es) under rules={rules!r}:\n{report}")


def test_apply_does_not_mutate_input() -> None:
    """``apply`` returns a new position and leaves its argument untouched (brief API)."""
    rng = random.Random(7)
    position = protocol.new_deal(7, 0, "standard")
    for _ in range(60):
        moves = protocol.legal(position)
        if not moves:
            break
        snapshot = copy.deepcopy(position)
        new = protocol.apply(position, rng.choice(moves))
        assert position == snapshot
        position = new
