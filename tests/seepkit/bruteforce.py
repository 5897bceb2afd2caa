"""Independent brute-force legal-move enumerator for Seep (test oracle).

This module deliberately shares no code with the engine in ``src/seep`` (only the card names
and the rules objects of docs/rules.md §3, with the test builders of tests/seepkit/builders.py):
it reads
docs/format.md position dicts directly and follows the reference procedure of docs/rules.md §7 step
by step, trying every subset of loose cards (pruned by sum; all values are >= 1 and no target
exceeds 13).
It is meant to be slow-but-obvious; the test-suite compares it with ``seep.protocol.legal``.

Public API:

* ``brute_legal(position) -> set[MoveKey]``: the canonical keys of every legal move of the
  seat ``to_move``.
* ``move_key(move) -> MoveKey``: the canonical key of a docs/format.md move dict.

A key is ``(action, card, value, house, frozenset(loose), frozenset(houses))`` with ``None`` /
an empty frozenset for the fields an action lacks. Two moves are the same move exactly when
their keys are equal (docs/format.md, "Move").

Internally, sets of floor items are bitmasks over a fixed indexing of the floor (loose cards
first, then houses); this keeps the brute force fast enough for floors of ~15 loose cards.

Readings of points docs/rules.md leaves open (the cross-check, tests/core/test_crosscheck.py,
shows the engine makes the same choices):

* ``throw_rule: no_other_move`` on play 1: "no other legal move" means no other legal
  *opening* move (R16 restricts the rest), so the bid card may be thrown when no capture
  with it and no build of the bid value exists.
* ``add_retention: team``: the partner's card counts for the permission to ADD to a house
  owned only by opponents (R28, A14); the mover becomes an owner only if he himself still
  holds a card of the value after the move (docs/rules.md §3), so R21d binds every owner literally
  under both settings.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from seepkit.builders import DEFAULT_RULES, PRESETS, RANKS

MoveKey = tuple[str, str | None, int | None, int | None, frozenset[str], frozenset[int]]

HOUSE_VALUES = range(9, 14)  # R21a: a house is worth 9..13.


def resolve_rules(rules: str | Mapping[str, Any] | None) -> dict[str, Any]:
    """Return the full option dict for a position's ``rules`` (preset name or partial dict)."""
    if rules is None:
        overrides: Mapping[str, Any] = {}
    elif isinstance(rules, str):
        overrides = PRESETS[rules]
    else:
        overrides = rules
    unknown = set(overrides) - set(DEFAULT_RULES)
    if unknown:
        raise ValueError(f"unknown rule options: {sorted(unknown)}")
    return {**DEFAULT_RULES, **overrides}


def value(card: str) -> int:
    """Capture value of a card (R4): A=1, 2..9, T=10, J=11, Q=12, K=13."""
    return RANKS.index(card[0]) + 1


def make_key(
    action: str,
    card: str | None = None,
    value_: int | None = None,
    house: int | None = None,
    loose: frozenset[str] | set[str] | list[str] | tuple[str, ...] = (),
    houses: frozenset[int] | set[int] | list[int] | tuple[int, ...] = (),
) -> MoveKey:
    """Build a canonical move key from its parts."""
    return (action, card, value_, house, frozenset(loose), frozenset(houses))


def move_key(move: Mapping[str, Any]) -> MoveKey:
    """Canonical key of a docs/format.md move dict (see the module docstring)."""
    return make_key(
        move["action"],
        move.get("card"),
        move.get("value"),
        move.get("house"),
        move.get("loose", ()),
        move.get("houses", ()),
    )


# --------------------------------------------------------------------------------------------
# Subset machinery (bitmasks over item indices)
# --------------------------------------------------------------------------------------------


def bits(mask: int) -> Iterator[int]:
    """Indices of the set bits of ``mask``, lowest first."""
    i = 0
    while mask:
        if mask & 1:
            yield i
        mask >>= 1
        i += 1


def subsets_summing_to(values: list[int], allowed: int, target: int) -> list[int]:
    """Every non-empty subset of the indices in ``allowed`` whose values sum to ``target``.

    Plain depth-first search over the allowed indices (include / skip each one); since every
    value is >= 1, a branch stops as soon as its partial sum exceeds the target.
    """
    indices = list(bits(allowed))
    found: list[int] = []

    def search(pos: int, chosen: int, total: int) -> None:
        if total == target and chosen:
            found.append(chosen)
            return  # adding more (values >= 1) can only overshoot
        if pos == len(indices) or total > target:
            return
        i = indices[pos]
        if total + values[i] <= target:
            search(pos + 1, chosen | (1 << i), total + values[i])
        search(pos + 1, chosen, total)

    if target >= 1:
        search(0, 0, 0)
    return found


def disjoint_unions(groups: list[int]) -> set[int]:
    """The unions of all pairwise-disjoint families of ``groups`` (the empty family gives 0).

    Induction over the groups: after handling g1..gk the set holds the union of every disjoint
    family drawn from g1..gk; a family that uses gk is a family of earlier groups whose union
    misses gk, plus gk. Families with equal unions collapse, which is what we want (R25:
    a capture is identified by the cards it takes).
    """
    unions = {0}
    for g in groups:
        unions |= {u | g for u in unions if not u & g}
    return unions


def has_subset_sum(values: list[int], free: int, target: int) -> bool:
    """True when some non-empty subset of the items in ``free`` sums to ``target``.

    Classic subset-sum reachability: bit s of ``reachable`` is set when some subset of the
    items seen so far sums to s (sums above the target are dropped). Used for "no v-group is
    left" (R25, A11); target >= 1, so the empty subset never counts.
    """
    reachable = 1
    limit = (1 << (target + 1)) - 1
    for i in bits(free):
        reachable |= (reachable << values[i]) & limit
    return bool(reachable >> target & 1)


# --------------------------------------------------------------------------------------------
# The enumerator
# --------------------------------------------------------------------------------------------


class _Floor:
    """The floor indexed for bitmask work: loose cards are items 0..n-1, houses n..n+h-1."""

    def __init__(self, loose: list[str], houses: list[Mapping[str, Any]]) -> None:
        self.loose = sorted(loose)
        self.houses = list(houses)
        self.n = len(self.loose)
        self.item_values = [value(c) for c in self.loose] + [h["value"] for h in self.houses]
        self.all_loose = (1 << self.n) - 1
        self.house_by_value = {h["value"]: h for h in self.houses}
        self._groups: dict[tuple[int, int], list[int]] = {}
        self._unions: dict[tuple[int, int], set[int]] = {}
        self._has_group: dict[tuple[int, int], bool] = {}
        self._loose_sets: dict[int, frozenset[str]] = {}

    def house_bit(self, house_value: int) -> int:
        """The item bit of the house of that value."""
        for j, h in enumerate(self.houses):
            if h["value"] == house_value:
                return 1 << (self.n + j)
        raise KeyError(house_value)

    def loose_of(self, mask: int) -> frozenset[str]:
        """The loose cards among the items of ``mask`` (cached: keys reuse the same sets)."""
        mask &= self.all_loose
        if mask not in self._loose_sets:
            self._loose_sets[mask] = frozenset(self.loose[i] for i in bits(mask))
        return self._loose_sets[mask]

    def houses_of(self, mask: int) -> frozenset[int]:
        """The values of the houses among the items of ``mask``."""
        return frozenset(self.houses[i - self.n]["value"] for i in bits(mask >> self.n << self.n))

    def loose_with_value(self, v: int) -> int:
        """Mask of the loose cards of value ``v``."""
        return sum(1 << i for i in range(self.n) if self.item_values[i] == v)

    def groups(self, allowed: int, target: int) -> list[int]:
        """All target-groups among the items of ``allowed`` (cached)."""
        key = (allowed, target)
        if key not in self._groups:
            self._groups[key] = subsets_summing_to(self.item_values, allowed, target)
        return self._groups[key]

    def unions(self, allowed: int, target: int) -> set[int]:
        """All unions of disjoint target-groups among ``allowed`` (cached; includes 0)."""
        key = (allowed, target)
        if key not in self._unions:
            self._unions[key] = disjoint_unions(self.groups(allowed, target))
        return self._unions[key]

    def has_group(self, free: int, target: int) -> bool:
        """True when the items of ``free`` contain a target-group (cached)."""
        key = (free, target)
        if key not in self._has_group:
            self._has_group[key] = has_subset_sum(self.item_values, free, target)
        return self._has_group[key]

    def absorptions(self, target: int, available: int, mode: str) -> list[int]:
        """The choices of further loose ``target``-groups going into a ``target``-house (R31).

        ``available`` is the loose area left once the new set and the merged single cards are
        taken out. ``optional``: any disjoint family; ``mandatory``: a maximal family, so that
        no group remains (A11, "as in a maximal capture"); ``never``: none.
        """
        if mode == "never":
            return [0]
        choices = [u for u in self.unions(self.all_loose, target) if u & available == u]
        if mode == "optional":
            return choices
        if mode == "mandatory":
            return [u for u in choices if not self.has_group(available & ~u, target)]
        raise ValueError(f"absorb_loose_groups: {mode!r}")


def brute_legal(position: Mapping[str, Any]) -> set[MoveKey]:
    """The canonical keys of all legal moves of ``position['to_move']`` (docs/rules.md §6–§7)."""
    rules = resolve_rules(position.get("rules"))
    phase = position["phase"]
    if phase == "over":
        return set()
    seat: int = position["to_move"]
    hand: list[str] = list(position["hands"][seat])
    if phase == "bid":
        return _bid_moves(hand)
    if phase != "play":
        raise ValueError(f"unknown phase {phase!r}")
    return _play_moves(position, rules, seat, hand)


def _bid_moves(hand: list[str]) -> set[MoveKey]:
    """R13: bid any value 9..13 of a card held; R14: ``redeal`` exactly when none is > 8."""
    bids = {value(c) for c in hand if value(c) >= 9}
    if not bids:
        return {make_key("redeal")}
    return {make_key("bid", value_=b) for b in bids}


def _play_moves(
    position: Mapping[str, Any], rules: dict[str, Any], seat: int, hand: list[str]
) -> set[MoveKey]:
    """Steps 1-7 of docs/rules.md §7 for every card of the mover's hand."""
    floor = _Floor(list(position["loose"]), list(position["houses"]))
    # docs/rules.md §12, R2P1/R2P9: with two players nobody has a partner; A13 and A14 are void.
    two_players = rules["players"] == 2
    partner = None if two_players else (seat + 2) % 4
    partner_hand: list[str] = [] if partner is None else list(position["hands"][partner])
    opening = position["plays"] == 0  # play 1: the bidder's opening, bound to the bid (R16)
    bid: int | None = position.get("bid")
    max_houses: int | None = rules["max_houses"]
    absorb_mode: str = rules["absorb_loose_groups"]

    # Ownership before the move: house value -> owners.
    owners_before: dict[int, frozenset[int]] = {
        h["value"]: frozenset(h["owners"]) for h in floor.houses
    }

    team_retention = rules["add_retention"] == "team" and not two_players

    def partner_holds(house_value: int) -> bool:
        """A14 / add_retention=team: a card of value V in the partner's hand."""
        return any(value(c) == house_value for c in partner_hand)

    others: set[MoveKey] = set()  # capture / build / cement / break
    throwable: list[str] = []  # cards that R22 (as configured) lets be thrown

    for card in sorted(set(hand)):
        v = value(card)
        rest = list(hand)
        rest.remove(card)
        rest_values = {value(c) for c in rest}

        def ret(house_value: int, rest_values: set[int] = rest_values) -> bool:
            """retain(p, V): the mover still holds a card of value V after playing (§5)."""
            return house_value in rest_values

        def retention_ok(
            owners_after: dict[int, frozenset[int]], rest_values: set[int] = rest_values
        ) -> bool:
            """R21d / §7 step 7: every house the mover owns after the move keeps its value in
            his remaining hand (under both add_retention settings: an owner always holds his
            value, §3, §11.4)."""
            for hv, owners in owners_after.items():
                if seat in owners and hv not in rest_values:
                    return False
            return True

        # ---- CAPTURE (R23-R26; §7 step 2) ------------------------------------------------
        # Items: the loose cards and H_v; with house_in_sums (A10) every house is an item
        # counting its value, so e.g. a J takes H9 + a loose 2. H_v alone is a v-group, so
        # "no v-group may remain" also enforces "H_v must be taken" (R25).
        items = floor.all_loose
        if rules["house_in_sums"]:
            for h in floor.houses:
                items |= floor.house_bit(h["value"])
        elif v in floor.house_by_value:
            items |= floor.house_bit(v)
        can_capture = floor.has_group(items, v)
        for union in floor.unions(items, v):
            if not union:
                continue  # R23: at least one item must be captured
            if rules["capture_rule"] == "maximal":
                if floor.has_group(items & ~union, v):
                    continue  # R25: a v-group (or H_v) would be left behind
            elif rules["capture_rule"] != "any":
                raise ValueError(f"capture_rule: {rules['capture_rule']!r}")
            taken = floor.houses_of(union)
            after = {hv: o for hv, o in owners_before.items() if hv not in taken}
            if retention_ok(after):
                others.add(make_key("capture", card, loose=floor.loose_of(union), houses=taken))

        # ---- BUILD (R27; §7 step 4) --------------------------------------------------------
        builds_allowed = max_houses is None or len(floor.houses) + 1 <= max_houses  # A22
        for target in HOUSE_VALUES:
            if not builds_allowed or target <= v or target in floor.house_by_value:
                continue  # S is non-empty so V > v; an existing H_V makes it an ADD (R28)
            if not ret(target):
                continue  # R27 / R32: the builder himself must keep a card of value V
            singles = floor.loose_with_value(target)  # R21f(a): they merge into the new house
            for new_set in floor.groups(floor.all_loose, target - v):
                available = floor.all_loose & ~new_set & ~singles
                after = {**owners_before, target: frozenset({seat})}
                if not retention_ok(after):
                    continue
                for extra in floor.absorptions(target, available, absorb_mode):
                    moved = floor.loose_of(new_set | singles | extra)
                    others.add(make_key("build", card, target, loose=moved))

        # A12 pair build: V on a loose V while keeping another V -> cemented V-house.
        if (
            rules["allow_pair_build"]
            and builds_allowed
            and v in HOUSE_VALUES
            and v not in floor.house_by_value
            and floor.loose_with_value(v)
            and ret(v)
        ):
            # The loose V card it is played onto, and every other loose V (R21f(a)).
            singles = floor.loose_with_value(v)
            after = {**owners_before, v: frozenset({seat})}
            if retention_ok(after):
                for extra in floor.absorptions(v, floor.all_loose & ~singles, absorb_mode):
                    moved = floor.loose_of(singles | extra)
                    others.add(make_key("build", card, v, loose=moved))

        # ---- CEMENT / ADD (R28, R30, R31; §7 step 5) -----------------------------------------
        for h in floor.houses:
            target = h["value"]
            if v > target:
                continue
            owners = owners_before[target]
            if seat in owners:
                allowed = ret(target)  # owner's own duty (R21d, A17)
                new_owners = owners
            elif partner is not None and partner in owners:
                # R28 / R33: free, unless partner_cement_free is off and the house is
                # ordinary (A13); the partner-cementer never becomes an owner (A16).
                free = rules["partner_cement_free"] or h["cemented"]
                allowed = free or ret(target)
                new_owners = owners
            else:
                # Only opponents own it: must keep a card of V (A14: own hand, or with
                # add_retention=team the partner's hand too), and joins the owners (R21c) if
                # he himself keeps one (§3).
                allowed = ret(target) or (team_retention and partner_holds(target))
                new_owners = owners | {seat} if ret(target) else owners
            if not allowed:
                continue
            after = {**owners_before, target: new_owners}
            if not retention_ok(after):
                continue
            need = target - v
            new_sets = [0] if need == 0 else floor.groups(floor.all_loose, need)
            for new_set in new_sets:
                available = floor.all_loose & ~new_set
                for extra in floor.absorptions(target, available, absorb_mode):
                    moved = floor.loose_of(new_set | extra)
                    others.add(make_key("cement", card, target, loose=moved))

        # ---- BREAK (R29, R30, A15; §7 step 6) -------------------------------------------
        for h in floor.houses:
            old = h["value"]
            new = old + v
            if h["cemented"] or seat in owners_before[old] or new > 13:
                # R21h: never a cemented house; never your own (R2P9: with two players only
                # the opponent's); at most 13
                continue
            if not ret(new):
                continue
            merged_owners = frozenset({seat}) | owners_before.get(new, frozenset())
            after = {hv: o for hv, o in owners_before.items() if hv != old}
            after[new] = merged_owners
            if not retention_ok(after):
                continue
            singles = floor.loose_with_value(new)  # R21f(a)
            available = floor.all_loose & ~singles
            for extra in floor.absorptions(new, available, absorb_mode):
                moved = floor.loose_of(singles | extra)
                others.add(make_key("break", card, new, old, loose=moved))

        # ---- THROW eligibility (R22, A7, R21f(b)) --------------------------------------------
        rule = rules["throw_rule"]
        if rule == "no_capture_possible":
            may_throw = not can_capture
        elif rule == "always":
            may_throw = v not in floor.house_by_value  # R21f(b) still applies
        elif rule == "no_other_move":
            may_throw = True  # decided below, once every other move is known
        else:
            raise ValueError(f"throw_rule: {rule!r}")
        if may_throw and retention_ok(dict(owners_before)):
            throwable.append(card)

    if opening:
        # R16 / §7 step 1: only captures and throws with a card of value B, and builds
        # whose resulting value is B.
        others = {
            k
            for k in others
            if (k[0] == "capture" and k[1] is not None and value(k[1]) == bid)
            or (k[0] == "build" and k[2] == bid)
        }
        throwable = [c for c in throwable if value(c) == bid]

    if rules["throw_rule"] == "no_other_move" and others:
        throwable = []  # IND: a throw only when nothing else is legal (also on play 1)

    return others | {make_key("throw", c) for c in throwable}
