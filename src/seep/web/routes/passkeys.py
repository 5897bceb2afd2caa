"""Passkeys over HTTP (docs/web.md "Accounts"): add one to the signed-in account, sign in with
one, list and remove them. Every route that changes something is a JSON POST that the Origin
check (:class:`~seep.web.middleware.OriginCheck`) refuses from another site's page; a ceremony's
handle travels in the bodies, never in a URL, and a sign-in answers exactly as a password's
(:func:`~seep.web.routes.accounts.signed_in`: the same cookie, the guest's seats linked)."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse

from ..accounts import AccountError, Accounts
from ..messages import DeletePasskey, PasskeyLogin, PasskeyRegister
from ..passkeys import Passkeys
from .accounts import COOKIE, banned_after_sign_in, fields, held_seats, is_secure, signed_in
from .bodies import body_doc, json_body
from .gate import Gate

__all__ = ["page_origin", "router"]

MAX_ORIGIN = 200  # characters, as stored with a ceremony


def page_origin(request: Request, gate: Gate) -> str:
    """The origin of the page that sent ``request``: its ``Origin`` header, which the Origin
    check has found to be this server's (same host and port as ``Host``, or one of
    ``SEEP_ALLOWED_ORIGINS``); a client that sends none (not a browser) is taken to be on this
    server as it reached it (``Host``, and https when it came so)."""
    origin = request.headers.get("origin")
    if origin is None:
        host = request.headers.get("host", "")
        scheme = "https" if is_secure(request, gate.client_of) else "http"
        origin = f"{scheme}://{host}"
    origin = origin.strip().rstrip("/").lower()
    if not origin or len(origin) > MAX_ORIGIN or origin == "null":
        raise AccountError("bad_origin", "passkeys work only from this server's own pages")
    return origin


def _no_store(body: object) -> JSONResponse:
    response = JSONResponse(body)
    response.headers["Cache-Control"] = "no-store"
    return response


def router(gate: Gate, accounts: Accounts, passkeys: Passkeys) -> APIRouter:
    """``POST /api/passkeys/register/options``, ``/api/passkeys/register``,
    ``/api/passkeys/login/options``, ``/api/passkeys/login``, ``/api/me/passkeys/delete``;
    ``GET /api/me/passkeys``."""
    routes = APIRouter()

    @routes.post("/api/passkeys/register/options")
    async def register_options(request: Request) -> Response:
        account = accounts.signed_in(request.cookies.get(COOKIE))
        fields(await json_body(request))  # none: an empty object
        return _no_store(passkeys.register_options(account, page_origin(request, gate)))

    @routes.post("/api/passkeys/register", status_code=201, openapi_extra=body_doc(PasskeyRegister))
    async def register(request: Request) -> Response:
        account = accounts.signed_in(request.cookies.get(COOKIE))
        handle, credential, label = fields(
            await json_body(request), "handle", "credential", "label"
        )
        made = passkeys.register(account, page_origin(request, gate), handle, credential, label)
        response = JSONResponse(made, status_code=201)
        response.headers["Cache-Control"] = "no-store"
        return response

    @routes.post("/api/passkeys/login/options")
    async def login_options(request: Request) -> Response:
        fields(await json_body(request))
        return _no_store(passkeys.login_options(gate.client(request), page_origin(request, gate)))

    @routes.post("/api/passkeys/login", openapi_extra=body_doc(PasskeyLogin))
    async def login(request: Request) -> Response:
        body = await json_body(request)
        held = held_seats(body)
        handle, credential = fields(body, "handle", "credential")
        gate.check_banned(gate.client(request))
        made = passkeys.login(gate.client(request), page_origin(request, gate), handle, credential)
        banned_after_sign_in(gate, accounts, made)
        return signed_in(gate, accounts, request, made, held)

    @routes.get("/api/me/passkeys")
    async def my_passkeys(request: Request) -> Response:
        account = accounts.signed_in(request.cookies.get(COOKIE))
        gate.look_at_lobby(gate.client(request))
        return _no_store({"passkeys": passkeys.of(account)})

    @routes.post("/api/me/passkeys/delete", openapi_extra=body_doc(DeletePasskey))
    async def delete_passkey(request: Request) -> Response:
        account = accounts.signed_in(request.cookies.get(COOKIE))
        (passkey,) = fields(await json_body(request), "id")
        gate.look_at_lobby(gate.client(request))
        passkeys.delete(account, passkey)
        return _no_store({"deleted": True, "passkeys": passkeys.of(account)})

    return routes
