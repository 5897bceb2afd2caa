"""Every socket message's way in: its size, its rate, the client's budget, parsing, dispatch.

:func:`receive` takes one message of a connection: refused when too large
(:data:`MAX_MESSAGE_BYTES`), over its socket's rate or its client's message budget
(:mod:`seep.web.limits`), then parsed (:mod:`seep.web.messages`) and handed to its handler
(:mod:`seep.web.game_handlers`, :mod:`seep.web.social_handlers`).
"""

from __future__ import annotations

import json
from collections.abc import Callable

from . import game_handlers, social_handlers
from .hub import Connection
from .keeper import TableKeeper
from .limits import DEFAULT_MESSAGE_COST, MESSAGE_COST_BYTES, MESSAGE_COSTS
from .messages import MAX_TOKENS, Hello, Visibility, parse_json, parse_message
from .table import TableError, checked

__all__ = ["BAD_INPUT", "CLOSE_ABUSE", "MAX_MESSAGE_BYTES", "OverBudget", "over_budget", "receive"]

MAX_MESSAGE_BYTES = 16 * 1024
CLOSE_ABUSE = 4429  # every socket of a client that kept sending over its budget
BAD_INPUT = frozenset({"bad_json", "bad_message", "too_large", "unknown_type"})
HANDLERS = {**game_handlers.HANDLERS, **social_handlers.HANDLERS}


class OverBudget(TableError):
    """A message refused by the client's message budget (or its socket's rate)."""

    def __init__(self, message: str) -> None:
        super().__init__("rate_limited", message)


def _budget_words(k: TableKeeper) -> str:
    rate = k.budget.rate
    return f"your address's messages cost more than {rate:g} pings a second: dropped"


def over_budget(k: TableKeeper, conn: Connection, why: str) -> None:
    """A message dropped over budget: its socket is told at most once a second (each
    word costs a write); a client that keeps on loses every socket (:data:`CLOSE_ABUSE`)."""
    if conn.client and k.budget.refused(conn.client):
        words = f"your address kept sending over its budget: closed for {k.budget.penalty:g} s"
        for sock in k.sockets.sockets(conn.client):
            assert isinstance(sock, Connection)
            sock.error("rate_limited", words)
            sock.end(CLOSE_ABUSE)
        if k.log_bad_input is not None:
            k.log_bad_input(conn.client, "flooding (its sockets closed)")
        return
    now = k.clock()
    if now - conn.limited_at >= 1.0:
        conn.limited_at = now
        conn.error("rate_limited", why)


async def receive(
    k: TableKeeper, conn: Connection, text: str | bytes, hello: Callable[[Connection, str], None]
) -> None:
    """Check, parse and handle one message of ``conn`` (``hello`` takes the handshake)."""
    if len(text) > MAX_MESSAGE_BYTES or (
        isinstance(text, str) and len(text.encode()) > MAX_MESSAGE_BYTES
    ):
        raise TableError("too_large", f"a message is at most {MAX_MESSAGE_BYTES} bytes")
    if not conn.allow(k.clock(), k.rate_limit):
        raise OverBudget(f"at most {k.rate_limit} messages a second: dropped")
    key = conn.client or f"socket {id(conn)}"
    # Charged in two steps: its size before it is parsed, its kind's cost after.
    if not k.budget.charge(key, 1.0 + len(text) / MESSAGE_COST_BYTES):
        raise OverBudget(_budget_words(k))
    data = checked(lambda t: parse_json(t, "a message", MAX_TOKENS), text)
    msg = checked(parse_message, data)
    kind = msg.type
    if not k.budget.charge(key, MESSAGE_COSTS.get(kind, DEFAULT_MESSAGE_COST) - 1.0):
        raise OverBudget(_budget_words(k))
    if conn.trial and kind != "hello":
        k.hub.drop_trial(conn)  # let in only to say hello with a seat
        return
    if kind == "ping":
        conn.push(json.dumps({"type": "pong"}))
        return
    if kind == "visibility":
        assert isinstance(msg, Visibility)
        conn.visible = msg.visible
        table = k.tables.get(conn.code)
        if not msg.visible and conn.seat is not None and table is not None and k.pusher:
            k.pusher.hidden(table, conn.seat)
        return
    if kind == "hello":
        assert isinstance(msg, Hello)
        conn.append = msg.history == "append"
        hello(conn, msg.token)
        return
    handler = HANDLERS[kind]
    table = k.get(conn.code)
    if conn.seat is None and kind not in ("watch", "claim"):
        raise TableError("not_allowed", "spectators can only watch")
    await handler(k, table, conn, msg)
