"""The socket messages of the game: move, start, sit, kick, hint, undo, next, moves.

Each handler takes the :class:`~seep.web.keeper.TableKeeper`, the table, the sender's
:class:`~seep.web.hub.Connection` and the parsed message (:mod:`seep.web.messages`); it
raises :class:`~seep.web.table.TableError` to refuse, which goes back to the sender only.
A move goes the keeper's one commit path (:meth:`~seep.web.keeper.TableKeeper.commit`).
:data:`HANDLERS` maps each message type to its handler (with :mod:`seep.web.social_handlers`'s).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from ..cards import card_name, parse_card
from . import social, wire
from .hub import Connection
from .keeper import Handler, TableKeeper
from .messages import Kick, MoveMessage, MovesRequest, Sit
from .table import Table, TableError

__all__ = ["HANDLERS"]


async def on_move(k: TableKeeper, table: Table, conn: Connection, msg: Any) -> None:
    assert conn.seat is not None and isinstance(msg, MoveMessage)
    made = k.commit(table, msg.move, seat=conn.seat, version=msg.version)
    conn.answer_due = conn.received  # its writer times the state it sends once it is made
    try:
        await asyncio.shield(made)  # the socket closing does not undo a move being written
    except BaseException:
        conn.answer_due = 0.0
        raise


async def on_start(k: TableKeeper, table: Table, conn: Connection, msg: Any) -> None:
    assert conn.seat is not None
    if conn.seat != table.host and k.host_away(table):
        # The host left (or never came) a grace period ago: the table would wait for
        # ever, so whoever is seated may start it, and hosts it from now on.
        table.host = conn.seat
        k._host_left.pop(table.code, None)
    elif conn.seat != table.host and table.status == "waiting":
        raise TableError(
            "not_host",
            "only the host can start the game (anyone seated may once the host has been "
            f"away {k.grace_seconds:.0f} s)",
        )
    k._begin(table, conn.seat)


async def on_sit(k: TableKeeper, table: Table, conn: Connection, msg: Any) -> None:
    assert conn.seat is not None and isinstance(msg, Sit)
    to = msg.seat
    if table.status != "waiting":
        raise TableError("not_allowed", "seats can change only before the start")
    if to == conn.seat:
        return
    old = conn.seat
    table.sit(old, to)
    for c in k.hub.of(table.code):
        if c.seat == old:
            c.seat = to
    if k.store is not None:
        k.store.save_table(table)
    k._changed(table, game=False)


async def on_kick(k: TableKeeper, table: Table, conn: Connection, msg: Any) -> None:
    assert conn.seat is not None and isinstance(msg, Kick)
    table.kick(conn.seat, msg.seat)
    for c in k.hub.of(table.code):
        if c.seat == msg.seat:
            c.seat = None  # his token is dead: he watches now
            c.error("kicked", "the host took you off this table: you are watching")
    if k.store is not None:
        k.store.save_table(table)
    k._changed(table, game=False)


async def on_hint(k: TableKeeper, table: Table, conn: Connection, msg: Any) -> None:
    assert conn.seat is not None
    if table.settings["rated"]:
        raise TableError("not_allowed", "a rated match allows no hints")
    if table.to_move != conn.seat:
        raise TableError("not_your_turn", "a hint is for your own turn")
    version = table.version
    decision = await k.thinker.think(table, conn.seat)
    conn.push(
        json.dumps(
            {
                "type": "hint",
                "version": version,
                "move": decision.move.to_dict(),
                "reason": decision.reason,
            }
        )
    )


async def on_undo(k: TableKeeper, table: Table, conn: Connection, msg: Any) -> None:
    assert conn.seat is not None
    if k.writing(table):  # the move being written would come back after the undo
        raise TableError("stale", "a move is being made at this table: wait for its state")
    table.undo(conn.seat)
    table.review = None  # the deal goes on: its review would show what is to come
    if k.store is not None:
        k.store.delete_moves(table.code, table.moves_made)
    k._changed(table, game=True)


async def on_next(k: TableKeeper, table: Table, conn: Connection, msg: Any) -> None:
    assert conn.seat is not None
    if table.status != "playing" or not table.deal_over():
        raise TableError("not_allowed", "'next' is for the end of a deal")
    table.ready.add(conn.seat)
    if table.all_ready():
        k._leave_deal(table)
    else:
        k._changed(table, game=False)


async def on_moves(k: TableKeeper, table: Table, conn: Connection, msg: Any) -> None:
    assert conn.seat is not None and isinstance(msg, MovesRequest)
    if table.to_move != conn.seat or table.position is None:
        raise TableError("not_your_turn", "moves are asked for on your own turn")
    card = parse_card(msg.card)
    codes, count = social.card_moves(table.position, card)
    conn.push(
        wire.dumps(
            {
                "type": "moves",
                "version": table.version,
                "card": card_name(card),
                "moves": [wire.move_dict(c) for c in codes],
                "count": count,
            }
        )
    )


HANDLERS: dict[str, Handler] = {
    "move": on_move,
    "start": on_start,
    "sit": on_sit,
    "kick": on_kick,
    "hint": on_hint,
    "undo": on_undo,
    "next": on_next,
    "moves": on_moves,
}
