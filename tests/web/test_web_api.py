"""The web app's HTTP API (docs/web.md "HTTP"): tables, seats, records, JSON errors."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from seep.web.tables import CODE_ALPHABET
from seepkit.web import web_client

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def test_create_join_summary(tmp_path: Path) -> None:
    with web_client(tmp_path) as (client, _, _):
        r = client.post("/api/tables", json={"name": "Asha", "bots": "easy", "deals": 2})
        assert r.status_code == 201
        made = r.json()
        code = made["code"]
        assert 4 <= len(code) <= 6 and set(code) <= set(CODE_ALPHABET)
        assert made["url"] == f"/t/{code}" and made["seat"] == 0 and len(made["token"]) > 20
        r = client.post(f"/api/tables/{code}/join", json={"name": "Ravi", "seat": 2})
        assert r.json()["seat"] == 2
        r = client.post(f"/api/tables/{code.lower()}/join", json={"name": "Mina"})
        assert r.json()["seat"] == 1  # the first free seat; codes in any case
        summary = client.get(f"/api/tables/{code}").json()
        assert summary["status"] == "waiting" and summary["host"] == 0
        assert [s["kind"] for s in summary["seats"]] == ["human", "human", "human", "empty"]
        assert [s["name"] for s in summary["seats"]][:3] == ["Asha", "Mina", "Ravi"]
        assert summary["settings"]["deals"] == 2 and summary["settings"]["bots"] == "easy"
        assert "token" not in str(summary) and made["token"] not in str(summary)
        r = client.post(f"/api/tables/{code}/join", json={"name": "X", "seat": 2})
        assert r.status_code == 409 and r.json()["error"]["code"] == "seat_taken"
        client.post(f"/api/tables/{code}/join", json={})
        r = client.post(f"/api/tables/{code}/join", json={})
        assert r.json()["error"]["code"] == "seat_taken"
        # No record before the start.
        r = client.get(f"/api/tables/{code}/record")
        assert r.status_code == 409 and r.json()["error"]["code"] == "not_allowed"
    # Only token hashes are stored.
    db = sqlite3.connect(tmp_path / "seep.db")
    seats = db.execute("select seats from tables").fetchone()[0]
    assert made["token"] not in seats and "token_hash" in seats


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ("not json", "bad_json"),
        ("[1, 2]", "bad_request"),
        ('{"preset": "nonsense"}', "bad_request"),
        ('{"bots": "wizard"}', "bad_request"),
        ('{"deals": 2, "baazis": 1}', "bad_request"),
        ('{"deals": 0}', "bad_request"),
        ('{"deals": true}', "bad_request"),
        ('{"turn_seconds": 1}', "bad_request"),
        ('{"practice": "yes"}', "bad_request"),
        ('{"name": 7}', "bad_request"),
        ('{"colour": "red"}', "bad_request"),
        ('{"name": "' + "x" * 20000 + '"}', "too_large"),
    ],
)
def test_create_bad_input(tmp_path: Path, body: str, code: str) -> None:
    with web_client(tmp_path) as (client, _, _):
        r = client.post("/api/tables", content=body, headers={"Content-Type": "application/json"})
        assert 400 <= r.status_code < 500
        err = r.json()["error"]
        assert err["code"] == code and err["message"]
        assert "Traceback" not in r.text


def test_unknown_things_are_json_errors(tmp_path: Path) -> None:
    with web_client(tmp_path) as (client, _, _):
        for r in (
            client.get("/api/tables/ZZZZ"),
            client.post("/api/tables/ZZZZ/join", json={}),
            client.get("/api/tables/ZZZZ/record"),
        ):
            assert r.status_code == 404 and r.json()["error"]["code"] == "unknown_table"
        r = client.get("/api/nothing")
        assert r.status_code == 404 and r.json()["error"]["code"] == "not_found"
        r = client.delete("/api/tables")
        assert r.status_code == 405 and "error" in r.json()
        code = client.post("/api/tables", json={}).json()["code"]
        r = client.post(f"/api/tables/{code}/join", json={"seat": 9})
        assert r.json()["error"]["code"] == "bad_request"


def test_practice_tables_take_no_second_player(tmp_path: Path) -> None:
    with web_client(tmp_path) as (client, _, _):
        code = client.post("/api/tables", json={"practice": True}).json()["code"]
        r = client.post(f"/api/tables/{code}/join", json={"name": "Ravi"})
        assert r.status_code == 409 and r.json()["error"]["code"] == "not_allowed"


def test_pages_are_served(tmp_path: Path) -> None:
    with web_client(tmp_path) as (client, _, _):
        for path in ("/", "/t/K7PX", "/replay/K7PX", "/how-to-play"):
            r = client.get(path)
            assert r.status_code == 200 and "text/html" in r.headers["content-type"]
