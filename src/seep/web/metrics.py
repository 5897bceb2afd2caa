"""The server's Prometheus metrics (docs/deploy.md "Metrics"): every metric object of one app,
and the text ``GET /metrics`` serves. No table, no web framework here.

One :class:`Metrics` per app, with its own registry (never the process's default one: tests
build many apps in one process). What the hot path counts is cheap: a move, a refusal or a
hand-over is a plain ``+= 1``, a latency one bisection into a list of bucket counts
(:class:`LoopHistogram`), all read at scrape time. Everything is counted on the event loop's
thread, where every move, bot decision and timed write is made: no lock is needed (the
library's own ``Histogram`` takes one, and costs several times as much). What is cheap to read
at scrape time (tables by status, open sockets, the bot pool's figures) is read then, through
the callables the app hands to :meth:`Metrics.watch`; the database's totals (accounts, rated
matches) are read at most every :data:`STORE_TOTALS_SECONDS`, off the loop, so a flood of
scrapes never reaches the database.

Every label takes its values from a closed set (the tuples below): no table code, name,
address or account is ever a label, so the number of series is fixed.
"""

from __future__ import annotations

import asyncio
import logging
import time
from bisect import bisect_left
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)

__all__ = [
    "CONTENT_TYPE",
    "DIFFICULTY_LABELS",
    "HANDOVER_DIRECTIONS",
    "REFUSAL_KINDS",
    "STORE_TOTALS_SECONDS",
    "TABLE_STATUSES",
    "WRITE_KINDS",
    "LoopHistogram",
    "Metrics",
]

#: The classic text format's type, which every Prometheus 2 and promtool reads.
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
#: A table in memory is one of these (``Table.status``).
TABLE_STATUSES = ("waiting", "playing", "finished")
#: The ``difficulty`` label: the four difficulties, and ``other`` for a bot named directly
#: (``random``, ``greedy``, ...).
DIFFICULTY_LABELS = ("easy", "medium", "hard", "expert", "other")
#: The ``kind`` label of a rate-limit refusal (docs/deploy.md "Metrics" says what each counts).
REFUSAL_KINDS = (
    "new_tables",
    "open_tables",
    "unknown_codes",
    "lobby",
    "profiles",
    "logins",
    "signups",
    "sockets",
    "messages",
    "chat",
    "metrics",
    "other",
)
#: The ``what`` label of a database write: a move (the hot path), or a table's row.
WRITE_KINDS = ("move", "table")
#: The ``direction`` label of a lease hand-over: a table taken over here, or given up here.
HANDOVER_DIRECTIONS = ("in", "out")
#: How long the database's totals (accounts, rated matches) are kept between reads.
STORE_TOTALS_SECONDS = 10.0

# Sub-millisecond to seconds: a move is about half a millisecond of CPU; a slow bot a second.
_FAST_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
_THINK_BUCKETS = (0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0)

log = logging.getLogger("seep.web")


def _zero() -> tuple[int, int]:
    return (0, 0)


class LoopHistogram:
    """One histogram series, observed on the event loop's thread only (no lock): a count per
    bucket (``bounds``, ascending, each inclusive as Prometheus' ``le``; the last count is
    past them all) and the sum."""

    __slots__ = ("bounds", "counts", "total")

    def __init__(self, bounds: Sequence[float]) -> None:
        self.bounds = tuple(bounds)
        self.counts = [0] * (len(self.bounds) + 1)
        self.total = 0.0

    def observe(self, value: float, times: int = 1) -> None:
        """Count ``value`` (``times`` over: a group commit's moves waited as long)."""
        self.counts[bisect_left(self.bounds, value)] += times
        self.total += value * times

    def buckets(self) -> list[tuple[str, float]]:
        """The cumulative buckets as the exposition writes them, ``+Inf`` last."""
        out: list[tuple[str, float]] = []
        running = 0
        for bound, n in zip(self.bounds, self.counts, strict=False):
            running += n
            out.append((repr(bound), running))
        out.append(("+Inf", running + self.counts[-1]))
        return out


class Metrics:
    """Every metric of one app and its registry (:attr:`registry`). The hot path calls
    :meth:`moved`, :meth:`answered`, :meth:`thought`, :meth:`stored`, :meth:`refused` and
    :meth:`handed_over`; the app calls :meth:`watch` once, then :meth:`refresh` and
    :meth:`exposition` for each scrape."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.registry = CollectorRegistry(auto_describe=False)
        self.moves = 0
        self.refusals: dict[str, int] = dict.fromkeys(REFUSAL_KINDS, 0)
        self.handovers: dict[str, int] = dict.fromkeys(HANDOVER_DIRECTIONS, 0)
        # Every series made at once: the hot path does one dict lookup, and every series
        # shows from the first scrape (a rate over a series that appears late misses its
        # first events).
        self.move_latency = LoopHistogram(_FAST_BUCKETS)
        self.think = {d: LoopHistogram(_THINK_BUCKETS) for d in DIFFICULTY_LABELS}
        self.writes = {w: LoopHistogram(_FAST_BUCKETS) for w in WRITE_KINDS}
        # Read at scrape time; the app replaces them (watch).
        self._tables: Callable[[], Mapping[str, int]] = dict
        self._connections: Callable[[], int] = int
        self._pool: Callable[[], tuple[int, int]] = _zero
        self._totals_source: Callable[[], tuple[int, int]] | None = None
        self._totals: tuple[int, int] | None = None
        self._totals_at = float("-inf")
        self._reading: asyncio.Lock | None = None
        self.registry.register(_Scraped(self))

    # --- the hot path -------------------------------------------------------------------------

    def moved(self) -> None:
        """A move was made (a player's or a bot's)."""
        self.moves += 1

    def answered(self, seconds: float) -> None:
        """A player's move's state reached his socket ``seconds`` after the move came."""
        self.move_latency.observe(seconds)

    def thought(self, bots: str, seconds: float) -> None:
        """A bot of the table setting ``bots`` decided in ``seconds``."""
        (self.think.get(bots) or self.think["other"]).observe(seconds)

    def stored(self, what: str, seconds: float, times: int = 1) -> None:
        """A database write (``what``: one of :data:`WRITE_KINDS`) took ``seconds``, for
        ``times`` of them (a group commit's moves: one transaction)."""
        self.writes[what].observe(seconds, times)

    def refused(self, kind: str) -> None:
        """A per-client limit refused something (``kind``: one of :data:`REFUSAL_KINDS`; any
        other counts as ``other``, so the label set stays closed)."""
        key = kind if kind in self.refusals else "other"
        self.refusals[key] += 1

    def handed_over(self, direction: str) -> None:
        """A table's lease changed hands: taken over here (``in``) or given up (``out``)."""
        self.handovers[direction] += 1

    # --- scrape time --------------------------------------------------------------------------

    def watch(
        self,
        *,
        tables: Callable[[], Mapping[str, int]],
        connections: Callable[[], int],
        pool: Callable[[], tuple[int, int]],
        totals: Callable[[], tuple[int, int]] | None = None,
    ) -> None:
        """What is read at scrape time: ``tables()`` the tables in memory by status,
        ``connections()`` the open sockets, ``pool()`` the bot pool's (moves, fallbacks), and
        ``totals()`` the database's (accounts, rated matches), called off the loop and cached
        (:meth:`refresh`)."""
        self._tables = tables
        self._connections = connections
        self._pool = pool
        self._totals_source = totals

    async def refresh(self) -> None:
        """Read the database's totals when the cached ones are older than
        :data:`STORE_TOTALS_SECONDS` (in a thread; concurrent scrapes share one read; a
        failed read keeps the old figures and is logged)."""
        source = self._totals_source
        if source is None or self.clock() - self._totals_at < STORE_TOTALS_SECONDS:
            return
        if self._reading is None:
            self._reading = asyncio.Lock()
        async with self._reading:
            if self.clock() - self._totals_at < STORE_TOTALS_SECONDS:
                return  # another scrape read them while this one waited
            # Stamped before the read: a database that is away is asked again only later.
            self._totals_at = self.clock()
            try:
                self._totals = await asyncio.to_thread(source)
            except Exception as exc:
                log.warning("metrics: the database's totals not read: %s", exc)

    def exposition(self) -> bytes:
        """The registry in Prometheus' text format (call it on the loop's thread: the tables
        are read as they are)."""
        return generate_latest(self.registry)

    def scraped(self) -> Iterator[Metric]:
        """The metrics read at scrape time (the registry's collector)."""
        tables = GaugeMetricFamily(
            "seep_tables", "Tables in this instance's memory, by status.", labels=["status"]
        )
        counts = self._tables()
        for status in TABLE_STATUSES:
            tables.add_metric([status], counts.get(status, 0))
        yield tables
        yield GaugeMetricFamily(
            "seep_websocket_connections",
            "Open table sockets (players and spectators) on this instance.",
            value=self._connections(),
        )
        yield CounterMetricFamily(
            "seep_moves", "Moves made on this instance (players' and bots').", value=self.moves
        )
        pool_moves, fallbacks = self._pool()
        yield CounterMetricFamily(
            "seep_bot_pool_moves", "Slow bots' moves asked of the bot pool.", value=pool_moves
        )
        yield CounterMetricFamily(
            "seep_bot_fallbacks",
            "Pool moves made by the fallback bot (a worker late, stuck or failed).",
            value=fallbacks,
        )
        yield from self._histograms()
        refusals = CounterMetricFamily(
            "seep_rate_limit_refusals", "Refusals by a per-client limit, by kind.", labels=["kind"]
        )
        for kind, n in self.refusals.items():
            refusals.add_metric([kind], n)
        yield refusals
        handovers = CounterMetricFamily(
            "seep_lease_handovers",
            "Tables taken over from another instance (in) or given up to one (out).",
            labels=["direction"],
        )
        for direction, n in self.handovers.items():
            handovers.add_metric([direction], n)
        yield handovers
        if self._totals is not None:
            accounts, rated = self._totals
            yield GaugeMetricFamily(
                "seep_accounts", "Player accounts in the database.", value=accounts
            )
            yield GaugeMetricFamily(
                "seep_rated_matches", "Rated matches in the database.", value=rated
            )

    def _histograms(self) -> Iterator[Metric]:
        latency = HistogramMetricFamily(
            "seep_move_to_state_seconds",
            "From a player's move received to its state written to his socket.",
            buckets=self.move_latency.buckets(),
            sum_value=self.move_latency.total,
        )
        think = HistogramMetricFamily(
            "seep_bot_think_seconds",
            "A bot's decision, by difficulty (the pool's wait included; hints too).",
            labels=["difficulty"],
        )
        for difficulty, h in self.think.items():
            think.add_metric([difficulty], h.buckets(), h.total)
        writes = HistogramMetricFamily(
            "seep_db_write_seconds",
            "A database write transaction, by what it writes.",
            labels=["what"],
        )
        for what, h in self.writes.items():
            writes.add_metric([what], h.buckets(), h.total)
        yield from (latency, think, writes)


class _Scraped:
    """The registry's collector of what :class:`Metrics` reads at scrape time."""

    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics

    def collect(self) -> Iterator[Metric]:
        return self.metrics.scraped()

    def describe(self) -> list[Any]:
        return []  # nothing to check against the other collectors' names at registration
