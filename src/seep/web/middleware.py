"""The app's ASGI middlewares, outermost first as :func:`seep.web.app.create_app` stacks them:
internal errors (a 500 and a limited log line, never a traceback to the client), the Origin
check, the claim of a table's requests (several instances), and the security headers. Also
:func:`error_response`, the JSON error every layer answers with (docs/web.md, "HTTP").

Pure ASGI: nothing here buffers a body.
"""

from __future__ import annotations

import contextlib
import logging
import re
import secrets
from collections.abc import Callable
from urllib.parse import urlsplit

from starlette.datastructures import Headers, MutableHeaders
from starlette.requests import ClientDisconnect
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .logformat import REQUEST, TABLE
from .tables import TableError, TableManager

__all__ = [
    "CSP",
    "SECURITY_HEADERS",
    "ClaimTables",
    "InternalErrors",
    "OriginCheck",
    "RequestContext",
    "SecurityHeaders",
    "error_response",
    "origin_allowed",
]

log = logging.getLogger("seep.web")

# No inline script or style anywhere (static/*.html load files only): an injected tag does
# nothing. 'wasm-unsafe-eval' lets the offline table compile Pyodide's WebAssembly, and nothing
# else (no eval of JavaScript). The page talks only to its own origin; no site may frame it
# (clickjacking). The installable app's manifest and service worker come from the site too
# (seep.web.pwa).
CSP = (
    "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; "
    "img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'; "
    "manifest-src 'self'; worker-src 'self'"
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


def error_response(
    code: str, message: str, status: int, retry_after: int | None = None
) -> JSONResponse:
    """``{"error": {"code": ..., "message": ...}}`` with ``status``; a 429 says when to retry
    (``retry_after`` seconds, else a minute: the limits' window)."""
    if retry_after is None and status == 429:
        retry_after = 60
    headers = {"Retry-After": str(retry_after)} if retry_after is not None else None
    return JSONResponse(
        {"error": {"code": code, "message": message}}, status_code=status, headers=headers
    )


# A table's own requests: with several instances, this one must hold the table first.
_TABLE_PATH = re.compile(r"/(?:ws|api/tables)/([^/]+)")
# What a log line may name as its table: a table's pages and requests (codes are short).
_LOGGED_TABLE = re.compile(r"/(?:t|ws|replay|api/tables)/([A-Za-z0-9]{1,8})(?:/|$)")


class RequestContext:
    """ASGI middleware, outermost: names each HTTP request (``r-…``) and WebSocket connection
    (``c-…``) and the table its path names, for every log line written while it is served
    (:mod:`seep.web.logformat`)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        m = _LOGGED_TABLE.match(scope["path"])
        request = REQUEST.set(("r-" if kind == "http" else "c-") + secrets.token_hex(6))
        table = TABLE.set(m.group(1).upper() if m else None)
        try:
            await self.app(scope, receive, send)
        finally:
            TABLE.reset(table)
            REQUEST.reset(request)


class ClaimTables:
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
                        resp = error_response(exc.code, exc.message, 503)
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


_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


class OriginCheck:
    """ASGI middleware: a request that may change something (any method but GET, HEAD and
    OPTIONS) or a WebSocket handshake whose ``Origin`` (when the client sent one) is not this
    server is refused with 403 ``bad_origin``. Browsers send Origin with every cross-site POST
    and socket, so another site's page cannot create tables, join them, play or use a
    signed-in player's session cookie through its visitors' browsers; clients that are not
    browsers send none."""

    def __init__(
        self, app: ASGIApp, allowed: frozenset[str], refused: Callable[[Scope], None]
    ) -> None:
        self.app = app
        self.allowed = allowed
        self.refused = refused

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "websocket" or (kind == "http" and scope["method"] not in _SAFE_METHODS):
            headers = Headers(scope=scope)
            origin = headers.get("origin")
            if origin is not None and not origin_allowed(
                origin, headers.get("host", ""), self.allowed
            ):
                self.refused(scope)
                refusal = error_response(
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


class InternalErrors:
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
                response = error_response(
                    "internal_error", "internal server error (logged on the server)", 500
                )
                response.headers.update(SECURITY_HEADERS)
                with contextlib.suppress(Exception):
                    await response(scope, receive, send)
