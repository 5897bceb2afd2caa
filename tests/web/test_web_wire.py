"""The broadcast's text is the state as ``json`` writes it (issue 24): the state writer keeps
the deal's history serialised and cuts the public view where a seat's differs, and what
reaches the client must stay byte for byte the same, through moves, undos and new deals."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

pytest.importorskip("pydantic")

from seep.engine import Position
from seep.view import PublicView
from seep.web.statetext import StateWriter, _view_parts
from seep.web.table import Table, parse_settings
from seep.web.wire import (
    dumps,
    move_dict,
    move_record,
    move_text,
    record_text,
    state,
    stored_move_text,
)


class AppendingClient:
    """A socket that asked for the appended history: it joins each state's new moves to the
    ones it holds, as the page does (net.js)."""

    def __init__(self, seat: int | None) -> None:
        self.seat = seat
        self.held: tuple[int, int] | None = None  # what the server knows it holds
        self.history: list[Any] = []

    def receive(self, writer: StateWriter) -> dict[str, Any]:
        held = self.held
        since = held[1] if held is not None and held[0] == writer.history_id else 0
        msg = json.loads(writer.appended(self.seat, held))
        self.held = writer.held
        assert msg.pop("history_from") == since
        if msg["view"] is not None:
            msg["view"]["history"] = self.history[:since] + msg["view"]["history"]
        self.history = msg["view"]["history"] if msg["view"] is not None else []
        return msg


def _check(writer: StateWriter, table: Table, clients: list[AppendingClient] = ()) -> None:
    writer.begin(table)
    for seat in [*range(table.players), None, 0]:  # a second ask answers the same text
        assert writer.text(seat) == dumps(state(table, seat)), (table.version, seat)
    for client in clients:
        assert client.receive(writer) == state(table, client.seat), (table.version, client.seat)
    writer.end()


def _change_table(table: Table, rng: random.Random) -> None:
    """One change to what the table's public text shows besides the game."""
    seat = table.seats[rng.randrange(table.players)]
    what = rng.randrange(6)
    if what == 0:
        table.muted ^= {1}
    elif what == 1:
        table.rematch ^= {0}
    elif what == 2:
        count = table.watching["count"] + 1
        table.watching = {"count": count, "names": [f"W{i}" for i in range(count % 3)]}
    elif what == 3:
        seat.rating = None if seat.rating is not None else (1500 + rng.randrange(9), True)
    elif what == 4:
        seat.connections = 1 - min(seat.connections, 1)
    else:
        seat.forfeited = not seat.forfeited


@pytest.mark.parametrize("preset", ["standard", "two_player", "family", "two_houses"])
def test_state_text_is_the_state_as_json(preset: str) -> None:
    rng = random.Random(7)
    table = Table("WIRETS", parse_settings({"bots": "easy", "deals": 2, "preset": preset}), 11)
    writer = StateWriter()
    table.join("Host", 0)
    clients = [AppendingClient(seat) for seat in (0, 1, None)]
    _check(writer, table, clients)  # waiting: no view yet
    table.start(0)
    while table.status == "playing":
        table.version += 1
        if rng.random() < 0.1:  # the seats change now and then: the table's text with them
            table.seats[0].away = not table.seats[0].away
        if rng.random() < 0.05:  # and what else the table shows (its text is kept meanwhile)
            _change_table(table, rng)
        if rng.random() < 0.1:  # a socket that came now: it holds nothing
            clients.append(AppendingClient(rng.choice([0, 1, None])))
        _check(writer, table, clients)
        session = table.session
        assert session is not None
        if session.deal_over:
            table.leave_deal()
            continue
        if len(session.history) > 6 and rng.random() < 0.05:
            session.undo(3)  # the kept history is no longer a prefix: written again
            continue
        pos = session.position
        table.apply(table.check_code(rng.choice(pos.legal_codes())))
    _check(writer, table, clients)


@pytest.mark.parametrize("preset", ["standard", "two_player", "family", "two_houses"])
def test_the_views_text_is_the_views_dict(preset: str) -> None:
    """The writer writes a public view field by field: what ``json`` writes of its dict, in
    the bid, the play (houses cemented or not, with their owners) and at the deal's end."""
    rng = random.Random(5)
    houses = 0
    for seed in range(8):
        table = Table("WIRETS", parse_settings({"bots": "easy", "preset": preset}), seed)
        table.join("Host", 0)
        table.start(0)
        session = table.session
        assert session is not None
        while True:
            pos = session.position
            view = PublicView.from_position(pos, session.history)
            head, middle, tail = _view_parts(view)
            history = dumps([move_record(s, c) for s, c in session.history])
            sizes = ",".join(map(str, view.hand_sizes))
            text = f"{head}null{middle}[{sizes}]{tail}{history}}}"
            assert text == dumps(view.to_dict()), (seed, pos.plays)
            houses += bool(view.houses)
            if pos.is_over():
                break
            session.play(rng.choice(pos.legal_codes()))
    assert houses > 20


def test_a_spectator_sees_the_public_view() -> None:
    table = Table("WIRETS", parse_settings({"bots": "easy"}), 3)
    table.join("Host", 0)
    table.start(0)
    session = table.session
    assert session is not None
    table.apply(table.check_code(session.position.legal_codes()[0]))
    view = state(table, None)["view"]
    assert view == PublicView.from_position(session.position, session.history).to_dict()
    assert view["seat"] is None and all(isinstance(h, int) for h in view["hands"])


def test_dumps_writes_what_json_writes() -> None:
    """The broadcast's one encoder writes what ``json.dumps`` does, compact."""
    samples: list[Any] = [
        None,
        True,
        0,
        -7,
        1.5,
        1e300,
        "Ravi",
        'रवि "quoted" \\ \n',
        [],
        {},
        {"a": [1, {"b": None, "c": [True, False]}], "ई": 2.25},
        (1, 2),
    ]
    for value in samples:
        assert dumps(value) == json.dumps(value, separators=(",", ":")), value
    with pytest.raises(TypeError):
        dumps({"a": object()})


def test_a_moves_kept_text_is_its_json() -> None:
    """The texts kept for each move code are those of the move's dicts (the stored one as
    ``json.dumps`` writes it, as the store always has)."""
    rng = random.Random(3)
    seen = 0
    for seed in range(6):
        pos = Position.new_deal(seed)
        while not pos.is_over():
            for code in pos.legal_codes():
                assert move_text(code) == dumps(move_dict(code))
                assert record_text(2, code) == dumps(move_record(2, code))
                assert stored_move_text(3, code) == json.dumps(move_record(3, code))
                seen += 1
            pos.play(rng.choice(pos.legal_codes()))
    assert seen > 1000
