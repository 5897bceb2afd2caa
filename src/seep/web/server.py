"""How ``seep serve`` runs the app under uvicorn: its HTTP protocol with the guards uvicorn
lacks, and the open-file limit. The protocol's limits are :class:`~seep.web.settings.HttpLimits`
(docs/web.md, "Settings"), re-exported here.

uvicorn keeps an unfinished request open forever and, with httptools, buffers request headers
without limit; it caps neither connections per client nor its own plain-text 400 answers'
headers. :func:`guarded_protocol` is uvicorn's pure-Python h11 protocol with:

- a request timeout: a connection must deliver each whole request (head and body) within
  ``request_timeout`` seconds of opening or of its previous answer, or it is closed;
- a head size limit: h11 refuses a head over ``max_header_bytes`` (its
  ``max_incomplete_event_size``), answered here with a 431;
- a cap of open connections per client address (never for a trusted proxy, whose clients are
  many: the proxy caps them, docs/deploy.md);
- its own 400 and 431 answers in the app's JSON error format with the app's security headers,
  and logged once a minute per client.

The h11 protocol rather than httptools: HTTP requests are few (the game runs over one
WebSocket per player, served by uvicorn's WebSocket protocol after the upgrade either way),
and h11's state machine tells exactly when a request has fully arrived.
"""

from __future__ import annotations

import asyncio
import json
import logging
import resource
from collections.abc import Callable
from types import FrameType
from typing import Any

import h11
import uvicorn
from uvicorn.config import LOGGING_CONFIG
from uvicorn.protocols.http.h11_impl import H11Protocol

from .limits import ClientResolver, ConnectionCap, DropLines, LogLimiter
from .settings import HttpLimits

__all__ = [
    "DRAIN_SECONDS",
    "DrainingServer",
    "HttpLimits",
    "build_config",
    "guarded_protocol",
    "raise_open_file_limit",
]

log = logging.getLogger("seep.web")

# uvicorn logs this line for every malformed request, before the answer that the guarded
# protocol logs itself, once a minute per client.
_UVICORN_BAD_REQUEST = "Invalid HTTP request received."


def raise_open_file_limit() -> tuple[int, int]:
    """Raise this process's open-file limit (``RLIMIT_NOFILE``) to its hard limit: every
    connection is a file, and 1,024 (a common default for services) is soon used up. Returns
    the (soft, hard) limits now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != soft:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (ValueError, OSError) as exc:  # e.g. macOS refuses RLIM_INFINITY
            log.warning("open-file limit left at %d: %s", soft, exc)
    return soft, hard


def _error_answer(status: int, reason: str, code: str, message: str, *extra_headers: str) -> bytes:
    """A complete HTTP/1.1 answer that closes the connection, in the app's error format."""
    # The headers' module imports Starlette: only when serving.
    from .middleware import SECURITY_HEADERS

    body = json.dumps({"error": {"code": code, "message": message}}).encode()
    head = [
        f"HTTP/1.1 {status} {reason}",
        "content-type: application/json",
        f"content-length: {len(body)}",
        "connection: close",
        *extra_headers,
        *(f"{name}: {value}" for name, value in SECURITY_HEADERS.items()),
    ]
    return ("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body


def guarded_protocol(
    limits: HttpLimits,
    client_of: ClientResolver | None = None,
    log_client: LogLimiter | None = None,
) -> type[H11Protocol]:
    """uvicorn's h11 protocol class with ``limits`` (see the module's doc). ``client_of`` names
    a connection's client (its address, an IPv6 one its /64) and knows the trusted proxies;
    ``log_client`` logs a refusal once a minute per client."""
    resolver = client_of or ClientResolver()
    log_once = log_client or LogLimiter(log)
    cap = ConnectionCap(limits.max_connections_per_client)
    too_many = _error_answer(
        503,
        "Service Unavailable",
        "too_many_connections",
        f"your address has {limits.max_connections_per_client} connections open to this "
        "server (the limit): close some",
        "retry-after: 10",
    )
    head_too_large = _error_answer(
        431,
        "Request Header Fields Too Large",
        "too_large",
        f"a request's head is at most {limits.max_header_bytes} bytes",
    )
    bad_request = _error_answer(
        400, "Bad Request", "bad_request", "this is not a valid HTTP/1.1 request"
    )

    class GuardedH11Protocol(H11Protocol):
        """H11Protocol with a request timeout, a head size limit and a connection cap."""

        def __init__(self, config: uvicorn.Config, *args: Any, **kwargs: Any) -> None:
            super().__init__(config, *args, **kwargs)
            if config.h11_max_incomplete_event_size != limits.max_header_bytes:
                self.conn = h11.Connection(h11.SERVER, limits.max_header_bytes)
            self._request_timer: asyncio.TimerHandle | None = None
            self._client_key = "unknown"

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            peer = self.client[0] if self.client else None
            self._client_key = resolver(peer)
            if not resolver.is_trusted(peer) and not cap.admit(self._client_key, transport):
                log_once(self._client_key, "too many connections (closed at once)")
                transport.write(too_many)
                transport.close()
                return
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def _arm(self) -> None:
            self._disarm()
            if limits.request_timeout > 0:
                self._request_timer = self.loop.call_later(
                    limits.request_timeout, self._request_timed_out
                )

        def _disarm(self) -> None:
            if self._request_timer is not None:
                self._request_timer.cancel()
                self._request_timer = None

        def _request_timed_out(self) -> None:
            # No answer: the client is too slow to read one, or holds the socket on purpose.
            self._request_timer = None
            if not self.transport.is_closing():
                self.transport.close()

        def handle_events(self) -> None:
            super().handle_events()
            if self.conn.their_state in (h11.DONE, h11.MUST_CLOSE):
                self._disarm()  # the whole request is in: the app's answer may take its time

        def handle_websocket_upgrade(self, event: h11.Request) -> None:
            self._disarm()  # the socket now belongs to the WebSocket protocol
            super().handle_websocket_upgrade(event)

        def on_response_complete(self) -> None:
            # Armed before uvicorn starts the next pipelined request, which disarms it if whole.
            if not self.transport.is_closing():
                self._arm()
            super().on_response_complete()

        def send_400_response(self, msg: str) -> None:
            # h11 refused the request (the state machine is in ERROR): its receive buffer
            # tells a head that outgrew the limit from any other malformed request.
            too_large = len(self.conn.trailing_data[0]) > limits.max_header_bytes
            log_once(self._client_key, "request head too large" if too_large else "bad HTTP")
            self._disarm()
            self.transport.write(head_too_large if too_large else bad_request)
            self.transport.close()

        def _unsupported_upgrade_warning(self) -> None:
            log_once(self._client_key, "unsupported Upgrade header (answered as plain HTTP)")

    return GuardedH11Protocol


# The longest a stopping server waits for its connections to close (docs/deploy.md "Rolling
# restarts").
DRAIN_SECONDS = 10


class DrainingServer(uvicorn.Server):
    """uvicorn's server that tells the app it is stopping the moment the signal (SIGTERM,
    Ctrl-C) comes: ``on_stop`` turns readiness off, so the proxy sends nothing new here while
    uvicorn closes its sockets and the app hands its leases over (docs/deploy.md "Rolling
    restarts")."""

    def __init__(self, config: uvicorn.Config, on_stop: Callable[[], None]) -> None:
        super().__init__(config)
        self.on_stop = on_stop

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        self.on_stop()
        super().handle_exit(sig, frame)


def build_config(
    app: Any,
    *,
    host: str,
    port: int,
    log_level: str = "warning",
    log_config: dict[str, Any] | None = None,
    limits: HttpLimits | None = None,
    client_of: ClientResolver | None = None,
) -> uvicorn.Config:
    """The uvicorn settings ``seep serve`` runs ``app`` with; ``log_config`` (a
    ``logging.config.dictConfig`` dict, :func:`seep.web.logformat.log_config`) replaces
    uvicorn's text log lines."""
    limits = limits or HttpLimits.from_env()
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level=log_level,
        log_config=log_config if log_config is not None else LOGGING_CONFIG,
        http=guarded_protocol(limits, client_of),
        ws_max_size=1 << 20,
        # The app alone decides whom to believe about X-Forwarded-For (uvicorn would believe
        # any local peer).
        proxy_headers=False,
        server_header=False,
        h11_max_incomplete_event_size=limits.max_header_bytes,
        # Stopping: the sockets are told to reconnect (1012) and their handlers end at once;
        # a connection that does not let go is not waited for past this.
        timeout_graceful_shutdown=DRAIN_SECONDS,
    )
    uvicorn_log = logging.getLogger("uvicorn.error")
    if not any(isinstance(f, DropLines) for f in uvicorn_log.filters):
        uvicorn_log.addFilter(DropLines([_UVICORN_BAD_REQUEST]))
    return config
