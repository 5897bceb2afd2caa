"""Helpers for the web tests: an app on a temporary SQLite file, and a leak checker that
compares every message a client receives with the server's true position."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("sqlalchemy")

from fastapi.testclient import TestClient

from seep.cards import card_list
from seep.codes import PHASE_BID
from seep.web.app import create_app
from seep.web.tables import Table, TableManager

CARD = re.compile(r"\b[A2-9TJQK][SHDC]\b")


class LeakChecker:
    """Snapshots, per table and version, the cards each seat may not see (other hands, the
    stock, a face-down floor), and checks messages against them."""

    def __init__(self, manager: TableManager) -> None:
        self.hidden: dict[tuple[str, int], list[set[str]]] = {}
        self.checked = 0
        self.players: list[Player] = []  # closed when the client stops, even after a failure
        manager.observers.append(self.observe)
        self.manager = manager

    def observe(self, table: Table) -> None:
        pos = table.position
        per_seat: list[set[str]] = []
        if pos is None:
            per_seat = [set()] * 5  # the spectator's is the last
        else:
            common = set(card_list(sum(1 << c for c in pos.stock)))
            if pos.phase_id == PHASE_BID:
                common |= set(card_list(pos.loose))
            hands = [set(card_list(h)) for h in pos.hands]
            seats = range(len(hands))  # four, or two (docs/rules.md §12)
            for s in seats:
                per_seat.append(common | set().union(*(hands[o] for o in seats if o != s)))
            per_seat.append(common | set().union(*hands))  # a spectator
        self.hidden[(table.code, table.version)] = per_seat

    def check(self, code: str, seat: int | None, msg: dict[str, Any], sent: str = "") -> None:
        """Fail if ``msg`` names a card hidden from ``seat`` (``None``: a spectator)."""
        if msg.get("type") == "review":
            # A practice review quotes a finished deal, every card of which has been played
            # (public by then); it may come after the next deal has begun.
            return
        if msg.get("type") == "state" or msg.get("type") == "hint":
            version = msg["version"]
        else:
            # An error may quote what the client itself sent, nothing else.
            allowed = set(CARD.findall(sent))
            version = max((v for (c, v) in self.hidden if c == code), default=None)
            if version is None:
                return
            hidden = self.hidden[(code, version)][-1 if seat is None else seat] - allowed
            found = set(CARD.findall(json.dumps(msg))) & hidden
            assert not found, f"{msg} reveals {found}"
            self.checked += 1
            return
        key = (code, version)
        if key not in self.hidden:
            # Only a waiting table is sent without a broadcast: it shows no cards at all.
            assert msg.get("view") is None or msg.get("type") == "hint", msg
            return
        hidden = self.hidden[key][-1 if seat is None else seat]
        found = set(CARD.findall(json.dumps(msg))) & hidden
        assert not found, f"seat {seat} was sent hidden cards {found} in version {version}"
        self.checked += 1


@contextmanager
def web_client(
    tmp_path: Path, **options: Any
) -> Iterator[tuple[TestClient, TableManager, LeakChecker]]:
    """A TestClient (lifespan running) on a fresh SQLite file; fast bots unless told."""
    options.setdefault("bot_delay", 0.002)
    options.setdefault("grace_seconds", 30.0)
    app = create_app(f"sqlite:///{tmp_path / 'seep.db'}", **options)
    with TestClient(app) as client:
        manager: TableManager = app.state.manager
        checker = LeakChecker(manager)
        try:
            yield client, manager, checker
        finally:
            for p in checker.players:
                p.close()


class Player:
    """A WebSocket client that checks every message it receives for leaks. With a ``token``
    it sends the ``hello`` handshake (the spectator's state that comes first is read)."""

    def __init__(
        self,
        client: TestClient,
        checker: LeakChecker,
        code: str,
        token: str | None = None,
        *,
        history: str = "whole",
    ) -> None:
        self.code = code
        self.checker = checker
        self._cm = client.websocket_connect(f"/ws/{code}")
        self.ws = self._cm.__enter__()
        self.closed = False
        checker.players.append(self)
        self.seat: int | None = None
        self.last_sent = ""
        self.state: dict[str, Any] | None = None
        self.received: list[dict[str, Any]] = []
        self.held: list[Any] = []  # the appended history's moves so far (docs/web.md)
        self.sizes: list[int] = []  # each state's length as sent
        if token is not None:
            # Every connection starts as a spectator's (its state comes at once); the hello
            # handshake then claims the token's seat, whose state comes next.
            first = self.recv()
            assert first["type"] == "state" and first["seat"] is None, first
            hello = {"type": "hello", "token": token}
            self.send(hello if history == "whole" else dict(hello, history=history))

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._cm.__exit__(None, None, None)

    def send(self, msg: Any) -> None:
        text = msg if isinstance(msg, str) else json.dumps(msg)
        self.last_sent = text
        self.ws.send_text(text)

    def recv(self) -> dict[str, Any]:
        text = self.ws.receive_text()
        msg: dict[str, Any] = json.loads(text)
        if msg.get("type") == "state":
            self.sizes.append(len(text))
            start = msg.get("history_from")
            if start and msg["view"] is not None:  # the moves before it are those held
                msg["view"]["history"] = self.held[:start] + msg["view"]["history"]
            self.held = msg["view"]["history"] if msg["view"] is not None else []
            self.seat = msg["seat"]
            self.state = msg
        self.checker.check(self.code, self.seat, msg, self.last_sent)
        self.received.append(msg)
        return msg

    def until(self, pred: Callable[[dict[str, Any]], bool], limit: int = 5000) -> dict[str, Any]:
        for _ in range(limit):
            msg = self.recv()
            if pred(msg):
                return msg
        raise AssertionError("message never came")

    def error(self) -> dict[str, Any]:
        """The next error (states broadcast meanwhile are skipped)."""
        return self.until(lambda m: m["type"] == "error")

    def alive(self) -> None:
        """The connection still answers (a ping gets its pong)."""
        self.send({"type": "ping"})
        self.until(lambda m: m["type"] == "pong")


def my_turn(msg: dict[str, Any]) -> bool:
    return msg["type"] == "state" and bool(msg["legal"])


def deal_over(msg: dict[str, Any]) -> bool:
    return msg["type"] == "state" and msg["summary"] is not None


def create_table(client: Any, **body: Any) -> dict[str, Any]:
    """A table made by the HTTP API, by Asha against easy bots unless ``body`` says otherwise;
    the answer (code, seat, token)."""
    r = client.post("/api/tables", json={"name": "Asha", "bots": "easy", **body})
    assert r.status_code == 201, r.text
    made: dict[str, Any] = r.json()
    return made


def play_my_turn(p: Player, msg: dict[str, Any], rng: random.Random) -> None:
    """A random legal move for ``p``, at the version of the state ``msg``."""
    p.send({"type": "move", "move": rng.choice(msg["legal"]), "version": msg["version"]})


def until_playing(
    p: Player, pred: Callable[[dict[str, Any]], bool], rng: random.Random
) -> dict[str, Any]:
    """The next message that fits ``pred``, playing ``p``'s own turns meanwhile."""
    while True:
        msg = p.recv()
        if pred(msg):
            return msg
        if my_turn(msg):
            play_my_turn(p, msg, rng)
