"""Floor combinatorics: subset sums, groups, families of groups, splits into sets.

The one implementation of the arithmetic the rules of capture and house building rest on (R21b,
R23-R25, R31, R37), used by the engine, the format reader, the notation and the bots. Pure
functions of card masks (``seep.cards``); the two costly ones are cached, bounded by clearing.

>>> from seep.cards import parse_cards, format_cards
>>> [format_cards(g) for g in loose_subsets(parse_cards("3S 4H 7D"))[7]]
['3S 4H', '7D']
>>> [format_cards(s) for s in split_cards(parse_cards("TC 7D 3C"), 10) or []]
['TC', '3C 7D']
>>> bits = sweep_values(parse_cards("2S 5H 3D"), 0)  # a 5 takes {2S, 3D} and 5H; a 10 all
>>> [v for v in range(1, 14) if bits >> v & 1]
[5, 10]
"""

from __future__ import annotations

from typing import Final

from .cards import VALUE, cards_of_mask

__all__ = [
    "ALL_UNIONS",
    "MAXIMAL_UNIONS",
    "clear_caches",
    "floor_index",
    "group_unions",
    "is_union_of_groups",
    "loose_subsets",
    "split_cards",
    "splits_exactly",
    "subset_sums",
    "sweep_values",
    "sweepers",
]

_SUM_BITS: Final = ((1 << 14) - 1) & ~1  # sums 1..13

# Caches shared by all positions: the subsets of a loose floor summing to each value 1..13, the
# unions of disjoint group families and the values whose groups cover a floor. Each depends only
# on masks, so they are pure functions; they are bounded by clearing when they grow large.
_FLOOR: Final[dict[int, tuple[tuple[tuple[int, ...], ...], int]]] = {}
_FAMILIES: Final[tuple[dict[tuple[int, ...], tuple[int, ...]], ...]] = ({}, {})  # by mode below
_SWEEPERS: Final[dict[int, int]] = {}
_CACHE_LIMIT: Final = 50_000
# The floor index is kept small: its hits come from the floors of the deal at hand (a floor is
# mostly its predecessor plus a card), and a large table of them cost more than it saved, in
# memory traffic and in the collector's passes over what it keeps (random deals 25-30% faster
# at 512 entries than at 50,000; at 192 than at 512, SeepVectorEnv's 64 games about 5% and
# random deals 1-3%: docs/performance.md).
_FLOOR_LIMIT: Final = 192
_NO_FLOOR: Final[tuple[tuple[tuple[int, ...], ...], int]] = (((),) * 14, 0)
# The floors of one or two cards (more than half of the floors met in play), at index
# 52 * low card + high card (53 * card for one card): built once, then read without a hash
# look-up, never evicted, and the parent of every floor of three.
_SMALL: Final[list[tuple[tuple[tuple[int, ...], ...], int] | None]] = [None] * (52 * 52)
_ZERO_ONLY: Final[tuple[int, ...]] = (0,)


class _Last:
    """The last floor of three cards or more that floor_index returned: in play most floors the
    hashed cache misses are the one before plus the card just thrown below its highest (14,071
    of the 17,955 full builds over 2,000 random deals), which extends it. Only the mask is kept,
    its index is read from the cache: one field, so that no thread ever reads one floor's mask
    with another's index; compiled, the mask is held unboxed."""

    __slots__ = ("loose",)

    def __init__(self) -> None:
        self.loose = 0


_LAST: Final = _Last()
# Copied into a list where one is needed (compiled, `[None] * 14` makes two lists).
_NO_LISTS: Final[tuple[list[int] | None, ...]] = (None,) * 14

#: :func:`group_unions` modes: every family (absorption, R31; capture rule ``any``), or only
#: the maximal ones (R25; absorption ``mandatory``).
ALL_UNIONS: Final = 0
MAXIMAL_UNIONS: Final = 1


def clear_caches() -> None:
    """Empty the caches (benchmarks measure cold; tests show nothing depends on them)."""
    _FLOOR.clear()
    _LAST.loose = 0
    for i in range(len(_SMALL)):
        _SMALL[i] = None
    for families in _FAMILIES:
        families.clear()
    _SWEEPERS.clear()


def floor_index(loose: int) -> tuple[tuple[tuple[int, ...], ...], int]:
    """Every non-empty subset of ``loose`` with a value sum ``t`` <= 13, grouped by ``t``,
    and a bitmask with bit ``t`` set when some subset sums to ``t``.

    Index ``t`` (1..13) of the first item holds the masks summing to ``t``: the t-groups of R23,
    each sum's in increasing order of their masks. A floor whose highest card was added to an
    indexed floor is extended from it, one that adds a lower card to the last floor returned
    is extended from that one with its buckets sorted again, and any other floor is built card
    by card: each way gives the same order, so the order of legal moves never depends on what
    happens to be cached.
    """
    rest = loose & (loose - 1)
    if not rest & (rest - 1):
        return _small_floor(loose)
    hit = _FLOOR.get(loose)
    if hit is not None:
        _LAST.loose = loose
        return hit
    # The floor without its highest card: extending it keeps each bucket in order.
    low = 1 << (loose.bit_length() - 1)
    rest = loose ^ low
    rest2 = rest & (rest - 1)
    parent = _small_floor(rest) if not rest2 & (rest2 - 1) else _FLOOR.get(rest)
    if parent is not None:
        by_sum = list(parent[0])
        avail = parent[1]
        v = VALUE[low.bit_length() - 1]
        for t in range(13 - v, 0, -1):
            if avail >> t & 1:
                by_sum[t + v] += tuple([s | low for s in parent[0][t]])
        by_sum[v] += (low,)
        avail |= (avail << v | 1 << v) & _SUM_BITS
        result = (tuple(by_sum), avail)
    else:
        last = _LAST.loose
        added = loose ^ last
        indexed = _FLOOR.get(last) if last | loose == loose and not added & (added - 1) else None
        result = _build_floor(loose) if indexed is None else _extend_below(indexed, added)
    if len(_FLOOR) > _FLOOR_LIMIT:
        _FLOOR.clear()
    _FLOOR[loose] = result
    _LAST.loose = loose
    return result


def _extend_below(
    parent: tuple[tuple[tuple[int, ...], ...], int], low: int
) -> tuple[tuple[tuple[int, ...], ...], int]:
    """:func:`floor_index` of the floor of ``parent`` plus the card ``low`` (a bit), which is
    not above all of its cards: the subsets that take the card are sorted in among the others
    (a sum's groups are in increasing order of their masks, however the index was made)."""
    by_sum = list(parent[0])
    avail = parent[1]
    v = VALUE[low.bit_length() - 1]
    for t in range(13 - v, 0, -1):
        if avail >> t & 1:
            grown = [s | low for s in parent[0][t]]
            grown += by_sum[t + v]
            grown.sort()
            by_sum[t + v] = tuple(grown)
    alone = list(by_sum[v])
    alone.append(low)
    alone.sort()
    by_sum[v] = tuple(alone)
    avail |= (avail << v | 1 << v) & _SUM_BITS
    return (tuple(by_sum), avail)


def _small_floor(loose: int) -> tuple[tuple[tuple[int, ...], ...], int]:
    """:func:`floor_index` of a floor of at most two cards, from its table."""
    if not loose:
        return _NO_FLOOR
    low = loose & -loose
    a = low.bit_length() - 1
    k = 53 * a if loose == low else 52 * a + loose.bit_length() - 1
    hit = _SMALL[k]
    if hit is None:
        hit = _SMALL[k] = _build_floor(loose)
    return hit


def _build_floor(loose: int) -> tuple[tuple[tuple[int, ...], ...], int]:
    """:func:`floor_index` built card by card, without a cache.

    Cards are added in index order: each extends every subset found before it (values are
    >= 1, so only sums up to 13 - v take a card of value v; going down, no subset takes the
    card twice) and then stands alone. A sum's list is made when first met.
    """
    lists: list[list[int] | None] = list(_NO_LISTS)
    avail = 0  # bit t: lists[t] is made
    m = loose
    while m:
        low = m & -m
        m ^= low
        v = VALUE[low.bit_length() - 1]
        ts = avail & ((2 << (13 - v)) - 1)  # the sums found that still take v, downwards
        while ts:
            t = ts.bit_length() - 1
            ts ^= 1 << t
            bucket = lists[t]
            assert bucket is not None
            grown = lists[t + v]
            if grown is None:
                grown = lists[t + v] = []
            for s in bucket:
                grown.append(s | low)
        alone = lists[v]
        if alone is None:
            lists[v] = [low]
        else:
            alone.append(low)
        avail |= (avail << v | 1 << v) & _SUM_BITS
    buckets = list(_NO_FLOOR[0])
    ts = avail
    while ts:
        t = ts.bit_length() - 1
        ts ^= 1 << t
        found = lists[t]
        assert found is not None
        buckets[t] = tuple(found)
    return (tuple(buckets), avail)


def loose_subsets(loose: int) -> tuple[tuple[int, ...], ...]:
    """The subsets of ``loose`` summing to each ``t`` <= 13 (see :func:`floor_index`)."""
    return floor_index(loose)[0]


def group_unions(groups: tuple[int, ...], mode: int) -> tuple[int, ...]:
    """Distinct unions of families of pairwise disjoint groups (R24).

    ``ALL_UNIONS``: every family, the empty one included. ``MAXIMAL_UNIONS``: only families
    after which no group is left disjoint from the union (R25's "no v-group can be formed from
    the remaining loose cards"); the empty family is maximal only when there are no groups.
    """
    if not groups:
        return _ZERO_ONLY
    if len(groups) == 1 and groups[0]:
        # What the sets below give for one group: the empty family first (R25: not maximal).
        return (groups[0],) if mode == MAXIMAL_UNIONS else (0, groups[0])
    if mode == MAXIMAL_UNIONS:
        # Pairwise disjoint groups have one maximal family: all of them.
        every = 0
        for g in groups:
            if every & g or not g:
                break
            every |= g
        else:
            return (every,)
    cache = _FAMILIES[MAXIMAL_UNIONS if mode == MAXIMAL_UNIONS else ALL_UNIONS]
    hit = cache.get(groups)
    if hit is not None:
        return hit
    unions = {0}
    for g in groups:
        unions.update([u | g for u in unions if not u & g])
    if mode == MAXIMAL_UNIONS:
        maximal: list[int] = []
        for u in unions:
            for g in groups:
                if not g & u:
                    break  # g could still join: u is not maximal
            else:
                maximal.append(u)
        result = tuple(maximal)
    else:
        result = tuple(unions)
    if len(cache) > _CACHE_LIMIT:
        cache.clear()
    cache[groups] = result
    return result


def subset_sums(mask: int) -> int:
    """Bit t set when some subset of the cards of ``mask`` sums to t (0..13)."""
    reach = 1
    while mask:
        low = mask & -mask
        mask ^= low
        reach |= (reach << VALUE[low.bit_length() - 1]) & 0x3FFF
    return reach


def _place(values: list[int], bins: list[int]) -> list[int] | None:
    """Put every value (largest first) into a bin so that each bin is filled exactly: for each
    value the index of its bin, or ``None`` when no such split exists. Bins with equal room left
    are interchangeable, so only the first of them is tried."""
    if sum(values) != sum(bins):
        return None
    order = sorted(range(len(values)), key=lambda i: -values[i])
    room = list(bins)
    where = [0] * len(values)

    def place(k: int) -> bool:
        if k == len(order):
            return True
        i = order[k]
        x = values[i]
        tried = 0
        for b, r in enumerate(room):
            if r < x or tried >> r & 1:
                continue
            tried |= 1 << r
            room[b] = r - x
            where[i] = b
            if place(k + 1):
                return True
            room[b] = r
        return False

    return where if place(0) else None


def splits_exactly(values: list[int], bins: list[int]) -> bool:
    """Whether ``values`` can be split into groups whose sums are exactly ``bins``."""
    return _place(values, bins) is not None


def split_cards(cards: int, value: int) -> list[int] | None:
    """The cards of a set split into sets each worth ``value`` (a house's sets, R21b): the
    largest cards first, each into the first set with room; ``None`` if impossible."""
    items = sorted(cards_of_mask(cards), reverse=True)
    values = [VALUE[c] for c in items]
    total = sum(values)
    if not value or total % value:
        return None
    where = _place(values, [value] * (total // value))
    if where is None:
        return None
    sets = [0] * (total // value)
    for c, b in zip(items, where, strict=True):
        sets[b] |= 1 << c
    return sets


def is_union_of_groups(mask: int, v: int) -> bool:
    """Whether the cards of ``mask`` split into disjoint v-groups (R24); the empty set does."""
    return split_cards(mask, v) is not None if mask else True


def sweepers(loose: int) -> int:
    """Bit w for every value w such that the (non-empty) ``loose`` cards split into disjoint
    groups each worth w (R24): a card of value w would capture them all."""
    hit = _SWEEPERS.get(loose)
    if hit is not None:
        return hit
    values = [VALUE[c] for c in cards_of_mask(loose)]
    total = sum(values)
    top = max(values)
    result = 0
    for w in range(top, min(total, 13) + 1):
        if total % w == 0 and (w == total or _place(values, [w] * (total // w)) is not None):
            result |= 1 << w
    if len(_SWEEPERS) > _CACHE_LIMIT:
        _SWEEPERS.clear()
    _SWEEPERS[loose] = result
    return result


def sweep_values(loose: int, hpresent: int) -> int:
    """Bitmask (bit v) of the card values that would capture the whole floor: every loose card
    in disjoint v-groups and no house but one of value v (R21g, R37). ``hpresent`` has bit V
    per house on the floor. An empty floor gives 0: nothing can be swept from it (R38)."""
    if hpresent:
        if hpresent & (hpresent - 1):
            return 0  # two houses of different values are never taken by one card
        return hpresent if not loose or sweepers(loose) & hpresent else 0
    return sweepers(loose) if loose else 0
