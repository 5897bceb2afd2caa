"""The policy bot: the heuristic's best few moves, re-ranked by the learned value network.

No search: the heuristic bot (:mod:`.heuristic`) scores every legal move in one ply and keeps
its ``candidates`` best; each of them is made on ``samples`` determinizations of the view
(the same ones for every move, so the luck of the hidden cards cancels out of the comparison;
dealt with inference from the history, :mod:`.inference`), and the position after it is
scored by the value network (:mod:`.valuenet`), which sees what the heuristic's one ply does
not: the hands, the houses' safety, the sweeps to come. The move with the best mean is played,
the heuristic's own score breaking near-ties. A few milliseconds a move.

>>> import random
>>> from seep.engine import Position
>>> from seep.view import View
>>> pos = Position.new_deal(3)
>>> for _ in range(6):
...     pos.push(pos.legal_codes()[0])
>>> d = PolicyBot().choose(View.from_position(pos, pos.to_move), random.Random(1))
>>> d.move in pos.legal_codes()
True
"""

from __future__ import annotations

import random
from typing import Any

from ..codes import PHASE_PLAY
from ..errors import SeepError
from ..moves import Move
from ..view import View
from .base import Decision
from .heuristic import HeuristicBot
from .inference import determinize, evidence
from .ismcts import estimate
from .valuenet import load_value

__all__ = ["PolicyBot"]


class PolicyBot:
    """The heuristic's ``candidates`` best moves re-ranked by the value network over
    ``samples`` determinizations (see the module docstring)."""

    name = "policy"

    def __init__(self, candidates: int = 4, samples: int = 6, **heuristic: Any) -> None:
        if candidates < 1 or samples < 1:
            raise SeepError("candidates and samples must be at least 1")
        self.candidates = candidates
        self.samples = samples
        self.heuristic = HeuristicBot(**heuristic)
        self.value = load_value(estimate)

    def choose(self, view: View, rng: random.Random) -> Decision:
        if view.phase_id != PHASE_PLAY:
            return self.heuristic.choose(view, rng)  # the bid: the heuristic's
        codes = sorted(view.legal_codes())
        if not codes:
            raise SeepError(f"seat {view.seat} has no move to make (not his turn?)")
        if len(codes) == 1:
            return Decision(Move(codes[0]), "the only legal move")
        scored = self.heuristic.score_moves(view, codes)
        ranked = sorted((-sc, out.code) for sc, out, _ in scored)[: self.candidates]
        sign = 1.0 if view.seat & 1 == 0 else -1.0
        totals = [0.0] * len(ranked)
        factors = evidence(view)
        value = self.value
        for _ in range(self.samples):
            det = determinize(view, rng, factors)
            for i, (_, code) in enumerate(ranked):
                det.push(code)
                totals[i] += sign * value(det)
                det.pop()
        # Near-ties (within a point on average) go to the heuristic's order.
        best = max(
            range(len(ranked)),
            key=lambda i: (round(totals[i] / self.samples), -i),
        )
        mean = totals[best] / self.samples
        return Decision(
            Move(ranked[best][1]),
            f"of the heuristic's {len(ranked)} best moves, the one the value network rates "
            f"best: {mean:+.0f} points for our team",
        )
