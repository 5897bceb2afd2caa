"""docs/rules.md §11: the invariants every position of a deal keeps, checked along a random deal
played through the public protocol (tests/core/test_invariants.py and test_two_player.py)."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator, Sequence
from functools import cache
from typing import Any

from seep import IllegalMoveError
from seep.protocol import apply, legal, new_deal, score
from seepkit.builders import (
    ALL_CARDS,
    Move,
    Position,
    all_cards_of,
    card_points,
    full_rules,
    hand_sizes,
    move_key,
    move_keys,
    value,
)


@cache
def can_partition(values: tuple[int, ...], target: int) -> bool:
    """Whether the multiset ``values`` (sorted descending) splits into sets each summing to
    ``target`` (R21b: a house is a list of sets, each worth its value)."""
    if not values:
        return True
    first, rest = values[0], values[1:]

    def fill(need: int, start: int, chosen: tuple[int, ...]) -> bool:
        if need == 0:
            left = list(rest)
            for i in sorted(chosen, reverse=True):
                del left[i]
            return can_partition(tuple(left), target)
        for i in range(start, len(rest)):
            if rest[i] <= need and (i == start or rest[i] != rest[i - 1]):
                if fill(need - rest[i], i + 1, (*chosen, i)):
                    return True
        return False

    return first <= target and fill(target - first, 0, ())


def check_house(h: dict[str, Any]) -> None:
    """Invariant 2 (R21a, R21b, R21c) for one house."""
    val = h["value"]
    vals = [value(c) for c in h["cards"]]
    assert 9 <= val <= 13, h
    assert len(vals) >= 2, h
    assert sum(vals) % val == 0, h
    sets = sum(vals) // val
    assert can_partition(tuple(sorted(vals, reverse=True)), val), h
    assert h["cemented"] == (sets >= 2), h
    owners = h["owners"]
    assert len(set(owners)) == len(owners), h
    assert all(o in range(4) for o in owners), h  # with two players: below, §12.7 inv. 3
    if h["cemented"]:
        assert len(owners) >= 1, h
    else:
        assert len(owners) == 1, h


def check_position(pos: Position) -> None:
    """Invariants 1-4 (and the turn order of §2) for any position of a running or ended deal."""
    rules = pos["rules"]
    n = rules["players"]
    # 1. All 52 cards exactly once.
    cards = all_cards_of(pos)
    assert sorted(cards) == sorted(ALL_CARDS), Counter(cards).most_common(2)
    # 2. Houses valid; 3. one house per value, no loose card of a house value.
    for h in pos["houses"]:
        check_house(h)
    house_values = [h["value"] for h in pos["houses"]]
    assert len(set(house_values)) == len(house_values)
    assert not {value(c) for c in pos["loose"]} & set(house_values)
    if rules["max_houses"] is not None:
        assert len(house_values) <= rules["max_houses"]
    # 4. Every owner holds a card of each of his houses' values (under both add_retention
    # settings: with "team" an adder becomes an owner only if he keeps the value, §3).
    for h in pos["houses"]:
        for o in h["owners"]:
            assert o < n, (o, h)  # §12.7 invariant 3: owners are seats 0 and 1
            assert any(value(c) == h["value"] for c in pos["hands"][o]), (o, h)
    assert len(pos["hands"]) == n
    if pos["phase"] == "play":
        dealer = pos["dealer"]
        assert pos["to_move"] == (dealer + 1 + pos["plays"]) % n
        assert [len(h) for h in pos["hands"]] == hand_sizes(
            dealer, pos["plays"], rules["deal_before_bid"], n, rules["second_deal"]
        )
    if n == 2:
        # §12.7 invariant 1: the stock holds 44 (40) in the bid phase, 24 until play 24, then
        # 0 (0 from play 1 under second_deal false); invariant 4: no house after play 24.
        k = pos["plays"]
        if pos["phase"] == "bid" or k == 0:
            want = 40 if rules["deal_before_bid"] else 44
        elif rules["second_deal"] and k < 24:
            want = 24
        else:
            want = 0
        assert len(pos["stock"]) == want, (k, len(pos["stock"]))
        if rules["second_deal"] and k == 24:
            assert pos["houses"] == [], pos["houses"]
    if pos["phase"] == "bid":
        assert pos["to_move"] == (pos["dealer"] + 1) % n
        assert pos["plays"] == 0
    if pos["phase"] == "over":
        assert pos["to_move"] is None


def check_moves(pos: Position, moves: Sequence[Move]) -> None:
    """Invariants 5 and 8 plus the shape of each listed move (docs/format.md "Move"; R16)."""
    assert moves, "invariant 8: a legal move always exists while the deal runs"
    assert len(move_keys(moves)) == len(moves), "docs/format.md: no move twice"
    if pos["phase"] == "bid":
        assert all(m["action"] in ("bid", "redeal") for m in moves)
        return
    hand = pos["hands"][pos["to_move"]]
    houses = {h["value"]: h for h in pos["houses"]}
    loose = set(pos["loose"])
    for m in moves:
        assert m["card"] in hand, m
        assert set(m.get("loose", [])) <= loose, m
        v = value(m["card"])
        if pos["plays"] == 0:  # R16: the opening play is tied to the bid.
            tied = m["value"] if m["action"] == "build" else v
            assert tied == pos["bid"], m
            assert m["action"] in ("capture", "throw", "build"), m
        if m["action"] == "capture":
            assert m["loose"] or m["houses"], m
            assert set(m["houses"]) <= set(houses), m
            if not pos["rules"]["house_in_sums"]:
                assert m["houses"] in ([], [v]), m
        elif m["action"] == "build":
            assert 9 <= m["value"] <= 13 and m["value"] not in houses, m
        elif m["action"] == "cement":
            assert m["value"] in houses, m
        elif m["action"] == "break":  # invariant 5, R29, R21h
            h = houses[m["house"]]
            assert v <= 4, m
            assert h["value"] != 13 and not h["cemented"], m
            assert pos["to_move"] not in h["owners"], m
            assert m["value"] == h["value"] + v <= 13, m
        else:
            assert m["action"] == "throw", m


def mutations(pos: Position, moves: Sequence[Move], rng: random.Random) -> Iterator[Move]:
    """Well-formed moves near the legal ones: throws of every hand card, cards not in hand,
    captures with a loose card dropped or added, builds/cements/breaks with a wrong value, bids
    in the wrong phase."""
    if pos["phase"] == "bid":
        for val in range(8, 15):
            yield {"action": "bid", "value": val}
        yield {"action": "redeal"}
        return
    hand = pos["hands"][pos["to_move"]]
    for c in hand:
        yield {"action": "throw", "card": c}
    outside = [c for c in ALL_CARDS if c not in hand]
    m = rng.choice(moves)
    yield {**m, "card": rng.choice(outside)}
    yield {"action": "bid", "value": 13}
    for m in moves:
        if m["action"] == "capture" and m["loose"]:
            yield {**m, "loose": m["loose"][1:]}
            extra = [c for c in pos["loose"] if c not in m["loose"]]
            if extra:
                yield {**m, "loose": [*m["loose"], rng.choice(extra)]}
        elif m["action"] in ("build", "cement", "break"):
            yield {**m, "value": m["value"] + 1}


def check_rejects_mutations(pos: Position, moves: Sequence[Move], rng: random.Random) -> None:
    """apply raises IllegalMoveError for (a sample of) well-formed moves not in legal()."""
    legal_keys = move_keys(moves)
    candidates = [m for m in mutations(pos, moves, rng) if move_key(m) not in legal_keys]
    for bad in rng.sample(candidates, min(4, len(candidates))):
        try:
            apply(pos, bad)
        except IllegalMoveError:
            continue
        raise AssertionError(f"apply accepted a move not in legal(): {bad}")


def check_deal(
    seed: int, dealer: int, rules: str | dict[str, Any], rng_seed: int, every_move: bool = False
) -> None:
    """Play one random deal (uniform among legal moves) checking §11 after every move."""
    rng = random.Random(rng_seed)
    full = full_rules(rules)
    n = full["players"]
    pos = new_deal(seed, dealer % n, rules)
    check_position(pos)
    played = [0] * n
    sweeps = [0, 0]
    redeals = 0
    while pos["phase"] != "over":
        moves = legal(pos)
        check_moves(pos, moves)
        check_rejects_mutations(pos, moves, rng)
        if every_move:  # apply accepts every move legal() returns
            for m in moves:
                check_position(apply(pos, m))
        move = rng.choice(moves)
        seat = pos["to_move"]
        after = apply(pos, move)
        check_position(after)
        if move["action"] == "redeal":
            redeals += 1
            assert redeals < 100
        if move["action"] not in ("bid", "redeal"):
            played[seat] += 1
            assert after["plays"] == pos["plays"] + 1
            if move["action"] == "capture":
                assert after["last_capture"] == seat % 2  # two players: the seat itself
                took_all = set(move["loose"]) == set(pos["loose"]) and set(move["houses"]) == {
                    h["value"] for h in pos["houses"]
                }
                if took_all:  # R37 sweep (judged before R40's leftovers); R38 values
                    k = after["plays"]
                    key = "sweep_first" if k == 1 else "sweep_last" if k == 48 else "sweep_value"
                    sweeps[seat % 2] += full[key]
            if after["phase"] != "over":
                assert after["sweeps"] == sweeps
        pos = after
    # 6. 12 plays per seat, 48 in all, no house at the end (under both add_retention settings).
    assert played == [48 // n] * n
    assert pos["plays"] == 48
    assert pos["hands"] == [[]] * n
    assert pos["stock"] == []
    assert pos["houses"] == []
    assert legal(pos) == []
    # 7. Card points sum to 100 (family: 96 + 4 or 96 on 26-26); score = points + sweeps.
    assert pos["sweeps"] == sweeps
    result = score(pos)
    cards = [card_points(pile, full) for pile in pos["captured"]]
    if pos["last_capture"] is not None:
        assert pos["loose"] == []
        assert sum(cards) == 100 - (6 - full["ten_diamonds_points"])
    n0, n1 = (len(p) for p in pos["captured"])
    bonus = [0, 0]
    if n0 != n1:
        bonus[0 if n0 > n1 else 1] = full["majority_bonus"]
    elif full["majority_tie"] == "split":  # R42, §12.3: half each on 26-26
        bonus = [full["majority_bonus"] // 2] * 2
    assert result["sweeps"] == sweeps
    assert result["score"] == [cards[t] + bonus[t] + sweeps[t] for t in (0, 1)]
    assert result["points"] in (cards, [cards[0] + bonus[0], cards[1] + bonus[1]])
