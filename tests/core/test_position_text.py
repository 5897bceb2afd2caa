"""``str(position)`` and ``str(view)``: the table as text (issue 22, item 8).

``print(pos)`` used to give ``<Position bid plays=0 to_move=1>`` and the hands were raw ints;
now it draws the table as python-chess's ``print(board)`` does, and ``repr`` stays one short
line. A view's text holds only what the seat has seen.
"""

from __future__ import annotations

import re

import pytest

from seep.cards import CARD_NAMES, card_list, seat_names, team_names
from seep.engine import Position
from seep.format import position_from_dict
from seep.view import View
from seepkit.play import played

CARD = re.compile(r"\b[A2-9TJQK][SHDC]\b")


def test_a_position_prints_as_a_table() -> None:
    pos = played(5, 10)
    text = str(pos)
    lines = text.splitlines()
    assert lines[0] == (
        "Seep, standard rules: play phase, 10 of 48 plays, bid 10 by W, dealer N, E to move"
    )
    # The floor: loose cards, then each house with its sets, owners and cemented flag.
    assert lines[1] == "floor  5D 7D KH"
    assert lines[2] == "       H10[TS | 3C 7C]{W} cemented"
    assert lines[3] == "       H12[QH | AD JC | AH JD | AS 2H 9S]{S, E} cemented"
    # Each hand in card names, by compass seat name.
    for seat, name in enumerate("NWSE"):
        assert f"{name}      {' '.join(card_list(pos.hands[seat]))}" in lines
    assert "stock  0 cards" in lines
    assert lines[-3].startswith("NS     ") and lines[-2].startswith("WE     ")
    assert lines[-1] == "match  0 deals played, diff +0, baazis 0-0"


def test_the_score_lines_count_points_and_sweeps() -> None:
    pos = played(3, 40)
    text = str(pos)
    scores = pos.deal_scores()
    for team, name in enumerate(team_names()):
        cards = pos.captured[team].bit_count()
        sweeps = pos.sweeps[team]
        points = pos.card_points()[team]
        line = f"{name:<6} {cards} cards captured, {points} points, {sweeps} sweeps: {scores[team]}"
        assert line in text.splitlines()


def test_the_bid_phase_shows_the_floor_face_down_and_who_bids() -> None:
    text = str(Position.new_deal(1))
    assert text.splitlines()[0] == (
        "Seep, standard rules: bid phase, 0 of 48 plays, dealer N, W to move"
    )
    assert "face down" in text.splitlines()[1]


def test_two_players_use_north_and_south() -> None:
    pos = played(2, 6, rules="two_player")
    lines = str(pos).splitlines()
    assert seat_names(2) == "NS"
    assert "two_player rules" in lines[0]
    assert any(line.startswith("N      ") for line in lines)
    assert any(line.startswith("S      ") for line in lines)
    assert not any(line.startswith(("W      ", "E      ")) for line in lines)


def test_custom_rules_and_a_finished_deal() -> None:
    pos = Position.new_deal(4, rules={"max_houses": 3})
    assert "custom rules" in str(pos).splitlines()[0]
    over = played(8, 48)
    first = str(over).splitlines()[0]
    assert "over phase, 48 of 48 plays" in first and "to move" not in first


def test_repr_stays_one_short_line() -> None:
    pos = played(5, 10)
    assert repr(pos) == "<Position play bid=10 plays=10 to_move=3 score=0-0>"
    assert repr(Position.new_deal(1)) == "<Position bid plays=0 to_move=1 score=0-0>"
    over = played(8, 48)
    assert "to_move" not in repr(over) and "\n" not in repr(over)


@pytest.mark.parametrize("players", [4, 2])
def test_a_view_shows_no_hidden_card(players: int) -> None:
    rules = "standard" if players == 4 else "two_player"
    for seed in range(12):
        for plays in (0, 1, 7, 23, 40):
            pos = played(seed, plays, rules)
            for seat in range(players):
                v = View.from_position(pos, seat)
                text = str(v)
                shown = set(CARD.findall(text))
                seen = {CARD_NAMES[c] for c in range(52) if not v.unseen() >> c & 1}
                assert shown <= seen, (seed, plays, seat, shown - seen)
                assert set(card_list(v.hand)) <= shown  # the seat's own hand is there


def test_a_view_prints_the_other_hands_as_sizes() -> None:
    pos = played(5, 10)
    v = View.from_position(pos, seat=3)
    lines = str(v).splitlines()
    assert lines[0].startswith("Seep, E's view, standard rules: play phase")
    assert f"N      {pos.hands[0].bit_count()} cards" in lines
    assert f"E      {' '.join(card_list(pos.hands[3]))}" in lines
    # Bid phase: the floor lies face down, the view counts it.
    bid = View.from_position(Position.new_deal(1), seat=2)
    assert "floor  4 cards face down" in str(bid).splitlines()


def test_a_house_that_does_not_split_still_prints() -> None:
    # A position from a dict may be checked; one built by hand need not split into sets.
    pos = Position(houses=[(9, 0b111, False, 1)])
    assert "H9[AS AH AD]{N}" in str(pos)
    # The docs/format.md round trip keeps the text.
    d = played(5, 10).to_dict()
    assert str(position_from_dict(d)) == str(played(5, 10))
