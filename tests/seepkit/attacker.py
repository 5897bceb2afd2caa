"""The attacker's kit (tests/web/test_web_attacker.py): browsers at addresses of their own
behind a trusted loopback proxy, and a whole signed-in flow with a rated match against a real
``seep serve``, recording every secret it made and everything the server sent while the
match ran."""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import json
import random
import re
import sqlite3
from contextlib import closing
from typing import Any

import httpx
import websockets

from .server import Served
from .web import CARD

__all__ = [
    "ADDRESSES",
    "PASSWORD",
    "Flow",
    "browser",
    "cookie",
    "error",
    "fresh_name",
    "login",
    "play_flow",
    "rows",
    "sign_up",
    "urls",
]

PASSWORD = "correct horse battery"
ADDRESSES = (f"10.25.{i // 250}.{i % 250 + 1}" for i in itertools.count())


def browser(server: Served, address: str | None = None) -> httpx.Client:
    """A browser at an address of its own (as the proxy names it); it keeps its cookies."""
    return httpx.Client(
        base_url=server.base, headers={"X-Forwarded-For": address or next(ADDRESSES)}, timeout=60
    )


def fresh_name(tag: str) -> str:
    """A name nobody has taken yet on this server: ``tag`` and a fresh number."""
    return f"{tag}{next(ADDRESSES).replace('.', '')[-5:]}"


def error(r: httpx.Response) -> str:
    """The code of an error answer."""
    code: str = r.json()["error"]["code"]
    return code


def sign_up(server: Served, name: str, password: str = PASSWORD) -> httpx.Client:
    """A new browser, signed up as ``name`` (its session cookie kept)."""
    b = browser(server)
    r = b.post("/api/accounts", json={"name": name, "password": password})
    assert r.status_code == 201, r.text
    return b


def login(b: httpx.Client, name: str, password: str) -> httpx.Response:
    """``POST /api/login`` from browser ``b``."""
    return b.post("/api/login", json={"name": name, "password": password})


def rows(server: Served, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    """The rows of a query of the server's SQLite file (``server.db``)."""
    con = sqlite3.connect(server.db)  # type: ignore[attr-defined]
    try:
        return list(con.execute(sql, args))
    finally:
        con.close()


# --- a whole flow: sign up, sign in, a rated match, change the password, delete ---------------


class Flow:
    """What the module's flow made and saw."""

    def __init__(self) -> None:
        self.secrets: dict[str, str] = {}  # what must show nowhere, by what it is
        self.seen: list[tuple[int | None, str]] = []  # (seat, raw text) sent while it ran
        self.finished = False
        self.late: list[str] = []  # HTTP reads that showed cards: once the deal was over?
        self.urls: list[str] = []  # every URL the server sent: Location, links in JSON
        self.code = ""
        self.record: dict[str, Any] = {}
        self.deleted = ""  # the deleted account's name
        self.deleted_id = 0
        self.deleted_hash = ""


def urls(r: httpx.Response) -> list[str]:
    """Every URL an answer holds: its Location-like headers, the paths and URLs in its JSON."""
    found = [r.headers[h] for h in ("location", "content-location", "link") if h in r.headers]
    if "json" in r.headers.get("content-type", ""):
        found += re.findall(r'"(/[^"\s]*|https?://[^"\s]*)"', r.text)
    return found


async def _seat(ws: str, code: str, token: str | None, cookie: str, flow: Flow) -> None:
    """A player (seat by token; a spectator without) until the match is over."""
    rng = random.Random(token)
    headers = {"Cookie": f"seep_session={cookie}"} if cookie else None
    async with websockets.connect(
        f"{ws}/ws/{code}", additional_headers=headers, max_size=1 << 22
    ) as sock:
        if token is not None:
            await sock.send(json.dumps({"type": "hello", "token": token}))
        answered = None
        async for raw in sock:
            assert isinstance(raw, str)
            msg = json.loads(raw)
            if msg["type"] != "state":
                assert msg["type"] != "error" or msg["code"] in ("stale", "not_your_turn"), msg
                continue
            if msg["table"]["status"] == "finished":
                flow.finished = True
                return
            if not flow.finished:
                flow.seen.append((msg["seat"], raw))
            me = msg["seat"]
            turn = (len(msg["view"]["history"]), msg["summary"] is None) if msg["view"] else None
            if me is None or turn == answered or turn is None:
                continue
            answered = turn
            if msg["summary"] is not None and me not in msg["summary"]["ready"]:
                await sock.send(json.dumps({"type": "next"}))
            elif msg["legal"]:
                move = rng.choice(msg["legal"])
                await sock.send(
                    json.dumps({"type": "move", "move": move, "version": msg["version"]})
                )


async def _poll(base: str, code: str, flow: Flow) -> None:
    """Every HTTP read of the table anyone may make, while the match runs."""
    async with httpx.AsyncClient(base_url=base) as http:
        while not flow.finished:
            for path in ("", "/record", "/replay"):
                r = await http.get(f"/api/tables/{code}{path}")
                if flow.finished:
                    return
                if '"seed"' in r.text or CARD.search(r.text):
                    # Cards shown: the deal is over (the record shows a deal once it is), or
                    # a leak. The test tells which; every card is public after the deal.
                    flow.late.append(r.text)
                    return
                flow.seen.append((None, r.text))
            await asyncio.sleep(0.05)


def cookie(b: httpx.Client) -> str:
    """Browser ``b``'s session cookie."""
    value: str = b.cookies["seep_session"]
    return value


def play_flow(server: Served) -> Flow:
    """Two accounts sign up (one also signs in on a second browser), play a rated match
    against two easy bots over sockets while a spectator watches and the table's HTTP reads
    are polled; then one changes the password and deletes the account: what was made and
    seen."""
    out = Flow()
    asha, ravi = fresh_name("Asha"), fresh_name("Ravi")
    new_password = "another long passphrase"
    out.secrets.update(password=PASSWORD, new_password=new_password)
    a, r = sign_up(server, asha), sign_up(server, ravi)
    with closing(a), closing(r), browser(server) as a2:
        out.secrets["asha_cookie"] = cookie(a)
        out.secrets["ravi_cookie"] = cookie(r)
        assert login(a2, asha, PASSWORD).status_code == 200
        out.secrets["asha_cookie_2"] = cookie(a2)
        made = a.post("/api/tables", json={"rated": True, "bots": "easy", "deals": 1})
        assert made.status_code == 201, made.text
        out.urls += urls(made)
        out.code, host = made.json()["code"], made.json()["token"]
        joined = r.post(f"/api/tables/{out.code}/join", json={"seat": 2})
        assert joined.status_code == 200, joined.text
        out.urls += urls(joined)
        guest = joined.json()["token"]
        out.secrets.update(host_token=host, guest_token=guest)
        ws = server.base.replace("http", "ws", 1)

        async def play() -> None:
            async with websockets.connect(
                f"{ws}/ws/{out.code}", additional_headers={"Cookie": f"seep_session={cookie(a)}"}
            ) as sock:
                await sock.send(json.dumps({"type": "hello", "token": host}))
                await sock.send(json.dumps({"type": "start"}))
                async for raw in sock:
                    if '"status":"playing"' in raw:
                        break
            await asyncio.wait_for(
                asyncio.gather(
                    _seat(ws, out.code, host, cookie(a), out),
                    _seat(ws, out.code, guest, cookie(r), out),
                    _seat(ws, out.code, None, "", out),
                    _poll(server.base, out.code, out),
                ),
                300,
            )

        asyncio.run(play())
        got = a.get(f"/api/tables/{out.code}/record")
        out.record = got.json()
        for reply in (
            a.get("/api/me"),
            a.get("/api/me/matches"),
            a.get("/api/me/records"),
            a.get(f"/api/players/{asha}"),
            a.get("/api/leaderboard"),
            r.get(f"/api/players/{ravi}"),
        ):
            assert reply.status_code == 200, reply.text
            out.urls += urls(reply)
        changed = a.post(
            "/api/me/password", json={"password": PASSWORD, "new_password": new_password}
        )
        assert changed.status_code == 200
        out.secrets["asha_cookie_3"] = cookie(a)
        ((out.deleted_id, out.deleted_hash),) = rows(
            server, "SELECT id, password_hash FROM accounts WHERE name = ?", asha
        )
        out.secrets["asha_hash"] = out.deleted_hash
        gone = a.post("/api/me/delete", json={"password": new_password})
        assert gone.status_code == 200, gone.text
        out.urls += urls(gone)
        out.deleted = asha
    for key in [k for k in out.secrets if "cookie" in k]:
        # The store keeps a session's SHA-256: that must not show in a log or a URL either.
        out.secrets[key + "_sha256"] = hashlib.sha256(out.secrets[key].encode()).hexdigest()
    return out
