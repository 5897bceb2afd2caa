"""A table's own requests, by its code: its summary, a join before the start, its replay and
its game record (docs/web.md, "HTTP"). Each is a lookup limited per client
(:meth:`~.gate.Gate.lookup`); with several instances the claim middleware has loaded the
table first (:class:`~seep.web.middleware.ClaimTables`)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from ..messages import JoinTable
from .bodies import body_doc, json_body
from .gate import Gate

__all__ = ["router"]


def router(gate: Gate) -> APIRouter:
    """``GET /api/tables/{code}``, ``POST .../join``, ``GET .../replay``, ``GET .../record``."""
    table = APIRouter()
    manager = gate.manager

    @table.get("/api/tables/{code}")
    async def table_summary(code: str, request: Request) -> dict[str, Any]:
        found: dict[str, Any] = gate.lookup(gate.client(request), code, manager.summary)
        return found

    @table.post("/api/tables/{code}/join", openapi_extra=body_doc(JoinTable))
    async def join_table(code: str, request: Request) -> dict[str, Any]:
        body = await json_body(request)
        key, account = gate.client(request), gate.account(request)
        gate.check_banned(key, None if account is None else account[0])
        found: dict[str, Any] = gate.lookup(key, code, lambda c: manager.join(c, body, account))
        return found

    @table.get("/api/tables/{code}/replay")
    async def table_replay(code: str, request: Request) -> dict[str, Any]:
        found: dict[str, Any] = gate.lookup(gate.client(request), code, manager.replay)
        return found

    @table.get("/api/tables/{code}/record")
    async def table_record(code: str, request: Request) -> JSONResponse:
        record = gate.shown_record(code, gate.lookup(gate.client(request), code, manager.record))
        name = f"seep-{code.upper()}.json"
        return JSONResponse(
            record, headers={"Content-Disposition": f'attachment; filename="{name}"'}
        )

    return table
