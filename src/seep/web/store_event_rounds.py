"""An event's rounds in a :class:`~seep.web.store.Store` (docs/web.md "Events"): a round
opened with its tables, a duplicate deal's results written and the next deal's tables made,
an arena's results and the tables it pairs at once, a round closed with its results. Each is
one transaction that names the state it starts from (:mod:`seep.web.store_events`), so that a
step taken twice (two ticks, two instances) is taken once.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import and_, func, insert, select, update
from sqlalchemy.engine import Connection, Engine

from .schema import event_rounds_t, event_tables_t, events_t
from .store_events import RoundTable, StepLost

__all__ = ["StoreEventRounds"]


def _add_tables(c: Connection, event: int, number: int, tables: Sequence[RoundTable]) -> None:
    """Write the tables of round ``number`` of ``event`` in the caller's transaction, with
    no result yet."""
    for t in tables:
        c.execute(
            insert(event_tables_t).values(
                code=t.code,
                event=event,
                round=number,
                board=t.board,
                deal=t.deal,
                team_a=t.team_a,
                team_b=t.team_b,
                team_a2=t.team_a2,
                team_b2=t.team_b2,
                swapped=t.swapped,
                result=None,
            )
        )


class StoreEventRounds:
    """The store's writes of an event's rounds; ``engine`` is the store's."""

    engine: Engine

    def open_round(
        self, event: int, number: int, *, seed: int, bye: int | None, tables: Sequence[RoundTable]
    ) -> bool:
        """Record round ``number`` of a running event as opened with ``tables``, if the
        event's last round is the one before (else another step got there first: False)."""
        now = time.time()
        with self.engine.begin() as c:
            done = c.execute(
                update(events_t)
                .where(
                    events_t.c.id == event,
                    events_t.c.round == number - 1,
                    events_t.c.status == "running",
                )
                .values(round=number)
            )
            if done.rowcount != 1:
                return False
            c.execute(
                insert(event_rounds_t).values(
                    event=event,
                    number=number,
                    status="playing",
                    bye=bye,
                    seed=str(seed),
                    started=now,
                    ended=None,
                )
            )
            _add_tables(c, event, number, tables)
            return True

    def close_round(
        self,
        event: int,
        number: int,
        results: Mapping[str, Mapping[str, Any]],
        *,
        last: bool,
    ) -> bool:
        """Record the results (by table code) of round ``number`` and mark it done, once
        (False: it was done already); the event ends with its ``last`` round."""
        now = time.time()
        r = event_rounds_t
        with self.engine.begin() as c:
            done = c.execute(
                update(r)
                .where(r.c.event == event, r.c.number == number, r.c.status == "playing")
                .values(status="done", ended=now)
            )
            if done.rowcount != 1:
                return False
            for code, result in results.items():
                c.execute(
                    update(event_tables_t)
                    .where(and_(event_tables_t.c.code == code, event_tables_t.c.event == event))
                    .values(result=json.dumps(result))
                )
            if last:
                c.execute(
                    update(events_t)
                    .where(events_t.c.id == event)
                    .values(status="finished", ended=now)
                )
            return True

    def close_deal(
        self,
        event: int,
        number: int,
        deal: int,
        results: Mapping[str, Mapping[str, Any]],
        following: Sequence[RoundTable],
    ) -> bool:
        """Record the results (by table code) of deal ``deal`` of duplicate round ``number``
        and the tables of the deal that ``following`` it, once (False: it was done already, or
        the round is no longer played). The results written are what opens the deal to
        everyone (:meth:`sealed_table`)."""
        try:
            with self.engine.begin() as c:
                return self._close_deal(c, event, number, deal, results, following)
        except StepLost:
            return False  # rolled back: another step wrote the deal first

    @staticmethod
    def _close_deal(
        c: Connection,
        event: int,
        number: int,
        deal: int,
        results: Mapping[str, Mapping[str, Any]],
        following: Sequence[RoundTable],
    ) -> bool:
        et = event_tables_t
        playing = c.execute(
            select(event_rounds_t.c.status).where(
                event_rounds_t.c.event == event, event_rounds_t.c.number == number
            )
        ).scalar()
        if playing != "playing":
            return False
        for code, result in results.items():
            done = c.execute(
                update(et)
                .where(
                    et.c.code == code,
                    et.c.event == event,
                    et.c.round == number,
                    et.c.deal == deal,
                    et.c.result.is_(None),
                )
                .values(result=json.dumps(result))
            )
            if done.rowcount != 1:
                raise StepLost
        _add_tables(c, event, number, following)
        return True

    def arena_result(self, event: int, code: str, result: Mapping[str, Any]) -> bool:
        """Record an arena game's result, once (False: it was already)."""
        et = event_tables_t
        with self.engine.begin() as c:
            done = c.execute(
                update(et)
                .where(et.c.code == code, et.c.event == event, et.c.result.is_(None))
                .values(result=json.dumps(result))
            )
            return done.rowcount == 1

    def add_arena_tables(self, event: int, have: int, tables: Sequence[RoundTable]) -> bool:
        """Record new games of a running arena (its round 1) if it has ``have`` games so far
        (else another step paired first: False)."""
        et = event_tables_t
        try:
            with self.engine.begin() as c:
                # The event's row first: its lock keeps two steps from pairing at once.
                running = c.execute(
                    update(events_t)
                    .where(events_t.c.id == event, events_t.c.status == "running")
                    .values(round=1)
                ).rowcount
                count = c.execute(
                    select(func.count()).select_from(et).where(et.c.event == event)
                ).scalar_one()
                if running != 1 or count != have:
                    raise StepLost
                _add_tables(c, event, 1, tables)  # an arena is one round
                return True
        except StepLost:
            return False
