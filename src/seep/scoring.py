"""Scoring a deal (R5, R42): pure functions of the captured piles and the
sweeps, so the engine, the match and every interface score with the same code. What a scored
deal does to the match (R44-R47) is :func:`seep.baazi.settle_deal`.

>>> from seep.cards import parse_cards
>>> from seep.options import STANDARD
>>> deal_scores([parse_cards("AS 2S TD"), parse_cards("KS")], [50, 0], STANDARD)
(59, 13)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .cards import mask_points
from .errors import IllegalMoveError
from .options import Rules

if TYPE_CHECKING:
    from .engine import Position

__all__ = ["card_points", "deal_result", "deal_scores", "majority_bonus"]

Pair = tuple[int, int]


def card_points(captured: list[int], rules: Rules) -> Pair:
    """Card points of each team's pile (R5, option ``ten_diamonds_points``)."""
    tdp = rules.ten_diamonds_points
    return (mask_points(captured[0], tdp), mask_points(captured[1], tdp))


def majority_bonus(captured: list[int], rules: Rules) -> Pair:
    """Option ``majority_bonus`` (R42, A21): to the team with more captured cards (26-26:
    nobody, or half each under ``majority_tie: "split"``, §12.3)."""
    bonus = rules.majority_bonus
    n0, n1 = captured[0].bit_count(), captured[1].bit_count()
    if not bonus:
        return (0, 0)
    if n0 == n1:
        if rules.majority_tie == "split":
            return (bonus // 2, bonus // 2)
        return (0, 0)
    return (bonus, 0) if n0 > n1 else (0, bonus)


def deal_scores(captured: list[int], sweeps: list[int], rules: Rules) -> Pair:
    """Each team's deal score: card points + bonus + sweeps (R42)."""
    pts = card_points(captured, rules)
    bon = majority_bonus(captured, rules)
    return (pts[0] + bon[0] + sweeps[0], pts[1] + bon[1] + sweeps[1])


def deal_result(pos: Position) -> dict[str, list[int]]:
    """The docs/format.md ``result`` of a finished deal: per team ``points`` (R5), ``bonus``
    (option ``majority_bonus``), ``sweeps`` (R38) and ``score`` (R42)."""
    if not pos.is_over():
        raise IllegalMoveError(f"the deal is not over ({pos.plays} of 48 plays made): no score yet")
    return {
        "points": list(pos.card_points()),
        "bonus": list(pos.majority_bonus()),
        "sweeps": list(pos.sweeps),
        "score": list(pos.deal_scores()),
    }
