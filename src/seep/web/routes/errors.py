"""How a refusal becomes an HTTP answer: each error code's status, and the app's exception
handlers (docs/web.md, "HTTP": every error is ``{"error": {"code", "message"}}``)."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..accounts import AccountError
from ..middleware import error_response
from ..moderation import ModerationError
from ..profiles import ProfileError
from ..store import StoreUnavailable
from ..tables import TableError
from .gate import Gate

__all__ = ["BAD_INPUT", "STATUS", "add_error_handlers"]

STATUS = {
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
    "too_many_subscriptions": 429,
    "unavailable": 503,
    "bad_origin": 403,
    "bad_content_type": 415,
    # Accounts (docs/web.md "Accounts").
    "bad_login": 401,
    "not_signed_in": 401,
    "name_taken": 409,
    "busy": 503,
    # Passkeys (docs/web.md "Accounts").
    "bad_challenge": 400,
    "bad_passkey": 400,
    "passkey_taken": 409,
    "too_many_passkeys": 409,
    "unknown_passkey": 404,
    # Profiles (docs/web.md "Profiles and leaderboards").
    "unknown_player": 404,
    # Moderation (docs/deploy.md "Moderation").
    "banned": 403,
    # Events (docs/web.md "Events").
    "unknown_event": 404,
    "not_organiser": 403,
    "event_full": 409,
    "too_many_events": 429,
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


def add_error_handlers(app: FastAPI, gate: Gate) -> None:
    """A table's or an account's refusal, a store that cannot write, and Starlette's own 404
    and 405, each answered in the app's error format."""

    @app.exception_handler(TableError)
    async def table_error(request: Request, exc: TableError) -> JSONResponse:
        if exc.code in BAD_INPUT:
            gate.log_bad(gate.client(request), f"{exc.code} ({request.method} request)")
        return error_response(exc.code, exc.message, STATUS.get(exc.code, 400))

    @app.exception_handler(AccountError)
    async def account_error(request: Request, exc: AccountError) -> JSONResponse:
        if exc.code in BAD_INPUT:
            gate.log_bad(gate.client(request), f"{exc.code} ({request.method} request)")
        retry = 1 if exc.code == "busy" else exc.retry_after
        return error_response(exc.code, exc.message, STATUS.get(exc.code, 400), retry)

    @app.exception_handler(ModerationError)
    async def moderation_error(_: Request, exc: ModerationError) -> JSONResponse:
        return error_response(exc.code, exc.message, STATUS.get(exc.code, 400), exc.retry_after)

    @app.exception_handler(ProfileError)
    async def profile_error(request: Request, exc: ProfileError) -> JSONResponse:
        if exc.code in BAD_INPUT:
            gate.log_bad(gate.client(request), f"{exc.code} ({request.method} request)")
        return error_response(exc.code, exc.message, STATUS.get(exc.code, 400))

    @app.exception_handler(StoreUnavailable)
    async def store_unavailable(_: Request, exc: StoreUnavailable) -> JSONResponse:
        # Nothing was stored or changed: the client may try again (docs/web.md "Liveness");
        # not logged per request (a full disk would fill the log): /readyz says it.
        return error_response(
            "store_unavailable",
            "the server could not save that (its database is busy or full): try again",
            503,
        )

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {404: "not_found", 405: "method_not_allowed"}.get(
            exc.status_code, f"http_{exc.status_code}"
        )
        return error_response(code, str(exc.detail), exc.status_code)
