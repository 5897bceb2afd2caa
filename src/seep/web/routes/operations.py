"""What the proxy and the operator ask: ``/healthz`` (the process answers) and ``/readyz``
(it can serve: the database takes writes at this release's schema, the instance renews its
leases and is not stopping), docs/web.md "Liveness" and docs/deploy.md."""

from __future__ import annotations

import asyncio
import time

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from ..store import Store
from ..tables import TableManager

__all__ = ["READY_CACHE_SECONDS", "router"]

# How long one readiness answer serves every asker: the database sees at most one probe in
# that time however many proxies, operators or attackers ask (a proxy checks every second).
READY_CACHE_SECONDS = 1.0


class Readiness:
    """The last readiness probe, kept :data:`READY_CACHE_SECONDS`; askers meanwhile share it,
    and those who come while it runs wait for that one."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._answer: tuple[float, str | None] | None = None
        self._running: asyncio.Future[str | None] | None = None

    async def problem(self) -> str | None:
        now = time.monotonic()
        if self._answer is not None and now - self._answer[0] < READY_CACHE_SECONDS:
            return self._answer[1]
        if self._running is None or self._running.done():
            self._running = asyncio.ensure_future(asyncio.to_thread(self.store.problem))
        problem = await asyncio.shield(self._running)
        self._answer = (time.monotonic(), problem)
        return problem


def router(store: Store, manager: TableManager) -> APIRouter:
    """The health and readiness checks; neither is in the OpenAPI."""
    ops = APIRouter(include_in_schema=False)
    readiness = Readiness(store)

    @ops.get("/healthz")
    async def health() -> dict[str, str]:
        # The shallow check (docs/deploy.md): the process answers; no database round trip.
        return {"status": "ok"}

    @ops.get("/readyz")
    async def ready() -> JSONResponse:
        # Readiness (docs/web.md "Liveness"), what the proxy's checks ask: 503 while this
        # instance cannot serve. Its own state first, free; the database's at most once a
        # READY_CACHE_SECONDS.
        problem = manager.not_ready() or await readiness.problem()
        if problem is not None:
            return JSONResponse({"status": "unavailable", "problem": problem}, status_code=503)
        return JSONResponse({"status": "ok"})

    return ops
