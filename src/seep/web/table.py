"""A table: its seats and tokens, its settings, and the :class:`~seep.session.Session` it drives.

A plain synchronous state machine: no JSON, no asyncio, no rules. Every rule question goes to
the ``seep`` core (the session checks and makes the moves, knows when a deal and the match are
over); the table keeps seats, tokens, readiness and versions, and refuses what its state does
not allow with a :class:`TableError` (docs/web.md's error codes). The game itself (seats as
shown, the session, moves, deals) is :class:`~seep.web.game.GameTable`'s, which the browser's
offline host shares. What it shows goes through
:mod:`seep.web.wire`. The manager (:mod:`seep.web.tables`) stores and broadcasts its changes.
"""

from __future__ import annotations

import hashlib
import secrets
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from . import social
from .game import GameTable, Seat, TableError
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


class Table(GameTable):
    """One table: its game (:class:`~seep.web.game.GameTable`), the players' tokens, the
    seating before the start, chat, transfers and the rated match's result."""

    def __init__(self, code: str, settings: Mapping[str, Any], seed: int) -> None:
        super().__init__(code, settings, seed)
        self.client = ""  # the address that created it (limits per client)
        # Since when nobody who keeps it open has been connected (None: someone is); the
        # manager's sweep closes it after a while.
        self.alone_since: float | None = None
        # The latest chat lines, numbered from 1, so that a player may report one (the
        # operator reads its text, its speaker and his address: seep.web.moderation).
        self.chat_count = 0
        self.chat_lines: deque[ChatEntry] = deque(maxlen=CHAT_KEPT)
        self.rematched: str | None = None  # the rematch's table code, once started
        # Practice: the review of the deal on show once it is over (seep.web.review), with
        # the moves it judged, for the seat's reconnections.
        self.review: dict[str, Any] | None = None
        self.transfers = social.Transfers()

    # --- seats ------------------------------------------------------------------------------

    @classmethod
    def from_stored(cls, row: Mapping[str, Any]) -> Table:
        """A stored table (the store's ``live_tables`` row) rebuilt, a playing one by replaying
        its moves through the engine; a move that no longer replays raises (a
        :class:`~seep.errors.SeepError`, or ``KeyError``/``TypeError``/``ValueError`` for a
        malformed row)."""
        table = cls(row["code"], row["settings"], row["seed"])
        table.host = row["host"]
        table.seats = [
            Seat(
                name=s["name"],
                kind=s["kind"],
                token_hash=s["token_hash"],
                account=s.get("account"),  # stored before accounts: none
                forfeited=bool(s.get("forfeited", False)),  # stored before fair play: no
            )
            for s in row["seats"]
        ]
        if row["status"] == "playing":
            table.status = "playing"
            table.restore(row["moves"])
        return table

    def seat_of_token(self, token: str) -> int | None:
        """The seat a token belongs to, or ``None``."""
        h = hash_token(token)
        for i, seat in enumerate(self.seats):
            if seat.token_hash is not None and secrets.compare_digest(seat.token_hash, h):
                return i
        return None

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
