"""Error reporting of the protocol: invalid positions raise InvalidPositionError naming the
problem (docs/format.md "Position", docs/rules.md §3 and §11); illegal or malformed moves raise
IllegalMoveError saying why (docs/format.md "Move", docs/rules.md R16-R29). Messages are checked
loosely for key words, never for exact text."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from seep import IllegalMoveError, InvalidPositionError
from seep.protocol import apply, legal, new_deal
from seepkit.builders import Position, house, move_key, move_keys, play_position, plays_for

W_HAND = ["TS", "TH", "3D", "QC"]


def e3_position() -> Position:
    """E3(a): W owns H10[6D 4C]{W}; loose 7H 2S 5C; W holds TS TH 3D QC (dealer N)."""
    return play_position(
        dealer=0,
        plays=plays_for(0, 1, 4),
        hands={1: W_HAND},
        loose=["7H", "2S", "5C"],
        houses=[house(10, ["6D", "4C"], [1])],
    )


def with_houses(houses: list[dict[str, Any]], loose: tuple[str, ...] = ("2S",)) -> Position:
    """A position like E3 whose floor holds the given (possibly invalid) houses; the owners other
    than the mover get a card of the house value from the builder (R21d)."""
    return play_position(
        dealer=0, plays=plays_for(0, 1, 4), hands={1: W_HAND}, loose=loose, houses=houses
    )


THROW_3D = {"action": "throw", "card": "3D"}


def test_base_position_is_valid() -> None:
    """The E3(a) base position is valid and THROW 3D is legal there (3 cannot capture, R22)."""
    pos = e3_position()
    assert move_key(THROW_3D) in move_keys(legal(pos))
    apply(pos, THROW_3D)


def edit(change: Callable[[Position], None]) -> Position:
    """A deep copy of the base position changed by ``change``."""
    pos = copy.deepcopy(e3_position())
    change(pos)
    return pos


def _dup(p: Position) -> None:
    p["captured"][0].append("TS")


def _set(key: str, val: Any) -> Callable[[Position], None]:
    def change(p: Position) -> None:
        p[key] = val

    return change


def _rule(key: str, val: Any) -> Callable[[Position], None]:
    def change(p: Position) -> None:
        p["rules"][key] = val

    return change


def _move_card_between_hands(p: Position) -> None:
    p["hands"][0].append(p["hands"][2].pop())


def _unknown_card(bad: str) -> Callable[[Position], None]:
    def change(p: Position) -> None:
        p["captured"][0][0] = bad

    return change


# (id, position, key words of which at least one must be in the message, case-insensitive)
INVALID: list[tuple[str, Callable[[], Position], tuple[str, ...]]] = [
    ("duplicate card", lambda: edit(_dup), ("TS", "duplicate", "twice", "more than once")),
    ("unknown card 1S", lambda: edit(_unknown_card("1S")), ("1S",)),
    ("unknown card 10H", lambda: edit(_unknown_card("10H")), ("10H",)),
    ("unknown card KX", lambda: edit(_unknown_card("KX")), ("KX",)),
    (
        "house of value 8",
        lambda: with_houses([house(8, ["5H", "3C"], [3])]),
        ("8", "house value"),
    ),
    (
        "house of value 14",
        lambda: with_houses([house(14, ["9H", "5C"], [3])]),
        ("14", "house value"),
    ),
    (
        "house cards do not sum to value",
        lambda: with_houses([house(10, ["6D", "3C"], [3], cemented=False)]),
        ("sum", "add up", "total", "set", "partition"),
    ),
    (
        "house 7+6+5 is no pair of 9-sets (R21b)",
        lambda: with_houses([house(9, ["7H", "6D", "5C"], [3], cemented=True)]),
        ("sum", "add up", "set", "partition"),
    ),
    (
        "J+Q+K is no house of 9 (R21b)",
        lambda: with_houses([house(9, ["JH", "QD", "KC"], [3], cemented=True)]),
        ("sum", "add up", "set", "partition"),
    ),
    (
        "ordinary house marked cemented",
        lambda: with_houses([house(10, ["6D", "4C"], [3], cemented=True)]),
        ("cement",),
    ),
    (
        "cemented house marked ordinary",
        lambda: with_houses([house(10, ["TC", "7D", "3C"], [3], cemented=False)]),
        ("cement",),
    ),
    (
        "ordinary house with two owners",
        lambda: with_houses([house(10, ["6D", "4C"], [1, 3])]),
        ("owner",),
    ),
    (
        "house without owner",
        lambda: with_houses([house(10, ["6D", "4C"], [])]),
        ("owner",),
    ),
    (
        "two houses of value 10",
        lambda: with_houses([house(10, ["6D", "4C"], [1]), house(10, ["7D", "3C"], [3])]),
        ("10", "same value", "one house"),
    ),
    (
        "loose card of a house value",
        lambda: with_houses([house(10, ["6D", "4C"], [1])], loose=("2S", "TC")),
        ("TC", "loose"),
    ),
    ("wrong to_move", lambda: edit(_set("to_move", 2)), ("to_move", "turn", "move")),
    ("hand sizes for plays", lambda: edit(_move_card_between_hands), ("hand", "cards", "hold")),
    ("bad phase", lambda: edit(_set("phase", "playing")), ("phase", "playing")),
    ("plays out of range", lambda: edit(_set("plays", 49)), ("plays", "49")),
    ("bad format", lambda: edit(_set("format", "seep/2")), ("format", "seep/2")),
    ("bad last_capture", lambda: edit(_set("last_capture", 2)), ("last_capture", "team")),
    ("unknown rules option", lambda: edit(_rule("foo_rule", 1)), ("foo_rule",)),
    ("bad capture_rule", lambda: edit(_rule("capture_rule", "greedy")), ("capture_rule",)),
    ("bad sweep_value type", lambda: edit(_rule("sweep_value", "50")), ("sweep_value",)),
    ("bad deal_before_bid", lambda: edit(_rule("deal_before_bid", "yes")), ("deal_before_bid",)),
    ("bad max_houses", lambda: edit(_rule("max_houses", "two")), ("max_houses",)),
    ("unknown preset", lambda: edit(_set("rules", "tournament")), ("tournament",)),
]


def _check_message(err: BaseException, words: tuple[str, ...]) -> None:
    msg = str(err).lower()
    assert any(w.lower() in msg for w in words), f"message {str(err)!r} names none of {words}"


@pytest.mark.parametrize(
    ("make", "words"), [case[1:] for case in INVALID], ids=[case[0] for case in INVALID]
)
def test_invalid_position_apply(make: Callable[[], Position], words: tuple[str, ...]) -> None:
    """apply on an invalid position raises InvalidPositionError naming the problem."""
    pos = make()
    with pytest.raises(InvalidPositionError) as info:
        apply(pos, THROW_3D)
    _check_message(info.value, words)


@pytest.mark.parametrize(
    ("make", "words"), [case[1:] for case in INVALID], ids=[case[0] for case in INVALID]
)
def test_invalid_position_legal(make: Callable[[], Position], words: tuple[str, ...]) -> None:
    """legal on an invalid position raises InvalidPositionError as well (no moves from garbage)."""
    pos = make()
    with pytest.raises(InvalidPositionError) as info:
        legal(pos)
    _check_message(info.value, words)


@pytest.mark.parametrize("func", ["apply", "legal"])
def test_missing_card(func: str) -> None:
    """docs/format.md: a valid position accounts for all 52 cards; a missing one is named."""
    pos = copy.deepcopy(e3_position())
    gone = pos["captured"][1].pop()
    with pytest.raises(InvalidPositionError) as info:
        apply(pos, THROW_3D) if func == "apply" else legal(pos)
    _check_message(info.value, (gone, "missing", "51"))


def test_new_deal_bad_rules() -> None:
    """docs/rules.md §3: an unknown option, a bad value or an unknown preset is refused by name."""
    cases: list[tuple[Any, str]] = [
        ({"foo_rule": 1}, "foo_rule"),
        ({"capture_rule": "greedy"}, "capture_rule"),
        ({"min_score": "nine"}, "min_score"),
        ("tournament", "tournament"),
    ]
    for rules, word in cases:
        with pytest.raises(ValueError) as info:
            new_deal(1, 0, rules)
        assert word in str(info.value)


def test_new_deal_bad_dealer() -> None:
    """Seats are 0..3 (docs/format.md)."""
    with pytest.raises(ValueError):
        new_deal(1, 4)


# --- illegal moves ----------------------------------------------------------------------------


def _illegal(pos: Position, move: Any, words: tuple[str, ...]) -> None:
    with pytest.raises(IllegalMoveError) as info:
        apply(pos, move)
    _check_message(info.value, words)


def test_card_not_in_hand() -> None:
    """R20: the mover plays a card from his own hand; the message names the card."""
    pos = e3_position()
    _illegal(pos, {"action": "throw", "card": "KS"}, ("KS",))
    _illegal(pos, {"action": "capture", "card": "TC", "loose": [], "houses": [10]}, ("TC",))
    _illegal(pos, {"action": "throw", "card": "6D"}, ("6D",))


@pytest.mark.parametrize(
    "move",
    [
        {"action": "throw"},
        {"card": "3D"},
        {"action": "pass"},
        {"action": "build", "card": "3D", "loose": ["7H", "2S"]},
        {"action": "capture", "card": "QC"},
        {"action": "cement", "value": 10, "loose": ["7H"]},
        {"action": "break", "card": "3D", "value": 13, "loose": []},
        {},
    ],
    ids=[
        "throw without card",
        "no action",
        "unknown action",
        "build without value",
        "capture without loose",
        "cement without card",
        "break without house",
        "empty",
    ],
)
def test_malformed_move(move: dict[str, Any]) -> None:
    """docs/format.md "Move": a missing field or an unknown action is an illegal move."""
    with pytest.raises(IllegalMoveError):
        apply(e3_position(), move)


def test_malformed_card_string() -> None:
    """docs/format.md "Cards": a card string that is no card is refused (a ValueError)."""
    with pytest.raises(ValueError):
        apply(e3_position(), {"action": "throw", "card": "ZZ"})


def test_non_maximal_capture() -> None:
    """R25 (capture_rule "maximal"): J over loose 5C 6H 4D 7S must take both groups."""
    pos = play_position(
        dealer=0,
        plays=plays_for(0, 2, 3),
        hands={2: ["JH", "2C", "3C"]},
        loose=["5C", "6H", "4D", "7S"],
    )
    both = {"action": "capture", "card": "JH", "loose": ["5C", "6H", "4D", "7S"], "houses": []}
    assert move_key(both) in move_keys(legal(pos))
    part = {"action": "capture", "card": "JH", "loose": ["5C", "6H"], "houses": []}
    _illegal(pos, part, ("maximal", "all", "must", "remain", "group"))


def test_capture_must_include_house() -> None:
    """R25: a capturing card must take H_v when it exists (E3: TS takes H10)."""
    pos = play_position(
        dealer=0,
        plays=plays_for(0, 2, 3),
        hands={2: ["TS", "2C", "3C"]},
        loose=["7H", "3H"],
        houses=[house(10, ["6D", "4C"], [1])],
    )
    _illegal(
        pos,
        {"action": "capture", "card": "TS", "loose": [], "houses": []},
        ("maximal", "house", "must", "capture", "nothing"),
    )


def test_capture_wrong_sum() -> None:
    """R23: captured groups must each sum to the card's value (QC with 7H+2S = 9)."""
    _illegal(
        e3_position(),
        {"action": "capture", "card": "QC", "loose": ["7H", "2S"], "houses": []},
        ("QC", "12", "sum", "group", "capture"),
    )


def test_throw_of_card_that_can_capture() -> None:
    """R22 (throw_rule "no_capture_possible"), E3: QC can capture {7H,5C}: no throw."""
    _illegal(e3_position(), {"action": "throw", "card": "QC"}, ("QC", "capture"))


def test_throw_of_house_value() -> None:
    """R21f(b), E3: TS may not be thrown loose while H10 exists."""
    _illegal(e3_position(), {"action": "throw", "card": "TS"}, ("TS", "house", "capture"))


def test_build_without_holding_value() -> None:
    """R27/R32: a builder must hold a card of the new house's value (E7 without JC)."""
    pos = play_position(
        dealer=0, plays=plays_for(0, 3, 3), hands={3: ["6C", "2S", "3D"]}, loose=["5S", "8H"]
    )
    _illegal(
        pos,
        {"action": "build", "card": "6C", "value": 11, "loose": ["5S"]},
        ("retain", "hold", "keep", "11"),
    )


def e3b_position() -> Position:
    """E3(b): W owns H10[6D 4C]{W}; loose 7H 2S 5C; W holds TS 9H 3D QC (one 10 only)."""
    return play_position(
        dealer=0,
        plays=plays_for(0, 1, 4),
        hands={1: ["TS", "9H", "3D", "QC"]},
        loose=["7H", "2S", "5C"],
        houses=[house(10, ["6D", "4C"], [1])],
    )


def test_build_violating_retention_of_own_house() -> None:
    """E3(b)/R21d: building TS+2S = 12 would leave W, owner of H10, without a 10."""
    _illegal(
        e3b_position(),
        {"action": "build", "card": "TS", "value": 12, "loose": ["2S"]},
        ("retain", "hold", "keep", "10"),
    )


def test_cement_violating_retention() -> None:
    """E3(b)/R28: adding TS to his own H10 would leave W without a 10."""
    _illegal(
        e3b_position(),
        {"action": "cement", "card": "TS", "value": 10, "loose": []},
        ("retain", "hold", "keep", "10"),
    )


def test_break_own_house() -> None:
    """E4/R29: E may not break his own ordinary house (2H onto H9)."""
    pos = play_position(
        dealer=0,
        plays=plays_for(0, 3, 4),
        hands={3: ["2H", "JD", "3S", "9C"]},
        loose=["8C"],
        houses=[house(9, ["5H", "4C"], [3])],
    )
    _illegal(
        pos,
        {"action": "break", "card": "2H", "house": 9, "value": 11, "loose": []},
        ("own", "break"),
    )


def test_bid_during_play() -> None:
    """docs/format.md: a bid is a move of the "bid" phase only."""
    _illegal(e3_position(), {"action": "bid", "value": 10}, ("bid", "phase"))
    _illegal(e3_position(), {"action": "redeal"}, ("redeal", "phase", "bid"))
