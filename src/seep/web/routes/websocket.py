"""``/ws/{code}``: a table's socket (docs/web.md, "WebSocket"). A reader hands each message to
the manager; a writer sends what the connection's queue holds. One client's trouble never
reaches the others: it is logged (once a minute per client) and its socket ends."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time

from fastapi import APIRouter, WebSocket
from starlette.websockets import WebSocketDisconnect

from ..metrics import Metrics
from ..moderation import ModerationError
from ..presence import BANNED_CLOSE
from ..tables import Connection, TableError
from .gate import Gate

__all__ = ["router"]

HELLO_SECONDS = 10.0  # a sealed table's socket says hello with its seat's token within this


async def _writer(ws: WebSocket, conn: Connection, metrics: Metrics) -> None:
    while True:
        text = await conn.next_message()
        if text is None:
            # The table left this server (reconnect elsewhere), closed, or the server
            # stops: so does the socket.
            with contextlib.suppress(Exception):
                if conn.close_code is not None:
                    await ws.close(code=conn.close_code)
                else:
                    await ws.close()
            return
        try:
            await ws.send_text(text)
        except Exception:  # the client has gone; the reader notices too
            return
        # The player's own move answered: its state (queued last) is written once the
        # queue is empty.
        if conn.answer_due and conn.queue.empty():
            metrics.answered(time.perf_counter() - conn.answer_due)
            conn.answer_due = 0.0


async def _seated_hello(ws: WebSocket, gate: Gate, code: str) -> str:
    """The first message of a socket to a sealed table: a ``hello`` whose token holds a seat
    there (:class:`TableError` ``not_allowed`` otherwise, or after ``HELLO_SECONDS``)."""
    refused = TableError(
        "not_allowed", "nobody watches this table until every table of its round has finished"
    )
    try:
        msg = await asyncio.wait_for(ws.receive(), HELLO_SECONDS)
    except TimeoutError:
        raise refused from None
    text = msg.get("text")
    if msg["type"] != "websocket.receive" or not isinstance(text, str) or len(text) > 4096:
        raise refused
    try:
        hello = json.loads(text)
    except ValueError:
        raise refused from None
    table = gate.manager.tables.get(code.upper())
    token = hello.get("token") if isinstance(hello, dict) else None
    if (
        table is None
        or hello.get("type") != "hello"
        or not isinstance(token, str)
        or table.seat_of_token(token) is None
    ):
        raise refused
    return text


def router(gate: Gate) -> APIRouter:
    """The socket endpoint."""
    sockets = APIRouter()
    manager = gate.manager

    @sockets.websocket("/ws/{code}")
    async def table_socket(ws: WebSocket, code: str) -> None:
        await ws.accept()
        key = gate.client(ws)
        if manager.moderation is not None:
            try:  # a banned address may not even watch (its seats are refused at hello)
                manager.moderation.check_banned(key, None)
            except ModerationError as exc:
                await ws.send_text(
                    json.dumps({"type": "error", "code": exc.code, "message": exc.message})
                )
                await ws.close(code=BANNED_CLOSE)
                return
        first: str | None = None
        try:
            if gate.is_sealed(code):
                # A duplicate deal not open yet (docs/web.md "Events"): nobody watches it, so
                # the first message must be a hello with a seat's token before anything is sent.
                first = await _seated_hello(ws, gate, code)
            # A seat is claimed by the first message, {"type": "hello", "token": T}: a token
            # in the URL would land in every proxy's and server's access log.
            conn: Connection = gate.lookup(
                key, code, lambda c: manager.connect(c, key), sealed_ok=first is not None
            )
        except TableError as exc:
            await ws.send_text(
                json.dumps({"type": "error", "code": exc.code, "message": exc.message})
            )
            busy = exc.code in ("rate_limited", "too_many_connections")
            await ws.close(code=4429 if busy else 4404)
            return
        conn.origin = f"{'https' if ws.url.scheme == 'wss' else 'http'}://{ws.url.netloc}"
        task = asyncio.create_task(_writer(ws, conn, manager.metrics))
        try:
            if first is not None:
                await manager.handle(conn, first)
            while True:
                msg = await ws.receive()
                if msg["type"] == "websocket.disconnect":
                    break
                conn.received = time.perf_counter()
                data = msg.get("text")
                if data is None:
                    data = msg.get("bytes") or b""
                await manager.handle(conn, data)
        except WebSocketDisconnect:
            pass
        except Exception as exc:  # never let one client's trouble reach the others
            gate.log_error(key, f"websocket: {type(exc).__name__}: {exc}"[:300], exc)
        finally:
            manager.disconnect(conn)
            conn.close()
            with contextlib.suppress(Exception):
                await task

    return sockets
