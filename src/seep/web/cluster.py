"""Several instances on one database (docs/deploy.md): the leases of the tables held here.

Each running table has one holder at a time. :meth:`Leases.claim` takes a table's lease
(waiting for another holder to hand it over or for its lease to run out) and loads it by
replaying its stored moves; :meth:`Leases.heartbeat` renews this instance's leases every third
of the lease's length, and a table whose lease is lost or asked for leaves memory, its
clients told to reconnect. The table's owner is handed in as callbacks: no manager here.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Mapping
from typing import Any

from .store import Store
from .table import Table, TableError

__all__ = ["Leases"]


class Leases:
    """The claims and leases of one instance. ``held`` is the tables in memory (by code),
    ``restore(row)`` rebuilds a stored table and holds it (``None`` when its moves no longer
    replay), ``drop(code, why)`` forgets a table held elsewhere now; ``taken_over()`` is told
    of each table loaded here under a lease another instance held."""

    def __init__(
        self,
        store: Store,
        held: Mapping[str, Table],
        restore: Callable[[Mapping[str, Any]], Table | None],
        drop: Callable[[str, str], None],
        taken_over: Callable[[], None] | None = None,
    ) -> None:
        self.store = store
        self.held = held
        self.restore = restore
        self.drop = drop
        self.taken_over = taken_over  # a table's lease came here (the metrics count it)
        self._claims: dict[str, asyncio.Future[None]] = {}  # tables being taken over
        # When the leases were last renewed (monotonic; the start counts as a renewal): an
        # instance whose renewals stopped is not ready (its tables may be another's by now).
        self.renewed = time.monotonic()

    def alive(self, lease_seconds: float) -> bool:
        """Whether the heartbeat renewed the leases within ``lease_seconds``, the time after
        which the other instances may take them."""
        return time.monotonic() - self.renewed < lease_seconds

    async def claim(self, code: str, lease_seconds: float) -> None:
        """Make sure this instance holds the running table ``code`` (see
        ``TableManager.claim``); raises :class:`TableError` ``unavailable`` when the table
        stays held elsewhere."""
        if code in self.held or not (code.isascii() and code.isalnum() and len(code) <= 8):
            return  # held already, or no such table: the request says so
        pending = self._claims.get(code)
        if pending is None:  # one takeover per table, however many requests wait for it
            pending = self._claims[code] = asyncio.ensure_future(self._claim(code, lease_seconds))
            pending.add_done_callback(lambda _: self._claims.pop(code, None))
        await asyncio.shield(pending)

    async def _claim(self, code: str, lease_seconds: float) -> None:
        store = self.store
        if not await asyncio.to_thread(store.running, code):
            return
        # Who held it before (a live instance asked to hand it over, or a dead one whose lease
        # runs out): a hand-over for the metrics, unlike a new table's first claim.
        before = await asyncio.to_thread(store.lease_holder, code)
        # A dead holder's lease runs out within lease_seconds; a live one hands the table over
        # at its next heartbeat (a third of that).
        deadline = time.monotonic() + lease_seconds * 1.5
        while True:
            lease = await asyncio.to_thread(store.take_lease, code, lease_seconds)
            if lease.taken:
                break
            if time.monotonic() >= deadline:
                raise TableError(
                    "unavailable", f"table {code} is held by another server: try again soon"
                )
            await asyncio.sleep(min(0.25, lease_seconds / 8))
        # Read after the lease is ours: every move stored from now on is this instance's.
        row = await asyncio.to_thread(store.load_table, code)
        if row is None or code in self.held:
            return
        if self.restore(row) is None:
            store.release_lease(code)
        elif before is not None and before != store.owner and self.taken_over is not None:
            self.taken_over()

    async def heartbeat(self, lease_seconds: Callable[[], float]) -> None:
        """Renew this instance's leases forever, every third of ``lease_seconds()``. Tables
        whose lease was lost, or that another instance asked for (the proxy sends their
        traffic there now), leave memory."""
        store = self.store
        log = logging.getLogger("seep.web")
        while True:
            await asyncio.sleep(lease_seconds() / 3)
            codes = list(self.held)
            try:
                held, wanted = await asyncio.to_thread(store.renew_leases, codes, lease_seconds())
            except Exception as exc:  # the database is away: writes fail until it is back
                log.warning("lease renewal failed: %s", exc)
                continue
            self.renewed = time.monotonic()
            for code in codes:
                if code not in held:
                    self.drop(code, "its lease was lost")
                elif code in wanted:
                    # The proxy sends this table's traffic to the instance that asked: its
                    # clients here came by an old route and reconnect to the new one.
                    self.drop(code, "another server asked for it")
                    await asyncio.to_thread(store.release_lease, code)
