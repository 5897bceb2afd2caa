"""The post-deal review of a practice table (issue 22 item 5): after a deal, each of the
player's card plays scored by the medium bot against the other moves he had, and the plays
that cost the most, with the better move and by how much.

The scores are the heuristic bot's own (:meth:`seep.bots.heuristic.HeuristicBot.score_moves`:
roughly the points a move is worth to the team, the next player's expected reply taken off).
Each play is judged from the seat's :class:`~seep.view.View` at that turn, made from the
deal's record by :meth:`View.from_position`: the bot sees that seat's hand and the public
moves, never another hand, the stock or what came later. No web framework here; the manager
runs :func:`review_deal` in a worker thread once the deal is over, never while it runs.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from ..bots.heuristic import HeuristicBot
from ..codes import PHASE_PLAY
from ..engine import Position
from ..moves import Move
from ..view import View

__all__ = ["COSTLY", "MAX_CHOICES", "REVIEW_SECONDS", "review_deal"]

REVIEW_SECONDS = 2.0  # the review's time budget: plays left unscored after it are skipped
MAX_CHOICES = 2000  # a turn with more moves than this is skipped (huge floors, issue 12)
COSTLY = 3  # how many of the dearest plays the review names
_NOTICED = 0.05  # a loss under this is a tie in the bot's eyes, not a mistake


def review_deal(
    start: Position,
    history: Sequence[tuple[int, int]],
    seat: int,
    *,
    seconds: float = REVIEW_SECONDS,
) -> dict[str, Any]:
    """The review of ``seat``'s plays in the deal that began at ``start`` (its bid-phase
    position) and went ``history`` ((seat, move code) pairs).

    Returns ``plays``: each scored card play in order, with ``index`` (its place in the deal's
    moves), ``move`` and ``best`` (docs/format.md moves), ``score`` and ``best_score`` (the
    bot's points), ``loss`` (their difference, 0 when the play was the bot's choice too) and
    ``choices`` (how many moves there were); ``costly``: the indexes, dearest first, of at most
    :data:`COSTLY` plays that lost something; ``complete``: ``False`` when the time budget or a
    huge floor left a play out. Bids and forced plays are not scored.
    """
    bot = HeuristicBot()
    pos = start.copy()
    deadline = time.monotonic() + seconds
    plays: list[dict[str, Any]] = []
    complete = True
    for i, (mover, code) in enumerate(history):
        if mover == seat and pos.phase_id == PHASE_PLAY:
            if time.monotonic() > deadline:
                complete = False
            else:
                # The seat's knowledge at that turn: its own hand and the moves before it.
                view = View.from_position(pos, seat, history[:i])
                codes = sorted(view.legal_codes())
                if len(codes) > MAX_CHOICES:
                    complete = False
                elif len(codes) > 1:
                    plays.append(_judge(bot, view, codes, code, i))
        pos.advance(code)
    dear = sorted((p for p in plays if p["loss"] >= _NOTICED), key=lambda p: -p["loss"])
    return {
        "plays": plays,
        "costly": [p["index"] for p in dear[:COSTLY]],
        "complete": complete,
    }


def _judge(
    bot: HeuristicBot, view: View, codes: list[int], played: int, index: int
) -> dict[str, Any]:
    scored = {out.code: score for score, out, _ in bot.score_moves(view, codes)}
    best = max(scored, key=lambda c: (scored[c], c == played))  # a tie keeps the player's move
    mine = scored[played]
    return {
        "index": index,
        "move": Move(played).to_dict(),
        "score": round(mine, 1),
        "best": Move(best).to_dict(),
        "best_score": round(scored[best], 1),
        "loss": round(scored[best] - mine, 1),
        "choices": len(codes),
    }
