"""Table codes: drawn at random from an alphabet read aloud without doubt, and a new table
stored under one that nobody else took meanwhile."""

from __future__ import annotations

import secrets
from collections.abc import Callable

from .store import Store, StoreConflict
from .table import Table, TableError

__all__ = ["CODE_ALPHABET", "new_code", "store_new"]

CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"  # no 0/O, 1/I/L: read aloud without doubt


def new_code(taken: Callable[[str], bool]) -> str:
    """A fresh table code that ``taken`` does not know; :class:`TableError` if none is found."""
    # 31**6 (about 887 million) codes: with lookups limited per client (docs/web.md "Limits")
    # nobody finds a table he was not given the code of.
    for length in (6, 6, 6, 7, 7, 8, 8, 8):
        code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(length))
        if not taken(code):
            return code
    raise TableError("internal_error", "no free table code")  # pragma: no cover


def store_new(store: Store, table: Table, draw: Callable[[], str]) -> None:
    """Store a new table, drawing another code (``draw``) while another instance takes its
    code at the same moment."""
    for _ in range(8):
        try:
            store.create_table(table)
            return
        except StoreConflict:
            table.code = draw()
    raise TableError("internal_error", "no free table code")  # pragma: no cover
