"""Tables: seats, tokens, bots, the turn clock, undo, and what each connection may see.

No web framework here and no rules either: every rule question goes to the ``seep`` core
(:class:`seep.match.Match`, :class:`seep.engine.Position`, :class:`seep.view.View`, the bots).

A :class:`Table` is a plain synchronous state machine. The :class:`TableManager` runs the tables
on one asyncio event loop: it persists every change through a :class:`~seep.web.store.Store`
*before* broadcasting it, queues each connection's own state message (:class:`Connection`), and
drives the bots, the grace-period takeover and the turn clock with timers. All table changes
happen on the loop's thread; only a slow bot's thinking runs in a worker thread, on an immutable
:class:`~seep.view.View`.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import random
import secrets
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from ..bots import Bot, Decision, make_bot
from ..bots.base import UnknownBotError
from ..cards import card_list
from ..engine import Position
from ..errors import IllegalMoveError, MalformedMoveError, SeepError
from ..match import Match, deal_result, replay_record
from ..moves import Move
from ..options import PRESETS
from ..verify import verify_move
from ..view import View

if TYPE_CHECKING:
    from .store import Store

__all__ = [
    "CODE_ALPHABET",
    "MAX_MESSAGE_BYTES",
    "RATE_LIMIT",
    "Connection",
    "Seat",
    "Table",
    "TableError",
    "TableManager",
    "hash_token",
    "parse_settings",
]

CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"  # no 0/O, 1/I/L: read aloud without doubt
MAX_MESSAGE_BYTES = 16 * 1024
RATE_LIMIT = 20  # messages per connection per second
NAME_LENGTH = 24
DIFFICULTIES = ("easy", "medium", "hard", "expert")
# Bots whose thinking takes long enough to stall every other table: they run in a thread.
SLOW_BOTS = ("hard", "expert", "ismcts")


_ENCODER = json.JSONEncoder(separators=(",", ":"), check_circular=False)


def _dumps(msg: dict[str, Any]) -> str:
    """A state message as compact JSON (no spaces: a tenth smaller, and quicker to write)."""
    return _ENCODER.encode(msg)


def _move_dict(code: int) -> dict[str, Any]:
    """A move's docs/format.md dict."""
    return Move(code).to_dict()


class TableError(SeepError):
    """A refused request: ``code`` is one of docs/web.md's error codes."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def hash_token(token: str) -> str:
    """The stored form of a seat token (the server never keeps the token itself)."""
    return hashlib.sha256(token.encode()).hexdigest()


def _name(value: Any, default: str) -> str:
    if value is None:
        return default
    if not isinstance(value, str):
        raise TableError("bad_request", "'name' must be a string")
    name = " ".join("".join(ch for ch in value if ch.isprintable()).split())
    if len(name) > NAME_LENGTH:
        raise TableError("bad_request", f"'name' is at most {NAME_LENGTH} characters")
    return name or default


def _int(body: Mapping[str, Any], key: str, lo: int, hi: int) -> int | None:
    value = body.get(key)
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise TableError("bad_request", f"'{key}' must be an integer {lo}..{hi}, got {value!r}")
    return value


def parse_settings(body: Mapping[str, Any]) -> dict[str, Any]:
    """A table's settings from a create request; raises :class:`TableError` naming the field.

    Keys: ``preset`` (a rules preset), ``bots`` (difficulty or bot name), ``deals`` or
    ``baazis`` (how long the match runs; default one baazi), ``practice``, ``turn_seconds``.
    """
    known = {"name", "preset", "bots", "deals", "baazis", "practice", "turn_seconds"}
    unknown = sorted(set(body) - known)
    if unknown:
        raise TableError("bad_request", f"unknown field {unknown[0]!r} (known: {sorted(known)})")
    preset = body.get("preset", "standard")
    if preset not in PRESETS:
        raise TableError("bad_request", f"unknown preset {preset!r} (known: {sorted(PRESETS)})")
    bots = body.get("bots", "medium")
    if not isinstance(bots, str):
        raise TableError("bad_request", "'bots' must be a difficulty name")
    try:
        make_bot(bots)
    except UnknownBotError as exc:
        raise TableError("bad_request", str(exc)) from None
    deals = _int(body, "deals", 1, 100)
    baazis = _int(body, "baazis", 1, 20)
    if deals is not None and baazis is not None:
        raise TableError("bad_request", "give 'deals' or 'baazis', not both")
    if deals is None and baazis is None:
        baazis = 1
    practice = body.get("practice", False)
    if not isinstance(practice, bool):
        raise TableError("bad_request", "'practice' must be true or false")
    turn_seconds = _int(body, "turn_seconds", 5, 3600)
    return {
        "preset": preset,
        "bots": bots,
        "deals": deals,
        "baazis": baazis,
        "practice": practice,
        "turn_seconds": turn_seconds,
    }


@dataclass
class Seat:
    """One of the four seats: who sits there and whether he is here."""

    name: str = ""
    kind: str = "empty"  # "human", "bot" or "empty"
    token_hash: str | None = None
    connections: int = 0
    away: bool = False  # a human gone longer than the grace period: a bot plays for him

    def public(self) -> dict[str, Any]:
        """The seat as everyone may see it."""
        return {
            "name": self.name,
            "kind": self.kind,
            "connected": self.kind == "bot" or self.connections > 0,
            "away": self.away,
        }


class Table:
    """One table: four seats, the settings and, once started, the running match."""

    def __init__(self, code: str, settings: Mapping[str, Any], seed: int) -> None:
        self.code = code
        self.settings = dict(settings)
        self.seed = seed
        self.seats = [Seat() for _ in range(4)]
        self.host = 0
        self.status = "waiting"
        self.match: Match | None = None
        self.history: list[tuple[int, int]] = []  # the current deal's (seat, move code)
        self.version = 0  # bumped on every change that is broadcast
        self.game_version = 0  # the version of the last change to the game itself
        self.moves_made = 0  # moves stored so far (their sequence numbers)
        self.ready: set[int] = set()
        self.deadline: float | None = None
        self.final: Position | None = None  # the last deal, shown once the match is over
        self._final_summary: dict[str, Any] | None = None
        self._summary: tuple[int, dict[str, Any]] | None = None
        self.bot: Bot = make_bot(self.settings["bots"])
        self.rngs = [random.Random(f"seep-web:{seed}:{s}") for s in range(4)]

    # --- seats ------------------------------------------------------------------------------

    def seat_of_token(self, token: str) -> int | None:
        """The seat a token belongs to, or ``None``."""
        h = hash_token(token)
        for i, seat in enumerate(self.seats):
            if seat.token_hash is not None and secrets.compare_digest(seat.token_hash, h):
                return i
        return None

    def join(self, name: str, seat: int | None = None) -> tuple[int, str]:
        """Seat a human (the first free seat when ``seat`` is ``None``); returns his token."""
        if self.status != "waiting":
            raise TableError("not_allowed", "the game has started: no seat to take")
        if self.settings["practice"] and any(s.kind == "human" for s in self.seats):
            raise TableError("not_allowed", "a practice table is one player against bots")
        if seat is None:
            free = [i for i, s in enumerate(self.seats) if s.kind == "empty"]
            if not free:
                raise TableError("seat_taken", "every seat is taken")
            seat = free[0]
        if self.seats[seat].kind != "empty":
            raise TableError("seat_taken", f"seat {seat} is taken")
        token = secrets.token_urlsafe(24)
        self.seats[seat] = Seat(name=name, kind="human", token_hash=hash_token(token))
        return seat, token

    def sit(self, seat: int, to: int) -> None:
        """Move a seated human to an empty seat before the start (the host stays host)."""
        if self.status != "waiting":
            raise TableError("not_allowed", "seats can change only before the start")
        if self.seats[to].kind != "empty":
            raise TableError("seat_taken", f"seat {to} is taken")
        self.seats[to], self.seats[seat] = self.seats[seat], Seat()
        if self.host == seat:
            self.host = to

    def start(self, seat: int) -> None:
        """The host starts: empty seats get bots, and the first deal is dealt."""
        if seat != self.host:
            raise TableError("not_host", "only the host can start the game")
        if self.status != "waiting":
            raise TableError("not_allowed", "the game has already started")
        for i, s in enumerate(self.seats):
            if s.kind == "empty":
                self.seats[i] = Seat(name=f"Bot {'NWSE'[i]}", kind="bot")
        self.status = "playing"
        self.match = Match(self.seed, self.settings["preset"])

    def by_bot(self, seat: int) -> bool:
        """True when a bot chooses this seat's moves (a bot seat, or a human gone away)."""
        s = self.seats[seat]
        return s.kind == "bot" or s.away

    # --- the game ---------------------------------------------------------------------------

    @property
    def position(self) -> Position | None:
        """The deal on show: the running one, or the last one once the match is over."""
        if self.final is not None:
            return self.final
        return self.match.position if self.match is not None else None

    @property
    def to_move(self) -> int | None:
        """The seat to move, ``None`` before the start, between deals and at the end."""
        if self.status != "playing" or self.match is None:
            return None
        return self.match.position.to_move

    def deal_over(self) -> bool:
        """True while a finished deal's summary is on show."""
        pos = self.position
        return pos is not None and pos.is_over()

    def check_move(self, seat: int, data: Any, version: Any) -> int:
        """The code of a human's move, checked; raises :class:`TableError` saying why not."""
        if self.status != "playing" or self.match is None:
            raise TableError("not_allowed", f"the table is {self.status}: no moves now")
        to_move = self.to_move
        if to_move is None:
            raise TableError("not_your_turn", "the deal is over: send 'next' for the next deal")
        if to_move != seat:
            raise TableError("not_your_turn", f"seat {to_move} is to move, not seat {seat}")
        if not isinstance(version, int) or isinstance(version, bool):
            raise TableError("bad_message", "a move needs the 'version' of the state it answers")
        # Only changes to the game make a move stale: a player joining or leaving does not.
        if version < self.game_version or version > self.version:
            raise TableError(
                "stale", f"the move answers state {version} but the game is at {self.version}"
            )
        if not isinstance(data, dict):
            raise TableError("malformed_move", "'move' must be a docs/format.md move object")
        try:
            code = int(Move.from_dict(data))
        except MalformedMoveError as exc:
            raise TableError("malformed_move", str(exc)) from None
        try:
            verify_move(self.match.position, code)
        except IllegalMoveError as exc:
            raise TableError("illegal_move", str(exc)) from None
        return code

    def apply(self, code: int) -> dict[str, Any]:
        """Make a checked move for the seat to move; returns its record (with ``seat``)."""
        assert self.match is not None
        seat = self.match.position.to_move
        assert seat is not None
        record = self.match.play(code)
        self.history.append((seat, code))
        self.moves_made += 1
        self.ready.clear()
        self._summary = None
        return record

    def view(self, seat: int) -> View:
        """What ``seat`` knows of the deal on show."""
        pos = self.position
        assert pos is not None
        return View.from_position(pos, seat, self.history)

    def think(self, seat: int) -> Decision:
        """The table's bot's choice for ``seat`` (a bot seat, an absent player, or a hint)."""
        return self.bot.choose(self.view(seat), self.rngs[seat])

    def undo(self, seat: int) -> int:
        """Practice mode: take back ``seat``'s last move of this deal and every move after it;
        returns how many moves were taken back."""
        if not self.settings["practice"]:
            raise TableError("not_allowed", "undo is only for practice tables")
        if self.status != "playing" or self.match is None:
            raise TableError("not_allowed", f"the table is {self.status}: nothing to undo")
        mine = [i for i, (s, _) in enumerate(self.history) if s == seat]
        if not mine:
            raise TableError("not_allowed", "you have no move to take back in this deal")
        n = len(self.history) - mine[-1]
        for _ in range(n):
            self.match.undo()
            self.history.pop()
        self.moves_made -= n
        self.ready.clear()
        self._summary = None
        return n

    def humans_waited_for(self) -> set[int]:
        """Human seats whose players are here, and so must say they are ready."""
        return {i for i, s in enumerate(self.seats) if s.kind == "human" and not s.away}

    def all_ready(self) -> bool:
        """True when the deal is over and every present human has sent ``next``."""
        return self.deal_over() and self.humans_waited_for() <= self.ready

    def summary(self) -> dict[str, Any] | None:
        """The finished deal's summary (``None`` while a deal runs)."""
        if self._final_summary is not None:
            return self._final_summary
        if self.match is None or not self.match.position.is_over():
            return None
        if self._summary is not None and self._summary[0] == self.moves_made:
            return dict(self._summary[1], ready=sorted(self.ready))
        pos = self.match.position
        # The match after this deal (R44-R47), by the engine's own next_deal on the side.
        after = pos.next_deal(0)
        won = [after.match_baazis[t] - pos.match_baazis[t] for t in (0, 1)]
        deals = self.match.deals_finished + 1
        s = self.settings
        match_over = (s["deals"] is not None and deals >= s["deals"]) or (
            s["baazis"] is not None and sum(after.match_baazis) >= s["baazis"]
        )
        summary = {
            "deal": deals,
            "result": deal_result(pos),
            "captured": [card_list(pos.captured[0]), card_list(pos.captured[1])],
            "baazi_over": any(won),
            "baazi_winner": (0 if won[0] else 1) if any(won) else None,
            "diff": after.match_diff,
            "baazis": list(after.match_baazis),
            "match_over": match_over,
        }
        self._summary = (self.moves_made, summary)
        return dict(summary, ready=sorted(self.ready))

    def advance(self) -> None:
        """Leave a finished deal: the next deal, or the end of the match."""
        assert self.match is not None
        summary = self.summary()
        assert summary is not None
        pos = self.match.position
        self.match.next_deal()
        self.history = []
        self.ready.clear()
        self._summary = None
        if summary["match_over"]:
            self.status = "finished"
            self.final = pos
            self._final_summary = dict(summary, ready=[])

    def match_info(self) -> dict[str, Any] | None:
        """The running match: deals finished, the baazi difference, baazis won, history."""
        m = self.match
        if m is None:
            return None
        pos = m.position
        info: dict[str, Any] = {
            "deals": m.deals_finished,
            "diff": pos.match_diff,
            "baazis": list(pos.match_baazis),
            "history": [d["result"] for d in m.deals],
        }
        shown = self.position or pos
        # The deal on show so far: card points and score (R42), public information.
        info["points"] = list(shown.card_points())
        info["score"] = list(shown.deal_scores())
        summary = self.summary() if pos.is_over() else None
        if summary is not None and self.status != "finished":
            # A finished deal waiting for "next" already counts, as on its summary.
            info["deals"] = summary["deal"]
            info["diff"] = summary["diff"]
            info["baazis"] = summary["baazis"]
            info["history"] = [*info["history"], summary["result"]]
        return info

    def last_moves(self) -> list[dict[str, Any] | None]:
        """Each seat's latest move of the deal on show."""
        out: list[dict[str, Any] | None] = [None, None, None, None]
        missing = 4
        for seat, code in reversed(self.history):  # the latest four moves are usually enough
            if out[seat] is None:
                out[seat] = _move_dict(code)
                missing -= 1
                if not missing:
                    break
        return out

    def public(self) -> dict[str, Any]:
        """The table as anyone may see it (``GET /api/tables/{code}``, ``state.table``)."""
        return {
            "code": self.code,
            "status": self.status,
            "host": self.host,
            "settings": dict(self.settings),
            "seats": [s.public() for s in self.seats],
        }

    def state(self, seat: int | None) -> dict[str, Any]:
        """The ``state`` message for a connection at ``seat`` (``None``: a spectator)."""
        pos = self.position
        view: dict[str, Any] | None = None
        legal: list[dict[str, Any]] = []
        if pos is not None:
            if seat is None:
                # A spectator's view: any seat's, with that seat's hand reduced to a count.
                view = View.from_position(pos, 0, self.history).to_dict()
                view["hands"][0] = pos.hands[0].bit_count()
                view["seat"] = None
            else:
                view = View.from_position(pos, seat, self.history).to_dict()
                # The legal moves only for the seat to move: nobody else needs them.
                if self.to_move == seat:
                    legal = [_move_dict(c) for c in pos.legal_codes()]
        clock = None
        if self.deadline is not None and self.to_move is not None:
            clock = {"seat": self.to_move, "deadline": self.deadline}
        return {
            "type": "state",
            "version": self.version,
            "seat": seat,
            "table": self.public(),
            "view": view,
            "legal": legal,
            "last_moves": self.last_moves(),
            "match": self.match_info(),
            "summary": self.summary(),
            "clock": clock,
        }

    def record(self) -> dict[str, Any]:
        """The game so far as a docs/format.md game record: the finished deals only, since a deal's
        start shows every hand (the deal on show joins the record when it is over)."""
        if self.match is None:
            raise TableError("not_allowed", "the game has not started: no record yet")
        record = self.match.to_record()
        pos = self.match.position
        if record["deals"] and "result" not in record["deals"][-1]:
            if pos.is_over():
                record["deals"][-1]["result"] = deal_result(pos)
            else:
                record["deals"].pop()
        return record

    # --- restoring --------------------------------------------------------------------------

    def replay(self, moves: list[dict[str, Any]]) -> None:
        """Replay stored moves (a restart): the same engine checks as when they were made."""
        if self.match is None:
            self.match = Match(self.seed, self.settings["preset"])
        for mv in moves:
            if self.match.position.is_over():
                self.match.next_deal()
                self.history = []
            code = int(Move.from_dict(mv))
            verify_move(self.match.position, code)
            self.apply(code)


class Connection:
    """One client of a table. The manager queues its messages (already JSON text) with
    :meth:`push`; the app's writer sends them in order with :meth:`next_message`."""

    def __init__(self, code: str, seat: int | None) -> None:
        self.code = code
        self.seat = seat
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self._times: deque[float] = deque()

    def push(self, text: str) -> None:
        """Queue a message for this client."""
        self.queue.put_nowait(text)

    def close(self) -> None:
        """Tell the writer to stop."""
        self.queue.put_nowait(None)

    async def next_message(self) -> str | None:
        """The next queued message (``None``: stop)."""
        return await self.queue.get()

    def error(self, code: str, message: str) -> None:
        """Queue an ``error`` message for this client only."""
        self.push(json.dumps({"type": "error", "code": code, "message": message}))

    def allow(self, now: float, limit: int = RATE_LIMIT) -> bool:
        """Rate limit: at most ``limit`` messages in any second."""
        times = self._times
        while times and now - times[0] >= 1.0:
            times.popleft()
        if len(times) >= limit:
            return False
        times.append(now)
        return True


_Handler = Callable[["TableManager", Table, Connection, dict[str, Any]], Any]


@dataclass
class _Driver:
    key: tuple[int, int, bool]  # (game version, seat, by bot) it was scheduled for
    task: asyncio.Task[None]


class TableManager:
    """Every table of the server, their connections, and the timers that move bots.

    ``bot_delay`` is the pause before a bot moves (so players see each move), ``grace_seconds``
    how long a player may be gone before a bot plays for him, ``rate_limit`` how many messages
    a connection may send in a second. ``clock`` gives the time (tests
    may replace it). Call the methods from the event loop's thread.
    """

    def __init__(
        self,
        store: Store | None = None,
        *,
        bot_delay: float = 0.6,
        grace_seconds: float = 30.0,
        rate_limit: int = RATE_LIMIT,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.bot_delay = bot_delay
        self.grace_seconds = grace_seconds
        self.rate_limit = rate_limit
        self.clock = clock
        self.tables: dict[str, Table] = {}
        self.conns: dict[str, set[Connection]] = {}
        self.observers: list[Callable[[Table], None]] = []  # see each state before it is sent
        self._drivers: dict[str, _Driver] = {}
        self._grace: dict[tuple[str, int], asyncio.TimerHandle] = {}

    # --- lifecycle --------------------------------------------------------------------------

    def load(self) -> int:
        """Reload every unfinished table from the store, replaying its moves; returns how many.

        Players are not connected after a restart: their grace periods start now.
        """
        if self.store is None:
            return 0
        n = 0
        for row in self.store.load_unfinished():
            table = Table(row["code"], row["settings"], row["seed"])
            table.host = row["host"]
            table.seats = [
                Seat(name=s["name"], kind=s["kind"], token_hash=s["token_hash"])
                for s in row["seats"]
            ]
            if row["status"] == "playing":
                table.status = "playing"
                try:
                    table.replay(row["moves"])
                except (SeepError, KeyError, TypeError, ValueError) as exc:
                    # One table the engine no longer accepts must not keep the others down.
                    logging.getLogger("seep.web").error(
                        "table %s not resumed: its moves do not replay: %s", table.code, exc
                    )
                    continue
            table.version = table.game_version = row["version"] + 1
            self.tables[table.code] = table
            for i, s in enumerate(table.seats):
                if s.kind == "human" and table.status == "playing":
                    self._start_grace(table, i)
            n += 1
        return n

    def shutdown(self) -> None:
        """Cancel every timer (the tables themselves are all in the store)."""
        for d in self._drivers.values():
            d.task.cancel()
        self._drivers.clear()
        for h in self._grace.values():
            h.cancel()
        self._grace.clear()
        for conns in self.conns.values():
            for c in conns:
                c.close()

    # --- HTTP requests ----------------------------------------------------------------------

    def _new_code(self) -> str:
        for length in (4, 4, 4, 5, 5, 6, 6, 6):
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(length))
            if code not in self.tables and (self.store is None or not self.store.exists(code)):
                return code
        raise TableError("internal_error", "no free table code")  # pragma: no cover

    def create(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """Create a table with its creator as host in seat 0 (``POST /api/tables``)."""
        name = _name(body.get("name"), "Player")
        settings = parse_settings(body)
        table = Table(self._new_code(), settings, secrets.randbits(62))
        seat, token = table.join(name, 0)
        if self.store is not None:
            self.store.create_table(table)
        self.tables[table.code] = table
        return {"code": table.code, "url": f"/t/{table.code}", "seat": seat, "token": token}

    def get(self, code: str) -> Table:
        """A live table by code (any case), or :class:`TableError` ``unknown_table``."""
        table = self.tables.get(code.upper())
        if table is None:
            raise TableError("unknown_table", f"no table {code}")
        return table

    def join(self, code: str, body: Mapping[str, Any]) -> dict[str, Any]:
        """Take a seat (``POST /api/tables/{code}/join``)."""
        table = self.get(code)
        unknown = sorted(set(body) - {"name", "seat"})
        if unknown:
            raise TableError("bad_request", f"unknown field {unknown[0]!r} (known: name, seat)")
        name = _name(body.get("name"), "Player")
        seat = _int(body, "seat", 0, 3)
        seat, token = table.join(name, seat)
        if self.store is not None:
            self.store.save_table(table)
        self._changed(table, game=False)
        return {"seat": seat, "token": token}

    def replay(self, code: str) -> dict[str, Any]:
        """Every position of the record's deals, replayed by the engine, for the replay page:
        ``{"steps": [{"deal", "index", "move", "position", "result"}]}``."""
        record = self.record(code)
        steps: list[dict[str, Any]] = []
        deal = -1
        index = 0
        for move, position in replay_record(record):
            if move is None:
                deal += 1
                index = -1
            result = None
            if move is not None and index == len(record["deals"][deal]["moves"]) - 1:
                result = record["deals"][deal].get("result")
            steps.append(
                {"deal": deal, "index": index, "move": move, "position": position, "result": result}
            )
            index += 1
        return {"steps": steps}

    def summary(self, code: str) -> dict[str, Any]:
        """The public summary of a table, live or finished and stored."""
        table = self.tables.get(code.upper())
        if table is not None:
            return table.public()
        public: dict[str, Any] = self._finished(code)["public"]
        return public

    def record(self, code: str) -> dict[str, Any]:
        """The docs/format.md game record of a table, live or finished and stored."""
        table = self.tables.get(code.upper())
        if table is not None:
            return table.record()
        record: dict[str, Any] = self._finished(code)["record"]
        return record

    def _finished(self, code: str) -> dict[str, Any]:
        """A finished table kept in the store (no longer in memory after a restart)."""
        stored = self.store.load_finished(code.upper()) if self.store is not None else None
        if stored is None:
            raise TableError("unknown_table", f"no table {code}")
        return stored

    # --- connections ------------------------------------------------------------------------

    def connect(self, code: str, token: str | None) -> Connection:
        """A new connection to a table (raises ``unknown_table``). A token that fits no seat
        gets an ``unknown_token`` error and a spectator's connection."""
        table = self.get(code)
        seat = table.seat_of_token(token) if token else None
        conn = Connection(table.code, seat)
        if token and seat is None:
            conn.error("unknown_token", "this token holds no seat at this table: watching")
        self.conns.setdefault(table.code, set()).add(conn)
        if seat is None:
            for observe in self.observers:
                observe(table)
            conn.push(_dumps(table.state(None)))
            self._drive(table)  # a paused table goes on when someone watches
            return conn
        s = table.seats[seat]
        s.connections += 1
        handle = self._grace.pop((table.code, seat), None)
        if handle is not None:
            handle.cancel()
        s.away = False  # the bot gives the seat back
        self._changed(table, game=False)
        return conn

    def disconnect(self, conn: Connection) -> None:
        """A connection has gone."""
        conns = self.conns.get(conn.code)
        if conns is None or conn not in conns:
            return
        conns.discard(conn)
        table = self.tables.get(conn.code)
        if table is None or conn.seat is None:
            return
        s = table.seats[conn.seat]
        s.connections -= 1
        if s.connections == 0:
            if table.status == "playing":
                self._start_grace(table, conn.seat)
            self._changed(table, game=False)

    def _start_grace(self, table: Table, seat: int) -> None:
        loop = asyncio.get_running_loop()
        old = self._grace.pop((table.code, seat), None)
        if old is not None:
            old.cancel()
        self._grace[(table.code, seat)] = loop.call_later(
            self.grace_seconds, self._grace_over, table.code, seat
        )

    def _grace_over(self, code: str, seat: int) -> None:
        self._grace.pop((code, seat), None)
        table = self.tables.get(code)
        if table is None or table.status != "playing":
            return
        s = table.seats[seat]
        if s.kind == "human" and s.connections == 0 and not s.away:
            s.away = True
            self._changed(table, game=False)

    # --- messages ---------------------------------------------------------------------------

    async def handle(self, conn: Connection, text: str | bytes) -> None:
        """One message from a client: errors go back to that client only."""
        try:
            await self._handle(conn, text)
        except TableError as exc:
            conn.error(exc.code, exc.message)
        except Exception as exc:  # a bug: logged, and the client and the table go on
            logging.getLogger("seep.web").exception("table %s: %s", conn.code, exc)
            conn.error("internal_error", "the server could not handle that message (logged)")

    async def _handle(self, conn: Connection, text: str | bytes) -> None:
        if len(text) > MAX_MESSAGE_BYTES or (
            isinstance(text, str) and len(text.encode()) > MAX_MESSAGE_BYTES
        ):
            raise TableError("too_large", f"a message is at most {MAX_MESSAGE_BYTES} bytes")
        if not conn.allow(self.clock(), self.rate_limit):
            raise TableError(
                "rate_limited", f"at most {self.rate_limit} messages a second: dropped"
            )
        try:
            msg = json.loads(text)
        except (ValueError, UnicodeDecodeError):
            raise TableError("bad_json", "a message must be one JSON object") from None
        if not isinstance(msg, dict):
            raise TableError("bad_message", "a message must be a JSON object with a 'type'")
        kind = msg.get("type")
        if not isinstance(kind, str):
            raise TableError("bad_message", "a message needs a string 'type'")
        if kind == "ping":
            conn.push(json.dumps({"type": "pong"}))
            return
        handler = self._handlers.get(kind)
        if handler is None:
            known = ", ".join(["ping", *self._handlers])
            raise TableError("unknown_type", f"unknown message type {kind!r} (known: {known})")
        table = self.get(conn.code)
        if conn.seat is None:
            raise TableError("not_allowed", "spectators can only watch")
        await handler(self, table, conn, msg)

    async def _on_move(self, table: Table, conn: Connection, msg: dict[str, Any]) -> None:
        assert conn.seat is not None
        code = table.check_move(conn.seat, msg.get("move"), msg.get("version"))
        self._play(table, code)

    async def _on_start(self, table: Table, conn: Connection, msg: dict[str, Any]) -> None:
        assert conn.seat is not None
        table.start(conn.seat)
        if self.store is not None:
            self.store.save_table(table)
        self._changed(table, game=True)

    async def _on_sit(self, table: Table, conn: Connection, msg: dict[str, Any]) -> None:
        assert conn.seat is not None
        to = msg.get("seat")
        if not isinstance(to, int) or isinstance(to, bool) or not 0 <= to <= 3:
            raise TableError("bad_message", f"'seat' must be 0..3, got {to!r}")
        if table.status != "waiting":
            raise TableError("not_allowed", "seats can change only before the start")
        if to == conn.seat:
            return
        old = conn.seat
        table.sit(old, to)
        for c in self.conns.get(table.code, ()):
            if c.seat == old:
                c.seat = to
        if self.store is not None:
            self.store.save_table(table)
        self._changed(table, game=False)

    async def _on_hint(self, table: Table, conn: Connection, msg: dict[str, Any]) -> None:
        assert conn.seat is not None
        if table.to_move != conn.seat:
            raise TableError("not_your_turn", "a hint is for your own turn")
        version = table.version
        decision = await self._think(table, conn.seat)
        conn.push(
            json.dumps(
                {
                    "type": "hint",
                    "version": version,
                    "move": decision.move.to_dict(),
                    "reason": decision.reason,
                }
            )
        )

    async def _on_undo(self, table: Table, conn: Connection, msg: dict[str, Any]) -> None:
        assert conn.seat is not None
        n = table.undo(conn.seat)
        if self.store is not None:
            self.store.delete_moves(table.code, table.moves_made)
        del n
        self._changed(table, game=True)

    async def _on_next(self, table: Table, conn: Connection, msg: dict[str, Any]) -> None:
        assert conn.seat is not None
        if table.status != "playing" or not table.deal_over():
            raise TableError("not_allowed", "'next' is for the end of a deal")
        table.ready.add(conn.seat)
        if table.all_ready():
            self._advance(table)
        else:
            self._changed(table, game=False)

    _handlers: ClassVar[
        dict[str, Callable[[TableManager, Table, Connection, dict[str, Any]], Any]]
    ] = {
        "move": _on_move,
        "start": _on_start,
        "sit": _on_sit,
        "hint": _on_hint,
        "undo": _on_undo,
        "next": _on_next,
    }

    # --- changes ------------------------------------------------------------------------------

    def _play(self, table: Table, code: int) -> None:
        """Store, make and broadcast a checked move of the seat to move."""
        assert table.match is not None
        seat = table.match.position.to_move
        assert seat is not None
        if self.store is not None:
            # Written before anything is sent: a move a player has seen is never lost.
            record = dict(Move(code).to_dict(), seat=seat)
            self.store.add_move(table, table.moves_made, record, table.version + 1)
        table.apply(code)
        self._changed(table, game=True)

    def _advance(self, table: Table) -> None:
        table.advance()
        if self.store is not None and table.status == "finished":
            self.store.finish(table, table.record())
        self._changed(table, game=True)

    def _changed(self, table: Table, *, game: bool) -> None:
        """Bump the version, set the clock and the bots going, and send everyone his state."""
        table.version += 1
        if game:
            table.game_version = table.version
        self._drive(table)
        self._broadcast(table)

    def _broadcast(self, table: Table) -> None:
        for observe in self.observers:
            observe(table)
        texts: dict[int | None, str] = {}
        for conn in self.conns.get(table.code, ()):
            text = texts.get(conn.seat)
            if text is None:
                text = texts[conn.seat] = _dumps(table.state(conn.seat))
            conn.push(text)

    # --- bots and clocks ----------------------------------------------------------------------

    def _drive(self, table: Table) -> None:
        """Schedule what happens next by itself: a bot's move, the clock's auto-play, or the
        next deal. Nothing moves at a table nobody is connected to (it waits for them)."""
        key: tuple[int, int, bool] | None = None
        delay = 0.0
        watched = bool(self.conns.get(table.code))
        seat = table.to_move
        if table.status == "playing" and watched:
            if seat is not None:
                if table.by_bot(seat):
                    key, delay = (table.game_version, seat, True), self.bot_delay
                elif table.settings["turn_seconds"]:
                    key = (table.game_version, seat, False)
                    delay = table.settings["turn_seconds"]
            elif table.all_ready():
                # Nobody to wait for (bots and absent players only): show the summary a while.
                key, delay = (table.game_version, -1, True), self.bot_delay * 4
        old = self._drivers.get(table.code)
        if old is not None and key is not None and old.key == key:
            return
        if old is not None:
            old.task.cancel()
            del self._drivers[table.code]
        table.deadline = None
        if key is None:
            return
        if seat is not None and not key[2]:
            table.deadline = self.clock() + delay
        task = asyncio.get_running_loop().create_task(self._run(table, key, delay))
        self._drivers[table.code] = _Driver(key, task)

    async def _run(self, table: Table, key: tuple[int, int, bool], delay: float) -> None:
        await asyncio.sleep(delay)
        try:
            if table.game_version != key[0]:
                return
            if key[1] < 0:
                self._drivers.pop(table.code, None)
                self._advance(table)
                return
            decision = await self._think(table, key[1])
            if table.game_version != key[0] or table.to_move != key[1]:
                return
            self._drivers.pop(table.code, None)
            self._play(table, int(decision.move))
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a bug must not stop the loop; the table waits instead
            with contextlib.suppress(Exception):
                logging.getLogger("seep.web").exception(
                    "table %s: automatic move failed: %s", table.code, exc
                )

    async def _think(self, table: Table, seat: int) -> Decision:
        view = table.view(seat)
        rng = table.rngs[seat]
        if table.settings["bots"] in SLOW_BOTS:
            return await asyncio.to_thread(table.bot.choose, view, rng)
        return table.bot.choose(view, rng)
