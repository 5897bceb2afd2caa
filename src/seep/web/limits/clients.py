"""Who a client is, and how many events it had in a window.

A client is its IP address (an IPv6 client its /64 network: one household or server holds a
whole /64); the caps also count an IPv6 client's /56 and /48 (:func:`networks`), with higher
caps, since a household is often handed a /56. Behind a reverse proxy every request comes from
the proxy, so the address the proxy saw is taken from ``X-Forwarded-For``, but only when the
peer is a trusted proxy: anyone else could write any address there and so escape every limit.
"""

from __future__ import annotations

import ipaddress
import math
import time
from collections import deque
from collections.abc import Callable, Iterable

__all__ = [
    "LOOPBACK",
    "NETWORK_FACTORS",
    "ClientResolver",
    "Network",
    "NetworkRates",
    "RateLimiter",
    "networks",
    "parse_networks",
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
        ip = self.address(peer, forwarded_for)
        if ip is None:
            return peer or "unknown"
        return _key(ip)

    def address(
        self, peer: str | None, forwarded_for: str | None = None
    ) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
        """The client's own address (not its key: an IPv6 client's whole address), read as
        :meth:`__call__` reads it; None when the peer's is not an IP address."""
        ip = _ip(peer) if peer else None
        if ip is None:
            return None
        if forwarded_for and self._is_trusted(ip):
            # Each proxy appends the address it saw: read from the right, past our own proxies.
            for hop in reversed(forwarded_for.split(",")):
                hop_ip = _ip(hop)
                if hop_ip is None:
                    break  # garbage: trust nothing further left
                ip = hop_ip
                if not self._is_trusted(hop_ip):
                    break
        return ip


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

    def retry_after(self, key: str) -> int:
        """Whole seconds until ``key`` may have one more event (0: now), for ``Retry-After``."""
        events = self._recent(key, self.clock())
        if self.limit <= 0 or events is None or len(events) < self.limit:
            return 0
        return max(1, math.ceil(events[0] + self.window - self.clock()))

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

    def wait(self, key: str) -> float:
        """Seconds until ``key`` may have another event (0: it may now)."""
        if self.limit <= 0:
            return 0.0
        now = self.clock()
        events = self._recent(key, now)
        if events is None or len(events) < self.limit:
            return 0.0
        return max(0.0, self.window - (now - events[0]))

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
