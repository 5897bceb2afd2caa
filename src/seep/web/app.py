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
import re
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from fastapi import FastAPI, Request, WebSocket
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel
from starlette.datastructures import Headers, MutableHeaders
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette.websockets import WebSocketDisconnect

from .botpool import BotPool, default_workers
from .limits import (
    ClientResolver,
    LogLimiter,
    MessageBudget,
    NetworkOpenTables,
    NetworkRates,
    RateLimiter,
    SocketCounts,
    parse_networks,
    quiet_invalid_utf8,
)
from .messages import BadInput, CreateTable, JoinTable, parse_json
from .store import Store, StoreUnavailable
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
    "already_seated": 409,
    "rate_limited": 429,
    "bad_transfer": 403,
    "too_many_tables": 429,
    "unavailable": 503,
    "bad_origin": 403,
    "bad_content_type": 415,
}
# Refusals of malformed input: logged (once a minute per client), since a client that sends
# them is broken or probing.
BAD_INPUT = frozenset(
    {
        "bad_json",
        "bad_request",
        "bad_message",
        "too_large",
        "unknown_type",
        "bad_origin",
        "bad_content_type",
    }
)

# No inline script or style anywhere (static/*.html load files only): an injected tag does
# nothing. The page talks only to its own origin; no site may frame it (clickjacking).
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",  # a table's URL holds its code: never sent elsewhere
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
}
_DEV_PAGES = ("/docs", "/docs/oauth2-redirect")  # Swagger UI loads its script from a CDN


class SecurityHeaders:
    """Adds :data:`SECURITY_HEADERS` to every HTTP answer (pure ASGI: no body buffering)."""

    def __init__(self, app: ASGIApp, dev: bool = False) -> None:
        self.app = app
        self.dev = dev

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        relaxed = self.dev and scope["path"] in _DEV_PAGES

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for key, value in SECURITY_HEADERS.items():
                    if not (relaxed and key == "Content-Security-Policy"):
                        headers[key] = value
            await send(message)

        await self.app(scope, receive, send_with_headers)


_FALLBACK_PAGE = """<!doctype html><meta charset="utf-8"><title>Seep</title>
<p>The Seep server is running, but its page (seep/web/static/index.html) is missing.</p>"""


def _error(code: str, message: str, status: int) -> JSONResponse:
    headers = {"Retry-After": "60"} if status == 429 else None
    return JSONResponse(
        {"error": {"code": code, "message": message}}, status_code=status, headers=headers
    )


MAX_HELD_TOKENS = 50


def _held_tokens(body: Any) -> list[str]:
    """Take quick match's ``tokens`` (the seat tokens this browser holds) out of its body."""
    if not isinstance(body, dict):
        return []
    held = body.pop("tokens", [])
    if (
        not isinstance(held, list)
        or len(held) > MAX_HELD_TOKENS
        or not all(isinstance(t, str) and len(t) <= 100 for t in held)
    ):
        raise TableError(
            "bad_request", f"'tokens' must be a list of at most {MAX_HELD_TOKENS} seat tokens"
        )
    return held


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
    if raw is None or not raw.strip():
        return default
    try:
        value = int(raw)
    except ValueError:
        value = -1
    if value < 0:
        raise SystemExit(f"{name} must be a whole number (0: no limit), got {raw!r}")
    return value


def _table_settings() -> dict[str, Any]:
    """The tables' lifecycle and bot settings from the environment (docs/web.md, Settings)."""
    settings: dict[str, Any] = {
        "ready_seconds": _env_float("SEEP_READY_SECONDS", 60.0),
        "waiting_seconds": _env_float("SEEP_WAITING_TABLE_MINUTES", 30.0) * 60.0,
        "abandoned_seconds": _env_float("SEEP_ABANDONED_HOURS", 24.0) * 3600.0,
        "max_slow_tables": _env_int("SEEP_MAX_EXPERT_TABLES", 4),
        "quick_seconds": _env_float("SEEP_QUICK_SECONDS", 20.0),
        "orphan_seconds": _env_float("SEEP_ORPHAN_MINUTES", 10.0) * 60.0,
        "max_public_waiting": _env_int("SEEP_MAX_PUBLIC_TABLES_PER_CLIENT", 3),
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


def _socket_limits(manager: TableManager) -> None:
    """Each client's sockets and message budget from the environment (docs/web.md, Limits):
    one budget per address, however many sockets it opens."""
    manager.sockets = SocketCounts(
        _env_int("SEEP_MAX_SOCKETS_PER_CLIENT", 40),
        _env_int("SEEP_MAX_SOCKETS_PER_CLIENT_TABLE", 8),
    )
    manager.spectators_per_client = _env_int("SEEP_MAX_SPECTATORS_PER_CLIENT_TABLE", 6)
    manager.budget = MessageBudget(_env_float("SEEP_MESSAGE_BUDGET", 40.0))
    manager.max_connections = _env_int("SEEP_MAX_TABLE_CONNECTIONS", 200) or 1_000_000


def _sweep_interval(manager: TableManager) -> float:
    """How often to look for tables to close: a tenth of the shortest wait, at most a minute."""
    waits = [manager.waiting_seconds, manager.abandoned_seconds, manager.orphan_seconds]
    return max(0.05, min(60.0, *(w / 10 for w in waits if w > 0)))


async def _json_body(request: Request) -> Any:
    """The request's JSON object, read at most :data:`MAX_MESSAGE_BYTES` bytes. Only
    ``application/json``: a cross-site form or ``text/plain`` POST, which a browser sends
    without asking the server first, is refused before its body is read."""
    media_type = request.headers.get("content-type", "").partition(";")[0].strip().lower()
    if media_type != "application/json":
        raise TableError(
            "bad_content_type", "a request body is JSON, sent as Content-Type: application/json"
        )
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
        return parse_json(body, "the request body")
    except BadInput as exc:
        raise TableError(exc.code, exc.message) from None


def _body_doc(model: type[BaseModel]) -> dict[str, Any]:
    """The request body for /docs: the bodies are read and checked by hand (size, strict JSON,
    our error codes), so FastAPI does not know their model by itself."""
    schema = model.model_json_schema()
    return {"requestBody": {"content": {"application/json": {"schema": schema}}}}


def _instance_id(value: str | None) -> str | None:
    """This instance's id (``SEEP_INSTANCE_ID``), checked: several instances share a database
    only with one each."""
    value = value if value is not None else os.environ.get("SEEP_INSTANCE_ID") or None
    if value is not None and not re.fullmatch(r"[A-Za-z0-9._:-]{1,64}", value):
        raise SystemExit(f"an instance id is 1-64 letters, digits or ._:- (got {value!r})")
    return value


# A table's own requests: with several instances, this one must hold the table first.
_TABLE_PATH = re.compile(r"/(?:ws|api/tables)/([^/]+)")


class _ClaimTables:
    """ASGI middleware: before a request for a table (``/ws/{code}``, ``/api/tables/{code}...``)
    the manager claims it (several instances only; see TableManager.claim)."""

    def __init__(self, app: ASGIApp, manager: TableManager) -> None:
        self.app = app
        self.manager = manager

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket") and self.manager.clustered:
            m = _TABLE_PATH.match(scope["path"])
            if m:
                try:
                    await self.manager.claim(m.group(1))
                except Exception as exc:  # held elsewhere, or the database is away
                    if not isinstance(exc, TableError):
                        log.warning("table %s not claimed: %s", m.group(1)[:12], exc)
                        exc = TableError("unavailable", "the table cannot be loaded: try again")
                    if scope["type"] == "websocket":
                        await receive()  # the connect event, then a refusal: the client retries
                        await send({"type": "websocket.close", "code": 1013})
                    else:
                        resp = _error(exc.code, exc.message, 503)
                        resp.headers["Retry-After"] = "1"
                        await resp(scope, receive, send)
                    return
        await self.app(scope, receive, send)


_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}


def _host_port(netloc: str, default: int | None) -> tuple[str, int | None] | None:
    """``host[:port]`` as (lower-case host, port or ``default``); None when malformed."""
    try:
        parts = urlsplit(f"//{netloc}")
        port = parts.port
    except ValueError:
        return None
    if not parts.hostname:
        return None
    return parts.hostname.lower(), port if port is not None else default


def origin_allowed(origin: str, host: str, allowed: frozenset[str] = frozenset()) -> bool:
    """Whether a request from the page at ``origin`` (its ``Origin`` header) may act on the
    server that the request calls ``host`` (its ``Host`` header): the same host and port, or
    one of the ``allowed`` origins (``SEEP_ALLOWED_ORIGINS``). A Host without a port has the
    origin's default one, since a TLS proxy in front may speak plain HTTP to the server."""
    origin = origin.strip().lower().rstrip("/")
    if origin in allowed:
        return True
    try:
        parts = urlsplit(origin)
    except ValueError:
        return False
    default = _DEFAULT_PORTS.get(parts.scheme)
    if default is None or parts.path or parts.query or parts.fragment:
        return False  # "null" (a sandboxed frame, a file), or not an origin at all
    seen, asked = _host_port(parts.netloc, default), _host_port(host.strip(), default)
    return seen is not None and seen == asked


class _OriginCheck:
    """ASGI middleware: a POST or a WebSocket handshake whose ``Origin`` (when the client sent
    one) is not this server is refused with 403 ``bad_origin``. Browsers send Origin with
    every cross-site POST and socket, so another site's page cannot create tables, join them
    or play through its visitors' browsers; clients that are not browsers send none."""

    def __init__(
        self, app: ASGIApp, allowed: frozenset[str], refused: Callable[[Scope], None]
    ) -> None:
        self.app = app
        self.allowed = allowed
        self.refused = refused

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "websocket" or (kind == "http" and scope["method"] == "POST"):
            headers = Headers(scope=scope)
            origin = headers.get("origin")
            if origin is not None and not origin_allowed(
                origin, headers.get("host", ""), self.allowed
            ):
                self.refused(scope)
                refusal = _error(
                    "bad_origin", "requests to this server come from its own pages only", 403
                )
                refusal.headers.update(SECURITY_HEADERS)
                if kind == "http":
                    await refusal(scope, receive, send)
                    return
                await receive()  # the connect event
                if "websocket.http.response" in scope.get("extensions", {}):
                    await send(
                        {
                            "type": "websocket.http.response.start",
                            "status": 403,
                            "headers": refusal.raw_headers,
                        }
                    )
                    await send({"type": "websocket.http.response.body", "body": refusal.body})
                else:
                    await send({"type": "websocket.close", "code": 1008})  # a plain 403
                return
        await self.app(scope, receive, send)


class _InternalErrors:
    """ASGI middleware, the outermost of the app's own: an exception that no handler took
    (in a request, or in a socket's handshake before the socket's own handler catches).

    A client that hung up mid-request (``ClientDisconnect``) ends quietly: nobody is left to
    answer, and phones do it all the time. Any other exception is a 500 for the client and
    a line in the log at most once a minute per client, with its traceback (Starlette's own
    catch-all would log every one, and uvicorn again: a client could fill the disk)."""

    def __init__(
        self,
        app: ASGIApp,
        client: Callable[[Scope], str],
        log_error: Callable[[str, str, BaseException | None], None],
    ) -> None:
        self.app = app
        self.client = client
        self.log_error = log_error

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            try:
                await self.app(scope, receive, send)
            except Exception as exc:  # uvicorn would log its traceback for every socket
                self.log_error(self.client(scope), f"websocket: {type(exc).__name__}: {exc}", exc)
                with contextlib.suppress(Exception):  # refused, or closed as a server error
                    await send({"type": "websocket.close", "code": 1011})
            return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def watch_start(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, watch_start)
        except ClientDisconnect:
            return
        except Exception as exc:
            what = f"{scope['method']} {scope['path'][:80]}: {type(exc).__name__}: {exc}"
            self.log_error(self.client(scope), what[:300], exc)
            if not started:  # else the client gets a cut-off answer: nothing better is left
                response = _error(
                    "internal_error", "internal server error (logged on the server)", 500
                )
                response.headers.update(SECURITY_HEADERS)
                with contextlib.suppress(Exception):
                    await response(scope, receive, send)


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
    dev: bool = False,
    trusted_proxies: str | None = None,
    max_tables_per_minute: int | None = None,
    max_open_tables: int | None = None,
    max_open_tables_per_client: int | None = None,
    max_unknown_codes_per_minute: int | None = None,
    instance_id: str | None = None,
    lease_seconds: float | None = None,
) -> FastAPI:
    """The web app. ``database_url`` defaults to ``SEEP_DATABASE_URL`` or ./data/seep.db;
    ``bot_delay`` (``SEEP_BOT_DELAY``, 0.6 s) is the pause before each bot move and
    ``grace_seconds`` (``SEEP_GRACE_SECONDS``, 30 s) how long a player may be gone before a
    bot plays for him. Unfinished tables are reloaded when the app starts. The other settings
    (docs/web.md) come from the environment.

    ``dev`` serves /docs and /openapi.json. The limits per client (docs/web.md "Limits"; 0: no
    limit) default to their ``SEEP_*`` environment settings: ``max_tables_per_minute`` (10),
    ``max_open_tables`` (2,000 in all), ``max_open_tables_per_client`` (20),
    ``max_unknown_codes_per_minute`` (30). ``trusted_proxies`` (``SEEP_TRUSTED_PROXIES``,
    default none) are the addresses whose ``X-Forwarded-For`` names the client.

    ``instance_id`` (``SEEP_INSTANCE_ID``) makes this server one of several on one database
    (docs/deploy.md): it then holds a table only under a lease of ``lease_seconds``
    (``SEEP_LEASE_SECONDS``, 10 s), loads tables when their requests come, and no table at
    start."""

    def setting(value: int | None, name: str, default: int) -> int:
        return value if value is not None else _env_int(name, default)

    per_minute = setting(max_tables_per_minute, "SEEP_MAX_TABLES_PER_MINUTE", 10)
    open_cap = setting(max_open_tables, "SEEP_MAX_OPEN_TABLES", 2000)
    client_cap = setting(max_open_tables_per_client, "SEEP_MAX_OPEN_TABLES_PER_CLIENT", 20)
    misses_cap = setting(max_unknown_codes_per_minute, "SEEP_MAX_UNKNOWN_CODES_PER_MINUTE", 30)
    if trusted_proxies is None:
        trusted_proxies = os.environ.get("SEEP_TRUSTED_PROXIES", "")
    try:
        client_of = ClientResolver(parse_networks(trusted_proxies))
    except ValueError as exc:
        raise SystemExit(f"SEEP_TRUSTED_PROXIES: {exc}") from None
    quiet_invalid_utf8()
    instance = _instance_id(instance_id)
    store = Store(database_url, owner=instance)
    manager = TableManager(
        store,
        **_table_settings(),
        bot_delay=bot_delay if bot_delay is not None else _env_float("SEEP_BOT_DELAY", 0.6),
        grace_seconds=(
            grace_seconds if grace_seconds is not None else _env_float("SEEP_GRACE_SECONDS", 30.0)
        ),
        lease_seconds=(
            lease_seconds if lease_seconds is not None else _env_float("SEEP_LEASE_SECONDS", 10.0)
        ),
    )
    _socket_limits(manager)

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
        beats = asyncio.create_task(manager.heartbeat()) if manager.clustered else None
        sweeps = asyncio.create_task(sweeper())
        _tune_gc()
        yield
        checkpoints.cancel()
        sweeps.cancel()
        if beats is not None:
            beats.cancel()
        manager.shutdown()
        if manager.bot_pool is not None:
            manager.bot_pool.close()
        with contextlib.suppress(Exception):
            store.release_lease()  # the other instances take this one's tables at once
        store.checkpoint("TRUNCATE")
        store.close()

    app = FastAPI(
        title="Seep",
        lifespan=lifespan,
        docs_url="/docs" if dev else None,
        redoc_url=None,
        openapi_url="/openapi.json" if dev else None,
    )
    app.add_middleware(SecurityHeaders, dev=dev)
    app.state.manager = manager
    app.state.store = store
    app.add_middleware(_ClaimTables, manager=manager)

    creations = NetworkRates(per_minute)  # per client, and per /56 and /48 (limits.networks)
    misses = RateLimiter(misses_cap)  # lookups of codes that name no table
    lobby_looks = RateLimiter(_env_int("SEEP_MAX_LOBBY_PER_MINUTE", 60))
    log_bad = LogLimiter(log)
    manager.log_bad_input = log_bad

    def is_open(code: str) -> bool:
        if manager.clustered:  # the table may live on another instance: ask the database
            return store.running(code)
        table = manager.tables.get(code)
        return table is not None and table.status in ("waiting", "playing")

    def open_in_all() -> int:
        if manager.clustered:
            return store.count_running()
        return sum(is_open(c) for c in manager.tables)

    open_tables = NetworkOpenTables(client_cap, is_open)
    app.state.client_of = client_of

    def client(request: Request | WebSocket) -> str:
        peer = request.client.host if request.client is not None else None
        return client_of(peer, request.headers.get("x-forwarded-for"))

    def lookup(key: str, code: str, find: Callable[[str], Any]) -> Any:
        """A lookup by table code, limited per client: codes that name no table count, and
        past the limit every lookup is refused (else the refusals would tell which codes
        exist)."""
        if misses.over(key):
            raise TableError(
                "rate_limited",
                f"more than {misses.limit} unknown table codes in a minute from your address: "
                "wait a minute",
            )
        try:
            return find(code)
        except TableError as exc:
            if exc.code == "unknown_table":
                misses.add(key)
            raise

    @app.exception_handler(TableError)
    async def table_error(request: Request, exc: TableError) -> JSONResponse:
        if exc.code in BAD_INPUT:
            log_bad(client(request), f"{exc.code} ({request.method} request)")
        return _error(exc.code, exc.message, _STATUS.get(exc.code, 400))

    @app.exception_handler(StoreUnavailable)
    async def store_unavailable(_: Request, exc: StoreUnavailable) -> JSONResponse:
        # Nothing was stored or changed: the client may try again (docs/web.md "Liveness");
        # not logged per request (a full disk would fill the log): /readyz says it.
        return _error(
            "store_unavailable",
            "the server could not save that (its database is busy or full): try again",
            503,
        )

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {404: "not_found", 405: "method_not_allowed"}.get(
            exc.status_code, f"http_{exc.status_code}"
        )
        return _error(code, str(exc.detail), exc.status_code)

    def scope_client(scope: Scope) -> str:
        peer = scope.get("client")
        return client_of(peer[0] if peer else None, Headers(scope=scope).get("x-forwarded-for"))

    log_error = LogLimiter(log, template="internal error for %s: %s%s", level=logging.ERROR)
    allowed_origins = frozenset(
        o.strip().lower().rstrip("/")
        for o in os.environ.get("SEEP_ALLOWED_ORIGINS", "").replace(",", " ").split()
    )
    app.add_middleware(
        _OriginCheck,
        allowed=allowed_origins,
        refused=lambda scope: log_bad(scope_client(scope), f"bad_origin ({scope['type']})"),
    )
    # Outermost: sees what every other layer let through (its 500 bypasses SecurityHeaders).
    app.add_middleware(_InternalErrors, client=scope_client, log_error=log_error)

    # --- pages --------------------------------------------------------------------------------

    @app.api_route("/", methods=["GET", "HEAD"], include_in_schema=False)
    async def lobby() -> Response:
        return _page("index.html")

    @app.api_route("/t/{code}", methods=["GET", "HEAD"], include_in_schema=False)
    async def table_page(code: str) -> Response:
        return _page("index.html")

    @app.api_route("/replay/{code}", methods=["GET", "HEAD"], include_in_schema=False)
    async def replay_page(code: str) -> Response:
        return _page("index.html")

    @app.api_route("/favicon.ico", methods=["GET", "HEAD"], include_in_schema=False)
    async def favicon() -> Response:
        # An SVG under the name browsers ask for: every page links it (index, how to play).
        return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")

    @app.get("/healthz", include_in_schema=False)
    async def health() -> dict[str, str]:
        # The proxy's health check (docs/deploy.md): cheap, no database round trip.
        return {"status": "ok"}

    @app.get("/readyz", include_in_schema=False)
    async def ready() -> JSONResponse:
        # Readiness (docs/web.md "Liveness"): 503 while the database cannot take writes (a
        # lock, a full disk: the probe write or the checkpoint fails), for the proxy.
        problem = await asyncio.to_thread(store.problem)
        if problem is not None:
            return JSONResponse({"status": "unavailable", "problem": problem}, status_code=503)
        return JSONResponse({"status": "ok"})

    @app.api_route("/how-to-play", methods=["GET", "HEAD"], include_in_schema=False)
    async def how_to_play() -> Response:
        return _page("how-to-play.html")

    app.mount("/static", StaticFiles(directory=STATIC, check_dir=False), name="static")

    # --- API ----------------------------------------------------------------------------------
    # The handlers are ``async`` so that they run on the event loop's thread, like the tables.

    def may_create(key: str) -> None:
        """Refuse a new table (created, opened by quick match, or a rematch) over a limit."""
        busy = creations.over(key)
        if busy is not None:
            where = "one address" if busy[0] == key else f"the network {busy[0]}"
            raise TableError(
                "rate_limited", f"at most {busy[1]} new tables a minute from {where}: wait a minute"
            )
        full = open_tables.over(key)
        if full is not None:
            where = "your address" if full[0] == key else f"your network {full[0]}"
            raise TableError(
                "too_many_tables",
                f"{where} already has {full[1]} open tables (the limit): finish or leave one first",
            )
        if open_cap and open_in_all() >= open_cap:
            raise TableError(
                "too_many_tables",
                f"the server has {open_cap} open tables, its limit: try again later",
            )

    def created(key: str, code: str) -> None:
        creations.add(key)
        open_tables.add(key, code)

    manager.may_create = may_create  # rematches count against the same limits
    manager.created = created

    def create(key: str, body: Any) -> dict[str, Any]:
        may_create(key)
        made = manager.create(body, key)
        created(key, made["code"])
        return made

    @app.post("/api/tables", status_code=201, openapi_extra=_body_doc(CreateTable))
    async def create_table(request: Request) -> dict[str, Any]:
        return create(client(request), await _json_body(request))

    @app.get("/api/lobby")
    async def lobby_tables(request: Request) -> dict[str, Any]:
        key = client(request)
        if lobby_looks.over(key):
            raise TableError(
                "rate_limited",
                f"at most {lobby_looks.limit} lobby lookups a minute from one address",
            )
        lobby_looks.add(key)
        return await manager.lobby_everywhere()

    @app.post("/api/quick", openapi_extra=_body_doc(CreateTable))
    async def quick_match(request: Request) -> dict[str, Any]:
        # Sit at the first open public table with these settings, or open one (counted as a
        # table created, with its limits).
        key = client(request)
        body = await _json_body(request)
        if lobby_looks.over(key):
            raise TableError(
                "rate_limited",
                f"at most {lobby_looks.limit} lobby lookups a minute from one address",
            )
        lobby_looks.add(key)
        held = _held_tokens(body)
        code = await manager.quick_table_everywhere(body)
        if code is not None:
            table = manager.get(code)
            # Quick match twice from one browser: the seat it already holds there.
            mine = [(table.seat_of_token(t), t) for t in held]
            joined = next(({"seat": s, "token": t} for s, t in mine if s is not None), None)
            if joined is None:
                joined = manager.join(code, {"name": body.get("name")} if body.get("name") else {})
            return {"code": code, "url": f"/t/{code}", **joined}
        made = create(key, dict(body, public=True))
        # Nobody waits yet: others may join until the countdown fills the rest with bots.
        manager.count_down(made["code"])
        return made

    @app.get("/api/tables/{code}")
    async def table_summary(code: str, request: Request) -> dict[str, Any]:
        found: dict[str, Any] = lookup(client(request), code, manager.summary)
        return found

    @app.post("/api/tables/{code}/join", openapi_extra=_body_doc(JoinTable))
    async def join_table(code: str, request: Request) -> dict[str, Any]:
        body = await _json_body(request)
        found: dict[str, Any] = lookup(client(request), code, lambda c: manager.join(c, body))
        return found

    @app.get("/api/tables/{code}/replay")
    async def table_replay(code: str, request: Request) -> dict[str, Any]:
        found: dict[str, Any] = lookup(client(request), code, manager.replay)
        return found

    @app.get("/api/tables/{code}/record")
    async def table_record(code: str, request: Request) -> JSONResponse:
        record = lookup(client(request), code, manager.record)
        name = f"seep-{code.upper()}.json"
        return JSONResponse(
            record, headers={"Content-Disposition": f'attachment; filename="{name}"'}
        )

    # --- WebSocket ----------------------------------------------------------------------------

    async def writer(ws: WebSocket, conn: Connection) -> None:
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

    @app.websocket("/ws/{code}")
    async def table_socket(ws: WebSocket, code: str) -> None:
        await ws.accept()
        key = client(ws)
        try:
            # A seat is claimed by the first message, {"type": "hello", "token": T}: a token
            # in the URL would land in every proxy's and server's access log.
            conn: Connection = lookup(key, code, lambda c: manager.connect(c, key))
        except TableError as exc:
            await ws.send_text(
                json.dumps({"type": "error", "code": exc.code, "message": exc.message})
            )
            busy = exc.code in ("rate_limited", "too_many_connections")
            await ws.close(code=4429 if busy else 4404)
            return
        conn.origin = f"{'https' if ws.url.scheme == 'wss' else 'http'}://{ws.url.netloc}"
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
            log_error(key, f"websocket: {type(exc).__name__}: {exc}"[:300], exc)
        finally:
            manager.disconnect(conn)
            conn.close()
            with contextlib.suppress(Exception):
                await task

    return app
