"""Events in a :class:`~seep.web.store.Store` (docs/web.md "Events"): the events organisers
make, their teams, their rounds and the tables each round opened.

An event's state is all here, so that it survives a restart: the runner
(:mod:`seep.web.events`) reads it, and each step it takes (a round opened, a round's results
and the event's next state) is one transaction that names the state it starts from, so that a
step taken twice (two ticks, two instances) is taken once.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import delete, func, insert, or_, select, update
from sqlalchemy.engine import Connection, Engine

from .schema import event_rounds_t, event_tables_t, event_teams_t, events_t, tables_t

__all__ = [
    "ACTIVE",
    "EventRefused",
    "RoundTable",
    "StepLost",
    "StoreEvents",
    "forget_events",
]

ACTIVE = ("open", "running", "paused")  # an event not finished


class EventRefused(Exception):
    """A write an event's state or limits refuse: ``code`` is the error code the route
    answers with, the message says why."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class RoundTable:
    """A table a round opens: its code, board (from 1), teams, whether ``team_a`` holds
    side 1 (``swapped``), the round's ``deal`` it plays (a duplicate round's; else 0), and
    partners drawn each round, the second player of each side (``team_a2``, ``team_b2``)."""

    code: str
    board: int
    team_a: int
    team_b: int
    swapped: bool = False
    deal: int = 0
    team_a2: int | None = None  # partners drawn each round: each side's second player
    team_b2: int | None = None


def forget_events(c: Connection, account: int, former: str) -> None:
    """A deleted account leaves the events it was in (its teams' lines read ``former``, no
    account: a later account given the same id inherits nothing) inside the caller's
    transaction; the events and results stay."""
    teams = event_teams_t
    c.execute(update(teams).where(teams.c.player1 == account).values(player1=None, name1=former))
    c.execute(update(teams).where(teams.c.player2 == account).values(player2=None, name2=former))
    c.execute(
        update(events_t)
        .where(events_t.c.organiser == account)
        .values(organiser=None, organiser_name=former)
    )


class StepLost(Exception):
    """Another writer got to an event's step first: its transaction is rolled back."""


def _row(r: Any) -> dict[str, Any]:
    return dict(r._mapping)


class StoreEvents:
    """The store's events; ``engine`` is the store's."""

    engine: Engine

    # --- events -----------------------------------------------------------------------------

    def create_event(self, values: Mapping[str, Any], *, per_organiser: int) -> int:
        """Store a new event (``values``: the columns of ``events`` but ``id``, ``status``,
        ``round``, ``created``); refused (:class:`EventRefused` ``too_many_events``) when its
        organiser has ``per_organiser`` events not finished. Returns its id."""
        with self.engine.begin() as c:
            mine = c.execute(
                select(func.count())
                .select_from(events_t)
                .where(events_t.c.organiser == values["organiser"], events_t.c.status.in_(ACTIVE))
            ).scalar_one()
            if per_organiser and mine >= per_organiser:
                raise EventRefused(
                    "too_many_events",
                    f"at most {per_organiser} events not finished per organiser: end one first",
                )
            made = c.execute(
                insert(events_t).values(
                    **values, status="open", round=0, created=time.time(), ended=None
                )
            )
            assert made.inserted_primary_key is not None
            return int(made.inserted_primary_key[0])

    def event(self, event: int) -> dict[str, Any] | None:
        """An event's row, or ``None``."""
        with self.engine.connect() as c:
            r = c.execute(select(events_t).where(events_t.c.id == event)).first()
        return None if r is None else _row(r)

    def events(self, statuses: Sequence[str], limit: int) -> list[dict[str, Any]]:
        """Events of these statuses, soonest start first, at most ``limit``."""
        with self.engine.connect() as c:
            rows = c.execute(
                select(events_t)
                .where(events_t.c.status.in_(statuses))
                .order_by(events_t.c.starts, events_t.c.id)
                .limit(limit)
            )
            return [_row(r) for r in rows]

    def set_event(self, event: int, was: Sequence[str], **values: Any) -> bool:
        """Change an event whose status is one of ``was``; whether it was."""
        with self.engine.begin() as c:
            done = c.execute(
                update(events_t)
                .where(events_t.c.id == event, events_t.c.status.in_(was))
                .values(**values)
            )
            return done.rowcount == 1

    # --- teams ------------------------------------------------------------------------------

    def teams(self, event: int) -> list[dict[str, Any]]:
        """An event's teams in the order they registered (its seed order)."""
        with self.engine.connect() as c:
            rows = c.execute(
                select(event_teams_t)
                .where(event_teams_t.c.event == event)
                .order_by(event_teams_t.c.id)
            )
            return [_row(r) for r in rows]

    def add_team(
        self,
        event: int,
        players: Sequence[tuple[int, str]],
        *,
        max_teams: int,
    ) -> int:
        """Register a team of ``players`` (account, name: one, or two partners, the second
        to accept) in an open event; refused when a player is in one of its teams already
        or the event is full. Returns the team's id."""
        t = event_teams_t
        accounts = [p[0] for p in players]
        with self.engine.begin() as c:
            status = c.execute(select(events_t.c.status).where(events_t.c.id == event)).scalar()
            if status != "open":
                raise EventRefused("not_allowed", "this event takes no registrations now")
            taken = c.execute(
                select(func.count())
                .select_from(t)
                .where(
                    t.c.event == event,
                    t.c.withdrawn == False,  # noqa: E712 (SQL, not Python)
                    or_(t.c.player1.in_(accounts), t.c.player2.in_(accounts)),
                )
            ).scalar_one()
            if taken:
                raise EventRefused("not_allowed", "a player of this team is registered already")
            count = c.execute(
                select(func.count())
                .select_from(t)
                .where(t.c.event == event, t.c.withdrawn == False)  # noqa: E712
            ).scalar_one()
            if count >= max_teams:
                raise EventRefused("event_full", f"this event is full ({max_teams} teams)")
            made = c.execute(
                insert(t).values(
                    event=event,
                    player1=players[0][0],
                    name1=players[0][1],
                    player2=players[1][0] if len(players) > 1 else None,
                    name2=players[1][1] if len(players) > 1 else None,
                    accepted=len(players) == 1,
                    checked_in=False,
                    withdrawn=False,
                    created=time.time(),
                )
            )
            assert made.inserted_primary_key is not None
            return int(made.inserted_primary_key[0])

    def set_team(self, event: int, team: int, where: Mapping[str, Any], **values: Any) -> bool:
        """Change a team of ``event`` whose columns are as ``where`` says; whether it was."""
        t = event_teams_t
        checks = [t.c[k] == v for k, v in where.items()]
        with self.engine.begin() as c:
            done = c.execute(
                update(t).where(t.c.event == event, t.c.id == team, *checks).values(**values)
            )
            return done.rowcount == 1

    def drop_team(self, event: int, team: int) -> None:
        """Forget a team registered to an event that has not started."""
        with self.engine.begin() as c:
            c.execute(
                delete(event_teams_t).where(
                    event_teams_t.c.event == event, event_teams_t.c.id == team
                )
            )

    # --- rounds -----------------------------------------------------------------------------

    def rounds(self, event: int) -> list[dict[str, Any]]:
        """An event's rounds, first first."""
        with self.engine.connect() as c:
            rows = c.execute(
                select(event_rounds_t)
                .where(event_rounds_t.c.event == event)
                .order_by(event_rounds_t.c.number)
            )
            return [_row(r) for r in rows]

    def event_tables(self, event: int, number: int | None = None) -> list[dict[str, Any]]:
        """The tables of an event's rounds (of round ``number`` only, when given), with each
        table's status in the store (``table_status``), by round and board."""
        et = event_tables_t
        query = (
            select(et, tables_t.c.status.label("table_status"))
            .select_from(et.outerjoin(tables_t, tables_t.c.code == et.c.code))
            .where(et.c.event == event)
            .order_by(et.c.round, et.c.deal, et.c.board)
        )
        if number is not None:
            query = query.where(et.c.round == number)
        with self.engine.connect() as c:
            return [_row(r) for r in c.execute(query)]

    def table_records(self, codes: Iterable[str]) -> dict[str, str | None]:
        """The stored game records (JSON text) of tables, by code."""
        with self.engine.connect() as c:
            rows = c.execute(
                select(tables_t.c.code, tables_t.c.record).where(tables_t.c.code.in_(list(codes)))
            )
            return {r.code: r.record for r in rows}

    def table_forfeits(self, codes: Iterable[str]) -> dict[str, list[int]]:
        """The seats that forfeited (docs/web.md "Fair play") at tables, by code (those
        with none are left out)."""
        with self.engine.connect() as c:
            rows = c.execute(
                select(tables_t.c.code, tables_t.c.seats).where(tables_t.c.code.in_(list(codes)))
            )
            out = {
                r.code: [i for i, s in enumerate(json.loads(r.seats or "[]")) if s.get("forfeited")]
                for r in rows
            }
        return {code: seats for code, seats in out.items() if seats}

    def without_bots(self, code: str) -> bool:
        """Whether ``code`` is a table of an event not finished whose absent players get no
        bot (``bots`` false)."""
        et = event_tables_t
        with self.engine.connect() as c:
            found = c.execute(
                select(et.c.code)
                .select_from(et.join(events_t, events_t.c.id == et.c.event))
                .where(
                    et.c.code == code,
                    events_t.c.bots == False,  # noqa: E712 (SQL, not Python)
                    events_t.c.status != "finished",
                )
            ).first()
        return found is not None

    def sealed_table(self, code: str) -> bool | None:
        """Whether ``code`` is a table of a duplicate event still running whose deal has no
        results yet (not every table of its round has finished it): True; False for an
        event's table that is open; ``None`` for a code no running duplicate event has."""
        et = event_tables_t
        with self.engine.connect() as c:
            found = c.execute(
                select(et.c.result)
                .select_from(et.join(events_t, events_t.c.id == et.c.event))
                .where(
                    et.c.code == code,
                    events_t.c.kind == "duplicate",
                    events_t.c.status != "finished",
                )
            ).first()
        return None if found is None else found.result is None
