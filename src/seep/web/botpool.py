"""Slow bots think in a bounded pool of worker processes, off the event loop.

A hard or expert bot (ISMCTS) thinks for a large part of a second; in the server's process it
would hold up every other table (the GIL), even from a thread. :class:`BotPool` sends such a
move to one of ``workers`` processes and awaits it without blocking the loop.

Only docs/format.md JSON crosses the process boundary: the request is the seat's view
(:meth:`seep.view.View.to_dict`), the bot's name, a seed for its RNG and the move's deadline;
the answer is the move object and its reason. The worker never sees a position, only what the
seat may know.

Every move has a budget (``budget`` seconds from the request, queueing included). The worker is
told the deadline: it skips a request that waited past it, and a search bot stops its search at
it. The server does not wait beyond the budget (plus a short grace): the table gets a move from
a cheap bot (``fallback``) instead. A worker still busy long after its deadline is taken as stuck:
the pool is replaced and its processes are stopped, so one bad search never starves the rest.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import logging
import multiprocessing
import os
import random
import time
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from ..bots import Decision, make_bot
from ..bots.registry import DIFFICULTIES
from ..moves import Move
from ..view import View

__all__ = ["BotPool", "default_workers", "think"]

log = logging.getLogger("seep.web")

#: How long past a move's deadline the server still waits for the worker's answer (the answer
#: travels back through a pipe and the loop may be busy).
GRACE = 0.25
#: A worker still on one move this long past its deadline is stuck: the pool is replaced.
STUCK_AFTER = 5.0
#: After this many replacements the pool is given up: every slow bot's move is the fallback's
#: (a worker that cannot start, e.g. a main script without its ``__main__`` guard).
MAX_RESTARTS = 20


def default_workers() -> int:
    """One worker per core but one (the event loop keeps a core), at least one, at most 8."""
    return max(1, min(8, (os.cpu_count() or 2) - 1))


def _is_search(name: str) -> bool:
    base = DIFFICULTIES[name][0] if name in DIFFICULTIES else name
    return base == "ismcts"


def think(request: str) -> str:
    """The worker's side: a request (JSON text: ``bot``, ``view``, ``seed``, ``deadline`` in
    ``time.time()`` seconds) -> the answer (JSON text: ``move``, ``reason``; or ``late`` when
    the deadline had passed before the work began)."""
    req = json.loads(request)
    left = req["deadline"] - time.time()
    if left <= 0.01:
        return '{"late": true}'
    settings: dict[str, Any] = {}
    if _is_search(req["bot"]):
        # The playout budget stays the difficulty's; the time left caps it under load.
        settings["milliseconds"] = left * 1000.0
    bot = make_bot(req["bot"], **settings)
    decision = bot.choose(View.from_dict(req["view"]), random.Random(req["seed"]))
    return json.dumps({"move": decision.move.to_dict(), "reason": decision.reason})


def _worker_start() -> None:
    # Below the event loop's priority: on a busy machine the loop, which every player's move
    # waits for, gets the CPU first.
    with contextlib.suppress(OSError):
        os.nice(10)


class BotPool:
    """A bounded pool of bot worker processes (started on first use).

    ``workers`` processes (:func:`default_workers` when ``None``), ``budget`` seconds per move,
    ``fallback`` the bot that answers when a worker does not answer in time. ``worker`` is the
    function the processes run (:func:`think`; tests give another).
    """

    def __init__(
        self,
        workers: int | None = None,
        budget: float = 3.0,
        *,
        fallback: str = "medium",
        worker: Callable[[str], str] = think,
    ) -> None:
        if budget <= 0:
            raise ValueError(f"the bot budget must be positive, got {budget}")
        self.workers = workers if workers is not None else default_workers()
        if self.workers < 1:
            raise ValueError(f"a bot pool needs at least one worker, got {self.workers}")
        self.budget = budget
        self.fallback = make_bot(fallback)
        self.worker = worker
        self.moves = 0
        self.fallbacks = 0  # of which the fallback bot made (figures for logs and tests)
        self.restarts = 0
        self.stuck_after = STUCK_AFTER
        self._executor: concurrent.futures.ProcessPoolExecutor | None = None
        # Futures running in the current executor, with their deadlines.
        self._running: dict[concurrent.futures.Future[str], float] = {}

    def _pool(self) -> concurrent.futures.ProcessPoolExecutor:
        if self._executor is None:
            methods = multiprocessing.get_all_start_methods()
            # Never fork a process with an event loop and threads: a fresh interpreter instead.
            ctx = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
            self._executor = concurrent.futures.ProcessPoolExecutor(
                self.workers, mp_context=ctx, initializer=_worker_start
            )
        return self._executor

    async def choose(self, bot: str, view: View, seed: int) -> Decision:
        """The move of ``bot`` for the view's seat, within the budget (else the fallback's)."""
        self.moves += 1
        self._reap()
        if self.restarts >= MAX_RESTARTS:
            return self._fall_back(view, seed)
        deadline = time.time() + self.budget
        request = json.dumps(
            {"bot": bot, "view": view.to_dict(), "seed": seed, "deadline": deadline}
        )
        try:
            future = self._pool().submit(self.worker, request)
        except (BrokenProcessPool, RuntimeError) as exc:
            self._replace(f"the pool is broken ({exc})")
            return self._fall_back(view, seed)
        self._running[future] = deadline
        future.add_done_callback(self._done)
        try:
            answer = await asyncio.wait_for(asyncio.wrap_future(future), self.budget + GRACE)
        except TimeoutError:
            return self._fall_back(view, seed)
        except BrokenProcessPool as exc:
            self._replace(f"a worker died ({exc})")
            return self._fall_back(view, seed)
        except Exception as exc:  # a bug in the worker: logged, and the table still moves
            log.error("bot worker failed: %r", exc)
            return self._fall_back(view, seed)
        data = json.loads(answer)
        if data.get("late"):
            return self._fall_back(view, seed)
        move = Move.from_dict(data["move"])
        if not view.shell().is_legal(int(move)):
            # Only our own worker answers, but what crosses a process boundary is checked.
            log.error("bot worker answered an illegal move %s", data["move"])
            return self._fall_back(view, seed)
        return Decision(move, str(data["reason"]))

    def _fall_back(self, view: View, seed: int) -> Decision:
        self.fallbacks += 1
        return self.fallback.choose(view, random.Random(seed))

    def _done(self, future: concurrent.futures.Future[str]) -> None:
        self._running.pop(future, None)

    def _reap(self) -> None:
        """Replace the pool when a worker is stuck far past a move's deadline."""
        now = time.time()
        if any(
            f.running() and now > deadline + self.stuck_after
            for f, deadline in self._running.items()
        ):
            self._replace("a bot worker is stuck past its move's deadline")

    def _replace(self, why: str) -> None:
        old, self._executor = self._executor, None
        self._running = {}
        self.restarts += 1
        if self.restarts >= MAX_RESTARTS:
            log.error(
                "bot pool given up after %d restarts (%s): fallback bot only", MAX_RESTARTS, why
            )
        else:
            log.warning("bot pool restarted: %s", why)
        if old is not None:
            self._stop(old)

    @staticmethod
    def _stop(executor: concurrent.futures.ProcessPoolExecutor) -> None:
        # The executor cannot stop a running task: its processes are terminated instead.
        processes = list(getattr(executor, "_processes", {}).values())
        executor.shutdown(wait=False, cancel_futures=True)
        for p in processes:
            with contextlib.suppress(Exception):
                p.terminate()

    def close(self) -> None:
        """Stop the workers (the app's shutdown): each finishes its move (a budget at most),
        then a worker still busy is stopped."""
        executor, self._executor = self._executor, None
        if executor is None:
            return
        log.info("bot pool: %d moves, %d by the fallback bot", self.moves, self.fallbacks)
        processes = list(getattr(executor, "_processes", {}).values())
        executor.shutdown(wait=False, cancel_futures=True)
        for p in processes:
            p.join(self.budget + 1.0)
            if p.is_alive():
                p.terminate()
