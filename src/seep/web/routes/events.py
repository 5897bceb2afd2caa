"""Events over HTTP (docs/web.md "Events"): the list for the lobby, an event's page, and the
organiser's and players' requests. Every POST is a signed-in player's (his session cookie,
which the app's origin check guards) and counts against a limit per address and per account;
the reads count against the lobby's limit. The store's work is done off the event loop, where
the tables run; a round's tables are opened by the runner, on the loop."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, TypeVar

from fastapi import APIRouter, Request
from pydantic import BaseModel

from ..events import CreateEvent, Events, RegisterBody, TeamBody
from ..limits import RateLimiter
from ..messages import parse_body
from ..table import checked
from ..tables import TableError
from .bodies import body_doc, json_body
from .gate import Gate

__all__ = ["router"]

R = TypeVar("R")
ACTIONS = ("start", "pause", "resume", "end")


def router(gate: Gate, events: Events, per_account: int = 30, per_address: int = 120) -> APIRouter:
    """``GET /api/events``, ``GET /api/events/{id}``, ``POST /api/events`` and the
    ``POST /api/events/{id}/...`` requests."""
    routes = APIRouter()
    # An address's limit is the wider: a club's players may share one (its wifi's).
    by_account = RateLimiter(per_account)
    by_address = RateLimiter(per_address)

    def signed_in(request: Request) -> tuple[str, tuple[int, str]]:
        """The client key and account of a POST, counted against both limits."""
        key = gate.client(request)
        account = gate.account(request)
        if account is None:
            raise TableError("not_signed_in", "events are for signed-in players: sign in first")
        gate.check_banned(key, account[0])
        mine = str(account[0])
        for limiter, who in ((by_address, key), (by_account, mine)):
            if limiter.over(who):
                gate.manager.metrics.refused("events")
                raise TableError(
                    "rate_limited",
                    f"at most {limiter.limit} event requests a minute: wait a minute",
                )
        by_address.add(key)
        by_account.add(mine)
        return key, account

    def number(event: str) -> int:
        if not (event.isascii() and event.isdigit() and len(event) <= 9):
            raise TableError("unknown_event", f"no event {event[:20]}")
        return int(event)

    async def act(
        request: Request,
        call: Callable[..., R],
        *args: Any,
        model: type[BaseModel] | None = None,
    ) -> R:
        """A POST's common steps: signed in (and counted), its body read and checked against
        ``model`` when it has one (passed after ``args``), then ``call(args..., account)``
        (``call(args..., account, body)``) in a worker thread, off the loop the tables run on."""
        _, account = signed_in(request)
        if model is not None:
            raw = await json_body(request)
            body = checked(lambda d: parse_body(model, d), raw)
            return await asyncio.to_thread(call, *args, account, body)
        return await asyncio.to_thread(call, *args, account)

    @routes.get("/api/events")
    async def listing(request: Request) -> dict[str, Any]:
        gate.look_at_lobby(gate.client(request))
        return await asyncio.to_thread(events.listing)

    @routes.post("/api/events", status_code=201, openapi_extra=body_doc(CreateEvent))
    async def create(request: Request) -> dict[str, Any]:
        made = await act(
            request, lambda account, body: events.create(body, account), model=CreateEvent
        )
        return {"id": made, "url": f"/events/{made}"}

    @routes.get("/api/events/{event}")
    async def page(request: Request, event: str) -> dict[str, Any]:
        gate.look_at_lobby(gate.client(request))
        return await asyncio.to_thread(events.page, number(event), gate.account(request))

    @routes.post(
        "/api/events/{event}/register", status_code=201, openapi_extra=body_doc(RegisterBody)
    )
    async def register(request: Request, event: str) -> dict[str, Any]:
        team = await act(request, events.register, number(event), model=RegisterBody)
        return {"team": team}

    @routes.post("/api/events/{event}/accept")
    async def accept(request: Request, event: str) -> dict[str, Any]:
        await act(request, events.accept, number(event))
        return {"ok": True}

    @routes.post("/api/events/{event}/checkin")
    async def check_in(request: Request, event: str) -> dict[str, Any]:
        await act(request, events.check_in, number(event))
        return {"ok": True}

    @routes.post("/api/events/{event}/withdraw")
    async def withdraw(request: Request, event: str) -> dict[str, Any]:
        await act(request, events.withdraw, number(event))
        return {"ok": True}

    @routes.post("/api/events/{event}/seat")
    async def seat(request: Request, event: str) -> dict[str, Any]:
        """The player's seat at his table of the round (its token in the body, never a URL)."""
        found: dict[str, Any] = await act(request, events.seat, number(event))
        return found

    @routes.post("/api/events/{event}/teams/withdraw", openapi_extra=body_doc(TeamBody))
    async def withdraw_team(request: Request, event: str) -> dict[str, Any]:
        await act(
            request,
            lambda ev, account, body: events.withdraw_team(ev, account, body.team),
            number(event),
            model=TeamBody,
        )
        return {"ok": True}

    @routes.post("/api/events/{event}/{action}")
    async def organise(request: Request, event: str, action: str) -> dict[str, Any]:
        if action not in ACTIONS:
            raise TableError("unknown_event", f"no such request: {action}")
        await act(request, lambda ev, account: events.organise(ev, account, action), number(event))
        events.wake()
        return {"ok": True}

    return routes
