"""What runs while the app serves, and what closes when it stops: unfinished tables loaded at
the start, SQLite checkpoints, the sweep for tables to close, the cluster's heartbeat; at the
end the tables, the bot pool, the lease and the database closed (docs/web.md, "Liveness")."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
from collections.abc import AsyncIterator, Callable, Coroutine, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any

from .moderation import Moderation
from .presence import end_banned
from .settings import Settings
from .store import LIVE, Store, StoreUnavailable
from .tables import TableManager

__all__ = ["lifespan", "sweep_interval"]

log = logging.getLogger("seep.web")


def sweep_interval(manager: TableManager) -> float:
    """How often to look for tables to close: a tenth of the shortest wait, at most a minute."""
    waits = [manager.waiting_seconds, manager.abandoned_seconds, manager.orphan_seconds]
    return max(0.05, min(60.0, *(w / 10 for w in waits if w > 0)))


def _tune_gc() -> None:
    """Fewer, cheaper garbage collections: every pause stops all tables at once.

    Almost everything a table allocates is freed by reference counting; what lives long is the
    engine's move-generation caches and the tables themselves, which a full collection would
    walk again and again. The objects of the started server are frozen out of the collector's
    sight and generation 0 collects less often.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(10_000, 50, 100)


async def moderate(manager: TableManager, store: Store, moderation: Moderation) -> None:
    """One round of moderation (docs/deploy.md "Moderation"): read the sanctions in force (in
    a worker thread), close the sockets of banned players, then close the tables the operator
    asked to close that this instance holds; a request for a table that is over already is
    marked done."""
    await asyncio.to_thread(moderation.refresh)
    ended = end_banned(manager)
    if ended:
        log.info("closed %d socket(s) of banned players", ended)
    for code in sorted(moderation.closing()):
        table = manager.tables.get(code)
        if table is not None and table.status in LIVE:
            try:
                manager.close(table)
            except StoreUnavailable as exc:  # a full disk: the next round tries again
                log.warning("table %s: the operator's close failed: %s", code, exc)
                continue
            log.info("table %s closed at the operator's request", code)
        elif table is None and await asyncio.to_thread(store.table_status, code) in LIVE:
            continue  # live on another instance (or on none yet): its holder closes it
        await asyncio.to_thread(store.table_closed, code)


def lifespan(
    manager: TableManager,
    store: Store,
    settings: Settings,
    moderation: Moderation | None = None,
    tasks: Sequence[Callable[[], Coroutine[Any, Any, None]]] = (),
) -> Callable[[object], AbstractAsyncContextManager[None]]:
    """The app's lifespan (FastAPI's ``lifespan``) for these tables, their store and, when
    given, the moderation the app applies; ``tasks`` run while it serves (the events'
    runner)."""

    async def checkpointer() -> None:
        # In a worker thread: the loop never waits for a fsync. A PASSIVE checkpoint alone
        # never lets the log start over while moves are written (600 tables grew it by 12 MB
        # a second, bench/server.py), and emptying a log that big held every table's writes
        # past their busy timeout; RESTART after it holds them for the last few frames only.
        while True:
            await asyncio.sleep(settings.checkpoint_seconds)
            try:
                await asyncio.to_thread(store.checkpoint, "RESTART")
            except Exception as exc:  # a busy database: the next round catches up
                log.warning("checkpoint failed: %s", exc)

    async def sweeper() -> None:
        while True:
            await asyncio.sleep(sweep_interval(manager))
            try:
                manager.sweep()
            except Exception as exc:  # a bug must not stop the sweeping
                log.exception("sweep failed: %s", exc)

    async def moderator() -> None:
        assert moderation is not None
        while True:
            await asyncio.sleep(moderation.refresh_seconds)
            try:
                await moderate(manager, store, moderation)
            except Exception as exc:  # a busy database: the copy in hand serves until then
                log.warning("moderation refresh failed: %s", exc)

    @contextlib.asynccontextmanager
    async def serving(_: object) -> AsyncIterator[None]:
        n = manager.load()
        if n:
            log.info("resumed %d unfinished table(s)", n)
        moderating = None
        if moderation is not None:
            # The bans hold from the first request on, not a refresh later.
            try:
                await moderate(manager, store, moderation)
            except Exception as exc:  # a busy database: the task's next round reads them
                log.warning("moderation refresh failed: %s", exc)
            moderating = asyncio.create_task(moderator())
        checkpoints = asyncio.create_task(checkpointer())
        beats = asyncio.create_task(manager.heartbeat()) if manager.clustered else None
        sweeps = asyncio.create_task(sweeper())
        others = [asyncio.create_task(task()) for task in tasks]
        _tune_gc()
        yield
        for other in others:
            other.cancel()
        checkpoints.cancel()
        sweeps.cancel()
        if moderating is not None:
            moderating.cancel()
        if beats is not None:
            beats.cancel()
        manager.shutdown()
        if manager.bot_pool is not None:
            manager.bot_pool.close()
        with contextlib.suppress(Exception):
            store.release_lease()  # the other instances take this one's tables at once
        store.checkpoint("TRUNCATE")
        store.close()

    return serving
