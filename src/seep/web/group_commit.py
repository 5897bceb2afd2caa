"""The moves' writer: many tables' moves stored in one transaction, without the event loop
ever waiting for the database.

A move is stored before anything of it is sent, so that a move a player has seen is never
lost. Written one by one on the event loop's thread, every table waited for each move's
transaction, and for SQLite's checkpoint whenever one held the log: 40 % of the loop's stalls
over 20 ms in ``bench/server.py`` (docs/web.md "Broadcast cost"). Here the moves of one turn of
the loop go together (a *group commit*: the commit, the costly part, is paid once for all of
them). On SQLite the loop writes them itself when the database lets it at once (no busy wait:
handing them to a thread and back costs more than the write); when it does not (a checkpoint
holds it, a move must be told apart) and always on PostgreSQL (a round trip to the server), a
thread of its own writes them, waiting as long as it must, and hands each move's outcome back
to the loop, which makes and sends it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import queue
import threading
import time
from collections.abc import Callable
from typing import Any

from .schema import StoreUnavailable
from .store import Store

__all__ = ["MOST_AT_ONCE", "GroupCommit", "Then", "settle"]

#: About the most moves written in one transaction (one turn of the loop's moves stay together):
#: a bound on how long one commit holds the rest.
MOST_AT_ONCE = 128

#: Told a move's outcome, on the event loop's thread: ``None`` (stored), or the
#: :class:`~seep.web.schema.StoreConflict` or :class:`~seep.web.schema.StoreUnavailable` that
#: :meth:`Store.add_move <seep.web.store.Store.add_move>` would have raised.
Then = Callable[[Exception | None], None]


def settle(made: asyncio.Future[None], failed: Exception | None) -> None:
    """Settle ``made`` with a :data:`Then` outcome (left as it is when cancelled meanwhile)."""
    if made.done():
        return
    if failed is None:
        made.set_result(None)
    else:
        made.set_exception(failed)


_Move = tuple[str, int, dict[str, Any] | str, int, Then]
_STOP = None


class GroupCommit:
    """Writes the moves :meth:`write` is handed, each turn of the event loop's in one
    transaction, and tells each one's outcome on the loop. The loop writes a turn's moves itself
    when the store can without waiting (:meth:`Store.write_moves_now
    <seep.web.store.Store.write_moves_now>`, while the thread has none); else the thread
    writes them (:meth:`Store.write_moves <seep.web.store.Store.write_moves>`), with whatever
    else came meanwhile. The thread starts with the first move it is handed and ends with
    :meth:`close`, after the moves handed before.

    Nothing waits for company: a quiet server writes each move at once, a busy one many moves a
    commit."""

    def __init__(self, store: Store, *, most: int = MOST_AT_ONCE) -> None:
        self.store = store
        self.most = most
        self._queue: queue.SimpleQueue[list[_Move] | None] = queue.SimpleQueue()
        self._handed: list[_Move] = []  # this turn of the loop's moves, not yet handed over
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        # Moves handed to the thread and not told yet: while there are, the loop writes
        # nothing itself (the thread has the connection; the moves keep their order).
        self._in_thread = 0

    def write(
        self, code: str, seq: int, move: dict[str, Any] | str, version: int, then: Then
    ) -> None:
        """Store move number ``seq`` of table ``code``, made in state ``version`` (as
        :meth:`Store.add_move <seep.web.store.Store.add_move>`), then call ``then`` with its
        outcome on this event loop. Call it on the event loop's thread."""
        if self._loop is None:
            self._loop = asyncio.get_running_loop()
        if not self._handed:
            # Written once the loop has run what is due now (every bot whose timer ran out,
            # every message read): one transaction for all of them.
            self._loop.call_soon(self._hand_over)
        self._handed.append((code, seq, move, version, then))

    def _hand_over(self) -> None:
        batch = self._handed
        if not batch:
            return
        self._handed = []
        if not self._in_thread:
            start = time.perf_counter()
            if self.store.write_moves_now([m[:4] for m in batch]):
                self._told(batch, [None] * len(batch), time.perf_counter() - start)
                return
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="seep-moves", daemon=True)
            self._thread.start()
        self._in_thread += len(batch)
        self._queue.put(batch)

    def close(self) -> None:
        """Write what was handed, tell it, and end the thread (the app's shutdown; a move
        handed later starts another)."""
        self._hand_over()
        if self._thread is not None:
            self._queue.put(_STOP)
            self._thread.join()
            self._thread = None

    def _run(self) -> None:
        while True:
            first = self._queue.get()
            if first is _STOP:
                return
            batch = first
            stop = False
            while len(batch) < self.most:  # what came while the last batch was written
                try:
                    more = self._queue.get_nowait()
                except queue.Empty:
                    break
                if more is _STOP:
                    stop = True
                    break
                batch.extend(more)
            start = time.perf_counter()
            try:
                outcomes = self.store.write_moves([m[:4] for m in batch])
            except Exception as exc:  # a bug must not end the thread and leave tables waiting
                logging.getLogger("seep.web").exception("moves not written: %s", exc)
                outcomes = [StoreUnavailable(str(exc))] * len(batch)
            seconds = time.perf_counter() - start
            self._tell(batch, outcomes, seconds)
            if stop:
                return

    def _tell(self, batch: list[_Move], outcomes: list[Exception | None], seconds: float) -> None:
        assert self._loop is not None
        with contextlib.suppress(RuntimeError):  # the loop has closed: nobody is left to tell
            self._loop.call_soon_threadsafe(self._back, batch, outcomes, seconds)

    def _back(self, batch: list[_Move], outcomes: list[Exception | None], seconds: float) -> None:
        self._in_thread -= len(batch)
        self._told(batch, outcomes, seconds)

    def _told(self, batch: list[_Move], outcomes: list[Exception | None], seconds: float) -> None:
        # Each move waited that long for its write: the metric counts moves, as before.
        self.store.timed("move", seconds, len(batch))
        for move, outcome in zip(batch, outcomes, strict=True):
            try:
                move[4](outcome)
            except Exception as exc:  # one table's bug must not keep the others waiting
                logging.getLogger("seep.web").exception("table %s: %s", move[0], exc)
