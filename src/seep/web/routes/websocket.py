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
        try:
            # A seat is claimed by the first message, {"type": "hello", "token": T}: a token
            # in the URL would land in every proxy's and server's access log.
            conn: Connection = gate.lookup(key, code, lambda c: manager.connect(c, key))
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
