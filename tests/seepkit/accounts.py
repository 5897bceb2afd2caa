"""What the account tests share against a real server: a refusal's code, and the rows of its
SQLite database."""

from __future__ import annotations

import sqlite3
from typing import Any

import httpx

from .server import Served


def error_code(r: httpx.Response) -> str:
    """The ``error.code`` of a refused request."""
    code: str = r.json()["error"]["code"]
    return code


def rows(server: Served, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    """The rows ``sql`` reads from the server's SQLite database (``server.db``)."""
    con = sqlite3.connect(server.db)  # type: ignore[attr-defined]
    try:
        return list(con.execute(sql, args))
    finally:
        con.close()
