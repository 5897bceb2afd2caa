"""The FastAPI app: HTTP routes, the WebSocket endpoint and the page's static files.

The routes and messages are docs/web.md's. Every error is JSON
``{"error": {"code": ..., "message": ...}}`` (HTTP) or an ``error`` message (WebSocket) for
the client that caused it; no traceback ever reaches a client.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import logging
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request, WebSocket
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.websockets import WebSocketDisconnect

from .botpool import BotPool, default_workers
from .store import Store
from .tables import MAX_MESSAGE_BYTES, Connection, TableError, TableManager

__all__ = ["STATIC", "create_app"]

STATIC = Path(__file__).parent / "static"
log = logging.getLogger("seep.web")

_STATUS = {
    "unknown_table": 404,
    "bad_request": 400,
    "bad_json": 400,
    "too_large": 413,
    "not_host": 403,
    "not_allowed": 409,
    "seat_taken": 409,
    "too_many_tables": 429,
}

_FALLBACK_PAGE = """<!doctype html><meta charset="utf-8"><title>Seep</title>
<p>The Seep server is running, but its page (seep/web/static/index.html) is missing.</p>"""


def _error(code: str, message: str, status: int) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status)


def _env_float(name: str, default: float) -> float:
    raw = os.environ.get(name)
    if raw is None:
        return default
    try:
        return float(raw)
    except ValueError:
        raise SystemExit(f"{name} must be a number of seconds, got {raw!r}") from None


def _env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None:
        return default
    try:
        return int(raw)
    except ValueError:
        raise SystemExit(f"{name} must be a whole number, got {raw!r}") from None


def _table_settings() -> dict[str, Any]:
    """The tables' lifecycle and bot settings from the environment (docs/web.md, Settings)."""
    settings: dict[str, Any] = {
        "ready_seconds": _env_float("SEEP_READY_SECONDS", 60.0),
        "waiting_seconds": _env_float("SEEP_WAITING_TABLE_MINUTES", 30.0) * 60.0,
        "abandoned_seconds": _env_float("SEEP_ABANDONED_HOURS", 24.0) * 3600.0,
        "max_slow_tables": _env_int("SEEP_MAX_EXPERT_TABLES", 4),
    }
    for name in ("waiting_seconds", "abandoned_seconds"):
        if settings[name] <= 0:
            raise SystemExit("SEEP_WAITING_TABLE_MINUTES and SEEP_ABANDONED_HOURS must be positive")
    try:
        settings["bot_pool"] = BotPool(
            _env_int("SEEP_BOT_WORKERS", default_workers()),
            _env_float("SEEP_BOT_SECONDS", 3.0),
        )
    except ValueError as exc:
        raise SystemExit(f"SEEP_BOT_WORKERS or SEEP_BOT_SECONDS: {exc}") from None
    return settings


def _sweep_interval(manager: TableManager) -> float:
    """How often to look for tables to close: a tenth of the shortest wait, at most a minute."""
    return max(0.05, min(60.0, manager.waiting_seconds / 10, manager.abandoned_seconds / 10))


async def _json_body(request: Request) -> dict[str, Any]:
    """The request's JSON object, read at most :data:`MAX_MESSAGE_BYTES` bytes."""
    size = request.headers.get("content-length")
    if size is not None and size.isdigit() and int(size) > MAX_MESSAGE_BYTES:
        raise TableError("too_large", f"a request body is at most {MAX_MESSAGE_BYTES} bytes")
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_MESSAGE_BYTES:
            raise TableError("too_large", f"a request body is at most {MAX_MESSAGE_BYTES} bytes")
    if not body.strip():
        return {}
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise TableError("bad_json", "the request body is not valid JSON") from None
    if not isinstance(data, dict):
        raise TableError("bad_request", "the request body must be a JSON object")
    return data


def _page(name: str) -> Response:
    path = STATIC / name
    if not path.is_file():
        path = STATIC / "index.html"
    if not path.is_file():
        return HTMLResponse(_FALLBACK_PAGE)
    return FileResponse(path, media_type="text/html")


def _tune_gc() -> None:
    """Fewer, cheaper garbage collections: every pause stops all tables at once.

    Almost everything a table allocates is freed by reference counting; what lives long is the
    engine's move-generation caches and the tables themselves, which a full collection would
    walk again and again. The objects of the started server are frozen out of the collector's
    sight and generation 0 collects less often.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(10_000, 50, 100)


def create_app(
    database_url: str | None = None,
    *,
    bot_delay: float | None = None,
    grace_seconds: float | None = None,
) -> FastAPI:
    """The web app. ``database_url`` defaults to ``SEEP_DATABASE_URL`` or ./data/seep.db;
    ``bot_delay`` (``SEEP_BOT_DELAY``, 0.6 s) is the pause before each bot move and
    ``grace_seconds`` (``SEEP_GRACE_SECONDS``, 30 s) how long a player may be gone before a
    bot plays for him. Unfinished tables are reloaded when the app starts. The other settings
    (docs/web.md) come from the environment."""
    store = Store(database_url)
    manager = TableManager(
        store,
        **_table_settings(),
        bot_delay=bot_delay if bot_delay is not None else _env_float("SEEP_BOT_DELAY", 0.6),
        grace_seconds=(
            grace_seconds if grace_seconds is not None else _env_float("SEEP_GRACE_SECONDS", 30.0)
        ),
    )

    async def checkpointer() -> None:
        # PASSIVE checkpoints often (they never wait for the loop's writes); a TRUNCATE now and
        # then empties the log file. Both in a worker thread: the loop never waits for a fsync.
        every = _env_float("SEEP_CHECKPOINT_SECONDS", 2.0)
        truncate_every = _env_float("SEEP_TRUNCATE_SECONDS", 60.0)
        truncated = asyncio.get_running_loop().time()
        while True:
            await asyncio.sleep(every)
            mode = "PASSIVE"
            if asyncio.get_running_loop().time() - truncated >= truncate_every:
                mode, truncated = "TRUNCATE", asyncio.get_running_loop().time()
            try:
                await asyncio.to_thread(store.checkpoint, mode)
            except Exception as exc:  # a busy database: the next round catches up
                log.warning("checkpoint failed: %s", exc)

    async def sweeper() -> None:
        while True:
            await asyncio.sleep(_sweep_interval(manager))
            try:
                manager.sweep()
            except Exception as exc:  # a bug must not stop the sweeping
                log.exception("sweep failed: %s", exc)

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        n = manager.load()
        if n:
            log.info("resumed %d unfinished table(s)", n)
        checkpoints = asyncio.create_task(checkpointer())
        sweeps = asyncio.create_task(sweeper())
        _tune_gc()
        yield
        checkpoints.cancel()
        sweeps.cancel()
        manager.shutdown()
        if manager.bot_pool is not None:
            manager.bot_pool.close()
        store.checkpoint("TRUNCATE")
        store.close()

    app = FastAPI(title="Seep", lifespan=lifespan, docs_url=None, redoc_url=None)
    app.state.manager = manager
    app.state.store = store

    @app.exception_handler(TableError)
    async def table_error(_: Request, exc: TableError) -> JSONResponse:
        return _error(exc.code, exc.message, _STATUS.get(exc.code, 400))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {404: "not_found", 405: "method_not_allowed"}.get(
            exc.status_code, f"http_{exc.status_code}"
        )
        return _error(code, str(exc.detail), exc.status_code)

    @app.exception_handler(Exception)
    async def internal_error(_: Request, exc: Exception) -> JSONResponse:
        log.exception("internal error: %s", exc)
        return _error("internal_error", "internal server error (logged on the server)", 500)

    # --- pages --------------------------------------------------------------------------------

    @app.get("/", include_in_schema=False)
    async def lobby() -> Response:
        return _page("index.html")

    @app.get("/t/{code}", include_in_schema=False)
    async def table_page(code: str) -> Response:
        return _page("index.html")

    @app.get("/replay/{code}", include_in_schema=False)
    async def replay_page(code: str) -> Response:
        return _page("index.html")

    @app.get("/how-to-play", include_in_schema=False)
    async def how_to_play() -> Response:
        return _page("how-to-play.html")

    app.mount("/static", StaticFiles(directory=STATIC, check_dir=False), name="static")

    # --- API ----------------------------------------------------------------------------------
    # The handlers are ``async`` so that they run on the event loop's thread, like the tables.

    @app.post("/api/tables", status_code=201)
    async def create_table(request: Request) -> dict[str, Any]:
        client = request.client.host if request.client is not None else ""
        return manager.create(await _json_body(request), client)

    @app.get("/api/tables/{code}")
    async def table_summary(code: str) -> dict[str, Any]:
        return manager.summary(code)

    @app.post("/api/tables/{code}/join")
    async def join_table(code: str, request: Request) -> dict[str, Any]:
        return manager.join(code, await _json_body(request))

    @app.get("/api/tables/{code}/replay")
    async def table_replay(code: str) -> dict[str, Any]:
        return manager.replay(code)

    @app.get("/api/tables/{code}/record")
    async def table_record(code: str) -> JSONResponse:
        record = manager.record(code)
        name = f"seep-{code.upper()}.json"
        return JSONResponse(
            record, headers={"Content-Disposition": f'attachment; filename="{name}"'}
        )

    # --- WebSocket ----------------------------------------------------------------------------

    async def writer(ws: WebSocket, conn: Connection) -> None:
        while True:
            text = await conn.next_message()
            if text is None:
                # The table has closed (or the server stops): so does the socket.
                with contextlib.suppress(Exception):
                    await ws.close()
                return
            try:
                await ws.send_text(text)
            except Exception:  # the client has gone; the reader notices too
                return

    @app.websocket("/ws/{code}")
    async def table_socket(ws: WebSocket, code: str) -> None:
        await ws.accept()
        try:
            # A seat is claimed by the first message, {"type": "hello", "token": T}: a token
            # in the URL would land in every proxy's and server's access log.
            conn = manager.connect(code)
        except TableError as exc:
            await ws.send_text(
                json.dumps({"type": "error", "code": exc.code, "message": exc.message})
            )
            await ws.close(code=4404)
            return
        task = asyncio.create_task(writer(ws, conn))
        try:
            while True:
                msg = await ws.receive()
                if msg["type"] == "websocket.disconnect":
                    break
                data = msg.get("text")
                if data is None:
                    data = msg.get("bytes") or b""
                await manager.handle(conn, data)
        except WebSocketDisconnect:
            pass
        except Exception as exc:  # never let one client's trouble reach the others
            log.exception("websocket error: %s", exc)
        finally:
            manager.disconnect(conn)
            conn.close()
            with contextlib.suppress(Exception):
                await task

    return app
