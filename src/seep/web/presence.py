"""Who is at a table: sockets coming (as spectators), saying ``hello`` with a seat's token,
and going. A seated player gone starts his grace period (:mod:`seep.web.driver`); a waiting
table's host gone starts the wait after which another player may start it.
"""

from __future__ import annotations

from . import practice
from .hub import Connection, Hub
from .keeper import TableKeeper
from .moderation import ModerationError
from .table import TableError

# The close code of a socket whose player is banned (4403: forbidden, in the 4000s the
# application's own): he is told why in an ``error`` ``banned`` first.
BANNED_CLOSE = 4403

__all__ = ["BANNED_CLOSE", "connect", "disconnect", "end_banned", "hello"]


def connect(k: TableKeeper, code: str, client: str = "") -> Connection:
    """A new connection to a table (raises ``unknown_table``, or ``table_over`` for a
    table finished or closed): a spectator's until its ``hello`` names a seat
    (:func:`hello`). It gets the spectator's state at once. ``client`` is the client's
    key: its sockets are capped (``too_many_connections``), and refused while it serves
    a penalty for flooding (``rate_limited``)."""
    table = k.tables.get(code.upper())
    if table is None:
        stored = k.store.load_finished(code.upper()) if k.store is not None else None
        if stored is not None:
            status = stored["public"]["status"]
            raise TableError(
                "table_over",
                f"table {code.upper()} is {status}: its finished deals are at "
                f"/replay/{code.upper()}",
            )
        raise TableError("unknown_table", f"no table {code}")
    try:
        conn = k.hub.admit(
            table,
            client,
            budget=k.budget,
            sockets=k.sockets,
            spectators_per_client=k.spectators_per_client,
            max_connections=k.max_connections,
            on_trial_over=_trial_over,
        )
    except TableError:
        k.metrics.refused("sockets")
        raise
    k.hub.send_state(table, conn)
    k.hub.watchers_changed(table.code, k.tables.get)
    return conn  # a spectator never wakes a paused table


def _trial_over(conn: Connection) -> None:
    """A socket let into a full table on trial said no hello with a seat in time."""
    if conn.trial:
        Hub.drop_trial(conn)


def hello(k: TableKeeper, conn: Connection, token: str) -> None:
    """The ``hello`` handshake: the connection takes the seat its token holds. A token that
    fits no seat gets ``unknown_token`` and the connection goes on watching."""
    table = k.get(conn.code)
    if conn.seat is not None:
        raise TableError("not_allowed", "this connection already holds a seat")
    seat = table.seat_of_token(token)
    if seat is None:
        if conn.trial:
            k.hub.drop_trial(conn)
        raise TableError("unknown_token", "this token holds no seat at this table: watching")
    if k.moderation is not None:
        try:  # the instance's copy of the sanctions: no database query
            k.moderation.check_banned(conn.client, table.seats[seat].account)
        except ModerationError as exc:
            conn.error(exc.code, exc.message)
            conn.end(BANNED_CLOSE)
            return
    if conn.trial:
        k.hub.make_room(table, conn, k.max_connections)
    conn.seat = seat
    s = table.seats[seat]
    s.connections += 1
    if seat == table.host:
        k._host_left.pop(table.code, None)
    k.driver.end_grace(table.code, seat)
    s.away = False  # the bot gives the seat back
    k._changed(table, game=False)
    practice.send_review(table, conn)


def disconnect(k: TableKeeper, conn: Connection) -> None:
    """A connection has gone."""
    k.sockets.remove(conn.client, conn.code, conn)
    conns = k.hub.conns.get(conn.code)
    if conns is None or conn not in conns:
        return
    conns.discard(conn)
    table = k.tables.get(conn.code)
    if table is None:
        return
    if table.status == "finished" and not conns:
        k._forget(table)  # over and unwatched: the store keeps it
        return
    if conn.seat is None:
        k.hub.watchers_changed(table.code, k.tables.get)
        return
    s = table.seats[conn.seat]
    s.connections -= 1
    if k.pusher is not None:
        k.pusher.hidden(table, conn.seat)
    if s.connections == 0:
        if table.status == "playing":
            k._start_grace(table, conn.seat)
        elif conn.seat == table.host:
            k._host_left[table.code] = k.clock()
        k._changed(table, game=False)


def end_banned(k: TableKeeper) -> int:
    """A ban reaches the tables (each refresh of the sanctions calls this): every socket of
    a banned address, or seated for a banned account, is told ``banned`` and closed with
    :data:`BANNED_CLOSE`; its seat is then away, as after any lost connection (the grace
    period, then a bot). Returns how many sockets it closed."""
    if k.moderation is None:
        return 0
    ended = 0
    for code, conns in list(k.hub.conns.items()):
        table = k.tables.get(code)
        for conn in list(conns):
            account = None
            if table is not None and conn.seat is not None:
                account = table.seats[conn.seat].account
            try:
                k.moderation.check_banned(conn.client, account)
            except ModerationError as exc:
                conn.error(exc.code, exc.message)
                conn.end(BANNED_CLOSE)
                ended += 1
    return ended
