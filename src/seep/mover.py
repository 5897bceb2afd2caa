"""The mover's facts: what the seat to move may do with a card of each value, decided once.

Both walks of the legal moves read these facts and nothing else of the rules: the generator
(:meth:`seep.engine.Position.legal_codes`), which joins each permitted use with the loose
cards' subsets, and the counter (:mod:`seep.counting`), which joins it with their value
counts. A rule of who may play what (R16 at play 1, R21d retention, R22 and A7 throws, R27 and
A12 builds, R28, R33, A13 and A14 cements, R29 breaks, A10 houses in sums, A22) is therefore
written here once, and the two walks cannot drift apart. A value's facts are bitmasks: bit
``v`` stands for the card value ``v`` (1..13).

>>> from seep.cards import parse_cards
>>> held, twice = held_values(parse_cards("9S 9H KD"))
>>> bin(held), bin(twice)
('0b10001000000000', '0b1000000000')
"""

from __future__ import annotations

from typing import Final

from .cards import VALUE_MASK
from .floor import ALL_UNIONS, MAXIMAL_UNIONS
from .options import STANDARD, Rules

__all__ = [
    "HOUSE_BITS",
    "HOUSE_VALUES",
    "PARTNER_SEATS",
    "SUM_BITS",
    "Options",
    "held_values",
    "house_uses",
    "mover_facts",
    "options_of",
    "partner_values",
    "throws_left",
]

HOUSE_VALUES: Final = (9, 10, 11, 12, 13)  # R21a: a house is worth 9..13
HOUSE_BITS: Final = 0b11111 << 9
SUM_BITS: Final = ((1 << 14) - 1) & ~1  # sums 1..13
PARTNER_SEATS: Final = (0b0100, 0b1000, 0b0001, 0b0010)  # seat mask of s+2


class Options:
    """The options the legal-move walks read on every call, as plain fields: compiled, this
    is a native class whose fields are C struct members, while each attribute of the
    pure-Python :class:`~seep.options.Rules` is a dictionary lookup."""

    __slots__ = (
        "absorb_mode",
        "absorb_never",
        "allow_pair_build",
        "capture_mode",
        "house_in_sums",
        "max_houses",
        "partner_cement_free",
        "partner_team",
        "players",
        "rules",
        "throw_rule",
    )

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.players: int = rules.players
        self.throw_rule: str = rules.throw_rule
        self.house_in_sums: bool = rules.house_in_sums
        self.capture_mode: int = MAXIMAL_UNIONS if rules.capture_rule == "maximal" else ALL_UNIONS
        self.absorb_never: bool = rules.absorb_loose_groups == "never"
        self.absorb_mode: int = (
            MAXIMAL_UNIONS if rules.absorb_loose_groups == "mandatory" else ALL_UNIONS
        )
        # A22: -1 for no limit.
        self.max_houses: int = -1 if rules.max_houses is None else rules.max_houses
        self.allow_pair_build: bool = rules.allow_pair_build
        # A14 under add_retention "team"; two players have no partner (R2P9).
        self.partner_team: bool = rules.add_retention == "team" and rules.players == 4
        self.partner_cement_free: bool = rules.partner_cement_free


# The Options of each Rules seen, by identity (Rules is frozen, so they never go stale; the
# entry holds its Rules, so an id is never reused while it is cached). Bounded by clearing.
_OPTIONS: Final[dict[int, Options]] = {}


# The last Options used: most programs play under one Rules.
_LAST_OPTIONS: Final = [Options(STANDARD)]


def options_of(rules: Rules) -> Options:
    """The :class:`Options` of ``rules`` (cached)."""
    o = _LAST_OPTIONS[0]
    if o.rules is rules:
        return o
    found = _OPTIONS.get(id(rules))
    if found is None or found.rules is not rules:
        if len(_OPTIONS) > 1000:
            _OPTIONS.clear()
        found = _OPTIONS[id(rules)] = Options(rules)
    _LAST_OPTIONS[0] = found
    return found


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


_HELD_1_2: Final = _held_table(1, 2)
_HELD_3_4: Final = _held_table(3, 2)
_HELD_5_6: Final = _held_table(5, 2)
_HELD_7_8: Final = _held_table(7, 2)
_HELD_9_10: Final = _held_table(9, 2)
_HELD_11_12: Final = _held_table(11, 2)
_HELD_13: Final = _held_table(13, 1)


def held_values(hand: int) -> tuple[int, int]:
    """Bit v of the values ``hand`` holds, and of those it holds at least twice."""
    ht = (
        _HELD_1_2[hand & 255]
        | _HELD_3_4[hand >> 8 & 255]
        | _HELD_5_6[hand >> 16 & 255]
        | _HELD_7_8[hand >> 24 & 255]
        | _HELD_9_10[hand >> 32 & 255]
        | _HELD_11_12[hand >> 40 & 255]
        | _HELD_13[hand >> 48]
    )
    return ht & 0xFFFF, ht >> 16


def mover_facts(
    opts: Options,
    throw_rule: str,
    hand: int,
    seat: int,
    plays: int,
    bid: int,
    hpresent: int,
    howners: list[int],
    avail: int,
) -> tuple[int, int, int, int, int, int, int, int]:
    """The facts of the mover's hand, as value bitmasks: ``(held, twice, fragile, free,
    cap_vals, throw_vals, build_vals, pair_vals)``.

    ``held``/``twice``: the values held, at least twice. ``fragile``: values of the mover's
    own houses of which he holds his last card, which may only capture that house (R21d);
    ``free`` the others, which may build, cement and break. ``cap_vals``: the values that can
    capture something (a loose group of sum ``avail``, a house, or under A10 a house in a
    sum; R16: only the bid at play 1). ``throw_vals``: the values that may be thrown (R22:
    never a house's value, R21f(b); under ``throw_rule`` ``"no_capture_possible"`` (A7) only
    a value that cannot capture; R16.3 the bid at play 1) before ``"no_other_move"``
    (:func:`throws_left`). ``build_vals``: the house values V the mover may build (R27: he
    holds a V, none is on the floor; A22; R16), by a free card of value V - t; ``pair_vals``
    the values of a pair build (A12). ``throw_rule`` is the rules' own for the legal moves.
    """
    held, twice = held_values(hand)
    opening = plays == 0

    # Retention (R21d): a card whose value is an owned house and which is its owner's last of
    # that value is "fragile". R21d binds the mover's own hand under every option (A14 only
    # widens the permission to join an opponent's house; the mover then becomes an owner only
    # if he keeps the value himself, so every owner holds his value).
    fragile = 0
    if hpresent:
        me = 1 << seat
        own = 0
        hp = hpresent
        while hp:
            low = hp & -hp
            hp ^= low
            if howners[low.bit_length() - 1] & me:
                own |= low
        fragile = own & ~twice & held
    free = held & ~fragile

    if opening:
        # R16: play 1 only captures or throws with the bid value, or builds the bid value.
        cap_vals = held & (avail | hpresent) & (1 << bid)
    elif opts.house_in_sums and hpresent:
        # R21g / A10: a house may be one item of a sum (only one fits: 9 + 9 > 13).
        reach = avail | hpresent
        hp = hpresent
        while hp:
            low = hp & -hp
            hp ^= low
            reach |= avail << (low.bit_length() - 1)
        cap_vals = held & reach & SUM_BITS
    else:
        cap_vals = held & (avail | hpresent)

    # BUILD (R27): a new house of a value V the builder keeps; max_houses (A22); R16.
    build_vals = 0
    pair_vals = 0
    max_houses = opts.max_houses
    if free and (max_houses < 0 or hpresent.bit_count() < max_houses):
        build_vals = held & ~hpresent & HOUSE_BITS
        if opts.allow_pair_build:
            pair_vals = free & twice & ~hpresent & HOUSE_BITS  # A12: V on a loose V, keep a V
        if opening:
            build_vals &= 1 << bid
            pair_vals &= 1 << bid

    # THROW (R22; A7; opening R16.3): never a card of a house's value (R21f(b)).
    throw_vals = held & ~hpresent
    if throw_rule == "no_capture_possible":
        throw_vals &= ~cap_vals
    if opening:
        throw_vals &= 1 << bid
    return held, twice, fragile, free, cap_vals, throw_vals, build_vals, pair_vals


def partner_values(opts: Options, partner_hand: int) -> int:
    """The house values the mover's partner holds, which let the mover join an opponent's
    house under ``add_retention: "team"`` (A14); 0 under other rules and with two players
    (R2P9)."""
    if not opts.partner_team:
        return 0
    out = 0
    for V in HOUSE_VALUES:
        if partner_hand & VALUE_MASK[V]:
            out |= 1 << V
    return out


def _keeps(free: int, held: int, twice: int, vbit: int) -> int:
    """The values (of ``free``) the mover may play and still hold a card of value ``vbit``."""
    if not held & vbit:
        return 0
    return free if twice & vbit else free & ~vbit


def house_uses(
    opts: Options,
    seat: int,
    value: int,
    owners: int,
    cemented: bool,
    held: int,
    twice: int,
    free: int,
    partner_held: int,
) -> tuple[int, int]:
    """For the house of ``value`` (its owner seat mask and cemented flag) and the mover's
    ``held``, ``twice`` and ``free`` (:func:`mover_facts`): the card values that may cement
    it, and those that may break it.

    CEMENT / ADD (R28): the owner must keep a card of the value (R21d, R28); the partner's
    house is free to join (R33, A13: option ``partner_cement_free``, or once cemented);
    under A14 the partner's card of the value lets the mover join an opponent's house
    (``partner_held``, :func:`partner_values`); anyone else keeps a card of the value (R28).
    BREAK (R29): another player's ordinary (not cemented) house below 13, raised by a free
    A-4 to a value V2 the breaker holds.
    """
    vbit = 1 << value
    me = 1 << seat
    partner = owners & PARTNER_SEATS[seat]
    if not owners & me and partner and (opts.partner_cement_free or cemented):
        may = free  # R33 / A13: the partner's house
    elif not owners & me and not partner and partner_held & vbit:
        may = free  # A14: the partner's card of the value
    else:
        may = _keeps(free, held, twice, vbit)  # the owner's duty (R21d), R28
    if owners & me or cemented or value > 12:
        return may, 0
    # Bit v of held >> value is the value + v the break makes (at most 13: held has no more).
    return may, free & 0b11110 & held >> value


def throws_left(throw_vals: int, throw_rule: str, other_uses: bool) -> int:
    """The values that may be thrown, from :func:`mover_facts`'s ``throw_vals``: under
    ``throw_rule`` ``"no_other_move"`` (A7) none when the hand has another use."""
    if other_uses and throw_rule == "no_other_move":
        return 0
    return throw_vals
