"""Per-client limits: who a client is, sliding-window rate limits, open tables per client,
sockets, connections and the message budget per client, and log lines about a client at most
once a minute. No web framework here (docs/web.md "Limits").

One module a job, each re-exported here:

- :mod:`~seep.web.limits.clients`: who a client is (trusted proxies, IPv6 networks) and
  sliding-window rate limits per client and per network;
- :mod:`~seep.web.limits.table_caps`: open tables per client and per network;
- :mod:`~seep.web.limits.sockets`: connections and sockets per client, the message budget;
- :mod:`~seep.web.limits.logs`: log lines limited per client, filters on uvicorn's lines.
"""

from __future__ import annotations

from .clients import (
    LOOPBACK,
    NETWORK_FACTORS,
    ClientResolver,
    NetworkRates,
    RateLimiter,
    networks,
    parse_networks,
)
from .logs import DropLines, LogLimiter, QuietInvalidUtf8, quiet_invalid_utf8
from .sockets import (
    DEFAULT_MESSAGE_COST,
    MESSAGE_COST_BYTES,
    MESSAGE_COSTS,
    ConnectionCap,
    MessageBudget,
    SocketCounts,
)
from .table_caps import NetworkOpenTables, OpenTables

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
