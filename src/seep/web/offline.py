"""The offline table's host: the server's game, run in the browser's Web Worker under Pyodide.

The page talks to an :class:`OfflineHost` as it talks to the server's socket: it sends the same
messages (``hello``, ``start``, ``move``, ``next``, ``hint``, ``moves``) and gets the same
answers (``state`` written by :func:`seep.web.wire.state`, ``hint``, ``moves``, ``error``),
because the host keeps a :class:`~seep.web.game.GameTable`, the server's table's game. Bots
move here with the table's own bot (:func:`seep.bots.make_bot`), when the worker asks
(:meth:`OfflineHost.step`): the worker keeps the clock, the host every rule.

Standard library and the ``seep`` core only (no pydantic, openskill, SQLAlchemy or asyncio):
the worker loads it from a zip of our sources (:mod:`seep.web.offline_assets`) into a bare
Pyodide. docs/web.md "Offline play" has the protocol, with the two messages of its own
(``offline`` to open a table, ``saved`` after each change).
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from typing import Any

from ..bots import DIFFICULTIES as BOT_LEVELS
from ..cards import card_name, parse_card
from ..errors import SeepError
from . import social, wire
from .game import GameTable, Seat, TableError

__all__ = ["CODE", "DIFFICULTIES", "OfflineHost", "open_table", "replay_text"]

CODE = "OFFLINE"  # the table's code as the page shows it (no server knows it)
DIFFICULTIES = tuple(BOT_LEVELS)  # the server's difficulties (seep.bots.DIFFICULTIES)
_PRESETS = {4: "standard", 2: "two_player"}
_NAME_LENGTH = 24


def _settings(options: Mapping[str, Any]) -> dict[str, Any]:
    """A table's settings from the page's choice (players, bots, match length), checked."""
    players = options.get("players", 4)
    bots = options.get("bots", "medium")
    length = options.get("length", "deal")
    if players not in _PRESETS or isinstance(players, bool):
        raise TableError("bad_request", "players: 4 or 2")
    if bots not in DIFFICULTIES:
        raise TableError("bad_request", f"bots: one of {', '.join(DIFFICULTIES)}")
    if length not in ("deal", "baazi"):
        raise TableError("bad_request", "length: 'deal' or 'baazi'")
    return {
        "preset": _PRESETS[players],
        "bots": bots,
        "deals": 1 if length == "deal" else None,
        "baazis": 1 if length == "baazi" else None,
        "practice": False,
        "turn_seconds": None,
        "public": False,
        "rated": False,
    }


class OfflineHost:
    """One offline table: a human at seat 0 against bots.

    ``options`` are the page's choice (``players`` 4 or 2, ``bots`` a difficulty, ``length``
    ``"deal"`` or ``"baazi"``, ``name``); ``seed`` fixes every shuffle; ``moves`` (the
    docs/format.md moves with their seats, as :meth:`saved` lists them) and ``left`` (the
    finished deals he has left) resume a saved table: replayed by the engine, checked as when
    they were made.
    """

    def __init__(
        self,
        options: Mapping[str, Any],
        seed: int,
        moves: list[dict[str, Any]] | None = None,
        left: int = 0,
    ) -> None:
        self.options = dict(options)
        self.seed = seed
        self.table = GameTable(CODE, _settings(options), seed)
        name = str(options.get("name") or "You")[:_NAME_LENGTH]
        self.table.seats[0] = Seat(name=name, kind="human", connections=1)
        self.table.start(0)
        if moves:
            self.table.restore(moves)
        while self.table.status == "playing" and self.table.deal_over() and left > self._left():
            self.table.leave_deal()  # the player had said "next" before the tab closed
        self.table.version = self.table.game_version = 1

    def _left(self) -> int:
        """Finished deals the player has left (sent ``next`` at their end)."""
        session = self.table.session
        assert session is not None
        return session.deal_number - (0 if self.table.status == "finished" else 1)

    # --- the page's messages ----------------------------------------------------------------

    def receive(self, text: str) -> list[str]:
        """The answers to one message of the page (JSON text), as the server's socket would
        send them to its seat: a ``state`` after a change, or an ``error`` for a refusal."""
        try:
            msg = json.loads(text)
        except ValueError:
            return [self._error("bad_request", "a message is a JSON object")]
        if not isinstance(msg, dict):
            return [self._error("bad_request", "a message is a JSON object")]
        kind = msg.get("type")
        try:
            if kind == "hello" or kind == "start":
                return [self._state()]  # the game started when the table was made
            if kind == "move":
                version = msg.get("version", 0)
                if not isinstance(version, int):
                    raise TableError("bad_request", "'version' must be an integer")
                code = self.table.check_move(0, msg.get("move"), version)
                self.table.apply(code)
                return self._changed()
            if kind == "next":
                if self.table.status != "playing" or not self.table.deal_over():
                    raise TableError("not_allowed", "'next' is for the end of a deal")
                self.table.ready.add(0)
                if self.table.all_ready():
                    self.table.leave_deal()
                return self._changed()
            if kind == "hint":
                return [self._hint()]
            if kind == "moves":
                return [self._moves(msg.get("card"))]
            if kind == "ping":
                return [wire.dumps({"type": "pong"})]
        except TableError as exc:
            return [self._error(exc.code, exc.message, exc.reason)]
        return [self._error("not_allowed", f"an offline table has no {kind!r} message")]

    def step(self) -> list[str]:
        """What happens by itself next, if anything: a bot's move (the table's bot for its
        seat, as the server's driver plays it). The worker calls it after a pause until it
        answers nothing."""
        seat = self.table.to_move
        if self.table.status != "playing" or seat is None or not self.table.by_bot(seat):
            return []
        decision = self.table.think(seat)
        self.table.apply(self.table.check_code(int(decision.move)))
        return self._changed()

    def pending(self) -> bool:
        """True while :meth:`step` has a move to make."""
        seat = self.table.to_move
        return self.table.status == "playing" and seat is not None and self.table.by_bot(seat)

    def saved(self) -> dict[str, Any]:
        """What the browser keeps to resume this table: the page's options, the seed, every
        move of the match with its seat, the deals begun, and once the match is over its
        docs/format.md record."""
        session = self.table.session
        assert session is not None
        moves = [
            wire.move_record(s, c)
            for i in range(session.deal_number)
            for s, c in session.deal_history(i)
        ]
        out: dict[str, Any] = {
            "type": "saved",
            "options": self.options,
            "seed": self.seed,
            "moves": moves,
            "left": self._left(),
            "status": self.table.status,
            "result": session.standing().baazis if self.table.status == "finished" else None,
        }
        out["record"] = self.table.record() if self.table.status == "finished" else None
        return out

    def saved_text(self) -> str:
        """:meth:`saved` as JSON text (the worker's form)."""
        return wire.dumps(self.saved())

    # --- answers ----------------------------------------------------------------------------

    def _changed(self) -> list[str]:
        self.table.version += 1
        self.table.game_version = self.table.version
        return [self._state()]

    def _state(self) -> str:
        return wire.dumps(self.table.state(0))

    def _error(self, code: str, message: str, reason: dict[str, Any] | None = None) -> str:
        msg: dict[str, Any] = {"type": "error", "code": code, "message": message}
        if reason is not None:
            msg["reason"] = reason
        return wire.dumps(msg)

    def _hint(self) -> str:
        if self.table.to_move != 0:
            raise TableError("not_your_turn", "a hint is for your own turn")
        decision = self.table.think(0)
        return json.dumps(
            {
                "type": "hint",
                "version": self.table.version,
                "move": decision.move.to_dict(),
                "reason": decision.reason,
            }
        )

    def _moves(self, name: Any) -> str:
        position = self.table.position
        if self.table.to_move != 0 or position is None:
            raise TableError("not_your_turn", "moves are asked for on your own turn")
        try:
            card = parse_card(name)
        except (SeepError, TypeError, ValueError):
            raise TableError("bad_request", "'card' must be a card's name") from None
        codes, count = social.card_moves(position, card)
        return wire.dumps(
            {
                "type": "moves",
                "version": self.table.version,
                "card": card_name(card),
                "moves": [wire.move_dict(c) for c in codes],
                "count": count,
            }
        )


def open_table(text: str) -> OfflineHost:
    """The host of the worker's ``offline`` message (JSON text): a new table (``options``, and
    a ``seed``, or a random one) or a saved one (with its ``moves`` and ``left``)."""
    msg = json.loads(text)
    seed = msg.get("seed")
    if not isinstance(seed, int) or isinstance(seed, bool):
        seed = random.SystemRandom().randrange(1 << 53)  # a JavaScript number holds it exactly
    return OfflineHost(msg.get("options") or {}, seed, msg.get("moves") or [], msg.get("left", 0))


def replay_text(text: str) -> str:
    """The replay page's steps (:func:`seep.web.wire.replay_steps`) of a docs/format.md record
    (JSON text), as JSON text: what ``GET /api/tables/{code}/replay`` answers for a server's."""
    return wire.dumps(wire.replay_steps(json.loads(text)))
