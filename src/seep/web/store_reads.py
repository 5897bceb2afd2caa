"""The reads of a :class:`~seep.web.store.Store`: live tables with their moves (a restart, a
claim), waiting tables (the lobby of several instances), finished ones (records) and the
totals the metrics show."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.engine import Engine

from .schema import LIVE, accounts_t, moves_t, rated_matches_t, tables_t

__all__ = ["StoreReads"]


class StoreReads:
    """The store's queries; ``engine`` is the store's."""

    engine: Engine

    def running(self, code: str) -> bool:
        """True when a table has this code and is live (waiting or playing)."""
        with self.engine.connect() as c:
            row = c.execute(
                select(tables_t.c.code).where(tables_t.c.code == code, tables_t.c.status.in_(LIVE))
            ).first()
        return row is not None

    def count_running(self) -> int:
        """How many tables are live (on every instance sharing the database)."""
        with self.engine.connect() as c:
            n = c.execute(
                select(func.count()).select_from(tables_t).where(tables_t.c.status.in_(LIVE))
            ).scalar()
        return int(n or 0)

    def totals(self) -> tuple[int, int]:
        """How many accounts and how many rated matches the database holds (the metrics)."""
        with self.engine.connect() as c:
            accounts = c.execute(select(func.count()).select_from(accounts_t)).scalar()
            rated = c.execute(select(func.count()).select_from(rated_matches_t)).scalar()
        return int(accounts or 0), int(rated or 0)

    def load_table(self, code: str) -> dict[str, Any] | None:
        """One unfinished table with its moves in order (as :meth:`load_unfinished` gives
        them), or ``None``."""
        with self.engine.connect() as c:
            row = c.execute(
                select(tables_t).where(tables_t.c.code == code, tables_t.c.status.in_(LIVE))
            ).first()
            if row is None:
                return None
            moves = c.execute(
                select(moves_t.c.move).where(moves_t.c.code == code).order_by(moves_t.c.seq)
            ).all()
        return {
            "code": row.code,
            "settings": json.loads(row.settings),
            "seed": int(row.seed),
            "status": row.status,
            "host": row.host,
            "seats": json.loads(row.seats),
            "version": row.version,
            "moves": [json.loads(m.move) for m in moves],
        }

    def exists(self, code: str) -> bool:
        """True when a table has this code (codes are never reused)."""
        with self.engine.connect() as c:
            return (
                c.execute(select(tables_t.c.code).where(tables_t.c.code == code)).first()
                is not None
            )

    def load_unfinished(self) -> list[dict[str, Any]]:
        """Every live table (waiting or playing), with its moves in order: two queries, which
        read only live rows (the status index), however many tables are finished or closed."""
        out: dict[str, dict[str, Any]] = {}
        live = tables_t.c.status.in_(LIVE)
        with self.engine.connect() as c:
            for row in c.execute(select(tables_t).where(live)):
                out[row.code] = {
                    "code": row.code,
                    "settings": json.loads(row.settings),
                    "seed": int(row.seed),
                    "status": row.status,
                    "host": row.host,
                    "seats": json.loads(row.seats),
                    "version": row.version,
                    "moves": [],
                }
            moves = c.execute(
                select(moves_t.c.code, moves_t.c.move)
                .join(tables_t, tables_t.c.code == moves_t.c.code)
                .where(live)
                .order_by(moves_t.c.code, moves_t.c.seq)
            )
            for m in moves:
                out[m.code]["moves"].append(json.loads(m.move))
        return list(out.values())

    def waiting_tables(self, limit: int) -> list[dict[str, Any]]:
        """The waiting tables of every instance, oldest first, at most ``limit``: code,
        settings and seats (name and kind only; a seat's token hash never leaves here). Reads
        only waiting rows (the status index). For the lobby when several instances share the
        database."""
        query = (
            select(tables_t.c.code, tables_t.c.settings, tables_t.c.seats)
            .where(tables_t.c.status == "waiting")
            .order_by(tables_t.c.created)
            .limit(limit)
        )
        with self.engine.connect() as c:
            rows = c.execute(query).all()
        return [
            {
                "code": code,
                "settings": json.loads(settings),
                "seats": [{"name": s["name"], "kind": s["kind"]} for s in json.loads(seats)],
            }
            for code, settings, seats in rows
        ]

    def load_finished(self, code: str) -> dict[str, Any] | None:
        """A finished or closed table's public summary and game record (``None`` for a table
        closed before it started), or ``None``."""
        with self.engine.connect() as c:
            row = c.execute(
                select(tables_t).where(
                    tables_t.c.code == code, tables_t.c.status.in_(("finished", "closed"))
                )
            ).first()
        if row is None:
            return None
        seats = json.loads(row.seats)
        return {
            "public": {
                "code": row.code,
                "status": row.status,
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
            "record": json.loads(row.record) if row.record is not None else None,
        }
