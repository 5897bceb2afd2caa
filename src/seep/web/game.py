"""A table's game: its seats as the wire shows them, its settings and the
:class:`~seep.session.Session` it drives, with the standard library and the core only.

:class:`GameTable` is what the server's table (:class:`seep.web.table.Table`, which adds
tokens, seating, chat and ratings) and the browser's offline host (:mod:`seep.web.offline`,
under Pyodide: no pydantic, no openskill, no asyncio) share, so that both check and make
moves, deal, and write their ``state`` messages (:mod:`seep.web.wire`) with the same code.
A plain synchronous state machine: every rule question goes to the ``seep`` core.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..bots import Bot, Decision, make_bot
from ..engine import Position
from ..errors import IllegalMoveError, MalformedMoveError, SeepError
from ..options import PRESETS
from ..session import Session
from ..view import View
from . import wire

__all__ = ["GameTable", "Seat", "TableError"]


class TableError(SeepError):
    """A refused request: ``code`` is one of docs/web.md's error codes; ``reason`` the rules
    checker's refusal (:func:`seep.web.wire.reason_dict`) when a rule refused it."""

    def __init__(self, code: str, message: str, reason: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.reason = reason


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


class GameTable:
    """A table's game: its seats (four, or two with a two-player preset, R2P1), the settings
    and, once started, the running match (:class:`seep.web.table.Table` adds the rest)."""

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
        self.muted: set[int] = set()  # seats whose chat the host muted
        self.watching: dict[str, Any] = {"count": 0, "names": []}  # kept by the manager
        self.rematch: set[int] = set()  # after the match: seats that asked for a rematch
        # Quick match (issue 22 item 6): when its countdown fills the empty seats with bots and
        # starts (the manager's clock); None for a table its host starts.
        self.starts_at: float | None = None

    def _check_seat(self, seat: int) -> None:
        # The messages allow seats 0-3; a two-player table has only 0 and 1 (R2P1).
        if not 0 <= seat < self.players:
            raise TableError(
                "bad_request",
                f"no seat {seat}: this table has {self.players} seats (0-{self.players - 1})",
            )

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

    # --- restoring --------------------------------------------------------------------------

    def restore(self, moves: list[dict[str, Any]]) -> None:
        """Replay stored moves (a restart): the same engine checks as when they were made."""
        session = self.session if self.session is not None else self._new_session()
        session.restore(moves)
