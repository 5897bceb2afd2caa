"""``GET /metrics`` (docs/deploy.md "Metrics"): the counters and gauges after a short game, who
may read them (loopback, the configured networks, the bearer token; never an outside client
behind the proxy), labels from closed sets only, and ``promtool check metrics`` on the real
output (skipped without promtool, except under CI=true: .ci/run installs it)."""

from __future__ import annotations

import asyncio
import os
import random
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families

from seep.web import create_app
from seep.web.metrics import (
    DIFFICULTY_LABELS,
    HANDOVER_DIRECTIONS,
    REFUSAL_KINDS,
    TABLE_STATUSES,
    WRITE_KINDS,
    LoopHistogram,
    Metrics,
)
from seep.web.routes.metrics import METRICS_PER_MINUTE
from seepkit.web import Player, create_table, my_turn, play_my_turn, web_client

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

LOCAL = ("127.0.0.1", 9090)
OUTSIDE = ("203.0.113.5", 40000)
PASSWORD = "correct horse battery"
TOKEN = "s3cret-token-for-the-scraper-0123456789"
#: Every label the metrics may carry, and the values each may take (``le``: a bucket's bound).
CLOSED_LABELS = {
    "status": set(TABLE_STATUSES),
    "difficulty": set(DIFFICULTY_LABELS),
    "kind": set(REFUSAL_KINDS),
    "what": set(WRITE_KINDS),
    "direction": set(HANDOVER_DIRECTIONS),
}


def _scrape(client: TestClient, *, peer: tuple[str, int] = LOCAL, **headers: str) -> Any:
    return TestClient(client.app, client=peer).get("/metrics", headers=headers)


def _samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Each sample by (name, sorted labels)."""
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def _value(samples: dict[Any, float], name: str, **labels: str) -> float:
    return samples[(name, tuple(sorted(labels.items())))]


def _play_a_few_moves(client: TestClient, checker: Any, moves: int) -> tuple[Player, str, int]:
    """At least ``moves`` moves of mine, until it is not my turn: the player, the table's
    code and the moves I made (more than ``moves`` when my turns came in a row: a redeal, A6,
    then the bid and the bidder's play, R16; or two redeals)."""
    made = create_table(client, name="Asha", deals=1)
    me = Player(client, checker, made["code"], made["token"])
    me.recv()
    me.send({"type": "start"})
    rng = random.Random(3)
    played = 0
    while True:
        msg = me.recv()
        if msg["type"] == "state" and not msg["legal"] and played >= moves:
            # The state my last move brought (the writer times it once it is written), and
            # not my turn: a bid's bidder plays again at once (R16), and would wait for ever.
            return me, made["code"], played
        if my_turn(msg):
            play_my_turn(me, msg, rng)
            played += 1


def test_a_short_game_moves_the_counters_and_the_gauges_are_right(tmp_path: Path) -> None:
    with web_client(tmp_path) as (client, manager, checker):
        signup = client.post("/api/accounts", json={"name": "Meera", "password": PASSWORD})
        assert signup.status_code == 201, signup.text
        before = _samples(_scrape(client).text)
        assert _value(before, "seep_moves_total") == 0
        assert _value(before, "seep_tables", status="playing") == 0
        me, code, mine = _play_a_few_moves(client, checker, 3)
        deadline = time.monotonic() + 5
        while True:
            r = _scrape(client)
            assert r.status_code == 200
            assert r.headers["content-type"].startswith("text/plain; version=0.0.4")
            after = _samples(r.text)
            if _value(after, "seep_move_to_state_seconds_count") >= 3:
                break
            assert time.monotonic() < deadline, "my moves' states were never timed"
            time.sleep(0.02)
        # My moves and the bots' between them, each stored and counted (one scrape is read at
        # once on the loop: its figures agree with one another). The bots need not have moved
        # yet: a bidder with no card of 9 or more redeals (A6, once or more), then bids and
        # plays (R16), all moves of mine in a row.
        moved = _value(after, "seep_moves_total")
        assert moved >= mine
        assert manager.tables[code].moves_made >= moved  # read later: the bots play on
        assert _value(after, "seep_db_write_seconds_count", what="move") == moved
        assert _value(after, "seep_db_write_seconds_count", what="table") >= 2  # made, started
        assert _value(after, "seep_bot_think_seconds_count", difficulty="easy") >= moved - mine
        assert _value(after, "seep_bot_think_seconds_count", difficulty="expert") == 0
        assert _value(after, "seep_bot_fallbacks_total") == 0
        assert _value(after, "seep_tables", status="playing") == 1
        assert _value(after, "seep_tables", status="waiting") == 0
        assert _value(after, "seep_websocket_connections") == 1
        assert _value(after, "seep_accounts") == 1
        assert _value(after, "seep_rated_matches") == 0
        # The table leaves this instance (another one holds it now): a hand-over out.
        manager.drop(code, "a test")
        dropped = _samples(_scrape(client).text)
        assert _value(dropped, "seep_lease_handovers_total", direction="out") == 1
        assert _value(dropped, "seep_lease_handovers_total", direction="in") == 0
        assert _value(dropped, "seep_tables", status="playing") == 0
        me.close()


def test_labels_are_bounded_and_name_no_table_player_or_address(tmp_path: Path) -> None:
    with web_client(tmp_path, max_unknown_codes_per_minute=1) as (client, _, checker):
        me, code, _mine = _play_a_few_moves(client, checker, 1)
        for bogus in ("ZZZZZZ", "YYYYYY", "XXXXXX"):
            client.get(f"/api/tables/{bogus}")
        text = _scrape(client).text
        samples = _samples(text)
        assert _value(samples, "seep_rate_limit_refusals_total", kind="unknown_codes") == 2
        for (_, labels), _v in samples.items():
            for key, value in labels:
                if key == "le":
                    float(value)  # a bucket's bound
                    continue
                assert key in CLOSED_LABELS and value in CLOSED_LABELS[key], (key, value)
        for secret in (code, "Asha", "testclient", "127.0.0.1", "ZZZZZZ"):
            assert secret not in text
        me.close()


def test_each_limit_counts_its_own_kind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SEEP_MAX_LOBBY_PER_MINUTE", "1")
    monkeypatch.setenv("SEEP_MAX_SOCKETS_PER_CLIENT_TABLE", "1")
    with web_client(tmp_path, max_tables_per_minute=1) as (client, _, checker):
        made = create_table(client)
        assert client.post("/api/tables", json={"name": "Bela"}).status_code == 429
        assert [client.get("/api/lobby").status_code for _ in range(2)] == [200, 429]
        me = Player(client, checker, made["code"], made["token"])
        with client.websocket_connect(f"/ws/{made['code']}") as second:
            assert second.receive_json()["code"] == "too_many_connections"
        for _ in range(30):  # past the socket's 20 messages a second
            me.send({"type": "ping"})
        me.until(lambda m: m["type"] == "error" and m["code"] == "rate_limited")
        samples = _samples(_scrape(client).text)
        counts = {
            kind: _value(samples, "seep_rate_limit_refusals_total", kind=kind)
            for kind in REFUSAL_KINDS
        }
        assert counts["new_tables"] == counts["lobby"] == counts["sockets"] == 1
        assert counts["messages"] >= 1
        assert counts["other"] == counts["metrics"] == counts["logins"] == 0
        me.close()


def test_loopback_reads_them_and_an_outside_client_behind_the_proxy_does_not(
    tmp_path: Path,
) -> None:
    with web_client(tmp_path, trusted_proxies="127.0.0.1") as (client, _, _):
        assert _scrape(client).status_code == 200
        assert _scrape(client, peer=("::1", 9090)).status_code == 200
        refused = _scrape(client, peer=OUTSIDE)
        assert refused.status_code == 404 and refused.json()["error"]["code"] == "not_found"
        assert client.get("/metrics").status_code == 404  # TestClient's peer is no address
        # Behind HAProxy on this machine every peer is loopback: the client it names counts.
        proxied = _scrape(client, peer=("127.0.0.1", 5000), **{"X-Forwarded-For": "203.0.113.5"})
        assert proxied.status_code == 404
        # A forged loopback address on the left is read past: HAProxy appends the real one.
        forged = _scrape(client, **{"X-Forwarded-For": "127.0.0.1, 203.0.113.5"})
        assert forged.status_code == 404
        # A scraper on this machine through the proxy is local.
        assert _scrape(client, **{"X-Forwarded-For": "127.0.0.1"}).status_code == 200
    # A proxy the operator did not name: the request says it was forwarded, so no address
    # can be believed, not even the loopback peer's.
    with web_client(tmp_path / "b") as (client, _, _):
        assert _scrape(client).status_code == 200
        assert _scrape(client, **{"X-Forwarded-For": "203.0.113.5"}).status_code == 404
        assert _scrape(client, **{"Forwarded": "for=203.0.113.5"}).status_code == 404


def test_configured_networks_and_the_bearer_token(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SEEP_METRICS_NETWORKS", "203.0.113.0/24, 2001:db8:1::/48")
    monkeypatch.setenv("SEEP_METRICS_TOKEN", TOKEN)
    with web_client(tmp_path, trusted_proxies="127.0.0.1") as (client, _, _):
        assert _scrape(client, peer=OUTSIDE).status_code == 200
        assert _scrape(client, peer=("2001:db8:1:5::9", 1)).status_code == 200
        assert _scrape(client, peer=("198.51.100.1", 1)).status_code == 404
        via_proxy = {"X-Forwarded-For": "203.0.113.77"}
        assert _scrape(client, **via_proxy).status_code == 200
        stranger = ("198.51.100.1", 1)
        ok = _scrape(client, peer=stranger, Authorization=f"Bearer {TOKEN}")
        assert ok.status_code == 200 and "seep_moves_total" in ok.text
        assert _scrape(client, peer=stranger, Authorization=f"bearer {TOKEN}").status_code == 200
        for wrong in (f"Bearer {TOKEN}x", f"Bearer {TOKEN[:-1]}", f"Basic {TOKEN}", "Bearer "):
            assert _scrape(client, peer=stranger, Authorization=wrong).status_code == 404, wrong
        # The token admits through any proxy too (the scraper is elsewhere).
        forwarded = {"X-Forwarded-For": "198.51.100.1", "Authorization": f"Bearer {TOKEN}"}
        assert _scrape(client, **forwarded).status_code == 200


def test_bad_settings_stop_the_server_with_a_sentence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"sqlite:///{tmp_path / 'seep.db'}"
    monkeypatch.setenv("SEEP_METRICS_NETWORKS", "10.0.0.0/8, prometheus")
    with pytest.raises(SystemExit, match="SEEP_METRICS_NETWORKS: 'prometheus' is not"):
        create_app(url)
    monkeypatch.delenv("SEEP_METRICS_NETWORKS")
    monkeypatch.setenv("SEEP_METRICS_TOKEN", "short")
    with pytest.raises(SystemExit, match="SEEP_METRICS_TOKEN must be 16") as err:
        create_app(url)
    assert "short" not in str(err.value)  # a secret is never printed, even a bad one
    monkeypatch.setenv("SEEP_METRICS_TOKEN", TOKEN)
    assert create_app(url).state.metrics is not None  # a good one builds


def test_scrapes_are_limited_per_client_and_not_in_the_openapi(tmp_path: Path) -> None:
    with web_client(tmp_path, dev=True) as (client, manager, _):
        assert "/metrics" not in client.get("/openapi.json").json()["paths"]
        local = TestClient(client.app, client=LOCAL)
        codes = [local.get("/metrics").status_code for _ in range(METRICS_PER_MINUTE + 1)]
        assert codes == [200] * METRICS_PER_MINUTE + [429]
        assert manager.metrics.refusals["metrics"] == 1


def test_the_metrics_objects_keep_their_label_sets_closed_and_the_store_unhammered() -> None:
    now = [100.0]
    metrics = Metrics(clock=lambda: now[0])
    reads: list[int] = []

    def totals() -> tuple[int, int]:
        reads.append(1)
        if len(reads) == 3:
            raise RuntimeError("the database is away")
        return (7, len(reads))

    metrics.watch(tables=dict, connections=lambda: 0, pool=lambda: (0, 0), totals=totals)
    metrics.refused("a kind nobody wrote")
    metrics.thought("ismcts", 0.1)
    metrics.thought("${jndi}", 0.1)
    assert metrics.refusals["other"] == 1

    async def scrape_many() -> None:
        await asyncio.gather(*(metrics.refresh() for _ in range(20)))

    asyncio.run(scrape_many())
    assert len(reads) == 1  # twenty scrapes, one read
    now[0] += 5
    asyncio.run(scrape_many())
    assert len(reads) == 1
    now[0] += 10
    asyncio.run(scrape_many())
    now[0] += 10
    asyncio.run(scrape_many())  # this read fails: the last figures stay
    samples = _samples(metrics.exposition().decode())
    assert len(reads) == 3
    assert _value(samples, "seep_rated_matches") == 2 and _value(samples, "seep_accounts") == 7
    assert _value(samples, "seep_bot_think_seconds_count", difficulty="other") == 2
    assert "jndi" not in metrics.exposition().decode()


def test_a_histograms_buckets_hold_their_bounds_as_prometheus_reads_them() -> None:
    h = LoopHistogram([0.1, 1.0])
    for value in (0.1, 0.5, 1.0, 2.0, 0.0):
        h.observe(value)
    assert h.buckets() == [("0.1", 2), ("1.0", 4), ("+Inf", 5)]  # le: at most the bound
    assert h.total == pytest.approx(3.6)


def _promtool() -> str:
    found = shutil.which("promtool")
    if found is None:
        why = "promtool is missing (apt-get install prometheus)"
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI must check the metrics with promtool: {why}")
        pytest.skip(why)
    return found


def test_promtool_finds_nothing_to_complain_about(tmp_path: Path) -> None:
    promtool = _promtool()
    with web_client(tmp_path) as (client, _, checker):
        me, _code, _mine = _play_a_few_moves(client, checker, 2)
        text = _scrape(client).text
        me.close()
    done = subprocess.run(
        [promtool, "check", "metrics"], input=text, capture_output=True, text=True, timeout=60
    )
    # promtool prints each problem (a bad name, a counter without _total, a missing HELP) and
    # exits 1 on an error; a lint's complaint alone leaves the status 0, so any output fails.
    assert done.returncode == 0 and not (done.stdout + done.stderr).strip(), (
        done.stdout + done.stderr
    )


def test_lease_hand_overs_are_counted_both_ways(tmp_path: Path) -> None:
    """Two instances on one SQLite file: a table's first claim is no hand-over; losing it to
    another instance is one out, and taking it back after that one's lease ran out one in."""
    from seep.web.store import Store

    url = f"sqlite:///{tmp_path / 'seep.db'}"
    app = create_app(url, bot_delay=0.002, instance_id="a", lease_seconds=30)
    with TestClient(app) as client:
        manager = app.state.manager
        made = client.post("/api/tables", json={"name": "A", "bots": "easy"}).json()
        code = made["code"]
        assert client.get(f"/api/tables/{code}").status_code == 200  # claimed: a holds it
        assert code in manager.tables
        assert manager.metrics.handovers == {"in": 0, "out": 0}
        other = Store(url, owner="b")
        assert other.take_lease(code, 0.2, time.time() + 60).taken  # b took it over
        with client.websocket_connect(f"/ws/{code}") as ws:
            ws.send_json({"type": "hello", "token": made["token"]})
            ws.send_json({"type": "start"})  # a's write is refused: the table leaves a
            while ws.receive_json().get("code") != "moved":
                pass
        assert code not in manager.tables
        assert manager.metrics.handovers == {"in": 0, "out": 1}
        assert other.take_lease(code, 0.2).taken  # b's lease now runs out in 0.2 s
        other.close()
        time.sleep(0.3)
        assert client.get(f"/api/tables/{code}").status_code == 200  # a takes it back
        assert code in manager.tables
        samples = _samples(_scrape(client).text)
        assert _value(samples, "seep_lease_handovers_total", direction="in") == 1
        assert _value(samples, "seep_lease_handovers_total", direction="out") == 1
