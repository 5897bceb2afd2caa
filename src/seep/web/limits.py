"""Per-client limits: who a client is, sliding-window rate limits, open tables per client, and
log lines about a client at most once a minute. No web framework here (docs/web.md "Limits").

A client is its IP address (an IPv6 client its /64 network: one household or server holds a
whole /64); the caps on tables also count an IPv6 client's /56 and /48 (:func:`networks`), with
higher caps, since a household is often handed a /56. Behind a reverse proxy every request
comes from the proxy, so the address the proxy saw is taken from ``X-Forwarded-For``, but only
when the peer is a trusted proxy: anyone else could write any address there and so escape every
limit.
"""

from __future__ import annotations

import ipaddress
import logging
import time
import weakref
from collections import deque
from collections.abc import Callable, Iterable
from typing import Protocol

__all__ = [
    "DEFAULT_MESSAGE_COST",
    "LOOPBACK",
    "MESSAGE_COSTS",
    "MESSAGE_COST_BYTES",
    "NETWORK_FACTORS",
    "ClientResolver",
    "ConnectionCap",
    "DropLines",
    "LogLimiter",
    "MessageBudget",
    "NetworkOpenTables",
    "NetworkRates",
    "OpenTables",
    "QuietInvalidUtf8",
    "RateLimiter",
    "SocketCounts",
    "networks",
    "parse_networks",
    "quiet_invalid_utf8",
]

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
LOOPBACK = "127.0.0.0/8,::1/128"


def parse_networks(spec: str) -> tuple[Network, ...]:
    """Addresses and networks from ``"10.0.0.5, 192.168.0.0/24, ::1"``; raises ValueError
    naming the item that is not one."""
    nets: list[Network] = []
    for item in spec.replace(",", " ").split():
        try:
            nets.append(ipaddress.ip_network(item, strict=False))
        except ValueError:
            raise ValueError(f"{item!r} is not an IP address or network") from None
    return tuple(nets)


def _ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        ip = ipaddress.ip_address(text.strip())
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


def _key(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str:
    if isinstance(ip, ipaddress.IPv6Address):
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


class ClientResolver:
    """The client key of a request: its peer's address, or, when the peer is one of the
    ``trusted`` proxies, the nearest untrusted address in its ``X-Forwarded-For``."""

    def __init__(self, trusted: Iterable[Network] = ()) -> None:
        self.trusted = tuple(trusted)

    def _is_trusted(self, ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
        return any(ip.version == net.version and ip in net for net in self.trusted)

    def is_trusted(self, peer: str | None) -> bool:
        """True when the peer address ``peer`` is one of the trusted proxies."""
        ip = _ip(peer) if peer else None
        return ip is not None and self._is_trusted(ip)

    def __call__(self, peer: str | None, forwarded_for: str | None = None) -> str:
        ip = _ip(peer) if peer else None
        if ip is None:
            return peer or "unknown"
        if forwarded_for and self._is_trusted(ip):
            # Each proxy appends the address it saw: read from the right, past our own proxies.
            for hop in reversed(forwarded_for.split(",")):
                hop_ip = _ip(hop)
                if hop_ip is None:
                    break  # garbage: trust nothing further left
                ip = hop_ip
                if not self._is_trusted(hop_ip):
                    break
        return _key(ip)


class RateLimiter:
    """At most ``limit`` events per key in any ``window`` seconds (``limit`` 0: no limit).

    Memory is bounded: above ``max_keys`` keys the idle ones are forgotten, then the oldest.
    """

    def __init__(
        self,
        limit: int,
        window: float = 60.0,
        *,
        clock: Callable[[], float] = time.monotonic,
        max_keys: int = 100_000,
    ) -> None:
        self.limit = limit
        self.window = window
        self.clock = clock
        self.max_keys = max_keys
        self._events: dict[str, deque[float]] = {}

    def _recent(self, key: str, now: float) -> deque[float] | None:
        events = self._events.get(key)
        if events is not None:
            while events and now - events[0] >= self.window:
                events.popleft()
        return events

    def over(self, key: str) -> bool:
        """True when ``key`` has used up its events in the current window."""
        if self.limit <= 0:
            return False
        events = self._recent(key, self.clock())
        return events is not None and len(events) >= self.limit

    def add(self, key: str) -> None:
        """Count one event for ``key``."""
        if self.limit <= 0:
            return
        now = self.clock()
        events = self._recent(key, now)
        if events is None:
            if len(self._events) >= self.max_keys:
                self._prune(now)
            events = self._events[key] = deque(maxlen=self.limit)
        events.append(now)

    def hit(self, key: str) -> bool:
        """Count an event unless ``key`` is over its limit; False when it is."""
        if self.over(key):
            return False
        self.add(key)
        return True

    def _prune(self, now: float) -> None:
        for key in [k for k, ev in self._events.items() if not ev or now - ev[-1] >= self.window]:
            del self._events[key]
        while len(self._events) >= self.max_keys:
            del self._events[next(iter(self._events))]  # the oldest key


class OpenTables:
    """The open tables each client created, to cap them; ``is_open(code)`` says whether a
    table still counts (a finished or closed one no longer does)."""

    def __init__(self, is_open: Callable[[str], bool]) -> None:
        self.is_open = is_open
        self._codes: dict[str, set[str]] = {}

    def count(self, key: str) -> int:
        """How many of ``key``'s tables are still open."""
        codes = self._codes.get(key)
        if codes is None:
            return 0
        codes.intersection_update([c for c in codes if self.is_open(c)])
        if not codes:
            del self._codes[key]
            return 0
        return len(codes)

    def add(self, key: str, code: str) -> None:
        """``key`` created the table ``code``."""
        self._codes.setdefault(key, set()).add(code)


# A client key counts against its own cap and, for an IPv6 /64, against its /56's and /48's:
# one household or provider site is handed a /56 or a /48, so its 256 or 65,536 /64s must not
# each get the full cap. The wider network gets a larger cap (this factor times the client's),
# so a few honest households behind one /48 still fit.
NETWORK_FACTORS = (1, 2, 4)
_WIDER_PREFIXES = (56, 48)


def networks(key: str) -> tuple[str, ...]:
    """The networks a client key counts in, narrowest first: an IPv6 /64 key (as
    :class:`ClientResolver` gives it) is also counted in its /56 and its /48; any other key
    (an IPv4 address, ``"unknown"``) only as itself. Pairs with :data:`NETWORK_FACTORS`."""
    try:
        net = ipaddress.ip_network(key, strict=False)
    except ValueError:
        return (key,)
    if not isinstance(net, ipaddress.IPv6Network) or net.prefixlen != 64:
        return (key,)
    return (key, *(str(net.supernet(new_prefix=p)) for p in _WIDER_PREFIXES))


class NetworkRates:
    """A :class:`RateLimiter` per client key and per wider network (:func:`networks`): at most
    ``limit`` events a ``window`` per client, twice that per /56, four times per /48
    (``limit`` 0: no limit)."""

    def __init__(
        self, limit: int, window: float = 60.0, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.limit = limit
        self._limiters = [RateLimiter(limit * f, window, clock=clock) for f in NETWORK_FACTORS]

    def over(self, key: str) -> tuple[str, int] | None:
        """The network (``key`` itself or a wider one) whose events are used up, with its
        limit; or None."""
        for net, limiter in zip(networks(key), self._limiters, strict=False):
            if limiter.over(net):
                return net, limiter.limit
        return None

    def add(self, key: str) -> None:
        """Count one event for ``key`` and each network it is in."""
        for net, limiter in zip(networks(key), self._limiters, strict=False):
            limiter.add(net)


class NetworkOpenTables:
    """Open tables per client key and per wider network (:func:`networks`): at most ``limit``
    per client, twice that per /56, four times per /48 (``limit`` 0: no limit). ``is_open``
    says whether a table still counts."""

    def __init__(self, limit: int, is_open: Callable[[str], bool]) -> None:
        self.limit = limit
        self._tables = OpenTables(is_open)

    def count(self, key: str) -> int:
        """How many of ``key``'s own tables are open."""
        return self._tables.count(key)

    def over(self, key: str) -> tuple[str, int] | None:
        """The network that holds its cap of open tables, with that cap; or None."""
        if self.limit <= 0:
            return None
        for net, factor in zip(networks(key), NETWORK_FACTORS, strict=False):
            cap = self.limit * factor
            if self._tables.count(net) >= cap:
                return net, cap
        return None

    def add(self, key: str, code: str) -> None:
        """``key`` created (or rematched into) the table ``code``."""
        for net in networks(key):
            self._tables.add(net, code)


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


class LogLimiter:
    """Log a warning about a client at most once per ``every`` seconds; the lines held back
    are counted in the next one. Only what the server says is logged, never what the client
    sent (it may hold a seat token).

    ``template`` words the line (the client, what happened, the count held back); an internal
    error passes its exception as ``exc_info``, and only the lines logged carry its traceback.
    """

    def __init__(
        self,
        logger: logging.Logger,
        every: float = 60.0,
        *,
        clock: Callable[[], float] = time.monotonic,
        max_keys: int = 10_000,
        template: str = "bad input from %s: %s%s",
        level: int = logging.WARNING,
    ) -> None:
        self.logger = logger
        self.every = every
        self.clock = clock
        self.max_keys = max_keys
        self.template = template
        self.level = level
        self._seen: dict[str, tuple[float, int]] = {}

    def __call__(self, key: str, what: str, exc_info: BaseException | None = None) -> None:
        """``key`` did something worth a line: log ``what`` unless logged lately."""
        now = self.clock()
        last = self._seen.get(key)
        if last is not None and now - last[0] < self.every:
            self._seen[key] = (last[0], last[1] + 1)
            return
        held = last[1] if last is not None else 0
        if len(self._seen) >= self.max_keys:
            for k in [k for k, (t, _) in self._seen.items() if now - t >= self.every]:
                del self._seen[k]
            while len(self._seen) >= self.max_keys:
                del self._seen[next(iter(self._seen))]
        self._seen[key] = (now, 0)
        more = f" ({held} more since the last line)" if held else ""
        self.logger.log(self.level, self.template, key, what, more, exc_info=exc_info)


class DropLines(logging.Filter):
    """Drops the records whose message is one of ``messages``: uvicorn's lines that the
    server logs itself, limited per client (uvicorn would log one per request)."""

    def __init__(self, messages: Iterable[str]) -> None:
        super().__init__()
        self.messages = frozenset(messages)

    def filter(self, record: logging.LogRecord) -> bool:
        """False for a message to drop."""
        return record.msg not in self.messages


class QuietInvalidUtf8(logging.Filter):
    """uvicorn logs a traceback for every WebSocket text frame that is not UTF-8 (it closes the
    socket with 1007, rightly): this filter keeps one plain line a minute instead (uvicorn
    does not say which client sent it)."""

    MESSAGE = "Invalid UTF-8 sequence received from client."

    def __init__(self, every: float = 60.0, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.every = every
        self.clock = clock
        self._last: float | None = None
        self._held = 0

    def filter(self, record: logging.LogRecord) -> bool:
        """Let every other record through; this one without traceback, once a minute."""
        if record.msg != self.MESSAGE:
            return True
        now = self.clock()
        if self._last is not None and now - self._last < self.every:
            self._held += 1
            return False
        more = f" ({self._held} more since the last line)" if self._held else ""
        self._last, self._held = now, 0
        record.msg = "bad input from a socket: a text frame that is not UTF-8 (closed, 1007)%s"
        record.args = (more,)
        record.levelno, record.levelname = logging.WARNING, "WARNING"
        record.exc_info = record.exc_text = None
        return True


def quiet_invalid_utf8(logger: logging.Logger | None = None) -> None:
    """Install :class:`QuietInvalidUtf8` on uvicorn's error logger (once)."""
    logger = logger or logging.getLogger("uvicorn.error")
    if not any(isinstance(f, QuietInvalidUtf8) for f in logger.filters):
        logger.addFilter(QuietInvalidUtf8())


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
