"""The Seep rules engine: positions, legal-move generation, push/pop, scoring.

Everything here works on ints. A card is ``0..51`` and a card set a 52-bit mask (``seep.cards``);
a house is three small ints (its cards, a cemented flag, a 4-bit mask of owner seats) stored by
value in lists indexed ``0..13``; and a move is one packed int, its *code*:

======  ===========  ==========================================================
bits    field        meaning
======  ===========  ==========================================================
0-51    loose        every loose card that leaves the loose area in the move
52-56   houses       captured houses, bit ``v - 9`` for the house of value v
57-62   card         the card played (bids and redeals: 0)
63-65   action       throw, capture, build, cement, break, bid, redeal
66-69   value        bid value; value of the built/cemented/raised house
70-73   house        the old value of a broken house
======  ===========  ==========================================================

Two moves are the same move (docs/format.md) exactly when their codes are equal, so sets of codes
deduplicate for free. :class:`seep.moves.Move` is the readable form of a code.

Rules are cited by their numbers in docs/rules.md.

>>> pos = Position.new_deal(seed=7)
>>> pos.phase, pos.to_move, len(pos.legal_codes()) >= 1
('bid', 1, True)
"""

from __future__ import annotations

import hashlib
import random
from typing import TYPE_CHECKING, Any

from .cards import CARD_NAMES, FULL_DECK, VALUE_MASK, card_list, mask_points
from .errors import IllegalMoveError, InvalidPositionError
from .options import STANDARD, Rules

if TYPE_CHECKING:
    from .moves import Move

__all__ = [
    "BID",
    "BREAK",
    "BUILD",
    "CAPTURE",
    "CEMENT",
    "PHASE_BID",
    "PHASE_NAMES",
    "PHASE_OVER",
    "PHASE_PLAY",
    "REDEAL",
    "THROW",
    "Position",
    "code_action",
    "code_card",
    "code_house",
    "code_houses",
    "code_loose",
    "code_value",
    "make_code",
    "perft",
]

# --- move codes ---------------------------------------------------------------------------

THROW, CAPTURE, BUILD, CEMENT, BREAK, BID, REDEAL = range(7)
ACTION_NAMES = ("throw", "capture", "build", "cement", "break", "bid", "redeal")

LOOSE_BITS = FULL_DECK
SH_HOUSES = 52
SH_CARD = 57
SH_ACTION = 63
SH_VALUE = 66
SH_HOUSE = 70

_CAPTURE_TAG = CAPTURE << SH_ACTION
_BUILD_TAG = BUILD << SH_ACTION
_CEMENT_TAG = CEMENT << SH_ACTION
_BREAK_TAG = BREAK << SH_ACTION
_THROW_TAG = THROW << SH_ACTION


def make_code(
    action: int,
    card: int = 0,
    value: int = 0,
    house: int = 0,
    loose: int = 0,
    houses: int = 0,
) -> int:
    """Pack a move; ``houses`` is a bitmask with bit ``v - 9`` per captured house."""
    return (
        loose
        | houses << SH_HOUSES
        | card << SH_CARD
        | action << SH_ACTION
        | value << SH_VALUE
        | house << SH_HOUSE
    )


def code_action(code: int) -> int:
    """Action of a move code (``THROW`` … ``REDEAL``)."""
    return code >> SH_ACTION & 7


def code_card(code: int) -> int:
    """Card played by a move code."""
    return code >> SH_CARD & 63


def code_value(code: int) -> int:
    """Value field of a move code (bid value, or the value of the house made)."""
    return code >> SH_VALUE & 15


def code_house(code: int) -> int:
    """Old value of the house a break raises (0 for other moves)."""
    return code >> SH_HOUSE & 15


def code_loose(code: int) -> int:
    """Mask of the loose cards a move takes off the loose area."""
    return code & LOOSE_BITS


def code_houses(code: int) -> int:
    """Bitmask (bit ``v - 9``) of the houses a capture takes."""
    return code >> SH_HOUSES & 31


# --- phases -------------------------------------------------------------------------------

PHASE_BID, PHASE_PLAY, PHASE_OVER = 0, 1, 2
PHASE_NAMES = ("bid", "play", "over")

# --- precomputed tables -------------------------------------------------------------------

_VAL = tuple((c >> 2) + 1 for c in range(52))
# A house as a capture item when ``house_in_sums`` lets it take part in a sum (R21g, A10).
_HOUSE_ITEM = (0,) * 9 + tuple(1 << (SH_HOUSES + v - 9) for v in range(9, 14))
_HOUSE_VALUES = (9, 10, 11, 12, 13)
_HOUSE_BITS = 0b11111 << 9
_SUM_BITS = ((1 << 14) - 1) & ~1  # sums 1..13
# _REVERSED_SUMS[m]: bit 13 - t for every bit t (0..13) of m.
_REVERSED_SUMS: tuple[int, ...] = tuple(
    sum(1 << (13 - t) for t in range(14) if m >> t & 1) for m in range(1 << 14)
)


def _values_cards_table() -> tuple[int, ...]:
    table = [0] * (1 << 14)
    for m in range(1, 1 << 14):
        low = m & -m
        table[m] = table[m ^ low] | VALUE_MASK[low.bit_length() - 1]
    return tuple(table)


# _VALUES_CARDS[m]: the cards of every value v (1..13) whose bit v is set in m.
_VALUES_CARDS = _values_cards_table()
# _CARD_FIELDS[v][nib]: the card fields (card << SH_CARD) of the cards of value v whose suits
# are the bits of nib; _THROW_CODES[v][nib]: their throws.
_CARD_FIELDS: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(tuple((4 * v - 4 + s) << SH_CARD for s in range(4) if nib >> s & 1) for nib in range(16))
    if v
    else ((),) * 16
    for v in range(14)
)
_THROW_CODES: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(tuple(_THROW_TAG | f for f in fields) for fields in by_nib) for by_nib in _CARD_FIELDS
)
_CAPTURE_TAGS = tuple(CAPTURE << SH_ACTION | v << SH_VALUE for v in range(14))
_BUILD_TAGS = tuple(BUILD << SH_ACTION | v << SH_VALUE for v in range(14))
_CEMENT_TAGS = tuple(CEMENT << SH_ACTION | v << SH_VALUE for v in range(14))


def _keeps(free: int, held: int, twice: int, vbit: int) -> int:
    """The values (of ``free``) the mover may play and still hold a card of value ``vbit``."""
    if not held & vbit:
        return 0
    return free if twice & vbit else free & ~vbit


def _held_table(first_value: int, values: int) -> tuple[int, ...]:
    """For a slice of a hand holding ``values`` ranks from ``first_value`` on: bit V of the
    values held, and (shifted by 16) of the values held at least twice."""
    table = []
    for bits in range(1 << (4 * values)):
        entry = 0
        for i in range(values):
            nib = bits >> (4 * i) & 15
            if nib:
                entry |= 1 << (first_value + i)
                if nib & (nib - 1):
                    entry |= 1 << (first_value + i + 16)
        table.append(entry)
    return tuple(table)


_HELD_1_2 = _held_table(1, 2)
_HELD_3_4 = _held_table(3, 2)
_HELD_5_6 = _held_table(5, 2)
_HELD_7_8 = _held_table(7, 2)
_HELD_9_10 = _held_table(9, 2)
_HELD_11_12 = _held_table(11, 2)
_HELD_13 = _held_table(13, 1)
_PARTNER_SEATS = (0b0100, 0b1000, 0b0001, 0b0010)  # seat mask of s+2

# Caches shared by all positions: the subsets of a loose floor summing to each value 1..13, and
# the unions of disjoint group families. Both depend only on masks, so they are pure functions;
# they are bounded by clearing when they grow large.
_FLOOR: dict[int, tuple[tuple[tuple[int, ...], ...], int]] = {}
_FAMILIES: dict[tuple[tuple[int, ...], int], tuple[int, ...]] = {}
_CACHE_LIMIT = 50_000
_EMPTY: tuple[int, ...] = ()
_NO_FLOOR: tuple[tuple[tuple[int, ...], ...], int] = (((),) * 14, 0)
_ZERO_ONLY: tuple[int, ...] = (0,)

# Families modes (absorption, R31; capture rule, R25).
_ALL_UNIONS, _MAXIMAL_UNIONS = 0, 1


def floor_index(loose: int) -> tuple[tuple[tuple[int, ...], ...], int]:
    """Every non-empty subset of ``loose`` with a value sum ``t`` <= 13, grouped by ``t``,
    and a bitmask with bit ``t`` set when some subset sums to ``t``.

    Index ``t`` (1..13) of the first item holds the masks summing to ``t``: the t-groups of R23.
    A floor whose highest card was added to an indexed floor is extended from it; any other
    floor is built card by card, in the same order.
    """
    hit = _FLOOR.get(loose)
    if hit is not None:
        return hit
    if not loose:
        return _NO_FLOOR
    # Only the floor without its highest card is a parent: extending it gives the buckets in
    # exactly the order of the full build, so the order of legal moves never depends on what
    # happens to be cached.
    low = 1 << (loose.bit_length() - 1)
    parent = _FLOOR.get(loose ^ low)
    if parent is not None:
        by_sum = list(parent[0])
        avail = parent[1]
        v = _VAL[low.bit_length() - 1]
        for t in range(13 - v, 0, -1):
            if avail >> t & 1:
                by_sum[t + v] += tuple([s | low for s in parent[0][t]])
        by_sum[v] += (low,)
        avail |= (avail << v | 1 << v) & _SUM_BITS
        result = (tuple(by_sum), avail)
    else:
        lists: list[list[int]] = [[] for _ in range(14)]
        m = loose
        while m:
            low = m & -m
            m ^= low
            v = _VAL[low.bit_length() - 1]
            # Extend every subset found so far; values are >= 1, so sums stay bounded by 13.
            for t in range(13 - v, 0, -1):
                bucket = lists[t]
                if bucket:
                    lists[t + v].extend([s | low for s in bucket])
            lists[v].append(low)
        avail = 0
        for t in range(1, 14):
            if lists[t]:
                avail |= 1 << t
        result = (tuple([tuple(b) for b in lists]), avail)
    if len(_FLOOR) > _CACHE_LIMIT:
        _FLOOR.clear()
    _FLOOR[loose] = result
    return result


def loose_subsets(loose: int) -> tuple[tuple[int, ...], ...]:
    """The subsets of ``loose`` summing to each ``t`` <= 13 (see :func:`floor_index`)."""
    return floor_index(loose)[0]


def group_unions(groups: tuple[int, ...], mode: int) -> tuple[int, ...]:
    """Distinct unions of families of pairwise disjoint groups (R24).

    ``_ALL_UNIONS``: every family, the empty one included. ``_MAXIMAL_UNIONS``: only families
    after which no group is left disjoint from the union (R25's "no v-group can be formed from
    the remaining loose cards"); the empty family is maximal only when there are no groups.
    """
    if not groups:
        return _ZERO_ONLY
    key = (groups, mode)
    hit = _FAMILIES.get(key)
    if hit is not None:
        return hit
    unions = {0}
    for g in groups:
        unions.update([u | g for u in unions if not u & g])
    if mode == _MAXIMAL_UNIONS:
        result = tuple(u for u in unions if all(g & u for g in groups))
    else:
        result = tuple(unions)
    if len(_FAMILIES) > _CACHE_LIMIT:
        _FAMILIES.clear()
    _FAMILIES[key] = result
    return result


def _bits_value_sum(mask: int) -> int:
    s = 0
    while mask:
        low = mask & -mask
        s += _VAL[low.bit_length() - 1]
        mask ^= low
    return s


def _seat_bits(mask: int) -> list[int]:
    return [s for s in range(4) if mask >> s & 1]


class Position:
    """One deal of Seep with every card visible, plus the running match (docs/format.md position).

    Mutable, with :meth:`push` / :meth:`pop` for search; :meth:`copy` for an independent copy.
    Create one with :meth:`new_deal` or :meth:`from_dict`.
    """

    __slots__ = (
        "_stack",
        "bid",
        "captured",
        "dealer",
        "hands",
        "hcards",
        "hcem",
        "howners",
        "hpresent",
        "last_capture",
        "loose",
        "match_baazis",
        "match_deals",
        "match_diff",
        "phase_id",
        "plays",
        "rules",
        "stock",
        "sweeps",
    )

    rules: Rules
    dealer: int
    phase_id: int
    bid: int
    plays: int
    hands: list[int]
    stock: tuple[int, ...]
    loose: int
    hcards: list[int]
    hcem: list[bool]
    howners: list[int]
    hpresent: int
    captured: list[int]
    sweeps: list[int]
    last_capture: int
    match_diff: int
    match_baazis: tuple[int, int]
    match_deals: int
    _stack: list[tuple[Any, ...]]

    def __init__(self, rules: Rules = STANDARD, dealer: int = 0) -> None:
        self.rules = rules
        self.dealer = dealer
        self.phase_id = PHASE_BID
        self.bid = 0
        self.plays = 0
        self.hands = [0, 0, 0, 0]
        self.stock = ()
        self.loose = 0
        self.hcards = [0] * 14
        self.hcem = [False] * 14
        self.howners = [0] * 14
        self.hpresent = 0  # bit v set when a house of value v is on the floor
        self.captured = [0, 0]
        self.sweeps = [0, 0]
        self.last_capture = -1
        self.match_diff = 0
        self.match_baazis = (0, 0)
        self.match_deals = 0
        self._stack = []

    # --- construction -------------------------------------------------------------------

    @classmethod
    def new_deal(
        cls,
        seed: int,
        dealer: int = 0,
        rules: Rules = STANDARD,
        *,
        match: tuple[int, tuple[int, int], int] = (0, (0, 0), 0),
    ) -> Position:
        """A bid-phase position dealt from ``random.Random(seed).shuffle`` of the sorted pack.

        The shuffled pack is laid out in deal order (R12, R18, docs/format.md ``stock``): cards 0-3
        to the bidder, 4-7 face down to the floor, then (with ``deal_before_bid``) 4 each to the
        other three seats in playing order, and the rest is the stock.
        """
        if dealer not in (0, 1, 2, 3):
            raise InvalidPositionError(f"dealer must be a seat 0..3, got {dealer!r}")
        deck = list(range(52))
        random.Random(seed).shuffle(deck)
        pos = cls(rules, dealer)
        pos.match_diff, pos.match_baazis, pos.match_deals = match
        pos._lay_out(deck)
        return pos

    def _lay_out(self, deck: list[int]) -> None:
        """Deal a shuffled pack for the bid phase (R12, option ``deal_before_bid``)."""
        bidder = (self.dealer + 1) & 3
        hands = [0, 0, 0, 0]
        hands[bidder] = _mask(deck[0:4])
        self.loose = _mask(deck[4:8])
        rest = deck[8:]
        if self.rules.deal_before_bid:
            for i in range(1, 4):
                hands[(bidder + i) & 3] = _mask(rest[4 * (i - 1) : 4 * i])
            rest = rest[12:]
        self.hands = hands
        self.stock = tuple(rest)
        self.phase_id = PHASE_BID
        self.bid = 0
        self.plays = 0

    def copy(self) -> Position:
        """An independent copy (the undo stack is not copied)."""
        p = Position.__new__(Position)
        p.rules = self.rules
        p.dealer = self.dealer
        p.phase_id = self.phase_id
        p.bid = self.bid
        p.plays = self.plays
        p.hands = self.hands[:]
        p.stock = self.stock
        p.loose = self.loose
        p.hcards = self.hcards[:]
        p.hcem = self.hcem[:]
        p.howners = self.howners[:]
        p.hpresent = self.hpresent
        p.captured = self.captured[:]
        p.sweeps = self.sweeps[:]
        p.last_capture = self.last_capture
        p.match_diff = self.match_diff
        p.match_baazis = self.match_baazis
        p.match_deals = self.match_deals
        p._stack = []
        return p

    # --- simple queries -----------------------------------------------------------------

    @property
    def phase(self) -> str:
        """``"bid"``, ``"play"`` or ``"over"`` (docs/format.md)."""
        return PHASE_NAMES[self.phase_id]

    @property
    def bidder(self) -> int:
        """The seat on the dealer's right, who bids and makes play 1 (R12, R13)."""
        return (self.dealer + 1) & 3

    @property
    def to_move(self) -> int | None:
        """The seat to move, ``None`` when the deal is over (R19: ``(dealer + 1 + plays) % 4``)."""
        if self.phase_id == PHASE_OVER:
            return None
        return (self.dealer + 1 + self.plays) & 3

    def is_over(self) -> bool:
        """True after play 48."""
        return self.phase_id == PHASE_OVER

    def houses(self) -> list[tuple[int, int, bool, int]]:
        """The houses as ``(value, cards mask, cemented, owner seat mask)``, by value."""
        return [
            (v, self.hcards[v], self.hcem[v], self.howners[v])
            for v in _HOUSE_VALUES
            if self.hpresent >> v & 1
        ]

    def owned_values(self, seat: int) -> int:
        """Bitmask (bit v) of the values of the houses ``seat`` owns."""
        own = 0
        sb = 1 << seat
        for v in _HOUSE_VALUES:
            if self.hpresent >> v & 1 and self.howners[v] & sb:
                own |= 1 << v
        return own

    # --- legal moves ----------------------------------------------------------------------

    def legal_codes(self) -> list[int]:
        """All legal moves of the seat to move, as move codes, each once (docs/rules.md §7)."""
        phase = self.phase_id
        if phase == PHASE_PLAY:
            return self._play_moves()
        if phase == PHASE_BID:
            return self._bid_moves()
        return []

    def _bid_moves(self) -> list[int]:
        """R13/R14: bid a value 9..13 held in hand; redeal only without a card above 8."""
        hand = self.hands[self.bidder]
        codes = [BID << SH_ACTION | v << SH_VALUE for v in _HOUSE_VALUES if hand & VALUE_MASK[v]]
        return codes or [REDEAL << SH_ACTION]

    def _play_moves(self) -> list[int]:
        """Card plays (R20-R31, docs/rules.md §7).

        The uses of a card depend only on its value, so they are found per value and then
        stamped with each card of that value. Rather than asking every value what it can do,
        the generator walks the targets: for a house value V and a loose sum t, the value
        V - t is the card that builds or cements V with a t-group.
        """
        rules = self.rules
        plays = self.plays
        p = (self.dealer + 1 + plays) & 3
        hand = self.hands[p]
        loose = self.loose
        hpresent = self.hpresent
        opening = plays == 0
        bid = self.bid

        # Values held (bit v), and held at least twice (bit v of ht >> 16).
        ht = (
            _HELD_1_2[hand & 255]
            | _HELD_3_4[hand >> 8 & 255]
            | _HELD_5_6[hand >> 16 & 255]
            | _HELD_7_8[hand >> 24 & 255]
            | _HELD_9_10[hand >> 32 & 255]
            | _HELD_11_12[hand >> 40 & 255]
            | _HELD_13[hand >> 48]
        )
        held = ht & 0xFFFF
        twice = ht >> 16
        subsets, avail = floor_index(loose)
        # uses[v]: the move codes (without the card) a card of value v can make.
        uses: dict[int, list[int]] = {}
        dup = 0  # values whose uses may repeat (absorbed groups, R31)

        # Retention (R21d): the mover's own houses. A card whose value is an owned house and
        # which is his last of that value is "fragile": it may only capture that house.
        # R21d binds the mover's own hand under every option (A14 only widens the permission
        # to join an opponent's house); a house whose duty is already unmet (an owner who
        # joined on his partner's card under add_retention "team") blocks nothing.
        own = 0
        fragile = 0
        if hpresent:
            howners = self.howners
            me = 1 << p
            hp = hpresent
            while hp:
                low = hp & -hp
                hp ^= low
                if howners[low.bit_length() - 1] & me:
                    own |= low
            fragile = own & ~twice & held
        free = held & ~fragile  # values that may build, cement or break

        if opening:
            # R16: play 1 only captures or throws with the bid value, or builds the bid value.
            cap_vals = held & (avail | hpresent) & (1 << bid)
        elif rules.house_in_sums and hpresent:
            cap_vals = held & _SUM_BITS  # R21g / A10: every value may find a house in a sum
        else:
            cap_vals = held & (avail | hpresent)

        # CAPTURE (R23-R26): H_v and disjoint v-groups; maximal by default (R25).
        if cap_vals:
            capture_mode = _MAXIMAL_UNIONS if rules.capture_rule == "maximal" else _ALL_UNIONS
            house_in_sums = rules.house_in_sums
            cv = cap_vals
            while cv:
                low = cv & -cv
                cv ^= low
                v = low.bit_length() - 1
                groups = subsets[v]
                if hpresent & low or (house_in_sums and hpresent):
                    extra: list[int] = []
                    if hpresent & low:
                        extra.append(_HOUSE_ITEM[v])
                    if house_in_sums:
                        # R21g / A10: a house may be one item of a sum (only one fits: 9+9 > 13).
                        for w in _HOUSE_VALUES:
                            if w < v and hpresent >> w & 1:
                                extra.extend(_HOUSE_ITEM[w] | s for s in subsets[v - w])
                    groups = (*extra, *groups)
                    if not groups:
                        cap_vals ^= low
                        continue
                tag = _CAPTURE_TAGS[v]
                if len(groups) == 1:
                    if not fragile & low or groups[0] & _HOUSE_ITEM[v]:
                        uses[v] = [tag | groups[0]]
                    continue
                unions = group_unions(groups, capture_mode)
                if fragile & low:
                    # R21d: his last card of an owned house's value must take that house.
                    item = _HOUSE_ITEM[v]
                    found = [tag | u for u in unions if u & item]
                else:
                    found = [tag | u for u in unions if u]
                if found:
                    uses[v] = found

        absorb = rules.absorb_loose_groups
        absorb_never = absorb == "never"
        absorb_mode = _MAXIMAL_UNIONS if absorb == "mandatory" else _ALL_UNIONS

        # BUILD (R27): a new ordinary house of V = v + sum(S), S non-empty, for a value V the
        # builder keeps (V > v, so a V stays in hand); loose V cards merge (R21f(a)); further
        # V-groups may join (R31). max_houses (A22); R16 at the opening.
        max_houses = rules.max_houses
        if free and (max_houses is None or hpresent.bit_count() < max_houses):
            build_vals = held & ~hpresent & _HOUSE_BITS
            if opening:
                build_vals &= 1 << bid
            while build_vals:
                lowV = build_vals & -build_vals
                build_vals ^= lowV
                V = lowV.bit_length() - 1
                singles = loose & VALUE_MASK[V]
                tag = _BUILD_TAGS[V]
                v_groups = () if absorb_never else subsets[V]
                # The sums t whose card value V - t is held and free (see _REVERSED_SUMS).
                ts = avail & (_REVERSED_SUMS[free] << V) >> 13
                while ts:
                    lowt = ts & -ts
                    ts ^= lowt
                    t = lowt.bit_length() - 1
                    v = V - t
                    out = uses.get(v)
                    if out is None:
                        out = uses[v] = []
                    for s in subsets[t]:
                        base = tag | s | singles
                        if v_groups:
                            taken = s | singles
                            g = tuple([x for x in v_groups if not x & taken])
                            if g:
                                dup |= 1 << v
                                out += [base | a for a in group_unions(g, absorb_mode)]
                                continue
                        out.append(base)
            if rules.allow_pair_build:
                # A12: V onto a loose V, keeping another V, is a cemented build.
                pairs = free & twice & ~hpresent & _HOUSE_BITS
                if opening:
                    pairs &= 1 << bid
                while pairs:
                    low = pairs & -pairs
                    pairs ^= low
                    v = low.bit_length() - 1
                    singles = loose & VALUE_MASK[v]
                    if not singles:
                        continue
                    base = _BUILD_TAGS[v] | singles
                    g = () if absorb_never else tuple([x for x in subsets[v] if not x & singles])
                    out = uses.setdefault(v, [])
                    if g:
                        dup |= low
                        out += [base | a for a in group_unions(g, absorb_mode)]
                    else:
                        out.append(base)

        if hpresent and free and not opening:
            hcem = self.hcem
            partner = _PARTNER_SEATS[p]
            partner_held = 0
            if rules.add_retention == "team":
                ph = self.hands[p ^ 2]
                for V in _HOUSE_VALUES:
                    if ph & VALUE_MASK[V]:
                        partner_held |= 1 << V
            avail0 = avail | 1  # a cement's loose set may be empty when the card is worth V
            hp = hpresent
            while hp:
                lowV = hp & -hp
                hp ^= lowV
                V = lowV.bit_length() - 1
                owners = howners[V]
                # CEMENT / ADD (R28): a new set {card} + S for the house of value V. Who may:
                if owners & me:
                    may = _keeps(free, held, twice, lowV)  # the owner's duty (R21d, R28)
                elif owners & partner:
                    # R33 / A13: the partner's house is free (option partner_cement_free).
                    if rules.partner_cement_free or hcem[V]:
                        may = free
                    else:
                        may = _keeps(free, held, twice, lowV)
                elif partner_held & lowV:
                    may = free  # A14: the partner's card lets him join an opponent's house
                else:
                    may = _keeps(free, held, twice, lowV)  # R28: he keeps a card of value V
                tag = _CEMENT_TAGS[V]
                v_groups = () if absorb_never else subsets[V]
                ts = avail0 & (_REVERSED_SUMS[may] << V) >> 13
                while ts:
                    lowt = ts & -ts
                    ts ^= lowt
                    t = lowt.bit_length() - 1
                    v = V - t
                    out = uses.get(v)
                    if out is None:
                        out = uses[v] = []
                    for s in subsets[t] if t else _ZERO_ONLY:
                        if v_groups:
                            g = tuple([x for x in v_groups if not x & s])
                            if g:
                                dup |= 1 << v
                                out += [tag | s | a for a in group_unions(g, absorb_mode)]
                                continue
                        out.append(tag | s)

                # BREAK (R29): another player's ordinary house raised by one card A-4 to V2;
                # the breaker keeps a V2; it merges with H_V2 (R30) and loose V2 cards.
                if owners & me or hcem[V] or V > 12:
                    continue
                for v in (1, 2, 3, 4):
                    V2 = V + v
                    if V2 > 13:
                        break
                    if not free >> v & 1 or not held >> V2 & 1:
                        continue
                    singles = loose & VALUE_MASK[V2]
                    tag = _BREAK_TAG | V2 << SH_VALUE | V << SH_HOUSE | singles
                    g = () if absorb_never else tuple([x for x in subsets[V2] if not x & singles])
                    out = uses.get(v)
                    if out is None:
                        out = uses[v] = []
                    if g:
                        dup |= 1 << v
                        out += [tag | a for a in group_unions(g, absorb_mode)]
                    else:
                        out.append(tag)

        # THROW (R22; option throw_rule; opening R16.3): never a card of a house's value
        # (R21f(b)); by default only a card that cannot capture.
        throw_rule = rules.throw_rule
        throw_vals = held & ~hpresent
        if throw_rule == "no_capture_possible":
            throw_vals &= ~cap_vals
        if opening:
            throw_vals &= 1 << bid
        result: list[int] = []
        if throw_rule == "no_other_move":
            if uses:
                throw_vals = 0
            # else: nothing but throws is possible, and every card without a house may go
        elif uses:
            for v, out in uses.items():
                if throw_vals >> v & 1:
                    out.append(_THROW_TAG)
                    throw_vals ^= 1 << v
        # Cards whose only use is a throw.
        while throw_vals:
            low = throw_vals & -throw_vals
            throw_vals ^= low
            v = low.bit_length() - 1
            result += _THROW_CODES[v][hand >> (4 * v - 4) & 15]

        # Stamp each value's uses with each card of that value.
        for v, out in uses.items():
            fields = _CARD_FIELDS[v][hand >> (4 * v - 4) & 15]
            if len(out) == 1:
                if len(fields) == 1:
                    result.append(out[0] | fields[0])
                else:
                    code = out[0]
                    result += [code | cb for cb in fields]
                continue
            if dup >> v & 1:
                out = list(dict.fromkeys(out))
            for cb in fields:
                result += [code | cb for code in out]
        return result

    # --- checking one move without listing all ----------------------------------------------

    def is_legal(self, code: int) -> bool:
        """Whether one move is legal, decided from the rules directly, without listing every
        legal move (a huge floor can have astronomically many). Agrees with
        :meth:`legal_codes` on every code (the test-suite checks both ways)."""
        phase = self.phase_id
        action = code >> SH_ACTION & 7
        if phase == PHASE_OVER or code >> (SH_HOUSE + 4):
            return False
        if phase == PHASE_BID:
            hand = self.hands[self.bidder]
            if action == BID:
                v = code >> SH_VALUE & 15
                return (
                    code == make_code(BID, value=v) and 9 <= v <= 13 and bool(hand & VALUE_MASK[v])
                )
            return code == make_code(REDEAL) and not hand & _VALUES_CARDS[_HOUSE_BITS]
        if action > BREAK:
            return False
        p = (self.dealer + 1 + self.plays) & 3
        hand = self.hands[p]
        card = code >> SH_CARD & 63
        if card > 51 or not hand >> card & 1:
            return False
        v = _VAL[card]
        moved = code & LOOSE_BITS
        hb = code >> SH_HOUSES & 31
        V = code >> SH_VALUE & 15
        H = code >> SH_HOUSE & 15
        loose = self.loose
        if moved & ~loose:
            return False
        rules = self.rules
        opening = self.plays == 0
        bid = self.bid
        hpresent = self.hpresent
        rest = hand & ~(1 << card)
        own = self.owned_values(p)
        # R21d: the last card of an owned house's value may only capture that house.
        if own >> v & 1 and not rest & VALUE_MASK[v]:
            if action != CAPTURE or not hb >> (v - 9) & 1:
                return False

        if action == THROW:
            if moved or hb or V or H or hpresent >> v & 1:
                return False  # R21f(b): never a card of a house's value
            if opening and v != bid:
                return False  # R16
            if rules.throw_rule == "always":
                return True
            if rules.throw_rule == "no_capture_possible":
                return not self._can_capture(v, loose)
            return not self._has_non_throw_move()  # "no_other_move"

        if action == CAPTURE:
            if v != V or H or not (moved or hb) or (opening and v != bid):
                return False
            items = [_VAL[c] for c in _cards(moved)]
            for i in range(5):
                if hb >> i & 1:
                    w = 9 + i
                    if not hpresent >> w & 1 or (w != v and not rules.house_in_sums):
                        return False  # R21g
                    items.append(w)
            if not _splits_exactly(items, [v] * (sum(items) // v)) or sum(items) % v:
                return False  # disjoint v-groups (R23, R24)
            if rules.capture_rule == "maximal":
                if hpresent >> v & 1 and not hb >> (v - 9) & 1:
                    return False  # R25: H_v must be taken
                left_houses = hpresent & ~(hb << 9)
                if self._can_capture(v, loose & ~moved, left_houses):
                    return False  # R25: a v-group would remain
            return True

        if hb or V < 9 or V > 13:
            return False
        if action == BUILD:
            if H or hpresent >> V & 1 or (opening and bid != V):
                return False
            if rules.max_houses is not None and hpresent.bit_count() >= rules.max_houses:
                return False  # A22
            if not rest & VALUE_MASK[V]:
                return False  # R27: the builder keeps a card of the new value
            singles = loose & VALUE_MASK[V]
            if singles & ~moved:
                return False  # R21f(a): loose V cards merge
            if v == V:  # A12
                if not rules.allow_pair_build or not singles:
                    return False
                first = 0
            elif v < V:
                first = V - v
            else:
                return False
            return self._sets_fit(moved & ~singles, first, V, loose & ~moved)

        if opening:
            return False  # R16: play 1 builds, captures or throws
        if action == CEMENT:
            if H or not hpresent >> V & 1 or v > V:
                return False
            owners = self.howners[V]
            keeps = bool(rest & VALUE_MASK[V])
            if owners >> p & 1:
                if not keeps:
                    return False  # R28: the owner's duty
            elif owners & _PARTNER_SEATS[p]:
                if not (rules.partner_cement_free or self.hcem[V] or keeps):
                    return False  # A13
            elif not keeps and not (
                rules.add_retention == "team" and self.hands[p ^ 2] & VALUE_MASK[V]
            ):
                return False  # R28 / A14: an opponent's house needs its value
            return self._sets_fit(moved, V - v, V, loose & ~moved)

        # BREAK (R29)
        if not hpresent >> H & 1 or self.hcem[H] or self.howners[H] >> p & 1 or H + v != V:
            return False
        if not rest & VALUE_MASK[V]:
            return False
        singles = loose & VALUE_MASK[V]
        if singles & ~moved:
            return False
        return self._sets_fit(moved & ~singles, 0, V, loose & ~moved)

    def _sets_fit(self, cards: int, first: int, V: int, remaining: int) -> bool:
        """``cards`` split into one set worth ``first`` (none when 0) and whole V-groups, as the
        absorption option allows (R31); "mandatory" also leaves no V-group in ``remaining``."""
        values = [_VAL[c] for c in _cards(cards)]
        total = sum(values)
        if total < first or (total - first) % V:
            return False
        k = (total - first) // V
        absorb = self.rules.absorb_loose_groups
        if k and absorb == "never":
            return False
        if absorb == "mandatory" and _subset_sums(remaining) >> V & 1:
            return False
        return _splits_exactly(values, ([first] if first else []) + [V] * k)

    def _can_capture(self, v: int, loose: int, houses: int | None = None) -> bool:
        """Whether a card of value v finds H_v or a v-group (with ``house_in_sums``, also a
        house plus loose cards) among ``loose`` and the houses of bitmask ``houses``."""
        if houses is None:
            houses = self.hpresent
        if houses >> v & 1:
            return True
        sums = _subset_sums(loose)
        if sums >> v & 1:
            return True
        if self.rules.house_in_sums:
            for w in _HOUSE_VALUES:
                if w < v and houses >> w & 1 and sums >> (v - w) & 1:
                    return True
        return False

    def _has_non_throw_move(self) -> bool:
        """Whether the mover has any legal capture, build, cement or break (``no_other_move``)."""
        saved = self.rules
        try:
            # With throws allowed freely, every other use is found exactly as usual; the moves
            # are few whenever this matters (a throw is only legal when they are none).
            self.rules = saved.with_options(throw_rule="always")
            return any(code >> SH_ACTION & 7 != THROW for code in self._play_moves())
        finally:
            self.rules = saved

    # --- checked moves ---------------------------------------------------------------------
    def legal_moves(self) -> list[Move]:
        """All legal moves of the seat to move, as :class:`~seep.moves.Move` objects."""
        from .moves import Move

        return [Move(c) for c in self.legal_codes()]

    def can_move(self, move: int) -> bool:
        """True when ``move`` (a :class:`~seep.moves.Move` or code) is legal here."""
        return self.is_legal(move)

    def verify_move(self, move: int) -> None:
        """Raise :class:`IllegalMoveError` saying why, unless ``move`` is legal here."""
        from .verify import verify_move

        verify_move(self, move)

    def play(self, move: int | dict[str, Any] | str) -> dict[str, Any]:
        """Check and make a move given as a code, a docs/format.md dict or notation text.

        Returns the record of the move for a game log: the docs/format.md move with ``"seat"``.
        Raises :class:`IllegalMoveError` (the reason in its message) and leaves the position
        unchanged when the move is not legal.
        """
        from .moves import Move
        from .notation import parse_move
        from .verify import verify_move

        if isinstance(move, dict):
            code: int = Move.from_dict(move)
        elif isinstance(move, str):
            code = parse_move(move)
        else:
            code = move
        verify_move(self, code)
        record = Move(code).to_dict()
        seat = self.to_move
        self.push(code)
        record["seat"] = seat
        return record

    # --- making moves ---------------------------------------------------------------------

    def push(self, code: int) -> None:
        """Make a move given by its code, recording it for :meth:`pop`. The code must be
        legal (see :meth:`legal_codes`); :meth:`play` checks untrusted input."""
        # The lists of a position are never changed in place once shared (copy on write), so
        # the undo record holds references, not copies.
        self._stack.append(
            (
                self.hands,
                self.loose,
                self.hcards,
                self.hcem,
                self.howners,
                self.hpresent,
                self.captured,
                self.sweeps,
                self.last_capture,
                self.plays,
                self.phase_id,
                self.bid,
                self.stock,
            )
        )
        self.advance(code)

    def advance(self, code: int) -> None:
        """Make a move without recording it for :meth:`pop` (playouts that never go back)."""
        action = code >> SH_ACTION & 7
        if action == BID:
            self.bid = code >> SH_VALUE & 15
            self.phase_id = PHASE_PLAY  # R15: the floor is turned face up
            return
        if action == REDEAL:
            self._redeal()
            return
        p = (self.dealer + 1 + self.plays) & 3
        card = code >> SH_CARD & 63
        cbit = 1 << card
        hands = self.hands[:]
        hands[p] &= ~cbit
        self.hands = hands
        moved = code & LOOSE_BITS
        if action == THROW:
            self.loose |= cbit
        elif action == CAPTURE:
            team = p & 1
            taken = cbit | moved
            hb = code >> SH_HOUSES & 31
            if hb:
                hcards = self.hcards[:]
                howners = self.howners[:]
                hcem = self.hcem[:]
                for i in range(5):
                    if hb >> i & 1:
                        v = 9 + i
                        taken |= hcards[v]
                        hcards[v] = 0
                        howners[v] = 0
                        hcem[v] = False
                        self.hpresent &= ~(1 << v)
                self.hcards = hcards
                self.howners = howners
                self.hcem = hcem
            self.loose &= ~moved
            captured = self.captured[:]
            captured[team] |= taken
            self.captured = captured
            self.last_capture = team
            if not self.loose and not self.hpresent:
                # R37/R38: a sweep; 25 on play 1, 0 on play 48, 50 otherwise.
                n = self.plays + 1
                r = self.rules
                sweeps = self.sweeps[:]
                sweeps[team] += (
                    r.sweep_first if n == 1 else r.sweep_last if n == 48 else r.sweep_value
                )
                self.sweeps = sweeps
        else:
            V = code >> SH_VALUE & 15
            hcards = self.hcards[:]
            howners = self.howners[:]
            hcem = self.hcem[:]
            self.loose &= ~moved
            if action == BUILD:
                hcards[V] = cbit | moved
                # Cemented when the house holds more than one set (R21b): value sum > V.
                hcem[V] = _VAL[card] + _bits_value_sum(moved) > V
                howners[V] = 1 << p
                self.hpresent |= 1 << V
            elif action == CEMENT:
                hcards[V] |= cbit | moved
                hcem[V] = True
                owners = howners[V]
                if not owners & (1 << p) and not owners & _PARTNER_SEATS[p]:
                    howners[V] = owners | 1 << p  # R28: an opponent who adds becomes an owner
            else:  # BREAK (R29)
                H = code >> SH_HOUSE & 15
                cards = hcards[H] | cbit | moved
                hcards[H] = 0
                howners[H] = 0
                hcem[H] = False
                self.hpresent &= ~(1 << H)
                if self.hpresent >> V & 1:
                    # R30 / A15: merge with the existing house of the new value.
                    hcards[V] |= cards
                    howners[V] |= 1 << p
                    hcem[V] = True
                else:
                    hcards[V] = cards
                    howners[V] = 1 << p
                    hcem[V] = bool(moved)
                    self.hpresent |= 1 << V
            self.hcards = hcards
            self.howners = howners
            self.hcem = hcem
        self.plays += 1
        if self.plays == 1 and self.stock:
            self._deal_stock()
        elif self.plays == 48:
            self._finish_deal()

    def pop(self) -> None:
        """Take back the last move made with :meth:`push`."""
        (
            self.hands,
            self.loose,
            self.hcards,
            self.hcem,
            self.howners,
            self.hpresent,
            self.captured,
            self.sweeps,
            self.last_capture,
            self.plays,
            self.phase_id,
            self.bid,
            self.stock,
        ) = self._stack.pop()

    def _deal_stock(self) -> None:
        """R18 / docs/format.md: packets of four, round one to the bidder, bidder+1, bidder+2,
        dealer; round two the same; round three (if any) to bidder+1, bidder+2, dealer."""
        stock = self.stock
        b = self.bidder
        order = [b, b + 1, b + 2, b + 3, b, b + 1, b + 2, b + 3, b + 1, b + 2, b + 3]
        hands = self.hands[:]
        for i in range(len(stock) // 4):
            seat = order[i] & 3
            hands[seat] |= _mask(stock[4 * i : 4 * i + 4])
        self.hands = hands
        self.stock = ()

    def _finish_deal(self) -> None:
        """R40/R41: leftovers go to the team of the last capture (to nobody if none)."""
        if self.last_capture >= 0:
            left = self.loose
            if self.hpresent:  # none under the standard rules (R41); kept for safety
                for v in _HOUSE_VALUES:
                    if self.hpresent >> v & 1:
                        left |= self.hcards[v]
                self.hcards = [0] * 14
                self.howners = [0] * 14
                self.hcem = [False] * 14
                self.hpresent = 0
            captured = self.captured[:]
            captured[self.last_capture] |= left
            self.captured = captured
            self.loose = 0
        self.phase_id = PHASE_OVER

    def _redeal(self) -> None:
        """R14 / A6: same dealer, same bidder, a full reshuffle.

        The new order is ``random.Random(k).shuffle`` of the sorted pack, where ``k`` is the first
        8 bytes (big-endian) of SHA-256 over ``"redeal:"`` followed by the comma-joined names of
        the bidder's hand (sorted), the floor (sorted), the other hands (sorted, in seat order
        from the bidder's right; only with ``deal_before_bid``) and the stock in order. So a
        redeal is a pure function of the position and every engine can replay it.
        """
        names = [CARD_NAMES[c] for c in _cards(self.hands[self.bidder])]
        names += [CARD_NAMES[c] for c in _cards(self.loose)]
        for i in range(1, 4):
            names += [CARD_NAMES[c] for c in _cards(self.hands[(self.bidder + i) & 3])]
        names += [CARD_NAMES[c] for c in self.stock]
        digest = hashlib.sha256(("redeal:" + ",".join(names)).encode()).digest()
        deck = list(range(52))
        random.Random(int.from_bytes(digest[:8], "big")).shuffle(deck)
        self._lay_out(deck)

    # --- scoring and the match ------------------------------------------------------------

    def card_points(self) -> tuple[int, int]:
        """Card points of each team's pile (R5, option ``ten_diamonds_points``)."""
        tdp = self.rules.ten_diamonds_points
        return (mask_points(self.captured[0], tdp), mask_points(self.captured[1], tdp))

    def majority_bonus(self) -> tuple[int, int]:
        """Option ``majority_bonus``: to the team with more captured cards (26-26: nobody)."""
        bonus = self.rules.majority_bonus
        n0, n1 = self.captured[0].bit_count(), self.captured[1].bit_count()
        if not bonus or n0 == n1:
            return (0, 0)
        return (bonus, 0) if n0 > n1 else (0, bonus)

    def deal_scores(self) -> tuple[int, int]:
        """Each team's deal score: card points + bonus + sweeps (R42)."""
        pts = self.card_points()
        bon = self.majority_bonus()
        return (
            pts[0] + bon[0] + self.sweeps[0],
            pts[1] + bon[1] + self.sweeps[1],
        )

    def next_deal(self, seed: int) -> Position:
        """The next deal's bid-phase position, with the match updated (R44-R47, R9, R10).

        Raises :class:`IllegalMoveError` if this deal is not over.
        """
        if self.phase_id != PHASE_OVER:
            raise IllegalMoveError(
                f"the deal is not over ({self.plays} of 48 plays made): no next deal yet"
            )
        r = self.rules
        scores = self.deal_scores()
        if r.min_score_includes_sweeps:
            test = scores
        else:
            pts = self.card_points()
            bon = self.majority_bonus()
            test = (pts[0] + bon[0], pts[1] + bon[1])
        diff = self.match_diff
        baazis = list(self.match_baazis)
        winner = -1
        low = [t for t in (0, 1) if test[t] < r.min_score]
        if len(low) == 1 or (len(low) == 2 and test[0] != test[1]):
            # R46: a team under min_score loses the baazi at once (both under: the lower one).
            loser = low[0] if len(low) == 1 else (0 if test[0] < test[1] else 1)
            winner = 1 - loser
        elif not low:
            diff += scores[0] - scores[1]  # R45
            if abs(diff) >= r.baazi_lead:
                winner = 0 if diff > 0 else 1
        dealer = self.dealer
        dteam = dealer & 1
        if winner >= 0:
            baazis[winner] += 1
            diff = 0
        if r.dealer_rule == "rotate":
            new_dealer = (dealer + 1) & 3
        elif winner >= 0:
            # R10: the would-be dealer by R9 (the winner counts as ahead), then his partner.
            would_be = (dealer + 1) & 3 if winner == dteam else dealer
            new_dealer = (would_be + 2) & 3
        else:
            # R9: the dealer's team ahead -> the deal passes right; behind or level -> same.
            lead = diff if dteam == 0 else -diff
            new_dealer = (dealer + 1) & 3 if lead > 0 else dealer
        return Position.new_deal(
            seed,
            new_dealer,
            r,
            match=(diff, (baazis[0], baazis[1]), self.match_deals + 1),
        )

    # --- docs/format.md ------------------------------------------------------------------------

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Position:
        """Read and validate a docs/format.md position (raises :class:`InvalidPositionError`)."""
        from .format import position_from_dict

        return position_from_dict(data)

    def to_dict(self) -> dict[str, Any]:
        """The docs/format.md position (every rules key written)."""
        houses = [
            {
                "value": v,
                "cards": card_list(self.hcards[v]),
                "cemented": self.hcem[v],
                "owners": _seat_bits(self.howners[v]),
            }
            for v in _HOUSE_VALUES
            if self.hpresent >> v & 1
        ]
        return {
            "format": "seep/1",
            "rules": self.rules.to_dict(),
            "dealer": self.dealer,
            "phase": PHASE_NAMES[self.phase_id],
            "bid": self.bid if self.bid else None,
            "plays": self.plays,
            "to_move": self.to_move,
            "hands": [card_list(h) for h in self.hands],
            "stock": [CARD_NAMES[c] for c in self.stock],
            "loose": card_list(self.loose),
            "houses": houses,
            "captured": [card_list(self.captured[0]), card_list(self.captured[1])],
            "sweeps": list(self.sweeps),
            "last_capture": None if self.last_capture < 0 else self.last_capture,
            "match": {
                "diff": self.match_diff,
                "baazis": list(self.match_baazis),
                "deals": self.match_deals,
            },
        }

    def __repr__(self) -> str:
        return f"<Position {self.phase} plays={self.plays} to_move={self.to_move}>"


def _mask(cards: Any) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def perft(pos: Position, depth: int) -> int:
    """Leaf nodes of the move tree of ``pos`` to ``depth`` plies (a finished deal is a leaf);
    the classic check of a move generator against stored counts (tests/data/perft.json).

    >>> perft(Position.new_deal(1), 3)
    128
    """
    if depth == 0 or pos.phase_id == PHASE_OVER:
        return 1
    moves = pos.legal_codes()
    if depth == 1:
        return len(moves)
    n = 0
    for m in moves:
        pos.push(m)
        n += perft(pos, depth - 1)
        pos.pop()
    return n


def _subset_sums(mask: int) -> int:
    """Bit t set when some subset of the cards of ``mask`` sums to t (0..13)."""
    reach = 1
    while mask:
        low = mask & -mask
        mask ^= low
        reach |= (reach << _VAL[low.bit_length() - 1]) & 0x3FFF
    return reach


def _splits_exactly(values: list[int], bins: list[int]) -> bool:
    """Whether ``values`` can be split into groups whose sums are exactly ``bins``."""
    if sum(values) != sum(bins):
        return False
    values = sorted(values, reverse=True)
    space = sorted(bins, reverse=True)

    def place(i: int) -> bool:
        if i == len(values):
            return True
        x = values[i]
        tried: set[int] = set()
        for b, room in enumerate(space):
            if room < x or room in tried:
                continue
            tried.add(room)
            space[b] = room - x
            if place(i + 1):
                return True
            space[b] = room
        return False

    return place(0)


def _cards(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out
