"""Scoring a deal and carrying the match on (R5, R42, R44-R47, R9, R10).

Pure functions of the captured piles, the sweeps and the match counters, so the engine, the
match and every interface score with the same code.

>>> from seep.options import STANDARD
>>> baazi_winner((5, 95), (5, 95), 0, STANDARD)   # R46: team 0 is under 9
(1, 0)
>>> baazi_winner((40, 60), (40, 60), -90, STANDARD)  # R45: |D| reaches 100
(1, 0)
"""

from __future__ import annotations

from .cards import mask_points
from .options import Rules

__all__ = [
    "baazi_winner",
    "card_points",
    "deal_scores",
    "majority_bonus",
    "next_dealer",
    "test_scores",
]

Pair = tuple[int, int]


def card_points(captured: list[int], rules: Rules) -> Pair:
    """Card points of each team's pile (R5, option ``ten_diamonds_points``)."""
    tdp = rules.ten_diamonds_points
    return (mask_points(captured[0], tdp), mask_points(captured[1], tdp))


def majority_bonus(captured: list[int], rules: Rules) -> Pair:
    """Option ``majority_bonus`` (R42, A21): to the team with more captured cards (26-26:
    nobody)."""
    bonus = rules.majority_bonus
    n0, n1 = captured[0].bit_count(), captured[1].bit_count()
    if not bonus or n0 == n1:
        return (0, 0)
    return (bonus, 0) if n0 > n1 else (0, bonus)


def deal_scores(captured: list[int], sweeps: list[int], rules: Rules) -> Pair:
    """Each team's deal score: card points + bonus + sweeps (R42)."""
    pts = card_points(captured, rules)
    bon = majority_bonus(captured, rules)
    return (pts[0] + bon[0] + sweeps[0], pts[1] + bon[1] + sweeps[1])


def test_scores(captured: list[int], sweeps: list[int], rules: Rules) -> Pair:
    """The scores the ``min_score`` test looks at (R46): the deal scores, without the sweeps
    under ``min_score_includes_sweeps: false`` (A19)."""
    if rules.min_score_includes_sweeps:
        return deal_scores(captured, sweeps, rules)
    return deal_scores(captured, [0, 0], rules)


def baazi_winner(scores: Pair, test: Pair, diff: int, rules: Rules) -> tuple[int, int]:
    """The team that wins the baazi with this deal (-1: none yet) and the new running
    difference D (R44-R46, A27).

    A team under ``min_score`` loses the baazi at once (R46); when both are (only possible
    with options), the lower test score loses, and on a tie nobody does and D is updated as
    usual (A27). Otherwise D += the score difference and a lead of ``baazi_lead`` wins (R45).
    A won baazi resets D to 0.
    """
    low0 = test[0] < rules.min_score
    low1 = test[1] < rules.min_score
    loser = -1
    if low0 and low1:
        if test[0] != test[1]:
            loser = 0 if test[0] < test[1] else 1
    elif low0:
        loser = 0
    elif low1:
        loser = 1
    if loser >= 0:
        return 1 - loser, 0
    diff += scores[0] - scores[1]  # R45
    if abs(diff) >= rules.baazi_lead:
        return (0 if diff > 0 else 1), 0
    return -1, diff


def next_dealer(dealer: int, winner: int, diff: int, rules: Rules) -> int:
    """The dealer of the next deal (R9, R10, R47, option ``dealer_rule``); ``winner`` is the
    team that won the baazi with the last deal (-1: none) and ``diff`` the new D."""
    if rules.dealer_rule == "rotate":
        return (dealer + 1) & 3
    dteam = dealer & 1
    if winner >= 0:
        # R10: the would-be dealer by R9 (the winner counts as ahead), then his partner.
        would_be = (dealer + 1) & 3 if winner == dteam else dealer
        return (would_be + 2) & 3
    # R9: the dealer's team ahead -> the deal passes right; behind or level -> same.
    lead = diff if dteam == 0 else -diff
    return (dealer + 1) & 3 if lead > 0 else dealer
