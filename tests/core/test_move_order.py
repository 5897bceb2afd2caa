"""The order of legal moves is a function of the position alone, not of the engine's caches
(seeded random play, bots and recorded playthroughs rely on it)."""

from __future__ import annotations

import random

from seep import floor
from seep.engine import Position


def test_order_does_not_depend_on_caches() -> None:
    rng = random.Random(8)
    warm: list[tuple[Position, list[int]]] = []
    for _ in range(40):
        pos = Position.new_deal(rng.randrange(1 << 30), rng.randrange(4))
        while not pos.is_over():
            warm.append((pos.copy(), pos.legal_codes()))
            pos.push(rng.choice(pos.legal_codes()))
    # Cold: every position computed with empty caches; and in reverse order of play.
    for pos, order in reversed(warm):
        floor.clear_caches()
        assert pos.legal_codes() == order
    for pos, order in warm:
        assert pos.legal_codes() == order
