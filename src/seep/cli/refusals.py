"""Why a move is refused, worded for the player at the terminal.

:func:`seep.verify.check` answers an illegal move with a :class:`~seep.verify.Refusal`: the
rule it breaks, the facts it rests on (``args``) and a sentence about "seat 2" for any reader.
The player at the terminal is that seat, so the terminal words the same rule and facts in the
second person ("you hold no card of value 13"), names seats by their compass names, and adds
the rule's number (docs/rules.md). The engine decides; this module only words its answer.

>>> from seep.verify import Refusal
>>> from seep.notation import parse_move
>>> refused = Refusal(
...     "R13",
...     "seat {seat} holds no card of value {value}; the bid must be the value of a card "
...     "in hand (possible: {possible})",
...     seat=2, value=13, possible="10, 12",
... )
>>> words = refusal_text(refused, parse_move("bid 13"), you=2)
>>> words.split(", and ")[0]
'You cannot bid 13: you hold no card of value 13'
>>> words.split(", and ")[1]
'a bid must be the value of a card in your hand (you can bid 10 or 12). Rule R13.'
"""

from __future__ import annotations

from ..errors import SeepError
from ..moves import Move
from ..notation import format_move
from ..verify import Refusal
from .render import seat_names

__all__ = ["refusal_text"]

# The refusals that speak of the seat to move, keyed by seep.verify's own templates, in the
# second person. A template not listed here (a new one) is still worded, in the third
# person with the seat's compass name: the player never sees a bare seat number.
YOURS: dict[str, str] = {
    "the deal is in the bid phase: seat {seat} (the bidder) must bid": (
        "the deal is in the bid phase and you are the bidder: bid first"
    ),
    "card {card} is not in the hand of seat {seat}, the player to move": ("you do not hold {card}"),
    "seat {seat} owns house {house}; you may never break your own house": (
        "house {house} is yours, and you may never break your own house"
    ),
    "breaking house {house} up to {value} needs a card of value {value} kept in hand; seat "
    "{seat} would hold none": (
        "breaking house {house} up to {value} needs a card of value {value} kept in your hand, "
        "and you would hold none"
    ),
    "seat {seat} owns house {value} and {card} is his last card of value {value}: he may only "
    "capture house {value} with it (retention)": (
        "you own house {value} and {card} is your last card of value {value}: you may only "
        "capture house {value} with it"
    ),
    "seat {seat} owns house {value} and would give up his last card of value {value}": (
        "you own house {value}, and this would give up your last card of value {value}"
    ),
    "seat {seat} holds no card above 8, so he cannot bid: redeal": (
        "you hold no card above 8, so you cannot bid: the cards are dealt again (press Enter)"
    ),
    "seat {seat} holds no card of value {value}; the bid must be the value of a card in hand "
    "(possible: {possible})": (
        "you hold no card of value {value}, and a bid must be the value of a card in your hand "
        "(you can bid {possible})"
    ),
    "seat {seat} holds a card above 8 and can bid {possible}; a redeal is only for a hand "
    "without one": (
        "you hold a card above 8 and can bid {possible}; a redeal is only for a hand without one"
    ),
    "seat {seat} must keep a card of value {value} to build a house of {value}; he would hold "
    "none": (
        "you must keep a card of value {value} to build a house of {value}, and you would hold none"
    ),
}


def _choices(values: object) -> str:
    """``"10, 12"`` (the values of :func:`seep.verify.check`) as ``10 or 12``."""
    head, _, last = str(values).rpartition(", ")
    return f"{head} or {last}" if head else last


def _attempt(code: int) -> str:
    """What the player tried, after "You cannot": ``bid 13``, ``play 9S x 4H 5D``."""
    try:
        move = Move(code)
        if move.action == "bid":
            return f"bid {move.value}"
        if move.action == "redeal":
            return "ask for a redeal"
        return f"play {format_move(code)}"
    except (SeepError, ValueError):
        return "make that move"


def refusal_text(
    refusal: Refusal, code: int, you: int, players: int = 4, attempt: str | None = None
) -> str:
    """The refusal of ``code`` for the player of seat ``you``: what was tried (``attempt``,
    else ``code`` in words), why not, in the second person when it is about that seat, and
    the rule's number."""
    args = dict(refusal.args)
    if "possible" in args:
        args["possible"] = _choices(args["possible"])
    template = refusal.template
    if args.get("seat") == you and template in YOURS:
        template = YOURS[template]
    elif isinstance(args.get("seat"), int):
        seat = args["seat"]
        assert isinstance(seat, int)
        args["seat"] = seat_names(players)[seat] + (" (you)" if seat == you else "")
    reason = template.format(**args)
    return f"You cannot {attempt or _attempt(code)}: {reason}. Rule {refusal.rule}."
