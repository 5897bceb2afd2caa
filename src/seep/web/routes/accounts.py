"""Accounts over HTTP (docs/web.md "Accounts"): sign up, sign in and out, who am I, change the
password, delete the account. The session is a cookie (``HttpOnly``, ``SameSite=Lax``,
``Secure`` over https), never a URL or a body the page could leak; every route that changes
something is a JSON POST, which the Origin check (:class:`~seep.web.middleware.OriginCheck`)
refuses from another site's page."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse

from ..accounts import SESSION_COOKIE, SESSION_IDLE_SECONDS, AccountError, Accounts, SignedIn
from ..limits import ClientResolver
from ..messages import ChangePassword, DeleteAccount, SignIn, SignUp
from ..moderation import ModerationError
from ..owners import MAX_HELD_SEATS
from ..store_accounts import AccountRow
from .bodies import body_doc, json_body
from .gate import Gate

__all__ = [
    "COOKIE",
    "banned_after_sign_in",
    "fields",
    "held_seats",
    "is_secure",
    "router",
    "signed_in",
]

COOKIE = SESSION_COOKIE
MATCHES_PAGE = 50  # games a page of GET /api/me/matches
# Games in GET /api/me/records, the newest: a long match's record is tens of KB, and the
# answer is built in memory.
MAX_DOWNLOAD = 100


def _me(accounts: Accounts, account: AccountRow) -> dict[str, Any]:
    return {
        "name": account.name,
        "created": round(account.created),
        "ratings": accounts.ratings(account.id),
        "abandons": accounts.abandons(account.id),
    }


def is_secure(request: Request, client_of: ClientResolver) -> bool:
    """Whether the browser reached us over https: directly, or through a trusted proxy that
    says so (``X-Forwarded-Proto``)."""
    if request.url.scheme == "https":
        return True
    peer = request.client.host if request.client is not None else None
    proto = request.headers.get("x-forwarded-proto", "").split(",")[0].strip().lower()
    return proto == "https" and client_of.is_trusted(peer)


def fields(body: Any, *names: str) -> list[Any]:
    """The body's ``names`` (a JSON object with those keys and no others)."""
    if not isinstance(body, dict):
        raise AccountError("bad_request", "the request body must be a JSON object")
    extra = sorted(set(body) - set(names))
    if extra:
        known = ", ".join(names)
        raise AccountError("bad_request", f"unknown field {extra[0]!r} (known: {known})")
    return [body.get(n) for n in names]


def held_seats(body: Any) -> list[tuple[str, str]]:
    """Take the optional ``seats`` (the seat tokens this browser holds, ``[{"code",
    "token"}]``) out of a sign-up's or sign-in's body."""
    if not isinstance(body, dict) or "seats" not in body:
        return []
    held = body.pop("seats")
    if (
        not isinstance(held, list)
        or len(held) > MAX_HELD_SEATS
        or not all(
            isinstance(h, dict)
            and set(h) == {"code", "token"}
            and isinstance(h["code"], str)
            and isinstance(h["token"], str)
            and len(h["code"]) <= 8
            and len(h["token"]) <= 100
            for h in held
        )
    ):
        raise AccountError(
            "bad_request",
            f'\'seats\' must be a list of at most {MAX_HELD_SEATS} {{"code", "token"}} objects',
        )
    return [(h["code"], h["token"]) for h in held]


def _game(row: Any, with_record: bool) -> dict[str, Any]:
    """One of an account's stored games, for its list (and the download: with its record)."""
    game: dict[str, Any] = {
        "code": row.code,
        "seat": row.seat,
        "status": row.status,
        "created": round(row.created),
        "players": [s["name"] if s["kind"] != "empty" else None for s in json.loads(row.seats)],
        "replay": f"/replay/{row.code}",
    }
    if with_record:
        game["record"] = json.loads(row.record)
    return game


def signed_in(
    gate: Gate,
    accounts: Accounts,
    request: Request,
    made: SignedIn,
    held: Sequence[tuple[str, str]] = (),
    status: int = 200,
) -> JSONResponse:
    """The answer to a sign-in (a password's or a passkey's), a sign-up or a new password: the
    account (as ``GET /api/me``) and its new session cookie. The seats the guest's browser
    ``held`` become the account's first."""
    if held:
        gate.manager.link_seats(list(held), made.account.id)
    response = JSONResponse(_me(accounts, made.account), status_code=status)
    response.set_cookie(
        COOKIE,
        made.token,
        max_age=int(SESSION_IDLE_SECONDS),
        path="/",
        httponly=True,
        samesite="lax",
        secure=is_secure(request, gate.client_of),
    )
    response.headers["Cache-Control"] = "no-store"
    return response


def banned_after_sign_in(gate: Gate, accounts: Accounts, made: SignedIn) -> None:
    """A banned account's new session ends at once and the sign-in is refused (``banned``)."""
    try:
        gate.check_banned("", made.account.id)
    except ModerationError:
        accounts.sign_out(made.token)
        raise


def router(gate: Gate, accounts: Accounts) -> APIRouter:
    """``POST /api/accounts``, ``/api/login``, ``/api/logout``, ``/api/me/password``,
    ``/api/me/delete``; ``GET /api/me``, ``/api/me/matches`` and ``/api/me/records``."""
    routes = APIRouter()

    def signed_out(body: dict[str, Any]) -> JSONResponse:
        response = JSONResponse(body)
        response.delete_cookie(COOKIE, path="/", httponly=True, samesite="lax")
        response.headers["Cache-Control"] = "no-store"
        return response

    @routes.post("/api/accounts", status_code=201, openapi_extra=body_doc(SignUp))
    async def sign_up(request: Request) -> Response:
        body = await json_body(request)
        held = held_seats(body)
        name, password = fields(body, "name", "password")
        gate.check_banned(gate.client(request))
        made = await accounts.sign_up(gate.client(request), name, password)
        return signed_in(gate, accounts, request, made, held, 201)

    @routes.post("/api/login", openapi_extra=body_doc(SignIn))
    async def sign_in(request: Request) -> Response:
        body = await json_body(request)
        held = held_seats(body)
        name, password = fields(body, "name", "password")
        gate.check_banned(gate.client(request))
        made = await accounts.sign_in(gate.client(request), name, password)
        # Only now, the password right: the ban of an account is not told to any guesser.
        banned_after_sign_in(gate, accounts, made)
        return signed_in(gate, accounts, request, made, held)

    @routes.post("/api/logout")
    async def sign_out(request: Request) -> Response:
        accounts.sign_out(request.cookies.get(COOKIE))
        return signed_out({"signed_in": False})

    @routes.get("/api/me")
    async def me(request: Request) -> Response:
        account = accounts.account_of(request.cookies.get(COOKIE))
        if account is None:
            raise AccountError("not_signed_in", "you are not signed in (a guest)")
        response = JSONResponse(_me(accounts, account))
        response.headers["Cache-Control"] = "no-store"
        return response

    @routes.post("/api/me/password", openapi_extra=body_doc(ChangePassword))
    async def change_password(request: Request) -> Response:
        password, new = fields(await json_body(request), "password", "new_password")
        made = await accounts.change_password(
            gate.client(request), request.cookies.get(COOKIE), password, new
        )
        return signed_in(gate, accounts, request, made)

    @routes.post("/api/me/delete", openapi_extra=body_doc(DeleteAccount))
    async def delete_account(request: Request) -> Response:
        (password,) = fields(await json_body(request), "password")
        gone = await accounts.delete(gate.client(request), request.cookies.get(COOKIE), password)
        gate.manager.forget_account(gone)
        return signed_out({"deleted": True})

    @routes.get("/api/me/matches")
    async def my_matches(request: Request) -> Response:
        account = accounts.signed_in(request.cookies.get(COOKIE))
        asked = request.query_params.get("page", "0")
        if not (asked.isdigit() and len(asked) <= 5):
            raise AccountError("bad_request", "'page' is a number from 0 to 99999")
        page = int(asked)
        gate.look_at_lobby(gate.client(request))
        rows = accounts.matches(account.id, page * MATCHES_PAGE, MATCHES_PAGE + 1)
        games = [_game(r, with_record=False) for r in rows[:MATCHES_PAGE]]
        more = page + 1 if len(rows) > MATCHES_PAGE else None
        response = JSONResponse({"matches": games, "next_page": more})
        response.headers["Cache-Control"] = "no-store"
        return response

    @routes.get("/api/me/records")
    async def my_records(request: Request) -> Response:
        # Every stored game of the account with its docs/format.md record, as one download
        # (the newest MAX_DOWNLOAD; the list pages through all).
        account = accounts.signed_in(request.cookies.get(COOKIE))
        gate.look_at_lobby(gate.client(request))
        rows = accounts.matches(account.id, 0, MAX_DOWNLOAD)
        # A duplicate deal's record waits for every table of its round (docs/web.md "Events").
        games = [_game(r, not gate.is_sealed(r.code)) for r in rows]
        for g in games:
            if "record" in g:
                g["record"] = gate.shown_record(g["code"], g["record"])
        response = JSONResponse({"name": account.name, "matches": games})
        response.headers["Cache-Control"] = "no-store"
        response.headers["Content-Disposition"] = 'attachment; filename="seep-matches.json"'
        return response

    return routes
