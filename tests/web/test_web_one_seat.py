"""One browser holds one seat a table (issue 23 item 9): a second join or a second quick match
with the browser's seat token answers the seat it holds; and no public surface offers
``add_retention: "team"``, under which the legal moves would give the partner's hand away."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from seep.options import PRESETS, Rules
from seep.web import messages
from seepkit.web import web_client

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

QUICK = {"name": "Ravi", "preset": "standard", "bots": "easy", "deals": 1}


def _kinds(client: Any, code: str) -> list[str]:
    return [s["kind"] for s in client.get(f"/api/tables/{code}").json()["seats"]]


def test_a_second_join_with_the_token_answers_the_seat_held(tmp_path: Path) -> None:
    with web_client(tmp_path) as (client, _manager, _checker):
        made = client.post("/api/tables", json={"name": "Asha"}).json()
        code = made["code"]
        first = client.post(f"/api/tables/{code}/join", json={"name": "Ravi"}).json()
        again = client.post(
            f"/api/tables/{code}/join", json={"name": "Ravi", "token": first["token"]}
        )
        assert again.status_code == 200, again.text
        assert again.json() == {"seat": first["seat"], "token": first["token"]}
        assert _kinds(client, code) == ["human", "human", "empty", "empty"]


def test_quick_match_twice_from_one_browser_is_one_seat(tmp_path: Path) -> None:
    with web_client(tmp_path) as (client, _manager, _checker):
        host = client.post("/api/tables", json={"name": "Asha", "public": True, **QUICK})
        assert host.status_code == 201, host.text
        code = host.json()["code"]
        # The host stays connected, so quick match sends newcomers to his table.
        with client.websocket_connect(f"/ws/{code}") as ws:
            ws.receive_json()
            ws.send_json({"type": "hello", "token": host.json()["token"]})
            ws.receive_json()
            first = client.post("/api/quick", json={**QUICK, "tokens": []})
            assert first.status_code == 200, first.text
            assert first.json()["code"] == code
            # Ravi's browser holds his seat's token (and one of another table's).
            held = ["a-token-of-another-table", first.json()["token"]]
            second = client.post("/api/quick", json={**QUICK, "tokens": held})
            assert second.status_code == 200, second.text
            assert second.json()["code"] == code
            assert second.json()["seat"] == first.json()["seat"]
            assert second.json()["token"] == first.json()["token"]
            assert _kinds(client, code).count("human") == 2
            bad = client.post("/api/quick", json={**QUICK, "tokens": "all of them"})
            assert bad.status_code == 400 and "tokens" in bad.json()["error"]["message"]


def test_team_add_retention_is_refused_on_every_public_surface(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No preset has it today: one that did would reach the web through the preset name, the
    # only rules a web table takes. Under "team" the legal moves a seat is sent, and the dead-card
    # reasons, depend on the partner's hand (R28, A14): they would reveal it, so it is refused.
    assert all(rules.add_retention == "self" for rules in PRESETS.values())
    monkeypatch.setitem(PRESETS, "team_adds", Rules(add_retention="team"))
    assert messages.PRESETS is PRESETS
    with web_client(tmp_path) as (client, _manager, _checker):
        for path in ("/api/tables", "/api/quick"):
            r = client.post(path, json={"name": "Asha", "preset": "team_adds"})
            assert r.status_code == 400, r.text
            message = r.json()["error"]["message"]
            assert "add_retention 'team'" in message and "partner's hidden cards" in message
