"""An arena plugin with the learned bot's variants that docs/strength.md compared (issue 28).

``seep arena x:nets=A.json+B.json,k=4,alpha=0.5 heuristic --plugin learned_variants`` (with
``tools`` on ``PYTHONPATH``) plays the mean value of the exports ``A.json``, ``B.json``, ...
(``seep train-agent``'s JSON, paths from the working directory) among the heuristic's ``k``
best moves, plus ``alpha`` times the heuristic's score of each move, in points. The shipped
bot is such a variant frozen into one file (``seep train-agent --merge``).
"""

from __future__ import annotations

import functools
import json
import random
from pathlib import Path

from seep.bots.base import Decision
from seep.bots.learned import LearnedBot, QNet, candidates, decision_features, qnets
from seep.bots.registry import register
from seep.codes import PHASE_PLAY
from seep.moves import Move
from seep.view import View


@functools.cache
def _nets(path: str) -> tuple[QNet, ...]:
    return qnets(json.loads(Path(path).read_text(encoding="utf-8")))


class VariantBot(LearnedBot):
    """The learned bot with the exports, candidates and prior given as settings."""

    name = "x"

    def __init__(self, nets: str = "", k: int = 4, alpha: float = 0.0) -> None:
        loaded = [n for path in str(nets).split("+") if path for n in _nets(path)]
        super().__init__(loaded or "learned.json")
        self.k = int(k)
        self.alpha = float(alpha)

    def choose(self, view: View, rng: random.Random) -> Decision:
        if view.phase_id != PHASE_PLAY or view.rules.players != 4:
            return self.heuristic.choose(view, rng)
        codes = sorted(view.legal_codes())
        if len(codes) == 1:
            return Decision(Move(codes[0]), "the only legal move")
        state, moves, scored = decision_features(view, codes, self.heuristic)
        pool = candidates(scored, self.k)
        values = [0.0] * len(pool)
        for net in self.nets:
            base = net.hidden_state(state)
            values = [v + net.q(base, moves[i]) for v, i in zip(values, pool, strict=True)]
        values = [
            100.0 * v / len(self.nets) + self.alpha * scored[i][0]
            for v, i in zip(values, pool, strict=True)
        ]
        best = max(range(len(pool)), key=lambda j: (values[j], -j))
        return Decision(Move(scored[pool[best]][1].code), "a learned variant")


register("x", VariantBot)
