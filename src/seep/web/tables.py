"""Tables: seats, tokens, bots, the turn clock, undo, and what each connection may see.

No web framework here and no rules either: every rule question goes to the ``seep`` core
(:class:`seep.session.Session`, :class:`seep.engine.Position`, :class:`seep.view.View`, the
bots). A table drives a session, which keeps the moves, knows when the match is over and gives
each deal's outcome; the table keeps seats, tokens, readiness and versions.

A :class:`Table` is a plain synchronous state machine. The :class:`TableManager` runs the tables
on one asyncio event loop: it persists every change through a :class:`~seep.web.store.Store`
*before* broadcasting it, queues each connection's own state message (:class:`Connection`), and
drives the bots, the grace-period takeover, the turn clock and the wait for ``next`` with
timers. All table changes happen on the loop's thread; a slow bot's thinking runs in a worker
process of a :class:`~seep.web.botpool.BotPool`, which gets only the seat's view as docs/format.md
JSON. :meth:`TableManager.sweep` closes tables nobody comes back to and lets finished ones leave
memory (their records stay in the store).
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
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from ..bots import Bot, Decision, make_bot
from ..cards import card_list, card_name, parse_card
from ..engine import PHASE_PLAY, Position
from ..errors import IllegalMoveError, MalformedMoveError, SeepError
from ..match import replay_record
from ..moves import Move
from ..options import PRESETS
from ..session import Session
from ..verify import Refusal
from ..view import View
from . import review, social
from .limits import (
    DEFAULT_MESSAGE_COST,
    MESSAGE_COST_BYTES,
    MESSAGE_COSTS,
    MessageBudget,
    SocketCounts,
)
from .messages import (
    MAX_TOKENS,
    BadInput,
    Chat,
    Claim,
    CreateTable,
    Emote,
    Hello,
    JoinTable,
    Kick,
    MoveMessage,
    MovesRequest,
    Mute,
    Sit,
    Watch,
    parse_body,
    parse_json,
    parse_message,
)
from .store import StoreConflict, StoreUnavailable

if TYPE_CHECKING:
    from .botpool import BotPool
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
# Bots whose thinking takes long enough to stall every other table: they run in the bot pool,
# and one client may open only so many tables of them.
SLOW_BOTS = ("hard", "expert", "ismcts")
# WebSocket close code for a table this server no longer holds (RFC 6455 "service restart"):
# the client reconnects, and the proxy sends it to the table's new owner.
CLOSE_MOVED = 1012
CHAT_LIMIT = (5, 10.0)  # chat lines and emotes: at most 5 in 10 s per connection
MAX_CONNECTIONS = 200  # sockets per table (players and spectators)
# Room kept for seated players at a full table: a socket past MAX_CONNECTIONS gets in on trial
# (at most this many at once), must say hello with a seat's token within TRIAL_SECONDS, and
# then a spectator is dropped for it (closed with CLOSE_TABLE_FULL).
SEAT_RESERVE = 16
TRIAL_SECONDS = 5.0
CLOSE_TABLE_FULL = 1013  # RFC 6455 "try again later"
CLOSE_ABUSE = 4429  # every socket of a client that kept sending over its budget
MAX_WATCHER_NAMES = 20  # spectators' names shown (the count is exact)
LOBBY_SIZE = 50  # tables listed by GET /api/lobby
# Several instances: the lobby is read from the database at most this often per instance,
# from at most this many waiting tables (the open-table cap bounds them anyway).
LOBBY_REFRESH_SECONDS = 2.0
LOBBY_SCAN = 2000
CLAIM_LIMIT = 10  # wrong transfer codes per client per minute


M = TypeVar("M")
_BAD_INPUT = frozenset({"bad_json", "bad_message", "too_large", "unknown_type"})

_ENCODER = json.JSONEncoder(separators=(",", ":"), check_circular=False)


def _dumps(msg: dict[str, Any]) -> str:
    """A state message as compact JSON (no spaces: a tenth smaller, and quicker to write)."""
    return _ENCODER.encode(msg)


def reason_dict(refusal: Refusal) -> dict[str, Any]:
    """A refusal as the page words it: the rule's number, the template's English (the key of
    its translation: a rule may have several) and the facts filled into it."""
    return {"rule": refusal.rule, "template": refusal.template, "args": dict(refusal.args)}


def _dead_cards(
    pos: Position, seat: int, used: set[Any]
) -> tuple[dict[str, str], dict[str, dict[str, Any]]]:
    """Why each card of ``seat``'s hand with no legal use has none: the rules checker's
    refusal of throwing it (R16 the bid, R21d retention, R21f(b) a house of its value ...),
    as English text and as the refusal's rule and arguments (for the page's own language)."""
    if pos.phase_id != PHASE_PLAY:
        return {}, {}
    texts: dict[str, str] = {}
    reasons: dict[str, dict[str, Any]] = {}
    legal = pos.legal
    for card in range(52):
        if pos.hands[seat] >> card & 1 and card_name(card) not in used:
            name = card_name(card)
            refusal = legal.why_dead(card)
            if refusal is None:
                texts[name] = "no legal use now"
            else:
                texts[name] = f"{refusal.text} ({refusal.rule})"
                reasons[name] = reason_dict(refusal)
    return texts, reasons


def _move_dict(code: int) -> dict[str, Any]:
    """A move's docs/format.md dict."""
    return Move(code).to_dict()


class TableError(SeepError):
    """A refused request: ``code`` is one of docs/web.md's error codes; ``reason`` the rules
    checker's refusal (:func:`reason_dict`) when a rule refused it."""

    def __init__(self, code: str, message: str, reason: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.reason = reason


def hash_token(token: str) -> str:
    """The stored form of a seat token (the server never keeps the token itself)."""
    return hashlib.sha256(token.encode()).hexdigest()


# A move the database refused (locked, disk full) is tried again after this many seconds,
# doubling up to the most (docs/web.md "Liveness").
STORE_RETRY_FIRST = 0.25
STORE_RETRY_MAX = 4.0
STORE_LOG_SECONDS = 10.0  # a failing database is logged once per table this often
_STORE_UNAVAILABLE = "the server could not save that (its database is busy or full): try again"
_STORE_RETRYING = "the server cannot save moves right now (its database is busy or full): retrying"
_store_logged: dict[str, float] = {}


def _log_store_problem(code: str, exc: StoreUnavailable) -> None:
    """Log a refused write, at most once per table every :data:`STORE_LOG_SECONDS`: a full
    disk must not fill the log too."""
    now = time.monotonic()
    if now - _store_logged.get(code, -STORE_LOG_SECONDS) < STORE_LOG_SECONDS:
        return
    if len(_store_logged) > 10_000:
        _store_logged.clear()
    _store_logged[code] = now
    logging.getLogger("seep.web").warning("table %s: the database refused a write: %s", code, exc)


def _checked(parse: Callable[[Any], M], data: Any) -> M:
    """``parse(data)`` with a refusal turned into the :class:`TableError` of the same code."""
    try:
        return parse(data)
    except BadInput as exc:
        raise TableError(exc.code, exc.message) from None


def parse_settings(body: Mapping[str, Any]) -> dict[str, Any]:
    """A table's settings from a create request (:class:`~seep.web.messages.CreateTable`);
    raises :class:`TableError` ``bad_request`` naming the field.

    Keys: ``preset`` (a rules preset), ``bots`` (difficulty or bot name), ``deals`` or
    ``baazis`` (how long the match runs; default one baazi), ``practice``, ``turn_seconds``.
    """
    return _settings(_checked(lambda d: parse_body(CreateTable, d), dict(body)))


def _settings(req: CreateTable) -> dict[str, Any]:
    return {
        "preset": req.preset,
        "bots": req.bots,
        "deals": req.deals,
        "baazis": req.baazis if req.deals is not None or req.baazis is not None else 1,
        "practice": req.practice,
        "turn_seconds": req.turn_seconds,
        "public": req.public and not req.practice,
    }


@dataclass
class Seat:
    """One seat (of four, or two under docs/rules.md §12): who sits there and whether he is
    here."""

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
    """One table: its seats (four, or two with a two-player preset, R2P1), the settings and,
    once started, the running match."""

    def __init__(self, code: str, settings: Mapping[str, Any], seed: int) -> None:
        self.code = code
        self.settings = dict(settings)
        # Settings stored before presets were chosen per table lack one: the standard game.
        self.settings.setdefault("preset", "standard")
        self.seed = seed
        self.players = PRESETS[self.settings["preset"]].players
        self.seats = [Seat() for _ in range(self.players)]
        self.host = 0
        self.status = "waiting"
        self.session: Session | None = None  # the match, once started
        self.version = 0  # bumped on every change that is broadcast
        self.game_version = 0  # the version of the last change to the game itself
        self.ready: set[int] = set()
        self.deadline: float | None = None
        self.bot: Bot = make_bot(self.settings["bots"])
        self.rngs = [random.Random(f"seep-web:{seed}:{s}") for s in range(self.players)]
        self.client = ""  # the address that created it (limits per client)
        # Since when nobody who keeps it open has been connected (None: someone is); the
        # manager's sweep closes it after a while.
        self.alone_since: float | None = None
        self.muted: set[int] = set()  # seats whose chat the host muted
        self.watching: dict[str, Any] = {"count": 0, "names": []}  # kept by the manager
        self.rematch: set[int] = set()  # after the match: seats that asked for a rematch
        self.rematched: str | None = None  # the rematch's table code, once started
        # Quick match (issue 22 item 6): when its countdown fills the empty seats with bots and
        # starts (the manager's clock); None for a table its host starts.
        self.starts_at: float | None = None
        # Practice: the review of the deal on show once it is over (seep.web.review), with
        # the moves it judged, for the seat's reconnections.
        self.review: dict[str, Any] | None = None
        self.transfers = social.Transfers()

    # --- seats ------------------------------------------------------------------------------

    def seat_of_token(self, token: str) -> int | None:
        """The seat a token belongs to, or ``None``."""
        h = hash_token(token)
        for i, seat in enumerate(self.seats):
            if seat.token_hash is not None and secrets.compare_digest(seat.token_hash, h):
                return i
        return None

    def _check_seat(self, seat: int) -> None:
        # The messages allow seats 0-3; a two-player table has only 0 and 1 (R2P1).
        if not 0 <= seat < self.players:
            raise TableError(
                "bad_request",
                f"no seat {seat}: this table has {self.players} seats (0-{self.players - 1})",
            )

    def join(self, name: str, seat: int | None = None) -> tuple[int, str]:
        """Seat a human (the first free seat when ``seat`` is ``None``); returns his token."""
        if seat is not None:
            self._check_seat(seat)
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
        self._check_seat(to)
        if self.status != "waiting":
            raise TableError("not_allowed", "seats can change only before the start")
        if self.seats[to].kind != "empty":
            raise TableError("seat_taken", f"seat {to} is taken")
        self.seats[to], self.seats[seat] = self.seats[seat], Seat()
        if self.host == seat:
            self.host = to
        if seat in self.muted:  # the mute follows the player
            self.muted.discard(seat)
            self.muted.add(to)
        self.transfers.drop_seat(seat)  # a code carries a seat number: ask again

    def kick(self, seat: int, target: int) -> None:
        """The host takes a player off a waiting table: the seat is empty, his token dead."""
        self._check_seat(target)
        if seat != self.host:
            raise TableError("not_host", "only the host can take a player off the table")
        if self.status != "waiting":
            raise TableError("not_allowed", "players can be taken off only before the start")
        if target == seat:
            raise TableError("not_allowed", "the host cannot take himself off the table")
        if self.seats[target].kind != "human":
            raise TableError("not_allowed", f"seat {target} has no player to take off")
        self.seats[target] = Seat()
        self.muted.discard(target)
        self.transfers.drop_seat(target)

    def mute(self, seat: int, target: int, muted: bool) -> None:
        """The host mutes (or unmutes) a player's chat and emotes."""
        if seat != self.host:
            raise TableError("not_host", "only the host can mute a player")
        self._check_seat(target)
        if target == seat:
            raise TableError("not_allowed", "the host cannot mute himself")
        if self.seats[target].kind != "human":
            raise TableError("not_allowed", f"seat {target} has no player to mute")
        if muted:
            self.muted.add(target)
        else:
            self.muted.discard(target)

    def free_seats(self) -> int:
        """Empty seats (a waiting table's places for players)."""
        return sum(1 for s in self.seats if s.kind == "empty")

    def start(self, seat: int) -> None:
        """The host starts: empty seats get bots, and the first deal is dealt."""
        if seat != self.host:
            raise TableError("not_host", "only the host can start the game")
        if self.status != "waiting":
            raise TableError("not_allowed", "the game has already started")
        self.starts_at = None
        for i, s in enumerate(self.seats):
            if s.kind == "empty":
                # Compass names tell four seats apart; at two seats the bot is the only one.
                name = f"Bot {'NWSE'[i]}" if self.players == 4 else "Bot"
                self.seats[i] = Seat(name=name, kind="bot")
        self.status = "playing"
        self._new_session()

    def _new_session(self) -> Session:
        s = self.settings
        self.session = Session(s["preset"], seed=self.seed, deals=s["deals"], baazis=s["baazis"])
        return self.session

    def by_bot(self, seat: int) -> bool:
        """True when a bot chooses this seat's moves (a bot seat, or a human gone away)."""
        s = self.seats[seat]
        return s.kind == "bot" or s.away

    # --- the game ---------------------------------------------------------------------------

    @property
    def position(self) -> Position | None:
        """The deal on show: the running one, or the last one once the match is over."""
        return self.session.position if self.session is not None else None

    @property
    def history(self) -> tuple[tuple[int, int], ...]:
        """The (seat, move code) moves of the deal on show."""
        return self.session.history if self.session is not None else ()

    @property
    def moves_made(self) -> int:
        """Moves made so far in the whole match (the stored moves' sequence numbers)."""
        return self.session.moves_made if self.session is not None else 0

    @property
    def to_move(self) -> int | None:
        """The seat to move, ``None`` before the start, between deals and at the end."""
        if self.status != "playing" or self.session is None:
            return None
        return self.session.to_move

    def deal_over(self) -> bool:
        """True while a finished deal's summary is on show."""
        return self.session is not None and self.session.deal_over

    def check_move(self, seat: int, data: Any, version: int) -> int:
        """The code of a human's move, checked; raises :class:`TableError` saying why not."""
        if self.status != "playing" or self.session is None:
            raise TableError("not_allowed", f"the table is {self.status}: no moves now")
        to_move = self.to_move
        if to_move is None:
            raise TableError("not_your_turn", "the deal is over: send 'next' for the next deal")
        if to_move != seat:
            raise TableError("not_your_turn", f"seat {to_move} is to move, not seat {seat}")
        # Only changes to the game make a move stale: a player joining or leaving does not.
        if version < self.game_version or version > self.version:
            raise TableError(
                "stale", f"the move answers state {version} but the game is at {self.version}"
            )
        if not isinstance(data, dict):
            raise TableError("malformed_move", "'move' must be a docs/format.md move object")
        try:
            return self.session.check(data, seat=seat)
        except MalformedMoveError as exc:  # before its base class
            raise TableError("malformed_move", str(exc)) from None
        except IllegalMoveError as exc:
            refusal = exc.refusal  # None for a refusal that is no rule's
            reason = reason_dict(refusal) if refusal is not None else None
            raise TableError("illegal_move", str(exc), reason) from None

    def apply(self, code: int) -> dict[str, Any]:
        """Make a checked move for the seat to move; returns its record (with ``seat``)."""
        assert self.session is not None
        seat, code = self.session.play(code)
        self.ready.clear()
        return dict(_move_dict(code), seat=seat)

    def view(self, seat: int) -> View:
        """What ``seat`` knows of the deal on show."""
        assert self.session is not None
        return View.from_position(self.session.position, seat, self.session.history)

    def think(self, seat: int) -> Decision:
        """The table's bot's choice for ``seat`` (a bot seat, an absent player, or a hint)."""
        return self.bot.choose(self.view(seat), self.rngs[seat])

    def undo(self, seat: int) -> int:
        """Practice mode: take back ``seat``'s last move of this deal and every move after it;
        returns how many moves were taken back."""
        if not self.settings["practice"]:
            raise TableError("not_allowed", "undo is only for practice tables")
        if self.status != "playing" or self.session is None:
            raise TableError("not_allowed", f"the table is {self.status}: nothing to undo")
        if all(s != seat for s, _ in self.session.history):
            raise TableError("not_allowed", "you have no move to take back in this deal")
        n = self.session.undo_to(seat)
        self.ready.clear()
        return n

    def humans_waited_for(self) -> set[int]:
        """Human seats whose players are here, and so must say they are ready."""
        return {i for i, s in enumerate(self.seats) if s.kind == "human" and not s.away}

    def all_ready(self) -> bool:
        """True when the deal is over and every present human has sent ``next``."""
        return self.deal_over() and self.humans_waited_for() <= self.ready

    def summary(self) -> dict[str, Any] | None:
        """The finished deal's summary (``None`` while a deal runs): its outcome (R42,
        R44-R47, from the session: nothing is dealt to learn it), the cards each team took and
        who has said ``next``."""
        out = self.session.outcome() if self.session is not None else None
        if out is None:
            return None
        captured = self.session.position.captured if self.session is not None else (0, 0)
        return dict(
            out.to_dict(),
            captured=[card_list(captured[0]), card_list(captured[1])],
            ready=sorted(self.ready),
        )

    def advance(self) -> None:
        """Leave a finished deal: the next deal, or the end of the match (the last deal
        stays on show)."""
        assert self.session is not None
        out = self.session.outcome()
        assert out is not None
        self.ready.clear()
        if out.match_over:
            self.status = "finished"
        else:
            self.session.start_next_deal()

    def match_info(self) -> dict[str, Any] | None:
        """The running match: deals finished, the baazi difference, baazis won, history (a
        finished deal on show counts, as on its summary)."""
        session = self.session
        if session is None:
            return None
        standing = session.standing()
        shown = session.position
        return {
            "deals": standing.deals,
            "diff": standing.diff,
            "baazis": list(standing.baazis),
            "history": session.results(),
            # The deal on show so far: card points and score (R42), public information.
            "points": list(shown.card_points()),
            "score": list(shown.deal_scores()),
        }

    def last_moves(self) -> list[dict[str, Any] | None]:
        """Each seat's latest move of the deal on show."""
        if self.session is None:
            return [None] * self.players
        return [None if m is None else _move_dict(m[0]) for m in self.session.last_moves()]

    def history_sweeps(self) -> list[int]:
        """The sweep points (R38) each move of the deal on show scored, in the order of the
        view's ``history``: the page's move log says "sweep +50" from it."""
        if self.session is None:
            return []
        return self.session.deal_sweeps()

    def public(self) -> dict[str, Any]:
        """The table as anyone may see it (``GET /api/tables/{code}``, ``state.table``)."""
        return {
            "code": self.code,
            "status": self.status,
            "host": self.host,
            "settings": dict(self.settings),
            "seats": [s.public() for s in self.seats],
            "muted": sorted(self.muted),
            "watching": self.watching,
            "rematch": sorted(self.rematch),
            "starts_at": self.starts_at,
        }

    def state(self, seat: int | None) -> dict[str, Any]:
        """The ``state`` message for a connection at ``seat`` (``None``: a spectator)."""
        pos = self.position
        view: dict[str, Any] | None = None
        legal: list[dict[str, Any]] = []
        dead: dict[str, str] = {}
        dead_reasons: dict[str, dict[str, Any]] = {}
        counts: dict[str, int] | None = None
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
                    # A huge list (issue 12) goes as counts per card: the page asks for one
                    # card's moves with a 'moves' message.
                    codes, counts = social.legal_or_counts(pos)
                    legal = [_move_dict(c) for c in codes]
                    used = set(counts) if counts is not None else {m.get("card") for m in legal}
                    dead, dead_reasons = _dead_cards(pos, seat, used)
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
            "dead": dead,
            "dead_reasons": dead_reasons,
            "last_moves": self.last_moves(),
            "history_sweeps": self.history_sweeps(),
            "match": self.match_info(),
            "summary": self.summary(),
            "clock": clock,
            "legal_counts": counts,
        }

    def record(self) -> dict[str, Any]:
        """The game so far as a docs/format.md game record: the finished deals only, since a deal's
        start shows every hand (the deal on show joins the record when it is over). The
        match's ``seed``, which fixes every shuffle, is in it only once the match is over."""
        if self.session is None:
            raise TableError("not_allowed", "the game has not started: no record yet")
        record = self.session.to_record(unfinished=False)
        if self.status != "finished":
            # The seed fixes every shuffle: while the match runs it would show every hand.
            del record["seed"]
        return record

    # --- restoring --------------------------------------------------------------------------

    def replay(self, moves: list[dict[str, Any]]) -> None:
        """Replay stored moves (a restart): the same engine checks as when they were made."""
        session = self.session if self.session is not None else self._new_session()
        session.replay(moves)


class _OverBudget(TableError):
    """A message refused by the client's message budget (or its socket's rate)."""

    def __init__(self, message: str) -> None:
        super().__init__("rate_limited", message)


class Connection:
    """One client of a table. The manager queues its messages (already JSON text) with
    :meth:`push`; the app's writer sends them in order with :meth:`next_message`."""

    def __init__(self, code: str, seat: int | None) -> None:
        self.code = code
        self.seat = seat
        self.client = ""  # the client's address key (seep.web.limits), for logs and limits
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self._times: deque[float] = deque()
        self._chats: deque[float] = deque()
        self.close_code: int | None = None  # set when the server ends the connection
        self.name = ""  # a spectator's name, if he gave one
        self.origin = ""  # the page's origin (scheme and host), for transfer links
        self.trial = False  # in the seats' reserve of a full table until its hello
        self.limited_at = float("-inf")  # when it was last told it is rate limited
        self.since = time.monotonic()  # when it came (a full table drops its newest watcher)

    def push(self, text: str) -> None:
        """Queue a message for this client."""
        self.queue.put_nowait(text)

    def close(self) -> None:
        """Tell the writer to stop."""
        self.queue.put_nowait(None)

    def end(self, close_code: int) -> None:
        """Tell the writer to close the socket with ``close_code`` after the queued messages."""
        self.close_code = close_code
        self.close()

    async def next_message(self) -> str | None:
        """The next queued message (``None``: stop)."""
        return await self.queue.get()

    def error(self, code: str, message: str, reason: dict[str, Any] | None = None) -> None:
        """Queue an ``error`` message for this client only (with the refusal's ``rule``,
        ``template`` and ``args`` when a rule refused it)."""
        msg: dict[str, Any] = {"type": "error", "code": code, "message": message}
        if reason is not None:
            msg.update(reason)
        self.push(json.dumps(msg))

    def allow_chat(self, now: float) -> bool:
        """Chat limit: at most :data:`CHAT_LIMIT` lines and emotes in its window."""
        count, window = CHAT_LIMIT
        times = self._chats
        while times and now - times[0] >= window:
            times.popleft()
        if len(times) >= count:
            return False
        times.append(now)
        return True

    def allow(self, now: float, limit: int = RATE_LIMIT) -> bool:
        """Rate limit: at most ``limit`` messages in any second."""
        times = self._times
        while times and now - times[0] >= 1.0:
            times.popleft()
        if len(times) >= limit:
            return False
        times.append(now)
        return True


@dataclass
class _Driver:
    key: tuple[int, int, bool]  # (game version, seat, by bot) it was scheduled for
    task: asyncio.Task[None]


class TableManager:
    """Every table of the server, their connections, and the timers that move bots.

    ``bot_delay`` is the pause before a bot moves (so players see each move), ``grace_seconds``
    how long a player may be gone before a bot plays for him, ``rate_limit`` how many messages
    a connection may send in a second. ``ready_seconds`` is how long a deal summary waits for
    ``next`` (0: for ever), ``waiting_seconds`` how long a table not started stays open with
    nobody connected, ``abandoned_seconds`` how long a started one stays open with no seated
    player connected. ``bot_pool`` thinks for the slow bots (none: they think in a thread) and
    ``max_slow_tables`` caps one client's open tables of slow bots. ``clock`` gives the time
    (tests may replace it). Call the methods from the event loop's thread.

    When the store has an owner (several instances share the database, docs/deploy.md) the
    manager holds only the tables whose lease it has: :meth:`claim` takes a table's lease and
    loads it from its stored moves, :meth:`heartbeat` renews the leases every third of
    ``lease_seconds``, and a table whose lease is lost or asked for leaves memory, its clients
    told to reconnect.
    """

    def __init__(
        self,
        store: Store | None = None,
        *,
        bot_delay: float = 0.6,
        grace_seconds: float = 30.0,
        rate_limit: int = RATE_LIMIT,
        ready_seconds: float = 60.0,
        waiting_seconds: float = 30 * 60.0,
        abandoned_seconds: float = 24 * 3600.0,
        bot_pool: BotPool | None = None,
        max_slow_tables: int = 4,
        quick_seconds: float = 20.0,
        clock: Callable[[], float] = time.time,
        lease_seconds: float = 10.0,
        orphan_seconds: float = 10 * 60.0,
        max_public_waiting: int = 3,
    ) -> None:
        self.store = store
        self.bot_delay = bot_delay
        self.grace_seconds = grace_seconds
        self.rate_limit = rate_limit
        self.ready_seconds = ready_seconds
        self.waiting_seconds = waiting_seconds
        self.abandoned_seconds = abandoned_seconds
        self.bot_pool = bot_pool
        self.max_slow_tables = max_slow_tables
        self.quick_seconds = quick_seconds
        self.clock = clock
        self.tables: dict[str, Table] = {}
        self.conns: dict[str, set[Connection]] = {}
        self.observers: list[Callable[[Table], None]] = []  # see each state before it is sent
        self._drivers: dict[str, _Driver] = {}
        self._grace: dict[tuple[str, int], asyncio.TimerHandle] = {}
        self._countdowns: dict[str, asyncio.TimerHandle] = {}  # quick match's starts
        self._reviews: set[asyncio.Task[None]] = set()  # practice reviews being made
        # Called with (client, what) for malformed messages; the app limits it to a line a
        # minute per client.
        self.log_bad_input: Callable[[str, str], None] | None = None
        self.lease_seconds = lease_seconds
        self._claims: dict[str, asyncio.Future[None]] = {}  # tables being taken over
        self._bad_claims: dict[str, deque[float]] = {}  # client -> times of wrong codes
        self._watch_pending: set[str] = set()  # tables whose watchers' broadcast is due
        # Per client key, all its sockets together (the app sets them from its SEEP_*
        # settings; 0: no limit): sockets server-wide and per table, one message budget.
        self.sockets = SocketCounts(0, 0)
        self.budget = MessageBudget(0)
        self.spectators_per_client = 0  # spectator sockets per client key per table
        self.max_connections = MAX_CONNECTIONS  # sockets per table, SEAT_RESERVE beside
        self._lobby_cache: tuple[float, dict[str, Any]] | None = None  # several instances
        # A started table with no human connected closes after this (0: abandoned_seconds).
        self.orphan_seconds = orphan_seconds
        self.max_public_waiting = max_public_waiting  # per client key (0: no limit)
        # Since when each waiting table's host has been away (created, or his last socket
        # gone): past the grace period a seated player may start it and become host.
        self._host_left: dict[str, float] = {}
        # The app's creation limits (seep.web.limits), which a rematch counts against too:
        # ``may_create(client)`` raises TableError over a limit, ``created(client, code)``
        # counts a new table.
        self.may_create: Callable[[str], None] | None = None
        self.created: Callable[[str, str], None] | None = None

    # --- lifecycle --------------------------------------------------------------------------

    def load(self) -> int:
        """Reload every unfinished table from the store, replaying its moves; returns how many.

        Players are not connected after a restart: their grace periods start now.
        """
        if self.store is None or self.clustered:
            return 0  # several instances: each table is loaded by the one that claims it
        n = 0
        for row in self.store.load_unfinished():
            if self._restore(row) is not None:
                n += 1
        return n

    def sweep(self) -> int:
        """Close the tables nobody comes back to, and let finished tables nobody watches leave
        memory; returns how many tables left memory. Call it every so often.

        A table not started closes after ``waiting_seconds`` with nobody connected; a started
        one after ``orphan_seconds`` (or ``abandoned_seconds`` if shorter or if
        ``orphan_seconds`` is 0) with no seated player connected (spectators do not keep it
        open). A closed table keeps its finished deals as a record in the store.
        """
        now = self.clock()
        gone = 0
        for table in list(self.tables.values()):
            conns = self.conns.get(table.code)
            if table.status == "finished":
                if not conns:
                    self._forget(table)
                    gone += 1
                continue
            if table.status == "waiting":
                here = bool(conns)
                limit = self.waiting_seconds
            else:
                here = any(s.kind == "human" and s.connections > 0 for s in table.seats)
                limit = self.abandoned_seconds
                if self.orphan_seconds > 0:
                    # One address could otherwise hold the server's open-table cap for a day
                    # with tables it starts and leaves (issue 23).
                    limit = min(limit, self.orphan_seconds)
            if here:
                table.alone_since = None
            elif table.alone_since is None:
                table.alone_since = now
            elif now - table.alone_since >= limit:
                self.close(table)
                gone += 1
        return gone

    def close(self, table: Table) -> None:
        """Close a table that will not finish: it keeps its finished deals as a record (the
        moves stay stored), its last state goes to anyone still watching, and it leaves
        memory."""
        record = None
        if table.session is not None:
            with contextlib.suppress(TableError):
                record = table.record()
        table.status = "closed"
        table.version += 1
        if self.store is not None:
            self.store.close_table(table, record)
        self._broadcast(table)
        self._forget(table)

    def _forget(self, table: Table) -> None:
        """Drop a table that is over from memory (the store keeps it), ending its timers and
        its connections; with several instances its lease goes too."""
        self._teardown(table.code)
        for conn in self.conns.pop(table.code, ()):
            conn.close()
        if self.clustered and self.store is not None:
            with contextlib.suppress(Exception):  # an unreleased lease just runs out
                self.store.release_lease(table.code)

    def _teardown(self, code: str) -> None:
        """A table leaves memory: its bot driver and grace timers stop."""
        self.tables.pop(code, None)
        self._host_left.pop(code, None)
        driver = self._drivers.pop(code, None)
        if driver is not None:
            driver.task.cancel()
        for key in [k for k in self._grace if k[0] == code]:
            self._grace.pop(key).cancel()
        countdown = self._countdowns.pop(code, None)
        if countdown is not None:
            countdown.cancel()

    def shutdown(self) -> None:
        """Cancel every timer (the tables themselves are all in the store)."""
        for d in self._drivers.values():
            d.task.cancel()
        self._drivers.clear()
        for h in self._grace.values():
            h.cancel()
        self._grace.clear()
        for h in self._countdowns.values():
            h.cancel()
        self._countdowns.clear()
        for conns in self.conns.values():
            for c in conns:
                c.close()

    # --- ownership (several instances on one database) --------------------------------------

    @property
    def clustered(self) -> bool:
        """True when several instances share the database (the store has an owner id)."""
        return self.store is not None and self.store.owner is not None

    async def claim(self, code: str) -> None:
        """Make sure this instance holds the running table ``code`` before a request for it:
        take its lease (waiting, up to a lease and a half, for another holder to hand it over
        or to expire) and load it by replaying its stored moves. Unknown and finished tables
        are left to the request. Raises :class:`TableError` ``unavailable`` when the table
        stays held elsewhere."""
        code = code.upper()
        if not self.clustered or code in self.tables:
            return
        if not (code.isascii() and code.isalnum() and len(code) <= 8):
            return  # no such table: the request says so
        pending = self._claims.get(code)
        if pending is None:  # one takeover per table, however many requests wait for it
            pending = self._claims[code] = asyncio.ensure_future(self._claim(code))
            pending.add_done_callback(lambda _: self._claims.pop(code, None))
        await asyncio.shield(pending)

    async def _claim(self, code: str) -> None:
        store = self.store
        assert store is not None
        if not await asyncio.to_thread(store.running, code):
            return
        # A dead holder's lease runs out within lease_seconds; a live one hands the table over
        # at its next heartbeat (a third of that).
        deadline = time.monotonic() + self.lease_seconds * 1.5
        while True:
            lease = await asyncio.to_thread(store.take_lease, code, self.lease_seconds)
            if lease.taken:
                break
            if time.monotonic() >= deadline:
                raise TableError(
                    "unavailable", f"table {code} is held by another server: try again soon"
                )
            await asyncio.sleep(min(0.25, self.lease_seconds / 8))
        # Read after the lease is ours: every move stored from now on is this instance's.
        row = await asyncio.to_thread(store.load_table, code)
        if row is None or code in self.tables:
            return
        if self._restore(row) is None:
            store.release_lease(code)

    def _restore(self, row: Mapping[str, Any]) -> Table | None:
        """A stored table rebuilt by replaying its moves and put in memory (its players' grace
        periods start now: nobody is connected yet), or ``None`` (logged) when its moves no
        longer replay."""
        table = Table(row["code"], row["settings"], row["seed"])
        table.host = row["host"]
        table.seats = [
            Seat(name=s["name"], kind=s["kind"], token_hash=s["token_hash"]) for s in row["seats"]
        ]
        if row["status"] == "playing":
            table.status = "playing"
            try:
                table.replay(row["moves"])
            except (SeepError, KeyError, TypeError, ValueError) as exc:
                logging.getLogger("seep.web").error(
                    "table %s not resumed: its moves do not replay: %s", table.code, exc
                )
                return None
        table.version = table.game_version = row["version"] + 1
        table.alone_since = self.clock()  # a restart gives everyone the full time again
        self.tables[table.code] = table
        for i, s in enumerate(table.seats):
            if s.kind == "human" and table.status == "playing":
                self._start_grace(table, i)
        return table

    def drop(self, code: str, reason: str) -> None:
        """Forget a table this instance no longer holds: its timers stop and its clients are
        told to reconnect (the proxy sends them to the holder). Everything is in the store."""
        if code not in self.tables:
            return
        logging.getLogger("seep.web").info("table %s left this server: %s", code, reason)
        self._teardown(code)
        for conn in self.conns.pop(code, ()):
            conn.error("moved", "the table moved to another server: reconnecting")
            conn.end(CLOSE_MOVED)

    async def heartbeat(self) -> None:
        """Renew this instance's leases forever (a task of the app): every third of
        ``lease_seconds``. Tables whose lease was lost, or that another instance asked for
        (the proxy sends their traffic there now), leave memory."""
        store = self.store
        assert store is not None and self.clustered
        log = logging.getLogger("seep.web")
        while True:
            await asyncio.sleep(self.lease_seconds / 3)
            codes = list(self.tables)
            try:
                held, wanted = await asyncio.to_thread(
                    store.renew_leases, codes, self.lease_seconds
                )
            except Exception as exc:  # the database is away: writes fail until it is back
                log.warning("lease renewal failed: %s", exc)
                continue
            for code in codes:
                if code not in held:
                    self.drop(code, "its lease was lost")
                elif code in wanted:
                    # The proxy sends this table's traffic to the instance that asked: its
                    # clients here came by an old route and reconnect to the new one.
                    self.drop(code, "another server asked for it")
                    await asyncio.to_thread(store.release_lease, code)

    # --- HTTP requests ----------------------------------------------------------------------

    def _new_code(self) -> str:
        # 31**6 (about 887 million) codes: with lookups limited per client (docs/web.md
        # "Limits") nobody finds a table he was not given the code of.
        for length in (6, 6, 6, 7, 7, 8, 8, 8):
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(length))
            if code not in self.tables and (self.store is None or not self.store.exists(code)):
                return code
        raise TableError("internal_error", "no free table code")  # pragma: no cover

    def create(self, body: Any, client: str = "") -> dict[str, Any]:
        """Create a table with its creator as host in seat 0 (``POST /api/tables``); ``client``
        is the creator's address, for the limits per client."""
        req = _checked(lambda d: parse_body(CreateTable, d), body)
        settings = _settings(req)
        self._check_slow_tables(client, settings)
        if settings["public"]:
            self._check_public_tables(client)
        # The shuffles follow from a server secret that no client sees before the match is
        # over (Table.record): knowing it would show every hidden card.
        table = Table(self._new_code(), settings, secrets.randbits(62))
        table.client = client
        table.alone_since = self.clock()
        seat, token = table.join(req.name or "Player", 0)
        if self.store is not None:
            for _ in range(8):
                try:
                    self.store.create_table(table)
                    break
                except StoreConflict:  # another instance took the code at the same moment
                    table.code = self._new_code()
            else:
                raise TableError("internal_error", "no free table code")  # pragma: no cover
        if not self.clustered:
            # Several instances: the one the proxy sends the table's traffic to claims it.
            self.tables[table.code] = table
            self._host_left[table.code] = self.clock()  # until his page connects
        return {"code": table.code, "url": f"/t/{table.code}", "seat": seat, "token": token}

    def _check_public_tables(self, client: str) -> None:
        """One client may keep only ``max_public_waiting`` public tables waiting for players:
        the lobby lists the newest first, and a few addresses must not fill it (0: no limit)."""
        if self.max_public_waiting <= 0:
            return
        mine = sum(
            1
            for t in self.tables.values()
            if t.client == client and t.status == "waiting" and t.settings.get("public")
        )
        if mine >= self.max_public_waiting:
            raise TableError(
                "too_many_tables",
                f"at most {self.max_public_waiting} public tables waiting for players per "
                "address: start one, or wait for players at one you have",
            )

    def host_here(self, table: Table) -> bool:
        """True when the table's host is seated with a live socket (a human: a bot host
        never waits)."""
        host = table.seats[table.host]
        return host.kind == "human" and host.connections > 0

    def host_away(self, table: Table) -> bool:
        """True when a waiting table's host has been away longer than the grace period: any
        seated player may then start it and becomes host."""
        if table.status != "waiting" or self.host_here(table):
            return False
        now = self.clock()
        return now - self._host_left.setdefault(table.code, now) > self.grace_seconds

    def _check_slow_tables(self, client: str, settings: Mapping[str, Any]) -> None:
        """One client may keep only ``max_slow_tables`` open tables of slow (search) bots: their
        thinking is the server's dearest resource (0: no limit)."""
        if settings["bots"] not in SLOW_BOTS or self.max_slow_tables <= 0:
            return
        mine = sum(
            1
            for t in self.tables.values()
            if t.client == client and t.settings["bots"] in SLOW_BOTS and t.status != "finished"
        )
        if mine >= self.max_slow_tables:
            raise TableError(
                "too_many_tables",
                f"at most {self.max_slow_tables} open tables with hard or expert bots per client:"
                " finish one, or choose easy or medium bots",
            )

    def get(self, code: str) -> Table:
        """A live table by code (any case), or :class:`TableError` ``unknown_table``."""
        table = self.tables.get(code.upper())
        if table is None:
            raise TableError("unknown_table", f"no table {code}")
        return table

    def lobby(self) -> dict[str, Any]:
        """Open public tables with free seats whose host is here (:meth:`host_here`), newest
        first, at most :data:`LOBBY_SIZE` (``GET /api/lobby``). Private tables never show; nor
        do tables whose host left or never came, which nobody would start (a spectator does not
        keep a table in the lobby). This instance's tables only: see :meth:`lobby_everywhere`
        for several instances."""
        out: list[dict[str, Any]] = []
        for t in reversed(self.tables.values()):  # created in this order (dicts keep it)
            if (
                t.settings.get("public")
                and t.status == "waiting"
                and t.free_seats()
                and self.host_here(t)
            ):
                out.append(
                    {
                        "code": t.code,
                        "settings": dict(t.settings),
                        "seats": [s.public() for s in t.seats],
                        "free": t.free_seats(),
                    }
                )
                if len(out) >= LOBBY_SIZE:
                    break
        return {"tables": out}

    async def lobby_everywhere(self) -> dict[str, Any]:
        """The lobby of every instance on the database (one instance: :meth:`lobby`).

        Each instance holds only its own tables, so the listing is read from the stored
        waiting tables (refreshed at most every :data:`LOBBY_REFRESH_SECONDS`); a table held
        here shows its live seats, one held elsewhere its stored seats, whose players count as
        connected (a waiting table's seats are saved on every join, move of seat and kick).
        Joining goes to the table's own instance: the proxy routes by the code.
        """
        if not self.clustered or self.store is None:
            return self.lobby()
        now = time.monotonic()
        cached = self._lobby_cache
        if cached is not None and now - cached[0] < LOBBY_REFRESH_SECONDS:
            return cached[1]
        rows = await asyncio.to_thread(self.store.waiting_tables, LOBBY_SCAN)
        out: list[dict[str, Any]] = []
        for row in reversed(rows):  # newest first
            if not row["settings"].get("public"):
                continue
            live = self.tables.get(row["code"])
            if live is not None:
                if live.status != "waiting" or not live.free_seats() or not self.host_here(live):
                    continue
                seats = [s.public() for s in live.seats]
            else:
                seats = [
                    {
                        "name": s["name"],
                        "kind": s["kind"],
                        "connected": s["kind"] != "empty",
                        "away": False,
                    }
                    for s in row["seats"]
                ]
            free = sum(1 for s in seats if s["kind"] == "empty")
            if free:
                out.append(
                    {"code": row["code"], "settings": row["settings"], "seats": seats, "free": free}
                )
                if len(out) >= LOBBY_SIZE:
                    break
        answer = {"tables": out}
        self._lobby_cache = (now, answer)
        return answer

    @staticmethod
    def _quick_settings(body: Any) -> dict[str, Any]:
        req = _checked(lambda d: parse_body(CreateTable, d), body)
        if req.practice:
            raise TableError("bad_request", "quick match is for tables with other players")
        return dict(_settings(req), public=True)

    def quick_table(self, body: Any) -> str | None:
        """Quick match: the first open public table held here with the settings of ``body``
        (a create request) whose host is here, or ``None`` (then the caller opens one)."""
        wanted = self._quick_settings(body)
        fits = [
            t
            for t in self.tables.values()
            if t.status == "waiting"
            and t.settings == wanted
            and t.free_seats()
            and self.host_here(t)  # a table whose host is gone may never start
        ]
        # Players waiting on a countdown asked for a game now: they come first.
        fits.sort(key=lambda t: t.starts_at is None)
        return fits[0].code if fits else None

    def count_down(self, code: str) -> None:
        """Quick match opened table ``code`` (held here): in :attr:`quick_seconds` its empty
        seats get bots of its level and it starts, or sooner once every seat is taken. The
        deadline is in the table's public state (``starts_at``) for every page to count down."""
        table = self.tables.get(code)
        if table is None or table.status != "waiting":
            return  # several instances: the table is held where its traffic goes
        table.starts_at = self.clock() + self.quick_seconds
        old = self._countdowns.pop(code, None)
        if old is not None:
            old.cancel()
        self._countdowns[code] = asyncio.get_running_loop().call_later(
            self.quick_seconds, self._countdown_over, code
        )
        self._changed(table, game=False)

    def _countdown_over(self, code: str) -> None:
        self._countdowns.pop(code, None)
        table = self.tables.get(code)
        if table is None or table.status != "waiting" or table.starts_at is None:
            return  # started by its host meanwhile, or gone
        try:
            self._begin(table, table.host)
        except Exception as exc:  # a timer's failure must not stop the loop
            logging.getLogger("seep.web").exception("table %s: quick start failed: %s", code, exc)

    async def quick_table_everywhere(self, body: Any) -> str | None:
        """Quick match over every instance on the database (one instance:
        :meth:`quick_table`): a table held here first, else the oldest stored one that fits,
        which this instance then claims (its holder hands it over) so that the player can
        sit at once."""
        code = self.quick_table(body)
        if code is not None or not self.clustered or self.store is None:
            return code
        wanted = self._quick_settings(body)
        for row in await asyncio.to_thread(self.store.waiting_tables, LOBBY_SCAN):
            if row["settings"] != wanted or all(s["kind"] != "empty" for s in row["seats"]):
                continue
            try:
                await self.claim(row["code"])
            except TableError:
                continue  # held elsewhere and not handed over in time: the next one
            t = self.tables.get(row["code"])
            if t is not None and t.status == "waiting" and t.settings == wanted and t.free_seats():
                return t.code
        return None

    def join(self, code: str, body: Any) -> dict[str, Any]:
        """Take a seat (``POST /api/tables/{code}/join``)."""
        table = self.get(code)
        req = _checked(lambda d: parse_body(JoinTable, d), body)
        if req.token is not None:
            # One browser, one seat a table: a join with the token it holds here (a second
            # click, a second tab) answers the seat it holds.
            held = table.seat_of_token(req.token)
            if held is not None:
                return {"seat": held, "token": req.token}
        seat, token = table.join(req.name or "Player", req.seat)
        if self.store is not None:
            self.store.save_table(table)
        if table.starts_at is not None and not table.free_seats():
            self._begin(table, table.host)  # quick match: a full table need not wait
        else:
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
        record: dict[str, Any] | None = self._finished(code)["record"]
        if record is None:
            raise TableError("not_allowed", f"table {code.upper()} closed before it started")
        return record

    def _finished(self, code: str) -> dict[str, Any]:
        """A finished table kept in the store (no longer in memory after a restart)."""
        stored = self.store.load_finished(code.upper()) if self.store is not None else None
        if stored is None:
            raise TableError("unknown_table", f"no table {code}")
        return stored

    # --- connections ------------------------------------------------------------------------

    def connect(self, code: str, client: str = "") -> Connection:
        """A new connection to a table (raises ``unknown_table``, or ``table_over`` for a
        table finished or closed): a spectator's until its ``hello`` names a seat
        (:meth:`hello`). It gets the spectator's state at once. ``client`` is the client's
        key: its sockets are capped (``too_many_connections``), and refused while it serves
        a penalty for flooding (``rate_limited``)."""
        table = self.tables.get(code.upper())
        if table is None:
            stored = self.store.load_finished(code.upper()) if self.store is not None else None
            if stored is not None:
                status = stored["public"]["status"]
                raise TableError(
                    "table_over",
                    f"table {code.upper()} is {status}: its finished deals are at "
                    f"/replay/{code.upper()}",
                )
            raise TableError("unknown_table", f"no table {code}")
        conns = self.conns.setdefault(table.code, set())
        trial = self._admission(table, conns, client)
        conn = Connection(table.code, None)
        conn.client = client
        conns.add(conn)
        if client:
            self.sockets.add(client, table.code, conn)
        if trial:
            conn.trial = True
            asyncio.get_running_loop().call_later(TRIAL_SECONDS, self._trial_over, conn)
        for observe in self.observers:
            observe(table)
        conn.push(_dumps(table.state(None)))
        self._watchers_changed(table)
        return conn  # a spectator never wakes a paused table

    def _admission(self, table: Table, conns: set[Connection], client: str) -> bool:
        """Whether ``client`` may open one more socket at ``table`` (raises the refusal);
        True: only on trial, in the room kept for seated players (:data:`SEAT_RESERVE`)."""
        if client and self.budget.banned(client):
            raise TableError(
                "rate_limited",
                f"your address kept sending over its message budget: wait "
                f"{self.budget.penalty:g} s",
            )
        if client:
            why = self.sockets.refusal(client, table.code)
            cap = self.spectators_per_client
            if why is None and cap and self._spectators_of(conns, client) >= cap:
                why = f"at most {cap} spectators per address at one table"
            if why is not None:
                raise TableError("too_many_connections", f"{why}: close some first")
        if len(conns) < self.max_connections:
            return False
        if sum(c.trial for c in conns) < SEAT_RESERVE:
            return True
        raise TableError(
            "too_many_connections",
            f"table {table.code} has {self.max_connections} connections, its limit: try later",
        )

    @staticmethod
    def _spectators_of(conns: set[Connection], client: str) -> int:
        return sum(1 for c in conns if c.seat is None and c.client == client)

    def _trial_over(self, conn: Connection) -> None:
        """A socket let into a full table on trial said no hello with a seat in time."""
        if conn.trial:
            self._drop_trial(conn)

    def _drop_trial(self, conn: Connection) -> None:
        conn.trial = False
        conn.error(
            "too_many_connections",
            f"this table is full: only a seated player's hello gets in (within "
            f"{TRIAL_SECONDS:g} s)",
        )
        conn.end(CLOSE_TABLE_FULL)

    def _make_room(self, table: Table, conn: Connection) -> None:
        """A seated player came in on trial: the newest spectator leaves for him."""
        conn.trial = False
        conns = self.conns.get(table.code, set())
        if len(conns) <= self.max_connections:
            return
        watchers = [
            c
            for c in conns
            if c is not conn and c.seat is None and not c.trial and c.close_code is None
        ]
        if watchers:
            dropped = max(watchers, key=lambda c: c.since)
            dropped.error("too_many_connections", "this table is full: a player took your place")
            dropped.end(CLOSE_TABLE_FULL)

    def hello(self, conn: Connection, token: str) -> None:
        """The ``hello`` handshake: the connection takes the seat its token holds. A token that
        fits no seat gets ``unknown_token`` and the connection goes on watching."""
        table = self.get(conn.code)
        if conn.seat is not None:
            raise TableError("not_allowed", "this connection already holds a seat")
        seat = table.seat_of_token(token)
        if seat is None:
            if conn.trial:
                self._drop_trial(conn)
            raise TableError("unknown_token", "this token holds no seat at this table: watching")
        if conn.trial:
            self._make_room(table, conn)
        conn.seat = seat
        s = table.seats[seat]
        s.connections += 1
        if seat == table.host:
            self._host_left.pop(table.code, None)
        handle = self._grace.pop((table.code, seat), None)
        if handle is not None:
            handle.cancel()
        s.away = False  # the bot gives the seat back
        self._changed(table, game=False)
        self._send_review(table, conn)

    def disconnect(self, conn: Connection) -> None:
        """A connection has gone."""
        self.sockets.remove(conn.client, conn.code, conn)
        conns = self.conns.get(conn.code)
        if conns is None or conn not in conns:
            return
        conns.discard(conn)
        table = self.tables.get(conn.code)
        if table is None:
            return
        if table.status == "finished" and not conns:
            self._forget(table)  # over and unwatched: the store keeps it
            return
        if conn.seat is None:
            self._watchers_changed(table)
            return
        s = table.seats[conn.seat]
        s.connections -= 1
        if s.connections == 0:
            if table.status == "playing":
                self._start_grace(table, conn.seat)
            elif conn.seat == table.host:
                self._host_left[table.code] = self.clock()
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
        except _OverBudget as exc:
            self._over_budget(conn, exc.message)
        except TableError as exc:
            conn.error(exc.code, exc.message, exc.reason)
            if exc.code in _BAD_INPUT and self.log_bad_input is not None:
                self.log_bad_input(conn.client or "a socket", f"{exc.code} (socket message)")
        except StoreConflict as exc:
            self.drop(conn.code, str(exc))
        except StoreUnavailable as exc:
            # Nothing of the change was stored or made: the player may send it again.
            _log_store_problem(conn.code, exc)
            conn.error("store_unavailable", _STORE_UNAVAILABLE)
        except Exception as exc:  # a bug: logged, and the client and the table go on
            logging.getLogger("seep.web").exception("table %s: %s", conn.code, exc)
            conn.error("internal_error", "the server could not handle that message (logged)")

    def _budget_words(self) -> str:
        rate = self.budget.rate
        return f"your address's messages cost more than {rate:g} pings a second: dropped"

    def _over_budget(self, conn: Connection, why: str) -> None:
        """A message dropped over budget: its socket is told at most once a second (each
        word costs a write); a client that keeps on loses every socket (:data:`CLOSE_ABUSE`)."""
        if conn.client and self.budget.refused(conn.client):
            words = (
                f"your address kept sending over its budget: closed for {self.budget.penalty:g} s"
            )
            for sock in self.sockets.sockets(conn.client):
                assert isinstance(sock, Connection)
                sock.error("rate_limited", words)
                sock.end(CLOSE_ABUSE)
            if self.log_bad_input is not None:
                self.log_bad_input(conn.client, "flooding (its sockets closed)")
            return
        now = self.clock()
        if now - conn.limited_at >= 1.0:
            conn.limited_at = now
            conn.error("rate_limited", why)

    async def _handle(self, conn: Connection, text: str | bytes) -> None:
        if len(text) > MAX_MESSAGE_BYTES or (
            isinstance(text, str) and len(text.encode()) > MAX_MESSAGE_BYTES
        ):
            raise TableError("too_large", f"a message is at most {MAX_MESSAGE_BYTES} bytes")
        if not conn.allow(self.clock(), self.rate_limit):
            raise _OverBudget(f"at most {self.rate_limit} messages a second: dropped")
        key = conn.client or f"socket {id(conn)}"
        # Charged in two steps: its size before it is parsed, its kind's cost after.
        if not self.budget.charge(key, 1.0 + len(text) / MESSAGE_COST_BYTES):
            raise _OverBudget(self._budget_words())
        data = _checked(lambda t: parse_json(t, "a message", MAX_TOKENS), text)
        msg = _checked(parse_message, data)
        kind = msg.type
        if not self.budget.charge(key, MESSAGE_COSTS.get(kind, DEFAULT_MESSAGE_COST) - 1.0):
            raise _OverBudget(self._budget_words())
        if conn.trial and kind != "hello":
            self._drop_trial(conn)  # let in only to say hello with a seat
            return
        if kind == "ping":
            conn.push(json.dumps({"type": "pong"}))
            return
        if kind == "hello":
            assert isinstance(msg, Hello)
            self.hello(conn, msg.token)
            return
        handler = self._handlers[kind]
        table = self.get(conn.code)
        if conn.seat is None and kind not in ("watch", "claim"):
            raise TableError("not_allowed", "spectators can only watch")
        await handler(self, table, conn, msg)

    async def _on_move(self, table: Table, conn: Connection, msg: Any) -> None:
        assert conn.seat is not None and isinstance(msg, MoveMessage)
        code = table.check_move(conn.seat, msg.move, msg.version)
        self._play(table, code)

    async def _on_start(self, table: Table, conn: Connection, msg: Any) -> None:
        assert conn.seat is not None
        if conn.seat != table.host and self.host_away(table):
            # The host left (or never came) a grace period ago: the table would wait for
            # ever, so whoever is seated may start it, and hosts it from now on.
            table.host = conn.seat
            self._host_left.pop(table.code, None)
        elif conn.seat != table.host and table.status == "waiting":
            raise TableError(
                "not_host",
                "only the host can start the game (anyone seated may once the host has been "
                f"away {self.grace_seconds:.0f} s)",
            )
        self._begin(table, conn.seat)

    def _begin(self, table: Table, seat: int) -> None:
        """Start ``table`` as ``seat`` (its host, or quick match's countdown for him)."""
        table.start(seat)
        countdown = self._countdowns.pop(table.code, None)
        if countdown is not None:
            countdown.cancel()
        if self.store is not None:
            self.store.save_table(table)
        for i, s in enumerate(table.seats):
            if s.kind == "human" and s.connections == 0:
                self._start_grace(table, i)  # a player who joined and never came: as if gone
        self._changed(table, game=True)

    async def _on_sit(self, table: Table, conn: Connection, msg: Any) -> None:
        assert conn.seat is not None and isinstance(msg, Sit)
        to = msg.seat
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

    async def _on_hint(self, table: Table, conn: Connection, msg: Any) -> None:
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

    async def _on_undo(self, table: Table, conn: Connection, msg: Any) -> None:
        assert conn.seat is not None
        n = table.undo(conn.seat)
        table.review = None  # the deal goes on: its review would show what is to come
        if self.store is not None:
            self.store.delete_moves(table.code, table.moves_made)
        del n
        self._changed(table, game=True)

    async def _on_next(self, table: Table, conn: Connection, msg: Any) -> None:
        assert conn.seat is not None
        if table.status != "playing" or not table.deal_over():
            raise TableError("not_allowed", "'next' is for the end of a deal")
        table.ready.add(conn.seat)
        if table.all_ready():
            self._advance(table)
        else:
            self._changed(table, game=False)

    async def _on_kick(self, table: Table, conn: Connection, msg: Any) -> None:
        assert conn.seat is not None and isinstance(msg, Kick)
        table.kick(conn.seat, msg.seat)
        for c in self.conns.get(table.code, ()):
            if c.seat == msg.seat:
                c.seat = None  # his token is dead: he watches now
                c.error("kicked", "the host took you off this table: you are watching")
        if self.store is not None:
            self.store.save_table(table)
        self._changed(table, game=False)

    # --- the social side: chat, emotes, mute, watchers, rematch, transfer, coach, report ------

    def _to_all(self, table: Table, msg: dict[str, Any]) -> None:
        text = _dumps(msg)
        for c in self.conns.get(table.code, ()):
            c.push(text)

    def _speaker(self, table: Table, conn: Connection) -> tuple[int, str]:
        assert conn.seat is not None
        if conn.seat in table.muted:
            raise TableError("muted", "the host has muted you at this table")
        if not conn.allow_chat(self.clock()):
            raise TableError(
                "rate_limited", f"at most {CHAT_LIMIT[0]} chat lines in {CHAT_LIMIT[1]:g} s"
            )
        return conn.seat, table.seats[conn.seat].name

    async def _on_chat(self, table: Table, conn: Connection, msg: Any) -> None:
        assert isinstance(msg, Chat)
        seat, name = self._speaker(table, conn)
        self._to_all(table, {"type": "chat", "seat": seat, "name": name, "text": msg.text})

    async def _on_emote(self, table: Table, conn: Connection, msg: Any) -> None:
        assert isinstance(msg, Emote)
        seat, name = self._speaker(table, conn)
        self._to_all(table, {"type": "emote", "seat": seat, "name": name, "emote": msg.emote})

    async def _on_mute(self, table: Table, conn: Connection, msg: Any) -> None:
        assert conn.seat is not None and isinstance(msg, Mute)
        table.mute(conn.seat, msg.seat, msg.muted)
        self._changed(table, game=False)

    async def _on_watch(self, table: Table, conn: Connection, msg: Any) -> None:
        assert isinstance(msg, Watch)
        if conn.seat is not None:
            raise TableError("not_allowed", "a player's name is his seat's")
        if not conn.allow_chat(self.clock()):
            raise TableError("rate_limited", "too many name changes: wait a few seconds")
        conn.name = msg.name or ""
        self._watchers_changed(table)

    def _watchers_changed(self, table: Table) -> None:
        """Spectators came, went or gave a name: everyone's state says so within a second
        (one broadcast a second at most, however fast sockets open and close)."""
        code = table.code
        if code in self._watch_pending:
            return

        def flush() -> None:
            self._watch_pending.discard(code)
            t = self.tables.get(code)
            # Nothing to send when the list is as last sent (a player's socket is a
            # spectator's only until its hello).
            if t is not None and self.conns.get(code) and self._watching(t) != t.watching:
                t.version += 1
                self._broadcast(t)

        self._watch_pending.add(code)
        asyncio.get_running_loop().call_later(1.0, flush)

    async def _on_rematch(self, table: Table, conn: Connection, msg: Any) -> None:
        assert conn.seat is not None
        if table.status != "finished":
            raise TableError("not_allowed", "a rematch is for a finished match")
        if table.rematched is not None:
            raise TableError("not_allowed", f"the rematch has begun at table {table.rematched}")
        table.rematch.add(conn.seat)
        here = {c.seat for c in self.conns.get(table.code, ()) if c.seat is not None}
        if here <= table.rematch:
            self._start_rematch(table)
        table.version += 1
        self._broadcast(table)

    def _start_rematch(self, table: Table) -> None:
        """A new match for the players who accepted, in the same seats (a new table code:
        each match keeps its own record); bots take the other seats."""
        if self.may_create is not None:
            self.may_create(table.client)  # a rematch is a new table: the same limits
        new = Table(self._new_code(), table.settings, secrets.randbits(62))
        new.client = table.client
        new.alone_since = self.clock()
        tokens: dict[int, str] = {}
        for i in sorted(table.rematch):
            old = table.seats[i]
            if old.kind == "human":
                tokens[i] = secrets.token_hex(24)
                new.seats[i] = Seat(name=old.name, kind="human", token_hash=hash_token(tokens[i]))
        if not tokens:
            return
        new.host = table.host if table.host in tokens else min(tokens)
        new.start(new.host)
        if self.store is not None:
            for _ in range(8):
                try:
                    self.store.create_table(new)
                    break
                except StoreConflict:
                    new.code = self._new_code()
        if not self.clustered:
            self.tables[new.code] = new
        if self.created is not None:
            self.created(new.client, new.code)
        table.rematched = new.code
        for c in self.conns.get(table.code, ()):
            token = tokens.get(c.seat) if c.seat is not None else None
            c.push(
                _dumps(
                    {
                        "type": "rematch",
                        "code": new.code,
                        "seat": c.seat if token is not None else None,
                        "token": token,
                    }
                )
            )

    async def _on_transfer(self, table: Table, conn: Connection, msg: Any) -> None:
        assert conn.seat is not None
        if table.status not in ("waiting", "playing"):
            raise TableError("not_allowed", f"the table is {table.status}: no seat to carry")
        code, expires = table.transfers.issue(conn.seat, self.clock())
        # The code rides in the link's fragment, which browsers never send to a server.
        link = f"{conn.origin}/t/{table.code}#transfer={code}"
        conn.push(
            _dumps(
                {"type": "transfer", "code": code, "expires": expires, "qr": social.qr_svg(link)}
            )
        )

    async def _on_claim(self, table: Table, conn: Connection, msg: Any) -> None:
        assert isinstance(msg, Claim)
        if conn.seat is not None:
            raise TableError("not_allowed", "this connection already holds a seat")
        now = self.clock()
        key = conn.client or "?"
        times = self._bad_claims.get(key)
        if times is not None:
            while times and now - times[0] >= 60.0:
                times.popleft()
            if len(times) >= CLAIM_LIMIT:
                raise TableError(
                    "rate_limited", f"more than {CLAIM_LIMIT} wrong transfer codes in a minute"
                )
        seat = table.transfers.redeem(msg.code, now)
        if seat is None or table.seats[seat].kind != "human":
            if len(self._bad_claims) > 10_000:
                self._bad_claims.clear()  # bounded: a flood of addresses forgets old ones
            self._bad_claims.setdefault(key, deque()).append(now)
            raise TableError("bad_transfer", "this transfer code is wrong, used or expired")
        token = secrets.token_hex(24)
        s = table.seats[seat]
        s.token_hash = hash_token(token)  # the old device's token is dead
        for c in self.conns.get(table.code, ()):
            if c.seat == seat:
                c.seat = None
                c.error("moved_device", "your seat went to another device: you are watching")
        s.connections = 1
        conn.seat = seat
        handle = self._grace.pop((table.code, seat), None)
        if handle is not None:
            handle.cancel()
        s.away = False
        if self.store is not None:
            self.store.save_table(table)
        conn.push(_dumps({"type": "claimed", "seat": seat, "token": token}))
        self._changed(table, game=False)

    async def _on_coach(self, table: Table, conn: Connection, msg: Any) -> None:
        assert conn.seat is not None
        if not table.settings["practice"]:
            raise TableError("not_allowed", "the coach is for practice tables")
        if table.to_move != conn.seat:
            raise TableError("not_your_turn", "the coach advises on your own turn")
        advice = social.coach(table.view(conn.seat))
        conn.push(_dumps({"type": "coach", "version": table.version, **advice}))

    async def _on_report(self, table: Table, conn: Connection, msg: Any) -> None:
        assert conn.seat is not None
        state = table.state(conn.seat)
        if state["view"] is None:
            raise TableError("not_allowed", "the game has not started: no position yet")
        report = social.report(state["view"], state["legal"], state["legal_counts"])
        conn.push(_dumps({"type": "report", "report": report}))

    async def _on_moves(self, table: Table, conn: Connection, msg: Any) -> None:
        assert conn.seat is not None and isinstance(msg, MovesRequest)
        if table.to_move != conn.seat or table.position is None:
            raise TableError("not_your_turn", "moves are asked for on your own turn")
        card = parse_card(msg.card)
        codes, count = social.card_moves(table.position, card)
        conn.push(
            _dumps(
                {
                    "type": "moves",
                    "version": table.version,
                    "card": card_name(card),
                    "moves": [_move_dict(c) for c in codes],
                    "count": count,
                }
            )
        )

    _handlers: ClassVar[dict[str, Callable[[TableManager, Table, Connection, Any], Any]]] = {
        "move": _on_move,
        "start": _on_start,
        "sit": _on_sit,
        "kick": _on_kick,
        "hint": _on_hint,
        "undo": _on_undo,
        "next": _on_next,
        "chat": _on_chat,
        "emote": _on_emote,
        "mute": _on_mute,
        "watch": _on_watch,
        "rematch": _on_rematch,
        "transfer": _on_transfer,
        "claim": _on_claim,
        "coach": _on_coach,
        "report": _on_report,
        "moves": _on_moves,
    }

    # --- changes ------------------------------------------------------------------------------

    def _play(self, table: Table, code: int) -> None:
        """Store, make and broadcast a checked move of the seat to move."""
        seat = table.to_move
        assert seat is not None
        if self.store is not None:
            # Written before anything is sent: a move a player has seen is never lost.
            record = dict(Move(code).to_dict(), seat=seat)
            try:
                self.store.add_move(table, table.moves_made, record, table.version + 1)
            except StoreConflict as exc:
                # Another instance writes this table now: its stored moves are the truth.
                self.drop(table.code, str(exc))
                return
        table.apply(code)
        if table.settings["practice"] and table.deal_over():
            self._review(table)
        self._changed(table, game=True)

    def _review(self, table: Table) -> None:
        """Practice: review the deal just over for its player, in a worker thread (the loop
        goes on), and send it to his connections only (:mod:`seep.web.review`)."""
        session = table.session
        assert session is not None
        history = session.history
        seats = [i for i, s in enumerate(table.seats) if s.kind == "human"]
        if not history or not seats:
            return
        start = session.copy()
        start.undo(len(history))  # back to the deal's bid-phase position
        table.review = None
        task = asyncio.get_running_loop().create_task(
            self._reviewing(table, start.position, history, seats[0])
        )
        self._reviews.add(task)
        task.add_done_callback(self._reviews.discard)

    async def _reviewing(
        self, table: Table, start: Position, history: tuple[tuple[int, int], ...], seat: int
    ) -> None:
        try:
            found = await asyncio.wait_for(
                asyncio.to_thread(review.review_deal, start, history, seat),
                timeout=review.REVIEW_SECONDS * 4,
            )
        except Exception as exc:  # a busy server or a bug: the summary shows no review
            logging.getLogger("seep.web").warning("table %s: no review: %r", table.code, exc)
            return
        session = table.session
        if session is None or not session.deal_over or session.history != history:
            return  # taken back meanwhile (undo): the deal goes on
        table.review = {
            "type": "review",
            "deal": session.deals_finished,
            "seat": seat,
            "moves": len(history),
            **found,
        }
        for conn in self.conns.get(table.code, ()):
            self._send_review(table, conn)

    def _send_review(self, table: Table, conn: Connection) -> None:
        """The deal's review to ``conn`` if it holds the reviewed seat and the reviewed deal is
        still the one on show, over."""
        got = table.review
        session = table.session
        if got is None or session is None or conn.seat != got["seat"]:
            return
        if session.deal_over and len(session.history) == got["moves"]:
            conn.push(_dumps(got))

    def _advance(self, table: Table) -> None:
        table.review = None
        table.advance()
        if self.store is not None and table.status == "finished":
            try:
                self.store.finish(table, table.record())
            except StoreUnavailable as exc:
                # Every move is stored: the record is written when the database takes it.
                _log_store_problem(table.code, exc)
                task = asyncio.get_running_loop().create_task(self._finish_later(table))
                self._reviews.add(task)
                task.add_done_callback(self._reviews.discard)
        self._changed(table, game=True)

    async def _finish_later(self, table: Table) -> None:
        """Store a finished table's record, trying again with backoff while refused."""
        assert self.store is not None
        wait = STORE_RETRY_FIRST
        while True:
            await asyncio.sleep(wait)
            try:
                self.store.finish(table, table.record())
            except StoreUnavailable as exc:
                _log_store_problem(table.code, exc)
                wait = min(wait * 2, STORE_RETRY_MAX)
            except StoreConflict:
                return  # another instance holds the table now: its store is the truth
            else:
                return

    def _changed(self, table: Table, *, game: bool) -> None:
        """Bump the version, set the clock and the bots going, and send everyone his state."""
        table.version += 1
        if game:
            table.game_version = table.version
        self._drive(table)
        self._broadcast(table)
        if table.status == "finished" and not self.conns.get(table.code):
            self._forget(table)

    def _watching(self, table: Table) -> dict[str, Any]:
        watchers = [c for c in self.conns.get(table.code, ()) if c.seat is None]
        names = sorted({c.name for c in watchers if c.name})[:MAX_WATCHER_NAMES]
        return {"count": len(watchers), "names": names}

    def _broadcast(self, table: Table) -> None:
        conns = self.conns.get(table.code, ())
        table.watching = self._watching(table)
        for observe in self.observers:
            observe(table)
        texts: dict[int | None, str] = {}
        for conn in conns:
            text = texts.get(conn.seat)
            if text is None:
                text = texts[conn.seat] = _dumps(table.state(conn.seat))
            conn.push(text)

    # --- bots and clocks ----------------------------------------------------------------------

    def _drive(self, table: Table) -> None:
        """Schedule what happens next by itself: a bot's move, the clock's auto-play, or the
        next deal. Nothing moves while no seated player is connected: bots take an absent
        player's seat only while another one is here, and spectators never wake a table."""
        key: tuple[int, int, bool] | None = None
        delay = 0.0
        live = any(s.kind == "human" and s.connections > 0 for s in table.seats)
        seat = table.to_move
        if table.status == "playing" and live:
            if seat is not None:
                if table.by_bot(seat):
                    key, delay = (table.game_version, seat, True), self.bot_delay
                elif table.settings["turn_seconds"]:
                    key = (table.game_version, seat, False)
                    delay = table.settings["turn_seconds"]
            elif table.all_ready():
                # Nobody to wait for (bots and absent players only): show the summary a while.
                key, delay = (table.game_version, -1, True), self.bot_delay * 4
            elif table.deal_over() and self.ready_seconds > 0:
                # A player who never says "next" holds nobody up for longer than this.
                key, delay = (table.game_version, -2, False), self.ready_seconds
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
            await self._play_stored(table, key, int(decision.move))
        except asyncio.CancelledError:
            raise
        except StoreConflict as exc:
            self.drop(table.code, str(exc))
        except Exception as exc:  # a bug must not stop the loop; the table waits instead
            with contextlib.suppress(Exception):
                logging.getLogger("seep.web").exception(
                    "table %s: automatic move failed: %s", table.code, exc
                )

    async def _play_stored(self, table: Table, key: tuple[int, int, bool], move: int) -> None:
        """Play the driver's move, trying again with backoff while the database refuses the
        write (locked, disk full): the same move each time, so nothing is lost or played twice
        (the move is made only once stored), and the players are told once, then again when it
        goes on. The driver stays registered meanwhile, so no second one thinks for the seat."""
        wait = STORE_RETRY_FIRST
        told = False
        while table.game_version == key[0] and table.to_move == key[1]:
            self._drivers.pop(table.code, None)  # the move's own _drive schedules the next
            try:
                self._play(table, move)
            except StoreUnavailable as exc:
                task = asyncio.current_task()
                assert task is not None
                self._drivers[table.code] = _Driver(key, task)
                _log_store_problem(table.code, exc)
                if not told:
                    told = True
                    self._tell(table, "store_retrying", _STORE_RETRYING)
                await asyncio.sleep(wait)
                wait = min(wait * 2, STORE_RETRY_MAX)
                continue
            if told:
                self._tell(table, "store_recovered", "the moves are saved again: play goes on")
            return

    def _tell(self, table: Table, code: str, message: str) -> None:
        """An ``error`` message with ``code`` to everyone at the table."""
        for conn in self.conns.get(table.code, ()):
            conn.error(code, message)

    async def _think(self, table: Table, seat: int) -> Decision:
        view = table.view(seat)
        rng = table.rngs[seat]
        bots = table.settings["bots"]
        if bots in SLOW_BOTS:
            if self.bot_pool is not None:
                return await self.bot_pool.choose(bots, view, rng.getrandbits(63))
            return await asyncio.to_thread(table.bot.choose, view, rng)
        # Easy and medium bots take a fraction of a millisecond: a process hop costs more.
        return table.bot.choose(view, rng)
