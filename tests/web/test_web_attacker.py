"""The attacker's view (issue 25 item 7, docs/web.md "Attacker's view"), each a test against a
real ``seep serve``: its own process, sockets, limits, clock and log file.

The server runs as the cluster runs it, behind a proxy on loopback (``--behind-proxy``: it
believes ``X-Forwarded-For`` from 127.0.0.1), so that one test machine speaks from many
addresses; and with ``--log-level info``, so that every request line IS in its log and the
search of the log for secrets means something. Sign-in tries are counted over a few seconds
(``SEEP_LOGIN_WINDOW_SECONDS``) so that the test sees a limit lift.

One rated match (two accounts and two bots) is played out for the whole module
(:func:`seepkit.attacker.play_flow`): the hidden-card, no-secret-anywhere and deletion tests
read what it saw.
The per-route checks with the in-process app stay in test_web_accounts.py,
test_web_security.py, test_web_hostile_http.py and test_web_profiles.py.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import sqlite3
import statistics
import time
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
import websockets

pytest.importorskip("argon2")

from seep.cards import card_list
from seep.codes import PHASE_BID
from seep.session import Session, deal_seed
from seep.web.app import create_app
from seepkit.attacker import (
    ADDRESSES,
    PASSWORD,
    Flow,
    browser,
    error,
    fresh_name,
    login,
    play_flow,
    rows,
    sign_up,
)
from seepkit.server import Served, serve
from seepkit.web import CARD

LOGINS, WINDOW = 4, 6.0  # sign-in tries per address and per account, in seconds
PROFILES = 30  # profile and leaderboard reads a minute per address
_SAFE = {"GET", "HEAD", "OPTIONS"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    tmp = tmp_path_factory.mktemp("attacker")
    args = ["--behind-proxy", "--log-level", "info", "--bot-delay", "0.02"]
    args += ["--database-url", f"sqlite:///{tmp / 'seep.db'}"]
    env = {
        "SEEP_MAX_LOGINS_PER_MINUTE": str(LOGINS),
        "SEEP_LOGIN_WINDOW_SECONDS": str(WINDOW),
        "SEEP_MAX_PROFILES_PER_MINUTE": str(PROFILES),
        "SEEP_MAX_SIGNUPS_PER_HOUR": "3",
        "SEEP_TRUSTED_PROXIES": "",  # --behind-proxy's loopback, whatever the caller's env
    }
    with serve(tmp, *args, env=env, log_name="server.log") as served:
        served.db = tmp / "seep.db"  # type: ignore[attr-defined]
        yield served


# --- guessing -------------------------------------------------------------------------------


def test_guessing_is_limited_per_address_and_lifts_after_the_window(server: Served) -> None:
    name = fresh_name("Owner")
    sign_up(server, name).close()
    address = next(ADDRESSES)
    with browser(server, address) as b:
        # Many names from one address: LOGINS wrong tries, then every try is refused, the
        # right password too, with the seconds to wait and a message naming the limit.
        for _ in range(LOGINS):
            assert login(b, fresh_name("Nobody"), "a guess, wrong").status_code == 401
        r = login(b, name, PASSWORD)
        assert r.status_code == 429 and error(r) == "rate_limited"
        assert "sign-in tries from your address" in r.json()["error"]["message"]
        wait = int(r.headers["retry-after"])
        assert 1 <= wait <= WINDOW
        with browser(server) as elsewhere:  # the limit is this address's, not the account's
            assert login(elsewhere, name, PASSWORD).status_code == 200
        time.sleep(wait + 0.5)
        assert login(b, name, PASSWORD).status_code == 200  # lifted


def test_guessing_is_limited_per_account_from_many_addresses(server: Served) -> None:
    name = fresh_name("Target")
    sign_up(server, name).close()
    for _ in range(LOGINS):  # a botnet: each guess from another address
        with browser(server) as bot:
            assert login(bot, name, "guessing it, wrong").status_code == 401
    with browser(server) as bot:
        r = login(bot, name, "guessing it, wrong")
    assert r.status_code == 429 and "sign-in tries for this account" in r.text
    assert 1 <= int(r.headers["retry-after"]) <= WINDOW
    with browser(server) as owner:  # the owner waits too: no guess can be the right one
        r = login(owner, name, PASSWORD)
        assert r.status_code == 429 and r.headers["retry-after"]
        time.sleep(int(r.headers["retry-after"]) + 0.5)
        assert login(owner, name, PASSWORD).status_code == 200


def test_an_unknown_name_and_a_wrong_password_look_and_take_the_same(server: Served) -> None:
    # Every try from its own address, and the wrong passwords spread over accounts, so that
    # no limit is met; the two kinds take turns, so that the machine's load hits both alike.
    known = [fresh_name("Timed") for _ in range(3)]
    for n in known:
        sign_up(server, n).close()
    times: dict[str, list[float]] = {"wrong": [], "unknown": [], "too_long": []}
    bodies: dict[str, set[str]] = {k: set() for k in times}
    tries = 9  # three wrong passwords on each account, one every half window
    for i in range(tries):
        for kind in times:
            if kind == "wrong":
                name = known[i % 3]
            elif kind == "unknown":
                name = fresh_name("Ghost")
            else:  # longer than any account name: refused before any lookup or hash
                name = "x" * 200
            with browser(server) as b:
                b.get("/healthz")  # the connection is open before the clock starts
                start = time.perf_counter()
                r = login(b, name, f"wrong password {i}")
                times[kind].append(time.perf_counter() - start)
            assert r.status_code == 401, r.text
            bodies[kind].add(r.text)
        if i % 3 == 2:
            time.sleep(WINDOW / 2)  # the accounts' tries leave the window
    assert len(bodies["wrong"] | bodies["unknown"] | bodies["too_long"]) == 1
    wrong, unknown = statistics.median(times["wrong"]), statistics.median(times["unknown"])
    too_long = statistics.median(times["too_long"])
    # The argon2 check is the cost of both (a dummy hash for an unknown name); an answer
    # without one is several times quicker, which shows the comparison can tell.
    assert abs(wrong - unknown) <= max(0.02, 0.35 * max(wrong, unknown)), times
    assert min(wrong, unknown) > 3 * too_long, times


# --- another site's page ----------------------------------------------------------------------


def _changing_routes(db: Path) -> list[tuple[str, str]]:
    """Every (method, path) of the app that may change something, read off its routes (a new
    route is covered by itself), its path parameters filled in."""

    def walk(routes: list[Any]) -> Iterator[Any]:
        for route in routes:
            inner = getattr(route, "original_router", None)  # an included router
            yield from walk(inner.routes) if inner is not None else (route,)

    found = []
    for route in walk(create_app(f"sqlite:///{db}").routes):
        for method in sorted(set(getattr(route, "methods", None) or ()) - _SAFE):
            found.append((method, re.sub(r"\{[^}]+\}", "ABCDEF", route.path)))
    return found


def test_no_other_origin_may_change_anything_or_open_a_socket(
    server: Served, tmp_path: Path
) -> None:
    routes = _changing_routes(tmp_path / "routes.db")
    paths = {p for _, p in routes}
    for must in ("/api/login", "/api/accounts", "/api/me/delete", "/api/me/password"):
        assert must in paths, must
    port = server.port
    foreign = [
        "https://evil.example",
        "null",  # a sandboxed frame, a file
        f"http://127.0.0.1:{port + 1}",  # another port is another site
        f"http://127.0.0.1:{port}.evil.example",
        f"http://127.0.0.1:{port}@evil.example",
    ]
    name = fresh_name("Csrf")
    with closing(sign_up(server, name)) as b:
        for method, path in routes:
            for origin in foreign:
                r = b.request(method, path, json={"password": PASSWORD}, headers={"Origin": origin})
                assert r.status_code == 403 and error(r) == "bad_origin", (method, path, origin)
        # A browser's own page passes (the Origin is the server's).
        own = {"Origin": server.base}
        assert b.post("/api/logout", headers=own).status_code == 200
        assert login(b, name, PASSWORD).status_code == 200
        assert b.get("/api/me").json()["name"] == name  # nothing of the above changed it
        made = b.post("/api/tables", json={"name": "x"}, headers=own).json()
    ws = server.base.replace("http", "ws", 1)

    async def knock(origin: str | None) -> int | None:
        try:
            async with websockets.connect(f"{ws}/ws/{made['code']}", origin=origin) as sock:
                await sock.recv()
                return None
        except websockets.InvalidStatus as refused:
            return int(refused.response.status_code)

    for origin in foreign:
        assert asyncio.run(knock(origin)) == 403, origin
    assert asyncio.run(knock(server.base)) is None  # its own page may
    assert "bad_origin (websocket)" in server.log_text()


# --- a stolen seat token ----------------------------------------------------------------------


def test_a_stolen_seat_token_plays_the_seat_but_gives_no_account(server: Served) -> None:
    name = fresh_name("Robbed")
    with closing(sign_up(server, name)) as owner:
        made = owner.post("/api/tables", json={"bots": "easy"}).json()
        code, token = made["code"], made["token"]
    ws = server.base.replace("http", "ws", 1)

    async def play_as_thief() -> dict[str, Any]:
        async with websockets.connect(f"{ws}/ws/{code}") as sock:
            await sock.send(json.dumps({"type": "hello", "token": token}))
            while True:
                msg = json.loads(await sock.recv())
                if msg["type"] == "state" and msg["seat"] is not None:
                    return dict(msg)

    assert asyncio.run(play_as_thief())["seat"] == 0  # the token is the seat...
    with browser(server) as thief:  # ...and nothing more: no cookie, no account
        assert error(thief.get("/api/me")) == "not_signed_in"
        for cookie in (token, hashlib.sha256(token.encode()).hexdigest()):
            thief.cookies.set("seep_session", cookie)
            assert error(thief.get("/api/me")) == "not_signed_in"
            for path, body in [
                ("/api/me/password", {"password": PASSWORD, "new_password": "thief's choice!"}),
                ("/api/me/delete", {"password": PASSWORD}),
            ]:
                r = thief.post(path, json=body)
                assert r.status_code == 401 and error(r) == "not_signed_in", path
            assert error(thief.get("/api/me/records")) == "not_signed_in"
        thief.cookies.clear()
        # Signing up with the stolen token does not take a seat that is an account's.
        seats = [{"code": code, "token": token}]
        thief_name = fresh_name("Thief")
        r = thief.post(
            "/api/accounts", json={"name": thief_name, "password": PASSWORD, "seats": seats}
        )
        assert r.status_code == 201
        assert thief.get(f"/api/tables/{code}").json()["seats"][0]["name"] == name
    ((owner_id,),) = rows(server, "SELECT id FROM accounts WHERE name = ?", name)
    seat0 = json.loads(rows(server, "SELECT seats FROM tables WHERE code = ?", code)[0][0])[0]
    assert seat0["name"] == name and seat0["account"] == owner_id
    with browser(server) as owner:
        assert login(owner, name, PASSWORD).status_code == 200  # the owner's is intact


# --- the new endpoints, limited and bounded ---------------------------------------------------


def test_the_new_endpoints_are_bounded_and_a_flood_spares_the_others(server: Served) -> None:
    name = fresh_name("Bounds")
    with closing(sign_up(server, name)) as b:
        for path in ("/api/accounts", "/api/login", "/api/me/password", "/api/me/delete"):
            r = b.post(path, json={"password": "y" * 70_000})
            assert r.status_code == 413 and error(r) == "too_large", path
            r = b.post(path, content=b"[" * 5000, headers={"Content-Type": "application/json"})
            assert r.status_code == 400 and error(r) in ("bad_json", "bad_request"), path
        r = b.post("/api/accounts", json={"name": "n" * 300, "password": PASSWORD})
        assert r.status_code == 400 and "3 to 24" in r.json()["error"]["message"]
        for page in ("0", "-1", "10001", "1e9", "x" * 50):
            r = b.get(f"/api/players/{name}", params={"page": page})
            assert r.status_code == 400 and "'page'" in r.json()["error"]["message"], page
            r = b.get("/api/leaderboard", params={"page": page})
            assert r.status_code == 400, page
        assert error(b.get("/api/leaderboard", params={"format": "x" * 500})) == "bad_request"
        r = b.get(f"/api/players/{'x' * 2000}")
        assert r.status_code == 404 and error(r) == "unknown_player"
        r = b.get("/api/me/matches", params={"page": "9" * 9})
        assert r.status_code == 400 and "'page'" in r.text
        assert b.get("/api/me/records").status_code == 200
    # A flood of reads from one address: 429s with Retry-After, another address still served.
    flood, codes = next(ADDRESSES), []
    with browser(server, flood) as f:
        for i in range(PROFILES + 5):
            path = f"/api/players/{name}" if i % 2 else "/api/leaderboard"
            codes.append(f.get(path).status_code)
        last = f.get("/api/leaderboard")
    assert codes.count(429) >= 5 and set(codes) <= {200, 429}
    assert last.status_code == 429 and int(last.headers["retry-after"]) > 0
    assert "profile and leaderboard reads a minute" in last.json()["error"]["message"]
    with browser(server) as other:
        assert other.get(f"/api/players/{name}").status_code == 200
        assert other.get("/api/leaderboard").status_code == 200
    # Sign-ups from one address: a few, then a 429 naming the limit.
    with browser(server) as many:
        made = [
            many.post("/api/accounts", json={"name": fresh_name("Many"), "password": PASSWORD})
            for _ in range(4)
        ]
    assert [r.status_code for r in made] == [201, 201, 201, 429]
    assert "new accounts from your address" in made[-1].text and made[-1].headers["retry-after"]


@pytest.fixture(scope="module")
def flow(server: Served) -> Flow:
    return play_flow(server)


def test_a_running_rated_match_gives_away_no_hidden_card(flow: Flow) -> None:
    record = flow.record
    assert isinstance(record["seed"], int) and len(record["deals"]) == 1
    # Each position of the deal, by how many moves were made: the cards each seat may not
    # see then (the others' hands, the stock, the loose cards while the bid is open).
    s = Session(record["rules"], seed=record["seed"])
    hidden: dict[int, list[set[str]]] = {}
    held: dict[int, list[set[str]]] = {}  # each seat's own hand: it must be seen
    deal = record["deals"][0]
    for n in range(len(deal["moves"]) + 1):
        pos = s.position
        common = set(card_list(sum(1 << c for c in pos.stock)))
        if pos.phase_id == PHASE_BID:
            common |= set(card_list(pos.loose))
        hands = [set(card_list(h)) for h in pos.hands]
        per_seat = [
            common | set().union(*(hands[o] for o in range(4) if o != me)) for me in range(4)
        ]
        hidden[n] = [*per_seat, common | set().union(*hands)]  # the last: a spectator
        held[n] = hands
        if n < len(deal["moves"]):
            s.play({k: v for k, v in deal["moves"][n].items() if k != "seat"})
    states = http_reads = 0
    for seat, raw in flow.seen:
        msg = json.loads(raw)
        if msg.get("type") != "state" or not msg.get("view"):
            # An HTTP read (the summary, the record and the replay of a one-deal match that
            # is still running: no finished deal yet) or a state before the deal: no card.
            assert not CARD.findall(raw), raw[:300]
            http_reads += msg.get("type") != "state"
            continue
        moves = len(msg["view"]["history"])
        if msg["summary"] is not None:
            continue  # the deal is over: every card has been played, nothing is hidden
        cards = set(CARD.findall(raw))
        found = cards & hidden[moves][-1 if seat is None else seat]
        assert not found, f"seat {seat} was sent {found} after {moves} moves"
        # The check can see: a seat's own hand, as the position has it, is in its state.
        assert seat is None or held[moves][seat] <= cards, (seat, moves)
        states += 1
    assert states > 50 and http_reads > 3
    # A read that showed cards came once the deal was over (the deal is public then): the
    # record with the whole deal, as it ended; the replay up to the deal's result.
    for raw in flow.late:
        late = json.loads(raw)
        if "deals" in late:
            assert late["deals"] == record["deals"], raw[:300]
        else:
            assert late["steps"][-1]["result"] is not None, raw[:300]
    # Nor the seed, or a deal's seed, in any form.
    seed = record["seed"]
    text = "\n".join(raw for _, raw in flow.seen)
    for n in (seed, deal_seed(seed, 0), deal_seed(seed, 1)):
        assert str(n) not in text and f"{n:x}" not in text.lower()
    assert '"seed"' not in text


def test_no_password_cookie_or_session_in_a_url_or_the_log(server: Served, flow: Flow) -> None:
    log = server.log_text()
    assert "POST /api/login" in log and "POST /api/me/delete" in log  # request lines logged
    assert f"/ws/{flow.code}" in log
    assert flow.urls and any(u.startswith("/replay/") for u in flow.urls)
    for what, secret in flow.secrets.items():
        assert secret not in log, f"the {what} is in the log"
        for url in flow.urls:
            assert secret not in url, f"the {what} is in the URL {url}"
    assert "seep_session" not in log and "Traceback" not in log


def test_a_deleted_account_is_gone_from_every_row(server: Served, flow: Flow) -> None:
    name, account = flow.deleted, flow.deleted_id
    con = sqlite3.connect(server.db)  # type: ignore[attr-defined]
    try:
        tables = [t for (t,) in con.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        for table in tables:
            for row in con.execute(f'SELECT * FROM "{table}"'):  # the file's own table names
                text = repr(row)
                assert name not in text and flow.deleted_hash not in text, (table, row)
                for key in ("asha_cookie_sha256", "asha_cookie_2_sha256", "asha_cookie_3_sha256"):
                    assert flow.secrets[key] not in text, (table, key)
        for table, column in [
            ("accounts", "id"),
            ("sessions", "account"),
            ("ratings", "account"),
            ("seat_accounts", "account"),
            ("rating_changes", "account"),
        ]:
            query = f"SELECT count(*) FROM {table} WHERE {column} = ?"
            assert con.execute(query, (account,)).fetchone() == (0,), table
        # The match stays for the other player, the deleted one "a former player" in it.
        (seats,) = con.execute("SELECT seats FROM tables WHERE code = ?", (flow.code,)).fetchone()
        assert json.loads(seats)[0]["name"] == "a former player"
        changes = con.execute(
            "SELECT seat, account FROM rating_changes rc JOIN rated_matches m ON m.id = rc.match"
            " WHERE m.code = ? ORDER BY seat",
            (flow.code,),
        ).fetchall()
        assert changes[0] == (0, None) and changes[2][1] is not None  # Ravi's stays his
    finally:
        con.close()
    # Nor in the file's bytes: freed space and the write-ahead log hold no old copy.
    db = Path(server.db)  # type: ignore[attr-defined]
    for path in [db, *db.parent.glob(db.name + "-*")]:
        raw = path.read_bytes()
        assert name.encode() not in raw and flow.deleted_hash.encode() not in raw, path.name
    with browser(server) as b:
        assert error(b.get(f"/api/players/{name}")) == "unknown_player"
        assert name not in b.get(f"/api/tables/{flow.code}/record").text
        replay = b.get(f"/api/tables/{flow.code}")
        assert name not in replay.text and "a former player" in replay.text
        # The name is free again: a new account, with nothing of the old one.
        r = b.post("/api/accounts", json={"name": name, "password": "a brand new passphrase"})
        assert r.status_code == 201
        assert r.json()["ratings"]["four"]["games"] == 0
