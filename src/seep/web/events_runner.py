"""The events' runner (docs/web.md "Events"): it opens each round's tables, reads their results
and pairs the next round, every step from the store, so that a restarted server goes on where
an event stood. :meth:`EventRunner.tick` (every few seconds, and at once when a round's table
ends) takes the steps that are due:

- an open event whose start time has come starts with its checked-in teams (too few: it ends);
- a running event without a round being played records the next (the pairing of
  :func:`seep.web.tournament.swiss.pair_round` over the results so far, the bye, a table code
  per pair), then opens its tables (:meth:`~seep.web.tables.TableManager.open_seated`); a
  recorded table that is not open yet (a restart came between) opens at the next tick;
- a round whose tables have all ended (finished, or closed unfinished) has its results read
  from the tables' stored records (replayed by the core: who won, each side's score) and
  written, with the round marked done, in one transaction that happens once.

**Duplicate rounds** (:mod:`seep.web.tournament.duplicate`): deal ``k`` of a round is a table
per pair, a match of one deal seeded by ``deal_seed(round seed, k)``, so every table holds the
same cards in the same seats, every second table with the teams' sides swapped. Deal ``k + 1``'s
tables are recorded and opened only when every table of deal ``k`` has ended, in the one
transaction that writes deal ``k``'s results: what opens a deal's records and results
(:meth:`EventRunner.sealed`) is that write.

When tables open, each player seated at one is told over the sockets of his seat at his earlier
table of the event, if this instance holds it (:meth:`EventRunner.tell_next`: ``event_table``,
naming the event only).

A player's seat token is not kept: it is derived from a server secret, the table and the seat
(:meth:`EventRunner.token`), so that a signed-in player asks for it again from any device.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import hmac
import json
import logging
import random
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from . import events_arena, wire
from .events_page import playing, result_of_record, seats_of, swiss_inputs, with_forfeits
from .store import Store, StoreUnavailable
from .store_events import RoundTable
from .table import Table, parse_settings
from .tables import TableManager
from .tournament import TeamId, duplicate, individual, swiss

__all__ = ["EventRunner", "EventSettings"]

log = logging.getLogger("seep.web.events")

# Several instances: the runner's lease, stored with the tables' (no table code has 7
# characters or a "~"), lasts this many ticks unless renewed.
RUNNER_LEASE = "~EVENTS"
RUNNER_LEASE_TICKS = 5
UNSEALED_CACHE = 4096  # codes known open (what opens never closes): no query for them again


@dataclass(frozen=True)
class EventSettings:
    """An event's bounds: events not finished per organiser, teams per event, events listed,
    and how often the runner looks (seconds)."""

    per_organiser: int = 3
    max_teams: int = 64
    listed: int = 50
    tick_seconds: float = 2.0


Pair = tuple[int, int, int | None, int | None]  # team_a, team_b and their drawn partners


def _sides(a: Sequence[TeamId], b: Sequence[TeamId]) -> Pair:
    """A drawn table's sides as a pair of players and their partners (a lone player: none)."""
    a2 = int(a[1]) if len(a) > 1 else None
    b2 = int(b[1]) if len(b) > 1 else None
    return int(a[0]), int(b[0]), a2, b2


def _ended(row: Mapping[str, Any]) -> bool:
    return row["table_status"] in ("finished", "closed")


class EventRunner:
    """The runner's half of :class:`seep.web.events.Events`. ``clock`` gives the time (seconds
    since 1970). Call the async methods on the event loop's thread (they open tables)."""

    def __init__(
        self,
        manager: TableManager,
        store: Store,
        settings: EventSettings = EventSettings(),
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.manager = manager
        self.store = store
        self.settings = settings
        self.clock = clock
        self._secret = base64.urlsafe_b64decode(
            store.server_key(
                "events", lambda: base64.urlsafe_b64encode(secrets.token_bytes(32)).decode()
            )
        )
        self._lock = asyncio.Lock()
        self._due = asyncio.Event()
        self._loop: asyncio.AbstractEventLoop | None = None  # the runner's, once it runs
        # The codes of the round tables this instance opened or saw: their end wakes the runner.
        self.codes: set[str] = set()
        self._unsealed: set[str] = set()

    def token(self, code: str, seat: int) -> str:
        """The token of ``seat`` at the round table ``code`` (derived, never stored)."""
        mac = hmac.new(self._secret, f"event-seat:{code}:{seat}".encode(), hashlib.sha256)
        return base64.urlsafe_b64encode(mac.digest()[:24]).decode()

    def sealed(self, code: str) -> bool:
        """Whether table ``code`` is a duplicate deal not every table of its round has
        finished (of an event still running): then nothing of it is shown to anyone (summary,
        record, replay, spectators, the event's page); its own players play it over their
        seats' sockets. A live table not an event's needs no query; a deal known open is
        never asked about again (what opens never closes)."""
        code = code.upper()
        live = self.manager.tables.get(code)
        if live is not None and not live.client.startswith("event:"):
            return False
        if code in self._unsealed:
            return False
        found = self.store.sealed_table(code)
        if found is False:  # an event's table, open: for good
            if len(self._unsealed) >= UNSEALED_CACHE:
                self._unsealed.clear()
            self._unsealed.add(code)
        return bool(found)

    def seedless(self, code: str) -> bool:
        """Whether table ``code``'s record is shown without its seed: a duplicate deal of an
        event still running (its seed shows that deal only, already open, but no seed is
        answered while the event runs)."""
        code = code.upper()
        return code in self._unsealed or self.store.sealed_table(code) is not None

    # --- the loop ---------------------------------------------------------------------------

    def table_changed(self, code: str, status: str) -> None:
        """A table's state is about to be sent (the manager's observer): a round table that
        ended wakes the runner."""
        if status in ("finished", "closed") and code in self.codes:
            self.codes.discard(code)
            self.manager.no_bots.discard(code)
            self._due.set()

    def forfeits(self, table: Table) -> None:
        """A table's state is about to be sent (the manager's observer): at a table of an event
        without bots a seat that forfeited ends it (closed; the runner counts it lost for that
        side), as nobody would play for him."""
        if (
            table.code in self.manager.no_bots
            and table.status == "playing"
            and any(s.forfeited for s in table.seats)
            and self._loop is not None
        ):
            self._loop.call_soon(self._close_forfeited, table.code)

    def _close_forfeited(self, code: str) -> None:
        table = self.manager.tables.get(code)
        if table is None or table.status != "playing":
            return
        try:
            self.manager.close(table)
        except StoreUnavailable as exc:  # closed at a later change or sweep
            log.warning("events: table %s not closed: %s", code, exc)
        self._due.set()

    def wake(self) -> None:
        """Take the steps due now rather than at the next tick (from any thread)."""
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._due.set)

    async def run(self) -> None:
        """Tick forever (a task of the app): every ``tick_seconds``, or at once when woken."""
        self._loop = asyncio.get_running_loop()
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._due.wait(), self.settings.tick_seconds)
            self._due.clear()
            try:
                await self.tick()
            except Exception as exc:  # a bug or a database away must not stop the events
                log.exception("events: a step failed: %s", exc)

    async def tick(self) -> int:
        """Take every step that is due (see the module); how many were taken. With several
        instances on the database only the holder of the runner's lease takes them."""
        async with self._lock:
            if not await self.runs_here():
                return 0
            steps = 0
            events = await asyncio.to_thread(self.store.events, ("open", "running"), 200)
            for ev in events:
                steps += await self._step(ev)
            return steps

    async def _step(self, ev: Mapping[str, Any]) -> int:
        event = int(ev["id"])
        now = self.clock()
        store = self.store
        if ev["status"] == "open":
            if ev["starts"] > now:
                return 0
            teams = [t for t in await asyncio.to_thread(store.teams, event) if playing(t)]
            if len(teams) < 2:
                await asyncio.to_thread(
                    store.set_event, event, ("open",), status="finished", ended=now
                )
                return 1
            await asyncio.to_thread(store.set_event, event, ("open",), status="running")
            if ev["kind"] == "arena":
                return 1 + await self._start_arena({**ev, "status": "running"})
            return 1 + await self._open_next(event)
        rounds = await asyncio.to_thread(store.rounds, event)
        if ev["kind"] == "arena":
            if not rounds:  # its one round is recorded at the start (a restart came between)
                return await self._start_arena(ev)
            return await events_arena.step(self, ev)
        if not rounds or rounds[-1]["status"] == "done":
            return await self._open_next(event)
        current = rounds[-1]
        number = int(current["number"])
        rows = await asyncio.to_thread(store.event_tables, event, number)
        deal = max((int(r["deal"]) for r in rows), default=0)
        rows = [r for r in rows if int(r["deal"]) == deal]  # the deal being played
        if await self.open_missing(ev, current, rows):
            return 1
        for row in rows:
            if not _ended(row):
                self.watch(ev, row["code"])
        if not all(_ended(r) for r in rows):
            return 0
        results = await self.results_of([r["code"] for r in rows])
        if ev["kind"] == "duplicate" and deal + 1 < int(ev["deals"]):
            following = [
                RoundTable(
                    self.manager.new_code(),
                    r["board"],
                    r["team_a"],
                    r["team_b"],
                    bool(r["swapped"]),
                    deal + 1,
                )
                for r in rows
            ]
            if not await asyncio.to_thread(
                store.close_deal, event, number, deal, results, following
            ):
                return 0
            return 1 + await self.open_missing(
                ev, current, await asyncio.to_thread(store.event_tables, event, number)
            )
        last = number >= ev["rounds"]
        if not await asyncio.to_thread(store.close_round, event, number, results, last=last):
            return 0
        return 1 + (0 if last else await self._open_next(event))

    async def _start_arena(self, ev: Mapping[str, Any]) -> int:
        """Record an arena's one round, then pair its teams."""
        event = int(ev["id"])
        await asyncio.to_thread(
            self.store.open_round, event, 1, seed=secrets.randbits(62), bye=None, tables=[]
        )
        return 1 + await events_arena.step(self, ev)

    async def runs_here(self) -> bool:
        """Whether this instance runs the events now: alone on its database, or holding the
        runner's lease (taken or renewed at each tick; an instance that stops gives it up, a
        dead one's runs out after ``RUNNER_LEASE_TICKS`` ticks and another takes it)."""
        if not self.manager.clustered:
            return True
        ttl = RUNNER_LEASE_TICKS * self.settings.tick_seconds
        lease = await asyncio.to_thread(self.store.take_lease, RUNNER_LEASE, ttl)
        return lease.taken

    def watch(self, ev: Mapping[str, Any], code: str) -> None:
        """A round table being played (seen again after a restart): its end wakes the runner;
        at an event without bots its absent players get none."""
        self.codes.add(code)
        if not ev["bots"]:
            self.manager.no_bots.add(code)

    async def results_of(self, codes: Sequence[str]) -> dict[str, dict[str, Any]]:
        """The results of ended tables, from their stored records and forfeits, by code."""
        records = await asyncio.to_thread(self.store.table_records, codes)
        forfeits = await asyncio.to_thread(self.store.table_forfeits, codes)
        return {
            code: with_forfeits(
                result_of_record(json.loads(text) if text else None), forfeits.get(code, [])
            )
            for code, text in records.items()
        }

    async def _open_next(self, event: int) -> int:
        """Record the event's next round (it is running, and no round is being played): its
        pairing and a code for each table; then open its tables (:meth:`_open_missing`)."""
        plan = await asyncio.to_thread(self._plan, event)
        if plan is None:
            return 1
        number, round_seed, bye, pairs, swap = plan
        # Duplicate: every second table swapped, so half the field holds each side of a deal.
        swapped = [swap and t.swapped for t in duplicate.tables([p[:2] for p in pairs])]
        tables = [
            RoundTable(self.manager.new_code(), board, a, b, swapped[board - 1], 0, a2, b2)
            for board, (a, b, a2, b2) in enumerate(pairs, 1)
        ]
        done = await asyncio.to_thread(
            self.store.open_round, event, number, seed=round_seed, bye=bye, tables=tables
        )
        if not done:
            return 0  # another step recorded the round first
        rows = await asyncio.to_thread(self.store.event_tables, event, number)
        ev = await asyncio.to_thread(self.store.event, event)
        rounds = await asyncio.to_thread(self.store.rounds, event)
        assert ev is not None
        return 1 + await self.open_missing(ev, rounds[-1], rows)

    def _plan(self, event: int) -> tuple[int, int, int | None, list[Pair], bool] | None:
        """The next round's number, seed, bye, pairs (with, partners drawn each round, their
        partners) and whether every second table is swapped (duplicate), in a worker thread;
        ``None`` when the event is over instead (its last round played, or fewer than two
        teams left), which it records."""
        ev = self.store.event(event)
        if ev is None or ev["status"] != "running":
            return None
        number = int(ev["round"]) + 1
        teams = self.store.teams(event)
        ids, results, withdrawn = swiss_inputs(
            teams, self.store.rounds(event), self.store.event_tables(event)
        )
        if number > ev["rounds"] or len([i for i in ids if i not in withdrawn]) < 2:
            self.store.set_event(event, ("running",), status="finished", ended=self.clock())
            return None
        round_seed = random.Random(f"seep-event:{ev['seed']}:{number}").randrange(1 << 62)
        if ev["partners"] == "individual":
            drawn = individual.draw(
                swiss.standings(ids, results, withdrawn), random.Random(round_seed)
            )
            bye = None if drawn.bye is None else int(drawn.bye)
            return number, round_seed, bye, [_sides(a, b) for a, b in drawn.tables], False
        pairing = swiss.pair_round(ids, results, withdrawn)
        bye = None if pairing.bye is None else int(pairing.bye)
        pairs: list[Pair] = [(int(a), int(b), None, None) for a, b in pairing.pairs]
        return number, round_seed, bye, pairs, ev["kind"] == "duplicate"

    async def open_missing(
        self, ev: Mapping[str, Any], round_row: Mapping[str, Any], rows: Sequence[Mapping[str, Any]]
    ) -> int:
        """Open the recorded tables of a round that are not in the store yet: all of them just
        after the round (a duplicate deal) was recorded, or those a restart came between (the
        tables are recorded before they open, so that none is opened twice). How many."""
        missing = [r for r in rows if r["table_status"] is None]
        if not missing:
            return 0
        event = int(ev["id"])
        teams = await asyncio.to_thread(self.store.teams, event)
        by_id = {int(t["id"]): t for t in teams}
        players = 4 if ev["format"] == "four" else 2
        dup = ev["kind"] == "duplicate"
        settings = parse_settings(
            {
                "preset": "standard" if players == 4 else "two_player",
                "bots": "medium",
                # A round of baazis plays until a side has won them (R45, R46).
                **(
                    {"baazis": int(ev["baazis"])}
                    if ev.get("baazis") and not dup
                    else {"deals": 1 if dup else int(ev["deals"])}
                ),
                "rated": bool(ev["rated"]),
            }
        )
        accounts: set[int] = set()
        for row in missing:
            seats = {s: (name, acc) for s, (acc, name) in seats_of(row, by_id, players).items()}
            # A duplicate deal: every table of the round holds the same cards in the same seats.
            seed = (
                duplicate.deal_seed(int(round_row["seed"]), int(row["deal"]))
                if dup
                else secrets.randbits(62)
            )
            self.manager.open_seated(
                settings, seed, seats, self.token, f"event:{event}", row["code"]
            )
            self.watch(ev, row["code"])  # no bot for an absent player, before any grace ends
            accounts.update(acc for _, acc in seats.values() if acc is not None)
        await self.tell_next(event, accounts, {r["code"] for r in missing})
        return len(missing)

    async def tell_next(self, event: int, accounts: set[int], opened: set[str]) -> int:
        """Tell the players of ``accounts``, just seated at the tables ``opened`` of ``event``,
        that their next table is open: one ``event_table`` message to each socket this
        instance holds of a seat of theirs at an earlier table of the event that is not being
        played (where a player usually still reads the last summary). It names the event only:
        the seat is claimed through ``POST /api/events/{id}/seat`` with the page's session,
        so no code or token travels to a socket. A table another instance holds is not here:
        its sockets learn nothing (the push and the event's page still tell them). How many
        sockets were told."""
        if not accounts or not self.manager.hub.conns:
            return 0
        rows = await asyncio.to_thread(self.store.event_tables, event)
        text = wire.dumps({"type": "event_table", "event": event, "url": f"/events/{event}"})
        told = 0
        for code in {r["code"] for r in rows} - opened:
            table = self.manager.tables.get(code)
            conns = self.manager.hub.of(code)
            if table is None or not conns or table.status == "playing":
                continue
            seats = {i for i, s in enumerate(table.seats) if s.account in accounts}
            for conn in conns:
                if conn.seat in seats and conn.close_code is None:
                    conn.push(text)
                    told += 1
        return told
