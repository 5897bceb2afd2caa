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

from .errors import NotationError

__all__ = [
    "ALL_CARDS",
    "CARD_NAMES",
    "FULL_DECK",
    "RANKS",
    "SUITS",
    "card_mask",
    "card_name",
    "card_points",
    "card_value",
    "cards_of_mask",
    "format_cards",
    "mask_of",
    "mask_points",
    "mask_value_sum",
    "parse_card",
    "parse_cards",
    "parse_mask",
    "value_mask",
]

RANKS = "A23456789TJQK"
SUITS = "SHDC"
ALL_CARDS: tuple[int, ...] = tuple(range(52))
FULL_DECK: int = (1 << 52) - 1
CARD_NAMES: tuple[str, ...] = tuple(r + s for r in RANKS for s in SUITS)
_BY_NAME: dict[str, int] = {n: i for i, n in enumerate(CARD_NAMES)}

# Capture value (R4): A=1 … K=13; the rank index is value - 1.
VALUE: tuple[int, ...] = tuple((c >> 2) + 1 for c in ALL_CARDS)


def _standard_points(c: int) -> int:
    """Scoring value of a card under the standard rules (R5): spades by value, other aces 1,
    the ten of diamonds 6 (the option ``ten_diamonds_points`` is applied in scoring)."""
    if c & 3 == 0:
        return VALUE[c]
    if VALUE[c] == 1:
        return 1
    return 6 if CARD_NAMES[c] == "TD" else 0


POINTS: tuple[int, ...] = tuple(_standard_points(c) for c in ALL_CARDS)
TEN_OF_DIAMONDS: int = _BY_NAME["TD"]
# Mask of the four cards of value v (index v; index 0 is empty).
VALUE_MASK: tuple[int, ...] = (0, *((0xF << (4 * (v - 1))) for v in range(1, 14)))


def card_value(card: int) -> int:
    """Capture value of a card: A=1, 2..9, T=10, J=11, Q=12, K=13 (R4)."""
    return (card >> 2) + 1


def card_points(card: int) -> int:
    """Standard scoring value of a card (R5): 100 points in the whole pack."""
    return POINTS[card]


def card_name(card: int) -> str:
    """Two-character name of a card, e.g. ``'TD'``."""
    return CARD_NAMES[card]


def card_mask(card: int) -> int:
    """The one-card set holding ``card``."""
    return 1 << card


def value_mask(value: int) -> int:
    """The set of the four cards of capture value ``value`` (1..13)."""
    return VALUE_MASK[value]


def parse_card(text: str, *, strict: bool = False) -> int:
    """Parse one card name (``"AS"``, ``"td"``, also ``"10D"``) into a card int.

    With ``strict`` only the 52 docs/format.md names are accepted (``"TD"``, not
    ``"td"``/``"10D"``).

    >>> parse_card("AS"), parse_card("kc"), parse_card("10h")
    (0, 51, 37)
    """
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


parse_mask = parse_cards


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
        s += ((low.bit_length() - 1) >> 2) + 1
        mask ^= low
    return s


def mask_points(mask: int, ten_diamonds_points: int = 6) -> int:
    """Card points of a set (R5), with the ten of diamonds worth ``ten_diamonds_points``."""
    s = 0
    for c in cards_of_mask(mask):
        s += POINTS[c]
    if mask >> TEN_OF_DIAMONDS & 1:
        s += ten_diamonds_points - POINTS[TEN_OF_DIAMONDS]
    return s
