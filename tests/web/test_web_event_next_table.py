"""The socket message that tells a player his next table of an event is open (docs/web.md
"Events", ``event_table``): the sockets of his seat at his earlier table of the event get one,
naming the event only; nobody else does."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("argon2")

from fastapi.testclient import TestClient
from pydantic import TypeAdapter

from seep.web.messages import ServerMessage
from seepkit.events import make_event, round_open, until
from seepkit.ratings import play_out, sign_up
from seepkit.web import Player, web_client


@pytest.fixture(autouse=True)
def _many_signups(monkeypatch: pytest.MonkeyPatch) -> None:
    """The players all sign up from the test's one address."""
    monkeypatch.setenv("SEEP_MAX_SIGNUPS_PER_HOUR", "0")


def _event(org: TestClient, players: list[TestClient], rounds: int, **extra: Any) -> int:
    event = make_event(org, format="two", rounds=rounds, **extra)
    for b in players:
        assert b.post(f"/api/events/{event}/register", json={}).status_code == 201
        assert b.post(f"/api/events/{event}/checkin").status_code == 200
    assert org.post(f"/api/events/{event}/start").status_code == 200
    return event


def _sit_and_play(
    server: Any, players: dict[str, TestClient], event: int, rng: random.Random
) -> dict[str, Player]:
    """Every player of the round takes his seat and the tables are played to their end; the
    sockets stay open (each player reads his table's last summary)."""
    client, manager, checker = server
    sockets: dict[str, Player] = {}
    by_code: dict[str, list[Player]] = {}
    for name, b in players.items():
        r = b.post(f"/api/events/{event}/seat")
        if r.status_code == 409:  # the bye
            continue
        assert r.status_code == 200, r.text
        seat = r.json()
        # The hello first: a sealed duplicate deal sends nothing before it (an open table
        # sends the spectator's state, which play_out reads past).
        sockets[name] = Player(client, checker, seat["code"])
        sockets[name].send({"type": "hello", "token": seat["token"]})
        by_code.setdefault(seat["code"], []).append(sockets[name])
    for code, here in by_code.items():
        play_out(here, manager.get(code), rng)
    return sockets


def _nothing_more(p: Player) -> list[dict[str, Any]]:
    """The ``event_table`` messages queued for ``p`` before the answer to a ping now."""
    start = len(p.received)
    p.alive()
    return [m for m in p.received[start:] if m["type"] == "event_table"]


def test_a_player_at_his_last_table_is_told_his_next_one_is_open(tmp_path: Path) -> None:
    """Five players, two rounds (a bye each round). Everyone stays connected to his round-1
    table after it ends. When round 2 opens, each socket of a seat whose player plays round 2
    gets exactly one ``event_table`` message, with no table code or seat token in it; the
    player who has the bye in round 2, a spectator of a round-1 table and a player of another
    event get none. The message is the documented model's."""
    rng = random.Random(31)
    names = ["Asha", "Ravi", "Mina", "Kiran", "Dev"]
    with web_client(tmp_path, grace_seconds=3600.0) as server:
        client, _, checker = server
        store = client.app.state.store
        org = sign_up(client.app, "Org")
        browsers = {n: sign_up(client.app, n) for n in names}
        # Another event, of one round, played first: its players stay at their table.
        others = {n: sign_up(client.app, n) for n in ("Lila", "Omar")}
        other = _event(org, list(others.values()), rounds=1)
        until(lambda: round_open(store, other, 1))
        elsewhere = _sit_and_play(server, others, other, rng)
        until(lambda: store.event(other)["status"] == "finished")

        # When the runner has told the sockets (so that a missing message fails, not hangs).
        events = client.app.state.events
        tell = events.tell_next
        done: list[tuple[int, int]] = []

        async def spy(event: int, accounts: set[int], opened: set[str]) -> int:
            n: int = await tell(event, accounts, opened)
            done.append((event, n))
            return n

        events.tell_next = spy
        event = _event(org, list(browsers.values()), rounds=2)
        until(lambda: round_open(store, event, 1))
        first = _sit_and_play(server, browsers, event, rng)
        assert len(first) == 4
        watcher = Player(client, checker, next(iter(first.values())).code)
        until(lambda: (event, 3) in done)
        assert done == [(event, 0), (event, 3)]  # one round-1 socket a player of round 2

        seats = {n: b.post(f"/api/events/{event}/seat") for n, b in browsers.items()}
        playing = {n for n, r in seats.items() if r.status_code == 200}
        secrets = {
            v
            for r in seats.values()
            if r.status_code == 200
            for v in (r.json()["code"], r.json()["token"])
        }
        told = [n for n in first if n in playing]
        assert len(told) == 3  # round 2's bye went to one who played round 1
        for n in told:
            [msg] = _nothing_more(first[n])  # exactly one
            assert msg == {"type": "event_table", "event": event, "url": f"/events/{event}"}
            assert TypeAdapter(ServerMessage).validate_python(msg).type == "event_table"
            assert not [s for s in secrets if s in json.dumps(msg)]
        for p in [*(first[n] for n in first if n not in playing), watcher, *elsewhere.values()]:
            assert _nothing_more(p) == []
        for p in [*first.values(), watcher, *elsewhere.values()]:
            p.close()


@pytest.mark.parametrize("kind", ["duplicate", "arena"])
def test_the_next_deal_or_arena_game_is_told_too(tmp_path: Path, kind: str) -> None:
    """A duplicate event's next deal and an arena's next game are told as a Swiss round is:
    each player still at his finished table gets one ``event_table`` message."""
    rng = random.Random(32)
    extra = {"deals": 2} if kind == "duplicate" else {"minutes": 5}
    with web_client(tmp_path, grace_seconds=3600.0) as server:
        client = server[0]
        store = client.app.state.store
        events = client.app.state.events
        tell = events.tell_next
        done: list[int] = []

        async def spy(event: int, accounts: set[int], opened: set[str]) -> int:
            n: int = await tell(event, accounts, opened)
            done.append(n)
            return n

        events.tell_next = spy
        org = sign_up(client.app, "Org")
        browsers = {n: sign_up(client.app, n) for n in ("Asha", "Ravi")}
        event = _event(org, list(browsers.values()), rounds=1, kind=kind, **extra)
        until(lambda: round_open(store, event, 1))
        first = _sit_and_play(server, browsers, event, rng)
        until(lambda: 2 in done)
        assert done == [0, 2]
        for p in first.values():
            [msg] = _nothing_more(p)
            assert msg == {"type": "event_table", "event": event, "url": f"/events/{event}"}
            p.close()
