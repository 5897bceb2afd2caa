"""``seep db`` (docs/deploy.md "Upgrading" and "Backups"): the schema's revisions by command,
``seep serve``'s own upgrade of SQLite and its refusal of a shared database whose schema is
behind, and a backup taken mid-match while the server runs, restored into a new server that
finishes the match."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("uvicorn")
httpx = pytest.importorskip("httpx")
ws_client = pytest.importorskip("websockets.sync.client")

from seep.web import migrations  # noqa: E402
from seep.web.app import create_app  # noqa: E402
from seep.web.database import BadDatabase, shown_url  # noqa: E402
from seep.web.store import Store  # noqa: E402
from seepkit.server import free_port, serve  # noqa: E402


def seep_db(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "seep", "db", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ, **(env or {})),
    )


def revision_of(db: Path) -> str:
    con = sqlite3.connect(db)
    try:
        return str(con.execute("SELECT version_num FROM alembic_version").fetchone()[0])
    finally:
        con.close()


def test_the_schema_by_command_up_down_and_back(tmp_path: Path) -> None:
    db = tmp_path / "seep.db"
    url = f"sqlite:///{db}"
    missing = seep_db("current", "--database-url", url)
    assert missing.returncode == 1 and f"there is no database at {db}" in missing.stderr
    assert "Traceback" not in missing.stderr

    up = seep_db("upgrade", "--database-url", url)
    assert up.returncode == 0, up.stderr
    head = migrations.head()
    assert f"upgraded from none to {head}" in up.stdout and revision_of(db) == head
    again = seep_db("upgrade", "--database-url", url)
    assert again.returncode == 0 and f"already at {head}" in again.stdout
    assert f"{head} (the newest)" in seep_db("current", "--database-url", url).stdout

    history = seep_db("history").stdout.split()
    assert history == migrations.revisions() and history[-1] == head

    down = seep_db("downgrade", "-1", "--database-url", url)
    assert down.returncode == 0, down.stderr
    assert revision_of(db) == history[-2]
    behind = seep_db("current", "--database-url", url).stdout
    assert "1 revision(s) behind" in behind and "seep db upgrade" in behind

    # A shared database whose schema is behind is refused, naming the command to run...
    with pytest.raises(BadDatabase, match=r"1 schema revision\(s\) behind.*seep db upgrade"):
        create_app(url, upgrade_schema=False)
    # ...while the embedded SQLite database is upgraded by the server itself.
    app = create_app(url)
    app.state.manager.shutdown()
    assert revision_of(db) == head

    bad = seep_db("downgrade", "nonsense", "--database-url", url)
    assert bad.returncode == 1 and "cannot downgrade to 'nonsense'" in bad.stderr
    assert revision_of(db) == head


def test_a_database_from_a_newer_release_is_refused_by_name(tmp_path: Path) -> None:
    db = tmp_path / "seep.db"
    url = f"sqlite:///{db}"
    Store(url).close()
    con = sqlite3.connect(db)
    con.execute("UPDATE alembic_version SET version_num = '9999_from_the_future'")
    con.commit()
    con.close()
    with pytest.raises(BadDatabase, match=r"9999_from_the_future.*newer release"):
        Store(url)
    served = subprocess.run(
        [sys.executable, "-m", "seep", "serve", "--database-url", url, "--port", "1"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert served.returncode == 1 and "newer release" in served.stderr
    assert "Traceback" not in served.stderr
    upgrade = seep_db("upgrade", "--database-url", url)
    assert upgrade.returncode == 1 and "newer release" in upgrade.stderr
    assert "unknown to this release" in seep_db("current", "--database-url", url).stdout


def test_a_database_url_is_shown_without_its_password() -> None:
    shown = shown_url("postgresql+psycopg://seep:hunter2@db.example:5432/seep")
    assert "hunter2" not in shown and "db.example" in shown
    assert "hunter2" not in shown_url("hunter2 is not a URL")


PG_URL = os.environ.get("SEEP_TEST_POSTGRES_URL")


@pytest.mark.skipif(not PG_URL, reason="SEEP_TEST_POSTGRES_URL names no PostgreSQL database")
def test_seep_serve_refuses_a_postgresql_schema_behind_and_seep_db_upgrades_it(
    tmp_path: Path,
) -> None:
    pytest.importorskip("psycopg")
    assert PG_URL is not None
    up = seep_db("upgrade", "--database-url", PG_URL)
    assert up.returncode == 0, up.stderr
    down = seep_db("downgrade", "-1", "--database-url", PG_URL)
    assert down.returncode == 0, down.stderr
    try:
        served = subprocess.run(
            [sys.executable, "-m", "seep", "serve", "--database-url", PG_URL, "--port", "1"],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert served.returncode == 1, served.stderr
        assert "behind" in served.stderr and "seep db upgrade" in served.stderr
        assert "Traceback" not in served.stderr
    finally:
        up = seep_db("upgrade", "--database-url", PG_URL)
    assert up.returncode == 0 and f"to {migrations.head()}" in up.stdout


# --- backup and restore ----------------------------------------------------------------------


def _recv_state(ws: Any, pred: Any = None) -> dict[str, Any]:
    while True:
        msg: dict[str, Any] = json.loads(ws.recv(timeout=10))
        if msg["type"] == "state" and (pred is None or pred(msg)):
            return msg


def _move(ws: Any, msg: dict[str, Any], rng: random.Random) -> None:
    mv = rng.choice(msg["legal"])
    ws.send(json.dumps({"type": "move", "move": mv, "version": msg["version"]}))


def test_a_backup_taken_mid_match_finishes_the_match_in_a_new_server(tmp_path: Path) -> None:
    live = tmp_path / "live.db"
    backup = tmp_path / "backups" / "mid-match.db"
    restored = tmp_path / "restored" / "seep.db"
    rng = random.Random(11)
    args = ["--bot-delay", "0.01"]
    env = {"SEEP_GRACE_SECONDS": "30"}
    ready = "GET /api/tables/NONE"
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with serve(
        tmp_path, "--database-url", f"sqlite:///{live}", *args, env=env, port=port, ready=ready
    ) as served:
        made = httpx.post(f"{base}/api/tables", json={"name": "Asha", "bots": "easy", "deals": 1})
        made.raise_for_status()
        code, token = made.json()["code"], made.json()["token"]
        hello = json.dumps({"type": "hello", "token": token})
        with ws_client.connect(f"ws://127.0.0.1:{port}/ws/{code}") as ws:
            ws.send(hello)
            _recv_state(ws, lambda m: m["seat"] == 0)
            ws.send(json.dumps({"type": "start"}))
            for _ in range(3):
                _move(ws, _recv_state(ws, lambda m: bool(m["legal"])), rng)
            at_backup = _recv_state(ws, lambda m: bool(m["legal"]))  # my turn: the table waits
            # The backup while the server runs and holds the table.
            took = seep_db("backup", str(backup), "--database-url", f"sqlite:///{live}")
            assert took.returncode == 0, took.stderr
            assert f"backed up to {backup}" in took.stdout
            # Play goes on after the backup: those moves are not in it.
            _move(ws, at_backup, rng)
            after = _recv_state(ws, lambda m: bool(m["legal"]))
            assert len(after["view"]["history"]) > len(at_backup["view"]["history"])
        served.proc.send_signal(signal.SIGKILL)
        served.proc.wait(10)
    assert seep_db("backup", str(backup), "--database-url", f"sqlite:///{live}").returncode == 1

    put = seep_db("restore", str(backup), "--database-url", f"sqlite:///{restored}")
    assert put.returncode == 0, put.stderr
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with serve(
        tmp_path, "--database-url", f"sqlite:///{restored}", *args, env=env, port=port, ready=ready
    ):
        assert httpx.get(f"{base}/api/tables/{code}").json()["status"] == "playing"
        with ws_client.connect(f"ws://127.0.0.1:{port}/ws/{code}") as ws:
            ws.send(hello)
            msg = _recv_state(ws, lambda m: m["seat"] is not None)
            # The seat token still works, and the deal stands where the backup caught it.
            assert msg["seat"] == 0
            assert msg["view"]["history"] == at_backup["view"]["history"]
            assert msg["view"]["hands"][0] == at_backup["view"]["hands"][0]
            while msg["summary"] is None:
                if msg["legal"]:
                    _move(ws, msg, rng)
                msg = _recv_state(ws)
            # The deal's summary: the match (one deal) ends when its player moves on.
            ws.send(json.dumps({"type": "next"}))
            _recv_state(ws, lambda m: m["table"]["status"] == "finished")
        table = httpx.get(f"{base}/api/tables/{code}").json()
        assert table["status"] == "finished"
        record = httpx.get(f"{base}/api/tables/{code}/record").json()
        moves = record["deals"][0]["moves"]
        assert moves[: len(at_backup["view"]["history"])] == at_backup["view"]["history"]

    # Restoring over a database keeps the one it replaces, whole.
    again = seep_db("restore", str(backup), "--database-url", f"sqlite:///{restored}")
    assert again.returncode == 0 and "is kept as" in again.stdout
    kept = next(restored.parent.glob("seep.db.before-restore-*"))
    con = sqlite3.connect(kept)
    try:
        status = con.execute("SELECT status FROM tables WHERE code = ?", (code,)).fetchone()[0]
    finally:
        con.close()
    assert status == "finished"


def test_a_backup_refuses_what_is_not_a_seep_database(tmp_path: Path) -> None:
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not a database at all")
    target = f"sqlite:///{tmp_path / 'seep.db'}"
    done = seep_db("restore", str(junk), "--database-url", target)
    assert done.returncode == 1 and "not an SQLite database" in done.stderr
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.commit()
    done = seep_db("restore", str(other), "--database-url", target)
    assert done.returncode == 1 and "not a seep database backup" in done.stderr
    assert not (tmp_path / "seep.db").exists()


@pytest.mark.skipif(not PG_URL, reason="SEEP_TEST_POSTGRES_URL names no PostgreSQL database")
def test_two_upgraders_at_once_take_turns_on_postgresql() -> None:
    """Two ``seep db upgrade`` at the same moment on an empty database (an operator and a
    deploy script, say): the advisory lock lets one upgrade while the other waits, then finds
    nothing left to do."""
    pytest.importorskip("psycopg")
    assert PG_URL is not None
    assert seep_db("upgrade", "--database-url", PG_URL).returncode == 0
    base = seep_db("downgrade", "base", "--database-url", PG_URL)
    assert base.returncode == 0, base.stderr
    try:
        cmd = [sys.executable, "-m", "seep", "db", "upgrade", "--database-url", PG_URL]
        procs = [
            subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for _ in range(2)
        ]
        outs = [p.communicate(timeout=120) for p in procs]
        assert [p.returncode for p in procs] == [0, 0], outs
        said = sorted(out for out, _ in outs)
        head = migrations.head()
        assert f"already at {head}" in said[0] and f"upgraded from none to {head}" in said[1]
    finally:
        assert seep_db("upgrade", "--database-url", PG_URL).returncode == 0


@pytest.mark.skipif(not PG_URL, reason="SEEP_TEST_POSTGRES_URL names no PostgreSQL database")
def test_a_postgresql_backup_restores_into_another_database(tmp_path: Path) -> None:
    """``seep db backup`` and ``restore`` on PostgreSQL run pg_dump and pg_restore (the password,
    if any, in their environment, never on their command line)."""
    pytest.importorskip("psycopg")
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    assert PG_URL is not None
    if not (shutil.which("pg_dump") and shutil.which("pg_restore")):
        if os.environ.get("CI"):
            pytest.fail("pg_dump and pg_restore are missing (Debian: postgresql-client)")
        pytest.skip("pg_dump and pg_restore are missing")
    assert seep_db("upgrade", "--database-url", PG_URL).returncode == 0
    store = Store(PG_URL)
    try:
        with store.engine.begin() as c:
            c.execute(text("DELETE FROM accounts WHERE name = 'Backed Up'"))
            c.execute(
                text(
                    "INSERT INTO accounts (name, name_key, password_hash, created)"
                    " VALUES ('Backed Up', 'backed up', 'x', 0)"
                )
            )
    finally:
        store.close()
    dump = tmp_path / "seep.dump"
    took = seep_db("backup", str(dump), "--database-url", PG_URL)
    assert took.returncode == 0 and "pg_dump" in took.stdout, took.stderr
    other = make_url(PG_URL).set(database="seep_restore_test")
    admin = create_engine(PG_URL, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as c:
            c.execute(text("DROP DATABASE IF EXISTS seep_restore_test"))
            c.execute(text("CREATE DATABASE seep_restore_test"))
        other_url = other.render_as_string(hide_password=False)
        put = seep_db("restore", str(dump), "--database-url", other_url)
        assert put.returncode == 0, put.stderr
        restored = Store(other_url, upgrade=False)  # at the newest revision already
        try:
            with restored.engine.connect() as c:
                names = c.execute(text("SELECT name FROM accounts")).scalars().all()
            assert "Backed Up" in names
        finally:
            restored.close()
    finally:
        with admin.connect() as c:
            c.execute(text("DROP DATABASE IF EXISTS seep_restore_test"))
        admin.dispose()
