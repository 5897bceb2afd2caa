"""Checking a move against a position, with the reason when it is illegal.

``verify_move`` raises :class:`IllegalMoveError` whose message says *why* the move is illegal
(citing the rule); ``can_move`` answers yes or no. Legality itself is decided by
:meth:`Position.is_legal` (which the tests hold equal to the move generator); this module only
finds words for a refusal.

>>> from seep.engine import Position
>>> from seep.moves import Move
>>> p = Position.new_deal(7)
>>> can_move(p, Move.redeal())
False
"""

from __future__ import annotations

from .cards import VALUE_MASK, card_name, format_cards
from .engine import (
    BID,
    BREAK,
    BUILD,
    CAPTURE,
    CEMENT,
    PHASE_BID,
    PHASE_OVER,
    REDEAL,
    THROW,
    Position,
    code_action,
    code_card,
    code_house,
    code_houses,
    code_loose,
    code_value,
    loose_subsets,
)
from .errors import IllegalMoveError
from .moves import Move

__all__ = ["can_move", "explain_illegal", "verify_move"]

_SEAT = ("seat 0", "seat 1", "seat 2", "seat 3")


def can_move(pos: Position, move: int) -> bool:
    """True when ``move`` is legal in ``pos``."""
    return pos.is_legal(move)


def verify_move(pos: Position, move: int) -> None:
    """Raise :class:`IllegalMoveError` with the reason unless ``move`` is legal in ``pos``."""
    if not pos.is_legal(move):
        raise IllegalMoveError(explain_illegal(pos, move))


def _cards_text(mask: int) -> str:
    return "{" + format_cards(mask, ",") + "}" if mask else "{}"


def explain_illegal(pos: Position, move: int) -> str:
    """Words for why ``move`` is not legal in ``pos`` (assumes it is not)."""
    text = str(Move(move))
    prefix = f"illegal move {text!r}: "
    if pos.phase_id == PHASE_OVER:
        return prefix + "the deal is over (48 plays made); no more moves"
    seat = pos.to_move
    assert seat is not None
    who = _SEAT[seat]
    a = code_action(move)
    hand = pos.hands[seat]
    if pos.phase_id == PHASE_BID:
        high = [v for v in range(9, 14) if hand & VALUE_MASK[v]]
        if a == REDEAL:
            return prefix + (
                f"{who} holds a card above 8 and can bid {', '.join(map(str, high))}; "
                "a redeal is only for a hand without one (R14)"
            )
        if a != BID:
            return prefix + f"the deal is in the bid phase: {who} (the bidder) must bid (R13)"
        v = code_value(move)
        if not high:
            return prefix + f"{who} holds no card above 8, so he cannot bid: redeal (R14)"
        return prefix + (
            f"{who} holds no card of value {v}; the bid must be the value of a card in hand "
            f"(possible: {', '.join(map(str, high))}) (R13)"
        )
    if a in (BID, REDEAL):
        return prefix + "the bid has been made; now every turn is a card play (R20)"
    card = code_card(move)
    if not hand >> card & 1:
        return prefix + f"card {card_name(card)} is not in the hand of {who}, the player to move"
    v = (card >> 2) + 1
    name = card_name(card)
    loose = code_loose(move)
    stray = loose & ~pos.loose
    if stray:
        return prefix + f"{format_cards(stray)} not loose on the floor"
    rules = pos.rules
    opening = pos.plays == 0
    if opening:
        b = pos.bid
        if a in (CEMENT, BREAK):
            return prefix + f"play 1 must capture, build or throw tied to the bid {b} (R16)"
        if a in (CAPTURE, THROW) and v != b:
            return prefix + (
                f"play 1 is bound to the bid {b}: only a card of value {b} may capture or be "
                "thrown (R16)"
            )
        if a == BUILD and code_value(move) != b:
            return prefix + f"play 1 may only build a house of the bid value {b} (R16)"
    if a == THROW:
        if pos.hpresent >> v & 1:
            return prefix + (
                f"a house of value {v} is on the floor: {name} may capture it or be added to "
                "it, never thrown loose (R21f(b))"
            )
        groups = loose_subsets(pos.loose)[v]
        if groups and rules.throw_rule == "no_capture_possible":
            return prefix + (
                f"{name} can capture {_cards_text(groups[0])}; a card that can "
                "capture may not be thrown (R22)"
            )
        if rules.throw_rule == "no_other_move":
            return prefix + (
                "under throw_rule 'no_other_move' a card may be thrown only when no capture, "
                "build, cement or break is possible (R22, A7)"
            )
        return prefix + "this throw is not legal here (R22)"
    if a == CAPTURE:
        return prefix + _explain_capture(pos, move, seat, v)
    if a == BUILD:
        return prefix + _explain_build(pos, move, seat, v)
    if a == CEMENT:
        return prefix + _explain_cement(pos, move, seat, v)
    if a == BREAK:
        return prefix + _explain_break(pos, move, seat, v)
    return prefix + "not a legal move"  # pragma: no cover


def _rest_holds(pos: Position, seat: int, card: int, value: int) -> bool:
    return bool(pos.hands[seat] & ~(1 << card) & VALUE_MASK[value])


def _retention_problem(pos: Position, seat: int, card: int, keep_new: int = 0) -> str | None:
    """The house whose last card of its value the move would give up (R21d), if any."""
    own = pos.owned_values(seat) | keep_new
    for v in range(9, 14):
        if own >> v & 1 and not _rest_holds(pos, seat, card, v):
            return (
                f"{_SEAT[seat]} owns house {v} and would no longer hold a card of value {v}; "
                "an owner must keep one (retention, R21d)"
            )
    return None


def _explain_capture(pos: Position, move: int, seat: int, v: int) -> str:
    card = code_card(move)
    name = card_name(card)
    hb = code_houses(move)
    loose = code_loose(move)
    for i in range(5):
        if hb >> i & 1:
            hv = 9 + i
            if not pos.hpresent >> hv & 1:
                return f"there is no house of value {hv} on the floor"
            if hv != v and not pos.rules.house_in_sums:
                return (
                    f"a house is captured only whole and only by a card of its value: {name} "
                    f"cannot take house {hv} (R21g)"
                )
    if not loose and not hb:
        return "a capture must take at least one loose card or house (R23)"
    if not pos.rules.house_in_sums and not _splits_into_groups(loose, v):
        return (
            f"the loose cards {_cards_text(loose)} cannot be split into groups each worth {v} "
            "(R23, R24)"
        )
    if pos.rules.capture_rule == "maximal":
        if pos.hpresent >> v & 1 and not hb >> (v - 9) & 1:
            return f"the capture must include house {v} (maximal capture, R25)"
        rest = pos.loose & ~loose
        groups = loose_subsets(rest)[v] if rest else ()
        if groups:
            return (
                f"the capture is not maximal: {_cards_text(groups[0])} (worth {v}) would remain; "
                "a capture must take a maximal family of groups (R25)"
            )
    problem = _retention_problem(pos, seat, card)
    if problem:
        return problem
    return f"{name} cannot make this capture (R23-R25)"


def _splits_into_groups(mask: int, v: int) -> bool:
    """Whether ``mask`` is a disjoint union of v-groups."""
    if not mask:
        return True
    low = mask & -mask
    return any(g & low and _splits_into_groups(mask & ~g, v) for g in loose_subsets(mask)[v])


def _explain_build(pos: Position, move: int, seat: int, v: int) -> str:
    card = code_card(move)
    V = code_value(move)
    if pos.hpresent >> V & 1:
        return (
            f"a house of value {V} is already on the floor: putting a new set of {V} there "
            "is a cement, not a new house (R21e, R28)"
        )
    rules = pos.rules
    if rules.max_houses is not None and pos.hpresent.bit_count() >= rules.max_houses:
        return f"at most {rules.max_houses} houses may be on the floor (max_houses, A22)"
    if v >= V and not (rules.allow_pair_build and v == V):
        return f"a house is built from a card and loose cards worth more than it: {V} (R27)"
    if not _rest_holds(pos, seat, card, V):
        return (
            f"{_SEAT[seat]} must keep a card of value {V} to build a house of {V}; he would "
            "hold none (R27, R32)"
        )
    singles = pos.loose & VALUE_MASK[V]
    loose = code_loose(move)
    if singles & ~loose:
        return (
            f"the loose {format_cards(singles & ~loose)} must merge into the new house of {V} "
            "(R21f(a))"
        )
    return _explain_sets(pos, move, seat, V, V - v, loose & ~singles)


def _explain_sets(pos: Position, move: int, seat: int, V: int, first: int, loose: int) -> str:
    """The loose cards of a build/cement/break: a first set summing to ``first`` plus V-groups."""
    card = code_card(move)
    if not any(
        (not first and _splits_into_groups(loose, V))
        or (first and (s & ~loose) == 0 and _splits_into_groups(loose & ~s, V))
        for s in ((0,) if not first else loose_subsets(loose)[first] if loose else ())
    ):
        if first:
            return (
                f"{card_name(card)} and the loose cards {_cards_text(loose)} do not make a set "
                f"worth {V} (plus whole groups of {V}) (R27, R28, R31)"
            )
        return f"the loose cards {_cards_text(loose)} are not whole groups worth {V} (R31)"
    absorb = pos.rules.absorb_loose_groups
    if absorb == "never":
        return "absorb_loose_groups is 'never': no further loose groups may join the house (R31)"
    if absorb == "mandatory":
        return (
            "absorb_loose_groups is 'mandatory': every loose group worth the house value must "
            "join the house (R31)"
        )
    return _retention_problem(pos, seat, card, 1 << V) or "not a legal move (R27-R31)"


def _explain_cement(pos: Position, move: int, seat: int, v: int) -> str:
    card = code_card(move)
    V = code_value(move)
    if not pos.hpresent >> V & 1:
        return f"there is no house of value {V} to add to; a new house is a build (R27, R28)"
    owners = pos.howners[V]
    me, partner = 1 << seat, 1 << (seat ^ 2)
    holds = _rest_holds(pos, seat, card, V)
    if owners & me and not holds:
        return (
            f"{_SEAT[seat]} owns house {V} and would give up his last card of value {V} "
            "(retention, R21d, R28)"
        )
    if not owners & me and not owners & partner and not holds:
        partner_holds = bool(pos.hands[seat ^ 2] & VALUE_MASK[V])
        if not (pos.rules.add_retention == "team" and partner_holds):
            return (
                f"house {V} belongs to the opponents: adding to it needs a card of value {V} "
                f"kept in hand (R28)"
            )
    if (
        not owners & me
        and owners & partner
        and not pos.rules.partner_cement_free
        and not pos.hcem[V]
        and not holds
    ):
        return (
            f"with partner_cement_free false, cementing the partner's ordinary house {V} needs a "
            f"card of value {V} (A13)"
        )
    if v > V:
        return f"{card_name(card)} is worth more than house {V} (R28)"
    return _explain_sets(pos, move, seat, V, V - v, code_loose(move))


def _explain_break(pos: Position, move: int, seat: int, v: int) -> str:
    card = code_card(move)
    H = code_house(move)
    V = code_value(move)
    if not pos.hpresent >> H & 1:
        return f"there is no house of value {H} to break"
    if pos.hcem[H]:
        return f"house {H} is cemented; cemented houses cannot be broken (R21h)"
    if pos.howners[H] >> seat & 1:
        return f"{_SEAT[seat]} owns house {H}; you may never break your own house (R29)"
    if H + v != V:
        return f"{card_name(card)} raises house {H} to {H + v}, not {V} (R29)"
    if V > 13:
        return f"no house is worth more than 13: {H} + {v} = {V} (R21a, R29)"
    if not _rest_holds(pos, seat, card, V):
        return (
            f"breaking house {H} up to {V} needs a card of value {V} kept in hand; "
            f"{_SEAT[seat]} would hold none (R29)"
        )
    singles = pos.loose & VALUE_MASK[V]
    loose = code_loose(move)
    if singles & ~loose:
        return (
            f"the loose {format_cards(singles & ~loose)} must merge into the raised house (R21f(a))"
        )
    return _explain_sets(pos, move, seat, V, 0, loose & ~singles)
