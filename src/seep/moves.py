"""Moves: the readable face of a move code, docs/format.md move dicts and move notation.

A :class:`Move` *is* its code (an ``int`` subclass), so it costs nothing to convert, compares
and hashes like the code, and two moves are equal exactly when docs/format.md calls them the same.

>>> from seep.cards import parse_card, parse_cards
>>> m = Move.build(parse_card("4D"), 13, parse_cards("9H"))
>>> m.action, m.value, m.to_dict()
('build', 13, {'action': 'build', 'card': '4D', 'value': 13, 'loose': ['9H']})
>>> Move.from_dict(m.to_dict()) == m
True
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from .cards import CARD_NAMES, card_list, card_value, format_cards, parse_card, parse_cards
from .codes import (
    ACTION_NAMES,
    BID,
    BREAK,
    BUILD,
    CAPTURE,
    CEMENT,
    REDEAL,
    THROW,
    code_action,
    code_card,
    code_house,
    code_houses,
    code_loose,
    code_value,
    make_code,
)
from .errors import MalformedMoveError, NotationError

__all__ = ["ACTIONS", "Move", "MoveRecord", "format_move", "move_code", "parse_move"]

ACTIONS: dict[str, int] = {name: i for i, name in enumerate(ACTION_NAMES)}
# The fields each action carries in docs/format.md, in the order they are written.
_FIELDS: dict[int, tuple[str, ...]] = {
    BID: ("value",),
    REDEAL: (),
    THROW: ("card",),
    CAPTURE: ("card", "loose", "houses"),
    BUILD: ("card", "value", "loose"),
    CEMENT: ("card", "value", "loose"),
    BREAK: ("card", "house", "value", "loose"),
}
# Fields a client may add without changing the move: the seat of a history entry.
_IGNORED = frozenset({"action", "seat"})


class Move(int):
    """A move, represented by its packed code (see :mod:`seep.engine`): ``Move(code)``, or
    one of the constructors below, :meth:`from_dict` or :func:`parse_move`."""

    __slots__ = ()
    __signature__: ClassVar[inspect.Signature]  # set below the class

    # --- constructors -------------------------------------------------------------------

    @classmethod
    def bid(cls, value: int) -> Move:
        """The bidder's bid (R13)."""
        return cls(make_code(BID, value=value))

    @classmethod
    def redeal(cls) -> Move:
        """Show a hand without a card above 8 and deal again (R14)."""
        return cls(make_code(REDEAL))

    @classmethod
    def throw(cls, card: int) -> Move:
        """Play ``card`` loose onto the floor (R22)."""
        return cls(make_code(THROW, card))

    @classmethod
    def capture(cls, card: int, loose: int = 0, houses: tuple[int, ...] = ()) -> Move:
        """Take the loose cards of mask ``loose`` and the houses of the given values (R23)."""
        hb = 0
        for v in houses:
            hb |= 1 << (v - 9)
        return cls(make_code(CAPTURE, card, value=card_value(card), loose=loose, houses=hb))

    @classmethod
    def build(cls, card: int, value: int, loose: int) -> Move:
        """A new house of ``value`` from ``card`` and the loose cards of mask ``loose`` (R27)."""
        return cls(make_code(BUILD, card, value=value, loose=loose))

    @classmethod
    def cement(cls, card: int, value: int, loose: int = 0) -> Move:
        """Add ``card`` (and loose cards) to the existing house of ``value`` (R28)."""
        return cls(make_code(CEMENT, card, value=value, loose=loose))

    @classmethod
    def break_house(cls, card: int, house: int, value: int, loose: int = 0) -> Move:
        """Raise the ordinary house of value ``house`` to ``value`` with ``card`` (R29)."""
        return cls(make_code(BREAK, card, value=value, house=house, loose=loose))

    # --- fields -------------------------------------------------------------------------

    @property
    def action_id(self) -> int:
        """The action as an int (``seep.codes.THROW`` …)."""
        return code_action(self)

    @property
    def action(self) -> str:
        """``"bid"``, ``"redeal"``, ``"throw"``, ``"capture"``, ``"build"``, ``"cement"`` or
        ``"break"``."""
        return ACTION_NAMES[code_action(self)]

    @property
    def card(self) -> int | None:
        """The card played, ``None`` for bids and redeals."""
        return None if code_action(self) in (BID, REDEAL) else code_card(self)

    @property
    def value(self) -> int | None:
        """The bid value or the value of the house made; ``None`` for throws and captures."""
        a = code_action(self)
        return code_value(self) if a in (BID, BUILD, CEMENT, BREAK) else None

    @property
    def house(self) -> int | None:
        """The old value of the house a break raises."""
        return code_house(self) if code_action(self) == BREAK else None

    @property
    def loose(self) -> int:
        """Mask of every loose card the move takes off the loose area."""
        return code_loose(self)

    @property
    def houses(self) -> tuple[int, ...]:
        """Values of the houses a capture takes."""
        hb = code_houses(self)
        return tuple(9 + i for i in range(5) if hb >> i & 1)

    def is_play(self) -> bool:
        """True for a card play (not a bid or a redeal)."""
        return code_action(self) not in (BID, REDEAL)

    # --- docs/format.md ----------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The docs/format.md move (card lists in index order)."""
        a = code_action(self)
        d: dict[str, Any] = {"action": ACTION_NAMES[a]}
        for f in _FIELDS[a]:
            if f == "card":
                d["card"] = CARD_NAMES[code_card(self)]
            elif f == "value":
                d["value"] = code_value(self)
            elif f == "house":
                d["house"] = code_house(self)
            elif f == "loose":
                d["loose"] = card_list(code_loose(self))
            else:
                d["houses"] = list(self.houses)
        return d

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Move:
        """Parse a docs/format.md move; raises :class:`MalformedMoveError` naming what is wrong."""
        if not isinstance(data, Mapping):
            raise MalformedMoveError(f"a move must be a JSON object, got {type(data).__name__}")
        name = data.get("action")
        if name not in ACTIONS:
            raise MalformedMoveError(
                f"unknown move action {name!r} (expected one of {', '.join(ACTIONS)})"
            )
        a = ACTIONS[name]
        fields = _FIELDS[a]
        for key in data:
            if key not in fields and key not in _IGNORED:
                raise MalformedMoveError(f"a {name} move has no field {key!r}")
        for key in fields:
            if key not in data:
                raise MalformedMoveError(f"a {name} move needs the field {key!r}")
        try:
            card = parse_card(data["card"], strict=True) if "card" in fields else 0
            loose = (
                parse_cards(_card_list(data["loose"], "loose"), strict=True)
                if "loose" in fields
                else 0
            )
        except NotationError as exc:
            raise MalformedMoveError(f"{name} move: {exc}") from None
        value = _int_field(data, "value", name, 1, 13) if "value" in fields else 0
        house = _int_field(data, "house", name, 9, 13) if "house" in fields else 0
        if a == CAPTURE:
            hv = data["houses"]
            if not isinstance(hv, list) or not all(
                isinstance(v, int) and not isinstance(v, bool) and 9 <= v <= 13 for v in hv
            ):
                raise MalformedMoveError(
                    f"capture move: 'houses' must be a list of house values 9..13, got {hv!r}"
                )
            if len(set(hv)) != len(hv):
                raise MalformedMoveError(f"capture move: a house is listed twice in {hv!r}")
            return cls.capture(card, loose, tuple(hv))
        if a == BID and not 9 <= value <= 13:
            raise MalformedMoveError(f"bid move: the value must be 9..13, got {value}")
        if a in (BUILD, CEMENT, BREAK) and not 9 <= value <= 13:
            raise MalformedMoveError(f"{name} move: a house value is 9..13, got {value}")
        return cls(make_code(a, card, value=value, house=house, loose=loose))

    def __str__(self) -> str:
        return format_move(self)

    def __repr__(self) -> str:
        return f"Move({self!s})"


# --- notation ----------------------------------------------------------------------------------


# int's own __new__ has no signature to show (inspect.signature(Move) fails); a Python __new__
# would slow every Move made.
Move.__signature__ = inspect.Signature(
    [inspect.Parameter("code", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=int)]
)


def format_move(move: int) -> str:
    """The notation of a move (canonical: cards in index order, houses first).

    >>> format_move(Move.break_house(parse_card("2H"), 9, 11))
    '2H ^9=11'
    """
    a = code_action(move)
    if a == BID:
        return f"bid {code_value(move)}"
    if a == REDEAL:
        return "redeal"
    card = CARD_NAMES[code_card(move)]
    loose = code_loose(move)
    tail = (" " + format_cards(loose)) if loose else ""
    if a == THROW:
        return card
    if a == CAPTURE:
        hb = code_houses(move)
        houses = "".join(f" H{9 + i}" for i in range(5) if hb >> i & 1)
        return f"{card} x{houses}{tail}"
    if a == BUILD:
        return f"{card} ={code_value(move)}{tail}"
    if a == CEMENT:
        return f"{card} +{code_value(move)}{tail}"
    return f"{card} ^{code_house(move)}={code_value(move)}{tail}"


def _house_value(text: str, token: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise NotationError(f"bad house value in {token!r}: expected 9..13") from None
    if not 9 <= v <= 13:
        raise NotationError(f"bad house value in {token!r}: a house is worth 9..13")
    return v


def parse_move(text: str) -> Move:
    """Parse a move in notation (see the module docstring); raises :class:`NotationError`.

    >>> parse_move("TS +10").to_dict()
    {'action': 'cement', 'card': 'TS', 'value': 10, 'loose': []}
    >>> parse_move("3C ^9=12 QD").to_dict()
    {'action': 'break', 'card': '3C', 'house': 9, 'value': 12, 'loose': ['QD']}
    """
    if not isinstance(text, str):
        raise NotationError(f"a move must be text, got {type(text).__name__}")
    tokens = text.replace(",", " ").split()
    if not tokens:
        raise NotationError("empty move")
    head = tokens[0].lower()
    if head == "redeal":
        if len(tokens) != 1:
            raise NotationError("'redeal' takes nothing after it")
        return Move.redeal()
    if head == "bid":
        if len(tokens) != 2 or not tokens[1].isdigit() or not 9 <= int(tokens[1]) <= 13:
            raise NotationError(f"a bid is 'bid V' with V in 9..13, got {text!r}")
        return Move.bid(int(tokens[1]))
    card = parse_card(tokens[0])
    if len(tokens) == 1:
        return Move.throw(card)
    op = tokens[1]
    rest = tokens[2:]
    if op.lower() == "x":
        houses: list[int] = []
        cards: list[str] = []
        for tok in rest:
            if tok[:1] in "hH" and tok[1:].isdigit():
                houses.append(_house_value(tok[1:], tok))
            else:
                cards.append(tok)
        if len(set(houses)) != len(houses):
            raise NotationError(f"a house is named twice in {text!r}")
        return Move.capture(card, parse_cards(cards), tuple(sorted(houses)))
    loose = parse_cards(rest)
    if op.startswith("="):
        return Move(make_code(BUILD, card, value=_house_value(op[1:], op), loose=loose))
    if op.startswith("+"):
        return Move(make_code(CEMENT, card, value=_house_value(op[1:], op), loose=loose))
    if op.startswith("^"):
        old, sep, new = op[1:].partition("=")
        if not sep:
            raise NotationError(f"a break is written 'CARD ^OLD=NEW', got {op!r}")
        return Move(
            make_code(
                BREAK,
                card,
                value=_house_value(new, op),
                house=_house_value(old, op),
                loose=loose,
            )
        )
    raise NotationError(
        f"unknown move operator {op!r} in {text!r}: expected x (capture), =V (build), "
        "+V (cement) or ^H=V (break)"
    )


def move_code(move: int | str | Mapping[str, Any]) -> int:
    """The code of a move given any way the engine takes one: a code (or :class:`Move`),
    notation text or a docs/format.md move object. Text that does not parse raises
    :class:`NotationError`, a bad object or anything else :class:`MalformedMoveError`, each
    naming the problem.

    >>> move_code("bid 13") == Move.bid(13) == move_code({"action": "bid", "value": 13})
    True
    >>> move_code("6Q")
    Traceback (most recent call last):
    ...
    seep.errors.NotationError: unknown card '6Q': ...
    """
    if isinstance(move, int) and not isinstance(move, bool):
        return int(move)
    if isinstance(move, str):
        return int(parse_move(move))
    if isinstance(move, Mapping):
        return int(Move.from_dict(move))
    raise MalformedMoveError(
        f"a move is a code, notation text or a docs/format.md move object, "
        f"got {type(move).__name__}"
    )


def _card_list(value: Any, field: str) -> list[str]:
    if not isinstance(value, list):
        raise NotationError(f"'{field}' must be a list of cards, got {value!r}")
    return value


def _int_field(data: Mapping[str, Any], key: str, name: str, lo: int, hi: int) -> int:
    value = data[key]
    if not isinstance(value, int) or isinstance(value, bool):
        raise MalformedMoveError(f"{name} move: {key!r} must be an integer, got {value!r}")
    if not lo <= value <= hi:
        raise MalformedMoveError(f"{name} move: {key!r} must be {lo}..{hi}, got {value}")
    return value


@dataclass(frozen=True, slots=True)
class MoveRecord:
    """A move as a game log holds it: the ``seat`` that made it, its ``code`` and the sweep
    bonus it scored (R38; 0 for a move that swept nothing). Records, the web's move messages
    and the protocol's logs write it with :meth:`to_dict`.

    >>> from seep.cards import parse_card
    >>> MoveRecord(2, Move.throw(parse_card("KH"))).to_dict()
    {'action': 'throw', 'card': 'KH', 'seat': 2}
    """

    seat: int
    code: int
    sweep: int = 0

    def to_dict(self) -> dict[str, Any]:
        """The docs/format.md move with its ``seat`` (the sweep is not part of it: a reader
        replays the move and finds it)."""
        out = Move(self.code).to_dict()
        out["seat"] = self.seat
        return out
