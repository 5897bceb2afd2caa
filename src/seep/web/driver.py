"""What moves a table by itself: the bots, the turn clock, the grace period and the timeouts.

A :class:`Driver` holds the timers of every table: one timer per table for what happens next
by itself (a bot's move, the clock's auto-play, the next deal once nobody is waited for, the
end of the wait for ``next``; a task once it must wait, for the bot pool or a write the
database refused), the grace period of each absent player, and quick match's countdowns. It
is handed callbacks (:class:`Callbacks`) for what it does (think for a seat, commit a move,
leave a finished deal, tell the players, drop a table) and imports no manager.

A move the database refuses (locked, disk full) is tried again with backoff
(:data:`STORE_RETRY_FIRST` doubling to :data:`STORE_RETRY_MAX`, docs/web.md "Liveness").
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass

from ..bots import Decision
from .store import Store, StoreConflict, StoreUnavailable
from .table import Table

__all__ = [
    "BOT_TIMER_SLACK",
    "STORE_RETRYING",
    "STORE_RETRY_FIRST",
    "STORE_RETRY_MAX",
    "STORE_UNAVAILABLE",
    "Callbacks",
    "Driver",
    "finish_later",
    "log_store_problem",
]

#: A bot's timer ends on the nearest multiple of this many seconds of the loop's clock (timer
#: slack): the bots of every table that are due within the same 20 ms then move in one pass of
#: the event loop, one after the other, while the bot's code and the commit path are still in
#: the processor's caches, and the loop wakes once for them rather than once each. At 600
#: tables that is about a tenth of the server's CPU a move (docs/web.md "Broadcast cost"). A
#: bot's pause becomes ``bot_delay`` ± 10 ms, ``bot_delay`` on average, which nobody sees; a
#: pause shorter than five ticks (tests, a server run with a short ``--bot-delay``) is exact.
BOT_TIMER_SLACK = 0.02

STORE_RETRY_FIRST = 0.25
STORE_RETRY_MAX = 4.0
STORE_LOG_SECONDS = 10.0  # a failing database is logged once per table this often
STORE_UNAVAILABLE = "the server could not save that (its database is busy or full): try again"
STORE_RETRYING = "the server cannot save moves right now (its database is busy or full): retrying"
_store_logged: dict[str, float] = {}


def log_store_problem(code: str, exc: StoreUnavailable) -> None:
    """Log a refused write, at most once per table every :data:`STORE_LOG_SECONDS`: a full
    disk must not fill the log too."""
    now = time.monotonic()
    if now - _store_logged.get(code, -STORE_LOG_SECONDS) < STORE_LOG_SECONDS:
        return
    if len(_store_logged) > 10_000:
        _store_logged.clear()
    _store_logged[code] = now
    logging.getLogger("seep.web").warning("table %s: the database refused a write: %s", code, exc)


@dataclass(frozen=True)
class Callbacks:
    """What the driver asks of the table's owner."""

    think: Callable[[Table, int], Awaitable[Decision]]  # a bot's choice for a seat
    # The choice at once from a bot that answers in a fraction of a millisecond; None for
    # one that thinks elsewhere (then ``think`` is awaited).
    think_now: Callable[[Table, int], Decision | None]
    # Check, store, apply and broadcast a move: done once made, failed if not stored.
    commit: Callable[[Table, int], asyncio.Future[None]]
    # The same, its outcome told to the function given (None: made) rather than a future.
    commit_then: Callable[[Table, int, Callable[[Exception | None], None]], None]
    writing: Callable[[Table], bool]  # a move of the table is being written
    leave_deal: Callable[[Table], None]
    tell: Callable[[str, str, str], None]  # (table code, error code, words) to all
    drop: Callable[[str, str], None]  # (table code, why): another instance holds it
    grace_over: Callable[[str, int], None]  # (table code, seat): its grace period ran out
    forfeit_over: Callable[[str, int], None]  # (table code, seat): he did not come back
    countdown_over: Callable[[str], None]  # a quick match's countdown ran out


class _Task:
    """What happens next at a table by itself: its timer, then its task if it needs one."""

    __slots__ = ("key", "task")

    def __init__(
        self, key: tuple[int, int, bool], task: asyncio.TimerHandle | asyncio.Task[None]
    ) -> None:
        self.key = key  # (game version, seat, by bot) it was scheduled for
        self.task = task


def _live(table: Table) -> bool:
    """A seated player is connected (a loop, not ``any``: it runs for every move)."""
    for s in table.seats:  # noqa: SIM110
        if s.connections > 0 and s.kind == "human":
            return True
    return False


class Driver:
    """Every table's timers. ``clock`` gives the time shown as a deadline."""

    def __init__(self, callbacks: Callbacks, clock: Callable[[], float]) -> None:
        self.on = callbacks
        self.clock = clock
        self.tasks: dict[str, _Task] = {}
        self._grace: dict[tuple[str, int], asyncio.TimerHandle] = {}
        self._countdowns: dict[str, asyncio.TimerHandle] = {}

    def drive(self, table: Table, bot_delay: float, ready_seconds: float) -> None:
        """Schedule what happens next by itself: a bot's move, the clock's auto-play, or the
        next deal. Nothing moves while no seated player is connected: bots take an absent
        player's seat only while another one is here, and spectators never wake a table."""
        key: tuple[int, int, bool] | None = None
        delay = 0.0
        seat = table.to_move
        if table.status == "playing" and _live(table):
            if seat is not None:
                if table.by_bot(seat):
                    key, delay = (table.game_version, seat, True), bot_delay
                elif table.settings["turn_seconds"]:
                    key = (table.game_version, seat, False)
                    delay = table.settings["turn_seconds"]
            elif table.all_ready():
                # Nobody to wait for (bots and absent players only): show the summary a while.
                key, delay = (table.game_version, -1, True), bot_delay * 4
            elif table.deal_over() and ready_seconds > 0:
                # A player who never says "next" holds nobody up for longer than this.
                key, delay = (table.game_version, -2, False), ready_seconds
        old = self.tasks.get(table.code)
        if old is not None and key is not None and old.key == key:
            return
        if old is not None:
            old.task.cancel()
            del self.tasks[table.code]
        table.deadline = None
        if key is None:
            return
        if seat is not None and not key[2]:
            table.deadline = self.clock() + delay
        loop = asyncio.get_running_loop()
        if key[2] and delay >= 5 * BOT_TIMER_SLACK:
            tick = round((loop.time() + delay) / BOT_TIMER_SLACK)
            handle = loop.call_at(tick * BOT_TIMER_SLACK, self._fire, table, key)
        else:
            handle = loop.call_later(delay, self._fire, table, key)
        self.tasks[table.code] = _Task(key, handle)

    def _fire(self, table: Table, key: tuple[int, int, bool]) -> None:
        """The timer of ``key`` ran out. A bot that answers at once (easy, medium) moves here,
        with no task and no future (its outcome told to :meth:`_committed`): three seats of
        every table move this way, so this is a hot path. A bot that thinks elsewhere (the
        pool), or a move the database refuses, goes on in a task."""
        try:  # what _guard does, without a context manager's cost
            if table.game_version != key[0]:
                return
            if self.on.writing(table):  # a player's move: its outcome drives the table again
                self.tasks.pop(table.code, None)
                return
            if key[1] < 0:
                self.tasks.pop(table.code, None)
                self.on.leave_deal(table)
                return
            decision = self.on.think_now(table, key[1])
            if decision is None:
                self._start(table, key, lambda: self._think_and_commit(table, key))
                return
            self.tasks.pop(table.code, None)  # the move's own drive schedules the next
            move = int(decision.move)
            self.on.commit_then(
                table, move, lambda failed: self._committed(table, key, move, failed)
            )
        except Exception as exc:
            self._failed(table, exc)

    def _committed(
        self, table: Table, key: tuple[int, int, bool], move: int, failed: Exception | None
    ) -> None:
        """The outcome of a move :meth:`_fire` committed: refused by the database, it is
        tried again in a task."""
        if failed is None:
            return
        with self._guard(table):
            if not isinstance(failed, StoreUnavailable):
                raise failed
            refused = failed
            self._start(table, key, lambda: self._commit_stored(table, key, move, refused))

    def _start(
        self, table: Table, key: tuple[int, int, bool], work: Callable[[], Awaitable[None]]
    ) -> None:
        async def guarded() -> None:
            with self._guard(table):
                await work()  # made here: a task cancelled before it runs leaves none unawaited

        task = asyncio.get_running_loop().create_task(guarded())
        self.tasks[table.code] = _Task(key, task)

    @contextlib.contextmanager
    def _guard(self, table: Table) -> Iterator[None]:
        """What a failed automatic move does: another instance holds the table (it is dropped
        here), or a bug, which must not stop the loop (the table waits instead)."""
        try:
            yield
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self._failed(table, exc)

    def _failed(self, table: Table, exc: Exception) -> None:
        """:meth:`_guard`'s answer to ``exc``."""
        if isinstance(exc, StoreConflict):
            self.on.drop(table.code, str(exc))
            return
        with contextlib.suppress(Exception):
            logging.getLogger("seep.web").exception(
                "table %s: automatic move failed: %s", table.code, exc
            )

    async def _think_and_commit(self, table: Table, key: tuple[int, int, bool]) -> None:
        decision = await self.on.think(table, key[1])
        if table.game_version != key[0] or table.to_move != key[1]:
            return
        await self._commit_stored(table, key, int(decision.move))

    async def _commit_stored(
        self,
        table: Table,
        key: tuple[int, int, bool],
        move: int,
        failed: StoreUnavailable | None = None,
    ) -> None:
        """Commit the driver's move, trying again with backoff while the database refuses the
        write (locked, disk full; ``failed``: it refused the first try already): the same move
        each time, so nothing is lost or played twice (the move is made only once stored),
        and the players are told once, then again when it goes on. The task stays registered
        meanwhile, so no second one thinks for the seat."""
        wait = STORE_RETRY_FIRST
        told = False
        while table.game_version == key[0] and table.to_move == key[1]:
            if failed is None:
                self.tasks.pop(table.code, None)  # the move's own drive schedules the next
                try:
                    await self.on.commit(table, move)
                except StoreUnavailable as exc:
                    failed = exc
                else:
                    if told:
                        self.on.tell(
                            table.code, "store_recovered", "the moves are saved again: play goes on"
                        )
                    return
            task = asyncio.current_task()
            assert task is not None
            self.tasks[table.code] = _Task(key, task)
            log_store_problem(table.code, failed)
            failed = None
            if not told:
                told = True
                self.on.tell(table.code, "store_retrying", STORE_RETRYING)
            await asyncio.sleep(wait)
            wait = min(wait * 2, STORE_RETRY_MAX)

    # --- grace periods and countdowns ---------------------------------------------------------

    def start_grace(self, code: str, seat: int, seconds: float) -> None:
        """An absent player's grace period: after ``seconds`` a bot may play for him."""
        self.end_grace(code, seat)
        self._grace[(code, seat)] = asyncio.get_running_loop().call_later(
            seconds, self._grace_over, code, seat
        )

    def _grace_over(self, code: str, seat: int) -> None:
        self._grace.pop((code, seat), None)
        self.on.grace_over(code, seat)

    def start_forfeit(self, code: str, seat: int, seconds: float) -> None:
        """A rated match's player still gone at the end of his grace period: after ``seconds``
        more he has forfeited it. The same slot as the grace period: :meth:`end_grace` (he
        is back) ends either."""
        self.end_grace(code, seat)
        self._grace[(code, seat)] = asyncio.get_running_loop().call_later(
            seconds, self._forfeit_over, code, seat
        )

    def _forfeit_over(self, code: str, seat: int) -> None:
        self._grace.pop((code, seat), None)
        self.on.forfeit_over(code, seat)

    def end_grace(self, code: str, seat: int) -> None:
        """The player is back (or the seat went to another device): no grace period runs."""
        handle = self._grace.pop((code, seat), None)
        if handle is not None:
            handle.cancel()

    def count_down(self, code: str, seconds: float) -> None:
        """Quick match's countdown of table ``code`` (a new one replaces the old)."""
        self.end_countdown(code)
        self._countdowns[code] = asyncio.get_running_loop().call_later(
            seconds, self._countdown_over, code
        )

    def _countdown_over(self, code: str) -> None:
        self._countdowns.pop(code, None)
        self.on.countdown_over(code)

    def end_countdown(self, code: str) -> None:
        """The table started (or left memory): its countdown stops."""
        handle = self._countdowns.pop(code, None)
        if handle is not None:
            handle.cancel()

    def teardown(self, code: str) -> None:
        """Table ``code`` leaves memory: its task, grace periods and countdown stop."""
        task = self.tasks.pop(code, None)
        if task is not None:
            task.task.cancel()
        for key in [k for k in self._grace if k[0] == code]:
            self._grace.pop(key).cancel()
        self.end_countdown(code)

    def shutdown(self) -> None:
        """Cancel every timer."""
        for t in self.tasks.values():
            t.task.cancel()
        self.tasks.clear()
        for h in self._grace.values():
            h.cancel()
        self._grace.clear()
        for h in self._countdowns.values():
            h.cancel()
        self._countdowns.clear()


async def finish_later(store: Store, table: Table) -> None:
    """Store a finished table's record, trying again with backoff while the database refuses
    it (every move is stored already: only the record waits)."""
    wait = STORE_RETRY_FIRST
    while True:
        await asyncio.sleep(wait)
        try:
            record = table.record()
            store.finish(table, record, table.rated_match(record))
        except StoreUnavailable as exc:
            log_store_problem(table.code, exc)
            wait = min(wait * 2, STORE_RETRY_MAX)
        except StoreConflict:
            return  # another instance holds the table now: its store is the truth
        else:
            return
