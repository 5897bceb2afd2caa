"""A table's life (docs/web.md "Lifecycle"): waiting tables nobody comes to close, abandoned
games close and keep their finished deals, finished tables leave memory, a deal summary does
not wait for ever, a spectator never wakes a paused table, SQLite's log stays bounded, and
start-up reads only the live tables.

The waits are the real ones, set very short through the environment."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import event, func, insert, select

from seep.session import replay_record
from seep.web.database import WAL_LIMIT_BYTES
from seep.web.store import Store, moves_t, tables_t
from seep.web.tables import Table, TableManager
from seepkit.server import free_port
from seepkit.web import Player, create_table, deal_over, my_turn, until_playing, web_client

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def _wait_for(pred: Callable[[], bool], seconds: float = 20.0) -> None:
    deadline = time.time() + seconds
    while not pred():
        assert time.time() < deadline, "it never happened"
        time.sleep(0.02)


def _summary_waiting(msg: dict[str, Any]) -> bool:
    return deal_over(msg) and msg["table"]["status"] == "playing"


def test_waiting_table_nobody_comes_to_closes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SEEP_WAITING_TABLE_MINUTES", "0.01")  # 0.6 s
    with web_client(tmp_path) as (client, manager, checker):
        left = create_table(client)["code"]
        kept = create_table(client)
        watcher = Player(client, checker, kept["code"], kept["token"])
        watcher.recv()
        _wait_for(lambda: left not in manager.tables)
        summary = client.get(f"/api/tables/{left}").json()
        assert summary["status"] == "closed"
        r = client.get(f"/api/tables/{left}/record")
        assert r.status_code == 409 and "before it started" in r.json()["error"]["message"]
        with client.websocket_connect(f"/ws/{left}") as ws:
            err = ws.receive_json()
            assert err["code"] == "table_over" and "closed" in err["message"]
        r = client.post(f"/api/tables/{left}/join", json={"name": "Ravi"})
        assert r.status_code == 404
        # Someone is at the other table: it stays open however long he waits.
        time.sleep(1.0)
        assert kept["code"] in manager.tables
        watcher.close()


def test_abandoned_game_closes_and_keeps_its_finished_deals(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SEEP_ABANDONED_HOURS", "0.0003")  # about 1 s
    rng = random.Random(2)
    with web_client(tmp_path, grace_seconds=0.05) as (client, manager, checker):
        manager.rate_limit = 1000
        made = create_table(client, deals=3)
        code = made["code"]
        p = Player(client, checker, code, made["token"])
        p.recv()
        p.send({"type": "start"})
        until_playing(p, _summary_waiting, rng)
        p.send({"type": "next"})
        msg = until_playing(p, lambda m: my_turn(m) and m["match"]["deals"] == 1, rng)
        p.send({"type": "move", "move": rng.choice(msg["legal"]), "version": msg["version"]})
        # The move is counted once the table has made it, which its next state shows (reading
        # the count straight after sending raced with the server).
        p.until(lambda m: m["type"] == "state" and m["version"] > msg["version"])
        played = manager.get(code).moves_made
        # A spectator does not keep a started game open.
        spectator = Player(client, checker, code)
        spectator.recv()
        p.close()
        closed = spectator.until(
            lambda m: m["type"] == "state" and m["table"]["status"] == "closed"
        )
        assert closed["table"]["code"] == code
        _wait_for(lambda: code not in manager.tables)
        assert client.get(f"/api/tables/{code}").json()["status"] == "closed"
        record = client.get(f"/api/tables/{code}/record").json()
        assert len(record["deals"]) == 1 and "result" in record["deals"][0]
        assert len(list(replay_record(record))) == 1 + len(record["deals"][0]["moves"])
        assert client.get(f"/api/tables/{code}/replay").status_code == 200
        # Nothing a player played is deleted: every move stays in the database.
        with manager.store.engine.connect() as c:
            stored = c.execute(
                select(func.count()).select_from(moves_t).where(moves_t.c.code == code)
            ).scalar()
        assert stored >= played > len(record["deals"][0]["moves"])
        # And a restart does not bring it back.
        assert all(t["code"] != code for t in manager.store.load_unfinished())
        spectator.close()


def test_finished_table_leaves_memory(tmp_path: Path) -> None:
    rng = random.Random(3)
    with web_client(tmp_path) as (client, manager, checker):
        manager.rate_limit = 1000
        made = create_table(client, deals=1)
        code = made["code"]
        p = Player(client, checker, code, made["token"])
        p.recv()
        p.send({"type": "start"})
        until_playing(p, _summary_waiting, rng)
        p.send({"type": "next"})
        p.until(lambda m: m["type"] == "state" and m["table"]["status"] == "finished")
        assert code in manager.tables  # its player still looks at the final scores
        p.close()
        _wait_for(lambda: code not in manager.tables and code not in manager.conns)
        assert client.get(f"/api/tables/{code}").json()["status"] == "finished"
        assert len(client.get(f"/api/tables/{code}/record").json()["deals"]) == 1
        with client.websocket_connect(f"/ws/{code}") as ws:
            err = ws.receive_json()
            assert err["code"] == "table_over" and f"/replay/{code}" in err["message"]


def test_a_summary_does_not_wait_for_ever(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SEEP_READY_SECONDS", "0.3")
    rng = random.Random(4)
    with web_client(tmp_path) as (client, manager, checker):
        manager.rate_limit = 1000
        made = create_table(client, deals=3)
        code = made["code"]
        joined = client.post(f"/api/tables/{code}/join", json={"name": "Ravi"}).json()
        manager.get(code).settings["turn_seconds"] = 0.2  # the clock plays for the idle guest
        host = Player(client, checker, code, made["token"])
        guest = Player(client, checker, code, joined["token"])  # here, and never says "next"
        host.recv()
        guest.recv()
        host.send({"type": "start"})
        until_playing(host, _summary_waiting, rng)
        host.send({"type": "next"})
        ready = host.until(lambda m: deal_over(m) and m["summary"]["ready"] == [0])
        assert ready["summary"]["deal"] == 1 and ready["table"]["status"] == "playing"
        # The next deal starts without the guest's "next".
        nxt = host.until(lambda m: m["type"] == "state" and m["summary"] is None)
        assert nxt["match"]["deals"] == 1
        assert manager.get(code).seats[1].connections == 1
        guest.close()
        # Alone, nobody says "next" at all: the match goes on just the same.
        until_playing(host, lambda m: _summary_waiting(m) and m["summary"]["deal"] == 2, rng)
        host.until(lambda m: m["type"] == "state" and m["match"]["deals"] == 2 and not m["summary"])
        host.close()


def test_a_spectator_never_wakes_a_paused_table(tmp_path: Path) -> None:
    with web_client(tmp_path, grace_seconds=0.05, bot_delay=0.01) as (client, manager, checker):
        made = create_table(client, deals=1)
        code = made["code"]
        p = Player(client, checker, code, made["token"])
        p.recv()
        p.send({"type": "start"})
        p.until(my_turn)
        p.close()
        table = manager.get(code)
        _wait_for(lambda: table.seats[0].away)
        spectator = Player(client, checker, code)
        first = spectator.recv()
        time.sleep(0.5)  # fifty bot delays: nothing moves for a spectator
        assert table.to_move == 0 and len(table.history) == len(first["view"]["history"])
        assert code not in manager._drivers
        spectator.close()
        # The player comes back: the seat is his, and so is the move.
        q = Player(client, checker, code, made["token"])
        assert my_turn(q.until(lambda m: m["type"] == "state" and m["seat"] == 0))
        q.close()


def test_the_sqlite_log_stays_bounded(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'seep.db'}")
    wal = tmp_path / "seep.db-wal"
    table = Table("WALTST", {"bots": "easy"}, 1)
    store.create_table(table)
    move = {"action": "throw", "card": "9C", "seat": 0}
    # A burst far beyond what the checkpoints keep up with (a flood of moves or tables).
    for seq in range(8000):
        store.add_move(table, seq, move, seq)
    burst = wal.stat().st_size
    assert burst > WAL_LIMIT_BYTES
    # A checkpoint lets the log start over, and it is cut back to the limit...
    store.checkpoint()
    store.add_move(table, 8000, move, 8000)
    assert wal.stat().st_size <= WAL_LIMIT_BYTES
    # ...and stays under it while the checkpoints run as the server runs them.
    sizes = []
    for seq in range(8001, 14001):
        store.add_move(table, seq, move, seq)
        if seq % 200 == 0:
            store.checkpoint("RESTART")
            sizes.append(wal.stat().st_size)
    print(f"WAL: burst {burst} bytes, then at most {max(sizes)} (limit {WAL_LIMIT_BYTES})")
    assert max(sizes) <= WAL_LIMIT_BYTES
    store.checkpoint("TRUNCATE")
    assert wal.stat().st_size == 0
    store.close()


def _log_sizes_under_writes(store: Store, wal: Path, mode: str, seconds: float) -> list[int]:
    """The log's size after each checkpoint of ``mode``, run every 0.1 s while another thread
    writes a move every half millisecond or so, as the server's loop does under load."""
    table = Table("WALRUN", {"bots": "easy"}, 1)
    store.create_table(table)
    move = {"action": "throw", "card": "9C", "seat": 0}
    stop = threading.Event()
    refused: list[Exception] = []

    def write() -> None:
        seq = 0
        while not stop.is_set():
            try:
                store.add_move(table, seq, move, seq)
            except Exception as exc:  # a move the server could not store
                refused.append(exc)
            seq += 1
            time.sleep(0.0005)

    writer = threading.Thread(target=write)
    writer.start()
    sizes = []
    try:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            time.sleep(0.1)
            store.checkpoint(mode)
            sizes.append(wal.stat().st_size)
    finally:
        stop.set()
        writer.join()
    assert not refused
    return sizes


def test_the_sqlite_log_starts_over_while_moves_are_written(tmp_path: Path) -> None:
    # A PASSIVE checkpoint never lets the log start over while a writer keeps writing: under
    # 600 tables it grew 12 MB a second, and emptying it held every write past its timeout.
    # The server's RESTART checkpoints keep it to about what is written between two of them.
    passive = Store(f"sqlite:///{tmp_path / 'passive.db'}")
    grown = _log_sizes_under_writes(passive, tmp_path / "passive.db-wal", "PASSIVE", 1.5)
    passive.close()
    restarted = Store(f"sqlite:///{tmp_path / 'restart.db'}")
    kept = _log_sizes_under_writes(restarted, tmp_path / "restart.db-wal", "RESTART", 1.5)
    restarted.close()
    print(f"log after 1.5 s of writes: PASSIVE {grown[-1]} bytes, RESTART at most {max(kept)}")
    assert grown == sorted(grown) and grown[-1] > 4 * max(kept)


def _fill_closed(store: Store, n: int) -> None:
    """``n`` closed tables, each with a one-deal record and its moves, in a few bulk inserts."""
    seats = json.dumps([{"name": "A", "kind": "human", "token_hash": "0" * 64}] * 4)
    record = json.dumps({"format": "seep/1", "deals": [{"moves": ["x"] * 48}]})
    settings = json.dumps({"bots": "easy", "preset": "standard"})
    move = json.dumps({"action": "throw", "card": "9C", "seat": 0})
    rows = [
        {
            "code": f"C{i:06d}",
            "settings": settings,
            "seed": "1",
            "status": "closed" if i % 2 else "finished",
            "host": 0,
            "seats": seats,
            "version": 60,
            "created": 0.0,
            "record": record,
        }
        for i in range(n)
    ]
    with store.engine.begin() as c:
        c.execute(insert(tables_t), rows)
        c.execute(
            insert(moves_t),
            [{"code": r["code"], "seq": s, "move": move} for r in rows for s in range(48)],
        )


def test_start_up_reads_only_live_tables(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'seep.db'}"
    store = Store(url)
    _fill_closed(store, 10_000)
    live = TableManager(store)
    waiting = live.create({"name": "W"})["code"]
    store.close()
    # The live tables' rows are read through the status index, never by a scan of them all.
    store = Store(url)
    statements: list[tuple[str, Any]] = []

    def seen(conn: Any, cursor: Any, statement: str, params: Any, *_: Any) -> None:
        statements.append((statement, params))

    event.listen(store.engine, "before_cursor_execute", seen)
    rows = store.load_unfinished()
    event.remove(store.engine, "before_cursor_execute", seen)
    assert [r["code"] for r in rows] == [waiting]
    assert len(statements) == 2  # the tables, then all their moves: no query per table
    with store.engine.connect() as c:
        for statement, params in statements:
            plan = " | ".join(
                str(r[-1]) for r in c.exec_driver_sql(f"EXPLAIN QUERY PLAN {statement}", params)
            )
            assert "ix_tables_status" in plan and "SCAN tables" not in plan, plan
    store.close()
    with web_client(tmp_path) as (client, manager, _):
        assert client.get(f"/api/tables/{waiting}").json()["status"] == "waiting"
        assert list(manager.tables) == [waiting]
    # The figure docs/web.md quotes (printed, not asserted): a `seep serve` process started
    # on this database, until it answers.
    port = free_port()
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "seep", "serve", "--port", str(port), "--database-url", url],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        while True:
            try:
                httpx.get(f"http://127.0.0.1:{port}/api/tables/{waiting}", timeout=1)
                break
            except httpx.TransportError:
                assert proc.poll() is None and time.perf_counter() - t0 < 60
                time.sleep(0.02)
        ready = time.perf_counter() - t0
    finally:
        proc.terminate()
        proc.wait(10)
    print(f"\nseep serve ready in {ready:.2f} s beside 10,000 closed tables (480,000 moves)")


def test_a_truncating_checkpoint_says_when_a_reader_held_it_back(tmp_path: Path) -> None:
    """What an account's erasure waits for (Accounts.delete tries again while it is busy): a
    reader on an older snapshot keeps the log's frames, and the checkpoint says so."""
    import sqlite3

    store = Store(f"sqlite:///{tmp_path / 'seep.db'}")
    wal = tmp_path / "seep.db-wal"
    table = Table("WALRDR", {"bots": "easy"}, 1)
    store.create_table(table)
    move = {"action": "throw", "card": "9C", "seat": 0}
    store.add_move(table, 0, move, 0)
    reader = sqlite3.connect(tmp_path / "seep.db", isolation_level=None)
    reader.execute("BEGIN")
    assert reader.execute("SELECT count(*) FROM moves").fetchone() == (1,)  # its snapshot
    store.add_move(table, 1, move, 1)
    assert store.checkpoint("TRUNCATE") is False
    assert wal.stat().st_size > 0
    reader.execute("COMMIT")
    reader.close()
    assert store.checkpoint("TRUNCATE") is True
    assert wal.stat().st_size == 0
    store.close()
