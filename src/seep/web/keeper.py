"""The tables in memory and the one path every change takes: check, store, apply, drive, send.

:class:`TableKeeper` is the core of :class:`seep.web.tables.TableManager`: it holds the live
tables, their :class:`~seep.web.hub.Hub` of connections, their
:class:`~seep.web.driver.Driver` of timers, and makes every change the same way. A move is
checked once (a player's by the table: turn, version, rules; a bot's by membership), written
by the moves' thread (:class:`~seep.web.group_commit.GroupCommit`) *before* anything is sent
(a move a player has seen is never lost), made, then :meth:`TableKeeper._changed` bumps the
version, sets the bots and the clock going and broadcasts. The socket message handlers
(:mod:`seep.web.handlers`) and the manager call it; it calls neither.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from ..errors import SeepError
from . import practice, wire
from .botpool import BotPool
from .cluster import Leases
from .driver import STORE_RETRY_FIRST as STORE_RETRY_FIRST
from .driver import STORE_RETRY_MAX as STORE_RETRY_MAX
from .driver import Callbacks, Driver, finish_later, log_store_problem
from .group_commit import GroupCommit, Then, settle
from .hub import RATE_LIMIT, Connection, Hub
from .limits import MessageBudget, SocketCounts
from .matchmaking import Policy
from .metrics import Metrics
from .moderation import Moderation
from .pusher import Pusher
from .shown_ratings import show_ratings
from .store import Store, StoreConflict, StoreUnavailable
from .table import Table, TableError
from .tablecodes import CODE_ALPHABET, new_code, store_new
from .thinking import Thinker

__all__ = ["CLOSE_MOVED", "CODE_ALPHABET", "Handler", "TableKeeper"]

# WebSocket close code for a table this server no longer holds (RFC 6455 "service restart"):
# the client reconnects, and the proxy sends it to the table's new owner.
CLOSE_MOVED = 1012


class TableKeeper:
    """The live tables and the commit path (see the module). The parameters are
    :class:`~seep.web.tables.TableManager`'s."""

    def __init__(
        self,
        store: Store | None = None,
        *,
        bot_delay: float = 0.6,
        grace_seconds: float = 30.0,
        forfeit_seconds: float = 120.0,
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
        match_gap: float = 200.0,
        match_widen: float = 10.0,
        metrics: Metrics | None = None,
    ) -> None:
        self.store = store
        # The app's metrics (seep.web.metrics); a manager of its own otherwise.
        self.metrics = metrics if metrics is not None else Metrics()
        self.bot_delay = bot_delay
        self.grace_seconds = grace_seconds
        # A rated match's player gone this long past his grace period has forfeited it.
        self.forfeit_seconds = forfeit_seconds
        # Tables whose absent players get no bot (an event's without bots, docs/web.md
        # "Events"): such a player's grace period is followed by the forfeit's wait instead.
        self.no_bots: set[str] = set()
        # The app sets it: whether a table not in no_bots is one (a table another instance
        # opened and this one took over), asked when a grace period ends.
        self.no_bots_of: Callable[[str], bool] | None = None
        self.rate_limit = rate_limit
        self.ready_seconds = ready_seconds
        self.waiting_seconds = waiting_seconds
        self.abandoned_seconds = abandoned_seconds
        self.bot_pool = bot_pool
        self.thinker = Thinker(bot_pool, self.metrics)
        self.max_slow_tables = max_slow_tables
        self.quick_seconds = quick_seconds
        # Rated quick match: how far apart in rating players may sit together, at once and
        # widening with the wait (seep.web.matchmaking).
        self.match_policy = Policy(match_gap, match_widen)
        self.clock = clock
        self.tables: dict[str, Table] = {}
        self.hub = Hub()
        # The moves' writer thread (group commit), and the tables with a move in it.
        self.moves = GroupCommit(store) if store is not None else None
        self._writing: set[str] = set()
        self.driver = Driver(
            Callbacks(
                think=self.thinker.think,
                think_now=self.thinker.now,
                commit=self.commit,
                commit_then=self.commit_then,
                writing=self.writing,
                leave_deal=self._leave_deal,
                tell=self.hub.tell,
                drop=self.drop,
                grace_over=self._grace_over,
                forfeit_over=self._forfeit_over,
                countdown_over=self._countdown_over,
            ),
            lambda: self.clock(),
        )
        self._reviews: set[asyncio.Task[None]] = set()  # practice reviews being made
        # Called with (client, what) for malformed messages; the app limits it to a line a
        # minute per client.
        self.log_bad_input: Callable[[str, str], None] | None = None
        self.lease_seconds = lease_seconds
        self._bad_claims: dict[str, deque[float]] = {}  # client -> times of wrong codes
        # Per client key, all its sockets together (the app sets them from its SEEP_*
        # settings; 0: no limit): sockets server-wide and per table, one message budget.
        self.sockets = SocketCounts(0, 0)
        self.budget = MessageBudget(0)
        self.spectators_per_client = 0  # spectator sockets per client key per table
        self.max_connections = 200  # sockets per table, hub.SEAT_RESERVE beside
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
        # Several instances: the leases of the tables held here.
        self.leases = (
            Leases(
                store,
                self.tables,
                self._restore,
                self.drop,
                lambda: self.metrics.handed_over("in"),
            )
            if store is not None and store.owner is not None
            else None
        )
        self.draining = False  # stopping: not ready for the proxy (TableManager.drain)
        # The operator's bans and mutes, as this instance last read them (the app sets it).
        self.moderation: Moderation | None = None
        # Web Push (seep.web.push): when away players are notified (the app sets it).
        self.pusher: Pusher | None = None

    @property
    def conns(self) -> dict[str, set[Connection]]:
        """Each table's connections, by code (the hub's)."""
        return self.hub.conns

    @property
    def observers(self) -> list[Callable[[Table], None]]:
        """Called with each table just before its state is sent."""
        return self.hub.observers

    @property
    def _drivers(self) -> Mapping[str, object]:
        return self.driver.tasks

    @property
    def clustered(self) -> bool:
        """True when several instances share the database (the store has an owner id)."""
        return self.store is not None and self.store.owner is not None

    def get(self, code: str) -> Table:
        """A live table by code (any case), or :class:`TableError` ``unknown_table``."""
        table = self.tables.get(code.upper())
        if table is None:
            raise TableError("unknown_table", f"no table {code}")
        return table

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

    # --- the commit path ----------------------------------------------------------------------

    def commit(
        self, table: Table, move: Any, *, seat: int | None = None, version: int = 0
    ) -> asyncio.Future[None]:
        """Make a move at ``table``, checked once: a player's (``seat`` given) by the table
        (turn, ``version``, the rules: :meth:`Table.check_move`), a bot's code by membership
        (:meth:`Table.check_code`); the check's :class:`TableError` is raised here. Then
        stored (:class:`~seep.web.group_commit.GroupCommit`), made, driven and broadcast: the
        future returned is done then, or failed with :class:`StoreUnavailable` (nothing of the
        move made: it may be sent again). While a move is written, another there is ``stale``."""
        made: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.commit_then(table, move, functools.partial(settle, made), seat=seat, version=version)
        return made

    def commit_then(
        self, table: Table, move: Any, then: Then, *, seat: int | None = None, version: int = 0
    ) -> None:
        """:meth:`commit` with its outcome told to ``then`` (``None``: made; else what failed
        it), not a future: a bot's move, three of a table's four, needs none."""
        if table.code in self._writing:
            raise TableError("stale", "a move is being made at this table: wait for its state")
        code = table.check_code(move) if seat is None else table.check_move(seat, move, version)
        if self.moves is None:
            self._make(table, code)
            then(None)
            return
        mover, seq = table.to_move, table.moves_made
        assert mover is not None
        text = wire.stored_move_text(mover, code)  # what the store writes of it

        def stored(outcome: Exception | None) -> None:
            self._writing.discard(table.code)
            failed: Exception | None = None
            try:
                if isinstance(outcome, StoreConflict):
                    # Another instance writes this table now: its stored moves are the truth.
                    self.drop(table.code, str(outcome))
                elif outcome is not None:
                    failed = outcome
                    if seat is not None:
                        # A clock that ran out meanwhile found the table busy: it starts
                        # again (the driver tries its own moves again itself).
                        self.driver.drive(table, self.bot_delay, self.ready_seconds)
                elif self.tables.get(table.code) is table and table.moves_made == seq:
                    self._make(table, code)
                # else: closed or handed over meanwhile; the store has the move, as the truth
            except Exception as exc:
                failed = exc
            then(failed)

        # Written before anything is sent: a move a player has seen is never lost.
        self._writing.add(table.code)
        self.moves.write(table.code, seq, text, table.version + 1, stored)

    def writing(self, table: Table) -> bool:
        """True while a move of ``table`` is being written (:meth:`commit`)."""
        return table.code in self._writing

    def _make(self, table: Table, code: int) -> None:
        """Make a checked (and stored) move, and tell everyone."""
        table.apply(code)
        self.metrics.moved()
        if table.settings["practice"] and table.deal_over():
            self._review(table)
        self._changed(table, game=True)

    def _changed(self, table: Table, *, game: bool) -> None:
        """Bump the version, set the clock and the bots going, and send everyone his state."""
        table.version += 1
        if game:
            table.game_version = table.version
        self.driver.drive(table, self.bot_delay, self.ready_seconds)
        if game and self.pusher is not None:
            self.pusher.changed(table)
        self.hub.broadcast(table)
        if table.status == "finished" and not self.hub.conns.get(table.code):
            self._forget(table)

    def _begin(self, table: Table, seat: int) -> None:
        """Start ``table`` as ``seat`` (its host, or quick match's countdown for him). A rated
        quick-match table seats its players for even teams first (:meth:`Table.balance`)."""
        if table.settings["rated"] and table.starts_at is not None and seat == table.host:
            order = table.balance().order
            # Each page learns its seat from its state: the sockets follow their players.
            for c in self.hub.of(table.code):
                if c.seat is not None:
                    c.seat = order.index(c.seat)
            seat = table.host
        table.start(seat)
        self.driver.end_countdown(table.code)
        if self.pusher is not None:
            self.pusher.started(table)
        if self.store is not None:
            self.store.save_table(table)
        for i, s in enumerate(table.seats):
            if s.kind == "human" and s.connections == 0:
                self._start_grace(table, i)  # a player who joined and never came: as if gone
        self._changed(table, game=True)

    def _leave_deal(self, table: Table) -> None:
        """Leave a finished deal: the next deal, or the end of the match (its record stored)."""
        table.review = None
        table.leave_deal()
        if self.store is not None and table.status == "finished":
            try:
                record = table.record()
                self.store.finish(table, record, table.rated_match(record))
            except StoreUnavailable as exc:
                # Every move is stored: the record is written when the database takes it.
                log_store_problem(table.code, exc)
                self._background(finish_later(self.store, table))
            else:
                if table.settings["rated"]:
                    self.show_rating(table)  # the names show the new ratings
        self._changed(table, game=True)

    def _background(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._reviews.add(task)
        task.add_done_callback(self._reviews.discard)

    def _review(self, table: Table) -> None:
        practice.review(table, self._background, self._send_reviews)

    def _send_reviews(self, table: Table) -> None:
        for conn in self.hub.of(table.code):
            practice.send_review(table, conn)

    # --- presence -----------------------------------------------------------------------------

    def _start_grace(self, table: Table, seat: int) -> None:
        self.driver.start_grace(table.code, seat, self.grace_seconds)

    def _grace_over(self, code: str, seat: int) -> None:
        table = self.tables.get(code)
        if table is None or table.status != "playing":
            return
        s = table.seats[seat]
        if code not in self.no_bots and self.no_bots_of is not None and self.no_bots_of(code):
            self.no_bots.add(code)
        if s.kind == "human" and s.connections == 0 and code in self.no_bots:
            if not s.forfeited:  # nobody plays for him: he forfeits unless back in time
                self.driver.start_forfeit(code, seat, self.forfeit_seconds)
            return
        if s.kind == "human" and s.connections == 0 and not s.away:
            s.away = True
            if table.settings["rated"] and not s.forfeited:
                self.driver.start_forfeit(code, seat, self.forfeit_seconds)
            self._changed(table, game=False)

    def show_rating(self, table: Table) -> None:
        """Read the seats' ratings for their names (:func:`seep.web.shown_ratings.show_ratings`)."""
        if self.store is not None:
            show_ratings(table, self.store)

    def _forfeit_over(self, code: str, seat: int) -> None:
        """A rated match's player did not come back: the match counts as lost for him
        (docs/web.md "Fair play"), kept with the table's seats so that a restart knows it."""
        table = self.tables.get(code)
        if table is None or table.status != "playing":
            return
        s = table.seats[seat]
        if s.kind != "human" or s.connections > 0 or s.forfeited:
            return
        s.forfeited = True
        if self.store is not None:
            try:
                self.store.save_table(table)
            except StoreUnavailable as exc:
                log_store_problem(table.code, exc)  # the seats go with the match's end anyway
            except StoreConflict:
                pass  # another instance holds the table now: its seats are its own
        self._changed(table, game=False)

    def _countdown_over(self, code: str) -> None:
        table = self.tables.get(code)
        if table is None or table.status != "waiting" or table.starts_at is None:
            return  # started by its host meanwhile, or gone
        try:
            self._begin(table, table.host)
        except Exception as exc:  # a timer's failure must not stop the loop
            logging.getLogger("seep.web").exception("table %s: quick start failed: %s", code, exc)

    # --- tables entering and leaving memory ---------------------------------------------------

    def _new_code(self) -> str:
        store = self.store
        return new_code(lambda c: c in self.tables or (store is not None and store.exists(c)))

    def _store_new(self, table: Table) -> None:
        if self.store is not None:
            store_new(self.store, table, self._new_code)

    def _restore(self, row: Mapping[str, Any]) -> Table | None:
        """A stored table rebuilt by replaying its moves and put in memory (its players' grace
        periods start now: nobody is connected yet), or ``None`` (logged) when its moves no
        longer replay."""
        try:
            table = Table.from_stored(row)
        except (SeepError, KeyError, TypeError, ValueError) as exc:
            logging.getLogger("seep.web").error(
                "table %s not resumed: its moves do not replay: %s", row["code"], exc
            )
            return None
        table.version = table.game_version = row["version"] + 1
        self.show_rating(table)
        table.alone_since = self.clock()  # a restart gives everyone the full time again
        self.tables[table.code] = table
        if self.pusher is not None:
            self.pusher.loaded(table)
        for i, s in enumerate(table.seats):
            if s.kind == "human" and table.status == "playing":
                self._start_grace(table, i)
        return table

    def _forget(self, table: Table) -> None:
        """Drop a table that is over from memory (the store keeps it), ending its timers and
        its connections; with several instances its lease goes too."""
        self._teardown(table.code)
        self.hub.close_all(table.code)
        if self.clustered and self.store is not None:
            with contextlib.suppress(Exception):  # an unreleased lease just runs out
                self.store.release_lease(table.code)

    def _teardown(self, code: str) -> None:
        """A table leaves memory: its bot driver and grace timers stop."""
        self.tables.pop(code, None)
        self._host_left.pop(code, None)
        self.driver.teardown(code)
        if self.pusher is not None:
            self.pusher.forget(code)

    def drop(self, code: str, reason: str) -> None:
        """Forget a table this instance no longer holds: its timers stop and its clients are
        told to reconnect (the proxy sends them to the holder). Everything is in the store."""
        if code not in self.tables:
            return
        logging.getLogger("seep.web").info("table %s left this server: %s", code, reason)
        self.metrics.handed_over("out")
        self._teardown(code)
        self.hub.close_all(code, CLOSE_MOVED, "the table moved to another server: reconnecting")


#: A socket message's handler (:mod:`seep.web.game_handlers`, :mod:`seep.web.social_handlers`):
#: the keeper, the table, the sender's connection and the parsed message.
Handler = Callable[[TableKeeper, Table, Connection, Any], Awaitable[None]]
