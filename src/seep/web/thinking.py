"""Who thinks for a bot's seat, and where: easy and medium bots at once on the event loop (a
fraction of a millisecond, less than a process hop), the slow searching bots in the bot pool's
worker processes (or a thread without one), each decision timed in the metrics. A bot sees only
its seat's view."""

from __future__ import annotations

import asyncio
import time

from ..bots import Decision
from .botpool import BotPool
from .metrics import Metrics
from .table import Table

__all__ = ["SLOW_BOTS", "Thinker"]

# Bots whose thinking takes long enough to stall every other table: they run in the bot pool,
# and one client may open only so many tables of them.
SLOW_BOTS = ("hard", "expert", "ismcts")


class Thinker:
    """A table's bots' decisions, through ``bot_pool`` for the slow ones (``None``: a
    thread)."""

    def __init__(self, bot_pool: BotPool | None, metrics: Metrics) -> None:
        self.bot_pool = bot_pool
        self.metrics = metrics

    def now(self, table: Table, seat: int) -> Decision | None:
        """The decision of a bot that answers at once, or ``None`` for a slow bot (then
        :meth:`think`)."""
        if table.settings["bots"] in SLOW_BOTS:
            return None
        start = time.perf_counter()
        decision = table.think(seat)
        self.metrics.thought(table.settings["bots"], time.perf_counter() - start)
        return decision

    async def think(self, table: Table, seat: int) -> Decision:
        """The bot's decision for ``seat``, off the loop when it is a slow bot."""
        decision = self.now(table, seat)
        if decision is not None:
            return decision
        view = table.view(seat)
        rng = table.rngs[seat]
        bots = table.settings["bots"]
        start = time.perf_counter()
        if self.bot_pool is not None:
            decision = await self.bot_pool.choose(bots, view, rng.getrandbits(63))
        else:
            decision = await asyncio.to_thread(table.bot.choose, view, rng)
        # What the table waited for: the pool's queue and the process hop count too.
        self.metrics.thought(bots, time.perf_counter() - start)
        return decision
