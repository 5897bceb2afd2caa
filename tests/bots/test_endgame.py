"""The endgame solver (seep.bots.endgame) against plain minimax on small endgames."""

from __future__ import annotations

import random
from typing import Any

import pytest

from seep.bots.endgame import brute_force, hidden_cards, solve, solve_moves
from seep.engine import Position
from seep.options import Rules

RULE_SETS: list[dict[str, Any]] = [
    {},
    {"capture_rule": "any", "throw_rule": "always", "absorb_loose_groups": "never"},
    {"ten_diamonds_points": 2, "majority_bonus": 4, "sweep_last": 50, "allow_pair_build": True},
]


def endgames(rules: dict[str, Any], cards: int, count: int, seed: int) -> list[Position]:
    """Positions of random deals with ``cards`` cards left in the hands (stock dealt)."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        pos = Position.new_deal(rng.randrange(1 << 30), rng.randrange(4), Rules.parse(rules))
        while not pos.is_over() and (pos.phase == "bid" or hidden_cards(pos) > cards):
            pos.push(rng.choice(pos.legal_codes()))
        if not pos.is_over() and pos.phase == "play":
            out.append(pos)
    return out


@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: ",".join(r) or "standard")
@pytest.mark.parametrize("cards", [4, 6, 8])
def test_solver_matches_brute_force(rules: dict[str, Any], cards: int) -> None:
    for pos in endgames(rules, cards, 6, seed=cards * 7 + len(rules)):
        before = pos.to_dict()
        assert solve(pos, nodes=10**6) == brute_force(pos)
        assert pos.to_dict() == before  # the solver works on a copy
        codes = pos.legal_codes()
        values = solve_moves(pos, codes, nodes=10**6)
        assert values is not None
        for code, value in zip(codes, values, strict=True):
            pos.push(code)
            assert value == brute_force(pos)
            pos.pop()


def test_solver_gives_up_past_its_budget() -> None:
    pos = endgames({}, 12, 1, seed=3)[0]
    assert solve(pos, nodes=1) is None
    assert solve_moves(pos, pos.legal_codes(), nodes=1) is None


def test_finished_deal_is_its_score() -> None:
    pos = endgames({}, 4, 1, seed=5)[0]
    while not pos.is_over():
        pos.push(pos.legal_codes()[0])
    s0, s1 = pos.deal_scores()
    assert solve(pos) == s0 - s1
