"""A table's records, live or finished and stored: its public summary, its docs/format.md
game record, and every position of it replayed by the engine (the replay page).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import wire
from .store import Store
from .table import Table, TableError

__all__ = ["record", "replay", "summary"]


def replay(record: Mapping[str, Any]) -> dict[str, Any]:
    """Every position of the record's deals, replayed by the engine, for the replay page
    (:func:`seep.web.wire.replay_steps`, which the offline table's worker shares)."""
    return wire.replay_steps(record)


def summary(tables: Mapping[str, Table], store: Store | None, code: str) -> dict[str, Any]:
    """The public summary of a table, live or finished and stored."""
    table = tables.get(code.upper())
    if table is not None:
        return table.public()
    public: dict[str, Any] = _finished(store, code)["public"]
    return public


def record(tables: Mapping[str, Table], store: Store | None, code: str) -> dict[str, Any]:
    """The docs/format.md game record of a table, live or finished and stored."""
    table = tables.get(code.upper())
    if table is not None:
        return table.record()
    record: dict[str, Any] | None = _finished(store, code)["record"]
    if record is None:
        raise TableError("not_allowed", f"table {code.upper()} closed before it started")
    return record


def _finished(store: Store | None, code: str) -> dict[str, Any]:
    """A finished table kept in the store (no longer in memory after a restart)."""
    stored = store.load_finished(code.upper()) if store is not None else None
    if stored is None:
        raise TableError("unknown_table", f"no table {code}")
    return stored
