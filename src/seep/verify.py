"""The one checker of a move: legal, or the rule it breaks.

:func:`check` decides, for one move code in a position, whether it is legal, directly from the
rules and without listing every legal move (a huge floor can have astronomically many). An
illegal move gets a :class:`Refusal`: the rule it breaks (``"R16"``, ``"R21d"``, ``"A22"`` …),
the facts that show it (``args``), and the sentence for a player (``text``).
:meth:`Position.is_legal <seep.engine.Position.is_legal>` is ``check(...) is None``, and
:func:`verify_move` (used by :meth:`Position.play <seep.engine.Position.play>`, the protocol and
the match) raises :class:`IllegalMoveError` with that sentence. The move generator
(``Position.legal_codes``) is held equal to this checker by the tests (tests/core/test_is_legal.py),
both ways.

>>> from seep.engine import Position
>>> from seep.moves import Move
>>> p = Position.new_deal(7)
>>> r = check(p, Move.redeal())
>>> r.rule, r.args
('R14', {'seat': 1, 'possible': '10'})
>>> str(r)
'seat 1 holds a card above 8 and can bid 10; a redeal is only for a hand without one (R14)'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

from .cards import VALUE, VALUE_MASK, card_name, cards_of_mask, format_cards, seat_to_move
from .codes import (
    ACTION_NAMES,
    BID,
    BREAK,
    BUILD,
    CAPTURE,
    CEMENT,
    CODE_BITS,
    PHASE_BID,
    PHASE_OVER,
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
from .errors import IllegalMoveError
from .floor import splits_exactly, subset_sums
from .moves import Move, move_code
from .options import Rules

if TYPE_CHECKING:  # the engine imports this module; the type is only for annotations
    from .engine import Position

__all__ = ["Refusal", "capture_else_throw_is_legal", "check", "verify_move"]

_HOUSE_VALUES: Final = (9, 10, 11, 12, 13)
_HIGH_VALUES: Final = 0b11111 << 9
# The rule that defines each kind of card play (for refusals about its own fields).
_ACTION_RULE: Final = {THROW: "R22", CAPTURE: "R23", BUILD: "R27", CEMENT: "R28", BREAK: "R29"}


class Refusal:
    """Why a move is illegal: the rule it breaks, the facts that show it, and the sentence.

    ``rule`` is the number of the rule (docs/rules.md: ``"R16"``, ``"R21d"``, ``"A22"`` …);
    ``args`` the facts of the position the refusal rests on (``{"bid": 13}``, ``{"seat": 2,
    "value": 10}`` …, ints and card texts); ``text`` the explanation with them filled into
    ``template``; ``str()`` gives the text and the rule.
    """

    __slots__ = ("args", "rule", "template")

    rule: str
    template: str
    args: dict[str, object]

    def __init__(self, rule: str, template: str, **args: object) -> None:
        self.rule = rule
        self.template = template
        self.args = args

    @property
    def text(self) -> str:
        """The explanation, for a player."""
        return self.template.format(**self.args)

    def __str__(self) -> str:
        return f"{self.text} ({self.rule})"

    def __repr__(self) -> str:
        return f"Refusal({self.rule!r}, {self.text!r})"

    def __reduce__(self) -> tuple[object, tuple[str, str, dict[str, object]]]:
        # Compiled, the default pickling would call Refusal() without its arguments.
        return (_refusal, (self.rule, self.template, self.args))


def _refusal(rule: str, template: str, args: dict[str, object]) -> Refusal:
    return Refusal(rule, template, **args)


def verify_move(pos: Position, move: int | str | Mapping[str, Any]) -> None:
    """Raise :class:`IllegalMoveError` saying why, unless ``move`` (as :func:`check` takes
    it) is legal in ``pos``; the error's ``refusal`` is :func:`check`'s."""
    code = move if isinstance(move, int) and not isinstance(move, bool) else move_code(move)
    refusal = _check(pos, code)
    if refusal is not None:
        raise IllegalMoveError(f"illegal move {_move_text(code)!r}: {refusal}", refusal)


def _move_text(move: int) -> str:
    try:
        return str(Move(move))
    except (ValueError, IndexError, KeyError):
        return f"code {move:#x}"


def _cards_text(mask: int) -> str:
    return "{" + format_cards(mask, ",") + "}" if mask else "{}"


def _values_text(values: int) -> str:
    return ", ".join(str(v) for v in range(14) if values >> v & 1)


def check(pos: Position, move: int | str | Mapping[str, Any]) -> Refusal | None:
    """``None`` when ``move`` is legal in ``pos``; otherwise the :class:`Refusal` naming the
    rule it breaks (docs/rules.md §5-§7).

    ``move`` is a move code (or :class:`~seep.moves.Move`), notation text (``"6D"``,
    ``"KH x 3C TD"``, docs/notation.md) or a docs/format.md move object. Text that does not
    parse raises :class:`~seep.errors.NotationError` and a bad object
    :class:`~seep.errors.MalformedMoveError`, each naming the problem: a move that cannot be
    read is not one the rules refuse.

    >>> from seep.engine import Position
    >>> check(Position.new_deal(7), "bid 12").rule
    'R13'
    """
    if isinstance(move, int) and not isinstance(move, bool):
        return _check(pos, move)
    return _check(pos, move_code(move))


def _check(pos: Position, code: int) -> Refusal | None:
    phase = pos.phase_id
    if phase == PHASE_OVER:
        return Refusal("R40", "the deal is over (48 plays made); no more moves")
    action = code_action(code)
    if code < 0 or code >> CODE_BITS:
        return Refusal("R20", "code {code:#x} is not a move", code=code)
    seat = seat_to_move(pos.dealer, pos.plays, pos.rules.players)
    hand = pos.hands[seat]
    if phase == PHASE_BID:
        return _check_bid(code, action, hand, seat)
    if action in (BID, REDEAL):
        return Refusal("R20", "the bid has been made; now every turn is a card play")
    if action > BREAK:
        return Refusal("R20", "action {action} is not a card play", action=action)
    card = code_card(code)
    if card > 51 or not hand >> card & 1:
        name = card_name(card) if card <= 51 else f"#{card}"
        return Refusal(
            "R20",
            "card {card} is not in the hand of seat {seat}, the player to move",
            card=name,
            seat=seat,
        )
    rule = _ACTION_RULE[action]
    v = VALUE[card]
    moved = code_loose(code)
    stray = moved & ~pos.loose
    if stray:
        return Refusal(rule, "{cards} not loose on the floor", cards=format_cards(stray))
    rest = hand & ~(1 << card)
    # R21d: his last card of an owned house's value may only capture that house.
    if pos.owned_values(seat) >> v & 1 and not rest & VALUE_MASK[v]:
        if action != CAPTURE or not code_houses(code) >> (v - 9) & 1:
            return Refusal(
                "R21d",
                "seat {seat} owns house {value} and {card} is his last card of value {value}: he "
                "may only capture house {value} with it (retention)",
                seat=seat,
                value=v,
                card=card_name(card),
            )
    if action == THROW:
        return _check_throw(pos, code, v, card)
    if action == CAPTURE:
        return _check_capture(pos, code, v, card)
    return _check_house_move(pos, code, action, v, card, rest, seat)


def _check_bid(code: int, action: int, hand: int, seat: int) -> Refusal | None:
    """R13 / R14: a bid of a value 9..13 held in hand; a redeal only without a card above 8."""
    high = 0
    for w in _HOUSE_VALUES:
        if hand & VALUE_MASK[w]:
            high |= 1 << w
    if action == BID:
        v = code_value(code)
        if code != make_code(BID, value=v):
            return Refusal("R13", "a bid carries only its value")
        if not 9 <= v <= 13:
            return Refusal("R13", "a bid is a house value 9..13, not {value}", value=v)
        if not high:
            return Refusal(
                "R14", "seat {seat} holds no card above 8, so he cannot bid: redeal", seat=seat
            )
        if not high >> v & 1:
            return Refusal(
                "R13",
                "seat {seat} holds no card of value {value}; the bid must be the value of a card "
                "in hand (possible: {possible})",
                seat=seat,
                value=v,
                possible=_values_text(high),
            )
        return None
    if action == REDEAL:
        if code != make_code(REDEAL):
            return Refusal("R14", "a redeal carries no card or value")
        if high:
            return Refusal(
                "R14",
                "seat {seat} holds a card above 8 and can bid {possible}; a redeal is only for a "
                "hand without one",
                seat=seat,
                possible=_values_text(high),
            )
        return None
    return Refusal(
        "R13", "the deal is in the bid phase: seat {seat} (the bidder) must bid", seat=seat
    )


def _check_throw(pos: Position, code: int, v: int, card: int) -> Refusal | None:
    """R22, R16, R21f(b) and the option ``throw_rule`` (A7)."""
    if code_loose(code) or code_houses(code) or code_value(code) or code_house(code):
        return Refusal("R22", "a throw puts only its own card on the floor")
    name = card_name(card)
    if pos.plays == 0 and v != pos.bid:
        return Refusal(
            "R16",
            "play 1 is bound to the bid {bid}: only a card of value {bid} may capture or be thrown",
            bid=pos.bid,
        )
    if pos.hpresent >> v & 1:
        return Refusal(
            "R21f(b)",
            "a house of value {value} is on the floor: {card} may capture it or be added to it, "
            "never thrown loose",
            value=v,
            card=name,
        )
    throw_rule = pos.rules.throw_rule
    if throw_rule == "no_capture_possible":
        if _can_capture(pos, v, pos.loose, pos.hpresent):
            return Refusal(
                "R22", "{card} can capture; a card that can capture may not be thrown", card=name
            )
        return None
    if throw_rule == "no_other_move":
        # R22 under option throw_rule "no_other_move" (A7).
        if any(code_action(c) != THROW for c in pos.play_codes("always")):
            return Refusal(
                "A7",
                "under throw_rule 'no_other_move' a card may be thrown only when no capture, "
                "build, cement or break is possible",
            )
    return None


def _check_capture(pos: Position, code: int, v: int, card: int) -> Refusal | None:
    """R23-R25, R21g, R16 and the options ``capture_rule`` and ``house_in_sums``."""
    name = card_name(card)
    moved = code_loose(code)
    hb = code_houses(code)
    if code_value(code) != v or code_house(code):
        return Refusal("R23", "a capture's value is the value of its card, {value}", value=v)
    if not (moved or hb):
        return Refusal("R23", "a capture must take at least one loose card or house")
    if pos.plays == 0 and v != pos.bid:
        return Refusal(
            "R16",
            "play 1 is bound to the bid {bid}: only a card of value {bid} may capture or be thrown",
            bid=pos.bid,
        )
    rules = pos.rules
    hpresent = pos.hpresent
    items = [VALUE[c] for c in cards_of_mask(moved)]
    for i in range(5):
        if hb >> i & 1:
            w = 9 + i
            if not hpresent >> w & 1:
                return Refusal("R23", "there is no house of value {house} on the floor", house=w)
            if w != v and not rules.house_in_sums:
                return Refusal(
                    "R21g",
                    "a house is captured only whole and only by a card of its value: {card} "
                    "cannot take house {house}",
                    card=name,
                    house=w,
                )
            items.append(w)
    total = sum(items)
    if total % v or not splits_exactly(items, [v] * (total // v)):
        return Refusal(
            "R24",
            "the cards taken {cards} cannot be split into groups each worth {value}",
            cards=_cards_text(moved),
            value=v,
        )
    if rules.capture_rule == "maximal":
        if hpresent >> v & 1 and not hb >> (v - 9) & 1:
            return Refusal(
                "R25", "the capture must include house {value} (maximal capture)", value=v
            )
        if _can_capture(pos, v, pos.loose & ~moved, hpresent & ~(hb << 9)):
            return Refusal(
                "R25",
                "the capture is not maximal: a group worth {value} would remain; a capture must "
                "take a maximal family of groups",
                value=v,
            )
    return None


def _check_house_move(
    pos: Position, code: int, action: int, v: int, card: int, rest: int, seat: int
) -> Refusal | None:
    """BUILD (R27, A12, A22), CEMENT (R28, A13, A14) and BREAK (R29, R21h), with R16, R21a,
    R21e, R21f(a) and the absorption of loose groups (R31)."""
    rule = _ACTION_RULE[action]
    name = card_name(card)
    rules = pos.rules
    hpresent = pos.hpresent
    loose = pos.loose
    moved = code_loose(code)
    V = code_value(code)
    H = code_house(code)
    if code_houses(code) or (H and action != BREAK):
        return Refusal(rule, "a {action} names no captured house", action=ACTION_NAMES[action])
    if not 9 <= V <= 13:
        return Refusal("R21a", "a house is worth 9..13, not {value}", value=V)
    keeps = bool(rest & VALUE_MASK[V])
    singles = loose & VALUE_MASK[V]
    opening = pos.plays == 0
    if action == BUILD:
        if hpresent >> V & 1:
            return Refusal(
                "R21e",
                "a house of value {value} is already on the floor: a new set of {value} for it is "
                "a cement, not a new house",
                value=V,
            )
        if opening and pos.bid != V:
            return Refusal(
                "R16", "play 1 may only build a house of the bid value {bid}", bid=pos.bid
            )
        if rules.max_houses is not None and hpresent.bit_count() >= rules.max_houses:
            return Refusal(
                "A22",
                "at most {max_houses} houses may be on the floor",
                max_houses=rules.max_houses,
            )
        if v > V:
            return Refusal(
                "R27",
                "{card} is worth more than the house of {value} it would build",
                card=name,
                value=V,
            )
        if v == V:
            if not rules.allow_pair_build:
                return Refusal(
                    "A12",
                    "building {value} with a card of value {value} needs allow_pair_build",
                    value=V,
                )
            if not singles:
                return Refusal(
                    "A12", "a pair build of {value} needs a loose card of value {value}", value=V
                )
        if not keeps:
            return Refusal(
                "R27",
                "seat {seat} must keep a card of value {value} to build a house of {value}; he "
                "would hold none",
                seat=seat,
                value=V,
            )
        if singles & ~moved:
            return Refusal(
                "R21f(a)",
                "the loose {cards} must merge into the house",
                cards=format_cards(singles & ~moved),
            )
        first = V - v if v < V else 0
        return _check_sets(pos, moved & ~singles, first, V, loose & ~moved, rule)

    if opening:
        return Refusal(
            "R16", "play 1 must capture, build or throw tied to the bid {bid}", bid=pos.bid
        )
    if action == CEMENT:
        if H:
            return Refusal("R28", "a cement names no broken house")
        if not hpresent >> V & 1:
            return Refusal(
                "R28",
                "there is no house of value {value} to add to; a new house is a build",
                value=V,
            )
        if v > V:
            return Refusal("R28", "{card} is worth more than house {value}", card=name, value=V)
        owners = pos.howners[V]
        if owners >> seat & 1:
            if not keeps:
                return Refusal(
                    "R21d",
                    "seat {seat} owns house {value} and would give up his last card of value "
                    "{value}",
                    seat=seat,
                    value=V,
                )
        elif owners & 1 << (seat ^ 2):  # never with two players: owners are 0 and 1 (R2P9)
            if not (rules.partner_cement_free or pos.hcem[V] or keeps):
                return Refusal(
                    "A13",
                    "with partner_cement_free false, cementing the partner's ordinary house "
                    "{value} needs a card of value {value}",
                    value=V,
                )
        elif not keeps:
            if rules.add_retention != "team" or rules.players == 2:  # R2P9: A14 is void
                return Refusal(
                    "R28",
                    "house {value} belongs to the opponents: adding to it needs a card of value "
                    "{value} kept in hand",
                    value=V,
                )
            if not pos.hands[seat ^ 2] & VALUE_MASK[V]:
                return Refusal(
                    "A14",
                    "house {value} belongs to the opponents: adding to it needs a card of value "
                    "{value} kept in hand or in the partner's hand (add_retention 'team')",
                    value=V,
                )
        return _check_sets(pos, moved, V - v, V, loose & ~moved, rule)

    # BREAK (R29)
    if not hpresent >> H & 1:
        return Refusal("R29", "there is no house of value {house} to break", house=H)
    if pos.hcem[H]:
        return Refusal(
            "R21h", "house {house} is cemented; cemented houses cannot be broken", house=H
        )
    if pos.howners[H] >> seat & 1:
        return Refusal(
            "R29",
            "seat {seat} owns house {house}; you may never break your own house",
            seat=seat,
            house=H,
        )
    if H + v != V:
        return Refusal(
            "R29",
            "{card} raises house {house} to {raised}, not {value}",
            card=name,
            house=H,
            raised=H + v,
            value=V,
        )
    if not keeps:
        return Refusal(
            "R29",
            "breaking house {house} up to {value} needs a card of value {value} kept in hand; "
            "seat {seat} would hold none",
            house=H,
            value=V,
            seat=seat,
        )
    if singles & ~moved:
        return Refusal(
            "R21f(a)",
            "the loose {cards} must merge into the house",
            cards=format_cards(singles & ~moved),
        )
    return _check_sets(pos, moved & ~singles, 0, V, loose & ~moved, rule)


def _check_sets(
    pos: Position, cards: int, first: int, V: int, remaining: int, rule: str
) -> Refusal | None:
    """``cards`` split into one set worth ``first`` (none when 0) and whole V-groups, as the
    absorption option allows (R31); "mandatory" also leaves no V-group in ``remaining``."""
    values = [VALUE[c] for c in cards_of_mask(cards)]
    total = sum(values)
    if total < first or (total - first) % V:
        if first:
            return Refusal(
                rule,
                "the card and the loose cards {cards} do not make a set worth {value} (plus whole "
                "groups of {value})",
                cards=_cards_text(cards),
                value=V,
            )
        return Refusal(
            "R31",
            "the loose cards {cards} are not whole groups of {value}",
            cards=_cards_text(cards),
            value=V,
        )
    k = (total - first) // V
    absorb = pos.rules.absorb_loose_groups
    if k and absorb == "never":
        return Refusal(
            "R31", "absorb_loose_groups is 'never': no further loose groups may join the house"
        )
    if absorb == "mandatory" and subset_sums(remaining) >> V & 1:
        return Refusal(
            "R31",
            "absorb_loose_groups is 'mandatory': every loose group worth {value} must join the "
            "house",
            value=V,
        )
    if not splits_exactly(values, ([first] if first else []) + [V] * k):
        if first:
            return Refusal(
                rule,
                "the card and the loose cards {cards} do not split into a set worth {value} and "
                "whole groups of {value}",
                cards=_cards_text(cards),
                value=V,
            )
        return Refusal(
            "R31",
            "the loose cards {cards} are not whole groups of {value}",
            cards=_cards_text(cards),
            value=V,
        )
    return None


def capture_else_throw_is_legal(rules: Rules) -> bool:
    """Whether, after play 1, every card either makes a legal capture (the house of its value
    and a maximal family of its loose groups, R21g, R23-R25; also its owner's last card of the
    value, R21d) or may be thrown (R22, R21f(b)): docs/rules.md §11.8 under these options. Not under
    ``throw_rule="no_other_move"`` (a throw waits for every other use, A7) nor
    ``house_in_sums`` (a house joins sums, A10). Playouts that never list moves rely on it."""
    return rules.throw_rule != "no_other_move" and not rules.house_in_sums


def _can_capture(pos: Position, v: int, loose: int, houses: int) -> bool:
    """Whether a card of value v finds H_v or a v-group (with ``house_in_sums``, also a house
    plus loose cards) among ``loose`` and the houses of bitmask ``houses`` (R23, R21g)."""
    if houses >> v & 1:
        return True
    sums = subset_sums(loose)
    if sums >> v & 1:
        return True
    if pos.rules.house_in_sums:
        for w in _HOUSE_VALUES:
            if w < v and houses >> w & 1 and sums >> (v - w) & 1:
                return True
    return False
