"""The Seep rules engine: the position of a deal, its legal moves, making and taking back moves.

Everything here works on ints: a card is ``0..51`` and a card set a 52-bit mask
(:mod:`seep.cards`); a house is three small ints (its cards, a cemented flag, a 4-bit mask of
owner seats) stored by value in lists indexed ``0..13``; a move is one packed int, its *code*
(:mod:`seep.codes`). The floor arithmetic (subset sums, groups, splits) is :mod:`seep.floor`;
what the mover may do with each card value, which the generator and the counter both read, is
:mod:`seep.mover`; whether one move is legal, and which rule it breaks if not, is
:mod:`seep.verify`; scoring and the match counters are :mod:`seep.scoring`. The legal moves of
a position as one object (iterate, ``in``, counts, one card's, why a card is dead) are
:class:`LegalMoves`, ``pos.legal``.

Rules are cited by their numbers in docs/rules.md (docs/rules.md).

>>> pos = Position.new_deal(seed=7)
>>> pos.phase, pos.to_move, len(pos.legal_codes()) >= 1
('bid', 1, True)
"""

from __future__ import annotations

import _random
import hashlib
import random
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Final, NamedTuple, cast

from . import scoring
from .baazi import settle
from .cards import (
    CARD_NAMES,
    VALUE,
    VALUE_MASK,
    card_list,
    cards_of_mask,
    format_cards,
    mask_of,
    mask_value_sum,
    seat_names,
    seat_to_move,
    team_names,
)
from .codes import (
    BID,
    BREAK,
    BUILD,
    CAPTURE,
    CEMENT,
    HOUSE_CODE_BIT,
    LOOSE_BITS,
    PHASE_BID,
    PHASE_NAMES,
    PHASE_OVER,
    PHASE_PLAY,
    REDEAL,
    SH_ACTION,
    SH_CARD,
    SH_HOUSE,
    SH_HOUSES,
    SH_VALUE,
    THROW,
)
from .counting import card_codes, count_by_card
from .errors import IllegalMoveError, InvalidPositionError
from .floor import floor_index, group_unions, split_cards
from .mover import PARTNER_SEATS as _PARTNER_SEATS
from .mover import Options, mover_facts, options_of, throws_left
from .moves import Move, MoveRecord, parse_move
from .options import STANDARD, Rules
from .verify import Refusal, check, verify_move

# The move-code and phase names live in seep.codes alone: import them from there.
__all__ = [
    "LegalMoves",
    "Position",
    "Undo",
    "UndoTuple",
    "house_text",
    "perft",
    "random_below",
    "table_text",
]

# --- precomputed tables -------------------------------------------------------------------

_VAL: Final = VALUE
# A house as a capture item (its code bit), also one item of a sum under house_in_sums (A10).
_HOUSE_ITEM: Final = HOUSE_CODE_BIT
_HOUSE_VALUES: Final = (9, 10, 11, 12, 13)
_SUM_BITS: Final = ((1 << 14) - 1) & ~1  # sums 1..13
# _REVERSED_SUMS[m]: bit 13 - t for every bit t (0..13) of m.
_REVERSED_SUMS: Final[tuple[int, ...]] = tuple(
    sum(1 << (13 - t) for t in range(14) if m >> t & 1) for m in range(1 << 14)
)
# The fields of a code shifted down by SH_HOUSES (Position.advance).
_TOP_CARD: Final = SH_CARD - SH_HOUSES
_TOP_ACTION: Final = SH_ACTION - SH_HOUSES
_TOP_VALUE: Final = SH_VALUE - SH_HOUSES
_TOP_HOUSE: Final = SH_HOUSE - SH_HOUSES
_BREAK_TAG: Final = BREAK << SH_ACTION
_THROW_TAG: Final = THROW << SH_ACTION

# _CARD_FIELDS[v][nib]: the card fields (card << SH_CARD) of the cards of value v whose suits
# are the bits of nib; _THROW_CODES[v][nib]: their throws.
_CARD_FIELDS: Final[tuple[tuple[tuple[int, ...], ...], ...]] = tuple(
    tuple(tuple((4 * v - 4 + s) << SH_CARD for s in range(4) if nib >> s & 1) for nib in range(16))
    if v
    else ((),) * 16
    for v in range(14)
)
# _CARDS_OF[v][nib]: those cards themselves.
_CARDS_OF: Final[tuple[tuple[tuple[int, ...], ...], ...]] = tuple(
    tuple(tuple(4 * v - 4 + s for s in range(4) if nib >> s & 1) for nib in range(16))
    if v
    else ((),) * 16
    for v in range(14)
)
_THROW_CODES: Final[tuple[tuple[tuple[int, ...], ...], ...]] = tuple(
    tuple(tuple(_THROW_TAG | f for f in fields) for fields in by_nib) for by_nib in _CARD_FIELDS
)
# _FIRST_FIELD[v][nib]: the card field of the first (lowest) card of value v whose suit is a bit
# of nib, 0 for no card. A value's uses are made with its first card already in them: a code is
# a long integer, and each operation on one makes a new object, so stamping the card afterwards
# would cost one more operation per move. The other cards of the value (held twice or more) get
# each use once more with the card changed by one exclusive or, with _OTHER_DELTAS[v][nib]: the
# first card's field ^ each other card's field, in card order.
_FIRST_FIELD: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(fields[0] if fields else 0 for fields in by_nib) for by_nib in _CARD_FIELDS
)
# _THROW_ONE[v][nib]: the throw of a single card of value v (nib one bit); _FIRST_OBJ is
# _FIRST_FIELD. Both typed as objects: compiled, an int read from a tuple is unboxed (a long
# integer's size is checked every time) and boxed again when a list takes it; these are only
# ever appended.
_THROW_ONE: Final[tuple[tuple[object, ...], ...]] = tuple(
    tuple(codes[0] if len(codes) == 1 else None for codes in by_nib) for by_nib in _THROW_CODES
)
_FIRST_OBJ: Final[tuple[tuple[object, ...], ...]] = _FIRST_FIELD
_OTHER_DELTAS: Final[tuple[tuple[tuple[int, ...], ...], ...]] = tuple(
    tuple(tuple(fields[0] ^ f for f in fields[1:]) for fields in by_nib) for by_nib in _CARD_FIELDS
)
_CAPTURE_TAGS: Final = tuple(CAPTURE << SH_ACTION | v << SH_VALUE for v in range(14))
_BUILD_TAGS: Final = tuple(BUILD << SH_ACTION | v << SH_VALUE for v in range(14))
_CEMENT_TAGS: Final = tuple(CEMENT << SH_ACTION | v << SH_VALUE for v in range(14))


def _tags_with_card(tag: int) -> tuple[tuple[int, ...], ...]:
    """``tag`` with :data:`_FIRST_FIELD` of each card value ``v`` and suits ``nib`` in it."""
    return tuple(tuple(tag | first for first in by_nib) for by_nib in _FIRST_FIELD)


# _CAPTURE_ONE[v][nib]: the capture tag of value v with the mover's first card of v (nib) in it;
# _BUILD_ONE[V][v][nib] and _CEMENT_ONE[V][v][nib] the same for a house of V made with a card of
# value v, and _BREAK_ONE[V][v][nib] for a house of V (9..12) raised by a card of value v (1..4)
# to V + v: the tag and the card in one object, made once.
_CAPTURE_ONE: Final = tuple(_tags_with_card(t)[v] for v, t in enumerate(_CAPTURE_TAGS))
_BUILD_ONE: Final = tuple(_tags_with_card(t) for t in _BUILD_TAGS)
_CEMENT_ONE: Final = tuple(_tags_with_card(t) for t in _CEMENT_TAGS)
_BREAK_ONE: Final = tuple(
    tuple(
        _tags_with_card(_BREAK_TAG | min(V + v, 15) << SH_VALUE | V << SH_HOUSE)[v]
        for v in range(5)
    )
    for V in range(14)
)


_ZERO_ONLY: Final[tuple[int, ...]] = (0,)
# _NIB_CARDS[nib]: the cards of one value a hand holds, its suits the bits of nib.
_NIB_CARDS: Final = tuple(nib.bit_count() for nib in range(16))
# The options legal_codes used last (most programs play under one Rules), looked at before
# the call to options_of: a call is a fair part of a generation in pure Python.
_LAST_OPTIONS: Final = [options_of(STANDARD)]


def _shuffle_here(seed: int) -> list[int]:
    """``random.Random(seed).shuffle`` of the sorted pack, written out as CPython's
    ``Random.shuffle`` does it (from the top down, each index drawn by ``getrandbits`` with
    rejection, as ``Random._randbelow``): compiled, without a Python call per card. The
    generator is ``random.Random``'s C base, which an int seed seeds the same way without
    ``Random``'s two interpreted methods."""
    deck = list(range(52))
    getrandbits = _random.Random(seed).getrandbits
    for i in range(51, 0, -1):
        n = i + 1
        k = n.bit_length()
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def _shuffle_stdlib(seed: int) -> list[int]:
    deck = list(range(52))
    random.Random(seed).shuffle(deck)
    return deck


# Checked once against the standard library, so that another Python's shuffle can never give
# other deals (every seed must deal the same cards everywhere).
_SHUFFLE_HERE: Final = all(
    _shuffle_here(s) == _shuffle_stdlib(s) for s in (0, 1, 7, -7, 1 << 40, (1 << 64) + 3)
)


def _shuffled_pack(seed: int) -> list[int]:
    """The sorted pack (cards 0..51) after ``random.Random(seed).shuffle``.

    >>> deck = list(range(52))
    >>> random.Random(2026).shuffle(deck)
    >>> _shuffled_pack(2026) == deck == _shuffle_here(2026)
    True
    """
    return _shuffle_here(seed) if _SHUFFLE_HERE else _shuffle_stdlib(seed)


# random.Random's own getrandbits, called with the source as its first argument: the same
# C function as ``rng.getrandbits``, without making a bound method at every draw.
_GETRANDBITS: Final = random.Random.getrandbits
_RANDOM: Final = random.Random


def random_below(rng: random.Random, n: int) -> int:
    """``rng.randrange(n)``, the same draw from the same random source (CPython's
    ``Random._randbelow``: ``getrandbits`` of ``n``'s bit count until below ``n``), without
    its Python-level calls. ``n`` >= 1."""
    k = n.bit_length()
    if type(rng) is _RANDOM:
        getrandbits = _GETRANDBITS
        r: int = getrandbits(rng, k)
        while r >= n:
            r = getrandbits(rng, k)
        return r
    # A subclass may draw its bits another way (SystemRandom): through its own method.
    bits = rng.getrandbits
    r = bits(k)
    while r >= n:
        r = bits(k)
    return r


def _first_of_each(codes: list[int]) -> list[int]:
    """The codes without repeats, each where it first occurs."""
    seen: set[int] = set()
    unique: list[int] = []
    for code in codes:
        if code not in seen:
            seen.add(code)
            unique.append(code)
    return unique


def _drawn_code(
    rng: random.Random,
    hand: int,
    uses: list[list[int] | None],
    order: int,
    thrown: int,
    with_uses: int,
    dup: int,
) -> int:
    """The code at the index drawn from ``rng`` in the list :meth:`Position._play_codes`
    assembles from these parts (its ``hand``, ``uses``, ``order``, ``with_uses`` and ``dup``;
    ``thrown``: the cards thrown and nothing else): the throw-only cards first (by value, then
    suit: in card order), then each value of ``order`` with its uses and its throw, once per
    card held. Only the drawn code is made."""
    first = 0  # the throw-only cards (int.bit_count, compiled, is a generic method call)
    m = thrown
    while m:
        m &= m - 1
        first += 1
    total = first
    top = (order.bit_length() + 3) & ~3
    k = top
    while k:
        k -= 4
        v = order >> k & 15
        out = uses[v]
        assert out is not None
        if dup >> v & 1 and len(out) > 1:
            out = uses[v] = _first_of_each(out)
        n = len(out) + (with_uses >> v & 1)  # the throw, last (not made)
        total += n * _NIB_CARDS[hand >> (4 * v - 4) & 15]
    if not total:
        raise IndexError("no legal move to choose from")  # random_below(rng, 0) never ends
    r = random_below(rng, total)
    if r < first:
        while r:
            thrown &= thrown - 1
            r -= 1
        return ((thrown & -thrown).bit_length() - 1) << SH_CARD  # a throw: its card alone
    r -= first
    # The same walk over the values again, now to find the index's value: keeping each
    # value's part from the counting pass in a list cost more (0.12 M instructions a step of
    # SeepVectorEnv's 64 games, docs/research.md "Fifth round") than working it out again.
    k = top
    while k:
        k -= 4
        v = order >> k & 15
        out = uses[v]
        assert out is not None
        nib = hand >> (4 * v - 4) & 15
        n = len(out) + (with_uses >> v & 1)
        size = n * _NIB_CARDS[nib]
        if r < size:
            j = r // n
            r -= j * n
            if r == len(out):
                return _CARD_FIELDS[v][nib][j]  # the value's throw, by its j-th card
            # Another card of the value: the use with the card changed (see _OTHER_DELTAS).
            return out[r] if j == 0 else out[r] ^ _OTHER_DELTAS[v][nib][j - 1]
        r -= size
    raise AssertionError("the index drawn is beyond the legal moves")


def _seat_bits(mask: int) -> list[int]:
    return [s for s in range(4) if mask >> s & 1]


def _check_dealer(dealer: object, rules: Rules) -> None:
    if not isinstance(dealer, int) or isinstance(dealer, bool) or not 0 <= dealer < rules.players:
        raise InvalidPositionError(f"dealer must be a seat 0..{rules.players - 1}, got {dealer!r}")


class Undo(NamedTuple):
    """The undo record of :meth:`Position.push`: every field a move can change, in this order
    (the lists are never changed in place once shared, so references suffice).

    The stack holds it as a plain tuple in this field order (:data:`UndoTuple`): building a
    tuple subclass and unpacking it cost a fifth of a push/pop pair on CPython. Read it named
    with :meth:`Position.undo_records`; tests/core/test_position_fields.py holds push, pop and this
    list in step.
    """

    hands: list[int]
    loose: int
    hcards: list[int]
    hcem: list[bool]
    howners: list[int]
    hpresent: int
    captured: list[int]
    sweeps: list[int]
    last_capture: int
    plays: int
    phase_id: int
    bid: int
    stock: tuple[int, ...]


#: :class:`Undo` as the plain tuple the undo stack holds.
UndoTuple = tuple[
    list[int], int, list[int], list[bool], list[int], int, list[int], list[int], int, int, int,
    int, tuple[int, ...],
]  # fmt: skip

#: The fields a move never changes: the rules, the dealer and the match so far.
FIXED_FIELDS: Final = ("rules", "dealer", "match_diff", "match_baazis", "match_deals")

# Position._own: the lists a position may change in place, because nothing else refers to them
# (made by this position since its last push). A push shares them with its undo record, so it
# clears these bits, and the first move after it copies what it changes (copy on write).
_OWN_HANDS: Final = 1
_OWN_HOUSES: Final = 2  # hcards, hcem and howners, copied together
_OWN_CAPTURED: Final = 4
_OWN_SWEEPS: Final = 8
_OWN_ALL: Final = 15

House = tuple[int, int, bool, int]  # (value, cards mask, cemented, owner seat mask)


class Position:
    """One deal of Seep with every card visible, plus the running match (docs/format.md position).

    Mutable, with :meth:`push` / :meth:`pop` for search; :meth:`copy` for an independent copy.
    Create one with :meth:`new_deal`, :meth:`from_deck`, :func:`seep.format.position_from_dict`
    (untrusted data, fully validated) or the constructor.

    The fields are the :class:`Undo` fields (what a move changes) and :data:`FIXED_FIELDS`.
    Only this module writes them.
    """

    __slots__ = (*Undo._fields, *FIXED_FIELDS, "_stack", "_own")

    def __init__(
        self,
        rules: Rules | None = None,
        dealer: int = 0,
        *,
        phase_id: int = PHASE_BID,
        bid: int = 0,
        plays: int = 0,
        hands: Iterable[int] | None = None,
        stock: Iterable[int] = (),
        loose: int = 0,
        houses: Iterable[House] = (),
        captured: Iterable[int] = (0, 0),
        sweeps: Iterable[int] = (0, 0),
        last_capture: int = -1,
        match: tuple[int, tuple[int, int], int] = (0, (0, 0), 0),
    ) -> None:
        """A position from its fields, as keywords (the docs/format.md fields, as ints and masks):
        ``houses`` as ``(value, cards, cemented, owner mask)`` tuples, ``last_capture`` -1 for
        none, ``match`` as ``(diff, (baazis0, baazis1), deals)``; ``rules`` ``None`` for the
        standard rules.

        This is the trusted fast path: only the shape is taken care of, not the rules (a
        card in two places, a house that is not one, a wrong hand size are not noticed).
        Untrusted data goes through :func:`seep.format.position_from_dict`, which checks
        every invariant and then calls this constructor.
        """
        # A None default rather than STANDARD itself: a text signature (inspect, help() on the
        # compiled core) can only show a literal default.
        rules = STANDARD if rules is None else rules
        self.rules = rules
        self.dealer = dealer
        self.phase_id = phase_id
        self.bid = bid
        self.plays = plays
        # One hand per seat: four, or two under players=2 (R2P1).
        self.hands: list[int] = [0] * rules.players if hands is None else list(hands)
        self.stock: tuple[int, ...] = tuple(stock)
        self.loose = loose
        hcards = [0] * 14
        hcem = [False] * 14
        howners = [0] * 14
        hpresent = 0  # bit v set when a house of value v is on the floor
        for value, cards, cemented, owners in houses:
            hcards[value] = cards
            hcem[value] = cemented
            howners[value] = owners
            hpresent |= 1 << value
        self.hcards = hcards
        self.hcem = hcem
        self.howners = howners
        self.hpresent = hpresent
        self.captured: list[int] = list(captured)
        self.sweeps: list[int] = list(sweeps)
        self.last_capture = last_capture
        self.match_diff, self.match_baazis, self.match_deals = match
        self._stack: list[UndoTuple] = []
        self._own = _OWN_ALL  # every list above is this position's own

    # --- construction -------------------------------------------------------------------

    @classmethod
    def new_deal(
        cls,
        seed: int,
        dealer: int = 0,
        rules: Rules | str | Mapping[str, Any] = "standard",
        *,
        match: tuple[int, tuple[int, int], int] = (0, (0, 0), 0),
    ) -> Position:
        """A bid-phase position dealt from ``random.Random(seed).shuffle`` of the sorted pack
        (see :meth:`from_deck`). ``rules``: a :class:`~seep.options.Rules`, a preset name or
        a docs/format.md ``rules`` object.

        >>> Position.new_deal(7, 1, "two_player").rules.players
        2
        """
        # A preset name or options object too (names bad input); a Rules as it is, without
        # the interpreted call (the batched environments deal thousands of deals a second).
        rules = rules if type(rules) is Rules else Rules.parse(rules)
        _check_dealer(dealer, rules)
        # Compiled, Position's own constructor is a direct call; cls(...) a generic one.
        pos = (
            Position(rules, dealer, match=match)
            if cls is Position
            else cls(rules, dealer, match=match)
        )
        pos._lay_out(_shuffled_pack(seed))
        return pos

    @classmethod
    def from_deck(
        cls,
        deck: list[int],
        dealer: int = 0,
        rules: Rules | str | Mapping[str, Any] = "standard",
        *,
        match: tuple[int, tuple[int, int], int] = (0, (0, 0), 0),
    ) -> Position:
        """The bid-phase position of a shuffled pack (all 52 cards, top first) laid out in
        deal order (R12, R18, docs/format.md ``stock``): cards 0-3 to the bidder, 4-7 face down to
        the floor, then (with ``deal_before_bid``) 4 each to the other seats in playing
        order, and the rest is the stock (two players: R2P4, §12.4)."""
        rules = Rules.parse(rules)  # a preset name or options object too; names bad input
        _check_dealer(dealer, rules)
        if sorted(deck) != list(range(52)):
            raise InvalidPositionError("a deck is the 52 cards 0..51, each once")
        pos = cls(rules, dealer, match=match)
        pos._lay_out(list(deck))
        return pos

    def _lay_out(self, deck: list[int]) -> None:
        """Deal a shuffled pack for the bid phase (R12, option ``deal_before_bid``; two
        players: R2P4, the dealer's 4 follow the floor's, §12.4)."""
        n = self.rules.players
        bidder = seat_to_move(self.dealer, 0, n)
        hands = [0] * n
        hands[bidder] = mask_of(deck[0:4])
        self.loose = mask_of(deck[4:8])
        rest = deck[8:]
        if self.rules.deal_before_bid:
            for i in range(1, n):
                hands[(bidder + i) % n] = mask_of(rest[4 * (i - 1) : 4 * i])
            rest = rest[4 * (n - 1) :]
        self.hands = hands
        self._own |= _OWN_HANDS
        self.stock = tuple(rest)
        self.phase_id = PHASE_BID
        self.bid = 0
        self.plays = 0

    def copy(self) -> Position:
        """An independent copy (the undo stack is not copied)."""
        p = Position.__new__(Position)
        # Undo fields (lists copied: a copy must not share what the original may change)
        p.hands = self.hands[:]
        p.loose = self.loose
        p.hcards = self.hcards[:]
        p.hcem = self.hcem[:]
        p.howners = self.howners[:]
        p.hpresent = self.hpresent
        p.captured = self.captured[:]
        p.sweeps = self.sweeps[:]
        p.last_capture = self.last_capture
        p.plays = self.plays
        p.phase_id = self.phase_id
        p.bid = self.bid
        p.stock = self.stock
        # FIXED_FIELDS
        p.rules = self.rules
        p.dealer = self.dealer
        p.match_diff = self.match_diff
        p.match_baazis = self.match_baazis
        p.match_deals = self.match_deals
        p._stack = []
        p._own = _OWN_ALL
        return p

    # --- simple queries -----------------------------------------------------------------

    @property
    def phase(self) -> str:
        """``"bid"``, ``"play"`` or ``"over"`` (docs/format.md)."""
        return PHASE_NAMES[self.phase_id]

    @property
    def bidder(self) -> int:
        """The seat on the dealer's right, who bids and makes play 1 (R12, R13; R2P3)."""
        return seat_to_move(self.dealer, 0, self.rules.players)

    @property
    def to_move(self) -> int | None:
        """The seat to move, ``None`` when the deal is over (R19, R2P6:
        ``(dealer + 1 + plays) % players``)."""
        if self.phase_id == PHASE_OVER:
            return None
        return seat_to_move(self.dealer, self.plays, self.rules.players)

    def is_over(self) -> bool:
        """True after play 48."""
        return self.phase_id == PHASE_OVER

    def houses(self) -> list[House]:
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
            opts = _LAST_OPTIONS[0]
            if opts.rules is not self.rules:
                opts = _LAST_OPTIONS[0] = options_of(self.rules)
            return self._play_codes(opts, opts.throw_rule, _SUM_BITS, None, None)
        if phase == PHASE_BID:
            return self._bid_moves()
        return []

    def legal_codes_by_card(self) -> tuple[list[int], list[int] | None]:
        """:meth:`legal_codes`, and in the play phase where each card's moves are in it
        (``None`` in the other phases): the moves of a card are next to each other in the
        list, and the second list holds ``card | end << 6`` for each card in list order,
        ``end`` the index after its last move. Written down as the list is made: a code is a
        long integer, and taking the card out of each one again costs more (the first actions
        of :class:`seep.integrations.actions.MoveBuilder`)."""
        if self.phase_id == PHASE_PLAY:
            opts = _LAST_OPTIONS[0]
            if opts.rules is not self.rules:
                opts = _LAST_OPTIONS[0] = options_of(self.rules)
            runs: list[int] = []
            return self._play_codes(opts, opts.throw_rule, _SUM_BITS, None, runs), runs
        return self.legal_codes(), None

    def random_code(self, rng: random.Random) -> int:
        """``rng.choice(self.legal_codes())``: the same move from the same draw of ``rng`` (as
        :func:`random_below`), without the list (a ``random`` bot's move). Each card value's
        uses are made with its first card in them, as for the list; the index is drawn over
        the list's layout, and only the drawn move's code is made for another card of the
        value (the list would repeat every use for it). ``IndexError`` when there is no
        legal move (the deal is over), as ``rng.choice`` of an empty list."""
        if self.phase_id == PHASE_PLAY:
            opts = _LAST_OPTIONS[0]
            if opts.rules is not self.rules:
                opts = _LAST_OPTIONS[0] = options_of(self.rules)
            return self._play_codes(opts, opts.throw_rule, _SUM_BITS, rng, None)[0]
        codes = self.legal_codes()
        if not codes:
            raise IndexError("no legal move to choose from: the deal is over")
        return codes[random_below(rng, len(codes))]

    def _bid_moves(self) -> list[int]:
        """R13/R14: bid a value 9..13 held in hand; redeal only without a card above 8."""
        hand = self.hands[self.bidder]
        codes = [BID << SH_ACTION | v << SH_VALUE for v in _HOUSE_VALUES if hand & VALUE_MASK[v]]
        return codes or [REDEAL << SH_ACTION]

    def play_codes(self, throw_rule: str, values: int = _SUM_BITS) -> list[int]:
        """Card plays (R20-R31, docs/rules.md §7) with the throws of ``throw_rule`` (R22, A7; the
        rules' own for :meth:`legal_codes`, ``"always"`` to find every other use of a card).

        ``values`` (bit v per card value) keeps only the plays of cards of those values, without
        computing the others (the protocol's card filter on a huge floor). Under
        ``throw_rule="no_other_move"`` the throws are then decided from those values' other
        uses alone, so callers that filter use ``"always"`` and decide the throw themselves
        (:mod:`seep.counting` knows it).

        The uses of a card depend only on its value, so they are found per value (made with
        the first card of that value) and then repeated for each other card of that value.
        Rather than asking every value what it can do, the generator walks the targets: for a
        house value V and a loose sum t, the value V - t is the card that builds or cements V
        with a t-group.
        """
        return self._play_codes(options_of(self.rules), throw_rule, values, None, None)

    def _play_codes(
        self,
        opts: Options,
        throw_rule: str,
        values: int,
        rng: random.Random | None,
        runs: list[int] | None,
    ) -> list[int]:
        """:meth:`play_codes` with the options of the rules at hand; with ``rng``, only the
        move :meth:`random_code` draws from it (a list of one code); with ``runs``, each
        card's end in the list is appended to it (:meth:`legal_codes_by_card`)."""
        plays = self.plays
        p = (self.dealer + 1 + plays) % opts.players  # seat_to_move, without the call
        hand = self.hands[p]
        loose = self.loose
        hpresent = self.hpresent

        subsets, avail = floor_index(loose)
        # The rules' decisions for each card value (seep.mover: the counter reads the same).
        (
            fragile,
            free,
            cap_vals,
            throw_vals,
            build_vals,
            pairs,
            cementable,
            keep_once,
            breaks,
        ) = mover_facts(opts, throw_rule, self, p, hand, avail)
        # uses[v]: the move codes a card of value v can make, with the mover's first card of v
        # in them (_FIRST_FIELD; his other cards of v get them at the end); order: the values
        # with uses, in the order their first use is found (the order of the result), one
        # 4-bit value per nibble, the first found highest: an int, where a list would be one
        # more object to make and fill on every call (13 values fit in a machine word).
        # A literal: compiled, one list of 14 slots filled in place (list() of a tuple and
        # `[None] * 14` go through the generic sequence calls).
        uses: list[list[int] | None] = [
            None, None, None, None, None, None, None, None, None, None, None, None, None, None
        ]  # fmt: skip
        order = 0
        # Values whose uses may repeat: one set reached from two t-groups with absorbed
        # V-groups (R31). Uses of one base never repeat (its unions are distinct), and uses with
        # another tag (action, V, broken house) never equal each other.
        dup = 0

        # CAPTURE (R23-R26): H_v and disjoint v-groups; maximal by default (R25).
        if cap_vals & values:
            capture_mode = opts.capture_mode
            house_in_sums = opts.house_in_sums
            cv = cap_vals & values
            while cv:
                low = cv & -cv
                cv ^= low
                v = low.bit_length() - 1
                groups = subsets[v]
                if not house_in_sums:
                    if hpresent & low:
                        groups = (_HOUSE_ITEM[v], *groups)
                elif hpresent:
                    extra: list[int] = []
                    if hpresent & low:
                        extra.append(_HOUSE_ITEM[v])
                    # R21g / A10: a house may be one item of a sum (only one fits: 9+9 > 13).
                    for w in _HOUSE_VALUES:
                        if w < v and hpresent >> w & 1:
                            extra.extend(_HOUSE_ITEM[w] | s for s in subsets[v - w])
                    groups = (*extra, *groups)
                tag = _CAPTURE_ONE[v][hand >> (4 * v - 4) & 15]
                if len(groups) == 1:
                    if not fragile & low or groups[0] & _HOUSE_ITEM[v]:
                        uses[v] = [tag | groups[0]]
                        order = order << 4 | v
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
                    order = order << 4 | v

        absorb_never = opts.absorb_never
        absorb_mode = opts.absorb_mode

        # BUILD (R27): a new ordinary house of V = v + sum(S), S non-empty, for a value V the
        # builder keeps (V > v, so a V stays in hand); loose V cards merge (R21f(a)); further
        # V-groups may join (R31). Which V: build_vals (max_houses A22; R16 at the opening).
        if build_vals:
            while build_vals:
                lowV = build_vals & -build_vals
                build_vals ^= lowV
                V = lowV.bit_length() - 1
                singles = loose & VALUE_MASK[V]
                tags = _BUILD_ONE[V]
                v_groups = () if absorb_never else subsets[V]
                # The sums t whose card value V - t is held and free (see _REVERSED_SUMS).
                ts = avail & (_REVERSED_SUMS[free & values] << V) >> 13
                while ts:
                    lowt = ts & -ts
                    ts ^= lowt
                    t = lowt.bit_length() - 1
                    v = V - t
                    out = uses[v]
                    if out is None:
                        out = uses[v] = []
                        order = order << 4 | v
                    tagv = tags[v][hand >> (4 * v - 4) & 15]
                    bases = subsets[t]
                    # Absorbing what several t-groups leave can reach one set twice (R31).
                    repeats = 1 << v if len(bases) > 1 else 0
                    for s in bases:
                        taken = s | singles
                        base = tagv | taken
                        if v_groups:
                            g = tuple([x for x in v_groups if not x & taken])
                            if g:
                                dup |= repeats
                                for a in group_unions(g, absorb_mode):
                                    # A long integer | 0 would be a new object all the same.
                                    out.append(base | a if a else base)
                                continue
                        out.append(base)
            if pairs & values:
                # A12: V onto a loose V, keeping another V, is a cemented build.
                pairs &= values
                while pairs:
                    low = pairs & -pairs
                    pairs ^= low
                    v = low.bit_length() - 1
                    singles = loose & VALUE_MASK[v]
                    if not singles:
                        continue
                    base = _BUILD_ONE[v][v][hand >> (4 * v - 4) & 15] | singles
                    g = () if absorb_never else tuple([x for x in subsets[v] if not x & singles])
                    out = uses[v]
                    if out is None:
                        out = uses[v] = []
                        order = order << 4 | v
                    if g:
                        for a in group_unions(g, absorb_mode):
                            out.append(base | a if a else base)
                    else:
                        out.append(base)

        if free and (cementable or breaks):
            avail0 = avail | 1  # a cement's loose set may be empty when the card is worth V
            hp = hpresent
            while hp:
                lowV = hp & -hp
                hp ^= lowV
                V = lowV.bit_length() - 1
                # CEMENT / ADD (R28) with a card of a value of `may`, BREAK (R29) with one of
                # `breakers`: who may is mover_facts' (R21d, R28, R29, R33, A13, A14), read
                # here as seep.mover.cementers and breakers read it.
                may = free & ~(keep_once & lowV) & values if cementable & lowV else 0
                tags = _CEMENT_ONE[V]
                v_groups = () if absorb_never else subsets[V]
                ts = avail0 & (_REVERSED_SUMS[may] << V) >> 13
                while ts:
                    lowt = ts & -ts
                    ts ^= lowt
                    t = lowt.bit_length() - 1
                    v = V - t
                    out = uses[v]
                    if out is None:
                        out = uses[v] = []
                        order = order << 4 | v
                    tagv = tags[v][hand >> (4 * v - 4) & 15]
                    bases = subsets[t] if t else _ZERO_ONLY
                    repeats = 1 << v if len(bases) > 1 else 0  # as for builds
                    for s in bases:
                        base = tagv | s if s else tagv
                        if v_groups:
                            g = tuple([x for x in v_groups if not x & s])
                            if g:
                                dup |= repeats
                                for a in group_unions(g, absorb_mode):
                                    out.append(base | a if a else base)
                                continue
                        out.append(base)

                # BREAK (R29): another player's ordinary house raised by one card A-4 to V2;
                # the breaker keeps a V2; it merges with H_V2 (R30) and loose V2 cards.
                breakers = (breaks >> 4 * (V - 9) & 15) << 1 & values
                while breakers:
                    low = breakers & -breakers
                    breakers ^= low
                    v = low.bit_length() - 1
                    V2 = V + v
                    singles = loose & VALUE_MASK[V2]
                    tag = _BREAK_ONE[V][v][hand >> (4 * v - 4) & 15]
                    if singles:
                        tag |= singles
                    g = () if absorb_never else tuple([x for x in subsets[V2] if not x & singles])
                    out = uses[v]
                    if out is None:
                        out = uses[v] = []
                        order = order << 4 | v
                    if g:
                        for a in group_unions(g, absorb_mode):
                            out.append(tag | a if a else tag)
                    else:
                        out.append(tag)

        # THROW (R22, A7, R16.3, R21f(b)): the values of mover_facts, the rules' throw_rule.
        throw_vals &= values
        result: list[int] = []
        if throw_rule == "no_other_move":
            throw_vals = throws_left(throw_vals, throw_rule, order != 0)
        # Cards whose only use is a throw come first (under "no_other_move": every card
        # without a house when no other use is possible); a value with other uses has its
        # throw last among them (below).
        with_uses = 0
        thrown = 0  # the cards thrown and nothing else, listed with rng
        while throw_vals:
            low = throw_vals & -throw_vals
            throw_vals ^= low
            v = low.bit_length() - 1
            if uses[v] is not None:
                with_uses |= low
            elif rng is None:
                at = len(result)
                nib = hand >> (4 * v - 4) & 15
                if nib & (nib - 1):
                    result.extend(_THROW_CODES[v][nib])
                else:
                    # One code: an append costs a third of an extend (a slice assignment).
                    cast(list[object], result).append(_THROW_ONE[v][nib])
                if runs is not None:
                    for card in _CARDS_OF[v][hand >> (4 * v - 4) & 15]:
                        at += 1
                        runs.append(card | at << 6)
            else:
                thrown |= hand & VALUE_MASK[v]
        if rng is not None:
            return [_drawn_code(rng, hand, uses, order, thrown, with_uses, dup)]

        # Each value's uses have its first card in them; the value's other cards follow, each
        # with all the uses again.
        k = (order.bit_length() + 3) & ~3
        while k:
            k -= 4
            v = order >> k & 15
            out = uses[v]
            assert out is not None
            nib = hand >> (4 * v - 4) & 15
            if with_uses >> v & 1:
                cast(list[object], out).append(_FIRST_OBJ[v][nib])  # THROW's tag is 0
            if dup >> v & 1 and len(out) > 1:
                out = _first_of_each(out)
            if runs is not None:
                n = len(out)
                at = len(result)
                for card in _CARDS_OF[v][nib]:
                    at += n
                    runs.append(card | at << 6)
            if nib & (nib - 1):
                result.extend(out)
                for delta in _OTHER_DELTAS[v][nib]:
                    for code in out:
                        result.append(code ^ delta)
            elif result:
                if len(out) == 1:
                    cast(list[object], result).append(cast(list[object], out)[0])
                else:
                    result.extend(out)
            else:
                # The first uses are this call's own list: they become the result, uncopied.
                result = out
        return result

    # --- checked moves ---------------------------------------------------------------------

    def is_legal(self, move: int | str | Mapping[str, Any]) -> bool:
        """Whether one move is legal, decided by :func:`seep.verify.check` from the rules
        directly, without listing every legal move (a huge floor can have astronomically
        many). Agrees with :meth:`legal_codes` on every code (the test-suite checks both ways).

        ``move`` is a code (or :class:`~seep.moves.Move`), notation text or a docs/format.md
        move, as :meth:`play` takes it; text that is no move at all raises
        :class:`~seep.errors.NotationError` naming the problem.

        >>> pos = Position.new_deal(1)
        >>> pos.is_legal("bid 13"), pos.is_legal("bid 9")
        (True, False)
        """
        return check(self, move) is None

    def legal_moves(self) -> list[Move]:
        """All legal moves of the seat to move, as :class:`~seep.moves.Move` objects."""
        return [Move(c) for c in self.legal_codes()]

    @property
    def legal(self) -> LegalMoves:
        """The legal moves of the seat to move as one object (:class:`LegalMoves`): iterate
        the codes, ``code in pos.legal`` (the checker), ``len``, counts per card, one card's
        moves and why a card has none, without listing a huge floor's millions."""
        return LegalMoves(self)

    def play(self, move: int | dict[str, Any] | str) -> dict[str, Any]:
        """Check and make a move given as a code, a docs/format.md dict or notation text.

        Returns the record of the move for a game log: the docs/format.md move with ``"seat"``.
        Raises :class:`IllegalMoveError` (the reason in its message) and leaves the position
        unchanged when the move is not legal.
        """
        if isinstance(move, dict):
            code: int = Move.from_dict(move)
        elif isinstance(move, str):
            code = parse_move(move)
        else:
            code = move
        verify_move(self, code)
        seat = self.to_move
        assert seat is not None  # verify_move refuses every move of a finished deal
        record = MoveRecord(seat, code).to_dict()
        self.push(code)
        return record

    # --- making moves ---------------------------------------------------------------------

    def push(self, code: int) -> None:
        """Make a move given by its code, recording it for :meth:`pop`. The code must be
        legal (see :meth:`legal_codes`); :meth:`play` checks untrusted input."""
        # The lists of a position are never changed in place once shared (copy on write), so
        # the undo record holds references, not copies.
        self._stack.append(
            (  # an Undo, in its field order
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
        self._own = 0  # the record refers to the lists: the move copies what it changes
        self.advance(code)

    def advance(self, code: int) -> None:
        """Make a move without recording it for :meth:`pop` (playouts that never go back)."""
        # A code is wider than a machine word, so each operation on it makes a new int: one
        # shift brings every field above the loose cards into a small int, one mask the rest.
        top = code >> SH_HOUSES
        action = top >> _TOP_ACTION & 7
        if action >= BID:
            if action == BID:
                self.bid = top >> _TOP_VALUE & 15
                self.phase_id = PHASE_PLAY  # R15: the floor is turned face up
            else:
                self._redeal()
            return
        plays = self.plays
        own = self._own
        hands = self.hands
        if not own & _OWN_HANDS:
            hands = self.hands = hands[:]
            self._own = own = own | _OWN_HANDS
        # seat_to_move without the call; a hand per player (R2P1).
        p = (self.dealer + 1 + plays) % len(hands)
        cbit = 1 << (top >> _TOP_CARD & 63)
        hands[p] = hands[p] & ~cbit  # compiled, an augmented item assignment is a generic call
        if action == THROW:
            self.loose |= cbit
        elif action == CAPTURE:
            moved = code & LOOSE_BITS
            team = p & 1
            taken = cbit | moved
            hb = top & 31
            if hb:
                self._own_houses()
                hcards = self.hcards
                howners = self.howners
                hcem = self.hcem
                for i in range(5):
                    if hb >> i & 1:
                        v = 9 + i
                        taken |= hcards[v]
                        hcards[v] = 0
                        howners[v] = 0
                        hcem[v] = False
                        self.hpresent &= ~(1 << v)
            self.loose &= ~moved
            captured = self.captured
            if not own & _OWN_CAPTURED:
                captured = self.captured = captured[:]
                self._own |= _OWN_CAPTURED
            captured[team] = captured[team] | taken
            self.last_capture = team
            if not self.loose and not self.hpresent:
                # R37/R38: a sweep; 25 on play 1, 0 on play 48, 50 otherwise.
                n = plays + 1
                r = self.rules
                sweeps = self.sweeps
                if not own & _OWN_SWEEPS:
                    sweeps = self.sweeps = sweeps[:]
                    self._own |= _OWN_SWEEPS
                sweeps[team] = sweeps[team] + (
                    r.sweep_first if n == 1 else r.sweep_last if n == 48 else r.sweep_value
                )
        else:
            moved = code & LOOSE_BITS
            V = top >> _TOP_VALUE & 15
            self._own_houses()
            hcards = self.hcards
            howners = self.howners
            hcem = self.hcem
            self.loose &= ~moved
            if action == BUILD:
                hcards[V] = cbit | moved
                # Cemented when the house holds more than one set (R21b): value sum > V.
                hcem[V] = _VAL[top >> _TOP_CARD & 63] + mask_value_sum(moved) > V
                howners[V] = 1 << p
                self.hpresent |= 1 << V
            elif action == CEMENT:
                hcards[V] = hcards[V] | cbit | moved
                hcem[V] = True
                owners = howners[V]
                if (
                    not owners & (1 << p)
                    and not owners & _PARTNER_SEATS[p]
                    and hands[p] & VALUE_MASK[V]
                ):
                    # R28: an opponent who adds becomes an owner; under add_retention "team"
                    # only if he himself still holds the value (A14, docs/rules.md §3), so every
                    # owner holds his value (R21d, invariant 4). Two players: the co-owner of
                    # the opponent's house (R2P9); no seat-2 bit is ever an owner there.
                    howners[V] = owners | 1 << p
            else:  # BREAK (R29)
                H = top >> _TOP_HOUSE & 15
                cards = hcards[H] | cbit | moved
                hcards[H] = 0
                howners[H] = 0
                hcem[H] = False
                self.hpresent &= ~(1 << H)
                if self.hpresent >> V & 1:
                    # R30 / A15: merge with the existing house of the new value.
                    hcards[V] = hcards[V] | cards
                    howners[V] = howners[V] | 1 << p
                    hcem[V] = True
                else:
                    hcards[V] = cards
                    howners[V] = 1 << p
                    hcem[V] = bool(moved)
                    self.hpresent |= 1 << V
        plays += 1
        self.plays = plays
        if plays == 1 and self.stock:
            self._deal_stock()
        elif plays == 48:
            self._finish_deal()
        elif plays == 24 and self.stock:
            self._deal_stock()  # R2P7: the half-time deal follows play 24 at once

    def _own_houses(self) -> None:
        """Make the houses' three lists this position's own, to change them (copy on write:
        an undo record may share them)."""
        if not self._own & _OWN_HOUSES:
            self.hcards = self.hcards[:]
            self.howners = self.howners[:]
            self.hcem = self.hcem[:]
            self._own |= _OWN_HOUSES

    def pop(self) -> None:
        """Take back the last move made with :meth:`push`."""
        (  # the fields of Undo, in order
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
        self._own = 0  # the lists came from the record; older records may share them

    def undo_records(self) -> list[Undo]:
        """The undo stack, oldest first, as named records (for debugging and tests)."""
        return [Undo._make(t) for t in self._stack]

    def _deal_stock(self) -> None:
        """R18 / docs/format.md: packets of four, round one to the bidder, bidder+1, bidder+2,
        dealer; round two the same; round three (if any) to bidder+1, bidder+2, dealer.

        Two players (R2P4, R2P7, §12.4; b the bidder, d the dealer): after play 1 the packets
        b, d, b, d, d (``deal_before_bid``: b, d, b, d), leaving 24 cards for the half-time
        deal after play 24: b, d, b, d, b, d. With ``second_deal`` false all of it after play
        1: (b, d) x 5, then d (``deal_before_bid``: (b, d) x 5)."""
        stock = self.stock
        b = self.bidder
        if self.rules.players == 2:
            d = b ^ 1
            if self.plays != 1:
                order = [b, d, b, d, b, d]  # R2P7: the half-time deal
            elif self.rules.second_deal:
                order = [b, d, b, d] if self.rules.deal_before_bid else [b, d, b, d, d]
            else:
                order = [b, d] * 5 if self.rules.deal_before_bid else [b, d] * 5 + [d]
        else:
            order = [b, b + 1, b + 2, b + 3, b, b + 1, b + 2, b + 3, b + 1, b + 2, b + 3]
        hands = self.hands
        if not self._own & _OWN_HANDS:
            hands = self.hands = hands[:]
            self._own |= _OWN_HANDS
        dealt = min(len(order), len(stock) // 4)
        for i in range(dealt):
            seat = order[i] & 3
            k = 4 * i
            # The packet's four bits at once: mask_of over a slice makes a tuple and an iterator.
            hands[seat] = (
                hands[seat]
                | 1 << stock[k]
                | 1 << stock[k + 1]
                | 1 << stock[k + 2]
                | 1 << stock[k + 3]
            )
        self.stock = stock[4 * dealt :]

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
                self._own |= _OWN_HOUSES
            captured = self.captured
            if not self._own & _OWN_CAPTURED:
                captured = self.captured = captured[:]
                self._own |= _OWN_CAPTURED
            captured[self.last_capture] = captured[self.last_capture] | left
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
        names = [CARD_NAMES[c] for c in cards_of_mask(self.hands[self.bidder])]
        names += [CARD_NAMES[c] for c in cards_of_mask(self.loose)]
        n = self.rules.players
        for i in range(1, n):
            names += [CARD_NAMES[c] for c in cards_of_mask(self.hands[(self.bidder + i) % n])]
        names += [CARD_NAMES[c] for c in self.stock]
        digest = hashlib.sha256(("redeal:" + ",".join(names)).encode()).digest()
        self._lay_out(_shuffled_pack(int.from_bytes(digest[:8], "big")))

    # --- scoring and the match ------------------------------------------------------------

    def card_points(self) -> tuple[int, int]:
        """Card points of each team's pile (R5, option ``ten_diamonds_points``)."""
        return scoring.card_points(self.captured, self.rules)

    def majority_bonus(self) -> tuple[int, int]:
        """Option ``majority_bonus``: to the team with more captured cards (26-26: nobody)."""
        return scoring.majority_bonus(self.captured, self.rules)

    def deal_scores(self) -> tuple[int, int]:
        """Each team's deal score: card points + bonus + sweeps (R42)."""
        return scoring.deal_scores(self.captured, self.sweeps, self.rules)

    def next_deal(self, seed: int) -> Position:
        """The next deal's bid-phase position, with the match updated (R44-R47, R9, R10, A27:
        :func:`seep.baazi.settle`).

        Raises :class:`IllegalMoveError` if this deal is not over.
        """
        if self.phase_id != PHASE_OVER:
            raise IllegalMoveError(
                f"the deal is not over ({self.plays} of 48 plays made): no next deal yet"
            )
        s = settle(self)
        return Position.new_deal(
            seed, s.dealer, self.rules, match=(s.diff, s.baazis, self.match_deals + 1)
        )

    # --- docs/format.md ------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The docs/format.md position (every rules key written); read it back with
        :func:`seep.format.position_from_dict`."""
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
        """Short: the phase, the bid, plays made, the seat to move and the deal's score so far
        (``print(pos)`` draws the whole table)."""
        bid = f" bid={self.bid}" if self.bid else ""
        to_move = "" if self.phase_id == PHASE_OVER else f" to_move={self.to_move}"
        score = self.deal_scores()
        return (
            f"<Position {self.phase}{bid} plays={self.plays}{to_move} score={score[0]}-{score[1]}>"
        )

    def __str__(self) -> str:
        """The table as text, every card face up (:func:`table_text`): the phase, the bid,
        the dealer and the seat to move (seat names N W S E), the floor (loose cards, then each
        house with its sets, owners and whether it is cemented), each hand, the stock's size,
        and each team's pile, points, sweeps and score (R42), then the match.

        >>> pos = Position.new_deal(1)
        >>> _ = pos.play("bid 13")
        >>> print(pos)
        Seep, standard rules: play phase, 0 of 48 plays, bid 13 by W, dealer N, W to move
        floor  AD 3C 5C TD
        N      -
        W      3H 6D TH KH
        S      -
        E      -
        stock  44 cards
        NS     0 cards captured, 0 points, 0 sweeps: 0
        WE     0 cards captured, 0 points, 0 sweeps: 0
        match  0 deals played, diff +0, baazis 0-0
        """
        names = seat_names(self.rules.players)
        floor = []
        if self.loose:
            floor.append(
                format_cards(self.loose) + (" face down" if self.phase_id == PHASE_BID else "")
            )
        floor += [house_text(h, names) for h in self.houses()]
        return table_text(
            "Seep",
            self.rules,
            (self.dealer, self.phase_id, self.bid, self.plays),
            [format_cards(h) or "-" for h in self.hands],
            floor,
            len(self.stock),
            (self.captured[0], self.captured[1]),
            (self.sweeps[0], self.sweeps[1]),
            (self.match_diff, self.match_baazis, self.match_deals),
        )

    def _repr_svg_(self) -> str:
        """The table as SVG (:func:`seep.svg.position`), which notebooks show."""
        from .svg import position as svg_position  # seep.svg is drawn above the engine

        return svg_position(self)


# Under this many floor items (loose cards and houses) the list is short and cheaper to make
# than to count: counting is for the huge floors of throw_rule "always" (issue 12).
_COUNT_FROM: Final = 10


class LegalMoves:
    """The legal moves of the seat to move in a position, as one object: ``pos.legal``
    (python-chess's ``board.legal_moves`` is the model).

    * iterating gives the codes in generator order: ``list(pos.legal) == pos.legal_codes()``;
    * ``move in pos.legal`` is the checker (:func:`seep.verify.check`, no list made), for a
      code, notation or a docs/format.md move, as :meth:`Position.is_legal` takes it;
    * ``len(pos.legal)``, :meth:`by_card` and :meth:`card_count` count: a floor of many cards
      (millions of moves) is counted by value (:mod:`seep.counting`), never listed;
    * :meth:`of_card` lists one card's moves alone, :meth:`playable` says which cards have one;
    * :meth:`why_dead` and :meth:`dead_cards` say why a card has no legal use (the checker's
      refusal of throwing it: R16 at play 1, R21d retention, R21f(b) a house of its value ...);
    * :meth:`within` answers "the list, unless it is longer than a limit", the one policy of
      the protocol's ``legal``, the web's state and the terminal.

    The object keeps what it made (the list, or the counts): after a move, ask ``pos.legal``
    again.

    >>> pos = Position.new_deal(1)
    >>> legal = pos.legal
    >>> [str(Move(c)) for c in legal], "bid 13" in legal, "bid 9" in legal, len(legal)
    (['bid 10', 'bid 13'], True, False, 2)
    >>> _ = pos.play("bid 13")
    >>> legal = pos.legal
    >>> {CARD_NAMES[c]: n for c, n in legal.by_card().items()}
    {'3H': 1, '6D': 0, 'TH': 1, 'KH': 1}
    >>> [str(Move(c)) for c in legal.of_card(CARD_NAMES.index("TH"))]
    ['TH =13 3C']
    >>> print(legal.why_dead(CARD_NAMES.index("6D")))
    play 1 is bound to the bid 13: only a card of value 13 may capture or be thrown (R16)
    """

    __slots__ = ("_codes", "_counts", "position")

    def __init__(self, position: Position) -> None:
        self.position = position
        self._codes: list[int] | None = None
        self._counts: dict[int, int] | None = None

    def _lists(self) -> bool:
        """Whether listing is cheaper than counting here: outside the play phase (a handful
        of bids) or on a floor of fewer than ``_COUNT_FROM`` items."""
        pos = self.position
        return (
            pos.phase_id != PHASE_PLAY
            or pos.loose.bit_count() + pos.hpresent.bit_count() < _COUNT_FROM
        )

    def _all(self) -> list[int]:
        codes = self._codes
        if codes is None:
            codes = self._codes = self.position.legal_codes()
        return codes

    def __iter__(self) -> Iterator[int]:
        return iter(self._all())

    def __contains__(self, move: int | str | Mapping[str, Any]) -> bool:
        return check(self.position, move) is None

    def __len__(self) -> int:
        return self.count()

    def __repr__(self) -> str:
        return f"<LegalMoves of {self.position!r}: {self.count()}>"

    def count(self) -> int:
        """How many legal moves there are (counted, not listed, on a huge floor)."""
        if self._codes is not None or self._lists():
            return len(self._all())
        return sum(self.by_card().values())

    def by_card(self) -> dict[int, int]:
        """The number of legal moves of each card of the mover's hand (0 for a card with
        none), in card order; ``{}`` outside the play phase (bids play no card)."""
        counts = self._counts
        if counts is None:
            pos = self.position
            if pos.phase_id != PHASE_PLAY:
                counts = {}
            elif self._codes is not None or self._lists():
                hand = pos.hands[seat_to_move(pos.dealer, pos.plays, len(pos.hands))]
                counts = dict.fromkeys(cards_of_mask(hand), 0)
                for code in self._all():
                    card = code >> SH_CARD & 63
                    counts[card] += 1
            else:
                counts = count_by_card(pos)
            self._counts = counts
        return counts

    def card_count(self, card: int) -> int:
        """The number of legal moves that play ``card`` (0 for a card not in the hand)."""
        return self.by_card().get(card, 0)

    def playable(self) -> int:
        """The mask of the mover's cards that have a legal move (0 outside the play phase)."""
        mask = 0
        for card, n in self.by_card().items():
            if n:
                mask |= 1 << card
        return mask

    def of_card(self, card: int) -> list[int]:
        """The legal moves that play ``card``, in generator order, computing only that card's
        uses on a huge floor; ``[]`` for a card not in the hand and outside the play phase."""
        pos = self.position
        if pos.phase_id != PHASE_PLAY:
            return []
        if self._codes is not None or self._lists():
            return [c for c in self._all() if c >> SH_CARD & 63 == card]
        return card_codes(pos, card)

    def why_dead(self, card: int) -> Refusal | None:
        """Why ``card`` has no legal use: the checker's refusal of throwing it, which names
        the rule that binds the card (R16 at play 1, R21d retention, R21f(b) a house of its
        value, A7 a card that can capture ...); ``None`` when the card has a legal move."""
        if self.card_count(card):
            return None
        return check(self.position, THROW << SH_ACTION | card << SH_CARD)

    def dead_cards(self) -> dict[int, Refusal | None]:
        """Each card of the mover's hand without a legal move, with :meth:`why_dead`'s
        reason; ``{}`` outside the play phase."""
        return {c: self.why_dead(c) for c, n in self.by_card().items() if not n}

    def within(self, limit: int, card: int | None = None) -> list[int] | None:
        """The legal moves (only those playing ``card`` when given), unless there are more
        than ``limit``: then ``None``, and :meth:`by_card` says how many each card has (ask
        card by card). A huge floor is counted first, never listed. Outside the play phase
        the bids or the redeal (at most five, none playing a card) are always listed, and a
        card has none."""
        pos = self.position
        if pos.phase_id != PHASE_PLAY:
            return [] if card is not None else self._all()
        lists = self._codes is not None or self._lists()
        if card is not None:
            if not lists and self.card_count(card) > limit:
                return None
            codes = self.of_card(card)
        else:
            if not lists and self.count() > limit:
                return None
            codes = self._all()
        return codes if len(codes) <= limit else None


def house_text(house: House, names: str) -> str:
    """A house as docs/rules.md writes one, its sets split, owners by seat name, and
    whether it is cemented: ``H10[TC | 3C 7D]{S} cemented`` (R21b)."""
    value, cards, cemented, owners = house
    who = ", ".join(names[s] for s in range(len(names)) if owners >> s & 1)
    sets = split_cards(cards, value)
    # A position built by hand may hold a house that does not split into sets of its value.
    shown = " | ".join(format_cards(c) for c in sets) if sets else format_cards(cards)
    return f"H{value}[{shown}]{{{who}}}" + (" cemented" if cemented else "")


def table_text(
    title: str,
    rules: Rules,
    deal: tuple[int, int, int, int],
    hands: list[str],
    floor: list[str],
    stock: int,
    captured: tuple[int, int],
    sweeps: tuple[int, int],
    match: tuple[int, tuple[int, int], int],
) -> str:
    """The text picture of a table that ``str()`` of a :class:`Position` and of a
    :class:`~seep.view.View` print: ``deal`` is (dealer, phase id, bid, plays), ``hands``
    each seat's text, ``floor`` the lines of the floor, ``stock`` the stock's size."""
    dealer, phase_id, bid, plays = deal
    n = rules.players
    names = seat_names(n)
    preset = rules.preset_name()
    head = f"{title}, {preset + ' rules' if preset else 'custom rules'}: "
    head += f"{PHASE_NAMES[phase_id]} phase, {plays} of 48 plays"
    if bid:
        head += f", bid {bid} by {names[seat_to_move(dealer, 0, n)]}"
    head += f", dealer {names[dealer]}"
    if phase_id != PHASE_OVER:
        head += f", {names[seat_to_move(dealer, plays, n)]} to move"
    lines = [head, "floor  " + (floor[0] if floor else "-")]
    lines += ["       " + item for item in floor[1:]]
    lines += [f"{names[s]}      {hands[s]}" for s in range(n)]
    lines.append(f"stock  {stock} cards")
    piles = [captured[0], captured[1]]
    points = scoring.card_points(piles, rules)
    scores = scoring.deal_scores(piles, [sweeps[0], sweeps[1]], rules)
    for team, name in enumerate(team_names(n)):
        lines.append(
            f"{name:<6} {captured[team].bit_count()} cards captured, {points[team]} points, "
            f"{sweeps[team]} sweeps: {scores[team]}"
        )
    diff, baazis, deals = match
    lines.append(f"match  {deals} deals played, diff {diff:+d}, baazis {baazis[0]}-{baazis[1]}")
    return "\n".join(lines)


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
