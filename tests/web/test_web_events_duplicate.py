"""Duplicate events over HTTP and sockets (docs/web.md "Events", seep.web.events_runner): every
table of a round plays the same shuffles, deal by deal; a deal shows nothing (records, replays,
results, spectators, the event's page) until every table of the round has finished it, tried as
an attacker would; and the issue's Done-when: a Swiss event of eight teams and a duplicate event
of four (the friendly two tables: eight people) played to the end over sockets on one server,
restarted in the middle, their pairings, standings, matchpoints and shuffles checked."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("argon2")

from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from seep.web.events import result_of_record
from seep.web.tournament import arena, duplicate, individual, swiss
from seepkit.events import make_event, until
from seepkit.ratings import play_out, sign_up
from seepkit.web import Player, web_client


@pytest.fixture(autouse=True)
def _many_signups(monkeypatch: pytest.MonkeyPatch) -> None:
    """The players all sign up from the test's one address."""
    monkeypatch.setenv("SEEP_MAX_SIGNUPS_PER_HOUR", "0")


def _join(event: int, browsers: list[TestClient], names: list[str], four: bool) -> None:
    """Register and check in: at four players browsers 2k and 2k+1 are partners."""
    if four:
        for i in range(0, len(browsers), 2):
            r = browsers[i].post(f"/api/events/{event}/register", json={"partner": names[i + 1]})
            assert r.status_code == 201, r.text
            assert browsers[i + 1].post(f"/api/events/{event}/accept").status_code == 200
            assert browsers[i].post(f"/api/events/{event}/checkin").status_code == 200
    else:
        for b in browsers:
            assert b.post(f"/api/events/{event}/register", json={}).status_code == 201
            assert b.post(f"/api/events/{event}/checkin").status_code == 200


def _deal_open(store: Any, event: int, number: int, deal: int) -> bool:
    """Round ``number``'s deal ``deal`` is recorded and its tables are open."""
    rows = [r for r in store.event_tables(event, number) if r["deal"] == deal]
    return (
        store.event(event)["round"] == number
        and bool(rows)
        and all(r["table_status"] for r in rows)
    )


def _seated(client: TestClient, checker: Any, code: str, token: str) -> Player:
    """A player at a round's table: the hello first (a sealed table sends nothing before it;
    an open one sends the spectator's state, which the player reads past)."""
    p = Player(client, checker, code)
    p.send({"type": "hello", "token": token})
    return p


def _play(
    server: Any,
    browsers: list[TestClient],
    event: int,
    rng: random.Random,
    codes: set[str] | None = None,
) -> dict[str, list[tuple[TestClient, dict[str, Any]]]]:
    """Every browser asks for its seat; at each table (those of ``codes`` only, when given)
    the first player who asked plays it out over his socket, bots playing the other seats.
    The seats asked, by table."""
    client, manager, checker = server
    seats: dict[str, list[tuple[TestClient, dict[str, Any]]]] = {}
    for b in browsers:
        r = b.post(f"/api/events/{event}/seat")
        if r.status_code == 409:
            continue  # the bye
        assert r.status_code == 200, r.text
        seats.setdefault(r.json()["code"], []).append((b, r.json()))
    for code, held in seats.items():
        if codes is not None and code not in codes:
            continue
        player = _seated(client, checker, code, held[0][1]["token"])
        play_out([player], manager.get(code), rng)
        player.close()
    return seats


# --- the leak test ---------------------------------------------------------------------------


def _refused(r: Any) -> bool:
    return r.status_code in (403, 404, 409, 429) and "error" in r.json()


def _spectate(client: TestClient, code: str, token: str | None = None) -> list[dict[str, Any]]:
    """What a socket to ``code`` is sent before it ends (at most 3 messages): as a spectator,
    or saying hello with ``token`` (another table's seat)."""
    got: list[dict[str, Any]] = []
    with client.websocket_connect(f"/ws/{code}") as ws:
        if token is not None:
            ws.send_text(json.dumps({"type": "hello", "token": token}))
        else:
            ws.send_text(json.dumps({"type": "chat", "text": "hi"}))
        try:
            for _ in range(3):
                got.append(json.loads(ws.receive_text()))
        except WebSocketDisconnect:
            pass
    return got


def test_a_duplicate_deal_shows_nothing_until_every_table_finished_it(tmp_path: Path) -> None:
    """Four players (two-player format), one round of two deals. Table A finishes deal 1;
    table B's players have not come (a table nobody comes to does not move). A's winner asks
    every endpoint he can for B's deal, for his own table's record and for deal 2: he is
    refused or answered without a code, card, score or seed of them. B plays; deal 1 opens
    to all, deal 2's tables open, and a deal's record shows the same cards at both tables."""
    rng = random.Random(5)
    names = ["Asha", "Ravi", "Mina", "Kiran"]
    with web_client(tmp_path, grace_seconds=0.05) as server:
        client = server[0]
        store = client.app.state.store
        org = sign_up(client.app, "Org")
        browsers = [sign_up(client.app, n) for n in names]
        event = make_event(org, kind="duplicate", format="two", rounds=1, deals=2)
        _join(event, browsers, names, four=False)
        assert org.post(f"/api/events/{event}/start").status_code == 200
        until(lambda: _deal_open(store, event, 1, 0))
        a_row, b_row = store.event_tables(event, 1)
        assert (a_row["swapped"], b_row["swapped"]) == (False, True)  # the second table swapped
        a, b = a_row["code"], b_row["code"]
        seats = _play(server, browsers, event, rng, codes={a})
        until(lambda: store.event_tables(event, 1)[0]["table_status"] == "finished")
        attacker, his = seats[a][0]
        # Nobody watches, or asks by code for, a table of the deal: B's, nor his own (the
        # cards of his deal are B's too).
        for code in (a, b):
            for path in ("", "/replay", "/record"):
                assert _refused(attacker.get(f"/api/tables/{code}{path}")), (code, path)
                assert _refused(client.get(f"/api/tables/{code}{path}")), (code, path)
            r = attacker.post(f"/api/tables/{code}/join", json={"name": "Asha"})
            assert _refused(r)
        [ended] = _spectate(client, b)
        assert ended["type"] == "error" and ended["code"] == "not_allowed"
        # His own seat's token is no key to B's table.
        [ended] = _spectate(client, b, his["token"])
        assert ended["type"] == "error"
        # His downloads hold no record of the deal; his list names the table, no score.
        mine = attacker.get("/api/me/records").json()["matches"]
        assert [m["code"] for m in mine] == [a] and "record" not in mine[0]
        page = attacker.get(f"/api/events/{event}").json()
        shown = json.dumps(
            [
                page,
                attacker.get("/api/events").json(),
                attacker.get("/api/me/matches").json(),
                mine,
                attacker.get("/api/lobby").json(),
            ]
        )
        assert page["deals"] == [] and page["standings"][0]["percent"] is None
        assert all(t["code"] is None and t["result"] is None for t in page["rounds"][0]["tables"])
        assert b not in shown  # (his own table's code he knows: it is in his list)
        # The seeds (the event's, the round's, each deal's) are in no answer.
        round_seed = int(store.rounds(event)[0]["seed"])
        seeds = [store.event(event)["seed"], str(round_seed)]
        seeds += [str(duplicate.deal_seed(round_seed, d)) for d in (0, 1)]
        assert not [s for s in seeds if s in shown]
        # Deal 2 has no table yet: nothing of it exists to ask for.
        assert {r["deal"] for r in store.event_tables(event, 1)} == {0}
        # B plays: deal 1 opens to everyone, deal 2's tables open.
        _play(server, browsers, event, rng, codes={b})
        until(lambda: _deal_open(store, event, 1, 1))
        page = client.get(f"/api/events/{event}").json()
        [line] = page["deals"]
        assert (line["round"], line["deal"]) == (1, 0) and len(line["results"]) == 4
        records = [client.get(f"/api/tables/{c}/record").json() for c in (a, b)]
        assert records[0]["deals"][0]["start"] == records[1]["deals"][0]["start"]
        assert "seed" not in records[0] and "seed" not in records[1]  # none while it runs
        mine = attacker.get("/api/me/records").json()["matches"]
        assert mine[0]["record"]["deals"] == records[0]["deals"] and "seed" not in mine[0]["record"]
        assert client.get(f"/api/tables/{b}/replay").status_code == 200
        # Deal 2's tables are sealed now, as deal 1's were.
        later = [r["code"] for r in store.event_tables(event, 1) if r["deal"] == 1]
        assert all(_refused(client.get(f"/api/tables/{c}/record")) for c in later)
        _play(server, browsers, event, rng)
        until(lambda: store.event(event)["status"] == "finished")
        assert len(client.get(f"/api/events/{event}").json()["deals"]) == 2


# --- the Done-when --------------------------------------------------------------------------


def _swiss_results(page: dict[str, Any], upto: int) -> list[swiss.Result]:
    """The Swiss results of the page's rounds up to ``upto``: a pair's tables of a round
    (a duplicate round's deals) make one game, won by the side that won more of them."""
    out: list[swiss.Result] = []
    for r in page["rounds"][:upto]:
        if r["bye"]:
            out.append(swiss.Result(r["bye"], None))
        games: dict[tuple[int, int], list[int]] = {}
        for t in r["tables"]:
            a, b = t["teams"]
            res = t["result"]
            side_a = 1 if t["swapped"] else 0
            game = games.setdefault((a, b), [0, 0, 0])
            game[0] += res["score"][side_a] - res["score"][1 - side_a]
            if res["winner"] is not None:
                game[1 if res["winner"] == side_a else 2] += 1
        for (a, b), (diff, won_a, won_b) in games.items():
            winner = a if won_a > won_b else b if won_b > won_a else None
            out.append(swiss.Result(a, b, winner, diff))
    return out


def _check_pairings(page: dict[str, Any], rounds: int) -> None:
    """Each round's pairing is swiss.pair_round of the results before it, with no rematch."""
    ids = [t["id"] for t in page["teams"] if t["checked_in"]]
    met: set[frozenset[int]] = set()
    assert [r["number"] for r in page["rounds"]] == list(range(1, rounds + 1))
    for n, r in enumerate(page["rounds"]):
        expected = swiss.pair_round(ids, _swiss_results(page, n))
        pairs = list(dict.fromkeys(tuple(t["teams"]) for t in r["tables"]))
        assert pairs == list(expected.pairs)
        assert r["bye"] == expected.bye
        for pair in pairs:
            assert frozenset(pair) not in met
            met.add(frozenset(pair))


def _records(store: Any, codes: list[str]) -> dict[str, dict[str, Any]]:
    return {c: json.loads(t) for c, t in store.table_records(codes).items() if t}


def test_a_swiss_and_a_duplicate_event_play_to_the_end_across_a_restart(tmp_path: Path) -> None:
    """The issue's Done-when. On one server: a Swiss event of eight players (two-player
    format), three rounds, and a duplicate event of four teams of partners (the friendly
    two tables: eight people), two rounds of two deals. At every table one player plays over
    his socket, bots playing the other seats. The server restarts after the Swiss round 1 and
    the duplicate's first deal, with the next opened. Then: every Swiss round's pairing is
    swiss.pair_round of the results before it, its standings swiss.standings; every table of a
    duplicate round's deal held the same cards in the same seats (its record's start), half
    of them with the teams' sides swapped; the matchpoints, field averages and percentages are
    duplicate.matchpoints and duplicate.standings of the scores the records give."""
    rng = random.Random(30)
    swiss_names = [f"Sw{i}" for i in range(8)]
    dup_names = [f"Du{i}" for i in range(8)]
    with web_client(tmp_path, grace_seconds=0.05) as server:
        client = server[0]
        store = client.app.state.store
        org = sign_up(client.app, "Org")
        sw_browsers = [sign_up(client.app, n) for n in swiss_names]
        du_browsers = [sign_up(client.app, n) for n in dup_names]
        sw = make_event(org, format="two", rounds=3)
        du = make_event(org, kind="duplicate", format="four", rounds=2, deals=2)
        _join(sw, sw_browsers, swiss_names, four=False)
        _join(du, du_browsers, dup_names, four=True)
        assert org.post(f"/api/events/{sw}/start").status_code == 200
        assert org.post(f"/api/events/{du}/start").status_code == 200
        until(lambda: _deal_open(store, sw, 1, 0) and _deal_open(store, du, 1, 0))
        _play(server, sw_browsers, sw, rng)
        _play(server, du_browsers, du, rng)
        until(lambda: _deal_open(store, sw, 2, 0) and _deal_open(store, du, 1, 1))
    # The restart: a new server on the same database goes on where both events stood.
    with web_client(tmp_path, grace_seconds=0.05) as server:
        client = server[0]
        store = client.app.state.store
        sw_browsers = [TestClient(client.app, cookies=dict(b.cookies)) for b in sw_browsers]
        du_browsers = [TestClient(client.app, cookies=dict(b.cookies)) for b in du_browsers]
        for number, deal in ((1, 1), (2, 0), (2, 1)):
            until(lambda: _deal_open(store, du, number, deal))  # noqa: B023
            _play(server, du_browsers, du, rng)
        for number in (2, 3):
            until(lambda: _deal_open(store, sw, number, 0))  # noqa: B023
            _play(server, sw_browsers, sw, rng)
        until(lambda: store.event(sw)["status"] == store.event(du)["status"] == "finished")
        sw_page = client.get(f"/api/events/{sw}").json()
        du_page = client.get(f"/api/events/{du}").json()
        codes = [t["code"] for p in (sw_page, du_page) for r in p["rounds"] for t in r["tables"]]
        records = _records(store, codes)
    # Swiss: pairings, results and standings.
    _check_pairings(sw_page, 3)
    ids = [t["id"] for t in sw_page["teams"]]
    for r in sw_page["rounds"]:
        assert len(r["tables"]) == 4 and r["bye"] is None
        for t in r["tables"]:
            assert t["result"] == result_of_record(records[t["code"]])
    standings = swiss.standings(ids, _swiss_results(sw_page, 3))
    assert [(s["team"], s["points"], s["buchholz"], s["diff"]) for s in sw_page["standings"]] == [
        (s.team, s.points, s.buchholz, s.diff) for s in standings
    ]
    # Duplicate: two tables a deal, the second swapped; the same cards at both.
    _check_pairings(du_page, 2)
    scores: list[duplicate.DealScore] = []
    starts: list[Any] = []
    for r in du_page["rounds"]:
        for deal in (0, 1):
            tables = [t for t in r["tables"] if t["deal"] == deal]
            assert [t["swapped"] for t in tables] == [False, True]
            [start] = {json.dumps(records[t["code"]]["deals"][0]["start"]) for t in tables}
            starts.append(start)
            for t in tables:
                record = records[t["code"]]
                assert t["result"] == result_of_record(record)
                [one] = record["deals"]
                side_a = 1 if t["swapped"] else 0
                key = r["number"] * 1000 + deal
                for team, side in ((t["teams"][0], side_a), (t["teams"][1], 1 - side_a)):
                    margin = duplicate.margin(one["result"]["score"], side)
                    scores.append(duplicate.DealScore(team, key, side, margin))
    assert len(set(starts)) == 4  # every deal its own shuffle
    expected = {(m.team, m.deal): m for m in duplicate.matchpoints(scores)}
    assert len(du_page["deals"]) == 4
    for line in du_page["deals"]:
        assert len(line["results"]) == 4
        for res in line["results"]:
            m = expected[(res["team"], line["round"] * 1000 + line["deal"])]
            assert res["score"] == m.score and res["matchpoints"] == m.points
            assert m.field is not None and res["field_average"] == float(m.field)
            assert res["percent"] == m.percent
    du_ids = [t["id"] for t in du_page["teams"]]
    lines = [(s["team"], s["matchpoints"], s["percent"]) for s in du_page["standings"]]
    assert lines == [(s.team, s.points, s.percent) for s in duplicate.standings(du_ids, scores)]
    # Matchpoints share out two per pair of teams that held the same cards.
    assert sum(s["matchpoints"] for s in du_page["standings"]) == 4 * 2 * 2  # deals, sides


# --- arena ----------------------------------------------------------------------------------


def _arena_expected(page: dict[str, Any], upto: int) -> list[tuple[int, int]]:
    """The pairs the arena makes once the games of boards up to ``upto`` are known: its
    free teams (not withdrawn, not in a game still running), the longest waiting first,
    paired by arena.pair_free over the standings of the games with a result."""
    ids = [t["id"] for t in page["teams"] if t["checked_in"]]
    tables = [t for t in page["rounds"][0]["tables"] if t["board"] <= upto]
    done = sorted(
        (t for t in tables if t["result"]), key=lambda t: (t["result"]["ended"], t["board"])
    )
    games = [
        arena.Game(
            *t["teams"],
            None if t["result"]["winner"] is None else t["teams"][t["result"]["winner"]],
        )
        for t in done
    ]
    last = {}
    for t in done:
        for team in t["teams"]:
            last[team] = t["result"]["ended"]
    busy = {team for t in tables if not t["result"] for team in t["teams"]}
    free = sorted((i for i in ids if i not in busy), key=lambda i: (last.get(i, 0.0), ids.index(i)))
    pairs, _ = arena.pair_free(arena.free_teams(arena.standings(ids, games), free))
    return [(int(a), int(b)) for a, b in pairs]


def test_an_arena_pairs_a_finished_team_at_once_until_its_window_closes(
    tmp_path: Path,
) -> None:
    """Five players (two-player format) in an arena. Its games are played one at a time over
    sockets: each that ends is scored at once and its teams paired again with the free team
    nearest in rank (arena.pair_free: the longest waiting first, no immediate rematch while
    another is free); the standings are live and are arena.standings of the games in the
    order they ended (a streak's wins counting double). At the window's end the event ends;
    a game still running then does not count."""
    rng = random.Random(11)
    names = ["Asha", "Ravi", "Mina", "Kiran", "Dev"]
    with web_client(tmp_path, grace_seconds=0.05) as server:
        client, manager, checker = server
        store = client.app.state.store
        events = client.app.state.events
        org = sign_up(client.app, "Org")
        browsers = [sign_up(client.app, n) for n in names]
        r = org.post(
            "/api/events",
            json={"name": "Arena", "kind": "swiss", "minutes": 30, "starts": time.time() + 60},
        )
        assert r.status_code == 400  # a window is an arena's only
        event = make_event(org, kind="arena", format="two", minutes=30)
        _join(event, browsers, names, four=False)
        assert org.post(f"/api/events/{event}/start").status_code == 200

        def page() -> dict[str, Any]:
            found: dict[str, Any] = client.get(f"/api/events/{event}").json()
            return found

        def settled(boards: int) -> dict[str, Any] | None:
            """The page once at least ``boards`` games are recorded, their tables open and
            at most one team is free (the arena pairs every other at once)."""
            p = page()
            tables = p["rounds"][0]["tables"] if p["rounds"] else []
            busy = {x for t in tables if t["status"] == "playing" for x in t["teams"]}
            ok = len(tables) >= boards and all(t["status"] for t in tables)
            return p if ok and len(p["teams"]) - len(busy) <= 1 else None

        p = until(lambda: settled(2))
        assert [tuple(t["teams"]) for t in p["rounds"][0]["tables"]] == _arena_expected(p, 0)
        played = 0
        while played < 6:
            playing = [t for t in p["rounds"][0]["tables"] if t["status"] == "playing"]
            table = playing[0]
            boards = len(p["rounds"][0]["tables"])
            by_team = {t["id"]: browsers[names.index(t["name"])] for t in p["teams"]}
            seat = by_team[table["teams"][0]].post(f"/api/events/{event}/seat").json()
            assert seat["code"] == table["code"]
            player = _seated(client, checker, seat["code"], seat["token"])
            play_out([player], manager.get(seat["code"]), rng)
            player.close()
            played += 1
            # Scored and paired again at once: the new games are those the arena makes.
            p = until(lambda: settled(boards) and _scored(page(), table["board"]))  # noqa: B023
            p = until(lambda: settled(boards))  # noqa: B023
            new = [tuple(t["teams"]) for t in p["rounds"][0]["tables"] if t["board"] > boards]
            assert new == _arena_expected(p, boards)
            live = p["standings"]
            ids = [t["id"] for t in p["teams"]]
            games = _arena_games(p)
            assert [(s["team"], s["points"], s["streak"]) for s in live] == [
                (s.team, s.points, s.streak) for s in arena.standings(ids, games)
            ]
        # The window closes: the event ends; the games still running do not count.
        running = [t["code"] for t in p["rounds"][0]["tables"] if t["status"] == "playing"]
        events.clock = lambda: time.time() + 3600.0
        events.wake()
        until(lambda: store.event(event)["status"] == "finished")
        final = page()
    assert len(_arena_games(final)) == 6
    assert all(t["result"] is None for t in final["rounds"][0]["tables"] if t["code"] in running)
    ids = [t["id"] for t in final["teams"]]
    assert [(s["team"], s["points"], s["played"]) for s in final["standings"]] == [
        (s.team, s.points, s.played) for s in arena.standings(ids, _arena_games(final))
    ]


def _scored(page: dict[str, Any], board: int) -> bool:
    return any(t["board"] == board and t["result"] for t in page["rounds"][0]["tables"])


def _arena_games(page: dict[str, Any]) -> list[arena.Game]:
    done = sorted(
        (t for t in page["rounds"][0]["tables"] if t["result"]),
        key=lambda t: (t["result"]["ended"], t["board"]),
    )
    out = []
    for t in done:
        w = t["result"]["winner"]
        out.append(arena.Game(t["teams"][0], t["teams"][1], None if w is None else t["teams"][w]))
    return out


# --- partners drawn each round ----------------------------------------------------------------


def _individual_results(page: dict[str, Any], upto: int) -> list[swiss.Result]:
    """Each player's games of the rounds up to ``upto``: his side's result against the
    opponent drawn with him (team_a against team_b, their partners against each other)."""
    out: list[swiss.Result] = []
    for r in page["rounds"][:upto]:
        if r["bye"]:
            out.append(swiss.Result(r["bye"], None))
        for t in r["tables"]:
            res = t["result"]
            pairs = [tuple(t["teams"])]
            if None not in t["partners"]:
                pairs.append(tuple(t["partners"]))
            for a, b in pairs:
                winner = None if res["winner"] is None else (a, b)[res["winner"]]
                out.append(swiss.Result(a, b, winner, res["score"][0] - res["score"][1]))
    return out


def test_partners_drawn_each_round_seat_players_alone(tmp_path: Path) -> None:
    """An individual Swiss event at four players: seven register alone (a partner named is
    refused). Each round the lowest-ranked without a bye sits out, the others sit in fours by
    rank, their partnerships drawn (individual.draw with the round's seed), two left over
    facing each other with bot partners; every player's seat is his drawn one; the standings
    are each player's side's results."""
    rng = random.Random(3)
    names = [f"In{i}" for i in range(7)]
    with web_client(tmp_path, grace_seconds=0.05) as server:
        client = server[0]
        store = client.app.state.store
        org = sign_up(client.app, "Org")
        browsers = [sign_up(client.app, n) for n in names]
        r = org.post(
            "/api/events",
            json={"name": "X", "format": "two", "partners": "individual", "starts": time.time()},
        )
        assert r.status_code == 409  # drawn partners: four players a table
        event = make_event(org, format="four", partners="individual", rounds=2)
        r = browsers[0].post(f"/api/events/{event}/register", json={"partner": names[1]})
        assert r.status_code == 400
        _join(event, browsers, names, four=False)
        assert org.post(f"/api/events/{event}/start").status_code == 200
        for number in (1, 2):
            until(lambda: _deal_open(store, event, number, 0))  # noqa: B023
            page = client.get(f"/api/events/{event}").json()
            ids = [t["id"] for t in page["teams"]]
            seed = int(store.rounds(event)[number - 1]["seed"])
            drawn = individual.draw(
                swiss.standings(ids, _individual_results(page, number - 1)), random.Random(seed)
            )
            current = page["rounds"][number - 1]
            assert current["bye"] == drawn.bye
            got = [
                ((t["teams"][0], t["partners"][0]), (t["teams"][1], t["partners"][1]))
                for t in current["tables"]
            ]
            want = [
                (a + (None,) * (2 - len(a)), b + (None,) * (2 - len(b))) for a, b in drawn.tables
            ]
            assert got == want
            by_name = {t["name"]: t["id"] for t in page["teams"]}
            seats = _play(server, browsers, event, rng)
            for code, held in seats.items():
                table = next(t for t in current["tables"] if t["code"] == code)
                for browser, seat in held:
                    me = by_name[names[browsers.index(browser)]]
                    side = [table["teams"][0], table["partners"][0]]
                    assert (me in side) == (seat["seat"] % 2 == 0)
                    if table["partners"][0] is not None:  # a team of four: partners opposite
                        assert seat["seat"] in ((0, 2) if me in side else (1, 3))
        until(lambda: store.event(event)["status"] == "finished")
        page = client.get(f"/api/events/{event}").json()
    assert len({r["bye"] for r in page["rounds"]}) == 2
    standings = swiss.standings(ids, _individual_results(page, 2))
    assert [(s["team"], s["points"]) for s in page["standings"]] == [
        (s.team, s.points) for s in standings
    ]


def test_an_arena_goes_on_across_a_restart(tmp_path: Path) -> None:
    """An arena of three players: the server restarts with a game being played and one
    player waiting; on the new server the game is played out, scored, and its players are
    paired again at once with the one who waited."""
    rng = random.Random(2)
    names = ["Asha", "Ravi", "Mina"]
    with web_client(tmp_path, grace_seconds=0.05) as server:
        client = server[0]
        store = client.app.state.store
        org = sign_up(client.app, "Org")
        browsers = [sign_up(client.app, n) for n in names]
        event = make_event(org, kind="arena", format="two", minutes=30)
        _join(event, browsers, names, four=False)
        assert org.post(f"/api/events/{event}/start").status_code == 200
        until(lambda: _deal_open(store, event, 1, 0))
    with web_client(tmp_path, grace_seconds=0.05) as server:
        client = server[0]
        store = client.app.state.store
        browsers = [TestClient(client.app, cookies=dict(b.cookies)) for b in browsers]
        [first] = store.event_tables(event, 1)
        waiting = ({t["id"] for t in store.teams(event)} - {first["team_a"], first["team_b"]}).pop()
        _play(server, browsers, event, rng)
        second = until(
            lambda: len(store.event_tables(event, 1)) == 2 and store.event_tables(event, 1)[1]
        )
        assert waiting in (second["team_a"], second["team_b"])
        assert store.event_tables(event, 1)[0]["result"] is not None
