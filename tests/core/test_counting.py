"""seep.counting: the counts of legal moves per card agree with the generator."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from seep import protocol
from seep.codes import code_card
from seep.counting import count_by_card, count_legal
from seep.engine import Position
from seep.errors import IllegalMoveError
from seep.options import Rules
from seep.protocol_server import handle_request
from seepkit.builders import make_position

VARIANTS = [
    {},
    {"throw_rule": "always"},
    {"throw_rule": "no_other_move"},
    {"capture_rule": "any", "throw_rule": "always"},
    {"absorb_loose_groups": "mandatory", "throw_rule": "always"},
    {"absorb_loose_groups": "never"},
    {"allow_pair_build": True, "throw_rule": "always"},
    {"house_in_sums": True, "throw_rule": "always"},
    {"house_in_sums": True, "capture_rule": "any"},
    {"partner_cement_free": False, "add_retention": "team"},
    {"max_houses": 1, "deal_before_bid": True},
    {"players": 2, "throw_rule": "always"},
]


def _agree(pos: Position) -> None:
    codes = pos.legal_codes()
    assert count_legal(pos) == len(codes)
    if pos.phase == "play":
        by_card = Counter(code_card(c) for c in codes)
        counts = count_by_card(pos)
        assert {c: n for c, n in counts.items() if n} == dict(by_card), pos.to_dict()


@pytest.mark.parametrize("options", VARIANTS)
def test_counts_match_the_generator_along_random_deals(options: dict[str, object]) -> None:
    rules = Rules.parse(options)
    rng = random.Random(12)
    for seed in range(12):
        pos = Position.new_deal(seed, seed % rules.players, rules)
        while not pos.is_over():
            _agree(pos)
            pos.push(rng.choice(pos.legal_codes()))


def test_a_floor_of_twenty_cards_is_counted_at_once() -> None:
    from seep.format import position_from_dict

    loose = [r + s for r in "A2345" for s in "SHDC"]
    hand = ["9S", "9H", "TS", "JS", "QS", "KS", "KH", "8S"]
    d = make_position(hand, mover=1, plays=16, loose=loose, rules={"throw_rule": "always"})
    pos = position_from_dict(d)
    assert count_legal(pos) == 1_663_906  # what legal_codes() lists, in seconds


def _big_floor(hand: list[str]) -> dict[str, object]:
    loose = [r + s for r in "A2345" for s in "SHDC"]
    return make_position(hand, mover=1, plays=16, loose=loose, rules={"throw_rule": "always"})


def test_protocol_refuses_a_huge_list_with_the_count_per_card() -> None:
    position = _big_floor(["9S", "9H", "TS", "JS", "QS", "KS", "KH", "8S"])
    answer = handle_request({"id": 1, "cmd": "legal", "position": position})
    error = answer["error"]
    assert error["code"] == "too_many_moves"
    assert error["total"] == 1_663_906 and error["limit"] == 10_000
    assert sum(error["counts"].values()) == error["total"]
    assert set(error["counts"]) == {"9S", "9H", "TS", "JS", "QS", "KS", "KH", "8S"}
    # One card at a time: a card whose list fits is answered, only its moves.
    small = min(error["counts"], key=error["counts"].get)
    one = handle_request(
        {"id": 2, "cmd": "legal", "position": position, "card": small, "limit": 100_000}
    )
    assert len(one["result"]) == error["counts"][small]
    assert {m["card"] for m in one["result"]} == {small}


@pytest.mark.parametrize("options", VARIANTS)
def test_the_card_filter_keeps_exactly_that_cards_moves(options: dict[str, object]) -> None:
    rules = Rules.parse(options)
    rng = random.Random(5)
    for seed in range(4):
        pos = Position.new_deal(seed, seed % rules.players, rules)
        while not pos.is_over():
            d = pos.to_dict()
            everything = protocol.legal(d, limit=1_000_000)
            if pos.phase == "play":
                for name in d["hands"][pos.to_move]:
                    mine = [m for m in everything if m.get("card") == name]
                    got = protocol.legal(d, card=name, limit=1_000_000)
                    assert sorted(map(str, got)) == sorted(map(str, mine))
            pos.push(rng.choice(pos.legal_codes()))


@pytest.mark.parametrize(
    "fields", [{"limit": 0}, {"limit": "9"}, {"limit": True}, {"card": "ZZ"}, {"card": 5}]
)
def test_bad_limit_or_card_is_a_bad_request(fields: dict[str, object]) -> None:
    pos = Position.new_deal(1).to_dict()
    answer = handle_request({"id": 1, "cmd": "legal", "position": pos, **fields})
    assert answer["error"]["code"] == "bad_request"


def test_apply_on_the_huge_floor_checks_one_move_without_listing() -> None:
    position = _big_floor(["9S", "9H", "TS", "JS", "QS", "KS", "KH", "8S"])
    after = protocol.apply(position, {"action": "throw", "card": "8S"})
    assert "8S" in after["loose"]
    move = {
        "action": "capture",
        "card": "KH",
        "loose": ["AS", "2S", "3S", "3H", "4S"],
        "houses": [],
    }
    with pytest.raises(IllegalMoveError, match="R25"):  # not maximal: more 13s are left
        protocol.apply(position, move)
