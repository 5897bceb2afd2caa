"""The greedy bot (difficulty ``easy``): the best immediate gain, minus the risk of a sweep.

Each legal move is scored by what it scores now for the mover's team (card points of the
cards it takes, R5, with the ten of diamonds per ``ten_diamonds_points``; the sweep bonus,
R38; at the end of the deal the leftovers, R40), less the sweep bonus the next player, an
opponent, would score times the chance that he holds a card of a value that takes the whole
floor left behind (counted from the cards the seat has not seen).

>>> import random
>>> from seep.engine import Position
>>> from seep.view import View
>>> pos = Position.new_deal(5)
>>> d = GreedyBot().choose(View.from_position(pos, pos.bidder), random.Random(0))
>>> d.move.action
'bid'
"""

from __future__ import annotations

import random
from typing import Any

from ..cards import card_value, cards_of_mask, mask_points, next_seat, value_mask
from ..codes import BID, CAPTURE, PHASE_BID, THROW, code_action, code_card, code_value
from ..errors import SeepError
from ..floor import sweep_values
from ..moves import Move
from ..notation import card_text, move_words
from ..view import View
from .base import Decision
from .tactics import (
    Counting,
    capture_text,
    simulate,
    team_margin,
)

__all__ = ["GreedyBot", "bid_by_count"]

# Ties are broken at random among moves scoring within this of the best.
_EPS = 1e-9


def bid_by_count(hand: int, codes: list[int]) -> int:
    """R13: the bid value held most often, the higher value on a tie (the redeal, R14, when
    it is the only move)."""
    bids = [c for c in codes if code_action(c) == BID]
    if not bids:
        return codes[0]
    counts = [0] * 14
    for c in cards_of_mask(hand):
        counts[card_value(c)] += 1
    return max(bids, key=lambda c: (counts[code_value(c)], code_value(c)))


def bid_reason(hand: int, code: int, codes: list[int]) -> str:
    """A short reason for a bid (R13) or a redeal (R14) chosen among ``codes``."""
    if code_action(code) != BID:
        return "no card above 8: the cards are dealt again"
    v = code_value(code)
    n = (hand & value_mask(v)).bit_count()
    if n > 1:
        return f"bids {v}: I hold {n} cards of that value"
    if len(codes) == 1:
        return f"bids {v}: my only card above 8"
    if v == max(code_value(c) for c in codes):
        return f"bids {v}: my highest card"
    return f"bids {v}: it gives the best opening with my cards"


class GreedyBot:
    """Takes the most points and sweeps now; avoids leaving the next opponent a sweep.

    The sweep risk of a move is the next player's sweep bonus times the chance that his hand,
    a random draw from the unseen cards, holds a card of a value that captures everything
    left on the floor. No settings.
    """

    name = "greedy"

    def __init__(self, **settings: Any) -> None:
        if settings:
            raise SeepError(f"the greedy bot has no settings, got {', '.join(map(repr, settings))}")

    def choose(self, view: View, rng: random.Random) -> Decision:
        # The view's legal moves are its shell's (View.legal_codes), made once here for both.
        # Sorted: the engine's move order may vary with its caches, and ties are drawn by rng.
        shell = view.shell()
        codes = sorted(shell.legal_codes()) if view.is_my_turn() else []
        if not codes:
            raise SeepError(f"seat {view.seat} has no move to make (not his turn?)")
        if view.phase_id == PHASE_BID:
            code = bid_by_count(view.hand, codes)
            return Decision(Move(code), bid_reason(view.hand, code, codes))

        team = view.seat & 1
        base = team_margin(shell, team)
        counting: Counting | None = None  # made when a move first leaves a floor to sweep
        nxt = next_seat(view.seat, view.rules.players)
        rules = view.rules
        # The next player's sweep would be play plays + 2 (R38: sweep_last on play 48).
        bonus = rules.sweep_last if view.plays + 2 == 48 else rules.sweep_value
        scored: list[tuple[float, float, int]] = []
        for code in codes:
            # What simulate() reads, without making an Outcome for every legal move: the web's
            # easy bot weighs about ten moves a turn, and only the chosen one is put in words.
            shell.push(code)
            gain = team_margin(shell, team) - base
            over = shell.is_over()
            loose = shell.loose
            hpresent = shell.hpresent  # bit v per house on the floor after the move
            shell.pop()
            risk = 0.0
            if not over and bonus:
                values = sweep_values(loose, hpresent)
                if values:
                    if counting is None:
                        counting = Counting(view)
                    risk = bonus * counting.p_holds((nxt,), values)
            score = gain - risk
            if code_action(code) != CAPTURE:
                # Tie-break: a card laid on the floor offers its points to the others.
                score -= 0.01 * mask_points(1 << code_card(code), rules.ten_diamonds_points)
            scored.append((score, risk, code))
        top = max(item[0] for item in scored)
        best = [item for item in scored if item[0] >= top - _EPS]
        _, risk, chosen = best[0] if len(best) == 1 else rng.choice(best)
        captures = [item for item in scored if code_action(item[2]) == CAPTURE]
        if code_action(chosen) == CAPTURE:
            text = capture_text(simulate(shell, chosen, team, base))
            if risk >= 1:
                text += ", though the floor left may be swept"
            return Decision(Move(chosen), text)
        if not captures:
            why = "nothing to capture"
        elif any(item[1] >= 1 for item in captures):
            why = "capturing would leave the floor open to a sweep"
        else:
            why = "nothing worth capturing"
        if code_action(chosen) == THROW:
            return Decision(Move(chosen), f"throws {card_text(code_card(chosen))}: {why}")
        return Decision(Move(chosen), f"{move_words(chosen)}: {why}")
