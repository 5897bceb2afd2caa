"""Notation: cards, moves and positions parse and format both ways (docs/notation.md)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from seep import NotationError
from seep.cards import CARD_NAMES, format_cards, parse_card, parse_cards
from seep.engine import Position
from seep.moves import Move
from seep.notation import (
    format_house,
    format_move,
    format_position,
    house_sets,
    parse_move,
    parse_position,
)
from seepkit.play import random_positions

RULE_SETS = [
    "standard",
    {"capture_rule": "any", "house_in_sums": True},
    {"absorb_loose_groups": "mandatory", "allow_pair_build": True, "max_houses": 3},
    {"deal_before_bid": True, "throw_rule": "always"},
]


def test_card_names_round_trip() -> None:
    for c, name in enumerate(CARD_NAMES):
        assert parse_card(name) == c
        assert parse_card(name.lower()) == c
    assert parse_card("10d") == parse_card("TD")
    assert format_cards(parse_cards("kh 2c, 4d")) == "2C 4D KH"


@pytest.mark.parametrize("bad", ["", "1S", "AX", "TTD", "11H", "A"])
def test_bad_cards(bad: str) -> None:
    with pytest.raises(NotationError, match="unknown card"):
        parse_card(bad)


def test_strict_cards() -> None:
    with pytest.raises(NotationError):
        parse_card("td", strict=True)
    with pytest.raises(NotationError, match="twice"):
        parse_cards("AS as")


@pytest.mark.parametrize("rules", RULE_SETS, ids=str)
def test_every_legal_move_round_trips(rules: object) -> None:
    for pos in random_positions(300, 7, rules):
        for code in pos.legal_codes():
            m = Move(code)
            assert parse_move(format_move(m)) == m
            assert Move.from_dict(m.to_dict()) == m
            assert parse_move(str(m).lower()) == m


@pytest.mark.parametrize("rules", RULE_SETS, ids=str)
def test_positions_round_trip(rules: object) -> None:
    for pos in random_positions(120, 8, rules):
        text = format_position(pos)
        again = parse_position(text)
        assert again.to_dict() == pos.to_dict()
        assert format_position(again) == text


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet="AKQJT9876543210xXhH=+^ ,SDCbidrealy", max_size=24))
def test_parse_move_never_crashes(text: str) -> None:
    """Any text either parses or raises NotationError naming the problem."""
    try:
        m = parse_move(text)
    except NotationError as exc:
        assert str(exc)
    else:
        assert parse_move(format_move(m)) == m


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", "empty"),
        ("bid 8", "9..13"),
        ("KH y 2C", "unknown move operator"),
        ("4D =14 9H", "9..13"),
        ("2H ^9", "break is written"),
        ("KH x H11 H11", "twice"),
        ("redeal now", "redeal"),
    ],
)
def test_bad_moves(text: str, words: str) -> None:
    with pytest.raises(NotationError, match=words):
        parse_move(text)


def test_examples_of_the_doc() -> None:
    assert parse_move("KH x 6C 7D 9H 4S").to_dict() == {
        "action": "capture",
        "card": "KH",
        "loose": ["4S", "6C", "7D", "9H"],
        "houses": [],
    }
    assert parse_move("JS x H11 9C 2D").houses == (11,)
    assert parse_move("TS +10").to_dict()["action"] == "cement"
    assert parse_move("bid 13").to_dict() == {"action": "bid", "value": 13}
    assert parse_move("redeal").to_dict() == {"action": "redeal"}


def test_house_display() -> None:
    cards = parse_cards("8D 4S 7C 3H 2C")
    assert format_house(12, cards, 0b1001, "NWSE") == "H12[4S 8D | 2C 3H 7C]{N, E}"
    sets = house_sets(cards, 12)
    assert len(sets) == 2 and all(
        sum((c >> 2) + 1 for c in range(52) if s >> c & 1) == 12 for s in sets
    )


@pytest.mark.parametrize(
    ("mutate", "words"),
    [
        (lambda f: f[:12], "13 space-separated fields"),
        (lambda f: [*f[:5], "AS/-/-", *f[6:]], "four seats"),
        (lambda f: [*f[:1], "x", *f[2:]], "dealer"),
        (lambda f: [*f[:8], "9ASKS", *f[9:]], "owners follow"),
    ],
)
def test_bad_positions(mutate: object, words: str) -> None:
    fields = format_position(Position.new_deal(3)).split()
    with pytest.raises(NotationError, match=words):
        parse_position(" ".join(mutate(fields)))  # type: ignore[operator]
