"""Baazi accounting: what a finished deal does to the match (R44-R47, R9, R10), as one pure
function of the numbers (:func:`settle_deal`), with no position and no next deal, and
:func:`settle`, the one place a finished position is settled by it.

:meth:`seep.engine.Position.next_deal` settles a deal to deal the next one; :mod:`seep.session`
settles it to tell the deal's outcome (did the baazi end, who won it, who deals next) while the
finished deal is still on show.

>>> from seep.options import Rules
>>> r = Rules.parse("standard")
>>> settle_deal(r, dealer=1, diff=66, baazis=(0, 0), points=(91, 9), sweeps=(0, 0))
Settlement(diff=0, baazis=(1, 0), winner=0, dealer=3, under_min=(False, False))
>>> settle_deal(r, dealer=0, diff=0, baazis=(0, 0), points=(48, 52), sweeps=(50, 0)).dealer
1
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from .options import Rules

if TYPE_CHECKING:
    from .engine import Position

__all__ = ["Settlement", "settle", "settle_deal"]


class Settlement(NamedTuple):
    """The match after a deal: ``diff`` (R44, team 0 minus team 1, 0 when the baazi ended),
    ``baazis`` won per team, ``winner`` of the baazi this deal ended (``None``: it goes on),
    the next ``dealer`` (R47) and which teams scored under ``min_score`` (R46)."""

    diff: int
    baazis: tuple[int, int]
    winner: int | None
    dealer: int
    under_min: tuple[bool, bool]


def settle_deal(
    rules: Rules,
    dealer: int,
    diff: int,
    baazis: tuple[int, int],
    points: tuple[int, int],
    sweeps: tuple[int, int],
) -> Settlement:
    """Score a finished deal into the match (R44-R47, R9, R10; A27; two players R2P12-R2P15).

    ``dealer`` dealt the deal, ``diff`` and ``baazis`` are the match before it, ``points`` each
    team's card points with the majority bonus (R5, option ``majority_bonus``) and ``sweeps``
    each team's sweep bonuses (R38); a team's deal score is their sum (R42).
    """
    scores = (points[0] + sweeps[0], points[1] + sweeps[1])
    test = scores if rules.min_score_includes_sweeps else points  # R46, A19
    low = (test[0] < rules.min_score, test[1] < rules.min_score)
    winner: int | None = None
    if rules.min_score_effect == "zero_card_points" and (low[0] or low[1]):
        # R46 with min_score_effect "zero_card_points" (§12.3, R2P13): a side under min_score
        # loses its card points (with the majority bonus); its sweeps count and the baazi
        # goes on (R45).
        scores = (
            sweeps[0] if low[0] else scores[0],
            sweeps[1] if low[1] else scores[1],
        )
        diff += scores[0] - scores[1]
        if abs(diff) >= rules.baazi_lead:
            winner = 0 if diff > 0 else 1
    elif low[0] != low[1]:
        winner = 1 if low[0] else 0  # R46: the team under min_score loses the baazi at once
    elif low[0] and test[0] != test[1]:
        # A27 (both under, only possible with options): the lower test score loses.
        winner = 1 if test[0] < test[1] else 0
    else:
        # R45; also A27's tie (both under, equal test scores): nobody loses, D is updated.
        diff += scores[0] - scores[1]
        if abs(diff) >= rules.baazi_lead:
            winner = 0 if diff > 0 else 1
    won = baazis
    n = rules.players
    dteam = dealer & 1  # the dealer's team (R2; two players: the dealer himself, R2P1)
    if winner is not None:
        won = (baazis[0] + 1, baazis[1]) if winner == 0 else (baazis[0], baazis[1] + 1)
        diff = 0
    if rules.dealer_rule == "rotate":
        new_dealer = (dealer + 1) % n
    elif winner is not None:
        # R10: the would-be dealer by R9 (the winner counts as ahead), then his partner; with
        # two players there is no partner and the would-be dealer, the loser, deals (R2P15).
        would_be = (dealer + 1) % n if winner == dteam else dealer
        new_dealer = (would_be + 2) & 3 if n == 4 else would_be
    else:
        # R9: the dealer's team ahead -> the deal passes right; behind or level -> same.
        # Two players (R2P14): the player behind deals; level -> the same dealer.
        lead = diff if dteam == 0 else -diff
        new_dealer = (dealer + 1) % n if lead > 0 else dealer
    return Settlement(diff, won, winner, new_dealer, low)


def settle(pos: Position) -> Settlement:
    """The match after the finished deal ``pos`` (R42, R44-R47, R9, R10, A27): :func:`settle_deal`
    of its dealer, the match before it, each team's card points with the majority bonus (R5,
    option ``majority_bonus``) and sweeps (R38). The position is not checked to be over."""
    pts, bon = pos.card_points(), pos.majority_bonus()
    return settle_deal(
        pos.rules,
        pos.dealer,
        pos.match_diff,
        pos.match_baazis,
        (pts[0] + bon[0], pts[1] + bon[1]),
        (pos.sweeps[0], pos.sweeps[1]),
    )
