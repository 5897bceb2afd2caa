"""Events in the store (revision 0010, seep.web.store_events): a database written at 0009 gains
the events' tables and loses nothing; the store's steps of an event are taken once."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("alembic")

from alembic import command
from sqlalchemy import create_engine

from seep.web import migrations
from seep.web.store import Store
from seep.web.store_events import EventRefused, RoundTable


def _dump(db: Path, table: str) -> list[tuple[Any, ...]]:
    con = sqlite3.connect(db)
    try:
        return sorted(con.execute(f"SELECT * FROM {table}"))
    finally:
        con.close()


def _event(store: Store, organiser: int = 1, **values: Any) -> int:
    base: dict[str, Any] = {
        "name": "Friday Seep",
        "organiser": organiser,
        "organiser_name": "Before",
        "kind": "swiss",
        "format": "two",
        "rated": False,
        "partners": "registered",
        "bots": True,
        "starts": 1000.0,
        "rounds": 3,
        "deals": 1,
        "seed": "12345",
    }
    return store.create_event({**base, **values}, per_organiser=2)


def _database_at(db: Path, revision: str, *rows: str) -> None:
    """An SQLite file at schema ``revision`` holding ``rows`` (INSERT statements)."""
    engine = create_engine(f"sqlite:///{db}")
    with engine.begin() as c:
        migrations.upgrade(c, revision)
    with engine.begin() as c:
        for row in rows:
            c.exec_driver_sql(row)
    engine.dispose()


def _downgrade(db: Path, revision: str) -> set[str]:
    """Take the file back to ``revision``; the names of its tables then."""
    engine = create_engine(f"sqlite:///{db}")
    with engine.begin() as c:
        command.downgrade(migrations.config(c), revision)
        names = set(c.exec_driver_sql("SELECT name FROM sqlite_master").scalars())
    engine.dispose()
    return names


def test_a_database_at_0009_gains_events_and_loses_nothing(tmp_path: Path) -> None:
    """Revision 0010 on a database at 0009 with an account, its session and a push key:
    every row is kept, the new tables take an event with a team, and a downgrade to 0009
    removes them again."""
    db = tmp_path / "seep.db"
    _database_at(
        db,
        "0009",
        "INSERT INTO accounts (name, name_key, password_hash, created) "
        "VALUES ('Before', 'before', 'hash', 1.0)",
        "INSERT INTO sessions VALUES ('h', 1, 1.0, 2.0)",
        "INSERT INTO server_keys VALUES ('vapid', '{}', 1.0)",
    )
    kept = ("accounts", "sessions", "server_keys")
    before = {t: _dump(db, t) for t in kept}
    store = Store(f"sqlite:///{db}")
    try:
        with store.engine.connect() as c:
            assert migrations.current(c) == migrations.head()
        assert "0010" in migrations.revisions()
        assert {t: _dump(db, t) for t in kept} == before
        event = _event(store)
        team = store.add_team(event, [(1, "Before")], max_teams=8)
        assert [t["id"] for t in store.teams(event)] == [team]
        store.delete_account(1)  # the account's name leaves the event; the event stays
        assert store.teams(event)[0]["name1"] != "Before"
        assert store.teams(event)[0]["player1"] is None  # a later account of id 1 is not in it
        found = store.event(event)
        assert found is not None and found["organiser"] is None
    finally:
        store.close()
    names = _downgrade(db, "0009")
    assert not names & {"events", "event_teams", "event_rounds", "event_tables"}


def test_an_organiser_keeps_few_events_and_a_player_registers_once(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'seep.db'}")
    try:
        first = _event(store)
        _event(store)
        with pytest.raises(EventRefused) as refused:
            _event(store)
        assert refused.value.code == "too_many_events"
        _event(store, organiser=2)  # another organiser's count is his own
        store.add_team(first, [(5, "Asha"), (6, "Ravi")], max_teams=2)
        with pytest.raises(EventRefused):
            store.add_team(first, [(6, "Ravi")], max_teams=2)  # Ravi is in a team already
        store.add_team(first, [(7, "Mina")], max_teams=2)
        with pytest.raises(EventRefused) as full:
            store.add_team(first, [(8, "Kiran")], max_teams=2)
        assert full.value.code == "event_full"
        assert store.set_event(first, ("open",), status="finished")
        with pytest.raises(EventRefused):
            store.add_team(first, [(9, "Dev")], max_teams=9)  # over: no registrations
        assert not store.set_event(first, ("open",), status="running")
    finally:
        store.close()


def test_a_round_opens_once_and_closes_once(tmp_path: Path) -> None:
    """Two steps that open the same round (two ticks): one does; its results are written once."""
    store = Store(f"sqlite:///{tmp_path / 'seep.db'}")
    try:
        event = _event(store, rounds=1)
        a = store.add_team(event, [(5, "Asha")], max_teams=8)
        b = store.add_team(event, [(6, "Ravi")], max_teams=8)
        assert store.set_event(event, ("open",), status="running")
        tables = [RoundTable("ABCDEF", 1, a, b)]
        assert store.open_round(event, 1, seed=7, bye=None, tables=tables)
        assert not store.open_round(event, 1, seed=8, bye=None, tables=tables)
        assert [r["seed"] for r in store.rounds(event)] == ["7"]
        [row] = store.event_tables(event, 1)
        assert (row["team_a"], row["team_b"], row["result"]) == (a, b, None)
        result = {"winner": 0, "points": [60, 40]}
        assert store.close_round(event, 1, {"ABCDEF": result}, last=True)
        assert not store.close_round(event, 1, {"ABCDEF": {"winner": 1}}, last=True)
        assert '"winner": 0' in store.event_tables(event, 1)[0]["result"]
        found = store.event(event)
        assert found is not None and found["status"] == "finished"
    finally:
        store.close()


def test_a_database_at_0010_gains_event_deals(tmp_path: Path) -> None:
    """Revision 0011 on a database at 0010 with an event whose round has a table: both are
    kept, the table reads as deal 0 and the event has no arena window; a downgrade to 0010
    removes the columns again."""
    db = tmp_path / "seep.db"
    _database_at(
        db,
        "0010",
        "INSERT INTO events (name, organiser, organiser_name, kind, format, rated, partners,"
        " bots, starts, rounds, deals, status, round, seed, created) VALUES"
        " ('E', 1, 'Org', 'swiss', 'two', 0, 'registered', 1, 1.0, 3, 1, 'running', 1,"
        " '5', 1.0)",
        "INSERT INTO event_tables (code, event, round, board, team_a, team_b, swapped,"
        " result) VALUES ('ABCDEF', 1, 1, 1, 1, 2, 0, NULL)",
    )
    before = [_dump(db, t) for t in ("events", "event_tables")]
    store = Store(f"sqlite:///{db}")
    try:
        with store.engine.connect() as c:
            assert migrations.current(c) == migrations.head()
        assert "0011" in migrations.revisions()
        [row] = store.event_tables(1)
        assert (row["code"], row["deal"], row["result"]) == ("ABCDEF", 0, None)
        found = store.event(1)
        assert found is not None and found["minutes"] is None and found["name"] == "E"
        assert store.sealed_table("ABCDEF") is None  # a Swiss event's table is never sealed
    finally:
        store.close()
    _downgrade(db, "0010")
    assert [_dump(db, t) for t in ("events", "event_tables")] == before


def test_a_database_at_0011_gains_event_baazis(tmp_path: Path) -> None:
    """Revision 0012 on a database at 0011 with an arena event: it is kept, with no baazis
    (its rounds are deals, as before); a downgrade to 0011 removes the column again."""
    db = tmp_path / "seep.db"
    _database_at(
        db,
        "0011",
        "INSERT INTO events (name, organiser, organiser_name, kind, format, rated, partners,"
        " bots, starts, rounds, deals, minutes, status, round, seed, created) VALUES"
        " ('A', 1, 'Org', 'arena', 'two', 0, 'registered', 1, 1.0, 1, 2, 45, 'running', 1,"
        " '5', 1.0)",
    )
    before = _dump(db, "events")
    store = Store(f"sqlite:///{db}")
    try:
        with store.engine.connect() as c:
            assert migrations.current(c) == migrations.head()
        assert "0012" in migrations.revisions()
        found = store.event(1)
        assert found is not None and found["baazis"] is None
        assert (found["name"], found["deals"], found["minutes"]) == ("A", 2, 45)
    finally:
        store.close()
    _downgrade(db, "0011")
    assert _dump(db, "events") == before


def test_a_duplicate_deal_closes_once_and_opens_the_next(tmp_path: Path) -> None:
    """A duplicate deal's results are written once, with the next deal's tables; the deal's
    tables are sealed until then, open after."""
    store = Store(f"sqlite:///{tmp_path / 'seep.db'}")
    try:
        event = _event(store, kind="duplicate", deals=2, rounds=1)
        teams = [store.add_team(event, [(5 + i, f"P{i}")], max_teams=8) for i in range(4)]
        assert store.set_event(event, ("open",), status="running")
        first = [
            RoundTable("AAAAAA", 1, teams[0], teams[1]),
            RoundTable("BBBBBB", 2, *teams[2:], True),
        ]
        assert store.open_round(event, 1, seed=7, bye=None, tables=first)
        assert store.sealed_table("AAAAAA") is True and store.sealed_table("ZZZZZZ") is None
        nxt = [RoundTable("CCCCCC", 1, teams[0], teams[1], False, 1)]
        results = {"AAAAAA": {"score": [1, 2]}, "BBBBBB": {"score": [3, 4]}}
        assert store.close_deal(event, 1, 0, results, nxt)
        assert not store.close_deal(event, 1, 0, results, [RoundTable("DDDDDD", 1, 1, 2, False, 1)])
        assert store.sealed_table("AAAAAA") is False and store.sealed_table("CCCCCC") is True
        rows = store.event_tables(event, 1)
        assert [(r["code"], r["deal"]) for r in rows] == [
            ("AAAAAA", 0),
            ("BBBBBB", 0),
            ("CCCCCC", 1),
        ]
        assert not store.without_bots("AAAAAA")  # its event lets bots play for no-shows
        assert store.set_event(event, ("running",), status="finished")
        assert store.sealed_table("CCCCCC") is None  # the event is over: nothing sealed
    finally:
        store.close()


def test_one_instance_runs_the_events_under_a_lease(tmp_path: Path) -> None:
    """Several instances on one database: only the holder of the runner's lease takes the
    events' steps; when it stops (its leases given up) or dies (its lease runs out) another
    takes over, and the steps, each naming the state it starts from, are taken once."""
    import asyncio

    from seep.web.events import Events, EventSettings
    from seep.web.tables import TableManager

    url = f"sqlite:///{tmp_path / 'seep.db'}"
    stores = [Store(url, owner=name) for name in ("one", "two")]
    try:
        settings = EventSettings(tick_seconds=0.05)
        runners = [Events(TableManager(s), s, settings) for s in stores]

        async def holders() -> list[bool]:
            return [await r.runs_here() for r in runners]

        assert asyncio.run(holders()) == [True, False]
        assert asyncio.run(holders()) == [True, False]  # renewed by its holder
        stores[0].release_lease()  # the first stops: the second takes over
        assert asyncio.run(runners[1].runs_here())
        assert asyncio.run(holders()) == [False, True]
        # The second dies: its lease runs out after a few ticks, and the first takes it.
        deadline = time.monotonic() + 30
        while not asyncio.run(runners[0].runs_here()):
            assert time.monotonic() < deadline
            time.sleep(settings.tick_seconds)
        assert not asyncio.run(runners[1].runs_here())
        assert asyncio.run(runners[1].tick()) == 0  # it takes no step
    finally:
        for s in stores:
            s.close()
