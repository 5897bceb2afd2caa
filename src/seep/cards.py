"""Cards and card sets as ints.

A card is an int ``0..51``: ``rank_index * 4 + suit_index`` with ranks ``A 2 … 9 T J Q K`` and
suits ``S H D C`` (docs/format.md). A set of cards is a 52-bit int mask with bit ``c`` for card
``c``. Because the rank is the high part of the index, the four cards of one rank occupy one nibble,
which lets the engine look at "all loose cards of value V" with one shift.

>>> c = parse_card("TD")
>>> card_value(c), card_name(c), card_points(c)
(10, 'TD', 6)
>>> format_cards(parse_cards("KH 4D 2C 8S"))
'2C 4D 8S KH'
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Final

from .errors import NotationError

__all__ = [
    "ALL_CARDS",
    "CARD_NAMES",
    "FULL_DECK",
    "RANKS",
    "SUITS",
    "byte_fold",
    "card_list",
    "card_mask",
    "card_name",
    "card_points",
    "card_value",
    "cards_of_mask",
    "format_cards",
    "mask_of",
    "mask_points",
    "mask_value_sum",
    "mask_values",
    "next_seat",
    "opponents_of",
    "parse_card",
    "parse_cards",
    "partner_of",
    "plays_made",
    "seat_names",
    "seat_to_move",
    "team_names",
    "team_of",
    "value_mask",
    "values_cards",
]

RANKS: Final = "A23456789TJQK"
SUITS: Final = "SHDC"
ALL_CARDS: Final[tuple[int, ...]] = tuple(range(52))
FULL_DECK: Final = (1 << 52) - 1
CARD_NAMES: Final[tuple[str, ...]] = tuple(r + s for r in RANKS for s in SUITS)
_BY_NAME: Final[dict[str, int]] = {n: i for i, n in enumerate(CARD_NAMES)}

TEN_OF_DIAMONDS: Final = 4 * 9 + 2  # rank index 9 (T), suit index 2 (D)


def card_value(card: int) -> int:
    """Capture value of a card: A=1, 2..9, T=10, J=11, Q=12, K=13 (R4). The rank is the high
    part of the card index, so this is the one place that knows the encoding."""
    return (card >> 2) + 1


def card_points(card: int, ten_diamonds_points: int = 6) -> int:
    """Scoring value of a card (R5): spades score their capture value, the other aces 1, the
    ten of diamonds ``ten_diamonds_points`` (option, A21; 6 by default), every other card 0.
    Under the standard rules the pack holds 100 points."""
    if card & 3 == 0:
        return card_value(card)
    if card_value(card) == 1:
        return 1
    return ten_diamonds_points if card == TEN_OF_DIAMONDS else 0


#: Capture value of each card (R4), for table look-ups on hot paths.
VALUE: Final[tuple[int, ...]] = tuple(card_value(c) for c in ALL_CARDS)
#: Standard card points of each card (R5).
POINTS: Final[tuple[int, ...]] = tuple(card_points(c) for c in ALL_CARDS)
# Mask of the four cards of value v (index v; index 0 is empty).
VALUE_MASK: Final[tuple[int, ...]] = (0, *((0xF << (4 * (v - 1))) for v in range(1, 14)))


def _values_cards_table() -> tuple[int, ...]:
    table = [0] * (1 << 14)
    for m in range(1, 1 << 14):
        low = m & -m
        table[m] = table[m ^ low] | VALUE_MASK[low.bit_length() - 1]
    return tuple(table)


# _VALUES_CARDS[m]: the cards of every value v (1..13) whose bit v is set in m.
_VALUES_CARDS: Final = _values_cards_table()


def values_cards(values: int) -> int:
    """The cards of every value v (1..13) whose bit v is set in ``values``."""
    return _VALUES_CARDS[values & 0x3FFE]


def mask_values(mask: int) -> int:
    """Bitmask (bit v) of the capture values among the cards of a set."""
    out = 0
    for v in range(1, 14):
        if mask & VALUE_MASK[v]:
            out |= 1 << v
    return out


def seat_to_move(dealer: int, plays: int, players: int = 4) -> int:
    """The seat that makes play ``plays + 1`` (R19: the bidder, on the dealer's right, makes
    play 1; then the turn passes to the right): ``(dealer + 1 + plays) % players``. Before
    play 1 it is also the bidder (R12, R13; two players: R2P3, R2P6)."""
    return (dealer + 1 + plays) % players


def seat_names(players: int = 4) -> str:
    """The seats' one-letter compass names, seat 0 first: N W S E (the turn passes to the
    right, R19: N, W, S, E), or N and S facing each other with two players (R2P1).

    >>> seat_names(), seat_names(2)
    ('NWSE', 'NS')
    """
    return "NWSE" if players == 4 else "NS"


def team_names(players: int = 4) -> tuple[str, str]:
    """The teams' names: NS (seats 0 and 2) and WE (seats 1 and 3), or the two players N and
    S (R2P1)."""
    return ("NS", "WE") if players == 4 else ("N", "S")


def next_seat(seat: int, players: int = 4) -> int:
    """The seat that plays after ``seat`` (R19; R2P1: turns alternate)."""
    return (seat + 1) % players


def partner_of(seat: int, players: int = 4) -> int:
    """The partner of ``seat`` (R2: seats s and s+2), or -1 with two players (R2P1)."""
    return (seat + 2) & 3 if players == 4 else -1


def opponents_of(seat: int, players: int = 4) -> tuple[int, ...]:
    """The seats of the other team, in playing order from ``seat`` (R2; R2P1: one)."""
    if players == 4:
        return ((seat + 1) & 3, (seat + 3) & 3)
    return (seat ^ 1,)


def team_of(seat: int) -> int:
    """The team of a seat: ``seat % 2`` (R2; with two players each player is his own team,
    R2P1)."""
    return seat & 1


def card_name(card: int) -> str:
    """Two-character name of a card, e.g. ``'TD'``."""
    return CARD_NAMES[card]


def card_mask(card: int) -> int:
    """The one-card set holding ``card``."""
    return 1 << card


def value_mask(value: int) -> int:
    """The set of the four cards of capture value ``value`` (1..13)."""
    return VALUE_MASK[value]


def parse_card(text: object, *, strict: bool = False) -> int:
    """Parse one card name (``"AS"``, ``"td"``, also ``"10D"``) into a card int.

    With ``strict`` only the 52 docs/format.md names are accepted (``"TD"``, not
    ``"td"``/``"10D"``).

    >>> parse_card("AS"), parse_card("kc"), parse_card("10h")
    (0, 51, 37)
    """
    # ``object``, not ``str``: untrusted JSON reaches here, and the compiled core would reject
    # a non-string at the call with a bare TypeError before this names the problem.
    if not isinstance(text, str):
        raise NotationError(f"a card must be a string like 'AS', got {text!r}")
    if strict:
        card = _BY_NAME.get(text)
        if card is None:
            raise NotationError(
                f"unknown card {text!r}: expected a rank of {RANKS} followed by a suit of {SUITS}"
            )
        return card
    name = text.strip().upper()
    if name.startswith("10"):
        name = "T" + name[2:]
    card = _BY_NAME.get(name)
    if card is None:
        raise NotationError(
            f"unknown card {text!r}: expected a rank of {RANKS} followed by a suit of {SUITS}"
        )
    return card


def cards_of_mask(mask: int) -> Iterator[int]:
    """The cards of a set in index order (A before 2, S before H within a rank)."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def mask_of(cards: Iterable[int]) -> int:
    """The set of the given cards."""
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def parse_cards(text: str | Iterable[str], *, strict: bool = False) -> int:
    """Parse a list of card names (a space/comma separated string or an iterable) into a set.

    Raises :class:`NotationError` on an unknown or repeated card (``strict``: see
    :func:`parse_card`).
    """
    items = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    m = 0
    for item in items:
        c = parse_card(item, strict=strict)
        if m >> c & 1:
            raise NotationError(f"card {card_name(c)} is listed twice")
        m |= 1 << c
    return m


def format_cards(mask: int, sep: str = " ") -> str:
    """Card names of a set, in index order, joined by ``sep``."""
    return sep.join(CARD_NAMES[c] for c in cards_of_mask(mask))


def card_list(mask: int) -> list[str]:
    """Card names of a set as a list (the docs/format.md form)."""
    return [CARD_NAMES[c] for c in cards_of_mask(mask)]


def mask_value_sum(mask: int) -> int:
    """Sum of the capture values of the cards of a set."""
    s = 0
    while mask:
        low = mask & -mask
        s += VALUE[low.bit_length() - 1]
        mask ^= low
    return s


def byte_fold(mask: int, tables: tuple[tuple[int, ...], ...]) -> int:
    """``tables[k][b]`` summed over the seven bytes ``b`` of a card set (byte ``k`` holds the
    cards ``8k..8k+7``): a per-card quantity totalled over a set in seven look-ups, for tables
    that give each byte's total.

    >>> ones = tuple(tuple(b.bit_count() for b in range(256)) for _ in range(7))
    >>> byte_fold(0b101 | 1 << 50, ones)  # a card count
    3
    """
    return (
        tables[0][mask & 255]
        + tables[1][mask >> 8 & 255]
        + tables[2][mask >> 16 & 255]
        + tables[3][mask >> 24 & 255]
        + tables[4][mask >> 32 & 255]
        + tables[5][mask >> 40 & 255]
        + tables[6][mask >> 48 & 255]
    )


# _POINT_BYTES[k][b]: the standard points (R5) of the cards 8k..8k+7 whose bits are set in
# the byte b (byte_fold): a set's points without a walk over its cards (the search scores
# sets in every playout).
_POINT_BYTES: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(
        sum(POINTS[8 * k + i] for i in range(8) if b >> i & 1 and 8 * k + i < 52)
        for b in range(256)
    )
    for k in range(7)
)


def mask_points(mask: int, ten_diamonds_points: int = 6) -> int:
    """Card points of a set (R5), with the ten of diamonds worth ``ten_diamonds_points``.

    >>> mask_points(mask_of([0, 1, 38, 48])), mask_points(1 << 38, 10)  # AS AH TD KS; TD
    (21, 10)
    """
    s = byte_fold(mask, _POINT_BYTES)
    if mask >> TEN_OF_DIAMONDS & 1:
        s += ten_diamonds_points - POINTS[TEN_OF_DIAMONDS]
    return s


def plays_made(dealer: int, plays: int, seat: int, players: int = 4) -> int:
    """How many of plays 1..``plays`` seat ``seat`` made (the turn order of
    :func:`seat_to_move`: his first play is play ``(seat - dealer - 1) % players + 1``, then
    every ``players``-th)."""
    first = (seat - dealer - 1) % players
    return 0 if first >= plays else (plays - 1 - first) // players + 1
