"""Events in the store (revision 0010, seep.web.store_events): a database written at 0009 gains
the events' tables and loses nothing; the store's steps of an event are taken once."""

from __future__ import annotations

import sqlite3
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


def test_a_database_at_0009_gains_events_and_loses_nothing(tmp_path: Path) -> None:
    """Revision 0010 on a database at 0009 with an account, its session and a push key:
    every row is kept, the new tables take an event with a team, and a downgrade to 0009
    removes them again."""
    db = tmp_path / "seep.db"
    engine = create_engine(f"sqlite:///{db}")
    with engine.begin() as c:
        migrations.upgrade(c, "0009")
    with engine.begin() as c:
        c.exec_driver_sql(
            "INSERT INTO accounts (name, name_key, password_hash, created) "
            "VALUES ('Before', 'before', 'hash', 1.0)"
        )
        c.exec_driver_sql("INSERT INTO sessions VALUES ('h', 1, 1.0, 2.0)")
        c.exec_driver_sql("INSERT INTO server_keys VALUES ('vapid', '{}', 1.0)")
    engine.dispose()
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
    engine = create_engine(f"sqlite:///{db}")
    with engine.begin() as c:
        command.downgrade(migrations.config(c), "0009")
        names = set(c.exec_driver_sql("SELECT name FROM sqlite_master").scalars())
        assert not names & {"events", "event_teams", "event_rounds", "event_tables"}
    engine.dispose()


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
