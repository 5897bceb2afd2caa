"""A server restart (docs/web.md "Persistence and restarts"): a real ``seep serve`` process on a
free port and a temporary SQLite file is killed mid-deal and started again; the player
reconnects with his token and finishes the same deal at the same table.

The test runs on SQLite, and also on PostgreSQL when ``SEEP_TEST_POSTGRES_URL`` names a
database (for example ``postgresql+psycopg://seep@127.0.0.1/seep_test``; needs the ``postgres``
extra), whose schema ``seep db upgrade`` brings up first, as an operator does."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("uvicorn")
httpx = pytest.importorskip("httpx")
ws_client = pytest.importorskip("websockets.sync.client")

from seepkit.server import free_port, serve  # noqa: E402


@contextmanager
def _server(tmp: Path, url: str, port: int) -> Iterator[subprocess.Popen[bytes]]:
    args = ["--database-url", url, "--bot-delay", "0.01"]
    env = {"SEEP_GRACE_SECONDS": "30"}
    ready = "GET /api/tables/NONE"
    with serve(tmp, *args, env=env, port=port, ready=ready, stop=signal.SIGKILL) as served:
        yield served.proc


def _recv_state(ws: Any, pred: Any = None) -> dict[str, Any]:
    while True:
        msg: dict[str, Any] = json.loads(ws.recv(timeout=10))
        if msg["type"] == "state" and (pred is None or pred(msg)):
            return msg


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'seep.db'}"
    url = os.environ.get("SEEP_TEST_POSTGRES_URL")
    if not url:
        pytest.skip("SEEP_TEST_POSTGRES_URL is not set")
    # A shared database's schema is the operator's to upgrade, before the servers start.
    cmd = [sys.executable, "-m", "seep", "db", "upgrade", "--database-url", url]
    subprocess.run(cmd, check=True, capture_output=True, timeout=120)
    return url


def test_restart_resumes_the_table(database_url: str, tmp_path: Path) -> None:
    db = database_url
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    rng = random.Random(5)
    with _server(tmp_path, db, port) as proc:
        made = httpx.post(f"{base}/api/tables", json={"name": "Asha", "bots": "easy", "deals": 1})
        made.raise_for_status()
        code, token = made.json()["code"], made.json()["token"]
        url = f"ws://127.0.0.1:{port}/ws/{code}"
        hello = json.dumps({"type": "hello", "token": token})
        with ws_client.connect(url) as ws:
            ws.send(hello)
            _recv_state(ws, lambda m: m["seat"] == 0)
            ws.send(json.dumps({"type": "start"}))
            for _ in range(4):
                msg = _recv_state(ws, lambda m: bool(m["legal"]))
                mv = rng.choice(msg["legal"])
                ws.send(json.dumps({"type": "move", "move": mv, "version": msg["version"]}))
            seen = _recv_state(ws, lambda m: bool(m["legal"]))  # my turn: the table waits
        # Killed without warning: only what the database holds survives.
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    before = seen["view"]["history"]
    # Our 4 moves at least (a bot's redeal, R14, starts the deal's history again).
    assert len(before) >= 4
    with _server(tmp_path, db, port):
        summary = httpx.get(f"{base}/api/tables/{code}").json()
        assert summary["status"] == "playing"
        assert summary["seats"][0]["connected"] is False
        with ws_client.connect(url) as ws:
            ws.send(hello)
            msg = _recv_state(ws, lambda m: m["seat"] is not None)
            assert msg["seat"] == 0 and msg["view"]["history"] == before
            assert msg["view"]["hands"][0] == seen["view"]["hands"][0]
            assert msg["legal"] == seen["legal"] and msg["version"] > seen["version"]
            while msg["summary"] is None:
                if msg["legal"]:
                    mv = rng.choice(msg["legal"])
                    ws.send(json.dumps({"type": "move", "move": mv, "version": msg["version"]}))
                msg = _recv_state(ws)
            assert len(msg["view"]["history"]) >= 49
        record = httpx.get(f"{base}/api/tables/{code}/record").json()
        assert record["deals"][0]["moves"][: len(before)] == before
