"""Deal flow through the public protocol: new deal, bid, redeal, dealing the stock, turn order,
the opening play, sweeps and the end of the deal (docs/rules.md R9-R19, R38-R41, E1, E2, E12;
docs/format.md "Position" and "Move")."""

from __future__ import annotations

import copy
import json
import os
import random
import subprocess
import sys
from typing import Any

import pytest

from seep import IllegalMoveError
from seep.protocol import apply, legal, new_deal, score
from seepkit.builders import (
    ALL_CARDS,
    DEFAULT_RULES,
    Position,
    all_cards_of,
    bid_position,
    bidder,
    card_points,
    full_rules,
    hand_sizes,
    house,
    move_key,
    move_keys,
    play_position,
    plays_for,
    value,
)

REDEAL = {"action": "redeal"}


def bid_ready(seed: int, dealer: int, rules: str | dict[str, Any] = "standard") -> Position:
    """A new deal whose bidder can bid (redealing while he cannot, R14)."""
    pos = new_deal(seed, dealer, rules)
    for _ in range(100):
        if legal(pos) != [REDEAL]:
            return pos
        pos = apply(pos, REDEAL)
    raise AssertionError("100 redeals in a row")


def assert_52(pos: Position) -> None:
    """docs/format.md: a valid position accounts for all 52 cards exactly once (invariant 1)."""
    assert sorted(all_cards_of(pos)) == sorted(ALL_CARDS)


def capture(card: str, loose: list[str], houses: list[int] | None = None) -> dict[str, Any]:
    """A docs/format.md capture move."""
    return {"action": "capture", "card": card, "loose": loose, "houses": houses or []}


def build(card: str, val: int, loose: list[str]) -> dict[str, Any]:
    """A docs/format.md build move."""
    return {"action": "build", "card": card, "value": val, "loose": loose}


def throw(card: str) -> dict[str, Any]:
    """A docs/format.md throw move."""
    return {"action": "throw", "card": card}


# --- new_deal --------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 7, 2024, 987654321])
@pytest.mark.parametrize("dealer", [0, 1, 2, 3])
def test_new_deal_shape(seed: int, dealer: int) -> None:
    """R12 / docs/format.md phase "bid": bidder (dealer+1)%4 holds 4 cards, 4 loose, 44 in stock."""
    pos = new_deal(seed, dealer)
    b = bidder(dealer)
    assert pos["format"] == "seep/1"
    assert pos["phase"] == "bid"
    assert pos["dealer"] == dealer
    assert pos["to_move"] == b
    assert pos["plays"] == 0
    assert pos["bid"] is None
    assert [len(h) for h in pos["hands"]] == [4 if s == b else 0 for s in range(4)]
    assert len(pos["loose"]) == 4
    assert pos["houses"] == []
    assert len(pos["stock"]) == 44
    assert pos["captured"] == [[], []]
    assert pos["sweeps"] == [0, 0]
    assert pos["last_capture"] is None
    # docs/rules.md §3: "a dump writes every key"; "standard" = all defaults.
    assert pos["rules"] == DEFAULT_RULES
    # R44: a baazi starts with D = 0.
    assert pos["match"] == {"diff": 0, "baazis": [0, 0], "deals": 0}
    assert_52(pos)


def test_new_deal_default_dealer() -> None:
    """new_deal(seed) deals with dealer 0, the bidder being seat 1 (§2)."""
    pos = new_deal(11)
    assert pos["dealer"] == 0
    assert pos["to_move"] == 1
    assert pos == new_deal(11, 0, "standard")


def test_a_position_is_dealt_under_a_preset_name_or_options_and_refuses_anything_else() -> None:
    """Position.new_deal / from_deck take the rules as Rules, a preset name or a docs/format.md
    options object (as the protocol does); anything else gets an error that names it, not an
    AttributeError from deep inside."""
    from seep.engine import Position
    from seep.errors import InvalidRulesError
    from seep.options import Rules

    two = Rules.parse("two_player")
    assert Position.new_deal(5, 1, "two_player").to_dict() == Position.new_deal(5, 1, two).to_dict()
    options = {"throw_rule": "always"}
    assert Position.new_deal(5, 0, options).rules == Rules.parse(options)
    deck = list(range(52))
    assert Position.from_deck(deck, 1, "two_player").rules == two
    with pytest.raises(InvalidRulesError, match="unknown rules preset 'tw0'"):
        Position.new_deal(5, 0, "tw0")
    with pytest.raises(InvalidRulesError, match="got int"):
        Position.new_deal(5, 0, 4)  # type: ignore[arg-type]


@pytest.mark.parametrize("seed", [0, 3, 99])
def test_new_deal_is_deterministic(seed: int) -> None:
    """A record replays to the same positions (docs/format.md): same seed, same deal."""
    assert new_deal(seed, 2) == new_deal(seed, 2)


def test_new_deal_seeds_differ() -> None:
    """The seed drives the shuffle (R11): different seeds give different deals."""
    deals = {tuple(new_deal(seed, 0)["stock"]) for seed in range(10)}
    assert len(deals) >= 9


@pytest.mark.parametrize("preset", ["standard", "family", "two_houses"])
def test_new_deal_presets(preset: str) -> None:
    """docs/rules.md §3 presets: a preset name expands to the full rules object."""
    assert new_deal(5, 1, preset)["rules"] == full_rules(preset)


def test_new_deal_partial_rules_dict() -> None:
    """A missing key takes the standard value; a dump writes every key (§3, docs/format.md)."""
    pos = new_deal(5, 1, {"capture_rule": "any"})
    assert pos["rules"] == full_rules({"capture_rule": "any"})


@pytest.mark.parametrize("dealer", [0, 3])
def test_new_deal_deal_before_bid(dealer: int) -> None:
    """Option deal_before_bid (R12, A5, variant 3): every seat holds 4, stock 32, 4 loose."""
    pos = new_deal(8, dealer, {"deal_before_bid": True})
    assert pos["phase"] == "bid"
    assert pos["to_move"] == bidder(dealer)
    assert [len(h) for h in pos["hands"]] == [4, 4, 4, 4]
    assert len(pos["loose"]) == 4
    assert len(pos["stock"]) == 32
    assert_52(pos)


# --- the bid (R13, R14) ----------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(60))
def test_bid_moves_are_hand_values(seed: int) -> None:
    """R13: legal bids are exactly the values 9..13 of cards in the bidder's hand, each once;
    R14/E2: `redeal` is legal exactly when no card is above 8."""
    dealer = seed % 4
    pos = new_deal(seed, dealer)
    hand = pos["hands"][bidder(dealer)]
    expected = {value(c) for c in hand if value(c) >= 9}
    moves = legal(pos)
    if expected:
        assert all(m["action"] == "bid" for m in moves), moves
        assert sorted(m["value"] for m in moves) == sorted(expected)
    else:
        assert moves == [REDEAL]


def test_bid_moves_deal_before_bid() -> None:
    """R13 with deal_before_bid: only the bidder's own 4 cards decide the bids."""
    pos = bid_position(
        dealer=2,
        hand=["QH", "9D", "2C", "3S"],
        floor=["KD", "5C", "6H", "7S"],
        other_hands={0: ["KS", "KH", "JD", "TD"]},
        rules={"deal_before_bid": True},
    )
    assert sorted(m["value"] for m in legal(pos)) == [9, 12]


def test_e1_only_bid_13() -> None:
    """E1: bidder W holds KH 4D 2C 8S: the only legal bid is 13; other bids, a redeal and card
    plays before the bid are illegal (R13, R14)."""
    pos = bid_position(dealer=0, hand=["KH", "4D", "2C", "8S"], floor=["6C", "7D", "9H", "4S"])
    assert legal(pos) == [{"action": "bid", "value": 13}]
    for bad in (
        {"action": "bid", "value": 12},
        {"action": "bid", "value": 8},
        REDEAL,
        throw("KH"),
        capture("KH", ["6C", "7D", "9H", "4S"]),
    ):
        with pytest.raises(IllegalMoveError):
            apply(pos, bad)


def test_bid_starts_play_phase() -> None:
    """R15/R16: a bid only opens play: phase "play", bid set, plays 0, the bidder to move, the
    cards where they were (docs/format.md)."""
    pos = bid_position(dealer=3, hand=["QH", "9D", "2C", "3S"], floor=["KD", "5C", "6H", "7S"])
    for val in (9, 12):
        after = apply(pos, {"action": "bid", "value": val})
        assert after["phase"] == "play"
        assert after["bid"] == val
        assert after["plays"] == 0
        assert after["to_move"] == 0
        for key in ("stock", "sweeps", "dealer", "rules", "match"):
            assert after[key] == pos[key], key
        for key in ("hands", "captured"):
            assert [sorted(x) for x in after[key]] == [sorted(x) for x in pos[key]], key
        assert sorted(after["loose"]) == sorted(pos["loose"])
        assert after["houses"] == []


def test_e2_redeal() -> None:
    """E2/R14: bidder holds 8S 5H 3C AD: only `redeal` is legal; no bid is."""
    pos = bid_position(dealer=0, hand=["8S", "5H", "3C", "AD"], floor=["KC", "QD", "JH", "TS"])
    assert legal(pos) == [REDEAL]
    for val in range(8, 14):
        with pytest.raises(IllegalMoveError):
            apply(pos, {"action": "bid", "value": val})


@pytest.mark.parametrize("dealer", [0, 1, 2, 3])
def test_redeal_keeps_dealer_and_bidder(dealer: int) -> None:
    """R14 [DEFAULT]: same dealer, same bidder, full reshuffle, deterministic (docs/format.md
    records replay), a fresh bid-phase deal of all 52 cards."""
    pos = bid_position(
        dealer=dealer,
        hand=["8S", "5H", "3C", "AD"],
        floor=["KC", "QD", "JH", "TS"],
        match={"diff": -12, "baazis": [1, 0], "deals": 4},
    )
    before = copy.deepcopy(pos)
    new = apply(pos, REDEAL)
    assert pos == before
    assert apply(before, REDEAL) == new
    assert new["phase"] == "bid"
    assert new["dealer"] == dealer
    assert new["to_move"] == bidder(dealer)
    assert new["plays"] == 0
    assert new["bid"] is None
    assert new["rules"] == pos["rules"]
    assert new["match"] == pos["match"]
    assert [len(h) for h in new["hands"]] == hand_sizes(dealer, 0)
    assert len(new["loose"]) == 4
    assert len(new["stock"]) == 44
    assert new["captured"] == [[], []]
    assert_52(new)
    old_seen = set(pos["hands"][bidder(dealer)]) | set(pos["loose"])
    new_seen = set(new["hands"][bidder(dealer)]) | set(new["loose"])
    assert old_seen != new_seen


def test_redeal_is_a_full_reshuffle() -> None:
    """R14 [DEFAULT] "full reshuffle (floor cards too)": over many redeals, old floor cards and
    old hand cards reappear in new hands, floors and the stock."""
    floor_to_hand = hand_to_stock = 0
    done = 0
    for seed in range(400):
        pos = new_deal(seed, seed % 4)
        if legal(pos) != [REDEAL]:
            continue
        b = bidder(seed % 4)
        new = apply(pos, REDEAL)
        assert_52(new)
        floor_to_hand += bool(set(pos["loose"]) & set(new["hands"][b]))
        hand_to_stock += bool(set(pos["hands"][b]) & set(new["stock"]))
        done += 1
        if done == 30:
            break
    assert done == 30
    assert floor_to_hand > 0
    assert hand_to_stock > 20


def test_redeal_deal_before_bid() -> None:
    """R14 with deal_before_bid: the redeal again gives 4 cards to every seat, stock 32."""
    pos = bid_position(
        dealer=1,
        hand=["8S", "5H", "3C", "AD"],
        floor=["KC", "QD", "JH", "TS"],
        rules={"deal_before_bid": True},
    )
    assert legal(pos) == [REDEAL]
    new = apply(pos, REDEAL)
    assert new["phase"] == "bid"
    assert new["dealer"] == 1
    assert new["to_move"] == 2
    assert [len(h) for h in new["hands"]] == [4, 4, 4, 4]
    assert len(new["stock"]) == 32
    assert_52(new)


# --- dealing the stock after play 1 (R18, docs/format.md stock order) -----------------------------


def expected_hands_after_play1(pre: Position, played: str, deal_before_bid: bool) -> list[set[str]]:
    """docs/format.md `stock`: packets of four, round one to bidder, bidder+1, bidder+2, dealer;
    round two the same; round three (not with deal_before_bid) to bidder+1, bidder+2, dealer."""
    dealer = pre["dealer"]
    b = bidder(dealer)
    stock = pre["stock"]
    order = [b, (b + 1) % 4, (b + 2) % 4, dealer] * 2
    if not deal_before_bid:
        order += [(b + 1) % 4, (b + 2) % 4, dealer]
    assert len(stock) == 4 * len(order)
    hands = [set(h) for h in pre["hands"]]
    hands[b].discard(played)
    for i, seat in enumerate(order):
        hands[seat] |= set(stock[4 * i : 4 * i + 4])
    return hands


@pytest.mark.parametrize("deal_before_bid", [False, True])
@pytest.mark.parametrize(("seed", "dealer"), [(1, 0), (2, 1), (3, 2), (4, 3), (5, 0), (6, 2)])
def test_stock_dealt_in_format_order(seed: int, dealer: int, deal_before_bid: bool) -> None:
    """R18/A26 and docs/format.md: after play 1 the stock is dealt packet by packet in its order;
    hands 11/12/12/12 (bidder 11), stock empty, play 2 by (dealer+2)%4 (R19)."""
    rules = {"deal_before_bid": deal_before_bid}
    pos = bid_ready(seed, dealer, rules)
    pos = apply(pos, legal(pos)[0])
    stock = list(pos["stock"])
    assert len(stock) == (32 if deal_before_bid else 44)
    move = random.Random(seed).choice(legal(pos))
    after = apply(pos, move)
    want = expected_hands_after_play1(pos, move["card"], deal_before_bid)
    for i, card in enumerate(stock):
        seat = next(s for s in range(4) if card in want[s])
        assert card in after["hands"][seat], f"stock[{i}]={card} should go to seat {seat}"
    assert [set(h) for h in after["hands"]] == want
    b = bidder(dealer)
    assert [len(h) for h in after["hands"]] == [11 if s == b else 12 for s in range(4)]
    assert after["stock"] == []
    assert after["plays"] == 1
    assert after["to_move"] == (dealer + 2) % 4
    assert_52(after)


@pytest.mark.parametrize(("seed", "dealer"), [(10, 0), (11, 1), (12, 2), (13, 3)])
def test_turn_order_and_hand_sizes_through_a_deal(seed: int, dealer: int) -> None:
    """R19/§2: to_move = (dealer+1+plays)%4, each seat 12 plays, hand sizes follow; after play 48
    the phase is "over", to_move null, no legal moves (docs/format.md)."""
    rng = random.Random(seed)
    pos = bid_ready(seed, dealer)
    pos = apply(pos, rng.choice(legal(pos)))
    while pos["phase"] == "play":
        assert pos["to_move"] == (dealer + 1 + pos["plays"]) % 4
        assert [len(h) for h in pos["hands"]] == hand_sizes(dealer, pos["plays"])
        pos = apply(pos, rng.choice(legal(pos)))
    assert pos["phase"] == "over"
    assert pos["plays"] == 48
    assert pos["to_move"] is None
    assert legal(pos) == []
    assert pos["hands"] == [[], [], [], []]
    assert pos["houses"] == []
    assert pos["loose"] == [] or pos["last_capture"] is None
    assert_52(pos)


# --- the opening play (R16, E1) ---------------------------------------------------------------


def e1_position(floor: list[str], rules: str | dict[str, Any] = "standard") -> Position:
    """E1 after the bid: dealer N, bidder W holds KH 4D 2C 8S, bid 13, plays 0."""
    pos = bid_position(dealer=0, hand=["KH", "4D", "2C", "8S"], floor=floor, rules=rules)
    pos = apply(pos, {"action": "bid", "value": 13})
    assert pos["phase"] == "play"
    assert pos["plays"] == 0
    assert pos["to_move"] == 1
    return pos


E1_FLOOR = ["6C", "7D", "9H", "4S"]
E1_VARIANT_FLOOR = ["6C", "5D", "3H", "AC"]


def test_e1_opening_moves() -> None:
    """E1: 4 legal opening plays, all tied to 13 (R16): KH takes both groups (R24, R25);
    4D+9H (optionally absorbing {6C,7D}, R31); 2C+7D+4S."""
    pos = e1_position(E1_FLOOR)
    moves = legal(pos)
    assert len(moves) == 4
    assert move_keys(moves) == move_keys(
        [
            capture("KH", ["6C", "7D", "9H", "4S"]),
            build("4D", 13, ["9H"]),
            build("4D", 13, ["9H", "6C", "7D"]),
            build("2C", 13, ["7D", "4S"]),
        ]
    )


def test_e1_illegal_opening_moves() -> None:
    """E1 "Illegal": throwing KH (it can capture, R22); KH taking only {6C,7D} (R25); a play not
    tied to 13 (R16: 2C+7D = 9); a card the bidder does not hold."""
    pos = e1_position(E1_FLOOR)
    for bad in (
        throw("KH"),
        capture("KH", ["6C", "7D"]),
        capture("KH", ["9H", "4S"]),
        build("2C", 9, ["7D"]),
        throw("8S"),
        throw("2C"),
        build("4D", 13, ["9H", "6C"]),
        capture("KD", ["6C", "7D", "9H", "4S"]),
    ):
        with pytest.raises(IllegalMoveError):
            apply(pos, bad)


def test_e1_partial_capture_under_capture_rule_any() -> None:
    """E1: KH taking only {6C,7D} is legal with capture_rule "any" (R25 option); no sweep."""
    pos = e1_position(E1_FLOOR, {"capture_rule": "any"})
    move = capture("KH", ["6C", "7D"])
    assert move_key(move) in move_keys(legal(pos))
    after = apply(pos, move)
    assert sorted(after["loose"]) == ["4S", "9H"]
    assert after["sweeps"] == [0, 0]


@pytest.mark.parametrize(("sweep_first", "bonus"), [(None, 25), (10, 10)])
def test_e1_first_play_sweep(sweep_first: int | None, bonus: int) -> None:
    """E1/R17/R38: the maximal capture on play 1 empties the floor: a sweep worth 25 (option
    sweep_first) to WE; card points 4 (4S); last_capture WE; then the stock is dealt."""
    rules = {} if sweep_first is None else {"sweep_first": sweep_first}
    pos = e1_position(E1_FLOOR, rules)
    after = apply(pos, capture("KH", ["6C", "7D", "9H", "4S"]))
    assert after["sweeps"] == [0, bonus]
    assert sorted(after["captured"][1]) == sorted(["KH", "6C", "7D", "9H", "4S"])
    assert after["captured"][0] == []
    assert card_points(after["captured"][1]) == 4
    assert after["last_capture"] == 1
    assert after["loose"] == []
    assert after["houses"] == []
    assert after["plays"] == 1
    assert after["to_move"] == 2
    assert [len(h) for h in after["hands"]] == [12, 11, 12, 12]
    assert_52(after)


def test_e1_build_makes_house() -> None:
    """E1: 4D + 9H -> H13[4D 9H]{W}, an ordinary house owned by the bidder (R27)."""
    pos = e1_position(E1_FLOOR)
    after = apply(pos, build("4D", 13, ["9H"]))
    assert len(after["houses"]) == 1
    h = after["houses"][0]
    assert h["value"] == 13
    assert sorted(h["cards"]) == ["4D", "9H"]
    assert h["cemented"] is False
    assert h["owners"] == [1]
    assert sorted(after["loose"]) == ["4S", "6C", "7D"]


def test_e1_variant_opening_moves() -> None:
    """E1 variant: floor 6C 5D 3H AC: KH cannot capture, so throwing KH is legal (R16.3, R22);
    builds 4D+6C+3H, 4D+5D+3H+AC, 2C+6C+5D, 8S+5D: 5 moves."""
    pos = e1_position(E1_VARIANT_FLOOR)
    moves = legal(pos)
    assert len(moves) == 5
    assert move_keys(moves) == move_keys(
        [
            throw("KH"),
            build("4D", 13, ["6C", "3H"]),
            build("4D", 13, ["5D", "3H", "AC"]),
            build("2C", 13, ["6C", "5D"]),
            build("8S", 13, ["5D"]),
        ]
    )
    after = apply(pos, throw("KH"))
    assert sorted(after["loose"]) == sorted([*E1_VARIANT_FLOOR, "KH"])
    assert after["captured"] == [[], []]
    assert after["last_capture"] is None
    with pytest.raises(IllegalMoveError):
        apply(pos, throw("4D"))


@pytest.mark.parametrize("seed", range(25))
def test_opening_moves_bound_to_bid(seed: int) -> None:
    """R16: every legal opening play is a capture or throw with a card of the bid value or a
    build of the bid value; the bidder's bid card always gives a move (invariant 8)."""
    pos = bid_ready(seed, seed % 4)
    for bid_move in legal(pos):
        after_bid = apply(pos, bid_move)
        bid = bid_move["value"]
        moves = legal(after_bid)
        assert moves
        for m in moves:
            if m["action"] in ("capture", "throw"):
                assert value(m["card"]) == bid, m
            else:
                assert m["action"] == "build", m
                assert m["value"] == bid, m


# --- sweeps (R37, R38) ------------------------------------------------------------------------


def e6_position(rules: str | dict[str, Any] = "standard") -> Position:
    """E6 mid-deal: S owns H11[6C 5D]{S}; loose 9C 2D; E holds JS 8H AC; dealer N."""
    return play_position(
        dealer=0,
        plays=plays_for(0, 3, 3),
        hands={3: ["JS", "8H", "AC"]},
        loose=["9C", "2D"],
        houses=[house(11, ["6C", "5D"], [2])],
        rules=rules,
    )


@pytest.mark.parametrize(("sweep_value", "bonus"), [(None, 50), (30, 30)])
def test_e6_mid_deal_sweep(sweep_value: int | None, bonus: int) -> None:
    """E6/R37/R38: JS must take H11 and {9C,2D}: floor empty, a sweep worth 50 (option
    sweep_value) to E's team; 3 legal moves (8H and AC only thrown)."""
    pos = e6_position({} if sweep_value is None else {"sweep_value": sweep_value})
    assert 1 < pos["plays"] < 47
    move = capture("JS", ["9C", "2D"], [11])
    assert move_keys(legal(pos)) == move_keys([move, throw("8H"), throw("AC")])
    after = apply(pos, move)
    assert after["loose"] == []
    assert after["houses"] == []
    assert after["sweeps"] == [0, bonus]
    assert after["last_capture"] == 1
    new_cards = set(after["captured"][1]) - set(pos["captured"][1])
    assert new_cards == {"JS", "9C", "2D", "6C", "5D"}
    assert sorted(after["captured"][0]) == sorted(pos["captured"][0])
    assert_52(after)


def test_throw_onto_empty_floor_is_no_sweep() -> None:
    """R38: throwing onto an empty floor is never a sweep (nothing is captured)."""
    pos = play_position(
        dealer=2, plays=plays_for(2, 1, 5), hands={1: ["2S", "3S", "4S", "5S", "6S"]}
    )
    after = apply(pos, throw("5S"))
    assert after["loose"] == ["5S"]
    assert after["sweeps"] == pos["sweeps"]
    assert [sorted(p) for p in after["captured"]] == [sorted(p) for p in pos["captured"]]


def e12_position(card: str, rules: str | dict[str, Any] = "standard") -> Position:
    """E12: after 47 plays the floor is loose 3S 5D, the last capture was WE's; dealer N holds
    one card for play 48."""
    pos = play_position(
        dealer=0, plays=47, hands={0: [card]}, loose=["3S", "5D"], last_capture=1, rules=rules
    )
    assert pos["to_move"] == 0
    return pos


@pytest.mark.parametrize(("sweep_last", "bonus"), [(None, 0), (20, 20)])
def test_e12_last_play_capture(sweep_last: int | None, bonus: int) -> None:
    """E12/R38/R40: N's 8C takes {3S,5D} on play 48: the floor is empty but no sweep bonus
    (sweep_last 0, an option); NS get the cards (3S = 3 points); the deal is over."""
    pos = e12_position("8C", {} if sweep_last is None else {"sweep_last": sweep_last})
    move = capture("8C", ["3S", "5D"])
    assert move_keys(legal(pos)) == move_keys([move])
    after = apply(pos, move)
    assert after["phase"] == "over"
    assert after["plays"] == 48
    assert after["to_move"] is None
    assert legal(after) == []
    assert after["sweeps"] == [bonus, 0]
    assert after["loose"] == []
    assert set(after["captured"][0]) - set(pos["captured"][0]) == {"8C", "3S", "5D"}
    assert sorted(after["captured"][1]) == sorted(pos["captured"][1])
    assert after["last_capture"] == 0
    result = score(after)
    assert result["points"] == [card_points(p) for p in after["captured"]]
    assert result["points"][0] - card_points(pos["captured"][0]) == 3
    assert result["sweeps"] == [bonus, 0]
    assert_52(after)


def test_e12_last_play_throw_leftovers_to_last_capturer() -> None:
    """E12/R40: with 9H (cannot capture) N throws; the floor 3S 5D 9H goes to WE, the last
    capturers; no legal move remains (phase over)."""
    pos = e12_position("9H")
    assert legal(pos) == [throw("9H")]
    after = apply(pos, throw("9H"))
    assert after["phase"] == "over"
    assert after["to_move"] is None
    assert legal(after) == []
    assert after["loose"] == []
    assert set(after["captured"][1]) - set(pos["captured"][1]) == {"3S", "5D", "9H"}
    assert sorted(after["captured"][0]) == sorted(pos["captured"][0])
    assert after["sweeps"] == [0, 0]
    assert sum(score(after)["points"]) == 100
    assert_52(after)
    with pytest.raises(IllegalMoveError):
        apply(after, throw("9H"))


def r41_before_last_play() -> Position:
    """Play 48 of a deal without any capture: 51 loose cards, the dealer's last card KC; only
    reachable with throw_rule "always" (any card may be thrown when no house is on the floor)."""
    last = "KC"
    return play_position(
        dealer=1,
        plays=47,
        hands={1: [last]},
        loose=[c for c in ALL_CARDS if c != last],
        captured=[[], []],
        last_capture=None,
        rules={"throw_rule": "always"},
    )


def test_r41_over_position_scores_nothing() -> None:
    """R41/A23: a deal over without any capture: the 52 cards stay on the floor, nobody scores
    them; no legal move."""
    pos = r41_before_last_play()
    over = {
        **pos,
        "phase": "over",
        "plays": 48,
        "to_move": None,
        "hands": [[], [], [], []],
        "loose": list(ALL_CARDS),
    }
    assert legal(over) == []
    result = score(over)
    assert result["points"] == [0, 0]
    assert result["score"] == [0, 0]


R41_SCRIPT = """
import json, sys
from seep.protocol import apply, score
pos = json.loads(sys.stdin.read())
after = apply(pos, {"action": "throw", "card": "KC"})
print(json.dumps({"after": after, "score": score(after)}))
"""


def test_r41_last_throw_gives_leftovers_to_nobody() -> None:
    """R41/A23: if no capture happened in the whole deal, the leftovers go to nobody. The final
    throw must be applied in reasonable time (run in a subprocess with a time limit: the
    position has 51 loose cards, far too many captures of KC to list)."""
    pos = r41_before_last_play()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    try:
        out = subprocess.run(
            [sys.executable, "-c", R41_SCRIPT],
            input=json.dumps(pos),
            capture_output=True,
            text=True,
            timeout=10,
            env=env,
            check=True,
        )
    except subprocess.TimeoutExpired:
        pytest.fail("apply(throw KC) on play 48 with 51 loose cards took over 10 s")
    result = json.loads(out.stdout)
    after = result["after"]
    assert after["phase"] == "over"
    assert after["captured"] == [[], []]
    assert after["last_capture"] is None
    assert sorted(after["loose"]) == sorted(ALL_CARDS)
    assert result["score"]["points"] == [0, 0]
    assert result["score"]["score"] == [0, 0]
