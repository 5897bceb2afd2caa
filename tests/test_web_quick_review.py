"""Quick match that finds a game, and the practice table's post-deal review (issue 22 items 5
and 6; docs/web.md "Quick match" and "Post-deal review"): quick match seats players together
under a countdown that every page sees and that fills the empty seats with bots of the chosen
level; after each deal of a practice table its player alone is sent the bots' evaluation of
his plays, never before the deal is over."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from web_kit import Player, web_client

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def _quick(client: Any, **body: Any) -> dict[str, Any]:
    r = client.post("/api/quick", json=body)
    assert r.status_code == 200, r.text
    made: dict[str, Any] = r.json()
    return made


def test_quick_match_counts_down_then_fills_with_bots_of_the_level(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SEEP_QUICK_SECONDS", "1.5")
    with web_client(tmp_path) as (client, _manager, checker):
        ravi = _quick(client, name="Ravi", bots="easy", deals=1)
        assert ravi["seat"] == 0
        table = client.get(f"/api/tables/{ravi['code']}").json()
        # On an empty server the table counts down (a deadline every page shows).
        assert table["status"] == "waiting" and table["starts_at"] > time.time()
        assert table["settings"]["public"] is True
        mira = _quick(client, name="Mira", bots="easy", deals=1)
        assert mira["code"] == ravi["code"] and mira["seat"] == 1
        p = Player(client, checker, ravi["code"], ravi["token"])
        first = p.until(lambda m: m["type"] == "state" and m["seat"] == 0)
        assert first["table"]["starts_at"] is not None
        started = p.until(lambda m: m["type"] == "state" and m["table"]["status"] == "playing")
        seats = started["table"]["seats"]
        assert [s["name"] for s in seats] == ["Ravi", "Mira", "Bot S", "Bot E"]
        assert [s["kind"] for s in seats] == ["human", "human", "bot", "bot"]
        assert started["table"]["starts_at"] is None
        assert started["table"]["settings"]["bots"] == "easy"
        # A started table is no place for quick match: the next player gets a new one.
        other = _quick(client, name="Dev", bots="easy", deals=1)
        assert other["code"] != ravi["code"] and other["seat"] == 0
        p.close()


def test_quick_match_starts_a_full_table_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SEEP_QUICK_SECONDS", "600")
    with web_client(tmp_path) as (client, _manager, checker):
        a = _quick(client, name="Asha", preset="two_player", bots="medium", deals=1)
        b = _quick(client, name="Ravi", preset="two_player", bots="medium", deals=1)
        assert a["code"] == b["code"] and b["seat"] == 1
        table = client.get(f"/api/tables/{a['code']}").json()
        assert table["status"] == "playing" and table["starts_at"] is None
        # A table its host made stays his to start: no countdown.
        made = client.post("/api/tables", json={"name": "Mira", "public": True}).json()
        assert client.get(f"/api/tables/{made['code']}").json()["starts_at"] is None
        del checker
