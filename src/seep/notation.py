"""Compact text notation for cards, moves, houses and positions (``docs/notation.md``).

Moves, one line each (cards in any order and case; commas optional):

=======================  =====================================================
``bid 13``               the bid (R13)
``redeal``               no card above 8: deal again (R14)
``KH``                   throw KH (R22)
``KH x 6C 7D 9H 4S``     KH captures the loose cards listed (R23)
``JS x H11 9C 2D``       JS captures house 11 and the loose 9C 2D
``4D =13 9H``            build a house of 13 from 4D and the loose 9H (R27)
``3D +10 7H``            cement 3D and the loose 7H onto house 10 (R28)
``TS +10``               add TS to house 10
``2H ^9=11``             break house 9 up to 11 with 2H (R29)
=======================  =====================================================

Loose cards listed after a build, cement or break are *all* the loose cards that join the
house, as in docs/format.md.

>>> from seep.moves import Move
>>> m = parse_move("4d =13 9h 6c 7d")
>>> format_move(m)
'4D =13 6C 7D 9H'
>>> format_move(parse_move("js x 2d 9c h11"))
'JS x H11 2D 9C'
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from .cards import RANKS, cards_of_mask, format_cards, seat_names, team_names
from .codes import (
    BID,
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
)
from .engine import Position
from .errors import NotationError
from .floor import split_cards
from .format import position_from_dict
from .moves import format_move, parse_move
from .options import PRESETS, Rules

__all__ = [
    "card_text",
    "cards_text",
    "format_house",
    "format_move",
    "format_position",
    "house_sets",
    "move_words",
    "parse_move",
    "parse_position",
    "seat_names",
    "team_names",
]


# --- moves in words ---------------------------------------------------------------------------

_SUIT_SYMBOLS = "♠♥♦♣"


def card_text(card: int) -> str:
    """A card as players write it: ``10♦``, ``A♠``, ``K♥``.

    >>> from seep.cards import parse_card, parse_cards
    >>> card_text(parse_card("TD")), cards_text(parse_cards("TD 5S"))
    ('10♦', '5♠ and 10♦')
    """
    rank = RANKS[card >> 2]
    return ("10" if rank == "T" else rank) + _SUIT_SYMBOLS[card & 3]


def cards_text(mask: int, limit: int = 6) -> str:
    """Cards of a set in words: ``3♣``, ``10♦ and 5♠``, ``2♥, 3♣ and 7♦``; long lists end
    with ``and n more``."""
    names = [card_text(c) for c in cards_of_mask(mask)]
    if len(names) > limit:
        names = [*names[: limit - 1], f"{len(names) - limit + 1} more"]
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


#: Each action's verb: the third person (a bot's reason, "7♣ captures 3♠"), the second ("you
#: throw 9♠", the coach) and the imperative (the terminal's list of moves).
_VERBS = {
    BID: ("bids", "bid"),
    REDEAL: ("shows", "show"),
    THROW: ("throws", "throw"),
    CAPTURE: ("captures", "capture"),
    BUILD: ("builds", "build"),
    CEMENT: ("adds", "add"),
}
_BREAK_VERBS = ("breaks", "break")
_PERSONS = ("third", "you", "imperative")


def move_words(
    code: int,
    person: str = "third",
    card: Callable[[int], str] = card_text,
    cards: Callable[[int], str] = cards_text,
) -> str:
    """A move in English, the one wording every interface uses: ``person`` is ``"third"`` (``7♣
    captures 3♠ and 4♥``, ``builds a house of 12 from 4♥ with 8♣``: a bot's reason),
    ``"you"`` (``you capture 3♠ and 4♥ with 7♣``: the coach) or ``"imperative"`` (``build a
    house of 12 from 4♥ with 8♣``: a list of moves); ``card`` and ``cards`` write a card and a
    set of cards (suit symbols by default; ``seep.cards.card_name`` and
    ``seep.cards.format_cards`` for the terminal's names).

    The card played is named before the floor's cards, and a break says which loose cards join
    the house (R29: the card played breaks it; a loose card of the new value merges into it).

    >>> from seep.moves import parse_move
    >>> move_words(parse_move("7C x 3S 4H"))
    '7♣ captures 3♠ and 4♥'
    >>> move_words(parse_move("JS x H11 9C"), "you")
    'you capture the house of 11 and 9♣ with J♠'
    >>> move_words(parse_move("3H ^9=12 QD"), "imperative")
    'break the house of 9 up to 12 with 3♥ (Q♦ joins it)'
    """
    if person not in _PERSONS:
        raise ValueError(f"person must be one of {_PERSONS}, got {person!r}")
    action = code_action(code)
    forms = _VERBS.get(action, _BREAK_VERBS)
    verb = forms[0] if person == "third" else forms[1]
    if person == "you":
        verb = "you " + verb
    if action == BID:
        return f"{verb} {code_value(code)}"
    if action == REDEAL:
        return f"{verb} the hand for a redeal"
    played = card(code_card(code))
    loose = code_loose(code)
    if action == THROW:
        return f"{verb} {played}"
    if action == CAPTURE:
        taken = [f"the house of {9 + i}" for i in range(5) if code_houses(code) >> i & 1]
        if loose:
            taken.append(cards(loose))
        if person == "third":  # the card is the subject: "7♣ captures 3♠"
            return f"{played} {verb} {' and '.join(taken)}"
        return f"{verb} {' and '.join(taken)} with {played}"
    value = code_value(code)
    extra = f" with {cards(loose)}" if loose else ""
    if action == BUILD:
        return f"{verb} a house of {value} from {played}{extra}"
    if action == CEMENT:
        return f"{verb} {played}{extra} to the house of {value}"
    # R29: the card played breaks the house; the loose cards of the new value merge into it
    # (not "with 3♣ with Q♦", which reads as if Q♦ broke it).
    joins = ""
    if loose:
        joins = f" ({cards(loose)} {'joins' if loose.bit_count() == 1 else 'join'} it)"
    return f"{verb} the house of {code_house(code)} up to {value} with {played}{joins}"


# --- houses ---------------------------------------------------------------------------------


def house_sets(cards: int, value: int) -> list[int]:
    """Split a house's cards into sets each worth ``value`` (R21b), largest cards first.

    >>> from seep.cards import parse_cards
    >>> [format_cards(s) for s in house_sets(parse_cards("TC 7D 3C"), 10)]
    ['TC', '3C 7D']
    """
    sets = split_cards(cards, value)
    if sets is None:
        raise NotationError(f"cards {format_cards(cards)} do not form a house of {value}")
    return sets


def format_house(value: int, cards: int, owners: int, names: str = "0123") -> str:
    """A house as in docs/rules.md's examples: ``H10[TC | 3C 7D]{2}`` (owners as seat names).

    >>> from seep.cards import parse_cards
    >>> format_house(10, parse_cards("TC 7D 3C"), 0b0100, names="NWSE")
    'H10[TC | 3C 7D]{S}'
    """
    sets = " | ".join(format_cards(s) for s in house_sets(cards, value))
    who = ", ".join(names[s] for s in range(4) if owners >> s & 1)
    return f"H{value}[{sets}]{{{who}}}"


# --- positions ------------------------------------------------------------------------------


def _cat(mask_cards: list[str]) -> str:
    return "".join(mask_cards) or "-"


def _uncat(text: str, field: str) -> list[str]:
    if text == "-":
        return []
    if len(text) % 2:
        raise NotationError(f"{field}: {text!r} is not a run of two-character cards")
    return [text[i : i + 2].upper() for i in range(0, len(text), 2)]


def _format_rules(rules: Rules) -> str:
    name = rules.preset_name()
    if name:
        return name
    return ",".join(f"{k}={json.dumps(v)}" for k, v in rules.changed().items())


def _parse_rules(text: str) -> dict[str, Any] | str:
    if text in PRESETS:
        return text
    out: dict[str, Any] = {}
    for item in text.split(","):
        key, sep, val = item.partition("=")
        if not sep:
            raise NotationError(f"rules: expected a preset name or key=value pairs, got {item!r}")
        try:
            out[key] = json.loads(val)
        except json.JSONDecodeError:
            out[key] = val  # a bare string such as capture_rule=any
    return out


def format_position(pos: Position) -> str:
    """One-line text of a position (the reverse of :func:`parse_position`).

    Thirteen space-separated fields: rules, dealer, phase, bid, plays, hands (``/`` between
    seats), stock, loose, houses (``,`` between; ``V*`` when cemented; ``@`` owner seats),
    captured piles (``/``), sweeps (``/``), last capture, match (``diff/baazis0/baazis1/deals``).
    ``-`` stands for an empty field.

    >>> p = Position.new_deal(5)
    >>> parse_position(format_position(p)).to_dict() == p.to_dict()
    True
    """
    d = pos.to_dict()
    houses = ",".join(
        f"{h['value']}{'*' if h['cemented'] else ''}{''.join(h['cards'])}@"
        + "".join(str(o) for o in h["owners"])
        for h in d["houses"]
    )
    m = d["match"]
    fields = [
        _format_rules(pos.rules),
        str(d["dealer"]),
        d["phase"],
        str(d["bid"]) if d["bid"] is not None else "-",
        str(d["plays"]),
        "/".join(_cat(h) for h in d["hands"]),
        _cat(d["stock"]),
        _cat(d["loose"]),
        houses or "-",
        "/".join(_cat(c) for c in d["captured"]),
        f"{d['sweeps'][0]}/{d['sweeps'][1]}",
        "-" if d["last_capture"] is None else str(d["last_capture"]),
        f"{m['diff']}/{m['baazis'][0]}/{m['baazis'][1]}/{m['deals']}",
    ]
    return " ".join(fields)


def _int(text: str, field: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise NotationError(f"{field}: expected an integer, got {text!r}") from None


def parse_position(text: str) -> Position:
    """Parse the one-line position text; the result is validated like a docs/format.md dict."""
    parts = text.split()
    if len(parts) != 13:
        raise NotationError(
            f"a position has 13 space-separated fields (rules dealer phase bid plays hands stock "
            f"loose houses captured sweeps last match), got {len(parts)}"
        )
    (rules, dealer, phase, bid, plays, hands, stock, loose, houses, captured, sweeps, last,
     match) = parts  # fmt: skip
    hand_parts = hands.split("/")
    if len(hand_parts) not in (2, 4):
        raise NotationError(
            f"hands: four seats (two under players=2) separated by '/', got {hands!r}"
        )
    cap_parts = captured.split("/")
    if len(cap_parts) != 2:
        raise NotationError(f"captured: two piles separated by '/', got {captured!r}")
    house_list = []
    if houses != "-":
        for h in houses.split(","):
            head, sep, owners = h.partition("@")
            if not sep:
                raise NotationError(f"house {h!r}: owners follow '@'")
            i = 2 if head[:2] in ("10", "11", "12", "13") else 1
            value = _int(head[:i], "house value")
            cemented = head[i : i + 1] == "*"
            body = head[i + 1 :] if cemented else head[i:]
            house_list.append(
                {
                    "value": value,
                    "cards": _uncat(body, "house cards"),
                    "cemented": cemented,
                    "owners": [_int(o, "owner") for o in owners],
                }
            )
    sw = sweeps.split("/")
    mt = match.split("/")
    if len(sw) != 2 or len(mt) != 4:
        raise NotationError("sweeps are 'a/b' and match is 'diff/baazis0/baazis1/deals'")
    data = {
        "format": "seep/1",
        "rules": _parse_rules(rules),
        "dealer": _int(dealer, "dealer"),
        "phase": phase,
        "bid": None if bid == "-" else _int(bid, "bid"),
        "plays": _int(plays, "plays"),
        "hands": [_uncat(h, "hands") for h in hand_parts],
        "stock": _uncat(stock, "stock"),
        "loose": _uncat(loose, "loose"),
        "houses": house_list,
        "captured": [_uncat(c, "captured") for c in cap_parts],
        "sweeps": [_int(s, "sweeps") for s in sw],
        "last_capture": None if last == "-" else _int(last, "last capture"),
        "match": {
            "diff": _int(mt[0], "match"),
            "baazis": [_int(mt[1], "match"), _int(mt[2], "match")],
            "deals": _int(mt[3], "match"),
        },
    }
    return position_from_dict(data)
