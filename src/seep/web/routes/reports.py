"""A player's report of another player by his account's name, from his profile
(``POST /api/reports``; docs/web.md "Reports"). A chat line or a player at a table is reported
on the table's socket (``report_player``). Reports go to the operator alone
(``seep admin reports``): no route returns them."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Request

from ..messages import ReportPlayerBody, parse_body
from ..moderation import Moderation, Reported
from ..names import skeleton
from ..profiles import ProfileError
from ..table import checked
from ..tables import TableError
from .bodies import body_doc, json_body
from .gate import Gate

__all__ = ["router"]


def router(gate: Gate, moderation: Moderation) -> APIRouter:
    """``POST /api/reports``."""
    reports = APIRouter()
    store = gate.store

    @reports.post("/api/reports", status_code=201, openapi_extra=body_doc(ReportPlayerBody))
    async def report_player(request: Request) -> dict[str, Any]:
        key = gate.client(request)
        body = checked(lambda d: parse_body(ReportPlayerBody, d), await json_body(request))
        account = gate.account(request)
        gate.check_banned(key, None if account is None else account[0])
        # The name's lookup counts as a profile read: no free probing of which names exist.
        gate.look_at_players(key)
        found = await asyncio.to_thread(store.account_named, skeleton(body.player))
        if found is None:
            raise ProfileError("unknown_player", f"there is no player named {body.player!r}")
        if account is not None and found.id == account[0]:
            raise TableError("not_allowed", "you cannot report yourself")
        reported = Reported(found.name, found.id, None)
        mine = None if account is None else account[0]
        # On the loop, as the socket's reports: the limits' counters are not shared with a
        # worker thread, and the write is one short row.
        new = moderation.report(key, mine, reported, body.reason, body.note)
        return {"repeat": not new}

    return reports
