"""Move codes: one packed int per move, and the phases of a deal.

A move is one int, its *code*:

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

>>> code = make_code(CAPTURE, 35, value=9, loose=1 << 32)
>>> code_action(code) == CAPTURE, code_card(code), code_value(code), code_loose(code) == 1 << 32
(True, 35, 9, True)
"""

from __future__ import annotations

from typing import Final

from .cards import FULL_DECK

__all__ = [
    "ACTION_NAMES",
    "BID",
    "BREAK",
    "BUILD",
    "CAPTURE",
    "CEMENT",
    "CODE_BITS",
    "HOUSE_CODE_BIT",
    "PHASE_BID",
    "PHASE_NAMES",
    "PHASE_OVER",
    "PHASE_PLAY",
    "REDEAL",
    "SH_ACTION",
    "SH_CARD",
    "SH_HOUSE",
    "SH_HOUSES",
    "SH_VALUE",
    "THROW",
    "code_action",
    "code_card",
    "code_house",
    "code_houses",
    "code_loose",
    "code_value",
    "house_bit",
    "make_code",
]

THROW: Final = 0
CAPTURE: Final = 1
BUILD: Final = 2
CEMENT: Final = 3
BREAK: Final = 4
BID: Final = 5
REDEAL: Final = 6
ACTION_NAMES: Final = ("throw", "capture", "build", "cement", "break", "bid", "redeal")

LOOSE_BITS: Final = FULL_DECK
SH_HOUSES: Final = 52
SH_CARD: Final = 57
SH_ACTION: Final = 63
SH_VALUE: Final = 66
SH_HOUSE: Final = 70
#: Bits a code may use at all (above them nothing is set).
CODE_BITS: Final = SH_HOUSE + 4

# The phases of a deal (docs/format.md ``phase``): which kinds of codes may be played.
PHASE_BID: Final = 0
PHASE_PLAY: Final = 1
PHASE_OVER: Final = 2
PHASE_NAMES: Final = ("bid", "play", "over")


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


def house_bit(value: int) -> int:
    """The code bit that captures the house of ``value`` (9..13)."""
    return 1 << (SH_HOUSES + value - 9)


#: :func:`house_bit` by value (0 for values that are never houses).
HOUSE_CODE_BIT: Final = (0,) * 9 + tuple(house_bit(v) for v in range(9, 14))
