"""Write a database as an earlier release of seep wrote it, for the upgrade tests
(tests/web/test_web_migrations.py). Run it with that release's source first on the path:

    git worktree add /tmp/seep-old c610f1b
    PYTHONPATH=/tmp/seep-old/src .venv/bin/python tests/data/databases/make_old_database.py \
        tests/data/databases/c610f1b.db

It drives that release's own web app (HTTP and WebSocket, as a browser does), so every row is
written by that release's store: a waiting table with a joined player, a table mid-deal, and a
finished one-deal match. Beside the database it writes ``<name>.json``: each table's code,
status and seat tokens, and the row counts, which the tests hold the upgraded database to.
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from seep.web.app import create_app
from seep.web.tables import TableManager


def _hello(client: TestClient, code: str, token: str) -> Any:
    """A socket in the token's seat: the ``hello`` handshake, or the token in the URL where an
    older release took it there (before the token left URLs)."""
    if not hasattr(TableManager, "hello"):
        cm = client.websocket_connect(f"/ws/{code}?token={token}")
        return cm, cm.__enter__()
    cm = client.websocket_connect(f"/ws/{code}")
    ws = cm.__enter__()
    ws.receive_json()  # every socket starts as a spectator's
    ws.send_json({"type": "hello", "token": token})
    return cm, ws


def _state(ws: Any) -> dict[str, Any]:
    while True:
        msg: dict[str, Any] = ws.receive_json()
        if msg["type"] == "state":
            return msg


def _play(ws: Any, state: dict[str, Any]) -> dict[str, Any]:
    """Play the first legal move offered (the seat's turn), and return the next state."""
    ws.send_json({"type": "move", "move": state["legal"][0], "version": state["version"]})
    return _state(ws)


def main(out: Path) -> None:
    for stale in (out, out.with_suffix(".json")):
        stale.unlink(missing_ok=True)
    os.environ.setdefault("SEEP_GRACE_SECONDS", "600")
    app = create_app(f"sqlite:///{out}", bot_delay=0.0)
    tables: list[dict[str, Any]] = []
    with TestClient(app) as client:
        # A waiting table with a joined player.
        made = client.post("/api/tables", json={"name": "Asha", "deals": 2}).json()
        joined = client.post(f"/api/tables/{made['code']}/join", json={"name": "Ravi"}).json()
        tables.append(
            {
                "code": made["code"],
                "status": "waiting",
                "tokens": {str(made["seat"]): made["token"], str(joined["seat"]): joined["token"]},
            }
        )
        # A table mid-deal: the host against bots, a few of his moves made.
        made = client.post("/api/tables", json={"name": "Mira", "deals": 3}).json()
        cm, ws = _hello(client, made["code"], made["token"])
        ws.send_json({"type": "start"})
        state, played = _state(ws), 0
        while played < 3:
            if state["legal"]:
                state, played = _play(ws, state), played + 1
            else:
                state = _state(ws)
        cm.__exit__(None, None, None)
        tables.append(
            {
                "code": made["code"],
                "status": "playing",
                "tokens": {str(made["seat"]): made["token"]},
            }
        )
        # A finished one-deal match.
        made = client.post("/api/tables", json={"name": "Dev", "deals": 1}).json()
        cm, ws = _hello(client, made["code"], made["token"])
        ws.send_json({"type": "start"})
        state = _state(ws)
        while state["table"]["status"] != "finished":
            if state["legal"]:
                state = _play(ws, state)
            else:
                if state.get("summary") is not None:
                    ws.send_json({"type": "next"})  # releases that wait for it to finish
                state = _state(ws)
        cm.__exit__(None, None, None)
        tables.append(
            {
                "code": made["code"],
                "status": "finished",
                "tokens": {str(made["seat"]): made["token"]},
            }
        )
    db = sqlite3.connect(out)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # one self-contained file
    counts = {
        name: db.execute(f"SELECT count(*) FROM {name}").fetchone()[0]
        for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
    }
    db.execute("PRAGMA journal_mode = DELETE")
    db.close()
    info = {"tables": tables, "rows": counts}
    out.with_suffix(".json").write_text(json.dumps(info, indent=1) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
