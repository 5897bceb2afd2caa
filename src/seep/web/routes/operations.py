"""What the proxy and the operator ask: ``/healthz`` (the process answers) and ``/readyz``
(the database takes writes), docs/web.md "Liveness" and docs/deploy.md."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from ..store import Store

__all__ = ["router"]


def router(store: Store) -> APIRouter:
    """The health and readiness checks; neither is in the OpenAPI."""
    ops = APIRouter(include_in_schema=False)

    @ops.get("/healthz")
    async def health() -> dict[str, str]:
        # The proxy's health check (docs/deploy.md): cheap, no database round trip.
        return {"status": "ok"}

    @ops.get("/readyz")
    async def ready() -> JSONResponse:
        # Readiness (docs/web.md "Liveness"): 503 while the database cannot take writes (a
        # lock, a full disk: the probe write or the checkpoint fails), for the proxy.
        problem = await asyncio.to_thread(store.problem)
        if problem is not None:
            return JSONResponse({"status": "unavailable", "problem": problem}, status_code=503)
        return JSONResponse({"status": "ok"})

    return ops
