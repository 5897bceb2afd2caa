"""Moderation (issue 26 item 7; docs/deploy.md "Moderation"): players report a chat line or a
player, limited; the operator's ``seep admin`` lists reports, bans and mutes an address or an
account for a time, closes a live table (its record kept) and reads the audit log of it all;
and no player reaches any of it.

The app runs behind a trusted proxy (127.0.0.1) here, so that each request and socket names its
own client address in ``X-Forwarded-For``; the instance's copy of the sanctions is refreshed by
hand (``_refresh``) instead of waiting for the app's task.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from starlette.routing import Mount, WebSocketRoute

from seep.__main__ import main
from seep.web.app import create_app
from seep.web.messages import MESSAGES
from seep.web.moderation import Moderation, Reported
from seep.web.names import skeleton
from seep.web.store import Store
from seep.web.tables import TableManager
from seepkit.server import serve
from seepkit.web import LeakChecker, Player

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

PASSWORD = "a long enough password"
ASHA, RAVI, OTHER = "203.0.113.5", "198.51.100.7", "192.0.2.9"


@contextmanager
def _app(tmp_path: Path) -> Iterator[tuple[TestClient, TableManager, LeakChecker, str]]:
    url = f"sqlite:///{tmp_path / 'seep.db'}"
    app = create_app(url, bot_delay=0.002, trusted_proxies="127.0.0.1")
    with TestClient(app, client=("127.0.0.1", 50000)) as client:
        manager: TableManager = app.state.manager
        checker = LeakChecker(manager)
        try:
            yield client, manager, checker, url
        finally:
            for p in checker.players:
                p.close()


def _as(client: TestClient, address: str) -> None:
    """The next requests and sockets come from ``address`` (through the trusted proxy)."""
    client.headers["X-Forwarded-For"] = address


def _admin(capsys: pytest.CaptureFixture[str], url: str, *args: str) -> tuple[int, str]:
    """``seep admin ARGS`` on the test's database: its exit status and what it printed."""
    capsys.readouterr()
    rc = main(["admin", *args, "--database-url", url])
    out = capsys.readouterr()
    return rc, out.out + out.err


def _refresh(manager: TableManager) -> None:
    assert manager.moderation is not None
    manager.moderation.refresh()


def _sign_up(client: TestClient, name: str) -> int:
    """A new account (signed in on ``client``): its id."""
    r = client.post("/api/accounts", json={"name": name, "password": PASSWORD})
    assert r.status_code == 201, r.text
    store = client.app.state.store  # type: ignore[attr-defined]
    return int(store.account_named(skeleton(name)).id)


def _table_of_two(client: TestClient, checker: LeakChecker) -> tuple[str, Player, Player]:
    """A table made by Asha (a guest at ASHA) that Ravi (at RAVI; signed in if ``client``
    is) joined, both connected; ``client`` is signed out after."""
    ravis = dict(client.cookies)
    client.cookies.clear()
    _as(client, ASHA)
    made = client.post("/api/tables", json={"name": "Asha"}).json()
    client.cookies.update(ravis)
    asha = Player(client, checker, made["code"], made["token"])
    asha.recv()
    _as(client, RAVI)
    joined = client.post(f"/api/tables/{made['code']}/join", json={"name": "Ravi"}).json()
    ravi = Player(client, checker, made["code"], joined["token"])
    ravi.recv()
    client.cookies.clear()
    return made["code"], asha, ravi


def test_a_report_of_a_chat_line_keeps_its_text_and_the_reported_player(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with _app(tmp_path) as (client, manager, checker, url):
        _as(client, RAVI)
        ravi_id = _sign_up(client, "Ravi")  # his seat is his account's
        code, asha, ravi = _table_of_two(client, checker)
        ravi.send({"type": "chat", "text": "you play like a goat"})
        line = asha.until(lambda m: m["type"] == "chat")
        assert line["line"] == 1 and line["seat"] == 1
        report = {"type": "report_player", "line": 1, "reason": "abuse", "note": "rude"}
        asha.send(report)
        assert asha.until(lambda m: m["type"] == "reported") == {
            "type": "reported",
            "repeat": False,
        }
        asha.send(report)  # the same line again: kept once
        assert asha.until(lambda m: m["type"] == "reported")["repeat"] is True
        asha.send({"type": "report_player", "seat": 1, "reason": "name"})
        assert asha.until(lambda m: m["type"] == "reported")["repeat"] is False
        # Refusals, each naming the problem.
        asha.send({"type": "report_player", "line": 1, "seat": 1})
        assert asha.error()["code"] == "bad_message"
        asha.send({"type": "report_player", "line": 7})
        assert "unknown or too old" in asha.error()["message"]
        asha.send({"type": "report_player", "seat": 0})
        assert "yourself" in asha.error()["message"]
        asha.send({"type": "report_player", "seat": 1, "reason": "ugly"})
        assert asha.error()["code"] == "bad_message"
        asha.send({"type": "report_player", "seat": 1, "note": "x" * 201})
        assert asha.error()["code"] == "bad_message"
        # The table is gone: the report still holds the line, the player and his address.
        table = manager.tables[code]
        manager.close(table)
        rc, out = _admin(capsys, url, "reports", "--open")
        assert rc == 0, out
        assert '"you play like a goat"' in out
        assert f'reported: "Ravi" (account #{ravi_id}, address {RAVI})' in out
        assert f"table {code} line 1" in out and f"table {code} seat 1" in out
        assert f"by: address {ASHA}" in out and '"rude"' in out
        assert out.count("\n#") + out.startswith("#") == 2  # the repeat was kept once
        # The reported player heard nothing of it: no report, no reporter.
        assert not any(m["type"] == "reported" for m in ravi.received)
        assert ASHA not in json.dumps(ravi.received) and "rude" not in json.dumps(ravi.received)


def test_reports_by_name_are_limited_per_client_and_account(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SEEP_MAX_REPORTS_PER_HOUR", "2")
    with _app(tmp_path) as (client, _manager, _checker, url):
        _as(client, OTHER)
        for name in ("Mira", "Dev", "Kiran"):
            _sign_up(client, name)
        client.cookies.clear()
        _as(client, ASHA)
        r = client.post("/api/reports", json={"player": "Mira", "reason": "cheating"})
        assert r.status_code == 201 and r.json() == {"repeat": False}
        r = client.post("/api/reports", json={"player": "mira", "reason": "cheating"})
        assert r.json() == {"repeat": True}  # counted once
        assert client.post("/api/reports", json={"player": "Dev"}).status_code == 201
        r = client.post("/api/reports", json={"player": "Kiran"})
        assert r.status_code == 429, r.text
        assert r.json()["error"]["code"] == "rate_limited"
        assert 3500 <= int(r.headers["Retry-After"]) <= 3600
        # Another address has its own allowance; bad input is refused by name.
        _as(client, RAVI)
        assert client.post("/api/reports", json={"player": "Kiran"}).status_code == 201
        r = client.post("/api/reports", json={"player": "Nobody"})
        assert r.status_code == 404 and r.json()["error"]["code"] == "unknown_player"
        r = client.post("/api/reports", json={"player": "Dev", "reason": "ugly"})
        assert r.status_code == 400 and "reason" in r.json()["error"]["message"]
        r = client.post("/api/reports", json={"player": "Dev", "note": "n" * 201})
        assert r.status_code == 400 and "note" in r.json()["error"]["message"]
        # Per account too: a signed-in reporter from a new address is still counted.
        _as(client, OTHER)
        client.post("/api/login", json={"name": "Dev", "password": PASSWORD})
        client.post("/api/reports", json={"player": "Mira"})
        client.post("/api/reports", json={"player": "Kiran"})
        _as(client, "192.0.2.200")
        assert client.post("/api/reports", json={"player": "Ravi2"}).status_code == 404
        r = client.post("/api/reports", json={"player": "Kiran", "note": "again"})
        assert r.json() == {"repeat": True} or r.status_code == 429
        rc, out = _admin(capsys, url, "reports")
        assert rc == 0 and "profile" in out


def test_a_ban_by_address_refuses_create_join_chat_and_sign_in_expires_and_lifts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with _app(tmp_path) as (client, manager, checker, url):
        _as(client, RAVI)
        _sign_up(client, "Ravi")
        code, asha, ravi = _table_of_two(client, checker)
        rc, out = _admin(capsys, url, "ban", "address", "198.51.100.0/24", "--for", "1d")
        assert rc == 0 and "address 198.51.100.0/24 banned until" in out, out
        _refresh(manager)
        _as(client, "198.51.100.99")
        for path, body in (
            ("/api/tables", {"name": "X"}),
            (f"/api/tables/{code}/join", {"name": "X"}),
            ("/api/quick", {"name": "X"}),
            ("/api/accounts", {"name": "Newname", "password": PASSWORD}),
            ("/api/login", {"name": "Ravi", "password": PASSWORD}),
            ("/api/reports", {"player": "Ravi"}),
        ):
            r = client.post(path, json=body)
            assert r.status_code == 403, (path, r.text)
            assert r.json()["error"]["code"] == "banned"
            assert "banned from this server until 20" in r.json()["error"]["message"]
        ravi.send({"type": "chat", "text": "hello"})  # seated before the ban
        assert ravi.error()["code"] == "banned"
        _as(client, OTHER)  # another network is not banned
        assert client.post("/api/tables", json={"name": "Mo"}).status_code == 201
        # It expires: a day later the same address is let in.
        assert manager.moderation is not None
        manager.moderation.clock = lambda: time.time() + 2 * 86400
        _refresh(manager)
        _as(client, "198.51.100.99")
        assert client.post("/api/tables", json={"name": "X"}).status_code == 201
        manager.moderation.clock = time.time
        _refresh(manager)
        assert client.post("/api/tables", json={"name": "X"}).status_code == 403
        rc, out = _admin(capsys, url, "unban", "address", "198.51.100.0/24", "--reason", "ok")
        assert rc == 0 and "ban lifted" in out
        _refresh(manager)
        assert client.post("/api/tables", json={"name": "X"}).status_code == 201
        rc, out = _admin(capsys, url, "unban", "address", "198.51.100.0/24")
        assert rc == 1 and "has no ban in force" in out
        asha.close()


def test_a_ban_by_account_ends_its_sessions_and_refuses_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with _app(tmp_path) as (client, manager, _checker, url):
        _as(client, RAVI)
        mira = _sign_up(client, "Mira")
        assert manager.store is not None and manager.store.sessions_of(mira) == 1
        rc, out = _admin(capsys, url, "ban", "account", "Mira", "--for", "forever", "--by", "op")
        assert rc == 0 and f"account 'Mira' (#{mira}) banned forever" in out, out
        assert "its sessions have ended" in out
        assert manager.store.sessions_of(mira) == 0
        assert client.get("/api/me").status_code == 401  # signed out at once
        _refresh(manager)
        r = client.post("/api/login", json={"name": "Mira", "password": PASSWORD})
        assert r.status_code == 403 and r.json()["error"]["code"] == "banned"
        assert "until it is lifted" in r.json()["error"]["message"]
        assert manager.store.sessions_of(mira) == 0  # the refused sign-in left no session
        # A wrong password says nothing of the ban.
        r = client.post("/api/login", json={"name": "Mira", "password": "wrong password!!"})
        assert r.status_code == 401
        # Her address is not banned: as a guest she may play (the ban is the account's).
        client.cookies.clear()
        assert client.post("/api/tables", json={"name": "Guest"}).status_code == 201
        rc, _ = _admin(capsys, url, "unban", "account", f"#{mira}")
        assert rc == 0
        _refresh(manager)
        r = client.post("/api/login", json={"name": "Mira", "password": PASSWORD})
        assert r.status_code == 200, r.text
        assert client.post("/api/tables", json={"name": "X"}).status_code == 201
        rc, out = _admin(capsys, url, "ban", "account", "Nobody", "--for", "1h")
        assert rc == 1 and "there is no account 'Nobody'" in out
        rc, out = _admin(capsys, url, "ban", "address", "not-an-ip", "--for", "1h")
        assert rc == 1 and "is not an IP address or network" in out
        rc, out = _admin(capsys, url, "ban", "address", "192.0.2.1", "--for", "3 years")
        assert rc == 1 and "say 30m, 12h, 7d, 2w or forever" in out


def test_a_mute_stops_the_players_chat_everywhere(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with _app(tmp_path) as (client, manager, checker, url):
        _as(client, RAVI)
        _sign_up(client, "Ravi")
        _, asha, ravi = _table_of_two(client, checker)
        _as(client, RAVI)
        client.post("/api/login", json={"name": "Ravi", "password": PASSWORD})
        other = client.post("/api/tables", json={"public": True}).json()
        client.cookies.clear()
        ravi2 = Player(client, checker, other["code"], other["token"])
        ravi2.recv()
        _as(client, OTHER)
        joined = client.post(f"/api/tables/{other['code']}/join", json={"name": "Mo"}).json()
        mo = Player(client, checker, other["code"], joined["token"])
        mo.recv()
        rc, out = _admin(capsys, url, "mute", "account", "Ravi", "--for", "2h")
        assert rc == 0 and "muted until" in out, out
        _refresh(manager)
        for p in (ravi, ravi2):
            p.send({"type": "chat", "text": "can you hear me"})
            err = p.error()
            assert err["code"] == "muted" and "your line was not sent" in err["message"]
            p.send({"type": "emote", "emote": "oops"})
            assert p.error()["code"] == "muted"
        # Others still talk, and nobody got his lines.
        mo.send({"type": "chat", "text": "quiet here"})
        assert mo.until(lambda m: m["type"] == "chat")["text"] == "quiet here"
        asha.send({"type": "chat", "text": "and here"})
        ravi.until(lambda m: m["type"] == "chat" and m["text"] == "and here")
        heard = json.dumps(asha.received + mo.received)
        assert "can you hear me" not in heard
        # By address too (a guest has no account); lifted, he talks again.
        rc, _ = _admin(capsys, url, "unmute", "account", "Ravi")
        assert rc == 0
        rc, _ = _admin(capsys, url, "mute", "address", OTHER, "--for", "30m")
        assert rc == 0
        _refresh(manager)
        mo.send({"type": "chat", "text": "hello?"})
        assert mo.error()["code"] == "muted"
        ravi.send({"type": "chat", "text": "back"})
        asha.until(lambda m: m["type"] == "chat" and m["text"] == "back")
        # A mute expires by itself.
        assert manager.moderation is not None
        manager.moderation.clock = lambda: time.time() + 3600
        _refresh(manager)
        mo.send({"type": "chat", "text": "free"})
        ravi2.until(lambda m: m["type"] == "chat" and m["text"] == "free")


def test_close_table_closes_a_live_table_on_a_running_server_and_keeps_its_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from websockets.sync.client import connect

    url = f"sqlite:///{tmp_path / 'seep.db'}"
    env = {"SEEP_MODERATION_SECONDS": "0.3"}
    with serve(tmp_path, "--database-url", url, "--bot-delay", "0.05", env=env) as served:
        made = httpx.post(f"{served.base}/api/tables", json={"name": "Asha"}, timeout=10).json()
        code = made["code"]
        with connect(f"ws://127.0.0.1:{served.port}/ws/{code}", open_timeout=10) as ws:
            ws.send(json.dumps({"type": "hello", "token": made["token"]}))
            ws.send(json.dumps({"type": "start"}))
            while True:
                msg = json.loads(ws.recv(timeout=10))
                if msg["type"] == "state" and msg["table"]["status"] == "playing":
                    break
            rc, out = _admin(capsys, url, "close-table", code.lower(), "--wait", "15")
            assert rc == 0 and f"table {code} closed (its record kept)" in out, out
            while True:  # the player sees it closed
                msg = json.loads(ws.recv(timeout=10))
                if msg["type"] == "state" and msg["table"]["status"] == "closed":
                    break
        summary = httpx.get(f"{served.base}/api/tables/{code}", timeout=10).json()
        assert summary["status"] == "closed"
        record = httpx.get(f"{served.base}/api/tables/{code}/record", timeout=10)
        assert record.status_code == 200, record.text
        rc, out = _admin(capsys, url, "close-table", code)
        assert rc == 1 and "is closed already (its record is kept)" in out
        rc, out = _admin(capsys, url, "close-table", "ZZZZZZ")
        assert rc == 1 and "there is no table ZZZZZZ" in out
        # The server's own refresh (every 0.3 s here) brings a ban: no restart, no request.
        rc, _ = _admin(capsys, url, "ban", "address", "127.0.0.1", "--for", "30m")
        assert rc == 0
        deadline = time.monotonic() + 10
        while True:
            r = httpx.post(f"{served.base}/api/tables", json={"name": "Asha"}, timeout=10)
            if r.status_code == 403 or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        assert r.status_code == 403 and r.json()["error"]["code"] == "banned", r.text


def test_instances_on_one_database_share_the_bans(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two apps on one database: a ban by one operator's command holds on both after their
    refresh, and its lifting too."""
    url = f"sqlite:///{tmp_path / 'seep.db'}"
    apps = [create_app(url, trusted_proxies="127.0.0.1") for _ in range(2)]
    with (
        TestClient(apps[0], client=("127.0.0.1", 1)) as one,
        TestClient(apps[1], client=("127.0.0.1", 2)) as two,
    ):
        for c in (one, two):
            _as(c, RAVI)
            assert c.post("/api/tables", json={"name": "Ravi"}).status_code == 201
        assert _admin(capsys, url, "ban", "address", RAVI, "--for", "1h")[0] == 0
        for app, c in zip(apps, (one, two), strict=True):
            _refresh(app.state.manager)
            assert c.post("/api/tables", json={"name": "Ravi"}).status_code == 403
        assert _admin(capsys, url, "unban", "address", RAVI)[0] == 0
        for app, c in zip(apps, (one, two), strict=True):
            _refresh(app.state.manager)
            assert c.post("/api/tables", json={"name": "Ravi"}).status_code == 201


def test_every_action_is_in_the_audit_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with _app(tmp_path) as (client, _manager, _checker, url):
        _as(client, RAVI)
        _sign_up(client, "Ravi")
        client.cookies.clear()
        _as(client, ASHA)
        assert client.post("/api/reports", json={"player": "Ravi"}).status_code == 201
        code = client.post("/api/tables", json={"name": "Asha"}).json()["code"]
        steps = [
            ("ban", "address", "192.0.2.0/28", "--for", "1h", "--reason", "spam"),
            ("unban", "address", "192.0.2.0/28"),
            ("ban", "account", "Ravi", "--for", "7d"),
            ("unban", "account", "Ravi"),
            ("mute", "account", "Ravi", "--for", "30m"),
            ("unmute", "account", "Ravi"),
            ("mute", "address", "192.0.2.1", "--for", "forever"),
            ("unmute", "address", "192.0.2.1"),
            ("close-table", code),
            ("report", "close", "1"),
        ]
        for step in steps:
            rc, out = _admin(capsys, url, *step, "--by", "asha-op")
            assert rc == 0, (step, out)
        rc, out = _admin(capsys, url, "report", "close", "1")
        assert rc == 1 and "there is no open report #1" in out  # not audited: nothing done
        rc, out = _admin(capsys, url, "audit", "--limit", "20")
        assert rc == 0
        lines = out.strip().splitlines()
        assert len(lines) == len(steps) and all("asha-op:" in line for line in lines)
        actions = [line.split("asha-op: ")[1].split(" ")[0] for line in reversed(lines)]
        assert actions == [
            "ban-address",
            "unban-address",
            "ban-account",
            "unban-account",
            "mute-account",
            "unmute-account",
            "mute-address",
            "unmute-address",
            "close-table",
            "close-report",
        ]
        assert '("spam")' in lines[-1] and "192.0.2.0/28 until" in lines[-1]
        rc, out = _admin(capsys, url, "reports", "--open")
        assert rc == 0 and out.strip() == "no open reports"
        rc, out = _admin(capsys, url, "audit", "--limit", "0")
        assert rc == 1 and "--limit" in out


def _routes(found: list[Any]) -> set[tuple[str, str]]:
    """Every (method, path) of the app's routes, those of its included routers too (FastAPI
    keeps an included router whole, as ``original_router``; none here has a prefix)."""
    routes: set[tuple[str, str]] = set()
    for route in found:
        if isinstance(route, APIRoute):
            routes.update((m, route.path) for m in route.methods)
        elif isinstance(route, WebSocketRoute):
            routes.add(("WS", route.path))
        elif hasattr(route, "original_router"):
            routes |= _routes(route.original_router.routes)
        else:
            assert isinstance(route, Mount) and route.path == "/static", route
    return routes


def test_a_player_reaches_no_admin_action(tmp_path: Path) -> None:
    """No HTTP route or socket message bans, mutes everywhere, closes a table or reads reports
    and the audit log; a crafted socket message for one is refused as unknown."""
    with _app(tmp_path) as (client, manager, checker, _url):
        app: Any = client.app
        routes = _routes(app.routes)
        assert ("POST", "/api/tables") in routes and ("WS", "/ws/{code}") in routes
        admin_words = ("admin", "ban", "mute", "audit", "sanction", "close", "moderat")
        for method, path in routes:
            assert not any(w in path.lower() for w in admin_words), (method, path)
        # The one reports route takes a report and answers only whether it was a repeat.
        assert {(m, p) for m, p in routes if "report" in p} == {("POST", "/api/reports")}
        assert client.get("/api/reports").status_code == 405
        # The socket's message types, all of them a player's or a host's at his own table.
        assert set(MESSAGES) == {
            "hello", "ping", "move", "start", "sit", "kick", "hint", "undo", "next", "chat",
            "emote", "mute", "watch", "rematch", "transfer", "claim", "coach", "report",
            "report_player", "moves", "visibility",
        }  # fmt: skip
        _, asha, ravi = _table_of_two(client, checker)
        for crafted in (
            {"type": "ban", "target": "account", "who": "Ravi", "for": "forever"},
            {"type": "close-table", "code": "ABCD"},
            {"type": "reports"},
            {"type": "audit"},
            {"type": "unmute", "seat": 1},
        ):
            asha.send(crafted)
            err = asha.error()
            assert err["code"] == "unknown_type", err
        # "mute" is the host's mute at his own table: it writes no sanction.
        asha.send({"type": "mute", "seat": 1})
        asha.until(lambda m: m["type"] == "state" and m["table"]["muted"] == [1])
        assert manager.store is not None
        assert list(manager.store.active_sanctions()) == []
        # A report's answer never carries the report: no reporter, no address.
        asha.send({"type": "report_player", "seat": 1})
        assert asha.until(lambda m: m["type"] == "reported") == {
            "type": "reported",
            "repeat": False,
        }
        assert not any(m["type"] == "reported" for m in ravi.received)


def test_the_checks_read_the_instances_copy_not_the_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Requests and chat lines are checked against the copy the refresh read: the sanctions'
    query runs once a refresh, never per request or message."""
    monkeypatch.setenv("SEEP_MODERATION_SECONDS", "3600")  # the app's own refresh stays away
    with _app(tmp_path) as (client, manager, checker, _url):
        _, asha, ravi = _table_of_two(client, checker)
        assert manager.store is not None
        reads: list[float] = []
        real = manager.store.active_sanctions

        def counted(now: float | None = None) -> Any:
            reads.append(time.time())
            return real(now)

        monkeypatch.setattr(manager.store, "active_sanctions", counted)
        for i in range(3):
            ravi.send({"type": "chat", "text": f"line {i}"})
            asha.until(lambda m, i=i: m["type"] == "chat" and m["text"] == f"line {i}")
            _as(client, OTHER)
            assert client.post("/api/tables", json={"name": "Mo"}).status_code == 201
        assert reads == []
        _refresh(manager)
        assert len(reads) == 1


def test_a_report_the_database_cannot_take_is_refused_plainly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A locked or full database: the reporter is told to send it again (no traceback, no
    500), and nothing is counted against his limit."""
    from sqlalchemy.exc import OperationalError

    with _app(tmp_path) as (client, manager, checker, _url):
        _, asha, _ravi = _table_of_two(client, checker)
        assert manager.store is not None

        def locked(*_: Any, **__: Any) -> Any:
            raise OperationalError("INSERT", {}, Exception("database is locked"))

        monkeypatch.setattr(manager.store.engine, "begin", locked)
        asha.send({"type": "report_player", "seat": 1})
        assert asha.error()["code"] == "store_unavailable"
        monkeypatch.undo()
        asha.send({"type": "report_player", "seat": 1})
        assert asha.until(lambda m: m["type"] == "reported")["repeat"] is False


def test_a_line_number_used_again_after_a_restart_is_a_new_report(tmp_path: Path) -> None:
    """A reloaded table numbers its chat from 1 again: line 1 with other words is another
    report, the same words the same one."""
    store = Store(f"sqlite:///{tmp_path / 'seep.db'}")
    try:
        moderation = Moderation(store)
        before = Reported("Ravi", None, RAVI, "ABCDEF", 1, 1, "first words")
        after = Reported("Ravi", None, RAVI, "ABCDEF", 1, 1, "other words")
        assert moderation.report(ASHA, None, before, "spam", "") is True
        assert moderation.report(ASHA, None, after, "spam", "") is True
        assert moderation.report(ASHA, None, after, "abuse", "again") is False
        assert [r.text for r in store.reports(True, 10)] == ["other words", "first words"]
    finally:
        store.close()


def test_a_ban_reaches_the_tables_on_a_running_server(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A banned account's seated sockets are told and closed (4403) at the server's next
    refresh of the sanctions, and its token takes the seat no more; a banned address may not
    even watch. Meanwhile the table plays on (the seat is away: a bot plays it)."""
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    url = f"sqlite:///{tmp_path / 'seep.db'}"
    env = {"SEEP_MODERATION_SECONDS": "0.3"}
    with serve(tmp_path, "--database-url", url, "--bot-delay", "0.05", env=env) as served:
        origin = {"Origin": served.base}
        with httpx.Client(base_url=served.base, headers=origin, timeout=10) as http:
            made = http.post("/api/accounts", json={"name": "Ravi", "password": PASSWORD})
            assert made.status_code == 201, made.text
            table = http.post("/api/tables", json={"name": "Ravi", "bots": "easy"}).json()
        code, token = table["code"], table["token"]
        ws_url = f"ws://127.0.0.1:{served.port}/ws/{code}"
        hello = json.dumps({"type": "hello", "token": token})

        def banned(ws: Any) -> dict[str, Any]:
            """The ``banned`` error, then the close: (the error, the close code)."""
            told = None
            with pytest.raises(ConnectionClosed):
                while True:
                    msg = json.loads(ws.recv(timeout=10))
                    if msg["type"] == "error" and msg["code"] == "banned":
                        told = msg
            assert told is not None and ws.close_code == 4403, (told, ws.close_code)
            return told

        with connect(ws_url, open_timeout=10, additional_headers=origin) as ws:
            ws.send(hello)
            ws.send(json.dumps({"type": "start"}))
            while True:
                msg = json.loads(ws.recv(timeout=10))
                if msg["type"] == "state" and msg["table"]["status"] == "playing":
                    break
            rc, _ = _admin(capsys, url, "ban", "account", "Ravi", "--for", "1h", "--by", "op")
            assert rc == 0
            assert "banned from this server" in banned(ws)["message"]
        # His token takes the seat no more (his address may still connect: it is not banned).
        with connect(ws_url, open_timeout=10, additional_headers=origin) as ws:
            ws.send(hello)
            banned(ws)
        # The table plays on without him: his seat is away and a bot plays it.
        summary = httpx.get(f"{served.base}/api/tables/{code}", timeout=10).json()
        assert summary["status"] == "playing"
        assert summary["seats"][0]["connected"] is False
        # A banned address may not even watch.
        rc, _ = _admin(capsys, url, "ban", "address", "127.0.0.1", "--for", "30m")
        assert rc == 0
        deadline = time.monotonic() + 10
        while True:
            with connect(ws_url, open_timeout=10, additional_headers=origin) as ws:
                first = json.loads(ws.recv(timeout=10))
                if first["type"] == "error":
                    assert first["code"] == "banned"
                    with pytest.raises(ConnectionClosed):
                        ws.recv(timeout=10)
                    assert ws.close_code == 4403
                    break
            assert time.monotonic() < deadline, "the address ban never reached the sockets"
            time.sleep(0.1)
