"""The greedy and heuristic bots on hand-built positions, their tactics helpers, and the
bot registry (make_bot by name and by difficulty)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import pytest

from seep.bots import BOTS, DIFFICULTIES, Decision, make_bot
from seep.bots.tactics import Counting, capture_outlook
from seep.cards import parse_cards, value_mask
from seep.engine import Position
from seep.errors import SeepError
from seep.floor import sweep_values
from seep.format import position_from_dict
from seep.moves import Move
from seep.notation import cards_text, parse_move
from seep.view import View
from seepkit.builders import make_position

pytestmark = pytest.mark.default_build_only

make_bot("random")  # loads the built-in bots
# Settings that keep construction cheap and deterministic (see test_bot_honesty.py).
TEST_SETTINGS: dict[str, dict[str, Any]] = {"ismcts": {"iterations": 30}}


def position(hand: Sequence[str], **kw: Any) -> Position:
    """A full position from tests/seepkit/builders.py (the mover holds ``hand``)."""
    return position_from_dict(make_position(hand, **kw))


def decide(name: str, pos: Position, seed: int = 0) -> Decision:
    seat = pos.to_move
    assert seat is not None
    decision = make_bot(name).choose(View.from_position(pos, seat), random.Random(seed))
    assert pos.is_legal(decision.move)
    assert decision.reason.strip()
    return decision


def floor_after(pos: Position, move: int) -> tuple[int, int]:
    """Loose cards and house values (bits) after ``move``."""
    after = pos.copy()
    after.push(move)
    hp = 0
    for v, _, _, _ in after.houses():
        hp |= 1 << v
    return after.loose, hp


# --- greedy -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["greedy", "heuristic"])
def test_takes_the_sweep(name: str) -> None:
    # R37, R38: 7C takes 3S + 4H and leaves the floor empty: 50 + 3 points.
    pos = position(["7C", "KD", "5H"], mover=2, loose=["3S", "4H"])
    d = decide(name, pos)
    assert d.move == parse_move("7C x 3S 4H")
    assert "sweep" in d.reason


def test_greedy_prefers_the_ten_of_diamonds() -> None:
    # TC x TD scores 6 (R5); 5C x 5H nothing. Neither leaves a floor one card can sweep.
    pos = position(["TC", "5C", "2H"], mover=2, loose=["TD", "5H", "9C", "KC"])
    d = decide("greedy", pos)
    assert d.move == parse_move("TC x TD")
    assert "10♦" in d.reason and "6 points" in d.reason


def test_greedy_counts_the_ten_of_diamonds_per_rules() -> None:
    # TC x TD scores 6 under the standard rules, 2 under the family rules (R5, A21); 5S x 5H
    # scores 5 under both.
    hand, loose = ["TC", "5S", "2H"], ["TD", "5H", "KC", "QC"]
    assert decide("greedy", position(hand, mover=2, loose=loose)).move == parse_move("TC x TD")
    family = position(hand, mover=2, loose=loose, rules="family")
    assert decide("greedy", family).move == parse_move("5S x 5H")


def test_greedy_avoids_leaving_a_sweep() -> None:
    # Throwing 3C leaves 6H + 3C: any 9 sweeps, and the next player (E) holds one.
    pos = position(["3C", "8D", "KD"], mover=2, loose=["6H"], others={3: ["9S", "9H", "2D"]})
    assert decide("greedy", pos).move != parse_move("3C")


def test_greedy_reason_for_a_throw() -> None:
    pos = position(["8D", "KD", "2C"], mover=2, loose=["6H", "QC"])
    d = decide("greedy", pos)
    assert d.move.action == "throw"
    assert d.reason.startswith("throws ") and "nothing to capture" in d.reason


# --- heuristic ----------------------------------------------------------------------------


def test_heuristic_does_not_throw_into_a_sweep() -> None:
    # 3C would leave 6H + 3C (9): the next opponent E holds 9S. 8D or KD leave no sweep.
    pos = position(["3C", "8D", "KD"], mover=2, loose=["6H"], others={3: ["9S", "9H", "2D"]})
    view = View.from_position(pos, 2)
    d = decide("heuristic", pos)
    assert d.move != parse_move("3C")
    loose, hp = floor_after(pos, d.move)
    sweepers = sweep_values(loose, hp)
    assert not any(sweepers >> v & 1 and view.unseen() & value_mask(v) for v in range(1, 14))


def test_heuristic_breaks_a_valuable_opponent_house() -> None:
    # E's ordinary H9[5S 4S] holds 9 points; N breaks it with 2H to 11 and keeps JD (R29).
    pos = position(["2H", "JD", "8C"], mover=0, loose=["KC"], houses=["H9[5S 4S]{E}"])
    d = decide("heuristic", pos)
    assert d.move == parse_move("2H ^9=11")
    assert "house" in d.reason


def test_heuristic_adds_points_to_the_partner_house() -> None:
    # R33: N may add 3H + 7S to S's house of 10 without holding a 10; 7 points leave the floor.
    pos = position(["3H", "5D", "8C"], mover=0, loose=["7S", "QC"], houses=["H10[6D 4C]{S}"])
    d = decide("heuristic", pos)
    assert d.move == parse_move("3H +10 7S")
    assert "partner" in d.reason


def test_heuristic_captures_a_valuable_opponent_house() -> None:
    pos = position(["QD", "5D", "8C"], mover=0, loose=["2C", "KH"], houses=["H12[7S 5S]{E}"])
    assert decide("heuristic", pos).move == parse_move("QD x H12")


def test_heuristic_scores_every_move() -> None:
    pos = position(["3C", "8D", "KD"], mover=2, loose=["6H", "5S"])
    view = View.from_position(pos, 2)
    codes = view.legal_codes()
    scored = make_bot("heuristic").score_moves(view, codes)  # type: ignore[attr-defined]
    assert sorted(out.code for _, out, _ in scored) == sorted(codes)


def test_heuristic_rejects_unknown_settings() -> None:
    with pytest.raises(SeepError, match="bogus"):
        make_bot("heuristic", bogus=1)
    with pytest.raises(SeepError, match="bogus"):
        make_bot("greedy", bogus=1)
    assert make_bot("heuristic", threat=0.5).weights.threat == 0.5  # type: ignore[attr-defined]


# --- bids ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["greedy", "heuristic"])
@pytest.mark.parametrize(
    "hand", [["9S", "9H", "KD", "2C"], ["TC", "JH", "QS", "KD"], ["KH", "4D", "2C", "8S"]]
)
def test_bids_are_legal(name: str, hand: list[str]) -> None:
    pos = position(hand, phase="bid")
    d = decide(name, pos)
    assert d.move.action == "bid"
    assert d.move in pos.legal_codes()  # R13: a value 9..13 held in hand
    assert str(d.move.value) in d.reason


def test_greedy_bids_the_value_it_holds_most() -> None:
    assert decide("greedy", position(["9S", "9H", "KD", "2C"], phase="bid")).move == Move.bid(9)
    assert decide("greedy", position(["TC", "JH", "QS", "2D"], phase="bid")).move == Move.bid(12)


@pytest.mark.parametrize("name", ["greedy", "heuristic"])
def test_no_bid_means_a_redeal(name: str) -> None:
    # R14: no card above 8.
    pos = position(["8S", "5H", "3C", "AD"], phase="bid")
    assert decide(name, pos).move == Move.redeal()


@pytest.mark.parametrize("name", ["greedy", "heuristic"])
def test_opening_play_keeps_to_the_bid(name: str) -> None:
    # E1: bid 13 with KH 4D 2C 8S; KH takes both groups, a first-play sweep (25).
    pos = position(["KH", "4D", "2C", "8S"], plays=0, loose=["6C", "7D", "9H", "4S"], bid=13)
    d = decide(name, pos)
    assert d.move == parse_move("KH x 6C 7D 9H 4S")


def test_no_move_for_a_seat_not_to_move() -> None:
    pos = position(["3C", "8D", "KD"], mover=2, loose=["6H"])
    view = View.from_position(pos, 1)
    for name in ("random", "greedy", "heuristic"):
        with pytest.raises(SeepError):
            make_bot(name).choose(view, random.Random(0))


# --- tactics ------------------------------------------------------------------------------


def test_capture_outlook() -> None:
    loose = parse_cards("2S 3D 5C 6H")
    # E8: a J takes {5C, 6H} or {2S, 3D, 6H}; the second scores 2 (2S). Neither takes all.
    assert capture_outlook(loose, 11, 6) == (2, False)
    assert capture_outlook(parse_cards("TD 4S 6S"), 10, 6) == (16, True)
    assert capture_outlook(parse_cards("TD 4S 6S"), 10, 2) == (12, True)
    assert capture_outlook(loose, 13, 6) == (2, False)  # {2S, 5C, 6H}
    assert capture_outlook(loose, 12, 6) == (0, False)  # no 12-group


def test_sweep_values() -> None:
    assert sweep_values(parse_cards("3S 4H"), 0) == 1 << 7
    assert sweep_values(parse_cards("3S 4H 7C"), 0) == 1 << 7
    assert sweep_values(parse_cards("3S 4H 6C"), 0) == 1 << 13
    assert sweep_values(0, 1 << 11) == 1 << 11  # a lone house: its value takes it (R37)
    assert sweep_values(parse_cards("5H"), 1 << 11) == 0
    assert sweep_values(0, 0) == 0  # nothing to sweep (R38)
    assert sweep_values(0, 1 << 9 | 1 << 10) == 0


def test_counting_uses_the_owners_duty() -> None:
    # E owns H9 and so holds a 9 (R21d): the chance is 1 whatever the count says.
    pos = position(["3C", "8D", "KD"], mover=2, loose=["6H"], houses=["H9[5S 4S]{E}"])
    counting = Counting(View.from_position(pos, 2))
    assert counting.p_holds((3,), 1 << 9) == 1.0
    assert 0.0 <= counting.p_holds((1,), 1 << 9) < 1.0
    assert counting.p_holds((1,), 0) == 0.0


def test_cards_text() -> None:
    assert cards_text(parse_cards("TD 5S")) == "5♠ and 10♦"
    assert cards_text(parse_cards("3C")) == "3♣"
    assert cards_text(parse_cards("AH 2H 3H 4H 5H 6H 7H"), limit=3) == "A♥, 2♥ and 5 more"


# --- the registry -------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(BOTS))
def test_make_bot_by_name(name: str) -> None:
    bot = make_bot(name, **TEST_SETTINGS.get(name, {}))
    assert bot.name == name
    assert callable(bot.choose)


@pytest.mark.parametrize("name", sorted(DIFFICULTIES))
def test_make_bot_by_difficulty(name: str) -> None:
    bot = make_bot(name)
    assert bot.name == DIFFICULTIES[name][0]


def test_difficulties() -> None:
    assert DIFFICULTIES["easy"] == ("greedy", {})
    assert DIFFICULTIES["medium"] == ("heuristic", {})


def test_unknown_bot_is_named() -> None:
    with pytest.raises(SeepError, match="'nope'"):
        make_bot("nope")
