"""``seep serve --log-format json`` (docs/deploy.md "Logs"): after a real server has served a
sign-up, a sign-in, a table played and chatted at over its socket, every line it wrote is one
JSON object with its time, level, logger and instance, the request or connection it was
written in and the table its path names; and no line holds a seat token, a session cookie, a
password or a chat line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

httpx = pytest.importorskip("httpx")
ws_client = pytest.importorskip("websockets.sync.client")

from seepkit.server import serve  # noqa: E402

PASSWORD = "a long passphrase 7731"
CHAT = "meet me at the old temple gate"


def _recv(ws: Any, pred: Any) -> dict[str, Any]:
    while True:
        msg: dict[str, Any] = json.loads(ws.recv(timeout=10))
        if pred(msg):
            return msg


def test_json_log_lines_name_their_request_and_table_and_no_secret(tmp_path: Path) -> None:
    env = {"SEEP_LOG_FORMAT": "json"}
    args = ["--database-url", f"sqlite:///{tmp_path / 'seep.db'}", "--instance-id", "s7"]
    args += ["--log-level", "info", "--bot-delay", "0.01"]
    with serve(tmp_path, *args, env=env, log_name="server.log") as served:
        base = served.base
        origin = {"Origin": base}
        with httpx.Client(base_url=base, headers=origin, timeout=10) as http:
            made = http.post("/api/accounts", json={"name": "Meera", "password": PASSWORD})
            assert made.status_code == 201, made.text
            cookie = http.cookies.get("seep_session") or next(iter(http.cookies.values()))
            assert http.post("/api/logout").status_code in (200, 204)
            signed = http.post("/api/login", json={"name": "Meera", "password": PASSWORD})
            assert signed.status_code == 200, signed.text
            cookies = [cookie, *http.cookies.values()]
            table = http.post("/api/tables", json={"bots": "easy", "deals": 1}).json()
        code, token = table["code"], table["token"]
        with ws_client.connect(
            f"ws://127.0.0.1:{served.port}/ws/{code}", additional_headers=origin
        ) as ws:
            ws.send(json.dumps({"type": "hello", "token": token}))
            _recv(ws, lambda m: m["type"] == "state" and m["seat"] == 0)
            ws.send(json.dumps({"type": "chat", "text": CHAT}))
            _recv(ws, lambda m: m["type"] == "chat")
            ws.send(json.dumps({"type": "start"}))
            state = _recv(ws, lambda m: m["type"] == "state" and bool(m["legal"]))
            move = {"type": "move", "move": state["legal"][0], "version": state["version"]}
            ws.send(json.dumps(move))
            _recv(ws, lambda m: m["type"] == "state" and m["version"] > state["version"])
        assert httpx.get(f"{base}/api/tables/{code}?token={token}").status_code == 200
        text = served.log_text()

    lines = [line for line in text.splitlines() if line.startswith("{")]
    # The two lines seep serve prints before logging starts are not log lines.
    assert all(line.startswith(("{", "Seep")) for line in text.splitlines()), text
    records = [json.loads(line) for line in lines]
    assert len(records) > 10
    for r in records:
        assert {"time", "level", "logger", "instance", "message"} <= r.keys(), r
        assert r["instance"] == "s7" and r["time"].endswith("Z")
    requests = [r for r in records if r.get("event") == "request"]
    assert {"/api/accounts", "/api/login", "/api/tables"} <= {r["path"] for r in requests}
    assert all(r["request"].startswith("r-") for r in requests)
    mine = [r for r in requests if r["path"] == f"/api/tables/{code}"]
    assert mine and all(r.get("table") == code for r in mine)
    # The query string is the client's: not logged (a token put there by mistake stays out).
    assert all("?" not in r["path"] for r in requests)
    socket_lines = [r for r in records if r.get("request", "").startswith("c-")]
    assert socket_lines and all(r.get("table") == code for r in socket_lines)
    assert len({r["request"] for r in records if "request" in r}) >= len(requests)

    for secret in (token, PASSWORD, CHAT, *cookies):
        assert secret and secret not in text, f"a secret is in the log: {secret[:4]}..."
