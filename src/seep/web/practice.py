"""Practice tables' reviews: once a deal is over, its player's moves judged by the heuristic
bot (:mod:`seep.web.review`), made in a worker thread while the loop goes on, and sent to his
connections only, while the reviewed deal is the one on show.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any

from ..engine import Position
from . import review as judge
from . import wire
from .hub import Connection
from .table import Table

__all__ = ["review", "send_review"]


def review(
    table: Table,
    background: Callable[[Coroutine[Any, Any, None]], None],
    send: Callable[[Table], None],
) -> None:
    """Review the deal just over for the table's player, in ``background``; ``send(table)``
    sends it once made."""
    session = table.session
    assert session is not None
    history = session.history
    seats = [i for i, s in enumerate(table.seats) if s.kind == "human"]
    if not history or not seats:
        return
    start = session.copy()
    start.undo(len(history))  # back to the deal's bid-phase position
    table.review = None
    background(_reviewing(table, start.position, history, seats[0], send))


async def _reviewing(
    table: Table,
    start: Position,
    history: tuple[tuple[int, int], ...],
    seat: int,
    send: Callable[[Table], None],
) -> None:
    try:
        found = await asyncio.wait_for(
            asyncio.to_thread(judge.review_deal, start, history, seat),
            timeout=judge.REVIEW_SECONDS * 4,
        )
    except Exception as exc:  # a busy server or a bug: the summary shows no review
        logging.getLogger("seep.web").warning("table %s: no review: %r", table.code, exc)
        return
    session = table.session
    if session is None or not session.deal_over or session.history != history:
        return  # taken back meanwhile (undo): the deal goes on
    table.review = {
        "type": "review",
        "deal": session.deals_finished,
        "seat": seat,
        "moves": len(history),
        **found,
    }
    send(table)


def send_review(table: Table, conn: Connection) -> None:
    """The deal's review to ``conn`` if it holds the reviewed seat and the reviewed deal is
    still the one on show, over."""
    got = table.review
    session = table.session
    if got is None or session is None or conn.seat != got["seat"]:
        return
    if session.deal_over and len(session.history) == got["moves"]:
        conn.push(wire.dumps(got))
