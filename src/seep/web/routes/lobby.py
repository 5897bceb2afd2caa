"""Opening and finding tables: create one, list the lobby's open public tables, quick match
(docs/web.md, "HTTP" and "Quick match"). A new table counts against its client's creation
limits; the lobby's list and quick match count as lobby lookups (:class:`~.gate.Gate`)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from ... import __version__
from ..lobby import Lobby
from ..messages import MAX_HELD_TOKENS, WAIT_SECONDS, CreateTable, QuickMatch
from ..tables import TableError
from .bodies import body_doc, json_body
from .gate import Gate

__all__ = ["MAX_HELD_TOKENS", "WAIT_SECONDS", "router"]


def _held_tokens(body: Any) -> list[str]:
    """Take quick match's ``tokens`` (the seat tokens this browser holds) out of its body."""
    if not isinstance(body, dict):
        return []
    held = body.pop("tokens", [])
    if (
        not isinstance(held, list)
        or len(held) > MAX_HELD_TOKENS
        or not all(isinstance(t, str) and len(t) <= 100 for t in held)
    ):
        raise TableError(
            "bad_request", f"'tokens' must be a list of at most {MAX_HELD_TOKENS} seat tokens"
        )
    return held


def _wait(body: Any) -> float | None:
    """Take rated quick match's ``wait`` (whole seconds) out of its body (``None``: not
    given, the server's SEEP_QUICK_SECONDS)."""
    if not isinstance(body, dict) or "wait" not in body:
        return None
    wait = body.pop("wait")
    low, high = WAIT_SECONDS
    if isinstance(wait, bool) or not isinstance(wait, int) or not low <= wait <= high:
        raise TableError(
            "bad_request", f"'wait' must be a whole number of seconds from {low} to {high}"
        )
    if body.get("rated") is not True:
        raise TableError("bad_request", "'wait' is for rated quick match: add \"rated\": true")
    return float(wait)


def router(gate: Gate) -> APIRouter:
    """``POST /api/tables``, ``GET /api/lobby`` and ``POST /api/quick``."""
    lobby = APIRouter()
    manager = gate.manager
    desk = Lobby(manager)
    # The handlers are ``async`` so that they run on the event loop's thread, like the tables.

    @lobby.post("/api/tables", status_code=201, openapi_extra=body_doc(CreateTable))
    async def create_table(request: Request) -> dict[str, Any]:
        return gate.create(gate.client(request), await json_body(request), gate.account(request))

    @lobby.get("/api/lobby")
    async def lobby_tables(request: Request) -> dict[str, Any]:
        gate.look_at_lobby(gate.client(request))
        # The server's version rides along for the page's footer (the page is a static file).
        return {**await desk.tables_everywhere(), "version": __version__}

    @lobby.post("/api/quick", openapi_extra=body_doc(QuickMatch))
    async def quick_match(request: Request) -> dict[str, Any]:
        # Sit at the first open public table with these settings, or open one (counted as a
        # table created, with its limits).
        key = gate.client(request)
        body = await json_body(request)
        gate.look_at_lobby(key)
        held = _held_tokens(body)
        wait = _wait(body)
        account = gate.account(request)
        gate.check_banned(key, None if account is None else account[0])
        code = await desk.quick_table_everywhere(body, account)
        if code is not None:
            table = manager.get(code)
            # Quick match twice from one browser: the seat it already holds there.
            mine = [(table.seat_of_token(t), t) for t in held]
            joined = next(({"seat": s, "token": t} for s, t in mine if s is not None), None)
            if joined is None:
                named = {"name": body.get("name")} if body.get("name") else {}
                joined = manager.join(code, named, account, wait)
            return {"code": code, "url": f"/t/{code}", **joined}
        made = gate.create(key, dict(body, public=True), account)
        # Nobody waits yet: others may join until the countdown fills the rest with bots.
        manager.count_down(made["code"], wait)
        return made

    return lobby
