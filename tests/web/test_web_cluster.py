"""Several ``seep serve`` instances on one PostgreSQL behind HAProxy (docs/deploy.md).

The leases and the unique move key are tested on the store itself (two Store objects racing);
then a real cluster (deploy/cluster.py: a throwaway PostgreSQL, three instances, HAProxy) plays
40 tables of WebSocket clients, loses one instance to SIGKILL mid-deal, and every table must
still finish its deal with no move lost or doubled.

Needs PostgreSQL's server programs and ``haproxy``: without them the tests are skipped, except
under ``CI=true`` (.ci/run installs both), where they fail.
"""

from __future__ import annotations

import asyncio
import importlib.util
import itertools
import json
import os
import random
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

pytest.importorskip("fastapi")
sqlalchemy = pytest.importorskip("sqlalchemy")
httpx = pytest.importorskip("httpx")
ws_client = pytest.importorskip("websockets.asyncio.client")
ws_exceptions = pytest.importorskip("websockets.exceptions")

from seep.session import replay_record  # noqa: E402
from seep.web.schema import rating_changes_t  # noqa: E402
from seep.web.store import Store, StoreConflict, leases_t, moves_t, tables_t  # noqa: E402
from seep.web.tables import Table, parse_settings  # noqa: E402


def _load_cluster() -> ModuleType:
    path = Path(__file__).resolve().parents[2] / "deploy" / "cluster.py"
    spec = importlib.util.spec_from_file_location("seep_deploy_cluster", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


cluster_mod = _load_cluster()


def _need(programs: list[str]) -> None:
    missing = [p for p in cluster_mod.missing_programs() if p.split()[0] in programs]
    if missing:
        why = f"missing {', '.join(missing)} (apt-get install postgresql haproxy)"
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI must run the cluster tests: {why}")
        pytest.skip(why)


@pytest.fixture(scope="module")
def postgres() -> Iterator[Any]:
    """One throwaway PostgreSQL server for this module; each test makes its own database."""
    _need(["initdb", "pg_ctl", "psycopg"])
    pg = cluster_mod.start_postgres()
    try:
        yield pg
    finally:
        pg.stop()


def _database(pg: Any, name: str) -> str:
    import psycopg

    with psycopg.connect(
        host="127.0.0.1", port=pg.port, user="seep", dbname="postgres", autocommit=True
    ) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return f"postgresql+psycopg://seep@127.0.0.1:{pg.port}/{name}"


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'seep.db'}"
    pg = request.getfixturevalue("postgres")
    return _database(pg, f"unit_{request.node.name.split('[')[0][-20:]}_{os.getpid()}")


# --- the store: leases and the move key -------------------------------------------------------


def _table(code: str) -> Table:
    return Table(code, parse_settings({"bots": "easy"}), 12345)


def _move(seq: int) -> dict[str, Any]:
    return {"seat": seq % 4, "bid": 9}  # the store keeps moves as given


def _race(n: int, attempt: Callable[[int], Any]) -> list[Any]:
    """Run ``attempt(i)`` in ``n`` threads released at the same moment; their results (an
    exception counts as a result)."""
    barrier = threading.Barrier(n)
    results: list[Any] = [None] * n

    def run(i: int) -> None:
        barrier.wait()
        try:
            results[i] = attempt(i)
        except Exception as exc:
            results[i] = exc

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    return results


def test_a_lease_has_one_holder_and_turns_other_writers_away(db_url: str) -> None:
    a, b = Store(db_url, owner="a"), Store(db_url, owner="b")
    try:
        table = _table("LEASE1")
        a.create_table(table)
        now = time.time()
        assert a.take_lease("LEASE1", 30, now).taken
        refused = b.take_lease("LEASE1", 30, now + 1)
        assert not refused.taken and refused.owner == "a"
        # b asked for it: a's heartbeat hears so.
        assert a.renew_leases(["LEASE1"], 30, now + 2) == ({"LEASE1"}, {"LEASE1"})
        a.add_move(table, 0, _move(0), 1)
        with pytest.raises(StoreConflict):  # b does not hold the table
            b.add_move(table, 1, _move(1), 2)
        with pytest.raises(StoreConflict):
            b.save_table(table)
        # a stops renewing (it died): once its lease has run out, b takes it.
        assert not b.take_lease("LEASE1", 30, now + 20).taken
        assert b.take_lease("LEASE1", 30, now + 40).taken
        assert a.renew_leases(["LEASE1"], 30, now + 41) == (set(), set())
        with pytest.raises(StoreConflict):  # a woke up: its next move is turned away
            a.add_move(table, 1, _move(1), 2)
        with pytest.raises(StoreConflict):  # the key: move 0 is stored already
            b.add_move(table, 0, _move(0), 2)
        b.add_move(table, 1, _move(1), 2)
        assert a.running("LEASE1") and a.count_running() == 1
        b.release_lease("LEASE1")
        assert a.take_lease("LEASE1", 30, now + 42).taken
        with a.engine.connect() as c:
            seqs = c.execute(
                sqlalchemy.select(moves_t.c.seq).where(moves_t.c.code == "LEASE1")
            ).all()
        assert [r.seq for r in seqs] == [0, 1]
    finally:
        a.close()
        b.close()


def test_a_group_commit_refuses_only_the_moves_it_must(db_url: str) -> None:
    """Many tables' moves in one transaction (seep.web.group_commit): a move stored already
    and a move of a table another instance holds are refused, each alone; the others are
    stored once. PostgreSQL aborts a transaction at its first error, SQLite does not: both
    must come out the same."""
    a, b = Store(db_url, owner="a"), Store(db_url, owner="b")
    try:
        now = time.time()
        for code, store in (("GCA", a), ("GCB", b), ("GCC", a), ("GCD", a)):
            store.create_table(_table(code))
            assert store.take_lease(code, 30, now).taken
        a.add_move(_table("GCA"), 0, _move(0), 1)
        outcomes = a.write_moves(
            [
                ("GCC", 0, _move(0), 1),
                ("GCA", 0, _move(9), 2),  # stored already
                ("GCB", 0, _move(0), 1),  # b holds it
                ("GCD", 0, _move(0), 1),
            ]
        )
        assert [type(o).__name__ if o else None for o in outcomes] == [
            None,
            "StoreConflict",
            "StoreConflict",
            None,
        ]
        assert "already stored" in str(outcomes[1]) and "another instance" in str(outcomes[2])
        # All at once when nothing is wrong: each stored once, in one transaction.
        assert a.write_moves([("GCC", 1, _move(1), 2), ("GCD", 1, _move(1), 2)]) == [None, None]
        with a.engine.connect() as c:
            rows = c.execute(
                sqlalchemy.select(moves_t.c.code, moves_t.c.seq, moves_t.c.move).order_by(
                    moves_t.c.code, moves_t.c.seq
                )
            ).all()
            versions = dict(c.execute(sqlalchemy.select(tables_t.c.code, tables_t.c.version)).all())
        assert [(r.code, r.seq) for r in rows] == [
            ("GCA", 0),
            ("GCC", 0),
            ("GCC", 1),
            ("GCD", 0),
            ("GCD", 1),
        ]
        assert json.loads(rows[0].move) == _move(0)  # the first write of GCA's move 0 stands
        assert versions["GCC"] == versions["GCD"] == 2 and versions["GCB"] == 0
    finally:
        a.close()
        b.close()


def _take_all(stores: list[Store], code: str, at: float | None) -> list[Any]:
    return _race(len(stores), lambda i: stores[i].take_lease(code, 30, at).taken)


def _write_all(stores: list[Store], code: str) -> list[Any]:
    return _race(len(stores), lambda i: stores[i].add_move(_table(code), 0, _move(i), 1))


def test_racing_instances_one_wins(db_url: str) -> None:
    n = 6
    stores = [Store(db_url, owner=f"i{i}") for i in range(n)]
    twins = [Store(db_url, owner="same") for _ in range(n)]  # one id started twice by mistake
    try:
        # Table creation: one code, one table.
        made = _race(n, lambda i: stores[i].create_table(_table("RACE1")))
        assert sum(r is None for r in made) == 1
        assert all(isinstance(r, StoreConflict) for r in made if r is not None)
        for round_ in range(3):
            code = f"RACE{round_ + 2}"
            stores[0].create_table(_table(code))
            # Taking a free lease: exactly one holder.
            taken = _take_all(stores, code, None)
            assert taken.count(True) == 1, taken
            # Taking an expired lease: exactly one new holder.
            later = time.time() + 60
            taken = _take_all(stores, code, later)
            assert taken.count(True) == 1, taken
            # Two writers of one move number under one id: the key keeps one.
            twins[0].take_lease(code, 300, later + 60)
            written = _write_all(twins, code)
            assert sum(r is None for r in written) == 1, written
            assert all(isinstance(r, StoreConflict) for r in written if r is not None)
    finally:
        for s in stores + twins:
            s.close()


def test_matches_of_one_player_ending_at_once_on_several_instances_all_count(
    postgres: Any,
) -> None:
    """Six instances end six rated matches of one player at the same moment: each transaction
    reads his rating and writes it back, so without a lock the later writes would undo the
    earlier. Every match counts, each starting from the rating the one before left, in the
    order of the match ids (the order a recomputation reads them in)."""
    pytest.importorskip("openskill")
    from seep.web.ratings import RatedMatch, Rating

    n = 6
    url = _database(postgres, f"rating_race_{os.getpid()}")
    stores = [Store(url, owner=f"i{i}") for i in range(n)]
    try:
        account = stores[0].create_account("Rani", "rani", "not a real hash").id
        for i in range(n):
            stores[0].create_table(_table(f"RATE{i}"))

        def end(i: int) -> None:
            match = RatedMatch("two", (account, None), "easy", i % 2)
            with stores[i].engine.begin() as c:
                assert stores[i]._rate(c, f"RATE{i}", match)

        assert _race(n, end) == [None] * n
        final = stores[0].ratings_of(account)["two"]
        assert final.games == n
        with stores[0].engine.connect() as c:
            rows = c.execute(
                sqlalchemy.select(rating_changes_t)
                .where(rating_changes_t.c.account == account)
                .order_by(rating_changes_t.c.match)
            ).all()
        chain = [(Rating().mu, Rating().sigma)]
        for r in rows:
            assert (r.mu_before, r.sigma_before) == chain[-1]
            chain.append((r.mu_after, r.sigma_after))
        assert chain[-1] == (final.mu, final.sigma) and len(rows) == n
    finally:
        for s in stores:
            s.close()


def test_an_instance_that_lost_a_table_drops_it_and_its_players_reconnect(
    tmp_path: Path,
) -> None:
    from fastapi.testclient import TestClient
    from starlette.websockets import WebSocketDisconnect

    from seep.web.app import create_app

    url = f"sqlite:///{tmp_path / 'seep.db'}"
    app = create_app(url, bot_delay=0.002, instance_id="a", lease_seconds=30)
    with TestClient(app) as client:
        manager = app.state.manager
        made = client.post("/api/tables", json={"name": "A", "bots": "easy"}).json()
        code = made["code"]
        assert code not in manager.tables  # created, not held: its owner loads it
        with client.websocket_connect(f"/ws/{code}") as ws:
            ws.send_json({"type": "hello", "token": made["token"]})
            while ws.receive_json()["seat"] != 0:
                pass
            assert code in manager.tables
            ws.send_json({"type": "start"})
            msg = ws.receive_json()
            while not msg.get("legal"):
                msg = ws.receive_json()
            # Instance b takes the table over (a's lease ran out without a noticing).
            other = Store(url, owner="b")
            assert other.take_lease(code, 30, time.time() + 60).taken
            other.close()
            ws.send_json({"type": "move", "move": msg["legal"][0], "version": msg["version"]})
            while msg.get("type") != "error":
                msg = ws.receive_json()
            assert msg["code"] == "moved"
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_json()
            assert closed.value.code == 1012
        assert code not in manager.tables
        with manager.store.engine.connect() as c:
            seqs = [
                r.seq for r in c.execute(sqlalchemy.select(moves_t).where(moves_t.c.code == code))
            ]
        assert seqs == list(range(len(seqs)))  # nothing written after the lease was lost
        # The table is b's now: a's request waits for it, then gives up with a clear 503.
        manager.lease_seconds = 0.4
        r = client.get(f"/api/tables/{code}")
        assert r.status_code == 503 and r.json()["error"]["code"] == "unavailable"


def test_the_lobby_lists_the_open_tables_of_every_instance(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each instance holds only its own tables (and a new one none until its players come),
    so the lobby and quick match read the stored waiting tables: a player on instance b sees
    (and quick match seats him at) the public table made on instance a, never a private one,
    never a seat's token or its hash."""
    from fastapi.testclient import TestClient

    import seep.web.lobby as lobby_mod
    from seep.web.app import create_app

    monkeypatch.setattr(lobby_mod, "LOBBY_REFRESH_SECONDS", 0.0)
    url = f"sqlite:///{tmp_path / 'seep.db'}"
    app_a = create_app(url, bot_delay=0.002, instance_id="a", lease_seconds=30)
    app_b = create_app(url, bot_delay=0.002, instance_id="b", lease_seconds=30)
    with TestClient(app_a) as a, TestClient(app_b) as b:
        public = a.post("/api/tables", json={"name": "Asha", "public": True}).json()
        private = a.post("/api/tables", json={"name": "Ravi"}).json()
        two = a.post(
            "/api/tables", json={"name": "Meena", "public": True, "preset": "two_player"}
        ).json()
        answer = b.get("/api/lobby")
        assert answer.status_code == 200
        listed = {t["code"]: t for t in answer.json()["tables"]}
        assert set(listed) == {public["code"], two["code"]}
        assert listed[public["code"]]["free"] == 3
        assert listed[public["code"]]["seats"][0]["name"] == "Asha"
        assert listed[two["code"]]["free"] == 1 and len(listed[two["code"]]["seats"]) == 2
        text = answer.text
        for made in (public, private, two):
            assert made["token"] not in text
        assert "token" not in text and private["code"] not in text
        # A seat taken through b (b claims the table) shows on a's lobby too.
        joined = b.post(f"/api/tables/{public['code']}/join", json={"name": "Dev"})
        assert joined.status_code == 200, joined.text
        listed = {t["code"]: t for t in a.get("/api/lobby").json()["tables"]}
        assert listed[public["code"]]["free"] == 2
        # b holds the table now: its lobby lists it while its host's socket is there (issue 23
        # item 5), as the proxy sends the table's sockets to b.
        with b.websocket_connect(f"/ws/{public['code']}") as host:
            host.send_json({"type": "hello", "token": public["token"]})
            while True:
                msg = host.receive_json()
                if msg["type"] == "state" and msg.get("seat") == 0:
                    break
            # Quick match on b finds the two-player table made on a: the player sits there, and
            # the full table leaves every lobby.
            quick = b.post("/api/quick", json={"name": "Dev", "preset": "two_player"})
            assert quick.status_code == 200, quick.text
            assert quick.json()["code"] == two["code"] and quick.json()["seat"] == 1
            for client in (a, b):
                codes = {t["code"] for t in client.get("/api/lobby").json()["tables"]}
                assert codes == {public["code"]}


# --- a cluster behind HAProxy ---------------------------------------------------------------

TABLES = 40
BOT_DELAY = 0.08
LEASE_SECONDS = 3.0
# One test client opens every table: no per-address limits (0 turns one off), and a grace
# period that outlasts an instance's loss.
ONE_CLIENT_EVERYWHERE = {
    "SEEP_MAX_TABLES_PER_MINUTE": "0",
    "SEEP_MAX_OPEN_TABLES_PER_CLIENT": "0",
    "SEEP_MAX_SOCKETS_PER_CLIENT": "0",
    "SEEP_MESSAGE_BUDGET": "0",
    "SEEP_GRACE_SECONDS": "60",
}


async def connect(base: str, code: str, token: str) -> Any:
    """A player's WebSocket to a table, his seat claimed by the hello handshake."""
    ws = await ws_client.connect(f"{base}/ws/{code}", open_timeout=20, max_size=1 << 20)
    await ws.send(json.dumps({"type": "hello", "token": token}))
    return ws


class Client:
    """One table's human (seat 0; the other seats are easy bots): starts, plays random legal
    moves, sends ``next`` after the deal, and reconnects whenever its socket closes."""

    def __init__(self, base: str, code: str, token: str, seed: int) -> None:
        self.base, self.code, self.token = base, code, token
        self.rng = random.Random(seed)
        self.sessions = 0
        self.moves_seen: list[dict[str, Any]] = []  # the deal's history, as last seen
        self.final: list[dict[str, Any]] | None = None  # the history at the deal's end
        self.finished = False
        self.errors: list[dict[str, Any]] = []
        self.lost_at: float | None = None  # when a socket closed under the player
        self.gap = 0.0  # the longest time from a lost socket to a state again
        self.hold: asyncio.Event | None = None  # given: the deal's end waits for it to be set
        self.trace: deque[str] = deque(maxlen=12)  # the last messages, for a failure's report

    async def run(self, deadline: float) -> None:
        while not self.finished:
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"table {self.code} did not finish: {len(self.moves_seen)} moves seen, "
                    f"{self.sessions} sessions, last messages {list(self.trace)}"
                )
            try:
                ws = await connect(self.base, self.code, self.token)
            except (TimeoutError, OSError, ws_exceptions.WebSocketException):
                await asyncio.sleep(0.2)  # a refused attempt is not a session
                continue
            self.sessions += 1
            try:
                await self._session(ws)
            except ws_exceptions.ConnectionClosed:
                pass
            finally:
                await ws.close()
            self.lost_at = time.monotonic()

    async def _session(self, ws: Any) -> None:
        asked: set[int] = set()  # the versions answered (a state may come twice)
        started = False
        async for raw in ws:
            msg = json.loads(raw)
            self.trace.append(_summed_up(msg))
            if msg["type"] == "error":
                if msg["code"] == "table_over":
                    # Finished by an instance that died before its last state reached me:
                    # the survivor, which never held the table, has only its record.
                    self.finished = True
                    return
                if msg["code"] not in ("moved", "stale", "not_your_turn", "not_allowed"):
                    self.errors.append(msg)
                continue
            if msg["type"] != "state" or msg["seat"] != 0:
                continue
            if self.lost_at is not None:
                self.gap = max(self.gap, time.monotonic() - self.lost_at)
                self.lost_at = None
            status = msg["table"]["status"]
            if status == "finished":
                self.finished = True
                return
            if status == "waiting":
                if not started:
                    started = True
                    await ws.send(json.dumps({"type": "start"}))
                continue
            history = msg["view"]["history"] if msg["view"] else []
            self._saw(msg, history)
            version = msg["version"]
            if msg["summary"] is not None:
                self._ended(msg, history)
                if self.hold is not None:
                    await self.hold.wait()
                if version not in asked:
                    asked.add(version)
                    await ws.send(json.dumps({"type": "next"}))
            elif msg["legal"] and version not in asked:
                asked.add(version)
                await asyncio.sleep(self.rng.uniform(0.02, 0.08))
                mv = self.rng.choice(msg["legal"])
                await ws.send(json.dumps({"type": "move", "move": mv, "version": version}))

    def _saw(self, msg: dict[str, Any], history: list[dict[str, Any]]) -> None:
        # No move a player has seen is ever lost, even across an instance's death.
        assert history[: len(self.moves_seen)] == self.moves_seen, (self.code, history)
        self.moves_seen = history

    def _ended(self, msg: dict[str, Any], history: list[dict[str, Any]]) -> None:
        self.final = history


def _summed_up(msg: dict[str, Any]) -> str:
    """A message in a few words: its type and what tells one state from another."""
    if msg["type"] == "error":
        return f"error {msg['code']}: {msg.get('message')}"
    if msg["type"] != "state":
        return str(msg["type"])
    table = msg["table"]
    return (
        f"state v{msg['version']} seat {msg.get('seat')} {table['status']}"
        f"{' summary' if msg.get('summary') else ''} legal {len(msg.get('legal') or [])}"
        f" ready {table.get('ready')}"
    )


async def _playing(
    clients: Sequence[Client], deadline: float, moves: int
) -> list[asyncio.Task[None]]:
    """Start every client's play, and return once each has seen ``moves`` moves of its
    deal (the tables are dealt and playing): the clients' tasks."""
    tasks = [asyncio.create_task(c.run(deadline)) for c in clients]
    while not all(len(c.moves_seen) >= moves for c in clients):
        if time.monotonic() > deadline:
            raise AssertionError("the tables did not start")
        await asyncio.sleep(0.05)
    return tasks


def _owners(db: Any) -> dict[str, str]:
    with db.connect() as c:
        return {r.code: r.owner for r in c.execute(sqlalchemy.select(leases_t)).all()}


def test_haproxy_holds_one_per_address_limit_for_the_whole_site(tmp_path: Path) -> None:
    """Each instance counts its own limits, and creation goes round robin while codes spread
    over the ring: two instances alone would allow twice the limits. HAProxy counts them once:
    the 11th table in a minute and the 31st unknown code are refused (429, the instances'
    JSON error) however the requests were spread."""
    import httpx

    _need(["haproxy"])
    db = f"sqlite:///{tmp_path / 'seep.db'}"
    Store(db).close()  # the schema first: on SQLite two instances starting at once would race
    cluster = cluster_mod.start_cluster(2, tmp_path, database_url=db, bot_delay=0.01)
    with cluster, httpx.Client(base_url=cluster.url, timeout=10) as http:
        made = [http.post("/api/tables", json={"name": "Asha"}) for _ in range(11)]
        assert [r.status_code for r in made[:10]] == [201] * 10, [r.text for r in made]
        assert made[10].status_code == 429
        assert made[10].json()["error"]["code"] == "rate_limited"
        assert made[10].headers["retry-after"] == "60"
        # Both instances made some of the ten: neither reached its own limit.
        codes = [r.json()["code"] for r in made[:10]]
        assert all(http.get(f"/api/tables/{c}").status_code == 200 for c in codes)
        misses = [http.get(f"/api/tables/ZZ{i:04d}").status_code for i in range(31)]
        assert misses == [404] * 30 + [429], misses
        # Past the limit every table lookup is refused, known codes too (so the refusals
        # say nothing about which codes exist).
        known = http.get(f"/api/tables/{codes[0]}")
        assert known.status_code == 429 and known.json()["error"]["code"] == "rate_limited"
        # Other requests still pass.
        assert http.get("/healthz").status_code == 200


def _three_instances(postgres: Any, tmp_path: Path, name: str) -> tuple[Any, Any]:
    """Three instances on database ``name`` behind HAProxy, and an engine on that database."""
    _need(["haproxy"])
    cluster = cluster_mod.start_cluster(
        3,
        tmp_path,
        database_url=_database(postgres, name),
        bot_delay=BOT_DELAY,
        lease_seconds=LEASE_SECONDS,
        env=ONE_CLIENT_EVERYWHERE,
    )
    return cluster, sqlalchemy.create_engine(cluster.database_url)


def _tables(cluster: Any, n: int, deals: int) -> list[tuple[str, str]]:
    """``n`` tables of a player against three easy bots, made through HAProxy: (code, token)."""
    with httpx.Client(base_url=cluster.url, timeout=20) as http:
        made = [
            http.post("/api/tables", json={"name": f"P{i}", "bots": "easy", "deals": deals})
            for i in range(n)
        ]
    for r in made:
        assert r.status_code == 201, r.text
    return [(r.json()["code"], r.json()["token"]) for r in made]


def _stored(db: Any, codes: list[str]) -> tuple[dict[str, Any], dict[str, list[Any]]]:
    """The stored rows of every table, and the stored moves of ``codes`` in order."""
    with db.connect() as c:
        rows = {r.code: r for r in c.execute(sqlalchemy.select(tables_t)).all()}
        stored: dict[str, list[Any]] = {code: [] for code in codes}
        order = (moves_t.c.code, moves_t.c.seq)
        for r in c.execute(sqlalchemy.select(moves_t).order_by(*order)).all():
            stored[r.code].append(r)
    return rows, stored


def test_three_instances_survive_one_killed_mid_deal(postgres: Any, tmp_path: Path) -> None:
    cluster, db = _three_instances(postgres, tmp_path, "cluster")
    try:
        tables = _tables(cluster, TABLES, deals=1)
        base = cluster.url.replace("http://", "ws://")
        clients = [Client(base, code, token, i) for i, (code, token) in enumerate(tables)]

        async def main() -> tuple[str, set[str]]:
            deadline = time.monotonic() + 120
            # Mid-deal: every table has been dealt and played a little.
            tasks = await _playing(clients, deadline, moves=8)
            owners = _owners(db)
            victim = max(cluster.instances, key=lambda i: list(owners.values()).count(i.id))
            mid_deal = {c.code for c in clients if c.final is None and owners[c.code] == victim.id}
            victim.kill()
            await asyncio.gather(*tasks)
            return victim.id, mid_deal

        started = time.monotonic()
        victim, mid_deal = asyncio.run(main())
        print(
            f"killed {victim} with {len(mid_deal)} of {TABLES} tables mid-deal; "
            f"sessions {sorted(c.sessions for c in clients)}; "
            f"longest wait for a state after the kill {max(c.gap for c in clients):.1f} s; "
            f"played in {time.monotonic() - started:.1f} s"
        )
        assert mid_deal, "no table was mid-deal on the killed instance"

        rows, stored = _stored(db, [code for code, _ in tables])
        owners = _owners(db)
        with httpx.Client(base_url=cluster.url, timeout=20) as http:
            for client in clients:
                code = client.code
                assert client.errors == [], client.errors
                assert rows[code].status == "finished"
                # The stored moves: numbered 0, 1, 2... with no gap (the key forbids doubles).
                seqs = [r.seq for r in stored[code]]
                assert seqs == list(range(len(seqs))) and len(seqs) >= 49, (code, seqs)
                moves = [json.loads(r.move) for r in stored[code]]
                # ...and exactly what the player saw.
                assert client.final == moves, code
                record = http.get(f"/api/tables/{code}/record").json()
                assert record["deals"][0]["moves"] == moves
                steps = list(replay_record(record))  # the engine checks every move and result
                assert len(steps) == len(moves) + 1
                # At most one reconnect; the killed instance's tables' players exactly one.
                assert client.sessions <= 2, (code, client.sessions)
                if code in mid_deal:
                    assert client.sessions == 2, code
                    assert owners.get(code) != victim, code

            # Hand-over: an instance asked directly for a table that another holds gets it at
            # the holder's next heartbeat; the holder's player is told to reconnect, and
            # through HAProxy he gets it back from the holder's instance.
            r = http.post("/api/tables", json={"name": "H", "bots": "easy"})
            code, token = r.json()["code"], r.json()["token"]

            async def handover() -> None:
                ws = await connect(base, code, token)
                while json.loads(await ws.recv())["seat"] != 0:
                    pass
                holder = _owners(db)[code]
                other = next(i for i in cluster.instances if i.id not in (holder, victim))
                got = await asyncio.to_thread(httpx.get, f"{other.url}/api/tables/{code}")
                assert got.status_code == 200 and _owners(db)[code] == other.id
                texts: list[dict[str, Any]] = []
                with pytest.raises(ws_exceptions.ConnectionClosed):
                    while True:
                        texts.append(json.loads(await ws.recv()))
                assert texts[-1]["code"] == "moved" and ws.close_code == 1012, texts
                again = await connect(base, code, token)
                while json.loads(await again.recv())["seat"] != 0:
                    pass
                assert _owners(db)[code] == holder
                await again.close()

            asyncio.run(handover())
    finally:
        db.dispose()
        cluster.stop()


class MatchClient(Client):
    """A :class:`Client` for a match of several deals: what he saw, deal by deal, and when
    each of his sessions began."""

    def __init__(self, base: str, code: str, token: str, seed: int) -> None:
        super().__init__(base, code, token, seed)
        self.seen: dict[int, list[dict[str, Any]]] = {}  # deal index -> its history
        self.finals: dict[int, list[dict[str, Any]]] = {}  # deal index -> history at its end
        self.session_starts: list[float] = []

    async def _session(self, ws: Any) -> None:
        self.session_starts.append(time.monotonic())
        await super()._session(ws)

    @staticmethod
    def _deal(msg: dict[str, Any]) -> int:
        """The deal on show: the finished deals before it (a summary counts its own)."""
        results = len(msg["match"]["history"])
        return results - 1 if msg["summary"] is not None else results

    def _saw(self, msg: dict[str, Any], history: list[dict[str, Any]]) -> None:
        deal = self._deal(msg)
        before = self.seen.get(deal, [])
        # No move a player has seen is ever lost, restarts or not.
        assert history[: len(before)] == before, (self.code, deal, history)
        self.seen[deal] = self.moves_seen = history

    def _ended(self, msg: dict[str, Any], history: list[dict[str, Any]]) -> None:
        self.finals[self._deal(msg)] = history


ROLLING_TABLES = 16


def test_a_rolling_restart_of_every_instance_loses_no_move(postgres: Any, tmp_path: Path) -> None:
    """Issue 26: the three instances restarted one after another (SIGTERM, started again
    under the same id, ready) while sixteen matches of several deals play. Each stopping
    instance turns readiness off, tells its sockets to reconnect (1012) and gives its leases
    back: every match finishes, every stored move is numbered without a gap and is exactly what
    its player saw, every record replays, and each player reconnects at most once a restart."""
    cluster, db = _three_instances(postgres, tmp_path, "rolling")
    try:
        tables = _tables(cluster, ROLLING_TABLES, deals=6)
        base = cluster.url.replace("http://", "ws://")
        clients = [MatchClient(base, code, token, i) for i, (code, token) in enumerate(tables)]
        restarts: list[tuple[str, float, float, int]] = []  # id, began, ready, tables it held

        async def main() -> None:
            deadline = time.monotonic() + 240
            tasks = await _playing(clients, deadline, moves=4)
            for inst in cluster.instances:
                held = list(_owners(db).values()).count(inst.id)
                began = time.monotonic()
                await asyncio.to_thread(inst.restart)
                restarts.append((inst.id, began, time.monotonic(), held))
            unfinished = [c.code for c in clients if not c.finished]
            assert unfinished, "every match ended before the last restart: play longer"
            await asyncio.gather(*tasks)

        started = time.monotonic()
        asyncio.run(main())
        sessions = sorted(len(c.session_starts) for c in clients)
        print(
            "restarts (instance, seconds to ready, tables it held): "
            f"{[(i, round(r - b, 1), n) for i, b, r, n in restarts]}; sessions {sessions}; "
            f"longest wait for a state after a lost socket {max(c.gap for c in clients):.1f} s;"
            f" played in {time.monotonic() - started:.1f} s"
        )
        assert all(n > 0 for *_, n in restarts), restarts  # each restart moved tables

        rows, stored = _stored(db, [code for code, _ in tables])
        bounds = [b for _, b, _, _ in restarts] + [float("inf")]
        with httpx.Client(base_url=cluster.url, timeout=20) as http:
            for client in clients:
                code = client.code
                assert client.errors == [], client.errors
                assert rows[code].status == "finished"
                seqs = [r.seq for r in stored[code]]
                assert seqs == list(range(len(seqs))), (code, seqs)
                record = http.get(f"/api/tables/{code}/record").json()
                deals = [d["moves"] for d in record["deals"]]
                # Every deal's moves: the stored ones, in order, and what the player saw.
                assert [m for d in deals for m in d] == [json.loads(r.move) for r in stored[code]]
                assert [client.finals.get(i) for i in range(len(deals))] == deals, code
                list(replay_record(record))  # the engine checks every move and result
                # At most one new session for each restart, none besides the first.
                later = client.session_starts[1:]
                for lo, hi in itertools.pairwise(bounds):
                    assert sum(lo <= t < hi for t in later) <= 1, (code, client.session_starts)
                assert all(t >= bounds[0] for t in later), code
    finally:
        db.dispose()
        cluster.stop()


RATED_TABLES = 8


def test_a_match_is_rated_once_when_its_instance_dies_as_it_ends(
    postgres: Any, tmp_path: Path
) -> None:
    """Issue 25: a rated match's ratings change in the transaction that ends it, exactly once,
    also when the instance holding it is killed at that moment. One account plays eight rated
    tables (easy bots) on two instances; each table's player waits at the end of its deal, then
    says 'next' on the tables of the instance to be killed, half of them a moment before the
    SIGKILL (their end may commit), half with it (their end is lost with the instance). Each
    player reconnects to the survivor and says 'next' again where the match is not over. Every
    table is rated once, and the account's rating is the one recomputed from the stored results."""
    from seep.web.store import Store
    from seepkit.ratings import recompute

    _need(["haproxy"])
    cluster = cluster_mod.start_cluster(
        2,
        tmp_path,
        database_url=_database(postgres, "rated"),
        bot_delay=0.02,
        lease_seconds=LEASE_SECONDS,
        env=ONE_CLIENT_EVERYWHERE,
    )
    db = sqlalchemy.create_engine(cluster.database_url)
    store = Store(cluster.database_url)
    try:
        with httpx.Client(base_url=cluster.url, timeout=20) as http:
            who = {"name": "Rani", "password": "a long password"}
            signed = http.post("/api/accounts", json=who)
            assert signed.status_code == 201, signed.text
            made = [
                http.post("/api/tables", json={"rated": True, "bots": "easy", "deals": 1})
                for _ in range(RATED_TABLES)
            ]
        for r in made:
            assert r.status_code == 201, r.text
        base = cluster.url.replace("http://", "ws://")
        clients = [Client(base, r.json()["code"], r.json()["token"], i) for i, r in enumerate(made)]

        async def main() -> tuple[str, list[str], list[str]]:
            holds = {c.code: asyncio.Event() for c in clients}
            for c in clients:
                c.hold = holds[c.code]
            deadline = time.monotonic() + 120
            tasks = [asyncio.create_task(c.run(deadline)) for c in clients]
            while not all(c.final is not None for c in clients):  # every deal over, held
                if time.monotonic() > deadline:
                    raise AssertionError("the deals did not end")
                await asyncio.sleep(0.05)
            owners = _owners(db)
            victim = max(cluster.instances, key=lambda i: list(owners.values()).count(i.id))
            doomed = [c for c in clients if owners[c.code] == victim.id]
            early, late = doomed[: len(doomed) // 2], doomed[len(doomed) // 2 :]
            for c in early:
                holds[c.code].set()
            await asyncio.sleep(0.05)
            for c in late:
                holds[c.code].set()
            await asyncio.sleep(0)  # their 'next' is on its way
            victim.kill()
            for event in holds.values():
                event.set()
            await asyncio.gather(*tasks)
            return victim.id, [c.code for c in early], [c.code for c in late]

        victim, early, late = asyncio.run(main())
        assert late, "no table of the killed instance was ending"
        with db.connect() as c:
            rows = {r.code: r for r in c.execute(sqlalchemy.select(tables_t)).all()}
        rated = list(store.rated_matches())
        by_code: dict[str, set[int]] = {}
        for row in rated:
            by_code.setdefault(row.code, set()).add(row.id)
        print(
            f"killed {victim} as {len(early) + len(late)} rated matches ended "
            f"({len(early)} a moment before); rated once each: "
            f"{sorted(len(v) for v in by_code.values())}"
        )
        for client in clients:
            assert client.errors == [], client.errors
            assert rows[client.code].status == "finished"
            assert len(by_code.get(client.code, ())) == 1, client.code  # rated, and once
        assert len(by_code) == RATED_TABLES
        again = recompute(rated)
        [(key, expected)] = again.items()  # one account, one format
        assert key[1] == "four"
        stored = store.ratings_of(key[0])["four"]
        assert stored.games == RATED_TABLES
        assert abs(stored.mu - expected[0]) < 1e-9 and abs(stored.sigma - expected[1]) < 1e-9
    finally:
        store.close()
        db.dispose()
        cluster.stop()
