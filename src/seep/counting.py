"""How many legal moves each card has, counted without listing them.

A floor of many loose cards (reachable with ``throw_rule: "always"``) has millions of legal
moves: the 20 cards A-5 give well over a million. Listing them takes seconds to minutes;
counting them takes milliseconds, so the protocol can refuse a list that is too long and say
how many moves each card has (``too_many_moves``).

The count rests on one symmetry: whether a set of loose cards can be taken, built or absorbed
(R23-R31) depends only on how many cards of each *value* it holds, never on their suits. So the
generator of :meth:`seep.engine.Position.play_codes` is followed, on the same facts of the
mover's hand (:mod:`seep.mover`: which values may capture, build, cement, break or be thrown),
with card sets replaced by *count vectors* (a nibble per value 1..13, and one per house 9..13
when houses are items of a sum), and every vector ``k`` of a move stands for ``prod(C(c[v],
k[v]))`` moves, ``c`` the counts on the floor. Families of groups become closures: every vector
reachable from the move's own cards by adding whole groups (value partitions of the target)
within the floor. tests/core/test_counting.py checks the counts against the generator on
positions under every rule option.

>>> from seep.engine import Position
>>> pos = Position.new_deal(seed=3)
>>> pos.push(pos.legal_codes()[0])
>>> count_legal(pos) == len(pos.legal_codes())
True
"""

from __future__ import annotations

from math import comb
from typing import TYPE_CHECKING, Final

from .cards import VALUE, seat_to_move
from .codes import PHASE_PLAY, THROW, code_action, code_card, make_code
from .mover import HOUSE_VALUES, breakers, cementers, mover_facts, options_of, throws_left

if TYPE_CHECKING:  # the engine imports this module; the type is only for annotations
    from .engine import Position

__all__ = ["card_codes", "count_by_card", "count_legal"]

# A count vector holds one nibble per value v (1..13) at nibble v and one per house w
# (9..13, as an item of a sum, A10) at nibble w + 5. Counts stay below 8, so bit 3 of each
# nibble is free to detect a count above the room (see _fits).
_GUARD: Final = sum(8 << 4 * i for i in range(19))


def _house_field(w: int) -> int:
    return 1 << 4 * (w + 5)


def _fits(k: int, room: int) -> bool:
    """Whether every count of ``k`` is at most that of ``room`` (both below 8 per nibble)."""
    return ((room | _GUARD) - k) & _GUARD == _GUARD


def _partitions(t: int, top: int) -> list[int]:
    """The partitions of ``t`` into values <= ``top``, as count vectors."""
    if t == 0:
        return [0]
    out: list[int] = []
    for v in range(min(t, top), 0, -1):
        out += [p + (1 << 4 * v) for p in _partitions(t - v, v)]
    return out


def _at_most_four(k: int) -> bool:
    return all(k >> 4 * v & 15 <= 4 for v in range(14))


# _PARTS[t]: every way to make the sum t (0..13) from card values, as count vectors (at most
# four cards of a value: the pack has no more).
_PARTS: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(p for p in _partitions(t, 13) if _at_most_four(p)) for t in range(14)
)


class _Floor:
    """The loose cards as counts per value, and the closures over them (one position)."""

    def __init__(self, loose: int) -> None:
        room = 0
        m = loose
        while m:
            low = m & -m
            m ^= low
            room += 1 << 4 * VALUE[low.bit_length() - 1]
        self.room = room
        self.counts = [room >> 4 * v & 15 for v in range(14)]
        self._weights: dict[int, int] = {}
        self._groups: dict[int, list[int]] = {}

    def groups(self, t: int, room: int | None = None) -> list[int]:
        """The value partitions of ``t`` that fit in ``room`` (the floor by default)."""
        if room is None:
            hit = self._groups.get(t)
            if hit is None:
                hit = self._groups[t] = [p for p in _PARTS[t] if _fits(p, self.room)]
            return list(hit)
        return [p for p in _PARTS[t] if _fits(p, room)]

    def weight(self, k: int) -> int:
        """How many sets of loose cards have the counts of ``k`` (house nibbles ignored)."""
        w = self._weights.get(k)
        if w is None:
            w = 1
            counts = self.counts
            for v in range(1, 14):
                n = k >> 4 * v & 15
                if n:
                    w *= comb(counts[v], n)
            self._weights[k] = w
        return w

    def closure(self, sources: list[int], types: list[int], room: int, maximal: bool) -> set[int]:
        """Every vector made of a source and whole groups of ``types`` within ``room``; with
        ``maximal``, only those after which no group fits in what is left (R25, R31)."""
        # _fits inlined: this loop is the whole cost of counting a huge floor.
        guard = _GUARD
        top = room | guard
        seen = {s for s in sources if (top - s) & guard == guard}
        stack = list(seen)
        while stack:
            u = stack.pop()
            for g in types:
                n = u + g
                if (top - n) & guard == guard and n not in seen:
                    seen.add(n)
                    stack.append(n)
        if maximal:
            out = set()
            for k in seen:
                left = (room - k) | guard
                for g in types:
                    if (left - g) & guard == guard:
                        break
                else:
                    out.add(k)
            return out
        return seen

    def total(self, vectors: set[int]) -> int:
        weight = self.weight
        return sum(weight(k) for k in vectors)


def _bits(mask: int) -> list[int]:
    return [v for v in range(14) if mask >> v & 1]


def _play_counts(pos: Position) -> tuple[list[int], int]:
    """For each value 0..13: how many moves other than a throw a card of that value has; and
    bit v of the values whose cards may be thrown. Walks the facts of ``Position.play_codes``
    (:func:`seep.mover.mover_facts`, the same rule numbers apply) over count vectors."""
    rules = pos.rules
    opts = options_of(rules)
    plays = pos.plays
    p = seat_to_move(pos.dealer, plays, rules.players)
    hand = pos.hands[p]
    hpresent = pos.hpresent
    fl = _Floor(pos.loose)
    room = fl.room
    avail = 0
    for t in range(1, 14):
        if fl.groups(t):
            avail |= 1 << t
    fragile, free, cap_vals, throw_vals, build_vals, pairs, cementable, keep_once, breaks = (
        mover_facts(opts, rules.throw_rule, pos, p, hand, avail)
    )
    uses = [0] * 14
    maximal_capture = rules.capture_rule == "maximal"
    absorb = rules.absorb_loose_groups
    absorb_max = absorb == "mandatory"

    # CAPTURE (R23-R26): houses are items with room 1 (nibble w + 5).
    house_room = sum(_house_field(w) for w in HOUSE_VALUES if hpresent >> w & 1)
    for v in _bits(cap_vals):
        types = fl.groups(v)
        if hpresent >> v & 1:
            types.append(_house_field(v))
        if rules.house_in_sums:
            for w in HOUSE_VALUES:
                if w < v and hpresent >> w & 1:
                    types += [_house_field(w) + s for s in fl.groups(v - w)]
        found = fl.closure([0], types, room + house_room, maximal_capture)
        if fragile >> v & 1:
            item = _house_field(v)
            uses[v] += fl.total({k for k in found if k & item})
        else:
            found.discard(0)
            uses[v] += fl.total(found)

    def absorbed(sources: list[int], target: int) -> int:
        """Moves of a new set made of one of ``sources`` and loose target-groups (R31)."""
        if absorb == "never":
            return fl.total(set(sources))
        return fl.total(fl.closure(sources, fl.groups(target), room, absorb_max))

    # BUILD (R27) and the pair build (A12).
    for V in _bits(build_vals):
        singles = (room >> 4 * V & 15) << 4 * V
        for t in range(1, V):
            v = V - t
            if not free >> v & 1 or not avail >> t & 1:
                continue
            uses[v] += absorbed([s + singles for s in fl.groups(t, room - singles)], V)
    for v in _bits(pairs):
        singles = (room >> 4 * v & 15) << 4 * v
        if singles:
            uses[v] += absorbed([singles], v)

    # CEMENT / ADD (R28, R33, A13, A14) and BREAK (R29, R30).
    for V in _bits(hpresent):
        may = cementers(V, free, cementable, keep_once)
        for t in range(V):
            v = V - t
            if not may >> v & 1 or (t and not avail >> t & 1):
                continue
            uses[v] += absorbed(fl.groups(t) if t else [0], V)
        for v in _bits(breakers(V, breaks)):
            V2 = V + v
            singles = (room >> 4 * V2 & 15) << 4 * V2
            uses[v] += absorbed([singles], V2)

    # THROW (R22, A7, R16.3, R21f(b)).
    return uses, throws_left(throw_vals, rules.throw_rule, any(uses))


def count_by_card(pos: Position) -> dict[int, int]:
    """The number of legal moves of each card in the hand of the seat to move (0 for a card
    with none), without listing them: milliseconds where the list would take minutes. In the
    bid phase the moves (bids, a redeal) play no card: see :func:`count_legal`."""
    if pos.phase_id != PHASE_PLAY:
        return {}
    uses, throw_vals = _play_counts(pos)
    hand = pos.hands[seat_to_move(pos.dealer, pos.plays, pos.rules.players)]
    out: dict[int, int] = {}
    m = hand
    while m:
        low = m & -m
        m ^= low
        card = low.bit_length() - 1
        v = VALUE[card]
        out[card] = uses[v] + (throw_vals >> v & 1)
    return out


def count_legal(pos: Position) -> int:
    """The number of legal moves, ``len(pos.legal_codes())`` without listing them."""
    if pos.phase_id != PHASE_PLAY:
        return len(pos.legal_codes())
    return sum(count_by_card(pos).values())


def card_codes(pos: Position, card: int) -> list[int]:
    """The legal moves that play ``card``, as codes in generator order, computing only the
    uses of that card's value (a huge floor lists one card's moves without all the others);
    ``[]`` for a card the mover does not hold or in the bid phase."""
    mover = seat_to_move(pos.dealer, pos.plays, pos.rules.players)
    if pos.phase_id != PHASE_PLAY or not pos.hands[mover] >> card & 1:
        return []
    # The throw is decided by the counts: under throw_rule "no_other_move" it depends on the
    # other cards, which the generator's value filter does not look at.
    throw_vals = _play_counts(pos)[1]
    v = VALUE[card]
    codes = [
        c
        for c in pos.play_codes("always", 1 << v)
        if code_card(c) == card and code_action(c) != THROW
    ]
    if throw_vals >> v & 1:
        codes.append(make_code(THROW, card))
    return codes
