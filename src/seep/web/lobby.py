"""The lobby and quick match (docs/web.md "HTTP", "Quick match"): which open public tables a
player is shown, and which one quick match seats him at, over this instance's tables or, with
several instances on one database, over the stored waiting tables of all of them.

A :class:`Lobby` reads the :class:`~seep.web.tables.TableManager`'s tables and claims a table
held elsewhere through it; it changes no table itself (the manager's ``join`` and
``count_down`` do).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from typing import Any

from . import strength, wire
from .messages import CreateTable, parse_body
from .ratings import Rating
from .table import TableError, checked, settings_of
from .tables import TableManager

__all__ = ["LOBBY_REFRESH_SECONDS", "LOBBY_SCAN", "LOBBY_SIZE", "Lobby", "quick_settings"]

LOBBY_SIZE = 50  # tables listed by GET /api/lobby
# Several instances: the lobby is read from the database at most this often per instance,
# from at most this many waiting tables (the open-table cap bounds them anyway).
LOBBY_REFRESH_SECONDS = 2.0
LOBBY_SCAN = 2000


def quick_settings(body: Any) -> dict[str, Any]:
    """The settings quick match looks for: ``body`` read as a create request, public."""
    req = checked(lambda d: parse_body(CreateTable, d), body)
    if req.practice:
        raise TableError("bad_request", "quick match is for tables with other players")
    return dict(settings_of(req), public=True)


class Lobby:
    """The lobby's list and quick match over ``manager``'s tables."""

    def __init__(self, manager: TableManager) -> None:
        self.manager = manager
        # Several instances: the last list read from the store, with when (time.monotonic()).
        self._cache: tuple[float, dict[str, Any]] | None = None

    def tables(self) -> dict[str, Any]:
        """Open public tables with free seats whose host is here (``host_here``), newest
        first, at most :data:`LOBBY_SIZE`. Private tables never show; nor do tables whose host
        left or never came, which nobody would start (a spectator does not keep a table in the
        lobby). This instance's tables only: see :meth:`tables_everywhere`."""
        m = self.manager
        out: list[dict[str, Any]] = []
        for t in reversed(m.tables.values()):  # created in this order (dicts keep it)
            if t.settings.get("public") and t.status == "waiting" and t.free_seats():
                if m.host_here(t):
                    out.append(wire.lobby_row(t))
                    if len(out) >= LOBBY_SIZE:
                        break
        return {"tables": out}

    async def tables_everywhere(self) -> dict[str, Any]:
        """``GET /api/lobby``: the lobby of every instance on the database (one instance:
        :meth:`tables`).

        Each instance holds only its own tables, so the listing is read from the stored
        waiting tables (refreshed at most every :data:`LOBBY_REFRESH_SECONDS`); a table held
        here shows its live seats, one held elsewhere its stored seats, whose players count as
        connected (a waiting table's seats are saved on every join, move of seat and kick).
        Joining goes to the table's own instance: the proxy routes by the code.
        """
        m = self.manager
        if not m.clustered or m.store is None:
            return self.tables()
        now = time.monotonic()
        cached = self._cache
        if cached is not None and now - cached[0] < LOBBY_REFRESH_SECONDS:
            return cached[1]
        rows = await asyncio.to_thread(m.store.waiting_tables, LOBBY_SCAN)
        out: list[dict[str, Any]] = []
        for row in reversed(rows):  # newest first
            if not row["settings"].get("public"):
                continue
            live = m.tables.get(row["code"])
            if live is None:
                entry = wire.stored_lobby_row(row)
            elif live.status != "waiting" or not live.free_seats() or not m.host_here(live):
                continue
            else:
                entry = dict(wire.lobby_row(live), settings=row["settings"])
            if entry["free"]:
                out.append(entry)
                if len(out) >= LOBBY_SIZE:
                    break
        answer = {"tables": out}
        self._cache = (now, answer)
        return answer

    def quick_table(
        self,
        wanted: dict[str, Any],
        ratings: Mapping[str, Rating] | None = None,
    ) -> str | None:
        """Quick match: the first open public table held here with the settings ``wanted``
        (:func:`quick_settings`) whose host is here, or ``None`` (then the caller opens one).
        A rated request, with the player's ``ratings`` (:func:`strength.ratings_of`), goes by
        strength instead (:mod:`.strength`)."""
        m = self.manager
        if wanted["rated"] and ratings is not None:
            return strength.rated_quick_table(m, wanted, ratings)
        fits = [
            t
            for t in m.tables.values()
            if t.status == "waiting"
            and t.settings == wanted
            and t.free_seats()
            and m.host_here(t)  # a table whose host is gone may never start
        ]
        # Players waiting on a countdown asked for a game now: they come first.
        fits.sort(key=lambda t: t.starts_at is None)
        return fits[0].code if fits else None

    async def quick_table_everywhere(
        self, body: Any, account: tuple[int, str] | None = None
    ) -> str | None:
        """``POST /api/quick``'s table: quick match over every instance on the database (one
        instance: :meth:`quick_table`): a table held here first, else the oldest stored one
        that fits, which this instance then claims (its holder hands it over) so that the
        player can sit at once. A rated request takes a claimed table only if he fits it by
        strength."""
        m = self.manager
        wanted = quick_settings(body)
        ratings = None
        if wanted["rated"] and account is not None:
            # Off the loop: the tables wait for no database read.
            ratings = await asyncio.to_thread(strength.ratings_of, m.store, account[0])
        code = self.quick_table(wanted, ratings)
        if code is not None or not m.clustered or m.store is None:
            return code
        for row in await asyncio.to_thread(m.store.waiting_tables, LOBBY_SCAN):
            if row["settings"] != wanted or all(s["kind"] != "empty" for s in row["seats"]):
                continue
            try:
                await m.claim(row["code"])
            except TableError:
                continue  # held elsewhere and not handed over in time: the next one
            t = m.tables.get(row["code"])
            if t is not None and t.status == "waiting" and t.settings == wanted and t.free_seats():
                if ratings is not None:
                    if not strength.fits_table(m, t, ratings):
                        continue  # too far apart by strength (its waits count from the load)
                return t.code
        return None
