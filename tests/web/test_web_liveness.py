"""Liveness after a failed write (issue 23 item 7): a move the database refuses (a full disk,
a lock) is retried with backoff, the players are told, nothing is lost or played twice, other
tables keep moving, one table's lock does not freeze the server, and /readyz says 503 while
the database cannot take writes."""

from __future__ import annotations

import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import event

from seep.web.routes.operations import READY_CACHE_SECONDS
from seepkit.server import serve
from seepkit.web import Player, create_table, my_turn, web_client

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


class DiskFull:
    """Makes the store's writes fail as a full disk does (every table's, or one table's)."""

    def __init__(self, store: Any) -> None:
        self.on = False
        self.code: str | None = None  # None: every write
        event.listen(store.engine, "before_cursor_execute", self._execute)
        # A move is written on the driver's cursor, past SQLAlchemy's events: refused there.
        moves = store._moves
        execute = moves.execute

        def refuse(raw: Any, params: Any) -> int:
            self._execute(None, None, "INSERT", params, None, None)
            return int(execute(raw, params))

        moves.execute = refuse
        execute_all = moves.execute_all

        def refuse_all(raw: Any, writes: Any) -> int:  # many tables' moves at once
            self._execute(None, None, "INSERT", writes, None, None)
            return int(execute_all(raw, writes))

        moves.execute_all = refuse_all

    def _execute(self, _c: Any, _cur: Any, stmt: str, params: Any, _ctx: Any, _m: Any) -> None:
        if not self.on or not stmt.lstrip().upper().startswith(("INSERT", "UPDATE", "DELETE")):
            return
        if self.code is None or self.code in repr(params):
            raise sqlite3.OperationalError("database or disk is full")


def _stored_moves(db: Path, code: str) -> list[int]:
    with sqlite3.connect(db) as c:
        return [r[0] for r in c.execute("SELECT seq FROM moves WHERE code=? ORDER BY seq", (code,))]


def _to_my_turn(p: Player) -> dict[str, Any]:
    return p.until(my_turn)


def test_a_refused_bot_move_is_retried_told_and_kept_once(tmp_path: Path) -> None:
    with web_client(tmp_path, bot_delay=0.3) as (client, manager, checker):
        disk = DiskFull(manager.store)  # type: ignore[union-attr]
        a, b = create_table(client), create_table(client)
        pa = Player(client, checker, a["code"], a["token"])
        pb = Player(client, checker, b["code"], b["token"])
        pa.recv(), pb.recv()
        pa.send({"type": "start"})
        pb.send({"type": "start"})
        assert client.get("/readyz").status_code == 200

        # A full disk: the player's own move is refused with a word, nothing is made.
        state = _to_my_turn(pa)
        disk.on = True
        time.sleep(READY_CACHE_SECONDS)  # one readiness answer serves every asker that long
        assert client.get("/readyz").status_code == 503
        move = {"type": "move", "move": state["legal"][0], "version": state["version"]}
        pa.send(move)
        refused = pa.error()
        assert refused["code"] == "store_unavailable"
        disk.on = False
        time.sleep(READY_CACHE_SECONDS)
        assert client.get("/readyz").status_code == 200
        pa.send(move)  # the same move again: taken now
        after = pa.until(lambda m: m["type"] == "state" and m["version"] > state["version"])
        assert len(after["view"]["history"]) == len(state["view"]["history"]) + 1
        while my_turn(after):  # a bid: the bidder makes the first play too (R16)
            pa.send({"type": "move", "move": after["legal"][0], "version": after["version"]})
            seen = after["version"]
            after = pa.until(lambda m, seen=seen: m["type"] == "state" and m["version"] > seen)

        # Table A's writes fail while its bot is about to move (bot_delay 0.3 s).
        disk.code, disk.on = a["code"], True
        told = pa.until(lambda m: m["type"] == "error")
        assert told["code"] == "store_retrying", told
        stuck = len(pa.state["view"]["history"]) if pa.state else 0
        # Table B keeps moving meanwhile: its bots play, and its player's moves are taken.
        start = len(((pb.state or {}).get("view") or {}).get("history", []))
        while True:
            msg = pb.recv()
            if my_turn(msg):
                pb.send({"type": "move", "move": msg["legal"][0], "version": msg["version"]})
            if msg["type"] == "state" and len((msg["view"] or {}).get("history", [])) >= start + 6:
                break
        assert len(_stored_moves(tmp_path / "seep.db", b["code"])) >= start + 6
        # Cleared: table A goes on by itself, with a word, its bot's move stored once.
        disk.on = False
        back = pa.until(lambda m: m["type"] == "error" and m["code"] == "store_recovered")
        assert back
        moved = pa.until(lambda m: m["type"] == "state" and len(m["view"]["history"]) > stuck)
        history = moved["view"]["history"]
        stored = _stored_moves(tmp_path / "seep.db", a["code"])
        assert stored == list(range(len(stored))) and len(stored) >= len(history)
        assert manager.tables[a["code"]].moves_made == len(stored)


@pytest.mark.skipif(sys.platform != "linux", reason="a real server on loopback")
def test_a_locked_database_is_not_ready_and_freezes_nobody(tmp_path: Path) -> None:
    """Against a real ``seep serve``: another connection holds SQLite's write lock. Readiness
    says 503 meanwhile, a table created then is refused with a clear 503 (not a 5 s hang and a
    traceback), the server keeps answering at once, and all is well once the lock goes."""
    db = tmp_path / "seep.db"
    with serve(tmp_path, "--database-url", f"sqlite:///{db}", log_name="server.log") as served:
        base, log = served.base, served.log
        json_body = {"headers": {"Content-Type": "application/json"}, "timeout": 10}
        assert httpx.get(base + "/readyz", timeout=5).status_code == 200
        locker = sqlite3.connect(db, isolation_level=None)
        locker.execute("BEGIN EXCLUSIVE")
        try:
            time.sleep(READY_CACHE_SECONDS)
            ready = httpx.get(base + "/readyz", timeout=5)
            assert ready.status_code == 503, ready.text
            assert "locked" in ready.json()["problem"]
            t0 = time.perf_counter()
            made = httpx.post(base + "/api/tables", content=b'{"name": "Asha"}', **json_body)
            took = time.perf_counter() - t0
            assert made.status_code == 503, made.text
            assert made.json()["error"]["code"] == "store_unavailable"
            assert took < 1.5, f"a write waited {took:.2f} s for the lock"
            t0 = time.perf_counter()
            assert httpx.get(base + "/healthz", timeout=5).status_code == 200
            assert time.perf_counter() - t0 < 0.5
        finally:
            locker.execute("ROLLBACK")
            locker.close()
        time.sleep(READY_CACHE_SECONDS)
        assert httpx.get(base + "/readyz", timeout=5).status_code == 200
        made = httpx.post(base + "/api/tables", content=b'{"name": "Asha"}', **json_body)
        assert made.status_code == 201, made.text
        assert "Traceback" not in log.read_text()


def test_a_sweep_on_a_full_disk_keeps_the_table_and_logs_a_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The sweeper closing an orphaned table on a full disk: the table stays as it was (open,
    its version unchanged), one warning line names it instead of a traceback every sweep, and
    the next sweep once the disk has room closes it."""
    monkeypatch.setenv("SEEP_ORPHAN_MINUTES", "10")
    now = [time.time()]
    with web_client(tmp_path) as (client, manager, checker):
        disk = DiskFull(manager.store)  # type: ignore[union-attr]
        manager.clock = lambda: now[0]
        made = create_table(client)
        p = Player(client, checker, made["code"], made["token"])
        p.recv()
        p.send({"type": "start"})
        p.until(lambda m: m["type"] == "state" and m["table"]["status"] == "playing")
        p.close()
        deadline = time.time() + 5
        while manager.get(made["code"]).seats[0].connections and time.time() < deadline:
            time.sleep(0.02)
        table = manager.get(made["code"])
        manager.sweep()  # nobody here: the clock starts
        now[0] += 11 * 60
        disk.on = True
        version = table.version
        with caplog.at_level("WARNING", logger="seep.web"):
            assert manager.sweep() == 0
            assert manager.sweep() == 0
        assert table.status == "playing" and table.version == version
        assert made["code"] in manager.tables
        lines = [r for r in caplog.records if made["code"] in r.getMessage()]
        assert len(lines) == 1 and lines[0].exc_info is None, lines
        disk.on = False
        assert manager.sweep() == 1
        assert client.get(f"/api/tables/{made['code']}").json()["status"] == "closed"
