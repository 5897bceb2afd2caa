"""A lobby that shows real tables, and caps a household cannot hold (issue 23 items 5 and 6;
docs/web.md "Lobby and social", "Limits", "Lifecycle"): the lobby and quick match list only
tables whose host is here, newest first, with a few public waiting tables per address; a
seated player starts a table whose host is away; the caps on tables count an IPv6 client's /56
and /48 as well as its /64 (also behind a trusted proxy); a started table nobody is connected
to closes within minutes; a rematch counts as a new table. The lobby-pinning attack runs
against a real ``seep serve`` on loopback (127.0.0.2 and up as other addresses), bounded."""

from __future__ import annotations

import asyncio
import ipaddress
import json
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from seep.web.app import create_app
from seep.web.limits import ClientResolver, NetworkOpenTables, NetworkRates, networks
from seep.web.tables import TableError
from seepkit.server import serve
from seepkit.web import Player, web_client

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

JSON = {"Content-Type": "application/json"}


# --- the limiters, with IPv6 clients -------------------------------------------------------


def test_an_ipv6_client_counts_in_its_56_and_48_also_behind_a_trusted_proxy() -> None:
    resolve = ClientResolver([ipaddress.ip_network("10.0.0.0/8")])
    key = resolve("10.0.0.5", "2001:db8:0:1ff::9")  # the proxy names the client
    assert key == "2001:db8:0:1ff::/64"
    assert networks(key) == ("2001:db8:0:1ff::/64", "2001:db8:0:100::/56", "2001:db8::/48")
    # An untrusted peer's header is ignored: it is counted as itself, an IPv4 address.
    assert networks(resolve("192.0.2.7", "2001:db8::1")) == ("192.0.2.7",)
    assert networks(resolve("2001:db8:1:2::3")) == (
        "2001:db8:1:2::/64",
        "2001:db8:1::/56",
        "2001:db8:1::/48",
    )
    assert networks("unknown") == ("unknown",)


def test_open_tables_are_capped_per_64_56_and_48() -> None:
    capped = NetworkOpenTables(2, lambda code: True)
    made = 0
    # Every /64 of one /56 asks for tables: 2 each, 4 in the /56.
    for n in range(8):
        key = f"2001:db8:0:{n:x}::/64"
        while capped.over(key) is None:
            capped.add(key, f"T{made}")
            made += 1
    assert made == 4
    assert capped.over("2001:db8:0:7::/64") == ("2001:db8::/56", 4)
    # The next /56 of the same /48 gets its own 4, then the /48 (8) is full.
    for n in range(8):
        key = f"2001:db8:0:1{n:x}0::/64"
        while capped.over(key) is None:
            capped.add(key, f"T{made}")
            made += 1
    assert made == 8
    assert capped.over("2001:db8:0:ff00::/64") == ("2001:db8::/48", 8)
    assert capped.over("2001:db9::/64") is None  # another /48
    assert capped.over("192.0.2.1") is None


def test_creation_rates_are_limited_per_56() -> None:
    now = [0.0]
    rates = NetworkRates(3, clock=lambda: now[0])
    for n in range(6):
        key = f"2001:db8:0:{n:x}::/64"
        assert rates.over(key) is None
        rates.add(key)
    assert rates.over("2001:db8:0:6::/64") == ("2001:db8::/56", 6)
    now[0] = 61.0
    assert rates.over("2001:db8:0:6::/64") is None


# --- the app, with IPv6 clients ------------------------------------------------------------


@contextmanager
def _proxied(tmp_path: Path, **env: str) -> Iterator[TestClient]:
    """The app behind a trusted proxy at 127.0.0.1: each request names its client in
    X-Forwarded-For."""
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        app = create_app(f"sqlite:///{tmp_path / 'seep.db'}", trusted_proxies="127.0.0.1")
        with TestClient(app, client=("127.0.0.1", 40000)) as client:
            yield client
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _create_as(client: TestClient, ip: str, **body: Any) -> httpx.Response:
    return client.post(
        "/api/tables", json={"name": "Asha", **body}, headers={"X-Forwarded-For": ip}
    )


def test_a_56_cannot_hold_more_than_its_cap_of_open_tables(tmp_path: Path) -> None:
    """Per /64 2 open tables, per /56 4, per /48 8: a household's many /64s do not add up to
    the server's cap."""
    with _proxied(
        tmp_path, SEEP_MAX_OPEN_TABLES_PER_CLIENT="2", SEEP_MAX_TABLES_PER_MINUTE="0"
    ) as client:
        assert _create_as(client, "2001:db8:0:1::1").status_code == 201
        assert _create_as(client, "2001:db8:0:1::2").status_code == 201
        own = _create_as(client, "2001:db8:0:1::3")  # the same /64
        assert own.status_code == 429 and "your address" in own.json()["error"]["message"]
        assert _create_as(client, "2001:db8:0:2::1").status_code == 201
        assert _create_as(client, "2001:db8:0:2::1").status_code == 201
        wide = _create_as(client, "2001:db8:0:3::1")  # a fresh /64 of the full /56
        assert wide.status_code == 429
        assert wide.json()["error"]["code"] == "too_many_tables"
        assert "2001:db8::/56" in wide.json()["error"]["message"]
        for sub in ("100", "101"):  # another /56 of the /48
            for _ in range(2):
                assert _create_as(client, f"2001:db8:0:{sub}::1").status_code == 201
        wider = _create_as(client, "2001:db8:0:200::1")
        assert wider.status_code == 429 and "2001:db8::/48" in wider.json()["error"]["message"]
        assert _create_as(client, "2001:db9::1").status_code == 201  # another household
        assert _create_as(client, "192.0.2.1").status_code == 201


def test_creations_a_minute_are_limited_per_56(tmp_path: Path) -> None:
    with _proxied(tmp_path, SEEP_MAX_TABLES_PER_MINUTE="1") as client:
        assert _create_as(client, "2001:db8:0:1::1").status_code == 201
        assert _create_as(client, "2001:db8:0:1::1").status_code == 429
        assert _create_as(client, "2001:db8:0:2::1").status_code == 201
        r = _create_as(client, "2001:db8:0:3::1")
        assert r.status_code == 429 and r.json()["error"]["code"] == "rate_limited"
        assert "2001:db8::/56" in r.json()["error"]["message"]


def test_public_waiting_tables_are_capped_per_address(tmp_path: Path) -> None:
    with _proxied(tmp_path, SEEP_MAX_TABLES_PER_MINUTE="0") as client:
        for _ in range(3):
            assert _create_as(client, "192.0.2.1", public=True).status_code == 201
        r = _create_as(client, "192.0.2.1", public=True)
        assert r.status_code == 429 and r.json()["error"]["code"] == "too_many_tables"
        assert "public tables" in r.json()["error"]["message"]
        quick = client.post("/api/quick", json={}, headers={"X-Forwarded-For": "192.0.2.1"})
        assert quick.status_code == 429  # quick match opens a public table too
        assert _create_as(client, "192.0.2.1").status_code == 201  # a private one is fine
        assert _create_as(client, "192.0.2.2", public=True).status_code == 201


# --- the lobby, the host, the lifecycle ----------------------------------------------------


def test_a_seated_player_starts_when_the_host_is_away(tmp_path: Path) -> None:
    now = [time.time()]
    with web_client(tmp_path) as (client, manager, checker):
        manager.clock = lambda: now[0]
        made = client.post("/api/tables", json={"name": "Asha", "public": True}).json()
        code = made["code"]
        ravi_seat = client.post(f"/api/tables/{code}/join", json={"name": "Ravi"}).json()
        ravi = Player(client, checker, code, ravi_seat["token"])
        ravi.until(lambda m: m["type"] == "state" and m["seat"] == 1)
        ravi.send({"type": "start"})  # the host's grace period is not over: refused
        err = ravi.until(lambda m: m["type"] == "error")
        assert err["code"] == "not_host" and "away" in err["message"]
        now[0] += manager.grace_seconds + 1
        ravi.send({"type": "start"})
        state = ravi.until(lambda m: m["type"] == "state" and m["table"]["status"] == "playing")
        assert state["table"]["host"] == 1
        assert manager.get(code).host == 1
        # A host who is here keeps the table his to start.
        other = client.post("/api/tables", json={"name": "Mira"}).json()
        mira = Player(client, checker, other["code"], other["token"])
        mira.recv()
        dev_seat = client.post(f"/api/tables/{other['code']}/join", json={"name": "Dev"}).json()
        dev = Player(client, checker, other["code"], dev_seat["token"])
        dev.until(lambda m: m["type"] == "state" and m["seat"] == 1)
        now[0] += manager.grace_seconds + 1
        dev.send({"type": "start"})
        assert dev.until(lambda m: m["type"] == "error")["code"] == "not_host"
        for p in (ravi, mira, dev):
            p.close()


def test_a_started_table_nobody_is_connected_to_closes_in_minutes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SEEP_ORPHAN_MINUTES", "10")
    now = [time.time()]
    with web_client(tmp_path) as (client, manager, checker):
        manager.clock = lambda: now[0]
        made = client.post("/api/tables", json={"name": "Asha"}).json()
        p = Player(client, checker, made["code"], made["token"])
        p.recv()
        p.send({"type": "start"})
        p.until(lambda m: m["type"] == "state" and m["table"]["status"] == "playing")
        p.close()
        deadline = time.time() + 5
        while manager.get(made["code"]).seats[0].connections and time.time() < deadline:
            time.sleep(0.02)
        manager.sweep()  # nobody here: the clock starts
        now[0] += 9 * 60
        manager.sweep()
        assert manager.tables[made["code"]].status == "playing"
        now[0] += 61
        manager.sweep()
        assert made["code"] not in manager.tables
        assert client.get(f"/api/tables/{made['code']}").json()["status"] == "closed"


def test_a_rematch_counts_against_the_creation_limits(tmp_path: Path) -> None:
    with web_client(tmp_path, max_tables_per_minute=2) as (client, manager, _checker):
        made = client.post("/api/tables", json={"name": "Asha"}).json()
        table = manager.get(made["code"])
        # As if the match were over and its player asked for another.
        table.start(0)
        table.status = "finished"
        table.rematch = {0}
        manager._start_rematch(table)
        assert table.rematched is not None
        r = client.post("/api/tables", json={"name": "Asha"})
        assert r.status_code == 429, r.text  # the rematch was the second table this minute
        table.rematched = None
        with pytest.raises(TableError) as refused:
            manager._start_rematch(table)
        assert refused.value.code == "rate_limited"


# --- lobby pinning against a real server ---------------------------------------------------


@contextmanager
def _serve(tmp: Path, **env: str) -> Iterator[str]:
    env = dict(SEEP_DATABASE_URL=f"sqlite:///{tmp / 'seep.db'}", **env)
    with serve(tmp, env=env, log_name="server.log") as served:
        yield served.base
    assert "Traceback" not in served.log_text()


def _from(source: str) -> httpx.Client:
    """An HTTP client whose connections come from the loopback address ``source``."""
    return httpx.Client(transport=httpx.HTTPTransport(local_address=source), timeout=5)


@pytest.mark.skipif(sys.platform != "linux", reason="loopback 127.0.0.2: Linux")
def test_junk_tables_do_not_pin_the_lobby_or_quick_match(tmp_path: Path) -> None:
    """Four addresses try 15 public tables each, every one kept open by an idle spectator, and
    their hosts never come. An honest host then opens a table and connects: it heads the lobby
    a third address reads, and quick match sends a newcomer there (not to a junk table)."""
    websockets = pytest.importorskip("websockets")
    settings = {"bots": "easy", "deals": 2}
    with _serve(
        tmp_path,
        SEEP_MAX_TABLES_PER_MINUTE="0",
        SEEP_MAX_CONNECTIONS_PER_CLIENT="0",
        SEEP_MAX_LOBBY_PER_MINUTE="0",
    ) as base:
        ws_base = base.replace("http", "ws")
        junk: list[str] = []
        for n in range(2, 6):
            with _from(f"127.0.0.{n}") as c:
                for _ in range(15):
                    r = c.post(base + "/api/tables", json={"public": True, **settings})
                    if r.status_code == 201:
                        junk.append(r.json()["code"])
                    else:
                        assert r.json()["error"]["code"] == "too_many_tables", r.text
        assert junk

        async def scenario() -> tuple[list[str], str, str]:
            spectators = [await websockets.connect(f"{ws_base}/ws/{code}") for code in junk]
            with _from("127.0.0.9") as c:
                honest = c.post(
                    base + "/api/tables", json={"name": "Asha", "public": True, **settings}
                ).json()
            host = await websockets.connect(f"{ws_base}/ws/{honest['code']}")
            await host.send(json.dumps({"type": "hello", "token": honest["token"]}))
            while True:  # until the server has seated the host's socket
                msg = json.loads(await asyncio.wait_for(host.recv(), 10))
                if msg["type"] == "state" and msg.get("seat") == 0:
                    break
            with _from("127.0.0.10") as c:
                listed = [t["code"] for t in c.get(base + "/api/lobby").json()["tables"]]
            with _from("127.0.0.11") as c:
                quick = c.post(base + "/api/quick", json={"name": "Ravi", **settings}).json()
            await host.close()
            for ws in spectators:
                await ws.close()
            return listed, quick["code"], honest["code"]

        listed, quick_code, honest_code = asyncio.run(asyncio.wait_for(scenario(), 60))
        assert listed[:1] == [honest_code]
        assert not set(listed) & set(junk)  # their hosts never came
        assert quick_code == honest_code


# --- the page: Start for a seated player when the host is away ------------------------------


@pytest.mark.browser
def test_the_page_offers_start_when_the_host_is_away(tmp_path: Path) -> None:
    """Ravi joins a table whose host never came: his page shows Start with a line saying why,
    and once the grace period (1 s here) is over his Start starts the match, his the host."""
    browser_mod = pytest.importorskip("seepkit.browser")
    sync_api = pytest.importorskip("playwright.sync_api")
    with _serve(tmp_path, SEEP_GRACE_SECONDS="1", SEEP_BOT_DELAY="0.02") as base:
        made = httpx.post(base + "/api/tables", json={"name": "Asha", "bots": "easy"}).json()
        code = made["code"]
        with sync_api.sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path=browser_mod.CHROMIUM,
                headless=True,
                args=browser_mod.CHROMIUM_ARGS,
            )
            try:
                page = browser.new_page(viewport={"width": 420, "height": 860})
                page.set_default_timeout(20_000)
                errors: list[str] = []
                page.on("pageerror", lambda e: errors.append(str(e)))
                page.goto(f"{base}/t/{code}")
                page.fill("#join-name", "Ravi")
                page.click("#join-btn")
                page.wait_for_selector("#start-btn")
                assert "The host is away" in page.inner_text(".waiting")
                time.sleep(1.2)  # the grace period
                page.click("#start-btn")
                deadline = time.time() + 20
                while True:
                    table = httpx.get(f"{base}/api/tables/{code}").json()
                    if table["status"] == "playing" or time.time() > deadline:
                        break
                    time.sleep(0.1)
                assert table["status"] == "playing" and table["host"] == 1
                assert not errors, errors
            finally:
                browser.close()
