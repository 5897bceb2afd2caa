"""The hub: every table's connections, and what is sent to them.

A :class:`Connection` is one client's socket as the server sees it: a queue of messages
(already JSON text) that the app's writer sends in order, and the client's rate limits. The
:class:`Hub` keeps each table's connections, admits a new one under the limits (the room kept
for seated players at a full table), and sends: a change's ``state`` to every connection
(each distinct state written once, by the table's :class:`~seep.web.statetext.StateWriter`), a
message to all, an error to all. It never changes a table, beyond the spectators' list it
shows (``Table.watching``).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from . import wire
from .limits import MessageBudget, SocketCounts
from .statetext import StateWriter
from .table import Table, TableError

__all__ = [
    "CHAT_LIMIT",
    "CLOSE_TABLE_FULL",
    "CLOSE_TOO_SLOW",
    "MAX_CONNECTIONS",
    "MAX_QUEUED",
    "RATE_LIMIT",
    "SEAT_RESERVE",
    "TRIAL_SECONDS",
    "Connection",
    "Hub",
    "Outbox",
]

RATE_LIMIT = 20  # messages per connection per second
CHAT_LIMIT = (5, 10.0)  # chat lines and emotes: at most 5 in 10 s per connection
MAX_CONNECTIONS = 200  # sockets per table (players and spectators)
# Room kept for seated players at a full table: a socket past MAX_CONNECTIONS gets in on trial
# (at most this many at once), must say hello with a seat's token within TRIAL_SECONDS, and
# then a spectator is dropped for it (closed with CLOSE_TABLE_FULL).
SEAT_RESERVE = 16
TRIAL_SECONDS = 5.0
CLOSE_TABLE_FULL = 1013  # RFC 6455 "try again later"
# A socket that reads nothing lets its messages pile up here once the kernel's and the
# transport's buffers are full (its writer waits for them to drain). Past this many waiting
# messages (a few minutes of play) it is closed with CLOSE_TOO_SLOW and its queue dropped: the
# page reconnects by itself and its first state is complete, so nothing is lost but the wait.
MAX_QUEUED = 256
CLOSE_TOO_SLOW = 1013  # RFC 6455 "try again later"
MAX_WATCHER_NAMES = 20  # spectators' names shown (the count is exact)


class Outbox:
    """A connection's messages waiting for its writer: the part of :class:`asyncio.Queue` the
    app uses (one writer takes them, in order), without its bookkeeping (a size limit, tasks
    done, a list of getters). Every move puts one message in every socket's."""

    __slots__ = ("_items", "_waiter")

    def __init__(self) -> None:
        self._items: deque[str | None] = deque()
        self._waiter: asyncio.Future[None] | None = None  # the writer waiting for a message

    def put_nowait(self, item: str | None) -> None:
        """Add a message (``None``: the writer stops there); wakes the writer."""
        self._items.append(item)
        waiter = self._waiter
        if waiter is not None:
            self._waiter = None
            if not waiter.done():  # cancelled with its writer: nobody to wake
                waiter.set_result(None)

    def get_nowait(self) -> str | None:
        """The next message (:class:`asyncio.QueueEmpty` when none waits)."""
        if not self._items:
            raise asyncio.QueueEmpty
        return self._items.popleft()

    async def get(self) -> str | None:
        """The next message, once there is one (for one writer at a time)."""
        while not self._items:
            waiter = asyncio.get_running_loop().create_future()
            self._waiter = waiter
            try:
                await waiter
            finally:
                if self._waiter is waiter:
                    self._waiter = None
        return self._items.popleft()

    def clear(self) -> None:
        """Drop every waiting message."""
        self._items.clear()

    def empty(self) -> bool:
        """True when no message waits."""
        return not self._items

    def qsize(self) -> int:
        """How many messages wait."""
        return len(self._items)


class Connection:
    """One client of a table. The manager queues its messages (already JSON text) with
    :meth:`push`; the app's writer sends them in order with :meth:`next_message`."""

    def __init__(self, code: str, seat: int | None) -> None:
        self.code = code
        self.seat = seat
        self.client = ""  # the client's address key (seep.web.limits), for logs and limits
        self.queue = Outbox()
        self._times: deque[float] = deque()
        self._chats: deque[float] = deque()
        self.close_code: int | None = None  # set when the server ends the connection
        self.name = ""  # a spectator's name, if he gave one
        self.origin = ""  # the page's origin (scheme and host), for transfer links
        self.trial = False  # in the seats' reserve of a full table until its hello
        self.limited_at = float("-inf")  # when it was last told it is rate limited
        self.since = time.monotonic()  # when it came (a full table drops its newest watcher)
        # Asked in its hello for the appended history (docs/web.md): its states then carry
        # only the moves after those it holds, ``held`` (the writer's history number, moves).
        self.append = False
        self.held: tuple[int, int] | None = None
        # Move-to-state latency (seep.web.metrics): when its last message came, and, after a
        # move of its own, since when its state is due (0: none is).
        self.received = 0.0
        self.answer_due = 0.0
        # Its page is in sight, as the page last said (``visibility``; until then: yes). A
        # seat with no visible page is away for the push notifications (seep.web.push).
        self.visible = True

    def push(self, text: str) -> None:
        """Queue a message for this client. One that has let :data:`MAX_QUEUED` messages
        wait is ended instead (closed with :data:`CLOSE_TOO_SLOW`, its messages dropped): the
        memory a socket that reads nothing holds is bounded. Once a connection is ended (its
        writer stops at the end), what follows for it is dropped."""
        if self.close_code is not None:
            return
        queue = self.queue
        if queue.qsize() < MAX_QUEUED:
            queue.put_nowait(text)
        else:
            queue.clear()
            self.end(CLOSE_TOO_SLOW)

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


class Hub:
    """Every table's connections (``conns``, by table code) and the broadcasts to them.
    ``observers`` see each table just before its state is sent (the tests' leak checker)."""

    def __init__(self) -> None:
        self.conns: dict[str, set[Connection]] = {}
        self.observers: list[Callable[[Table], None]] = []
        self._writers: dict[str, StateWriter] = {}
        self._watch_pending: set[str] = set()  # tables whose watchers' broadcast is due

    def of(self, code: str) -> set[Connection]:
        """The connections of table ``code`` (an empty set when none)."""
        return self.conns.get(code, set())

    def watching(self, code: str) -> dict[str, Any]:
        """The spectators of table ``code`` as its state shows them: how many, and names."""
        count = 0
        named: set[str] | None = None  # made only for a named spectator: every move asks
        for c in self.conns.get(code, ()):
            if c.seat is None:
                count += 1
                if c.name:
                    if named is None:
                        named = set()
                    named.add(c.name)
        return {"count": count, "names": sorted(named)[:MAX_WATCHER_NAMES] if named else []}

    def _observe(self, table: Table) -> None:
        if self.observers:  # the tests' only: none on a server
            for observe in self.observers:
                observe(table)

    def watchers_changed(self, code: str, table_of: Callable[[str], Table | None]) -> None:
        """Spectators of table ``code`` came, went or gave a name: everyone's state says so
        within a second (one broadcast a second at most, however fast sockets open and close).
        ``table_of`` finds the table then (it may have left memory, or come back anew)."""
        if code in self._watch_pending:
            return

        def flush() -> None:
            self._watch_pending.discard(code)
            t = table_of(code)
            # Nothing to send when the list is as last sent (a player's socket is a
            # spectator's only until its hello).
            if t is not None and self.conns.get(code) and self.watching(code) != t.watching:
                t.version += 1
                self.broadcast(t)

        self._watch_pending.add(code)
        asyncio.get_running_loop().call_later(1.0, flush)

    def broadcast(self, table: Table) -> None:
        """Send every connection of ``table`` its state (spectators share one)."""
        table.watching = self.watching(table.code)
        self._observe(table)
        conns = self.conns.get(table.code)
        if not conns:
            # Nobody to send it to (a table of bots and absent players): nothing is written.
            # The writer's kept history is checked against the session's at the next one.
            return
        writer = self._writers.get(table.code)
        if writer is None:
            writer = self._writers[table.code] = StateWriter()
        writer.begin(table)
        for conn in conns:
            if conn.append:
                conn.push(writer.appended(conn.seat, conn.held))
                conn.held = writer.held
            else:
                conn.push(writer.text(conn.seat))
        writer.end()

    def send_state(self, table: Table, conn: Connection) -> None:
        """Send one connection its state (a spectator's, on connecting)."""
        self._observe(table)
        conn.push(wire.dumps(table.state(conn.seat)))
        conn.held = None  # a whole history: the next state is whole too

    def to_all(self, code: str, msg: dict[str, Any]) -> None:
        """One message to every connection of table ``code``."""
        text = wire.dumps(msg)
        for c in self.conns.get(code, ()):
            c.push(text)

    def tell(self, code: str, error: str, message: str) -> None:
        """An ``error`` message with code ``error`` to everyone at table ``code``."""
        for conn in self.conns.get(code, ()):
            conn.error(error, message)

    def close_all(self, code: str, close_code: int | None = None, error: str = "") -> None:
        """Table ``code`` left memory: its connections stop (with ``close_code`` and an
        ``error`` message with ``error``'s words when given: the client reconnects)."""
        self._writers.pop(code, None)
        for conn in self.conns.pop(code, ()):
            if close_code is None:
                conn.close()
            else:
                conn.error("moved", error)
                conn.end(close_code)

    def shutdown(self) -> None:
        """Stop every connection's writer."""
        for conns in self.conns.values():
            for c in conns:
                c.close()

    # --- admission --------------------------------------------------------------------------

    def admit(
        self,
        table: Table,
        client: str,
        *,
        budget: MessageBudget,
        sockets: SocketCounts,
        spectators_per_client: int,
        max_connections: int,
        on_trial_over: Callable[[Connection], None],
    ) -> Connection:
        """A new connection at ``table`` for ``client`` under the limits (raises the
        refusal); past ``max_connections`` it comes in on trial (:data:`SEAT_RESERVE`)."""
        conns = self.conns.setdefault(table.code, set())
        trial = self._admission(
            table, conns, client, budget, sockets, spectators_per_client, max_connections
        )
        conn = Connection(table.code, None)
        conn.client = client
        conns.add(conn)
        if client:
            sockets.add(client, table.code, conn)
        if trial:
            conn.trial = True
            asyncio.get_running_loop().call_later(TRIAL_SECONDS, on_trial_over, conn)
        return conn

    @staticmethod
    def _admission(
        table: Table,
        conns: set[Connection],
        client: str,
        budget: MessageBudget,
        sockets: SocketCounts,
        cap: int,
        max_connections: int,
    ) -> bool:
        """Whether ``client`` may open one more socket at ``table`` (raises the refusal);
        True: only on trial, in the room kept for seated players (:data:`SEAT_RESERVE`)."""
        if client and budget.banned(client):
            raise TableError(
                "rate_limited",
                f"your address kept sending over its message budget: wait {budget.penalty:g} s",
            )
        if client:
            why = sockets.refusal(client, table.code)
            spectators = sum(1 for c in conns if c.seat is None and c.client == client)
            if why is None and cap and spectators >= cap:
                why = f"at most {cap} spectators per address at one table"
            if why is not None:
                raise TableError("too_many_connections", f"{why}: close some first")
        if len(conns) < max_connections:
            return False
        if sum(c.trial for c in conns) < SEAT_RESERVE:
            return True
        raise TableError(
            "too_many_connections",
            f"table {table.code} has {max_connections} connections, its limit: try later",
        )

    @staticmethod
    def drop_trial(conn: Connection) -> None:
        """A socket let into a full table on trial leaves: it said no seated hello in time."""
        conn.trial = False
        conn.error(
            "too_many_connections",
            f"this table is full: only a seated player's hello gets in (within "
            f"{TRIAL_SECONDS:g} s)",
        )
        conn.end(CLOSE_TABLE_FULL)

    def make_room(self, table: Table, conn: Connection, max_connections: int) -> None:
        """A seated player came in on trial: the newest spectator leaves for him."""
        conn.trial = False
        conns = self.conns.get(table.code, set())
        if len(conns) <= max_connections:
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
