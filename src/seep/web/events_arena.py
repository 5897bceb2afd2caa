"""Arena events on the server (docs/web.md "Events"; the pure rules are
:mod:`seep.web.tournament.arena`): within the event's window (``minutes`` from its start) a team
whose game ended is paired again at once with the nearest-ranked free team; points for a win, a
draw, double on a streak; the standings are live.

An arena is one round (number 1) whose tables are its games, numbered (``board``) in the order
they were paired. The runner's step (:func:`step`, at every tick and at once when a game ends):
the games that ended get their results (with the time they were read, which orders them), then,
while the window is open, every free team is paired (:func:`seep.web.tournament.arena.pair_free`)
and the new games are recorded (once: the step names how many games it saw) and opened. At the
window's end the event ends: a game still running then does not count.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .events_page import arena_ends, arena_inputs
from .store_events import RoundTable
from .tournament import arena

if TYPE_CHECKING:
    from .events_runner import EventRunner

__all__ = ["step"]


def _ended(row: Mapping[str, Any]) -> bool:
    return row["table_status"] in ("finished", "closed")


async def step(runner: EventRunner, ev: Mapping[str, Any]) -> int:
    """A running arena's due steps (see the module); how many were taken."""
    store = runner.store
    event = int(ev["id"])
    now = runner.clock()
    steps = 0
    rows = await asyncio.to_thread(store.event_tables, event, 1)
    over = [r for r in rows if _ended(r) and r["result"] is None]
    if over:
        results = await runner.results_of([r["code"] for r in over])
        for code, result in results.items():
            if await asyncio.to_thread(store.arena_result, event, code, {**result, "ended": now}):
                steps += 1
        rows = await asyncio.to_thread(store.event_tables, event, 1)
    for row in rows:
        if not _ended(row):
            runner.watch(ev, row["code"])
    if now >= arena_ends(ev):
        # The window has closed: the games that ended count, the event is over.
        if await asyncio.to_thread(store.close_round, event, 1, {}, last=True):
            steps += 1
        return steps
    teams = await asyncio.to_thread(store.teams, event)
    ids, games, last = arena_inputs(teams, rows)
    withdrawn = {int(t["id"]) for t in teams if t["withdrawn"]}
    busy = {int(r[k]) for r in rows if not _ended(r) for k in ("team_a", "team_b")}
    free = [i for i in ids if i not in busy and i not in withdrawn]
    seed = {t: n for n, t in enumerate(ids)}
    # The longest waiting first: by when its last game ended (never played: the start).
    free.sort(key=lambda t: (last.get(t, float(ev["starts"])), seed[t]))
    pairs, _ = arena.pair_free(arena.free_teams(arena.standings(ids, games), free))
    if not pairs:
        return steps
    tables = [
        RoundTable(runner.manager.new_code(), len(rows) + n, int(a), int(b))
        for n, (a, b) in enumerate(pairs, 1)
    ]
    if not await asyncio.to_thread(store.add_arena_tables, event, len(rows), tables):
        return steps  # another step paired first
    rows = await asyncio.to_thread(store.event_tables, event, 1)
    rounds = await asyncio.to_thread(store.rounds, event)
    return steps + 1 + await runner.open_missing(ev, rounds[-1], rows)
