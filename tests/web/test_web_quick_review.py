"""Quick match that finds a game, and the practice table's post-deal review (issue 22 items 5
and 6; docs/web.md "Quick match" and "Post-deal review"): quick match seats players together
under a countdown that every page sees and that fills the empty seats with bots of the chosen
level; after each deal of a practice table its player alone is sent the bots' evaluation of
his plays, never before the deal is over."""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

import pytest
from pydantic import TypeAdapter

from seep.web.messages import ServerMessage
from seepkit.web import Player, deal_over, my_turn, web_client

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
        # Quick match sends players only to a table whose host's page is connected.
        p = Player(client, checker, ravi["code"], ravi["token"])
        first = p.until(lambda m: m["type"] == "state" and m["seat"] == 0)
        assert first["table"]["starts_at"] is not None
        mira = _quick(client, name="Mira", bots="easy", deals=1)
        assert mira["code"] == ravi["code"] and mira["seat"] == 1
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
        asha = Player(client, checker, a["code"], a["token"])
        asha.until(lambda m: m["type"] == "state" and m["seat"] == 0)
        b = _quick(client, name="Ravi", preset="two_player", bots="medium", deals=1)
        assert a["code"] == b["code"] and b["seat"] == 1
        table = client.get(f"/api/tables/{a['code']}").json()
        assert table["status"] == "playing" and table["starts_at"] is None
        # A table its host made stays his to start: no countdown.
        made = client.post("/api/tables", json={"name": "Mira", "public": True}).json()
        assert client.get(f"/api/tables/{made['code']}").json()["starts_at"] is None
        asha.close()


def _play_to_the_end(p: Player, rng: random.Random, deal: int = 1) -> dict[str, Any]:
    """Play ``p``'s turns (random legal moves) until deal ``deal`` is over; its summary state."""
    while True:
        msg = p.recv()
        assert msg["type"] != "review" or msg["deal"] < deal, "a review came while the deal ran"
        if deal_over(msg) and msg["summary"]["deal"] == deal:
            return msg
        if my_turn(msg):
            p.send({"type": "move", "move": rng.choice(msg["legal"]), "version": msg["version"]})


def test_practice_review_after_the_deal_for_its_player_only(tmp_path: Path) -> None:
    rng = random.Random(7)
    with web_client(tmp_path) as (client, manager, checker):
        made = client.post(
            "/api/tables", json={"name": "Asha", "bots": "easy", "practice": True, "deals": 2}
        ).json()
        manager.rate_limit = 1000  # two deals of quick random moves
        code = made["code"]
        p = Player(client, checker, code, made["token"])
        watcher = Player(client, checker, code)
        p.recv()
        p.send({"type": "start"})
        summary = _play_to_the_end(p, rng)
        got = p.until(lambda m: m["type"] == "review")
        assert TypeAdapter(ServerMessage).validate_python(got).type == "review"  # as documented
        assert got["deal"] == 1 and got["seat"] == 0 and got["complete"] is True
        history = manager.get(code).session.history  # type: ignore[union-attr]
        mine = [i for i, (s, _) in enumerate(history) if s == 0]
        assert got["moves"] == len(history) and summary["summary"]["deal"] == 1
        assert got["plays"] and {pl["index"] for pl in got["plays"]} <= set(mine)
        for pl in got["plays"]:
            assert pl["move"]["card"] and pl["best"]["card"] and pl["choices"] > 1
            assert pl["loss"] == pytest.approx(pl["best_score"] - pl["score"], abs=0.11)
            assert pl["loss"] >= 0
        losses = {pl["index"]: pl["loss"] for pl in got["plays"]}
        assert len(got["costly"]) <= 3 and all(losses[i] > 0 for i in got["costly"])
        assert [losses[i] for i in got["costly"]] == sorted(
            (losses[i] for i in got["costly"]), reverse=True
        )
        dearest = sorted(losses.values(), reverse=True)[: len(got["costly"])]
        assert sorted((losses[i] for i in got["costly"]), reverse=True) == dearest
        # A reconnection of the seat gets it again; a spectator never does.
        again = Player(client, checker, code, made["token"])
        assert again.until(lambda m: m["type"] == "review")["plays"] == got["plays"]
        watcher.alive()
        assert not any(m["type"] == "review" for m in watcher.received)
        # The next deal: no review of it while it runs (checked by _play_to_the_end).
        p.send({"type": "next"})
        again.close()
        _play_to_the_end(p, rng, deal=2)
        assert p.until(lambda m: m["type"] == "review")["deal"] == 2
        p.close()
        watcher.close()


def test_no_review_at_a_table_with_other_players(tmp_path: Path) -> None:
    rng = random.Random(3)
    with web_client(tmp_path) as (client, _manager, checker):
        made = client.post("/api/tables", json={"name": "Asha", "bots": "easy", "deals": 1}).json()
        p = Player(client, checker, made["code"], made["token"])
        p.recv()
        p.send({"type": "start"})
        _play_to_the_end(p, rng)
        p.send({"type": "next"})
        p.until(lambda m: m["type"] == "state" and m["table"]["status"] == "finished")
        p.alive()
        assert not any(m["type"] == "review" for m in p.received)
        p.close()


def test_coach_warnings_name_their_move_in_sentences_and_as_keys() -> None:
    from seep.engine import Position
    from seep.view import View
    from seep.web import social

    seen_same_card = 0
    for seed in range(40):
        pos = Position.new_deal(seed)
        rng = random.Random(seed)
        while not pos.is_over() and seen_same_card < 3:
            if pos.phase == "play":
                advice = social.coach(View.from_position(pos, pos.to_move))
                by_card: dict[str, list[dict[str, Any]]] = {}
                for w in advice["warnings"]:
                    assert w["risks"] and len(w["risks"]) == len(w["warnings"])
                    for r, text in zip(w["risks"], w["warnings"], strict=True):
                        assert text.startswith("Careful: after you ") and text.endswith(".")
                        assert r["risk"] in ("sweep", "house")
                        if r["risk"] == "house":
                            assert f"your house of {r['value']}." in text
                        else:
                            assert all(v in text for v in r["values"])
                    by_card.setdefault(w["move"]["card"], []).append(w)
                for ws in by_card.values():
                    if len(ws) > 1:
                        seen_same_card += 1
                        texts = [" ".join(w["warnings"]) for w in ws]
                        assert len(set(texts)) == len(texts), texts  # each names its move
            pos.advance(rng.choice(pos.legal_codes()))
        if seen_same_card >= 3:
            break
    assert seen_same_card >= 3
