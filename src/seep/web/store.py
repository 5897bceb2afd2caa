"""Persistence with SQLAlchemy 2.x (Core): tables, seats and every move as it is made.

SQLite at ``./data/seep.db`` by default (the folder is created on demand);
``SEEP_DATABASE_URL`` or an explicit URL chooses another database (PostgreSQL works the same).
A running table is stored as its settings, seed, seats (token hashes only) and moves; a restart
replays the moves through the engine. A finished table keeps its docs/format.md game record.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import (
    Column,
    Float,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Text,
    bindparam,
    create_engine,
    delete,
    event,
    insert,
    select,
    update,
)
from sqlalchemy import Table as SqlTable
from sqlalchemy.engine import Engine

if TYPE_CHECKING:
    from .tables import Table

__all__ = ["DEFAULT_URL", "Store", "database_url"]

DEFAULT_URL = "sqlite:///data/seep.db"

metadata = MetaData()
tables_t = SqlTable(
    "tables",
    metadata,
    Column("code", String(8), primary_key=True),
    Column("settings", Text, nullable=False),  # JSON
    Column("seed", String(24), nullable=False),  # 62-bit: a string for every database
    Column("status", String(12), nullable=False),
    Column("host", Integer, nullable=False),
    Column("seats", Text, nullable=False),  # JSON: name, kind, token_hash per seat
    Column("version", Integer, nullable=False),
    Column("created", Float, nullable=False),
    Column("record", Text),  # the docs/format.md game record once finished
)
moves_t = SqlTable(
    "moves",
    metadata,
    Column("code", String(8), ForeignKey("tables.code"), primary_key=True),
    Column("seq", Integer, primary_key=True),
    Column("move", Text, nullable=False),  # the docs/format.md move with its seat
)


def database_url(url: str | None = None) -> str:
    """The database to use: ``url``, else ``SEEP_DATABASE_URL``, else ./data/seep.db."""
    return url or os.environ.get("SEEP_DATABASE_URL") or DEFAULT_URL


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cur = dbapi_conn.cursor()
    # WAL with synchronous=NORMAL: a commit survives the server process being killed (what a
    # restart needs) without an fsync per move.
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")
    # No checkpoint inside a move's commit (its fsyncs would stall every table on the event
    # loop): Store.checkpoint runs them, in a worker thread.
    cur.execute("PRAGMA wal_autocheckpoint=0")
    cur.close()


class Store:
    """The server's database. Every write is its own transaction, committed on return."""

    def __init__(self, url: str | None = None) -> None:
        self.url = database_url(url)
        if self.url.startswith("sqlite:///") and ":memory:" not in self.url:
            path = Path(self.url.removeprefix("sqlite:///"))
            path.parent.mkdir(parents=True, exist_ok=True)
        self.engine: Engine = create_engine(self.url)
        if self.engine.dialect.name == "sqlite":
            event.listen(self.engine, "connect", _sqlite_pragmas)
        metadata.create_all(self.engine)
        # A move is written on the event loop's thread while every table waits: the statements
        # are built once (SQLAlchemy then reuses their compiled form) on one kept connection.
        self._conn = self.engine.connect()
        self._insert_move = insert(moves_t)
        self._set_version = (
            update(tables_t)
            .where(tables_t.c.code == bindparam("the_code"))
            .values(version=bindparam("the_version"))
        )

    def close(self) -> None:
        """Release the connections."""
        self._conn.close()
        self.engine.dispose()

    def checkpoint(self) -> None:
        """Copy SQLite's write-ahead log into the database file (call it from a worker thread
        every few seconds; other databases need nothing)."""
        if self.engine.dialect.name == "sqlite":
            with self.engine.connect() as c:
                c.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)")

    # --- writes -----------------------------------------------------------------------------

    @staticmethod
    def _seats(table: Table) -> str:
        return json.dumps(
            [{"name": s.name, "kind": s.kind, "token_hash": s.token_hash} for s in table.seats]
        )

    def create_table(self, table: Table) -> None:
        """Store a new table."""
        with self.engine.begin() as c:
            c.execute(
                insert(tables_t).values(
                    code=table.code,
                    settings=json.dumps(table.settings),
                    seed=str(table.seed),
                    status=table.status,
                    host=table.host,
                    seats=self._seats(table),
                    version=table.version,
                    created=time.time(),
                )
            )

    def save_table(self, table: Table) -> None:
        """Store a table's seats, host and status."""
        with self.engine.begin() as c:
            c.execute(
                update(tables_t)
                .where(tables_t.c.code == table.code)
                .values(
                    status=table.status,
                    host=table.host,
                    seats=self._seats(table),
                    version=table.version,
                )
            )

    def add_move(self, table: Table, seq: int, move: dict[str, Any], version: int) -> None:
        """Store move number ``seq`` (from 0) of a table, made in state ``version``."""
        c = self._conn
        with c.begin():
            c.execute(self._insert_move, {"code": table.code, "seq": seq, "move": json.dumps(move)})
            c.execute(self._set_version, {"the_code": table.code, "the_version": version})

    def delete_moves(self, code: str, first: int) -> None:
        """Forget the moves from number ``first`` on (practice undo)."""
        with self.engine.begin() as c:
            c.execute(delete(moves_t).where(moves_t.c.code == code, moves_t.c.seq >= first))

    def finish(self, table: Table, record: dict[str, Any]) -> None:
        """Mark a table finished, keeping its game record."""
        with self.engine.begin() as c:
            c.execute(
                update(tables_t)
                .where(tables_t.c.code == table.code)
                .values(
                    status="finished",
                    seats=self._seats(table),
                    version=table.version,
                    record=json.dumps(record),
                )
            )

    # --- reads ------------------------------------------------------------------------------

    def exists(self, code: str) -> bool:
        """True when a table has this code (codes are never reused)."""
        with self.engine.connect() as c:
            return (
                c.execute(select(tables_t.c.code).where(tables_t.c.code == code)).first()
                is not None
            )

    def load_unfinished(self) -> list[dict[str, Any]]:
        """Every table not finished, with its moves in order."""
        out = []
        with self.engine.connect() as c:
            rows = c.execute(select(tables_t).where(tables_t.c.status != "finished")).all()
            for row in rows:
                moves = c.execute(
                    select(moves_t.c.move).where(moves_t.c.code == row.code).order_by(moves_t.c.seq)
                ).all()
                out.append(
                    {
                        "code": row.code,
                        "settings": json.loads(row.settings),
                        "seed": int(row.seed),
                        "status": row.status,
                        "host": row.host,
                        "seats": json.loads(row.seats),
                        "version": row.version,
                        "moves": [json.loads(m.move) for m in moves],
                    }
                )
        return out

    def load_finished(self, code: str) -> dict[str, Any] | None:
        """A finished table's public summary and game record, or ``None``."""
        with self.engine.connect() as c:
            row = c.execute(
                select(tables_t).where(tables_t.c.code == code, tables_t.c.status == "finished")
            ).first()
        if row is None:
            return None
        seats = json.loads(row.seats)
        return {
            "public": {
                "code": row.code,
                "status": "finished",
                "host": row.host,
                "settings": json.loads(row.settings),
                "seats": [
                    {
                        "name": s["name"],
                        "kind": s["kind"],
                        "connected": s["kind"] == "bot",
                        "away": False,
                    }
                    for s in seats
                ],
            },
            "record": json.loads(row.record),
        }
