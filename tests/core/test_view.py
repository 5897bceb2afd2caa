"""Views (information sets) and determinization."""

from __future__ import annotations

import contextlib
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from seep import InvalidPositionError, SeepError
from seep.cards import FULL_DECK, VALUE_MASK, card_list
from seep.engine import Position
from seep.format import position_from_dict
from seep.view import View
from seepkit.play import random_positions

RULE_SETS = [{}, {"deal_before_bid": True}, {"capture_rule": "any", "throw_rule": "always"}]


@pytest.mark.parametrize("rules", RULE_SETS, ids=str)
def test_view_hides_what_the_seat_has_not_seen(rules: dict[str, object]) -> None:
    """No card the seat has not seen appears anywhere in its view's JSON."""
    for pos in random_positions(150, 1, rules):
        for seat in range(4):
            d = View.from_position(pos, seat).to_dict()
            text = json.dumps(d)
            seen = pos.hands[seat] | pos.captured[0] | pos.captured[1]
            if pos.phase != "bid":
                seen |= pos.loose
            for _, cards, _, _ in pos.houses():
                seen |= cards
            for card in card_list(FULL_DECK & ~seen):
                assert f'"{card}"' not in text
            for s in range(4):
                if s != seat:
                    assert d["hands"][s] == pos.hands[s].bit_count()
            assert d["stock"] == len(pos.stock)


@pytest.mark.parametrize("rules", RULE_SETS, ids=str)
def test_determinize_is_consistent(rules: dict[str, object]) -> None:
    rng = random.Random(3)
    for pos in random_positions(120, 2, rules):
        seat = rng.randrange(4)
        view = View.from_position(pos, seat)
        for _ in range(3):
            sample = view.determinize(rng)
            assert View.from_position(sample, seat) == view
            position_from_dict(sample.to_dict())  # a valid full position
            for s, v in view.owner_needs():
                assert sample.hands[s] & VALUE_MASK[v]
            if view.is_my_turn():
                assert sorted(sample.legal_codes()) == sorted(view.legal_codes())


@pytest.mark.parametrize("rules", RULE_SETS, ids=str)
def test_view_dict_round_trip(rules: dict[str, object]) -> None:
    for pos in random_positions(80, 4, rules):
        for seat in range(4):
            view = View.from_position(pos, seat)
            assert View.from_dict(view.to_dict()) == view


def test_history_round_trip() -> None:
    pos = Position.new_deal(11)
    history = []
    rng = random.Random(0)
    for _ in range(6):
        code = rng.choice(pos.legal_codes())
        history.append((pos.to_move, code))
        pos.push(code)
    view = View.from_position(pos, 1, history)
    d = view.to_dict()
    assert [h["seat"] for h in d["history"]] == [s for s, _ in history]
    assert View.from_dict(d) == view


def test_bad_views() -> None:
    pos = Position.new_deal(11)
    pos.push(pos.legal_codes()[0])
    d = View.from_position(pos, 0).to_dict()
    with pytest.raises(InvalidPositionError, match="seat"):
        View.from_dict(dict(d, seat=7))
    with pytest.raises(InvalidPositionError):
        View.from_dict(dict(d, stock=3))
    with pytest.raises(InvalidPositionError):
        View.from_dict("nope")  # type: ignore[arg-type]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 60) | st.text(max_size=4),
    lambda kids: (
        st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=6), kids, max_size=3)
    ),
    max_leaves=10,
)


@settings(max_examples=400, deadline=None)
@given(st.data())
def test_mutated_views_fail_with_a_named_error(data: st.DataObject) -> None:
    """A view with one field replaced by junk is read or refused with a SeepError, never a
    crash (the ``bot`` command of the protocol reads views from outside)."""
    pos = Position.new_deal(data.draw(st.integers(0, 30)))
    rng = random.Random(data.draw(st.integers(0, 30)))
    for _ in range(data.draw(st.integers(0, 20))):
        pos.push(rng.choice(pos.legal_codes()))
    d = View.from_position(pos, data.draw(st.integers(0, 3))).to_dict()
    key = data.draw(st.sampled_from(sorted(d)))
    d[key] = data.draw(json_values)
    with contextlib.suppress(SeepError):
        View.from_dict(d)
