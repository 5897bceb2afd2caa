"""Rated quick match by strength (docs/web.md "Matchmaking by strength"): the manager's side of
:mod:`seep.web.matchmaking`. It reads what the pure decisions need from the tables held here
(each seat's rating and when he sat down, kept beside the seat in memory) and from the store
(the newcomer's rating), and answers which table he joins."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import Any

from sqlalchemy.exc import SQLAlchemyError

from .keeper import TableKeeper
from .matchmaking import Player, choose_group, fits
from .ratings import Rating, format_of
from .store import Store
from .table import Table

__all__ = ["fits_table", "rated_quick_table", "ratings_of", "skill", "waiting"]


def rated_quick_table(
    k: TableKeeper, wanted: Mapping[str, Any], ratings: Mapping[str, Rating]
) -> str | None:
    """The waiting rated table held here with the settings ``wanted`` that the player whose
    ``ratings`` these are (:func:`ratings_of`) fits by strength
    (:func:`seep.web.matchmaking.choose_group` under the keeper's ``match_policy``), or
    ``None``.

    A table counting down takes players before its host's page connects (it starts by
    itself), so that players asking at the same moment meet; one without a countdown (a
    restart, another instance) only while its host is here, as unrated quick match."""
    open_ = [
        t
        for t in k.tables.values()
        if t.status == "waiting"
        and t.settings == wanted
        and t.free_seats()
        and (t.starts_at is not None or k.host_here(t))
    ]
    if not open_:
        return None
    # The soonest to start first: a tie between equally near tables goes to it.
    open_.sort(key=lambda t: (t.starts_at is None, t.starts_at or 0.0))
    fmt = format_of(open_[0].players)
    me = skill(ratings, fmt)
    chosen = choose_group(me, [waiting(k, t, me) for t in open_], fmt, k.match_policy)
    return None if chosen is None else open_[chosen].code


def fits_table(k: TableKeeper, table: Table, ratings: Mapping[str, Rating]) -> bool:
    """True when the player whose ``ratings`` these are fits ``table``'s players by
    strength."""
    fmt = format_of(table.players)
    me = skill(ratings, fmt)
    return fits(me, waiting(k, table, me), fmt, k.match_policy)


def waiting(k: TableKeeper, table: Table, me: Player) -> list[Player]:
    """The players seated at a waiting table as matchmaking sees them: rating and time waited
    (a rating not read counts as the newcomer's ``me``, a time unknown as none)."""
    now = k.clock()
    return [
        Player(*(s.skill or (me.mu, me.sigma)), now - (s.joined or now))
        for s in table.seats
        if s.kind == "human"
    ]


def ratings_of(store: Store | None, account: int) -> dict[str, Rating]:
    """An account's ratings by format, read from ``store`` (in a worker thread: it waits for
    the database); none when the database does not answer."""
    if store is None:
        return {}
    with contextlib.suppress(SQLAlchemyError):
        return store.ratings_of(account)
    return {}


def skill(ratings: Mapping[str, Rating], fmt: str) -> Player:
    """A player's rating in ``fmt`` as matchmaking sees it (a new player's when he has none)."""
    r = ratings.get(fmt, Rating())
    return Player(r.mu, r.sigma)
