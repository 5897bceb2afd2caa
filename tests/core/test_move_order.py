"""The order of legal moves is a function of the position alone, not of the engine's caches
(seeded random play, bots and recorded playthroughs rely on it)."""

from __future__ import annotations

import hashlib
import random

from seep import floor
from seep.engine import Position
from seepkit.play import EVERY_MOVE_KIND


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


def test_floor_index_from_the_last_floor_plus_a_lower_card() -> None:
    """A floor that adds a card below the highest of the last floor indexed (a throw in play)
    is extended from that floor, its groups sorted in: the same buckets as a build card by card
    (``floor._build_floor``, which no cache reaches)."""
    rng = random.Random(10)
    floor.clear_caches()
    extended = 0
    for _ in range(400):
        cards = rng.sample(range(52), rng.randrange(3, 9))
        loose = sum(1 << c for c in cards[:3])
        floor.floor_index(loose)
        for c in cards[3:]:
            if 1 << c < loose:
                extended += 1
            loose |= 1 << c
            assert floor.floor_index(loose) == floor._build_floor(loose)
    assert extended > 500


# The legal moves of seeded random deals under option sets that reach every kind of move,
# with play_codes("always") at each position of the play phase, hashed: the value was taken
# on main before the cuts of issue 28 item 4 (branch wip/engine), so the order of the codes of
# every move kind is pinned, compiled and pure.
ORDER_OPTIONS = EVERY_MOVE_KIND
ORDER_DIGEST = "74bc78482cd45a64b4e7a35cf4213d48"


def legal_move_digest(deals: int) -> str:
    """The digest of ``deals`` seeded random deals under each of :data:`ORDER_OPTIONS`."""
    from seep.options import Rules

    h = hashlib.sha256()
    for k, options in enumerate(ORDER_OPTIONS):
        rules = Rules.parse(options)
        rng = random.Random(k)
        for d in range(deals):
            if d % 7 == 0:
                floor.clear_caches()
            pos = Position.new_deal(rng.randrange(1 << 40), rng.randrange(rules.players), rules)
            while not pos.is_over():
                codes = pos.legal_codes()
                h.update(repr(codes).encode())
                if pos.phase == "play":
                    h.update(repr(pos.play_codes("always")).encode())
                pos.advance(rng.choice(codes))
            h.update(repr(pos.deal_scores()).encode())
    return h.hexdigest()[:32]


def test_legal_move_order_is_pinned() -> None:
    assert legal_move_digest(40) == ORDER_DIGEST
