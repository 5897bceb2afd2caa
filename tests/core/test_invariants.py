"""Property tests: docs/rules.md §11 invariants 1-8 along random complete deals played through the
public protocol, under several option sets (docs/rules.md §3), plus apply/legal agreement."""

from __future__ import annotations

import copy
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from seep.protocol import apply, legal, new_deal
from seepkit.builders import (
    full_rules,
)
from seepkit.invariants import check_deal

RULESETS: list[str | dict[str, Any]] = [
    "standard",
    "family",
    "two_houses",
    {"capture_rule": "any"},
    {"throw_rule": "always", "absorb_loose_groups": "mandatory"},
    {"throw_rule": "no_other_move", "absorb_loose_groups": "never"},
    {"allow_pair_build": True, "house_in_sums": True},
    {"partner_cement_free": False, "max_houses": 2},
    {"deal_before_bid": True, "dealer_rule": "rotate"},
    {"add_retention": "team"},
    {"sweep_value": 30, "sweep_first": 10, "sweep_last": 5},
    {"majority_tie": "split", "majority_bonus": 4, "min_score_effect": "zero_card_points"},
    # Two players (docs/rules.md §12.7), with each new option.
    "two_player",
    {"players": 2, "second_deal": False},
    {"players": 2, "deal_before_bid": True},
    {"players": 2, "second_deal": False, "deal_before_bid": True, "dealer_rule": "rotate"},
    {"players": 2, "majority_tie": "split", "majority_bonus": 4},
    {"players": 2, "min_score_effect": "zero_card_points"},
    {"players": 2, "capture_rule": "any", "throw_rule": "always"},
    {"players": 2, "add_retention": "team", "partner_cement_free": False},
]

PROPERTY = settings(
    max_examples=40,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
deals = st.tuples(
    st.integers(0, 2**32 - 1),
    st.integers(0, 3),
    st.sampled_from(RULESETS),
    st.integers(0, 2**32 - 1),
)


@PROPERTY
@given(deals)
def test_invariants_along_random_deals(deal: tuple[int, int, Any, int]) -> None:
    """docs/rules.md §11 invariants 1-8 after every move of a random deal; apply rejects moves that
    are not in legal() with IllegalMoveError."""
    check_deal(*deal)


@settings(max_examples=15, deadline=None, database=None)
@given(deals)
def test_every_legal_move_applies(deal: tuple[int, int, Any, int]) -> None:
    """apply accepts every move legal() returns, and each result keeps invariants 1-4."""
    check_deal(*deal, every_move=True)


@settings(max_examples=10, deadline=None, database=None)
@given(deals)
def test_apply_and_legal_do_not_mutate(deal: tuple[int, int, Any, int]) -> None:
    """apply returns a new position and leaves its input unchanged; legal changes nothing."""
    seed, dealer, rules, rng_seed = deal
    rng = random.Random(rng_seed)
    pos = new_deal(seed, dealer % full_rules(rules)["players"], rules)
    while pos["phase"] != "over":
        before = copy.deepcopy(pos)
        moves = legal(pos)
        assert pos == before
        move = rng.choice(moves)
        move_before = copy.deepcopy(move)
        after = apply(pos, move)
        assert pos == before
        assert move == move_before
        assert after is not pos
        pos = after
