"""A table: its seats and tokens, its settings, and the :class:`~seep.session.Session` it drives.

A plain synchronous state machine: no JSON, no asyncio, no rules. Every rule question goes to
the ``seep`` core (the session checks and makes the moves, knows when a deal and the match are
over); the table keeps seats, tokens, readiness and versions, and refuses what its state does
not allow with a :class:`TableError` (docs/web.md's error codes). What it shows goes through
:mod:`seep.web.wire`. The manager (:mod:`seep.web.tables`) stores and broadcasts its changes.
"""

from __future__ import annotations

import hashlib
import random
import secrets
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from ..bots import Bot, Decision, make_bot
from ..engine import Position
from ..errors import IllegalMoveError, MalformedMoveError, SeepError
from ..options import PRESETS
from ..session import Session
from ..view import View
from . import social, wire
from .matchmaking import Arrangement, Player, arrange
from .messages import BadInput, CreateTable, parse_body
from .ratings import MODEL, RatedMatch, TeamTotals, bot_rating, format_of

__all__ = [
    "CHAT_KEPT",
    "ChatEntry",
    "Seat",
    "Table",
    "TableError",
    "checked",
    "hash_token",
    "parse_settings",
    "settings_of",
]

M = TypeVar("M")
CHAT_KEPT = 200  # chat lines a table remembers for reports (a report of an older one is refused)


@dataclass(frozen=True)
class ChatEntry:
    """A chat line as the server numbered it: who said it (his seat, name, account and
    address as the server saw it) and what."""

    line: int
    seat: int
    name: str
    account: int | None
    client: str
    text: str


class TableError(SeepError):
    """A refused request: ``code`` is one of docs/web.md's error codes; ``reason`` the rules
    checker's refusal (:func:`seep.web.wire.reason_dict`) when a rule refused it."""

    def __init__(self, code: str, message: str, reason: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.reason = reason


def hash_token(token: str) -> str:
    """The stored form of a seat token (the server never keeps the token itself)."""
    return hashlib.sha256(token.encode()).hexdigest()


def checked(parse: Callable[[Any], M], data: Any) -> M:
    """``parse(data)`` with a refusal turned into the :class:`TableError` of the same code."""
    try:
        return parse(data)
    except BadInput as exc:
        raise TableError(exc.code, exc.message) from None


def parse_settings(body: Mapping[str, Any]) -> dict[str, Any]:
    """A table's settings from a create request (:class:`~seep.web.messages.CreateTable`);
    raises :class:`TableError` ``bad_request`` naming the field.

    Keys: ``preset`` (a rules preset), ``bots`` (difficulty or bot name), ``deals`` or
    ``baazis`` (how long the match runs; default one baazi), ``practice``, ``turn_seconds``,
    ``public``, ``rated``.
    """
    return settings_of(checked(lambda d: parse_body(CreateTable, d), dict(body)))


def settings_of(req: CreateTable) -> dict[str, Any]:
    """The settings of a checked create request."""
    return {
        "preset": req.preset,
        "bots": req.bots,
        "deals": req.deals,
        "baazis": req.baazis if req.deals is not None or req.baazis is not None else 1,
        "practice": req.practice,
        "turn_seconds": req.turn_seconds,
        "public": req.public and not req.practice,
        "rated": req.rated,
    }


@dataclass
class Seat:
    """One seat (of four, or two under docs/rules.md §12): who sits there and whether he is
    here."""

    name: str = ""
    kind: str = "empty"  # "human", "bot" or "empty"
    token_hash: str | None = None
    account: int | None = None  # the signed-in player's account (None: a guest, a bot)
    connections: int = 0
    away: bool = False  # a human gone longer than the grace period: a bot plays for him
    # Gone from a rated match past the grace period and the forfeit limit: it counts as lost
    # for him (seep.web.ratings), also if he comes back later.
    forfeited: bool = False
    # The signed-in player's rating in the table's format, shown beside his name: (the shown
    # number, provisional); read when he sits down and again when a rated match ends.
    rating: tuple[int, bool] | None = None
    # Rated quick match (seep.web.matchmaking): his rating's (mu, sigma), read with ``rating``,
    # and when he sat down (the manager's clock), from which his accepted gap widens.
    skill: tuple[float, float] | None = None
    joined: float | None = None


class Table:
    """One table: its seats (four, or two with a two-player preset, R2P1), the settings and,
    once started, the running match."""

    def __init__(self, code: str, settings: Mapping[str, Any], seed: int) -> None:
        self.code = code
        self.settings = dict(settings)
        # Settings stored before presets were chosen per table lack one: the standard game.
        self.settings.setdefault("preset", "standard")
        self.settings.setdefault("rated", False)  # nor were tables rated before accounts
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
        # The latest chat lines, numbered from 1, so that a player may report one (the
        # operator reads its text, its speaker and his address: seep.web.moderation).
        self.chat_count = 0
        self.chat_lines: deque[ChatEntry] = deque(maxlen=CHAT_KEPT)
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

    def join(
        self, name: str, seat: int | None = None, account: int | None = None
    ) -> tuple[int, str]:
        """Seat a human (the first free seat when ``seat`` is ``None``), a signed-in player's
        ``account`` with him; returns his token."""
        if seat is not None:
            self._check_seat(seat)
        if self.status != "waiting":
            raise TableError("not_allowed", "the game has started: no seat to take")
        if self.settings["practice"] and any(s.kind == "human" for s in self.seats):
            raise TableError("not_allowed", "a practice table is one player against bots")
        if self.settings["rated"]:
            if account is None:
                raise TableError(
                    "not_signed_in", "a rated table is for signed-in players: sign in first"
                )
            if any(s.account == account for s in self.seats):
                raise TableError("not_allowed", "your account already has a seat at this table")
        if seat is None:
            free = [i for i, s in enumerate(self.seats) if s.kind == "empty"]
            if not free:
                raise TableError("seat_taken", "every seat is taken")
            seat = free[0]
        if self.seats[seat].kind != "empty":
            raise TableError("seat_taken", f"seat {seat} is taken")
        token = secrets.token_urlsafe(24)
        self.seats[seat] = Seat(
            name=name, kind="human", token_hash=hash_token(token), account=account
        )
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

    def balance(self) -> Arrangement:
        """Seat the humans of a rated quick-match table about to start so that the teams are
        as even as their ratings allow (:func:`seep.web.matchmaking.arrange`; the empty seats'
        bots at their fixed rating). Players keep their tokens, the host and mutes follow their
        players; transfer codes, which name seats, are dropped. Returns the arrangement."""
        if self.status != "waiting":
            raise TableError("not_allowed", "seats can change only before the start")
        fmt = format_of(self.players)
        bot = bot_rating(self.settings["bots"], fmt)
        humans = [
            Player(*(s.skill or (MODEL.mu, MODEL.sigma))) if s.kind == "human" else None
            for s in self.seats
        ]
        done = arrange(humans, Player(bot.mu, bot.sigma))
        if done.moved:
            new = done.order.index
            self.seats = [self.seats[old] for old in done.order]
            self.host = new(self.host)
            self.muted = {new(m) for m in self.muted}
            for seat in range(self.players):
                self.transfers.drop_seat(seat)
        return done

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
        # The turn is checked here, once: the session checks the move itself.
        return self._by_the_rules(data)

    def check_code(self, code: int) -> int:
        """``code`` if it is a legal move of the seat to move (a bot's choice: membership
        in the position's moves, nothing generated); raises :class:`TableError` as
        :meth:`check_move` does."""
        if self.session is None or self.to_move is None:
            raise TableError("not_allowed", f"the table is {self.status}: no moves now")
        return self._by_the_rules(code)

    def _by_the_rules(self, move: Any) -> int:
        """The session's check of a move of the seat to move, its refusal a TableError."""
        assert self.session is not None
        try:
            return self.session.verify(move)
        except MalformedMoveError as exc:  # before its base class
            raise TableError("malformed_move", str(exc)) from None
        except IllegalMoveError as exc:
            refusal = exc.refusal  # None for a refusal that is no rule's
            reason = wire.reason_dict(refusal) if refusal is not None else None
            raise TableError("illegal_move", str(exc), reason) from None

    def apply(self, code: int) -> tuple[int, int]:
        """Make a move checked by :meth:`check_move` or :meth:`check_code` for the seat to
        move; returns (seat, code)."""
        assert self.session is not None
        entry = self.session.play(code)
        self.ready.clear()
        return entry

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

    def leave_deal(self) -> None:
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

    def public(self) -> dict[str, Any]:
        """The table as anyone may see it (:func:`seep.web.wire.table_public`)."""
        return wire.table_public(self)

    def state(self, seat: int | None) -> dict[str, Any]:
        """The ``state`` message for a connection at ``seat`` (``None``: a spectator), as
        :func:`seep.web.wire.state` writes it."""
        return wire.state(self, seat)

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

    def rated_match(
        self, record: dict[str, Any] | None, closing: bool = False
    ) -> RatedMatch | None:
        """The match at its end as its ratings need it (``None``: not a rated table, or not
        over): each seat's account (a bot's, or a deleted account's: ``None``), the winning
        team (:attr:`seep.session.Standing.leader`), the seats that forfeited it, and the teams'
        totals over the finished deals of ``record`` (:meth:`record`, which the caller has built
        to store it anyway: a long match's record is tens of KB).

        ``closing``: the table closes unfinished because every player left it; each of them
        forfeits it (``None`` if it never started)."""
        if not self.settings["rated"] or self.session is None:
            return None
        if not closing and not self.session.match_over:
            return None
        humans = [i for i, s in enumerate(self.seats) if s.kind == "human"]
        gone = humans if closing else [i for i in humans if self.seats[i].forfeited]
        standing = self.session.standing()
        results = [d["result"] for d in (record or self.record())["deals"]]
        totals = tuple(
            TeamTotals(
                standing.baazis[team],
                sum(r["points"][team] for r in results),
                sum(r["sweeps"][team] for r in results),
            )
            for team in (0, 1)
        )
        return RatedMatch(
            format_of(self.players),
            tuple(s.account if s.kind == "human" else None for s in self.seats),
            self.settings["bots"],
            standing.leader if self.session.match_over else None,
            frozenset(gone),
            len(results),
            totals,
        )

    # --- restoring --------------------------------------------------------------------------

    def restore(self, moves: list[dict[str, Any]]) -> None:
        """Replay stored moves (a restart): the same engine checks as when they were made."""
        session = self.session if self.session is not None else self._new_session()
        session.restore(moves)
