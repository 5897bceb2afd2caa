"""The state tells the seat to move why a card of its hand has no legal use (issue 13): the
reason comes from the rules checker (``seep.verify.check``), never from the page."""

from __future__ import annotations

from seep.cards import card_value
from seep.web.messages import State
from seepkit.tables import bidder_table


def test_dead_cards_carry_the_checkers_reason() -> None:
    table, bid = bidder_table()
    state = table.state(0)
    State.model_validate(state)  # the published schema holds the new field
    hand = state["view"]["hands"][0]
    used = {m.get("card") for m in state["legal"]}
    dead = state["dead"]
    assert set(dead) == {c for c in hand if c not in used}
    for why in dead.values():
        assert why.endswith(")") and "(R" in why, why
    # Play 1 is bound to the bid: a card of another value that cannot build it is dead by R16.
    r16 = [c for c in dead if "R16" in dead[c]]
    assert r16 and all(card_value_of(c) != bid for c in r16)


def card_value_of(card: str) -> int:
    from seep.cards import parse_card

    return int(card_value(parse_card(card)))


def test_only_the_seat_to_move_gets_reasons() -> None:
    table, _ = bidder_table()
    for seat in (1, 2, 3, None):
        assert table.state(seat)["dead"] == {}
