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

from typing import TYPE_CHECKING, Final

from .cards import VALUE_MASK
from .floor import ALL_UNIONS, MAXIMAL_UNIONS
from .options import STANDARD, Rules

if TYPE_CHECKING:  # the engine imports this module; the type is only for annotations
    from .engine import Position

__all__ = [
    "HOUSE_BITS",
    "HOUSE_VALUES",
    "PARTNER_SEATS",
    "SUM_BITS",
    "Options",
    "breakers",
    "cementers",
    "held_values",
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
    opts: Options, throw_rule: str, pos: Position, seat: int, hand: int, avail: int
) -> tuple[int, int, int, int, int, int, int, int, int]:
    """The facts of the mover's hand, as bitmasks of card or house values: ``(fragile, free,
    cap_vals, throw_vals, build_vals, pair_vals, cementable, keep_once, breaks)``. ``seat`` is
    the seat to move, ``hand`` its hand, ``avail`` bit t for each sum t of loose cards (1..13),
    ``throw_rule`` the rules' own for the legal moves.

    * ``fragile``: values of the mover's own houses of which he holds his last card, which
      may only capture that house (R21d); ``free`` the others, which may build, cement, break.
    * ``cap_vals``: the values that can capture something: a loose group (of a sum in
      ``avail``), a house, or under A10 a house in a sum; only the bid at play 1 (R16).
    * ``throw_vals``: the values that may be thrown: never a house's value (R22, R21f(b));
      under ``throw_rule`` ``"no_capture_possible"`` (A7) only a value that cannot capture;
      the bid at play 1 (R16.3); ``"no_other_move"`` is :func:`throws_left`'s.
    * ``build_vals``: the house values V the mover may build, with a free card of value
      V - t (R27: he holds a V, no house of V is on the floor; A22; R16); ``pair_vals`` the
      values of a pair build (A12: V on a loose V, keeping a V).
    * ``cementable``: the houses the mover may cement or add to (R28), with any free card,
      except that for a house of ``keep_once`` his one card of its value must stay in hand.
      The owner keeps a card of the value (R21d, R28); the partner's house is open (R33,
      A13: option ``partner_cement_free``, or once cemented); under A14 the partner's card
      of the value opens an opponent's house; anyone else keeps a card of the value (R28).
    * ``breaks``: for each house V of 9..12 another player's and not cemented (R29), the
      free values v of 1..4 whose card raises it to a value V + v he holds, as bits v - 1 of
      the nibble at bit ``4 * (V - 9)`` (:func:`breakers` reads it).
    """
    # held_values, written out: this runs once per legal-move generation.
    ht = (
        _HELD_1_2[hand & 255]
        | _HELD_3_4[hand >> 8 & 255]
        | _HELD_5_6[hand >> 16 & 255]
        | _HELD_7_8[hand >> 24 & 255]
        | _HELD_9_10[hand >> 32 & 255]
        | _HELD_11_12[hand >> 40 & 255]
        | _HELD_13[hand >> 48]
    )
    held = ht & 0xFFFF
    twice = ht >> 16
    plays = pos.plays
    bid = pos.bid
    hpresent = pos.hpresent
    opening = plays == 0

    # One pass over the houses. Retention (R21d): a card whose value is an owned house and
    # which is its owner's last of that value is "fragile". R21d binds the mover's own hand
    # under every option (A14 only widens the permission to join an opponent's house; the
    # mover then becomes an owner only if he keeps the value himself, so every owner holds his
    # value). CEMENT / ADD (R28) and BREAK (R29) of each house; R16: play 1 does neither.
    own = 0
    cementable = 0
    keep_once = 0
    breaks = 0
    if hpresent:
        howners = pos.howners
        hcem = pos.hcem
        me = 1 << seat
        partner = PARTNER_SEATS[seat]
        partner_held = partner_values(opts, pos.hands[seat ^ 2]) if opts.partner_team else 0
        hp = hpresent
        while hp:
            low = hp & -hp
            hp ^= low
            V = low.bit_length() - 1
            owners = howners[V]
            if owners & me:
                own |= low
                open_house = False  # the owner's duty (R21d, R28); he never breaks his own
            else:
                cemented = hcem[V]
                if owners & partner:
                    open_house = opts.partner_cement_free or cemented  # R33 / A13
                else:
                    open_house = partner_held & low != 0  # A14; else R28: he keeps a V
                if not cemented and V < 13:
                    # Bit v of held >> V: the value V + v the break makes (at most 13). A card
                    # A-4 is never fragile (fragile values are houses'), so held is free here.
                    breaks |= (held & 0b11110 & held >> V) >> 1 << 4 * (V - 9)
            if open_house:
                cementable |= low
            elif held & low:
                cementable |= low
                keep_once |= low & ~twice
        if opening:
            cementable = keep_once = breaks = 0
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
            pair_vals = free & twice & ~hpresent & HOUSE_BITS
        if opening:
            build_vals &= 1 << bid
            pair_vals &= 1 << bid

    # THROW (R22; A7; opening R16.3): never a card of a house's value (R21f(b)).
    throw_vals = held & ~hpresent
    if throw_rule == "no_capture_possible":
        throw_vals &= ~cap_vals
    if opening:
        throw_vals &= 1 << bid
    return (
        fragile,
        free,
        cap_vals,
        throw_vals,
        build_vals,
        pair_vals,
        cementable,
        keep_once,
        breaks,
    )


def cementers(value: int, free: int, cementable: int, keep_once: int) -> int:
    """The card values that may cement the house of ``value`` (from :func:`mover_facts`)."""
    vbit = 1 << value
    if not cementable & vbit:
        return 0
    return free & ~(keep_once & vbit)


def breakers(value: int, breaks: int) -> int:
    """The card values (bits 1..4) that may break the house of ``value`` (from
    :func:`mover_facts`'s ``breaks``)."""
    return (breaks >> 4 * (value - 9) & 15) << 1


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


def throws_left(throw_vals: int, throw_rule: str, other_uses: bool) -> int:
    """The values that may be thrown, from :func:`mover_facts`'s ``throw_vals``: under
    ``throw_rule`` ``"no_other_move"`` (A7) none when the hand has another use."""
    if other_uses and throw_rule == "no_other_move":
        return 0
    return throw_vals
