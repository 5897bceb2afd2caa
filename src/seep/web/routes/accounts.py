"""Accounts over HTTP (docs/web.md "Accounts"): sign up, sign in and out, who am I, change the
password, delete the account. The session is a cookie (``HttpOnly``, ``SameSite=Lax``,
``Secure`` over https), never a URL or a body the page could leak; every route that changes
something is a JSON POST, which the Origin check (:class:`~seep.web.middleware.OriginCheck`)
refuses from another site's page."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse

from ..accounts import SESSION_IDLE_SECONDS, AccountError, Accounts, SignedIn
from ..limits import ClientResolver
from ..messages import ChangePassword, DeleteAccount, SignIn, SignUp
from ..store_accounts import AccountRow
from .bodies import body_doc, json_body
from .gate import Gate

__all__ = ["COOKIE", "router"]

COOKIE = "seep_session"


def _me(account: AccountRow) -> dict[str, Any]:
    return {"name": account.name, "created": round(account.created)}


def _secure(request: Request, client_of: ClientResolver) -> bool:
    """Whether the browser reached us over https: directly, or through a trusted proxy that
    says so (``X-Forwarded-Proto``)."""
    if request.url.scheme == "https":
        return True
    peer = request.client.host if request.client is not None else None
    proto = request.headers.get("x-forwarded-proto", "").split(",")[0].strip().lower()
    return proto == "https" and client_of.is_trusted(peer)


def _fields(body: Any, *names: str) -> list[Any]:
    """The body's ``names`` (a JSON object with those keys and no others)."""
    if not isinstance(body, dict):
        raise AccountError("bad_request", "the request body must be a JSON object")
    extra = sorted(set(body) - set(names))
    if extra:
        known = ", ".join(names)
        raise AccountError("bad_request", f"unknown field {extra[0]!r} (known: {known})")
    return [body.get(n) for n in names]


def router(gate: Gate, accounts: Accounts) -> APIRouter:
    """``POST /api/accounts``, ``/api/login``, ``/api/logout``, ``/api/me/password``,
    ``/api/me/delete`` and ``GET /api/me``."""
    routes = APIRouter()
    client_of = gate.client_of

    def signed_in(request: Request, made: SignedIn, status: int = 200) -> JSONResponse:
        response = JSONResponse(_me(made.account), status_code=status)
        response.set_cookie(
            COOKIE,
            made.token,
            max_age=int(SESSION_IDLE_SECONDS),
            path="/",
            httponly=True,
            samesite="lax",
            secure=_secure(request, client_of),
        )
        response.headers["Cache-Control"] = "no-store"
        return response

    def signed_out(body: dict[str, Any]) -> JSONResponse:
        response = JSONResponse(body)
        response.delete_cookie(COOKIE, path="/", httponly=True, samesite="lax")
        response.headers["Cache-Control"] = "no-store"
        return response

    @routes.post("/api/accounts", status_code=201, openapi_extra=body_doc(SignUp))
    async def sign_up(request: Request) -> Response:
        name, password = _fields(await json_body(request), "name", "password")
        made = await accounts.sign_up(gate.client(request), name, password)
        return signed_in(request, made, 201)

    @routes.post("/api/login", openapi_extra=body_doc(SignIn))
    async def sign_in(request: Request) -> Response:
        name, password = _fields(await json_body(request), "name", "password")
        return signed_in(request, await accounts.sign_in(gate.client(request), name, password))

    @routes.post("/api/logout")
    async def sign_out(request: Request) -> Response:
        accounts.sign_out(request.cookies.get(COOKIE))
        return signed_out({"signed_in": False})

    @routes.get("/api/me")
    async def me(request: Request) -> Response:
        account = accounts.account_of(request.cookies.get(COOKIE))
        if account is None:
            raise AccountError("not_signed_in", "you are not signed in (a guest)")
        response = JSONResponse(_me(account))
        response.headers["Cache-Control"] = "no-store"
        return response

    @routes.post("/api/me/password", openapi_extra=body_doc(ChangePassword))
    async def change_password(request: Request) -> Response:
        password, new = _fields(await json_body(request), "password", "new_password")
        made = await accounts.change_password(
            gate.client(request), request.cookies.get(COOKIE), password, new
        )
        return signed_in(request, made)

    @routes.post("/api/me/delete", openapi_extra=body_doc(DeleteAccount))
    async def delete_account(request: Request) -> Response:
        (password,) = _fields(await json_body(request), "password")
        await accounts.delete(gate.client(request), request.cookies.get(COOKIE), password)
        return signed_out({"deleted": True})

    return routes
