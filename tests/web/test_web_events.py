"""Events over HTTP and sockets (docs/web.md "Events", seep.web.events): an organiser makes a
Swiss event, players register, check in and play its rounds at the tables the server opens
for them; the server restarts in the middle and the event goes on; pairings and standings
are those of seep.web.tournament.swiss over the results the tables' records give."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("argon2")

from fastapi.testclient import TestClient

from seep.session import Session
from seep.web.events import EventSettings, result_of_record
from seep.web.names import skeleton
from seep.web.store_events import RoundTable
from seep.web.tournament import swiss
from seepkit.events import make_event, round_open, until
from seepkit.ratings import play_out, sign_up
from seepkit.web import Player, web_client


def _code(r: Any) -> str:
    code: str = r.json()["error"]["code"]
    return code


def _event(org: TestClient, **extra: Any) -> int:
    return make_event(org, **{"format": "two", **extra})


@pytest.fixture(autouse=True)
def _many_signups(monkeypatch: pytest.MonkeyPatch) -> None:
    """The players all sign up from the test's one address."""
    monkeypatch.setenv("SEEP_MAX_SIGNUPS_PER_HOUR", "0")


def test_an_event_is_made_and_joined_within_its_rules(tmp_path: Path) -> None:
    """Only signed-in players make and join events; only the organiser starts, pauses, ends
    or withdraws a team; a four-player team is two partners, the second accepting; partners
    drawn each round at two players, a rated duplicate event, an arena's window of
    under five minutes or a window for another kind are refused; bounds are kept."""
    with web_client(tmp_path) as (client, manager, _):
        app = client.app
        guest = client
        r = guest.post("/api/events", json={"name": "X", "starts": time.time() + 60})
        assert r.status_code == 401 and _code(r) == "not_signed_in"
        org, asha, ravi, _mina = (sign_up(app, n) for n in ("Org", "Asha", "Ravi", "Mina"))
        for bad in (
            {"kind": "duplicate", "rated": True},
            {"kind": "arena", "minutes": 2},
            {"minutes": 30},
            {"partners": "individual", "format": "two"},
            {"rounds": 99},
            {"name": ""},
            {"name": "x" * 61},
            {"starts": time.time() + 400 * 24 * 3600},
        ):
            r = org.post("/api/events", json={"name": "E", "starts": time.time() + 60, **bad})
            assert r.status_code in (400, 409), (bad, r.text)
        four = _event(org, format="four")
        # A cookie POST from another site's page is refused before it acts.
        evil = {"Origin": "https://evil.example"}
        r = asha.post(f"/api/events/{four}/register", json={"partner": "Ravi"}, headers=evil)
        assert r.status_code == 403 and _code(r) == "bad_origin"
        # A team of four players: two partners; the second accepts.
        r = asha.post(f"/api/events/{four}/register", json={})
        assert r.status_code == 400
        r = asha.post(f"/api/events/{four}/register", json={"partner": "Nobody"})
        assert r.status_code == 404
        r = asha.post(f"/api/events/{four}/register", json={"partner": "Ravi"})
        assert r.status_code == 201, r.text
        r = ravi.post(f"/api/events/{four}/register", json={"partner": "Mina"})
        assert r.status_code == 409  # Ravi is in Asha's team already
        r = asha.post(f"/api/events/{four}/checkin")
        assert r.status_code == 409  # his partner has not accepted
        assert ravi.post(f"/api/events/{four}/accept").status_code == 200
        assert asha.post(f"/api/events/{four}/checkin").status_code == 200
        page = guest.get(f"/api/events/{four}").json()
        assert page["teams"][0]["name"] == "Asha & Ravi" and page["teams"][0]["checked_in"]
        assert "seed" not in page and page["me"] is None
        assert asha.get(f"/api/events/{four}").json()["me"] == {"team": page["teams"][0]["id"]}
        # The organiser's requests are his own.
        for action in ("start", "pause", "end"):
            r = asha.post(f"/api/events/{four}/{action}")
            assert r.status_code == 403 and _code(r) == "not_organiser"
        r = asha.post(f"/api/events/{four}/teams/withdraw", json={"team": 1})
        assert r.status_code == 403
        assert guest.get("/api/events/nothing").status_code == 404
        assert guest.get("/api/events/999").status_code == 404
        # An organiser keeps few events not finished.
        _event(org)
        _event(org)
        r = org.post("/api/events", json={"name": "E4", "starts": time.time() + 60})
        assert r.status_code == 429 and _code(r) == "too_many_events"
        assert org.post(f"/api/events/{four}/end").status_code == 200
        assert org.post(f"/api/events/{four}/end").status_code == 409
        listed = guest.get("/api/events").json()["events"]
        assert four not in [e["id"] for e in listed] and len(listed) == 2
        assert manager.tables == {}  # nothing opened


def _results(page: dict[str, Any], upto: int) -> list[swiss.Result]:
    """The Swiss results of the page's rounds up to ``upto``."""
    out: list[swiss.Result] = []
    for r in page["rounds"][:upto]:
        if r["bye"]:
            out.append(swiss.Result(r["bye"], None))
        for t in r["tables"]:
            a, b = t["teams"]
            res = t["result"]
            winner = None if res["winner"] is None else (a, b)[res["winner"]]
            out.append(swiss.Result(a, b, winner, res["score"][0] - res["score"][1]))
    return out


def _play_round(
    server: Any, browsers: list[TestClient], event: int, rng: random.Random, *, alone: bool
) -> None:
    """Every player asks for his seat; each table is played to its end over sockets by all
    its players, or (``alone``) by the first one only, a bot playing for the other, who does
    not come (a table nobody comes to does not move: docs/web.md "Events")."""
    client, manager, checker = server
    seats: dict[str, list[tuple[TestClient, dict[str, Any]]]] = {}
    for b in browsers:
        r = b.post(f"/api/events/{event}/seat")
        assert r.status_code == 200, r.text
        seats.setdefault(r.json()["code"], []).append((b, r.json()))
    for code, held in seats.items():
        here = held[:1] if alone else held
        # The sockets go through the app's own client (its event loop): a seat's token is
        # all a socket needs.
        players = [Player(client, checker, code, s["token"]) for _, s in here]
        play_out(players, manager.get(code), rng)
        for p in players:
            p.close()


def _browsers(app: Any, before: list[TestClient]) -> list[TestClient]:
    """The same players' browsers (their session cookies) on a restarted server."""
    return [TestClient(app, cookies=dict(b.cookies)) for b in before]


def _bye_and_playing(
    client: TestClient, event: int, number: int, names: list[str], browsers: list[TestClient]
) -> list[TestClient]:
    """The browsers of the players with a table in round ``number`` (the bye has none)."""
    page = client.get(f"/api/events/{event}").json()
    bye = page["rounds"][number - 1]["bye"]
    bye_name = next(t["name"] for t in page["teams"] if t["id"] == bye)
    bye_browser = browsers[names.index(bye_name)]
    assert bye_browser.post(f"/api/events/{event}/seat").status_code == 409
    return [b for n, b in zip(names, browsers, strict=True) if n != bye_name]


def test_a_swiss_event_plays_to_the_end_across_a_restart(tmp_path: Path) -> None:
    """Five players (two-player format: a bye each round), three rounds. Round 1 is played by
    all of them over sockets at the tables the server opened; the server restarts with round
    2 opened; rounds 2 and 3 are played by bots for the players who do not come. Each round's
    pairing is swiss.pair_round of the results before it, nobody meets anyone twice, the
    standings are swiss.standings, every result is its table's stored record's."""
    rng = random.Random(30)
    names = ["Asha", "Ravi", "Mina", "Kiran", "Dev"]
    with web_client(tmp_path, grace_seconds=3600.0) as server:
        client, _, _ = server
        org = sign_up(client.app, "Org")
        browsers = [sign_up(client.app, n) for n in names]
        event = _event(org, rounds=3)
        for b in browsers:
            assert b.post(f"/api/events/{event}/register", json={}).status_code == 201
            assert b.post(f"/api/events/{event}/checkin").status_code == 200
        late = sign_up(client.app, "Late")  # registered, never checked in: not in the event
        assert late.post(f"/api/events/{event}/register", json={}).status_code == 201
        pushed: list[tuple[str, str, int]] = []
        pusher = client.app.state.pusher
        pusher.queued = lambda kind, code, seat: pushed.append((kind, code, seat))
        store = client.app.state.store
        # Every player turned notifications on (the push book: only they are pushed to).
        for n in names:
            row = store.account_named(skeleton(n))
            assert row is not None
            pusher.book.accounts.add(row.id)
        assert org.post(f"/api/events/{event}/start").status_code == 200
        until(lambda: round_open(store, event, 1))
        # Each player of the round is told his table has started (a push where he allowed it).
        for t in store.event_tables(event, 1):
            assert {("start", t["code"], 0), ("start", t["code"], 1)} <= set(pushed)
        assert late.post(f"/api/events/{event}/checkin").status_code == 409
        r = late.post(f"/api/events/{event}/seat")
        assert r.status_code == 409
        page = client.get(f"/api/events/{event}").json()
        [first] = page["rounds"]
        assert len(first["tables"]) == 2 and first["bye"] is not None
        playing = _bye_and_playing(client, event, 1, names, browsers)
        _play_round(server, playing, event, rng, alone=False)
        until(lambda: round_open(store, event, 2))
    # The restart: a new server on the same database; round 2's tables are reloaded and the
    # runner goes on. One player of each table comes; a bot plays for the other.
    with web_client(tmp_path, grace_seconds=0.05) as server:
        client, _, _ = server
        store = client.app.state.store
        browsers = _browsers(client.app, browsers)
        for number in (2, 3):
            until(lambda: round_open(store, event, number))  # noqa: B023
            playing = _bye_and_playing(client, event, number, names, browsers)
            _play_round(server, playing, event, rng, alone=True)
        until(lambda: store.event(event)["status"] == "finished")
        page = client.get(f"/api/events/{event}").json()
        # The server's seeds (the event's, each round's) are in no answer.
        seeds = [store.event(event)["seed"], *(r["seed"] for r in store.rounds(event))]
        shown = json.dumps([page, client.get("/api/events").json()])
        assert not [s for s in seeds if s in shown]
    assert [r["number"] for r in page["rounds"]] == [1, 2, 3]
    ids = [t["id"] for t in page["teams"] if t["checked_in"]]
    assert len(ids) == 5
    met: set[frozenset[int]] = set()
    byes = []
    for n, r in enumerate(page["rounds"]):
        expected = swiss.pair_round(ids, _results(page, n))
        assert [tuple(t["teams"]) for t in r["tables"]] == list(expected.pairs)
        assert r["bye"] == expected.bye
        byes.append(r["bye"])
        for t in r["tables"]:
            pair = frozenset(t["teams"])
            assert pair not in met
            met.add(pair)
            assert t["status"] == "finished"
    assert len(set(byes)) == 3  # a fresh bye each round
    # Each result is the one its table's stored record gives.
    records = store_records(tmp_path, [t["code"] for r in page["rounds"] for t in r["tables"]])
    for r in page["rounds"]:
        for t in r["tables"]:
            record = records[t["code"]]
            assert t["result"] == result_of_record(record)
            # The match was played out: its one deal (the event's deals a round) finished.
            assert [d["result"] is not None for d in record["deals"]] == [True]
            assert Session.from_record(record).deal_over
    standings = swiss.standings(ids, _results(page, 3))
    assert [(s["team"], s["points"], s["buchholz"], s["diff"]) for s in page["standings"]] == [
        (s.team, s.points, s.buchholz, s.diff) for s in standings
    ]
    assert sum(s["points"] for s in page["standings"]) == 2 * (6 + 3)  # 6 games, 3 byes


def store_records(tmp_path: Path, codes: list[str]) -> dict[str, dict[str, Any]]:
    import sqlite3

    con = sqlite3.connect(tmp_path / "seep.db")
    try:
        rows = con.execute(
            f"SELECT code, record FROM tables WHERE code IN ({','.join('?' * len(codes))})",
            codes,
        ).fetchall()
    finally:
        con.close()
    return {code: json.loads(record) for code, record in rows}


def test_the_organiser_pauses_and_withdraws_a_player(tmp_path: Path) -> None:
    """A paused event opens no round and records none; the organiser withdraws a player, who
    plays no further round but stays in the standings; the event ends after its last round."""
    rng = random.Random(7)
    names = ["Asha", "Ravi", "Mina", "Kiran"]
    with web_client(tmp_path, grace_seconds=0.05) as server:
        client = server[0]
        store = client.app.state.store
        org = sign_up(client.app, "Org")
        browsers = [sign_up(client.app, n) for n in names]
        event = _event(org, rounds=2)
        for b in browsers:
            b.post(f"/api/events/{event}/register", json={})
            b.post(f"/api/events/{event}/checkin")
        assert org.post(f"/api/events/{event}/start").status_code == 200
        until(lambda: round_open(store, event, 1))
        assert org.post(f"/api/events/{event}/pause").status_code == 200
        _play_round(server, browsers, event, rng, alone=True)
        events = client.app.state.events
        time.sleep(3 * events.settings.tick_seconds)
        assert store.rounds(event)[0]["status"] == "playing"  # paused: nothing recorded
        gone = store.teams(event)[3]["id"]
        r = org.post(f"/api/events/{event}/teams/withdraw", json={"team": gone})
        assert r.status_code == 200
        assert org.post(f"/api/events/{event}/resume").status_code == 200
        until(lambda: round_open(store, event, 2))
        page = client.get(f"/api/events/{event}").json()
        second = page["rounds"][1]
        assert len(second["tables"]) == 1 and second["bye"] not in (None, gone)
        assert gone not in second["tables"][0]["teams"]
        playing = [
            b for b in browsers[:3] if b.post(f"/api/events/{event}/seat").status_code == 200
        ]
        assert len(playing) == 2
        _play_round(server, playing, event, rng, alone=True)
        until(lambda: store.event(event)["status"] == "finished")
        page = client.get(f"/api/events/{event}").json()
        line = next(s for s in page["standings"] if s["team"] == gone)
        assert line["withdrawn"] and line["played"] == 1


def test_event_requests_are_limited_per_address_and_account(tmp_path: Path) -> None:
    with web_client(tmp_path) as (client, _, _):
        asha = sign_up(client.app, "Asha")
        codes = [asha.post("/api/events/1/checkin").status_code for _ in range(31)]
        assert codes[:30] == [404] * 30 and codes[30] == 429


def test_a_round_recorded_before_its_tables_opened_gets_them(tmp_path: Path) -> None:
    """The server stopped between recording a round and opening its tables: the runner opens
    the recorded tables (the round is recorded first, so no table opens twice)."""
    with web_client(tmp_path) as (client, manager, _):
        store = client.app.state.store
        events = client.app.state.events
        events.settings = EventSettings(tick_seconds=3600.0)
        time.sleep(2.5)  # the tick under way before the change has passed
        org = sign_up(client.app, "Org")
        asha, ravi = sign_up(client.app, "Asha"), sign_up(client.app, "Ravi")
        event = _event(org, rounds=1)
        for b in (asha, ravi):
            b.post(f"/api/events/{event}/register", json={})
            b.post(f"/api/events/{event}/checkin")
        a, b = (t["id"] for t in store.teams(event))
        assert store.set_event(event, ("open",), status="running")
        assert store.open_round(event, 1, seed=1, bye=None, tables=[RoundTable("QQQQQQ", 1, a, b)])
        assert "QQQQQQ" not in manager.tables
        events.wake()
        until(lambda: "QQQQQQ" in manager.tables)
        table = manager.tables["QQQQQQ"]
        assert [s.name for s in table.seats] == ["Asha", "Ravi"]
        assert table.status == "playing"
        seat = ravi.post(f"/api/events/{event}/seat").json()
        assert (seat["code"], seat["seat"]) == ("QQQQQQ", 1)
        assert table.seat_of_token(seat["token"]) == 1
        events.wake()
        time.sleep(0.5)
        assert list(manager.tables) == ["QQQQQQ"]  # opened once


@pytest.mark.parametrize("taken_over", [False, True])
def test_an_event_without_bots_gives_no_seat_to_a_bot(
    tmp_path: Path, monkeypatch: Any, taken_over: bool
) -> None:
    """``bots: false``: a player who does not come gets no bot. Past his grace period and the
    forfeit's wait (docs/web.md "Fair play") he has forfeited: the table closes, his side lost
    whatever was played, and nobody ever moved for him. ``taken_over``: the instance serving
    the table did not open it (several instances): it asks the store."""
    monkeypatch.setenv("SEEP_FORFEIT_SECONDS", "0.3")
    with web_client(tmp_path, grace_seconds=0.05) as (client, manager, checker):
        store = client.app.state.store
        if taken_over:
            events = client.app.state.events
            events.watch = lambda ev, code: events.codes.add(code)  # marks nothing here
            manager.no_bots_of = store.without_bots
        away: list[bool] = []  # whether a bot played for anyone, at every change of a table
        manager.observers.append(lambda t: away.append(any(s.away for s in t.seats)))
        org = sign_up(client.app, "Org")
        asha, ravi = sign_up(client.app, "Asha"), sign_up(client.app, "Ravi")
        event = _event(org, rounds=1, bots=False)
        for b in (asha, ravi):
            b.post(f"/api/events/{event}/register", json={})
            b.post(f"/api/events/{event}/checkin")
        assert org.post(f"/api/events/{event}/start").status_code == 200
        until(lambda: round_open(store, event, 1))
        seat = asha.post(f"/api/events/{event}/seat").json()
        player = Player(client, checker, seat["code"], seat["token"])
        player.until(lambda m: m["type"] == "state" and m["seat"] is not None)
        absent = 1 - seat["seat"]
        until(lambda: store.event(event)["status"] == "finished")
        player.close()
        page = client.get(f"/api/events/{event}").json()
    [table] = page["rounds"][0]["tables"]
    assert table["status"] == "closed"
    assert table["result"]["forfeited"] == [absent] and table["result"]["winner"] == 1 - absent
    assert away and not any(away)  # no bot ever took his seat
    ranks = {s["team"]: s["points"] for s in page["standings"]}
    mine = page["teams"][0]["id"] if page["teams"][0]["name"] == "Asha" else page["teams"][1]["id"]
    assert ranks[mine] == 2 and sorted(ranks.values()) == [0, 2]


def test_a_round_of_baazis_is_played_until_a_side_has_won_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An event whose rounds are baazis ("deals or baazis a round"): its table plays until a
    side has won the baazi (R45, R46), whatever the deals it takes, and the round's result
    counts it; a duplicate event's rounds are deals only."""
    # The absent player's side says no "next" after each deal: the table goes on at once.
    monkeypatch.setenv("SEEP_READY_SECONDS", "0.05")
    server = web_client(tmp_path, grace_seconds=0.05)
    with server as (client, manager, checker):
        org = sign_up(client.app, "Org")
        players = [sign_up(client.app, n) for n in ("Asha", "Ravi")]
        refused = org.post(
            "/api/events",
            json={"name": "D", "kind": "duplicate", "baazis": 1, "starts": time.time() + 60},
        )
        assert refused.status_code == 400 and "baazis" in refused.json()["error"]["message"]
        event = _event(org, rounds=1, baazis=1)
        for b in players:
            assert b.post(f"/api/events/{event}/register", json={}).status_code == 201
            assert b.post(f"/api/events/{event}/checkin").status_code == 200
        assert org.post(f"/api/events/{event}/start").status_code == 200
        store = client.app.state.store
        until(lambda: round_open(store, event, 1))
        [row] = store.event_tables(event, 1)
        table = manager.get(row["code"])
        assert table.settings["baazis"] == 1 and table.settings["deals"] is None
        # Asha plays her seat to the baazi's end; a bot plays for Ravi, who does not come.
        _play_round((client, manager, checker), players, event, random.Random(12), alone=True)
        until(lambda: store.event(event)["status"] == "finished")
        page = client.get(f"/api/events/{event}").json()
    assert page["baazis"] == 1 and page["planned"] == {"rounds": 1, "deals": 1, "baazis": 1}
    [played] = page["rounds"][0]["tables"]
    result = played["result"]
    assert sorted(result["baazis"]) == [0, 1] and result["winner"] == result["baazis"].index(1)
    assert result["deals"] >= 1
