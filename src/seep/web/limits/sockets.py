"""A client's connections and socket messages: open connections per client (the HTTP server's
cap), sockets per client and per table, and one message budget per client shared by all its
sockets."""

from __future__ import annotations

import time
import weakref
from collections.abc import Callable
from typing import Protocol

from .clients import RateLimiter

__all__ = [
    "DEFAULT_MESSAGE_COST",
    "MESSAGE_COSTS",
    "MESSAGE_COST_BYTES",
    "Closable",
    "ConnectionCap",
    "MessageBudget",
    "SocketCounts",
]


class Closable(Protocol):
    """What :class:`ConnectionCap` counts: an asyncio transport, say."""

    def is_closing(self) -> bool: ...


class ConnectionCap:
    """At most ``limit`` open connections per client key (``limit`` 0: no limit).

    A connection counts while its transport is open, whichever protocol holds it by then (a
    socket upgraded to WebSocket counts as long as it lives): the transports are held weakly
    and asked ``is_closing()``, so no protocol has to say when it ends.
    """

    def __init__(self, limit: int, *, max_keys: int = 100_000) -> None:
        self.limit = limit
        self.max_keys = max_keys
        self._open: dict[str, weakref.WeakSet[Closable]] = {}

    def count(self, key: str) -> int:
        """How many of ``key``'s connections are open."""
        conns = self._open.get(key)
        if conns is None:
            return 0
        n = sum(not c.is_closing() for c in list(conns))
        if n == 0:
            del self._open[key]
        return n

    def admit(self, key: str, conn: Closable) -> bool:
        """Count ``conn`` for ``key`` unless ``key`` already holds ``limit`` open ones."""
        if self.limit <= 0:
            return True
        if self.count(key) >= self.limit:
            return False
        if key not in self._open and len(self._open) >= self.max_keys:
            for k in list(self._open):
                self.count(k)  # forgets the keys whose connections all closed
        self._open.setdefault(key, weakref.WeakSet()).add(conn)
        return True


# What one socket message costs the server, in pings (a ping's round trip, about 80 us on
# the issue-23 machine; a report 190 us, a hint 270 us beside the bot's own thinking, which
# runs off the event loop). Kinds not named cost DEFAULT_MESSAGE_COST; every message costs
# a further unit per MESSAGE_COST_BYTES of its text (reading and parsing it).
MESSAGE_COSTS = {"ping": 1.0, "hint": 4.0, "report": 2.5, "move": 2.0, "hello": 2.0}
DEFAULT_MESSAGE_COST = 1.5
MESSAGE_COST_BYTES = 2048


class MessageBudget:
    """One message budget per client key, shared by all its sockets: a bucket of ``burst``
    units refilled at ``rate`` units a second (``rate`` 0: no limit), each message charged
    its cost (:data:`MESSAGE_COSTS`).

    A client refused more than ``abuse`` times in ``window`` seconds is abusive: it is
    :meth:`banned` for ``penalty`` seconds (its sockets are closed and new ones refused),
    since even a refusal costs the server a read and a check.
    """

    def __init__(
        self,
        rate: float,
        burst: float | None = None,
        *,
        abuse: int = 300,
        window: float = 10.0,
        penalty: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
        max_keys: int = 100_000,
    ) -> None:
        self.rate = rate
        self.burst = burst if burst is not None else 2 * rate
        self.penalty = penalty
        self.clock = clock
        self.max_keys = max_keys
        self._levels: dict[str, tuple[float, float]] = {}  # key -> (units left, when)
        self._refusals = RateLimiter(abuse, window, clock=clock, max_keys=max_keys)
        self._banned: dict[str, float] = {}  # key -> until when

    def charge(self, key: str, cost: float) -> bool:
        """Take ``cost`` units from ``key``'s budget; False (nothing taken) when it has not
        that many left."""
        if self.rate <= 0:
            return True
        now = self.clock()
        level, when = self._levels.get(key, (self.burst, now))
        level = min(self.burst, level + (now - when) * self.rate)
        if level < cost:
            self._levels[key] = (level, now)
            return False
        if key not in self._levels and len(self._levels) >= self.max_keys:
            # Full buckets are as good as forgotten ones.
            full = [
                k for k, (lv, t) in self._levels.items() if lv + (now - t) * self.rate >= self.burst
            ]
            for k in full or list(self._levels)[: len(self._levels) // 2]:
                del self._levels[k]
        self._levels[key] = (level - cost, now)
        return True

    def refused(self, key: str) -> bool:
        """Count a refusal for ``key``; True when it makes ``key`` abusive (once per ban)."""
        if self.banned(key):
            return False
        if self._refusals.hit(key):
            return False
        self._banned[key] = self.clock() + self.penalty
        return True

    def banned(self, key: str) -> bool:
        """True while ``key`` is serving its penalty for abuse."""
        until = self._banned.get(key)
        if until is None:
            return False
        if self.clock() < until:
            return True
        del self._banned[key]
        return False


class SocketCounts:
    """The WebSocket sockets each client key holds, server-wide (at most ``per_client``) and
    at each table (at most ``per_table``; 0: no limit). Sockets are any hashable objects."""

    def __init__(self, per_client: int, per_table: int) -> None:
        self.per_client = per_client
        self.per_table = per_table
        self._by_client: dict[str, set[object]] = {}
        self._by_table: dict[tuple[str, str], int] = {}

    def refusal(self, key: str, table: str) -> str | None:
        """Why ``key`` may not open one more socket at ``table`` (None: it may)."""
        if self.per_client and len(self._by_client.get(key, ())) >= self.per_client:
            return f"at most {self.per_client} sockets per address"
        if self.per_table and self._by_table.get((key, table), 0) >= self.per_table:
            return f"at most {self.per_table} sockets per address at one table"
        return None

    def add(self, key: str, table: str, sock: object) -> None:
        """Count ``sock``, a socket of ``key`` at ``table``."""
        self._by_client.setdefault(key, set()).add(sock)
        self._by_table[(key, table)] = self._by_table.get((key, table), 0) + 1

    def remove(self, key: str, table: str, sock: object) -> None:
        """``sock`` has gone (a socket never added is ignored)."""
        socks = self._by_client.get(key)
        if socks is None or sock not in socks:
            return
        socks.discard(sock)
        if not socks:
            del self._by_client[key]
        n = self._by_table.pop((key, table), 1) - 1
        if n > 0:
            self._by_table[(key, table)] = n

    def sockets(self, key: str) -> list[object]:
        """``key``'s open sockets."""
        return list(self._by_client.get(key, ()))
