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


def test_floor_index_is_the_sorted_groups_whatever_the_path() -> None:
    """Each sum's groups in increasing order of their masks, the same from the table of small
    floors, from a parent floor, from the cache and from a build card by card."""
    rng = random.Random(9)
    floors = [0]
    for _ in range(3000):
        floors.append(sum(1 << c for c in rng.sample(range(52), rng.randrange(1, 9))))
    floor.clear_caches()
    for _ in range(2):  # from cold caches, then from warm ones
        for loose in floors:
            # The parent (without the highest card) first, so the extension path runs too.
            if loose:
                floor.floor_index(loose ^ 1 << (loose.bit_length() - 1))
            by_sum, avail = floor.floor_index(loose)
            expected: list[list[int]] = [[] for _ in range(14)]
            sub = 0
            while True:
                sub = (sub - loose) & loose  # the subsets of loose in increasing order
                if not sub:
                    break
                t = sum(c // 4 + 1 for c in range(52) if sub >> c & 1)
                if t <= 13:
                    expected[t].append(sub)
            assert [list(b) for b in by_sum] == expected
            assert avail == sum(1 << t for t in range(14) if expected[t])
