"""The ratings a table's seats show beside their names: read for the signed-in players, in the
table's format, in one query."""

from __future__ import annotations

from sqlalchemy.exc import SQLAlchemyError

from .ratings import Rating, format_of
from .store import Store
from .table import Table

__all__ = ["show_ratings"]


def show_ratings(table: Table, store: Store) -> None:
    """Read the signed-in players' ratings in the table's format for their seats' names, in one
    query (a read refused: the seats show none)."""
    fmt = format_of(table.players)
    accounts = [s.account for s in table.seats if s.kind == "human" and s.account is not None]
    try:
        ratings = store.ratings_in(accounts, fmt)
    except SQLAlchemyError:  # the database away: names without their ratings
        ratings = None
    for s in table.seats:
        if ratings is None or s.kind != "human" or s.account is None:
            s.rating = s.skill = None
            continue
        r = ratings.get(s.account, Rating())
        s.rating = (r.shown(fmt), r.provisional)
        s.skill = (r.mu, r.sigma)
