"""The store's schema migrations (seep.web.migrations): databases written by earlier releases
are upgraded to the newest revision and lose nothing.

``tests/data/databases/{ded8d30,c610f1b,534ed50,dcae479}.db`` were written by those releases'
own web apps (``tests/data/databases/make_old_database.py``, which says how): a waiting table
with a joined player, a table mid-deal and a finished one-deal match, with the seat tokens
beside them. Each is opened by today's app: it is at the newest revision, every row is still
there as it was, every live table resumes with its players' tokens, the mid-deal table goes
on, and the finished match's record replays. On PostgreSQL too, when
``SEEP_TEST_POSTGRES_URL`` names a database.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("alembic")

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, event, insert, text

from seep.moves import Move
from seep.session import Session
from seep.web import migrations
from seep.web.app import create_app
from seep.web.store import Store, leases_t, metadata, moves_t, tables_t
from seep.web.wire import stored_move_text
from seepkit.web import LeakChecker, Player, my_turn, web_client

DATA = Path(__file__).resolve().parents[1] / "data" / "databases"
RELEASES = ["ded8d30", "c610f1b", "534ed50", "dcae479"]
KEPT = ("code", "settings", "seed", "seats", "created", "record")  # what a restore never rewrites


def _fixture(release: str) -> dict[str, Any]:
    info: dict[str, Any] = json.loads((DATA / f"{release}.json").read_text())
    return info


def _rows(db: Path) -> dict[str, list[tuple[Any, ...]]]:
    con = sqlite3.connect(db)
    try:
        return {
            "tables": sorted(con.execute(f"SELECT {', '.join(KEPT)} FROM tables")),
            "moves": sorted(con.execute("SELECT code, seq, move FROM moves")),
        }
    finally:
        con.close()


def _check_resumes(client: Any, manager: Any, checker: Any, info: dict[str, Any]) -> None:
    """Every table of ``info`` answers as it was left, each token takes its seat again, the
    table mid-deal goes on, and the finished match's record replays."""
    for table in info["tables"]:
        code = table["code"]
        summary = client.get(f"/api/tables/{code}")
        assert summary.status_code == 200, summary.text
        assert summary.json()["status"] == table["status"]
        if table["status"] == "finished":
            record = client.get(f"/api/tables/{code}/record")
            assert record.status_code == 200, record.text
            replayed = Session.from_record(record.json())  # every move checked again
            assert replayed.deal_over
            # The same moves and results (an older record's rules lack options added since,
            # which read as their defaults).
            again = [(d["moves"], d["result"]) for d in replayed.to_record()["deals"]]
            assert again == [(d["moves"], d["result"]) for d in record.json()["deals"]]
            continue
        for seat, token in table["tokens"].items():
            p = Player(client, checker, code, token)
            state = p.until(lambda m: m["type"] == "state" and m["seat"] is not None)
            assert state["seat"] == int(seat)
            if table["status"] == "playing":
                before = manager.get(code).moves_made
                assert before > 0
                if not my_turn(state):
                    state = p.until(my_turn)
                p.send({"type": "move", "move": state["legal"][0], "version": state["version"]})
                sent = state["version"]
                p.until(lambda m: m["type"] == "state" and m["version"] > sent)  # noqa: B023
                assert manager.get(code).moves_made > before  # stored, on the upgraded schema
            p.close()


@pytest.mark.parametrize("release", RELEASES)
def test_a_database_of_an_earlier_release_is_upgraded_and_loses_nothing(
    tmp_path: Path, release: str
) -> None:
    db = tmp_path / "seep.db"
    shutil.copy(DATA / f"{release}.db", db)
    info = _fixture(release)
    before = _rows(db)
    assert len(before["tables"]) == info["rows"]["tables"] == 3
    assert len(before["moves"]) == info["rows"]["moves"]
    with web_client(tmp_path) as (client, manager, checker):
        with manager.store.engine.connect() as c:
            assert migrations.current(c) == migrations.head()
        after = _rows(db)
        assert after["tables"] == before["tables"]
        assert set(before["moves"]) <= set(after["moves"])
        _check_resumes(client, manager, checker, info)
        # The accounts' tables came with the upgrade (revision 0003): an account works.
        r = client.post("/api/accounts", json={"name": "Upgraded", "password": "long enough"})
        assert r.status_code == 201 and client.get("/api/me").json()["name"] == "Upgraded"
        # ...and so did the index of their seats (revision 0004).
        code = client.post("/api/tables", json={"bots": "easy"}).json()["code"]
        with sqlite3.connect(db) as con:
            rows = con.execute("SELECT seat FROM seat_accounts WHERE code = ?", (code,)).fetchall()
        assert rows == [(0,)]
    # The moves played on the upgraded schema are on disk (written on the driver's cursor).
    assert len(_rows(db)["moves"]) > len(before["moves"])
    # Opened again: already at the head, nothing to do, nothing lost.
    again = Store(f"sqlite:///{db}")
    try:
        with again.engine.connect() as c:
            assert migrations.current(c) == migrations.head()
        assert set(before["moves"]) <= set(_rows(db)["moves"])
    finally:
        again.close()


def test_todays_store_writes_each_move_as_the_last_release_wrote_it() -> None:
    """Issue 24 changed how the store writes a move (its text kept per move code,
    ``wire.stored_move_text``, written on the event loop when the file is free), not what it
    writes: no column changed, so there is no revision, and a move's row must read exactly as
    dcae479's store wrote it (its fixture, written by that release's own web app)."""
    con = sqlite3.connect(DATA / "dcae479.db")
    try:
        rows = con.execute("SELECT move FROM moves").fetchall()
    finally:
        con.close()
    assert len(rows) == _fixture("dcae479")["rows"]["moves"]
    for (stored,) in rows:
        record = json.loads(stored)
        seat = record.pop("seat")
        assert stored_move_text(seat, int(Move.from_dict(record))) == stored


def test_the_revisions_make_the_stores_schema(tmp_path: Path) -> None:
    """Upgraded from nothing, the database is exactly what seep.web.store's tables declare
    (a change to them without a revision fails here), and it downgrades and upgrades again."""
    engine = create_engine(f"sqlite:///{tmp_path / 'fresh.db'}")
    with engine.begin() as c:
        migrations.upgrade(c)
    with engine.connect() as c:
        assert compare_metadata(MigrationContext.configure(c), metadata) == []
    with engine.begin() as c:
        command.downgrade(migrations.config(c), "base")
    with engine.connect() as c:
        kinds = "type IN ('table', 'index') AND name NOT LIKE 'sqlite_%'"
        names = set(c.exec_driver_sql(f"SELECT name FROM sqlite_master WHERE {kinds}").scalars())
        assert names == {"alembic_version"}, names
    with engine.begin() as c:
        migrations.upgrade(c)
    with engine.connect() as c:
        assert compare_metadata(MigrationContext.configure(c), metadata) == []
    engine.dispose()


def test_a_database_at_0005_gains_the_passkeys_and_loses_nothing(tmp_path: Path) -> None:
    """Revision 0006 (passkeys) on a database at 0005 with an account, its session and a
    rating: every row is kept, the account adds a passkey, and its deletion removes it."""
    db = tmp_path / "seep.db"
    engine = create_engine(f"sqlite:///{db}")
    with engine.begin() as c:
        migrations.upgrade(c, "0005")
    with engine.begin() as c:
        c.exec_driver_sql(
            "INSERT INTO accounts (name, name_key, password_hash, created) "
            "VALUES ('Before', 'before', 'hash', 1.0)"
        )
        c.exec_driver_sql("INSERT INTO sessions VALUES ('h', 1, 1.0, 2.0)")
        c.exec_driver_sql("INSERT INTO ratings VALUES (1, 'four', 25.0, 8.3, 1, 3.0)")
    engine.dispose()
    before = {t: _dump(db, t) for t in ("accounts", "sessions", "ratings")}
    store = Store(f"sqlite:///{db}")
    try:
        with store.engine.connect() as c:
            assert migrations.current(c) == migrations.head()
        assert {t: _dump(db, t) for t in before} == before
        key = store.add_passkey(1, b"id", b"key", b"handle", 0, ["internal"], "Laptop")
        assert store.passkeys_of(1) == [key]
        store.delete_account(1)
        assert store.passkeys_of(1) == []
    finally:
        store.close()


def _dump(db: Path, table: str) -> list[tuple[Any, ...]]:
    con = sqlite3.connect(db)
    try:
        return sorted(con.execute(f"SELECT * FROM {table}"))
    finally:
        con.close()


PG_URL = os.environ.get("SEEP_TEST_POSTGRES_URL")


@contextmanager
def _empty_postgres() -> Iterator[Any]:
    """An engine on the test's PostgreSQL database, emptied before and after (its tables and
    Alembic's version table dropped)."""
    pytest.importorskip("psycopg")
    assert PG_URL is not None
    engine = create_engine(PG_URL)

    def drop_all() -> None:
        with engine.begin() as c:
            c.execute(text("DROP TABLE IF EXISTS alembic_version"))
            metadata.drop_all(c)

    drop_all()
    try:
        yield engine
    finally:
        drop_all()
        engine.dispose()


@pytest.mark.skipif(not PG_URL, reason="SEEP_TEST_POSTGRES_URL names no PostgreSQL database")
def test_a_postgresql_database_written_before_migrations_is_upgraded(tmp_path: Path) -> None:
    """The c610f1b schema made as that release made it (create_all, no revision table), its
    rows copied from the SQLite fixture, then opened by today's store."""
    info = _fixture("c610f1b")
    old = sqlite3.connect(DATA / "c610f1b.db")
    old.row_factory = sqlite3.Row
    with _empty_postgres() as engine, contextlib.closing(old):
        assert PG_URL is not None
        with engine.begin() as c:
            metadata.create_all(c)  # what c610f1b's store did; its schema is the same
            for table in (tables_t, moves_t, leases_t):
                rows = [dict(r) for r in old.execute(f"SELECT * FROM {table.name}")]
                if rows:
                    c.execute(insert(table), rows)
        with engine.connect() as c:
            moves_before = sorted(c.execute(text("SELECT code, seq, move FROM moves")))
        store = Store(PG_URL)
        try:
            with store.engine.connect() as c:
                assert migrations.current(c) == migrations.head()
                moves_after = sorted(c.execute(text("SELECT code, seq, move FROM moves")))
            assert moves_after == moves_before and len(moves_before) == info["rows"]["moves"]
        finally:
            store.close()
        app = create_app(PG_URL, bot_delay=0.002, grace_seconds=30.0)
        with TestClient(app) as client:
            manager = app.state.manager
            checker = LeakChecker(manager)
            try:
                _check_resumes(client, manager, checker, info)
            finally:
                for p in checker.players:
                    p.close()


def test_a_database_at_0006_gains_moderation_and_loses_nothing(tmp_path: Path) -> None:
    """Revision 0008 (moderation, after 0007's indexes) on a database at 0006 with an account,
    its session and its passkey: every row is kept, and the new tables take a report, a ban
    and their audit."""
    db = tmp_path / "seep.db"
    engine = create_engine(f"sqlite:///{db}")
    with engine.begin() as c:
        migrations.upgrade(c, "0006")
    with engine.begin() as c:
        c.exec_driver_sql(
            "INSERT INTO accounts (name, name_key, password_hash, created) "
            "VALUES ('Before', 'before', 'hash', 1.0)"
        )
        c.exec_driver_sql("INSERT INTO sessions VALUES ('h', 1, 1.0, 2.0)")
        c.exec_driver_sql(
            "INSERT INTO passkeys (account, credential_id, public_key, user_handle, sign_count, "
            "transports, label, created) VALUES (1, x'01', x'02', x'03', 0, '[]', 'Key', 1.0)"
        )
    engine.dispose()
    kept = ("accounts", "sessions", "passkeys")
    before = {t: _dump(db, t) for t in kept}
    store = Store(f"sqlite:///{db}")
    try:
        with store.engine.connect() as c:
            assert migrations.current(c) == migrations.head()
        assert {t: _dump(db, t) for t in kept} == before
        row = {"name": "Before", "account": 1, "reason": "other", "note": "", "client": None}
        assert store.add_report(dict(row, reporter_client="192.0.2.1", dedupe="a|b"))
        store.add_sanction("ban", "account", "1", None, "test", "op")
        assert store.sessions_of(1) == 0  # a banned account's sessions end with the ban
        assert [r.action for r in store.audit(10)] == ["ban-account"]
        assert [r.name for r in store.reports(True, 10)] == ["Before"]
    finally:
        store.close()


def test_the_profile_indexes_come_and_go_with_revision_0007(tmp_path: Path) -> None:
    """Revision 0007 (issue 25 item 8): a database at 0005 with ratings keeps them, gains the
    leaderboard's and profile's covering indexes (the reads use them, reading no table row),
    and a downgrade gives back 0005's indexes."""
    engine = create_engine(f"sqlite:///{tmp_path / 'seep.db'}")

    def indexes(c: Any) -> set[str]:
        query = "SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'ix_rat%'"
        return set(c.exec_driver_sql(query).scalars())

    with engine.begin() as c:
        command.upgrade(migrations.config(c), "0005")
        assert indexes(c) == {"ix_ratings_board", "ix_rating_changes_account"}
        c.exec_driver_sql("INSERT INTO accounts VALUES (1, 'Asha', 'asha', 'h', 0)")
        c.exec_driver_sql("INSERT INTO ratings VALUES (1, 'four', 30.0, 4.0, 9, 0)")
    with engine.begin() as c:
        migrations.upgrade(c)
        assert migrations.current(c) == migrations.head()
        assert {"ix_ratings_leaderboard", "ix_rating_changes_profile"} <= indexes(c)
        assert not indexes(c) & {"ix_ratings_board", "ix_rating_changes_account"}
        assert c.exec_driver_sql("SELECT mu, games FROM ratings").all() == [(30.0, 9)]
    store = Store(f"sqlite:///{tmp_path / 'seep.db'}")
    try:
        plans: list[str] = []

        def explain(_c: Any, _cur: Any, sql: str, params: Any, _x: Any, _m: bool) -> None:
            if sql.lstrip().startswith("SELECT") and "rating" in sql:
                with sqlite3.connect(tmp_path / "seep.db") as con:
                    plans.extend(r[-1] for r in con.execute("EXPLAIN QUERY PLAN " + sql, params))

        event.listen(store.engine, "before_cursor_execute", explain)
        total, rows = store.leaderboard("four", 5, 0.0, 6.5, 0, 50)
        assert total == 1 and [r.name for r in rows] == ["Asha"]
        store.stats_of(1)
        store.forfeits_of(1)
        store.rating_changes_of(1, 0, 20)
    finally:
        store.close()
    text = "\n".join(plans)
    assert "COVERING INDEX ix_ratings_leaderboard" in text, text
    assert "COVERING INDEX ix_rating_changes_profile" in text, text
    # The page is picked in the index's order (only its few rows are sorted again, joined).
    assert "SCAN ratings" not in text and "SCAN rating_changes" not in text, text
    with engine.begin() as c:
        command.downgrade(migrations.config(c), "0005")
        assert indexes(c) == {"ix_ratings_board", "ix_rating_changes_account"}
    engine.dispose()


def _at_0008_with_an_account(engine: Any) -> None:
    with engine.begin() as c:
        migrations.upgrade(c, "0008")
    with engine.begin() as c:
        c.exec_driver_sql(
            "INSERT INTO accounts (name, name_key, password_hash, created) "
            "VALUES ('Before', 'before', 'hash', 1.0)"
        )
        c.exec_driver_sql("INSERT INTO sessions VALUES ('h', 1, 1.0, 2.0)")


def _push_works(store: Store) -> None:
    """Revision 0009's tables take the server's key pair and a subscription with a seat, and
    an account's deletion takes its subscriptions."""
    from seep.web.push import VapidKeys

    key = VapidKeys.of(store).public
    assert VapidKeys.of(store).public == key  # made once, then read
    sub = store.add_push_subscription(
        "https://fcm.googleapis.com/fcm/send/x",
        "p" * 87,
        "a" * 22,
        lang="hi",
        account=1,
        client="192.0.2.1",
        seats=[("ABCDEF", "f" * 64)],
        per_client=20,
        per_account=10,
        per_subscription=20,
    )
    assert [t.id for t in store.push_targets("ABCDEF", "f" * 64, None)] == [sub]
    assert [t.lang for t in store.push_targets("OTHER1", None, 1)] == ["hi"]
    store.delete_account(1)
    assert store.push_targets("ABCDEF", "f" * 64, 1) == [] and store.push_count() == 0


def test_a_database_at_0008_gains_push_and_loses_nothing(tmp_path: Path) -> None:
    """Revision 0009 (Web Push) on a database at 0008 with an account and its session: every
    row is kept, the new tables take a key pair and a subscription, and a downgrade to 0008
    removes them again."""
    db = tmp_path / "seep.db"
    engine = create_engine(f"sqlite:///{db}")
    _at_0008_with_an_account(engine)
    engine.dispose()
    kept = ("accounts", "sessions")
    before = {t: _dump(db, t) for t in kept}
    store = Store(f"sqlite:///{db}")
    try:
        with store.engine.connect() as c:
            assert migrations.current(c) == migrations.head()
        assert {t: _dump(db, t) for t in kept} == before
        _push_works(store)
    finally:
        store.close()
    engine = create_engine(f"sqlite:///{db}")
    with engine.begin() as c:
        command.downgrade(migrations.config(c), "0008")
        names = set(c.exec_driver_sql("SELECT name FROM sqlite_master").scalars())
        assert not names & {"server_keys", "push_subscriptions", "push_seats"}
    engine.dispose()


@pytest.mark.skipif(not PG_URL, reason="SEEP_TEST_POSTGRES_URL names no PostgreSQL database")
def test_a_postgresql_database_at_0008_gains_push(tmp_path: Path) -> None:
    """Revision 0009 on PostgreSQL: from 0008 with an account, to the head, then the same
    checks; the database is left empty."""
    with _empty_postgres() as engine:
        assert PG_URL is not None
        _at_0008_with_an_account(engine)
        store = Store(PG_URL)
        try:
            with store.engine.connect() as c:
                assert migrations.current(c) == migrations.head()
                assert c.execute(text("SELECT name FROM accounts")).scalars().all() == ["Before"]
            _push_works(store)
        finally:
            store.close()
