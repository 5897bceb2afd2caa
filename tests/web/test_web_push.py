"""Web Push (docs/web.md "Notifications", issue 27 item 4): the rules of when a player is
notified, the routes that keep a browser's subscription, and what the server sends, taken by
a local push service that checks the VAPID signature and decrypts the message as a browser
would (RFC 8291 and 8292)."""

from __future__ import annotations

import json
import random
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import pytest

pytest.importorskip("pywebpush")

from seep.web.push import (
    PushSettings,
    SeatSeen,
    VapidKeys,
    check_endpoint,
    payload,
    rematch_targets,
    start_targets,
    turn_target,
)
from seep.web.pusher import Pusher
from seep.web.store import Store
from seep.web.table import hash_token
from seepkit.push import Browser, PushService, b64url, check_vapid, push_service
from seepkit.web import CARD, Player, create_table, my_turn, play_my_turn, web_client

HUMAN_AWAY = SeatSeen(human=True, by_bot=False, away=True)
HUMAN_HERE = SeatSeen(human=True, by_bot=False, away=False)
BOT = SeatSeen(human=False, by_bot=True, away=True)
BOT_FOR_HIM = SeatSeen(human=True, by_bot=True, away=True)  # gone past his grace period


# --- when: the rules ------------------------------------------------------------------------


def test_a_start_notifies_the_players_away_only() -> None:
    assert start_targets([HUMAN_HERE, HUMAN_AWAY, BOT, HUMAN_AWAY]) == [1, 3]
    assert start_targets([HUMAN_HERE, BOT, BOT, BOT]) == []


def test_a_turn_notifies_once_the_player_away_whose_turn_it_is() -> None:
    seats = [HUMAN_HERE, HUMAN_AWAY, BOT, BOT_FOR_HIM]
    none = (-1, -1)
    assert turn_target(seats, 1, (7, 1), none) == 1
    assert turn_target(seats, 1, (7, 1), (7, 1)) is None  # at most one a turn
    assert turn_target(seats, 1, (9, 1), (7, 1)) == 1  # his next turn is another
    assert turn_target(seats, 0, (7, 0), none) is None  # his page is in sight
    assert turn_target(seats, 2, (7, 2), none) is None  # a bot
    assert turn_target(seats, 3, (7, 3), none) is None  # a bot plays for him already
    assert turn_target(seats, 0, (7, 1), none) is None  # the turn moved on meanwhile
    assert turn_target(seats, None, (7, 1), none) is None  # between deals


def test_a_rematch_offer_notifies_the_others_away_once() -> None:
    seats = [HUMAN_HERE, HUMAN_AWAY, BOT, HUMAN_AWAY]
    assert rematch_targets(seats, accepted={0}, told=set()) == [1, 3]
    assert rematch_targets(seats, accepted={0, 3}, told={1}) == []


def test_the_payload_carries_no_card() -> None:
    sent = payload("turn", "K7PX2M", "hi")
    assert sent == {
        "type": "seep",
        "key": "turn",
        "lang": "hi",
        "code": "K7PX2M",
        "url": "/t/K7PX2M",
        "tag": "seep-K7PX2M",
    }
    assert payload("start", "K7PX2M", "xx")["lang"] == "en"


def test_endpoints_are_a_push_services_https_urls() -> None:
    prod = PushSettings()
    ok = "https://fcm.googleapis.com/fcm/send/abc:def"
    assert check_endpoint(ok, prod) == ok
    assert check_endpoint("https://updates.push.services.mozilla.com/wpush/v2/x", prod)
    for bad in (
        "http://fcm.googleapis.com/fcm/send/abc",  # not https
        "https://fcm.googleapis.com:8443/x",  # another port
        "https://evil.example/fcm.googleapis.com",  # not a push service
        "https://fcm.googleapis.com.evil.example/x",
        "https://user@fcm.googleapis.com/x",
        "http://127.0.0.1:8080/x",  # loopback: tests only
        "https://fcm.googleapis.com/" + "x" * 1100,
        "javascript:alert(1)",
    ):
        with pytest.raises(ValueError):
            check_endpoint(bad, prod)
    test = PushSettings(loopback=True)
    assert check_endpoint("http://127.0.0.1:8080/x", test)
    with pytest.raises(ValueError):
        check_endpoint("http://10.0.0.1/x", test)


# --- the keys -------------------------------------------------------------------------------


def test_two_instances_starting_at_once_end_with_one_key_pair(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'seep.db'}"
    first, second = Store(url), Store(url)
    try:
        # The second instance finds no key, makes one, and the first stores its own just
        # before it: the insert is refused, and the first one's key is read.
        made: list[str] = []

        def make() -> str:
            made.append(VapidKeys._make())
            VapidKeys.of(first)
            return made[-1]

        theirs = json.loads(second.server_key("vapid", make))
        ours = VapidKeys.of(first)
        assert theirs["public"] == ours.public and json.loads(made[0])["public"] != ours.public
        # Many at once: one key.
        keys: list[str] = []
        stores = [Store(url) for _ in range(4)]
        threads = [
            threading.Thread(target=lambda s=s: keys.append(VapidKeys.of(s).public)) for s in stores
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for s in stores:
            s.close()
        assert set(keys) == {ours.public}
    finally:
        first.close()
        second.close()


# --- the routes -----------------------------------------------------------------------------


@pytest.fixture
def loopback(monkeypatch: pytest.MonkeyPatch) -> None:
    """Subscriptions to the test's own push service on loopback; a short wait for a turn."""
    monkeypatch.setenv("SEEP_PUSH_LOOPBACK", "1")
    monkeypatch.setenv("SEEP_PUSH_TURN_SECONDS", "0.05")


def _subscribe(client: Any, browser: Browser, seats: list[dict[str, str]], **extra: Any) -> Any:
    body = {"subscription": browser.subscription(), "seats": seats, **extra}
    return client.post("/api/push/subscriptions", json=body)


def test_the_subscription_routes_check_what_they_keep(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SEEP_MAX_PUSH_PER_CLIENT", "2")
    monkeypatch.setenv("SEEP_MAX_PUSH_POSTS_PER_MINUTE", "100")
    with web_client(tmp_path) as (client, manager, _checker):
        store = manager.store
        key = client.get("/api/push/key").json()["key"]
        assert key == VapidKeys.of(store).public  # made at the first start, kept
        fcm = Browser("https://fcm.googleapis.com/fcm/send/one")
        r = _subscribe(client, fcm, [{"code": "ABCDEF", "token": "t" * 48}], lang="hi")
        assert r.status_code == 201 and r.json() == {"seats": 1}
        assert _subscribe(client, fcm, []).status_code == 201  # the same browser again
        assert store.push_count() == 1
        # Not a push service, not https, bad keys, unknown fields, too big: refused.
        for endpoint in ("http://fcm.googleapis.com/x", "https://example.com/x"):
            r = _subscribe(client, Browser(endpoint), [])
            assert r.status_code == 400 and r.json()["error"]["code"] == "bad_request", r.text
        bad = fcm.subscription()
        bad["keys"]["p256dh"] = bad["keys"]["p256dh"][:-4] + "AAAA"  # not on the curve
        r = client.post("/api/push/subscriptions", json={"subscription": bad})
        assert r.status_code == 400, r.text
        r = client.post("/api/push/subscriptions", json={"subscription": bad, "extra": 1})
        assert r.status_code == 400
        huge = {"subscription": fcm.subscription(), "seats": [], "pad": "x" * 20_000}
        assert client.post("/api/push/subscriptions", json=huge).status_code == 413
        # Another site's page may not subscribe its visitors.
        r = client.post(
            "/api/push/subscriptions",
            json={"subscription": fcm.subscription()},
            headers={"Origin": "https://evil.example"},
        )
        assert r.status_code == 403 and r.json()["error"]["code"] == "bad_origin"
        # One address keeps so many (SEEP_MAX_PUSH_PER_CLIENT=2).
        two = Browser("https://fcm.googleapis.com/fcm/send/two")
        assert _subscribe(client, two, []).status_code == 201
        r = _subscribe(client, Browser("https://fcm.googleapis.com/fcm/send/three"), [])
        assert r.status_code == 429 and r.json()["error"]["code"] == "too_many_subscriptions"
        # Unsubscribing forgets it.
        r = client.post("/api/push/subscriptions/delete", json={"endpoint": two.endpoint})
        assert r.json() == {"deleted": True} and store.push_count() == 1
        r = client.post("/api/push/subscriptions/delete", json={"endpoint": two.endpoint})
        assert r.json() == {"deleted": False}
        # A signed-in browser's subscription goes with the account.
        r = client.post("/api/accounts", json={"name": "Pushy", "password": "long enough"})
        assert r.status_code == 201
        assert _subscribe(client, two, []).status_code == 201
        assert store.push_count() == 2
        r = client.post("/api/me/delete", json={"password": "long enough"})
        assert r.status_code == 200, r.text
        assert store.push_count() == 1


def test_the_routes_limit_each_address(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SEEP_MAX_PUSH_POSTS_PER_MINUTE", "3")
    with web_client(tmp_path) as (client, _manager, _checker):
        fcm = Browser("https://fcm.googleapis.com/fcm/send/one")
        codes = [_subscribe(client, fcm, []).status_code for _ in range(4)]
        assert codes == [201, 201, 201, 429]


# --- what is sent, and when -----------------------------------------------------------------


def _pushes(service: PushService, browser: Browser, key: str) -> list[dict[str, Any]]:
    path = browser.endpoint[len(service.origin) :]
    got = [r for r in service.received if r.path == path]
    for r in got:
        check_vapid(r, key, service.origin)
    return [browser.decrypt(r) for r in got]


def _wait(done: Callable[[], bool], what: str) -> None:
    """Until ``done()`` (the server runs in its own thread meanwhile); no timing asserted."""
    for _ in range(4000):
        if done():
            return
        time.sleep(0.005)
    raise AssertionError(f"never: {what}")


class _TwoPlayers(NamedTuple):
    pusher: Pusher
    key: str  # the server's VAPID public key
    made: dict[str, Any]  # the host's table (one deal)
    joined: dict[str, Any]  # Ravi, who joined it


def _two_players(client: Any, manager: Any) -> _TwoPlayers:
    """A table of one deal, its host and Ravi, on a server that pushes."""
    pusher = manager.pusher
    assert pusher is not None and pusher.sender is not None
    key = client.get("/api/push/key").json()["key"]
    made = create_table(client, deals=1)
    joined = client.post(f"/api/tables/{made['code']}/join", json={"name": "Ravi"}).json()
    return _TwoPlayers(pusher, key, made, joined)


def test_an_away_player_hears_of_the_start_and_his_turn_once(
    tmp_path: Path, loopback: None
) -> None:
    with push_service() as service, web_client(tmp_path) as (client, manager, checker):
        pusher, key, made, joined = _two_players(client, manager)
        queued: list[tuple[str, str, int]] = []
        pusher.queued = lambda kind, code, seat: queued.append((kind, code, seat))
        code = made["code"]
        ravi, asha, watcher = (service.browser(p) for p in ("/ravi", "/asha", "/watcher"))
        seat = joined["seat"]
        assert (
            _subscribe(client, ravi, [{"code": code, "token": joined["token"]}]).status_code == 201
        )
        assert _subscribe(client, asha, [{"code": code, "token": made["token"]}]).status_code == 201
        assert _subscribe(client, watcher, []).status_code == 201  # holds no seat
        host = Player(client, checker, code, made["token"])
        host.recv()
        spectator = Player(client, checker, code)
        spectator.send({"type": "visibility", "visible": False})
        host.send({"type": "start"})
        msg = host.until(lambda m: m["type"] == "state" and m["table"]["status"] == "playing")
        # Ravi is away (no socket): the start, then his turn once the table reaches it.
        assert ("start", code, seat) in queued
        assert ("start", code, 0) not in queued  # Asha's page is in sight
        rng = random.Random(3)
        while True:  # the host plays until the table waits for Ravi
            if my_turn(msg):
                play_my_turn(host, msg, rng)
            elif msg["type"] == "state" and manager.get(code).to_move == seat:
                break
            msg = host.recv()
        _wait(lambda: any(q[0] == "turn" for q in queued), "his turn's push")
        assert pusher.sender.flush()
        got = _pushes(service, ravi, key)
        assert [m["key"] for m in got] == ["start", "turn"]
        for m in got:
            assert m == {
                "type": "seep",
                "key": m["key"],
                "lang": "en",
                "code": code,
                "url": f"/t/{code}",
                "tag": f"seep-{code}",
            }
            assert not CARD.findall(json.dumps(m))  # no card, nothing of the game
        assert _pushes(service, asha, key) == [] and _pushes(service, watcher, key) == []
        # At most one a turn: his turn's wait running out again sends nothing.
        table = manager.get(code)
        assert table.to_move == seat
        pusher.hidden(table, seat)
        pusher._turn_over(table, (table.game_version, seat))
        assert [q for q in queued if q[0] == "turn"] == [("turn", code, seat)]
        # He comes back, his page in sight: a later turn of his sends nothing while he looks.
        back = Player(client, checker, code, joined["token"])
        state = back.until(lambda m: m["type"] == "state" and m["seat"] == seat)
        assert my_turn(state)  # the table waited for him
        table = manager.get(code)
        pusher._turn_over(table, (table.game_version, seat))
        assert [q for q in queued if q[0] == "turn"] == [("turn", code, seat)]
        # He plays; at his next turn his page is in sight (nothing), then hidden: one push.
        play_my_turn(back, state, rng)
        while True:
            msg = host.recv()
            if my_turn(msg):
                play_my_turn(host, msg, rng)
            elif msg["type"] == "state" and msg["version"] > state["version"]:
                if manager.get(code).to_move == seat:
                    break
        state = back.until(lambda m: my_turn(m) and m["version"] > state["version"])
        table = manager.get(code)
        pusher._turn_over(table, (table.game_version, seat))
        assert len([q for q in queued if q[0] == "turn"]) == 1
        back.send({"type": "visibility", "visible": False})
        _wait(lambda: len([q for q in queued if q[0] == "turn"]) == 2, "the hidden page's push")
        assert queued[-1] == ("turn", code, seat)
        assert pusher.sender.flush()
        assert [m["key"] for m in _pushes(service, ravi, key)] == ["start", "turn", "turn"]
        back.close()
        host.close()
        spectator.close()


def test_a_rematch_offer_reaches_the_player_away_and_a_gone_subscription_is_deleted(
    tmp_path: Path, loopback: None
) -> None:
    with (
        push_service() as service,
        web_client(tmp_path, grace_seconds=0.01) as (client, manager, checker),
    ):
        pusher, key, made, joined = _two_players(client, manager)
        code = made["code"]
        ravi = service.browser("/ravi")
        gone = service.browser("/gone")
        service.answers["/gone"] = 410  # that browser unsubscribed from its push service
        seats = [{"code": code, "token": joined["token"]}]
        assert _subscribe(client, ravi, seats, lang="hi").status_code == 201
        assert _subscribe(client, gone, seats).status_code == 201
        assert manager.store.push_count() == 2
        host = Player(client, checker, code, made["token"])
        host.recv()
        host.send({"type": "start"})
        rng = random.Random(5)
        while True:  # Ravi gone, a bot plays for him after his grace period
            msg = host.recv()
            if msg["type"] == "state" and msg["summary"] is not None:
                break
            if my_turn(msg):
                play_my_turn(host, msg, rng)
        host.send({"type": "next"})
        host.until(lambda m: m["type"] == "state" and m["table"]["status"] == "finished")
        host.send({"type": "rematch"})
        host.until(lambda m: m["type"] == "rematch")
        assert pusher.sender.flush()
        got = _pushes(service, ravi, key)
        assert got[0]["key"] == "start" and got[-1]["key"] == "rematch"
        assert {m["lang"] for m in got} == {"hi"} and {m["code"] for m in got} == {code}
        # The push service answered 410 for the other: it is deleted, and sent no more.
        assert manager.store.push_count() == 1
        assert pusher.sender.gone == 1
        assert len([r for r in service.received if r.path == "/gone"]) == 1
        host.close()


def test_a_subscription_keeps_its_newest_seats_and_an_account_its_newest_browsers(
    tmp_path: Path,
) -> None:
    store = Store(f"sqlite:///{tmp_path / 'seep.db'}")
    try:
        with store.engine.begin() as c:
            c.exec_driver_sql(
                "INSERT INTO accounts (name, name_key, password_hash, created) "
                "VALUES ('Asha', 'asha', 'hash', 1.0)"
            )

        def keep(n: int, seats: list[tuple[str, str]], account: int | None = None) -> int:
            b = Browser(f"https://fcm.googleapis.com/fcm/send/{n}")
            return store.add_push_subscription(
                b.endpoint,
                b.p256dh,
                b64url(b.auth),
                lang="en",
                account=account,
                client="192.0.2.1",
                seats=seats,
                per_client=0,
                per_account=2,
                per_subscription=3,
            )

        sub = keep(1, [(f"T{i}", "h") for i in range(5)])
        assert [t.id for t in store.push_targets("T4", "h", None)] == [sub]
        assert store.push_targets("T4", "other", None) == []  # another token: not his seat
        codes = ("T0", "T1", "T2", "T3", "T4")
        assert len([c for c in codes if store.push_targets(c, "h", None)]) == 3
        _first, second, third = (keep(n, [], account=1) for n in (2, 3, 4))
        assert [t.id for t in store.push_targets("X", None, 1)] == [second, third]
    finally:
        store.close()


# --- the hot path: only seats with a subscription -------------------------------------------


def test_a_seat_without_a_subscription_gets_no_timer_and_no_push(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A wait no run reaches: the timers are looked at, then run by hand.
    monkeypatch.setenv("SEEP_PUSH_LOOPBACK", "1")
    monkeypatch.setenv("SEEP_PUSH_TURN_SECONDS", "600")
    with push_service() as service, web_client(tmp_path) as (client, manager, checker):
        pusher, key, made, joined = _two_players(client, manager)
        assert pusher.sender is not None
        submitted: list[tuple[str, str, str | None, int | None]] = []
        submit = pusher.sender.submit

        def counted(kind: str, code: str, token_hash: str | None, account: int | None) -> bool:
            submitted.append((kind, code, token_hash, account))
            return submit(kind, code, token_hash, account)

        pusher.sender.submit = counted  # type: ignore[method-assign]
        code = made["code"]
        seat = joined["seat"]
        ravi = service.browser("/ravi")  # only Ravi subscribes; Asha, the host, does not
        assert (
            _subscribe(client, ravi, [{"code": code, "token": joined["token"]}]).status_code == 201
        )
        host = Player(client, checker, code, made["token"])
        him = Player(client, checker, code, joined["token"])
        for p in (host, him):  # both away (pages hidden), both playing
            p.until(lambda m: m["type"] == "state" and m["seat"] is not None)
            p.send({"type": "visibility", "visible": False})
        host.send({"type": "start"})
        rng = random.Random(11)
        played = {made["seat"]: 0, seat: 0}
        last = {made["seat"]: -1, seat: -1}
        while True:  # three turns each, then Ravi's next turn
            msg = host.recv()
            if msg["type"] != "state" or manager.get(code).status != "playing":
                continue
            mover = manager.get(code).to_move  # steady while a human's turn waits
            if mover not in played:
                continue
            p = host if mover == made["seat"] else him
            if p is him or not my_turn(msg):
                msg = p.until(lambda m, s=mover: my_turn(m) and m["version"] > last[s])
            held = pusher._timers.get(code)
            if mover == seat:  # Ravi's turn is watched
                assert held is not None and held[0] == (manager.get(code).game_version, seat)
            else:  # Asha's is not: she has no subscription
                assert held is None
            if mover == seat and min(played.values()) >= 3:
                break
            last[mover] = msg["version"]
            played[mover] += 1
            play_my_turn(p, msg, rng)
        table = manager.get(code)
        turn = (table.game_version, seat)
        assert pusher._timers[code][0] == turn
        pusher._turn_over(table, turn)  # as his timer would
        assert pusher.sender.flush()
        assert [m["key"] for m in _pushes(service, ravi, key)] == ["start", "turn"]
        # Every job was Ravi's: none queued for Asha's seat (away, but with no subscription).
        assert [(j[0], j[1]) for j in submitted] == [("start", code), ("turn", code)]
        assert {j[2] for j in submitted} == {manager.get(code).seats[seat].token_hash}
        him.close()
        host.close()


def test_a_subscription_kept_through_another_instance_is_found_when_its_player_goes_away(
    tmp_path: Path, loopback: None
) -> None:
    with (
        push_service() as service,
        # Ravi never comes: a bot plays for him at once, the table never waits for him.
        web_client(tmp_path, grace_seconds=0.01) as (client, manager, checker),
    ):
        pusher, key, made, joined = _two_players(client, manager)
        code = made["code"]
        ravi, asha = service.browser("/ravi"), service.browser("/asha")
        store = manager.store
        assert store is not None

        def elsewhere(browser: Browser, token: str) -> None:
            # Kept in the store as another instance's route keeps it: this one is not told.
            store.add_push_subscription(
                browser.endpoint,
                browser.p256dh,
                b64url(browser.auth),
                lang="en",
                account=None,
                client="192.0.2.1",
                seats=[(code, hash_token(token))],
                per_client=0,
                per_account=0,
                per_subscription=20,
            )

        elsewhere(ravi, joined["token"])
        elsewhere(asha, made["token"])
        host = Player(client, checker, code, made["token"])
        host.recv()
        host.send({"type": "start"})
        # Ravi never came: the start looks for his subscription and finds it.
        _wait(lambda: len(service.received) >= 1, "Ravi's start push")
        assert pusher.sender.flush()
        assert [m["key"] for m in _pushes(service, ravi, key)] == ["start"]
        # Asha's turn, her page in sight: no timer (she is not in the book yet); hidden, the
        # store is read, her subscription found, her turn watched and pushed.
        msg = host.until(my_turn)
        assert code not in pusher._timers
        host.send({"type": "visibility", "visible": False})
        _wait(lambda: bool(_pushes(service, asha, key)), "Asha's turn push")
        assert pusher.sender.flush()
        assert [m["key"] for m in _pushes(service, asha, key)] == ["turn"]
        assert manager.get(code).to_move == msg["seat"]  # the table waited for her
        host.close()
