"""Players over HTTP (docs/web.md "Profiles and leaderboards"): a player's profile and the
leaderboards, public reads limited per client (:meth:`~.gate.Gate.look_at_players`) and made
off the event loop, where the tables run."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Request

from ..profiles import Profiles
from .gate import Gate

__all__ = ["router"]


def router(gate: Gate, profiles: Profiles) -> APIRouter:
    """``GET /api/players/{name}`` and ``GET /api/leaderboard``."""
    players = APIRouter()

    @players.get("/api/players/{name}")
    async def player(request: Request, name: str) -> dict[str, Any]:
        gate.look_at_players(gate.client(request))
        page = request.query_params.get("page")
        return await asyncio.to_thread(profiles.profile, name, page)

    @players.get("/api/leaderboard")
    async def leaderboard(request: Request) -> dict[str, Any]:
        gate.look_at_players(gate.client(request))
        q = request.query_params
        return await asyncio.to_thread(profiles.leaderboard, q.get("format", "four"), q.get("page"))

    return players
