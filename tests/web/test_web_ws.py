"""The web app's WebSocket protocol (docs/web.md): whole deals against bots, no hidden card in
any message to any client, bad input, reconnects, the grace takeover, the turn clock, practice
undo, hints and the downloadable record."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Any

import pytest
from starlette.websockets import WebSocketDisconnect

from seep import protocol
from seep.session import Session, replay_record
from seepkit.web import (
    LeakChecker,
    Player,
    create_table,
    deal_over,
    my_turn,
    play_my_turn,
    until_playing,
    web_client,
)

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def test_whole_deal_against_bots_with_a_spectator(tmp_path: Path) -> None:
    rng = random.Random(1)
    with web_client(tmp_path) as (client, manager, checker):
        made = create_table(client, deals=1)
        code = made["code"]
        me = Player(client, checker, code, made["token"])
        first = me.recv()
        assert first["seat"] == 0 and first["table"]["status"] == "waiting"
        watcher = Player(client, checker, code)
        assert watcher.recv()["seat"] is None
        me.send({"type": "start"})
        moves = 0
        while True:
            msg = me.recv()
            if deal_over(msg):
                break
            if my_turn(msg):
                assert msg["seat"] == msg["view"]["to_move"] == 0
                play_my_turn(me, msg, rng)
                moves += 1
            elif msg["type"] == "state" and msg["table"]["status"] == "playing":
                assert msg["legal"] == []  # only the seat to move is sent its moves
        # 48 plays, one in four mine, plus the bid (and any redeal) if I was the bidder.
        assert moves == sum(1 for h in msg["view"]["history"] if h["seat"] == 0) >= 12
        summary = msg["summary"]
        assert summary["match_over"] and sum(summary["result"]["points"]) == 100
        assert msg["view"]["phase"] == "over" and len(msg["view"]["history"]) >= 48
        assert msg["last_moves"][0] is not None
        # The panel's figures: the deal's points and score, and the finished deal counted.
        assert msg["match"]["points"] == summary["result"]["points"]
        assert msg["match"]["score"] == summary["result"]["score"]
        assert msg["match"]["deals"] == 1 and msg["match"]["history"] == [summary["result"]]
        me.send({"type": "next"})
        final = me.until(lambda m: m["type"] == "state" and m["table"]["status"] == "finished")
        assert final["match"]["deals"] == 1 and final["summary"]["match_over"]
        watcher.until(lambda m: m["type"] == "state" and m["table"]["status"] == "finished")
        views = [m["view"] for m in watcher.received if m["type"] == "state" and m["view"]]
        assert views and all(v["seat"] is None for v in views)
        assert all(all(isinstance(h, int) for h in v["hands"]) for v in views)
        assert checker.checked > 100
        # The record replays through the core and the protocol.
        record = client.get(f"/api/tables/{code}/record").json()
        replayed = list(replay_record(record))
        assert len(replayed) >= 49 and replayed[-1][1]["phase"] == "over"
        pos = record["deals"][0]["start"]
        for mv in record["deals"][0]["moves"]:
            pos = protocol.apply(pos, {k: v for k, v in mv.items() if k != "seat"})
        assert protocol.score(pos)["score"] == record["deals"][0]["result"]["score"]
        assert Session.from_record(record).deals_finished == 1
        steps = client.get(f"/api/tables/{code}/replay").json()["steps"]
        assert len(steps) == len(replayed) and steps[0]["move"] is None
        assert steps[-1]["position"] == replayed[-1][1]
        assert steps[-1]["result"] == record["deals"][0]["result"]
        me.close()
        watcher.close()
        # A finished table's record and summary are kept in the database.
        manager.tables.clear()
        assert client.get(f"/api/tables/{code}").json()["status"] == "finished"
        assert client.get(f"/api/tables/{code}/record").json() == record


def _four_humans(client: Any, checker: LeakChecker) -> tuple[str, list[Player]]:
    made = create_table(client, deals=1)
    code = made["code"]
    tokens = [made["token"]]
    for seat in (1, 2, 3):
        tokens.append(client.post(f"/api/tables/{code}/join", json={"seat": seat}).json()["token"])
    players = [Player(client, checker, code, t) for t in tokens]
    for p in players:
        p.until(lambda m: m["type"] == "state")
    players[0].send({"type": "start"})
    for p in players:
        p.until(lambda m: m["type"] == "state" and m["table"]["status"] == "playing")
    return code, players


def _drain(p: Player) -> None:
    """Read everything queued for ``p`` (a ping's pong marks the end)."""
    p.alive()


def test_bad_input_gets_an_error_to_that_client_only(tmp_path: Path) -> None:
    with web_client(tmp_path) as (client, manager, checker):
        code, players = _four_humans(client, checker)
        table = manager.get(code)
        mover = players[table.to_move]
        other = players[next(s for s in (1, 2, 3) if s != table.to_move)]  # not the host
        for p in players:
            _drain(p)
        state = mover.state
        assert state is not None and state["legal"]
        version = state["version"]
        cases: list[tuple[Player, Any, str]] = [
            (mover, "{not json", "bad_json"),
            (mover, "x" * 20000, "too_large"),
            (mover, "[1]", "bad_message"),
            (mover, {"kind": "move"}, "bad_message"),
            (mover, {"type": "dance"}, "unknown_type"),
            (
                other,
                {"type": "move", "move": state["legal"][0], "version": version},
                "not_your_turn",
            ),
            (
                mover,
                {"type": "move", "move": {"action": "fly"}, "version": version},
                "malformed_move",
            ),
            (mover, {"type": "move", "move": "bid 9", "version": version}, "malformed_move"),
            # Which "type" a reader takes from an object naming it twice differs by parser.
            (mover, '{"type": "ping", "type": "start"}', "bad_json"),
            (mover, '{"type": "move", "move": {"card": 1, "card": 2}}', "bad_json"),
            (mover, {"type": "move", "move": state["legal"][0]}, "bad_message"),
            (mover, {"type": "move", "move": state["legal"][0], "version": -3}, "stale"),
            (other, {"type": "start"}, "not_host"),
            (mover, {"type": "undo"}, "not_allowed"),
            (mover, {"type": "next"}, "not_allowed"),
            (mover, {"type": "sit", "seat": 2}, "not_allowed"),
        ]
        illegal = _an_illegal_move(state)
        if illegal is not None:
            cases.append(
                (mover, {"type": "move", "move": illegal, "version": version}, "illegal_move")
            )
        for p, msg, code_ in cases:
            p.send(msg)
            err = p.error()
            assert err["code"] == code_, (msg, err)
            assert err["message"] and "Traceback" not in err["message"]
        for p in players:
            p.alive()  # every connection goes on, and none saw another's errors
            assert not [
                m for m in p.received if m["type"] == "error" and p not in {c for c, _, _ in cases}
            ]
        # The table goes on: the right move in the right state is played.
        mover.send({"type": "move", "move": state["legal"][0], "version": version})
        after = other.until(lambda m: m["type"] == "state" and m["version"] > version)
        assert after["view"]["history"][-1]["seat"] == players.index(mover)
        # The move answered the old state once: sending it again is stale or out of turn.
        mover.send({"type": "move", "move": state["legal"][0], "version": version})
        assert mover.error()["code"] in ("not_your_turn", "stale")
        for p in players:
            p.close()


def _an_illegal_move(state: dict[str, Any]) -> dict[str, Any] | None:
    view = state["view"]
    if view["phase"] == "bid":
        bids = [{"action": "bid", "value": v} for v in range(9, 14)]
        return next(mv for mv in bids if mv not in state["legal"])
    for card in view["hands"][view["seat"]]:
        mv = {"action": "throw", "card": card}
        if mv not in state["legal"]:
            return mv
    return None


def test_rate_limit_and_unknown_table_and_token(tmp_path: Path) -> None:
    with web_client(tmp_path) as (client, _, checker):
        made = create_table(client)
        p = Player(client, checker, made["code"], made["token"])
        p.recv()
        time.sleep(1.05)  # the hello counted too: a fresh second
        for _ in range(30):
            p.send({"type": "ping"})
        # 20 pongs, and one rate_limited for the 10 dropped (told once a second, not per
        # message: each word would cost the server a write).
        got = [p.recv() for _ in range(21)]
        assert sum(m["type"] == "pong" for m in got) == 20
        assert [m["code"] for m in got if m["type"] == "error"] == ["rate_limited"]
        time.sleep(1.05)
        p.alive()
        p.close()
        with client.websocket_connect("/ws/ZZZZ") as ws:
            assert ws.receive_json()["code"] == "unknown_table"
            with pytest.raises(WebSocketDisconnect):
                ws.receive_json()
        s = Player(client, checker, made["code"], "not-a-token")
        assert s.recv()["code"] == "unknown_token"  # and it goes on watching
        s.send({"type": "start"})
        assert s.error()["code"] == "not_allowed"
        s.close()


def test_reconnect_gets_the_full_state(tmp_path: Path) -> None:
    rng = random.Random(2)
    with web_client(tmp_path) as (client, _, checker):
        made = create_table(client)
        code = made["code"]
        p = Player(client, checker, code, made["token"])
        p.recv()
        p.send({"type": "start"})
        for _ in range(3):
            play_my_turn(p, p.until(my_turn), rng)
        seen = p.until(lambda m: m["type"] == "state" and m["view"]["history"][-1]["seat"] == 0)
        before = seen["view"]["history"]
        p.close()
        q = Player(client, checker, code, made["token"])
        state = q.until(lambda m: m["type"] == "state")
        assert state["seat"] == 0 and state["table"]["seats"][0]["connected"]
        hand = state["view"]["hands"][0]
        assert isinstance(hand, list) and state["view"]["history"][: len(before)] == before
        # Mid-deal, the record and the replay hold no deal: a deal's start shows every hand.
        assert client.get(f"/api/tables/{code}/record").json()["deals"] == []
        assert client.get(f"/api/tables/{code}/replay").json()["steps"] == []
        msg = state if my_turn(state) else q.until(my_turn)
        assert set(m.get("card") for m in msg["legal"]) <= set(msg["view"]["hands"][0]) | {None}
        q.close()


def test_sit_and_start_by_host(tmp_path: Path) -> None:
    with web_client(tmp_path) as (client, _, checker):
        made = create_table(client)
        code = made["code"]
        joined = client.post(f"/api/tables/{code}/join", json={"name": "Ravi"}).json()
        host = Player(client, checker, code, made["token"])
        guest = Player(client, checker, code, joined["token"])
        host.recv()
        guest.recv()
        guest.send({"type": "sit", "seat": 2})  # opposite the host: partners
        msg = guest.until(lambda m: m["type"] == "state" and m["seat"] == 2)
        assert [s["kind"] for s in msg["table"]["seats"]] == ["human", "empty", "human", "empty"]
        guest.send({"type": "sit", "seat": 0})
        assert guest.error()["code"] == "seat_taken"
        guest.send({"type": "start"})
        assert guest.error()["code"] == "not_host"
        host.send({"type": "start"})
        msg = guest.until(lambda m: m["type"] == "state" and m["table"]["status"] == "playing")
        assert [s["kind"] for s in msg["table"]["seats"]] == ["human", "bot", "human", "bot"]
        host.send({"type": "start"})
        assert host.error()["code"] == "not_allowed"
        host.close()
        guest.close()


def test_a_player_who_joined_but_never_came_gets_a_bot_after_the_grace_period(
    tmp_path: Path,
) -> None:
    """He took a seat, then closed the page before the host started: his seat must not hold
    the table. His grace period starts with the game; then a bot plays for him."""
    rng = random.Random(8)
    with web_client(tmp_path, grace_seconds=0.2, bot_delay=0.01) as (client, manager, checker):
        made = create_table(client, deals=1)
        code = made["code"]
        client.post(f"/api/tables/{code}/join", json={"name": "Ravi"}).raise_for_status()
        p = Player(client, checker, code, made["token"])
        p.recv()
        p.send({"type": "start"})
        msg = until_playing(
            p,
            lambda m: (
                m["type"] == "state"
                and bool(m["view"])
                and any(h["seat"] == 1 for h in m["view"]["history"])
            ),
            rng,
        )
        assert msg["table"]["seats"][1]["away"], "a bot moved for the absent player"
        assert manager.get(code).seats[1].kind == "human"  # his seat, kept for his return
        p.close()


def test_grace_takeover_and_give_back(tmp_path: Path) -> None:
    # Bots slow enough that the deal is still running when he comes back.
    rng = random.Random(6)
    with web_client(tmp_path, grace_seconds=0.2, bot_delay=0.05) as (client, manager, checker):
        made = create_table(client, deals=1)
        code = made["code"]
        joined = client.post(f"/api/tables/{code}/join", json={"name": "Ravi"}).json()
        p = Player(client, checker, code, made["token"])
        p.recv()
        # The other player joined but is not here yet: should his turn come first, the grace
        # period runs out and a bot plays for him (p is here).
        p.send({"type": "start"})
        p.until(my_turn)
        # He comes and stays: bots take an absent player's seat only while someone is seated.
        partner = Player(client, checker, code, joined["token"])
        partner.until(lambda m: m["type"] == "state" and m["seat"] == 1)
        p.close()  # gone on his own turn
        msg = until_playing(
            partner, lambda m: m["type"] == "state" and m["table"]["seats"][0]["away"], rng
        )
        # The bot plays for him: seat 0 moves again without him.
        mine = sum(1 for m in msg["view"]["history"] if m["seat"] == 0)
        until_playing(
            partner,
            lambda m: (
                m["type"] == "state"
                and sum(1 for h in m["view"]["history"] if h["seat"] == 0) > mine
            ),
            rng,
        )
        q = Player(client, checker, code, made["token"])
        back = q.until(lambda m: m["type"] == "state" and m["seat"] == 0)
        assert not back["table"]["seats"][0]["away"]
        assert not manager.get(code).seats[0].away
        q.close()
        partner.close()


def test_turn_clock_plays_for_a_slow_player(tmp_path: Path) -> None:
    with web_client(tmp_path) as (client, manager, checker):
        made = create_table(client, deals=1)
        code = made["code"]
        manager.get(code).settings["turn_seconds"] = 0.3  # (the API's minimum is 5 s)
        p = Player(client, checker, code, made["token"])
        p.recv()
        p.send({"type": "start"})
        msg = p.until(my_turn)
        assert msg["clock"]["seat"] == 0 and msg["clock"]["deadline"] > time.time()
        n = len(msg["view"]["history"])
        later = p.until(lambda m: m["type"] == "state" and len(m["view"]["history"]) > n)
        assert later["view"]["history"][n]["seat"] == 0  # played for him
        p.close()


def test_practice_undo_and_hint(tmp_path: Path) -> None:
    rng = random.Random(3)
    with web_client(tmp_path) as (client, manager, checker):
        made = create_table(client, practice=True, bots="medium")
        code = made["code"]
        p = Player(client, checker, code, made["token"])
        p.recv()
        p.send({"type": "undo"})
        assert p.error()["code"] == "not_allowed"  # not started
        p.send({"type": "start"})
        msg = p.until(my_turn)
        p.send({"type": "hint"})
        hint = p.until(lambda m: m["type"] == "hint")
        assert hint["move"] in msg["legal"] and hint["reason"]
        before = msg["view"]["history"]
        play_my_turn(p, msg, rng)
        p.until(my_turn)  # the bots have answered
        p.send({"type": "undo"})
        back = p.until(lambda m: m["type"] == "state" and m["view"]["history"] == before)
        assert back["legal"] == msg["legal"]
        # What is stored is what is played: a restart would replay exactly this.
        stored = manager.store.load_unfinished()
        assert [len(t["moves"]) for t in stored if t["code"] == code] == [len(before)]
        p.send({"type": "hint"})
        p.until(lambda m: m["type"] == "hint")
        p.close()
        p2 = Player(client, checker, code, made["token"])
        p2.until(lambda m: m["type"] == "state")
        p2.close()


def test_a_baazi_table_plays_several_deals(tmp_path: Path) -> None:
    rng = random.Random(4)
    with web_client(tmp_path) as (client, manager, checker):
        manager.rate_limit = 1000  # the bots answer in 2 ms: this client moves fast
        made = create_table(client, deals=2)
        p = Player(client, checker, made["code"], made["token"])
        p.recv()
        p.send({"type": "start"})
        deals = 0
        while deals < 2:
            msg = p.recv()
            if (
                deal_over(msg)
                and msg["table"]["status"] == "playing"
                and 0 not in msg["summary"]["ready"]
            ):
                deals += 1
                assert msg["summary"]["deal"] == deals
                p.send({"type": "next"})
                if deals == 2:
                    break
            elif my_turn(msg):
                play_my_turn(p, msg, rng)
        final = p.until(lambda m: m["type"] == "state" and m["table"]["status"] == "finished")
        assert final["match"]["deals"] == 2 and len(final["match"]["history"]) == 2
        record = client.get(f"/api/tables/{made['code']}/record")
        assert "attachment" in record.headers["content-disposition"]
        assert len(list(replay_record(json.loads(record.text)))) >= 98
        p.close()


def test_slow_bots_think_off_the_event_loop(tmp_path: Path) -> None:
    # ISMCTS bots (hard) think in a worker thread, so other tables are not held up.
    with web_client(tmp_path) as (client, _, checker):
        made = create_table(client, practice=True, bots="hard")
        p = Player(client, checker, made["code"], made["token"])
        p.recv()
        p.send({"type": "start"})
        p.until(my_turn)
        p.send({"type": "hint"})
        p.send({"type": "ping"})
        got = [p.recv()["type"] for _ in range(2)]
        assert sorted(got) == ["hint", "pong"]
        p.close()


def test_hello_handshake_claims_the_seat(tmp_path: Path) -> None:
    with web_client(tmp_path) as (client, manager, checker):
        made = create_table(client)
        code = made["code"]
        # A token in the URL is no longer read: that connection only watches.
        with client.websocket_connect(f"/ws/{code}?token={made['token']}") as ws:
            first = ws.receive_json()
            assert first["type"] == "state" and first["seat"] is None
            assert manager.get(code).seats[0].connections == 0
        p = Player(client, checker, code)
        assert p.recv()["seat"] is None  # a spectator's state at once, before any hello
        p.send({"type": "start"})
        assert p.error()["code"] == "not_allowed"
        p.send({"type": "hello", "token": made["token"]})
        state = p.until(lambda m: m["type"] == "state")
        assert state["seat"] == 0 and state["table"]["seats"][0]["connected"]
        p.send({"type": "hello", "token": made["token"]})
        assert p.error()["code"] == "not_allowed"  # one seat per connection
        p.send({"type": "hello"})
        assert p.error()["code"] in {"not_allowed", "bad_message"}
        p.close()


def test_two_player_deal_against_one_bot(tmp_path: Path) -> None:
    """docs/rules.md §12 in the browser's protocol: two seats, one bot fills the other, the
    half-time deal after play 24 (R2P4) reaches the player, and no message leaks a card (the
    opponent's hand and the half-time stock are hidden)."""
    rng = random.Random(2)
    with web_client(tmp_path) as (client, _, checker):
        made = create_table(client, preset="two_player", deals=1)
        code = made["code"]
        me = Player(client, checker, code, made["token"])
        first = me.recv()
        assert first["seat"] == 0 and len(first["table"]["seats"]) == 2
        watcher = Player(client, checker, code)
        assert watcher.recv()["seat"] is None
        me.send({"type": "start"})
        hand_sizes: set[int] = set()
        while True:
            msg = me.recv()
            if deal_over(msg):
                break
            if msg["type"] != "state" or msg["view"] is None:
                continue
            seats = msg["table"]["seats"]
            assert [s["kind"] for s in seats] == ["human", "bot"]
            assert len(msg["last_moves"]) == 2 and len(msg["view"]["hands"]) == 2
            hand_sizes.add(len(msg["view"]["hands"][0]))
            if my_turn(msg):
                assert msg["seat"] == msg["view"]["to_move"] == 0
                time.sleep(0.06)  # every other move is mine: keep under the rate limit
                play_my_turn(me, msg, rng)
        history = msg["view"]["history"]
        assert {h["seat"] for h in history} == {0, 1}
        # Every card is played: 48 plays, half of them mine (plus a bid if I was the bidder).
        assert sum(1 for h in history if h["seat"] == 0) >= 24
        assert max(hand_sizes) == 12  # the half-time deal: 12 each (R2P4)
        summary = msg["summary"]
        assert summary["match_over"] and sum(summary["result"]["points"]) == 100
        assert len(summary["captured"]) == 2
        watcher.until(deal_over)
        assert checker.checked > 50
        # The opponent's seat is the only other one: seat 2 does not exist at two.
        r = client.post(f"/api/tables/{code}/join", json={"name": "Ravi", "seat": 2})
        assert r.status_code in (400, 409), r.text


def _states_sized(p: Player) -> list[tuple[dict[str, Any], int]]:
    """Each ``state`` ``p`` received, with its length as sent."""
    states = [m for m in p.received if m["type"] == "state"]
    return list(zip(states, p.sizes, strict=True))


def test_the_appended_history_joins_to_the_whole_state(tmp_path: Path) -> None:
    """A socket that asks for the appended history is sent only the moves it lacks: joined
    to those it holds, each state is the whole one another socket of the seat gets, through
    moves, an undo and a new deal; and the state no longer grows with the deal."""
    rng = random.Random(5)
    with web_client(tmp_path) as (client, _manager, checker):
        made = create_table(client, practice=True, deals=2)
        code, token = made["code"], made["token"]
        whole = Player(client, checker, code, token)
        whole.recv()
        appended = Player(client, checker, code, token, history="append")
        # Its seat's state before the start: else the first states may still be a spectator's.
        appended.until(lambda m: m["type"] == "state" and m["seat"] == 0)
        whole.send({"type": "start"})
        undone, said_next, last = False, -1, 0
        while True:
            msg = whole.recv()
            if msg["type"] != "state":
                continue
            last = msg["version"]
            if msg["table"]["status"] == "finished":
                break
            deals = msg["match"]["deals"] if msg["match"] else 0
            time.sleep(0.06)  # under the socket's rate limit (the bots answer at once)
            if msg["summary"] is not None and said_next != deals:
                said_next = deals
                whole.send({"type": "next"})
            elif my_turn(msg):
                if not undone and len(msg["view"]["history"]) > 12:
                    undone = True
                    whole.send({"type": "undo"})
                else:
                    play_my_turn(whole, msg, rng)
        appended.until(lambda m: m["type"] == "state" and m["version"] == last)
        wholes = {m["version"]: m for m in whole.received if m["type"] == "state"}
        joined = [m for m in appended.received if m["type"] == "state" and m["seat"] == 0]
        starts = {m.pop("history_from") for m in joined}
        assert 0 in starts and max(starts) > 40  # whole after the undo and the new deal
        assert undone and said_next == 2  # a "next" after each deal
        for m in joined:
            if m["version"] in wholes:
                assert m == wholes[m["version"]], m["version"]
        assert len([m for m in joined if m["version"] in wholes]) > 90
        # The appended state at the end of a deal (its summary: no legal moves to list) is
        # much shorter than the whole one.
        whole_sizes = {m["version"]: n for m, n in _states_sized(whole)}
        ends = [
            (n, whole_sizes[m["version"]])
            for m, n in _states_sized(appended)
            if m["seat"] == 0 and m["summary"] is not None and m["version"] in whole_sizes
        ]
        assert len(ends) >= 2 and all(n < 0.7 * w for n, w in ends), ends
