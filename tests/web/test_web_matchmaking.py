"""Matchmaking by strength (issue 25 item 6; docs/web.md "Quick match"): rated quick match puts
players near in rating at one table, widens the accepted gap the longer they wait, seats the
teams for openskill's 50% (bots at their fixed ratings), and fills the empty seats with bots
after the wait the player chose. The pure decisions (seep.web.matchmaking), a rated table's
pages following their reseated players, and eight accounts queueing at once on a real
server."""

from __future__ import annotations

import asyncio
import json
import math
import time
from itertools import permutations
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("openskill")

from seep.web.matchmaking import Player, Policy, arrange, choose_group, fits, win_chance
from seep.web.ratings import MODEL, bot_rating, points_per_mu
from seepkit.ratings import sign_up
from seepkit.web import Player as Page
from seepkit.web import web_client


def rated(points: float, sigma: float = 2.0, waited: float = 0.0, fmt: str = "four") -> Player:
    """A player of shown rating ``points`` in ``fmt``."""
    return Player(MODEL.mu + (points - 1500) / points_per_mu(fmt), sigma, waited)


EASY = Player(bot_rating("easy", "four").mu, bot_rating("easy", "four").sigma)
POLICY = Policy(gap=200, widen=10, anyone=60)

# --- the pure decisions ------------------------------------------------------------------------


def test_the_accepted_gap_widens_with_the_wait_up_to_anyone() -> None:
    assert POLICY.accepted_gap(0) == 200
    assert POLICY.accepted_gap(15) == 350
    assert POLICY.accepted_gap(59.9) == pytest.approx(799)
    assert POLICY.accepted_gap(60) == math.inf
    assert Policy(gap=100, widen=0, anyone=0).accepted_gap(10_000) == 100  # never anyone


def test_four_equal_players_stay_where_they_sat() -> None:
    four = [rated(1500)] * 4
    done = arrange(four, EASY)
    assert done.order == (0, 1, 2, 3) and not done.moved
    assert done.chance == pytest.approx(0.5)


def test_the_strongest_partners_the_weakest() -> None:
    """2100, 1900, 1700, 1500 seated in that order: 2100+1700 against 1900+1500 is 57% or so;
    2100 with 1500 against 1900 with 1700 is even."""
    seats: list[Player | None] = [rated(2100), rated(1900), rated(1700), rated(1500)]
    before = win_chance([p for p in seats if p is not None])
    assert before > 0.6
    done = arrange(seats, EASY)
    assert done.chance == pytest.approx(0.5)
    partners = {done.order[0], done.order[2]}
    assert partners in ({0, 3}, {1, 2})  # 2100 (seat 0) with 1500 (seat 3), or the others
    # Of the two even seatings (and their mirror images) the one moving fewest: two players.
    assert sum(1 for i, old in enumerate(done.order) if i != old) == 2


def test_a_much_stronger_player_sits_with_the_weakest() -> None:
    seats: list[Player | None] = [rated(1500), rated(1450), rated(2600), rated(1000)]
    done = arrange(seats, EASY)
    seated = [seats[old] for old in done.order]
    team_of_star = 0 if seated[0] is seats[2] or seated[2] is seats[2] else 1
    mates = [seated[s] for s in range(4) if s % 2 == team_of_star]
    assert seats[3] in mates  # 2600 with 1000, against 1500 and 1450
    # The best of the three partnerships: no other is nearer 50%.
    for order in permutations(range(4)):
        other = win_chance([seats[o] for o in order])  # type: ignore[misc]
        assert abs(done.chance - 0.5) <= abs(other - 0.5) + 1e-12


def test_the_bots_fixed_ratings_count_when_they_fill_seats() -> None:
    """A 2400 and a 1000 with two easy bots (1624): partners, 3400 against 3248, rather than
    each with a bot, 4024 against 2624."""
    seats: list[Player | None] = [rated(2400), rated(1000), None, None]
    done = arrange(seats, EASY)
    humans = [i for i, old in enumerate(done.order) if seats[old] is not None]
    assert humans[0] % 2 == humans[1] % 2  # one team
    assert 0.4 < done.chance < 0.6
    split = win_chance([rated(2400), EASY, EASY, rated(1000)])
    assert abs(split - 0.5) > 0.3
    # Against hard bots (2278) the same two are still best together, and the chance says so.
    hard = bot_rating("hard", "four")
    strong = arrange(seats, Player(hard.mu, hard.sigma))
    assert strong.chance < done.chance


def test_two_players_are_a_team_each_and_never_move() -> None:
    two = [rated(1900, fmt="two"), rated(1300, fmt="two")]
    done = arrange(two, EASY)
    assert done.order == (0, 1)
    assert done.chance == pytest.approx(win_chance(two))
    # And matchmaking at two seats reads the two-player scale (48 points a mu).
    assert fits(rated(1700, fmt="two"), [rated(1600, fmt="two")], "two", POLICY)
    assert not fits(rated(1900, fmt="two"), [rated(1600, fmt="two")], "two", POLICY)


def test_a_newcomer_joins_the_nearest_group_he_fits() -> None:
    groups = [
        [rated(1000), rated(1100)],  # too far
        [rated(1750)],  # fits, farthest 150 away
        [rated(1850), rated(1950)],  # fits, farthest 50 away: the nearest
    ]
    assert choose_group(rated(1900), groups, "four", POLICY) == 2
    assert choose_group(rated(1900), [[]], "four", POLICY) == 0  # an empty group fits anyone
    assert choose_group(rated(1900), [], "four", POLICY) is None
    # Every player in a group must accept him: one far one is enough to say no.
    assert choose_group(rated(1900), [[rated(1850), rated(1500)]], "four", POLICY) is None


def test_a_far_newcomer_is_accepted_once_they_have_waited() -> None:
    """1000 points apart: nobody takes him at once; after 80 s of waiting (200 + 10 x 80) the
    waiting player does; and past 60 s anyone would."""
    waiting = rated(2500, waited=0)
    newcomer = rated(1500)
    policy = Policy(gap=200, widen=10, anyone=0)
    assert choose_group(newcomer, [[waiting]], "four", policy) is None
    assert choose_group(newcomer, [[rated(2500, waited=79)]], "four", policy) is None
    assert choose_group(newcomer, [[rated(2500, waited=80)]], "four", policy) == 0
    assert choose_group(newcomer, [[rated(2500, waited=60)]], "four", POLICY) == 0  # anyone


# --- a rated table's pages follow their reseated players ------------------------------------------


def _cookie(browser: Any) -> dict[str, str]:
    """The session cookie of a signed-up browser, as a header for the app's own client (whose
    event loop runs the countdowns and the bots)."""
    return {"cookie": f"seep_session={browser.cookies.get('seep_session')}"}


def _set_rating(manager: Any, name: str, points: float, fmt: str = "four") -> int:
    from sqlalchemy import insert, select

    from seep.web.schema import accounts_t, ratings_t

    with manager.store.engine.begin() as c:
        account = c.execute(select(accounts_t.c.id).where(accounts_t.c.name == name)).scalar_one()
        mu = MODEL.mu + (points - 1500) / points_per_mu(fmt)
        c.execute(
            insert(ratings_t).values(
                account=account, format=fmt, mu=mu, sigma=2.0, games=20, last=time.time()
            )
        )
    return int(account)


def test_pages_follow_their_players_when_the_start_reseats_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Four accounts of 2100, 1900, 1700 and 1500 quick-match in that order, three pages open
    before the start. The full table starts at once with 2100 and 1500 partners: every page's
    state names the seat its player sits at now, the host is still the first player, and the
    token each holds still answers for his (new) seat."""
    monkeypatch.setenv("SEEP_MATCH_GAP", "1000")
    with web_client(tmp_path) as (client, manager, checker):
        names = ["Asha", "Bala", "Chan", "Dev"]
        cookies = {}
        for name, points in zip(names, (2100, 1900, 1700, 1500), strict=True):
            cookies[name] = _cookie(sign_up(client.app, name))
            _set_rating(manager, name, points)
        ask = {"rated": True, "bots": "easy", "deals": 1, "wait": 60}
        pages: dict[str, Page] = {}
        answers = {}
        for name in names:
            r = client.post("/api/quick", json=ask, headers=cookies[name])
            assert r.status_code == 200, r.text
            answers[name] = r.json()
            if len(pages) < 3:
                page = Page(client, checker, r.json()["code"], r.json()["token"])
                assert page.recv()["seat"] == r.json()["seat"]
                pages[name] = page
        assert [a["seat"] for a in answers.values()] == [0, 1, 2, 3]
        codes = {a["code"] for a in answers.values()}
        assert len(codes) == 1
        table = manager.get(codes.pop())
        assert table.status == "playing"
        seat_of = {s.name: i for i, s in enumerate(table.seats)}
        assert seat_of["Asha"] % 2 == seat_of["Dev"] % 2  # 2100 with 1500
        assert seat_of != dict(zip(names, range(4), strict=True))  # someone moved
        assert table.host == seat_of["Asha"]
        for name, page in pages.items():
            state = page.until(lambda m: m["type"] == "state" and m["table"]["status"] != "waiting")
            assert state["seat"] == seat_of[name], (name, state["seat"])
        # Dev's page opens after the start: his token finds his new seat.
        late = Page(client, checker, table.code, answers["Dev"]["token"])
        assert late.until(lambda m: m["type"] == "state")["seat"] == seat_of["Dev"]
        # The store has the new seats: a restart seats everyone where he sits now.
        stored = manager.store.load_table(table.code)
        assert [s["name"] for s in stored["seats"]] == [s.name for s in table.seats]
        assert stored["host"] == table.host


def test_the_wait_is_checked_and_only_for_rated_quick_match(tmp_path: Path) -> None:
    """``wait``: whole seconds from 10 to 300, on a rated request only; a bad one is a 400
    naming the problem, and nothing is opened for it."""
    with web_client(tmp_path) as (client, manager, _checker):
        cookie = _cookie(sign_up(client.app, "Asha"))
        for bad in ("soon", 5, 301, 10.5, True, None, [20]):
            ask = {"rated": True, "bots": "easy", "wait": bad}
            r = client.post("/api/quick", json=ask, headers=cookie)
            assert r.status_code == 400, (bad, r.text)
            err = r.json()["error"]
            assert err["code"] == "bad_request" and "'wait'" in err["message"], err
            assert "10 to 300" in err["message"]
        unrated = client.post("/api/quick", json={"bots": "easy", "wait": 30}, headers=cookie)
        assert unrated.status_code == 400 and "rated" in unrated.json()["error"]["message"]
        assert not manager.tables
        r = client.post(
            "/api/quick", json={"rated": True, "bots": "easy", "wait": 10}, headers=cookie
        )
        assert r.status_code == 200, r.text
        table = manager.get(r.json()["code"])
        assert table.starts_at is not None and table.starts_at - time.time() <= 10


def test_several_instances_match_stored_tables_by_strength(tmp_path: Path) -> None:
    """Two instances on one database (docs/web.md "Several instances"): Asha (1500) opens a
    rated quick table on a; Bala (1550) asks on b, which claims the stored table and seats him
    there, since he fits; Chan (2600) asks on b too and, far from them, opens his own."""
    from fastapi.testclient import TestClient

    from seep.web.app import create_app

    url = f"sqlite:///{tmp_path / 'seep.db'}"
    app_a = create_app(url, bot_delay=0.002, instance_id="a", lease_seconds=30)
    app_b = create_app(url, bot_delay=0.002, instance_id="b", lease_seconds=30)
    with TestClient(app_a) as a, TestClient(app_b) as b:
        manager = app_b.state.manager
        cookies = {}
        for name, points in (("Asha", 1500), ("Bala", 1550), ("Chan", 2600)):
            cookies[name] = _cookie(sign_up(app_a, name))
            _set_rating(manager, name, points)
        ask = {"rated": True, "bots": "easy", "deals": 1}
        asha = a.post("/api/quick", json=ask, headers=cookies["Asha"])
        assert asha.status_code == 200, asha.text
        bala = b.post("/api/quick", json=ask, headers=cookies["Bala"])
        assert bala.status_code == 200, bala.text
        assert bala.json()["code"] == asha.json()["code"]
        chan = b.post("/api/quick", json=ask, headers=cookies["Chan"])
        assert chan.status_code == 200, chan.text
        assert chan.json()["code"] != asha.json()["code"] and chan.json()["seat"] == 0
        seats = manager.get(asha.json()["code"]).seats
        assert [s.name for s in seats if s.kind == "human"] == ["Asha", "Bala"]


# --- eight accounts at once on a real server -----------------------------------------------------

STRONG = {"Sita": 2600, "Ravi": 2500, "Tara": 2400, "Uday": 2300}
WEAK = {"Kiran": 1200, "Lata": 1100, "Mohan": 1000, "Neha": 900}
FAR = {"Farah": 2400, "Gopal": 1000}


def test_eight_accounts_queueing_at_once_end_at_two_balanced_tables(tmp_path: Path) -> None:
    """A real server. Eight accounts (four near 2450, four near 1050) POST rated quick match at
    the same moment: two tables, strong with strong and weak with weak, each started at once
    and seated for 50% (2600+2300 against 2500+2400), every account seated exactly once, and
    every page's token finding its player's seat. Then Farah (2400) asks alone, to wait 12 s;
    Gopal (1000) asks 8 s later and is let in only because her accepted gap has widened
    (350 + 150 x 8 >= 1400); at 12 s (her wait, not the server's 120) two medium bots fill
    the empty seats, and Farah and Gopal are partners, the bots' fixed 2018 making that the
    even side."""
    httpx = pytest.importorskip("httpx")
    websockets = pytest.importorskip("websockets")
    from sqlalchemy import create_engine, insert, select

    from seep.web.schema import accounts_t, ratings_t, tables_t
    from seepkit.ratings import PASSWORD
    from seepkit.server import serve

    db = f"sqlite:///{tmp_path / 'seep.db'}"
    env = {
        "SEEP_DATABASE_URL": db,
        "SEEP_MAX_SIGNUPS_PER_HOUR": "0",
        "SEEP_MAX_TABLES_PER_MINUTE": "0",
        "SEEP_MAX_PUBLIC_TABLES_PER_CLIENT": "0",
        "SEEP_MAX_LOBBY_PER_MINUTE": "0",
        "SEEP_MAX_CONNECTIONS_PER_CLIENT": "0",
        "SEEP_QUICK_SECONDS": "120",
        "SEEP_MATCH_GAP": "350",
        "SEEP_MATCH_WIDEN": "150",
    }
    everyone = {**STRONG, **WEAK, **FAR}
    with serve(tmp_path, env=env, log_name="server.log") as served:
        base = served.base
        engine = create_engine(db)

        def seats_of(code: str) -> tuple[str, list[dict[str, Any]]]:
            with engine.connect() as c:
                row = c.execute(
                    select(tables_t.c.status, tables_t.c.seats).where(tables_t.c.code == code)
                ).one()
            return row.status, json.loads(row.seats)

        async def scenario() -> None:
            browsers = {n: httpx.AsyncClient(base_url=base, timeout=20) for n in everyone}
            try:
                for name, browser in browsers.items():
                    r = await browser.post(
                        "/api/accounts", json={"name": name, "password": PASSWORD}
                    )
                    assert r.status_code == 201, r.text
                ids = {}
                with engine.begin() as c:
                    for name, points in everyone.items():
                        ids[name] = c.execute(
                            select(accounts_t.c.id).where(accounts_t.c.name == name)
                        ).scalar_one()
                        mu = MODEL.mu + (points - 1500) / points_per_mu("four")
                        c.execute(
                            insert(ratings_t).values(
                                account=ids[name],
                                format="four",
                                mu=mu,
                                sigma=2.0,
                                games=20,
                                last=time.time(),
                            )
                        )
                ask = {"rated": True, "bots": "easy", "deals": 1, "wait": 300}
                eight = [*STRONG, *WEAK]
                answers = await asyncio.gather(
                    *(browsers[n].post("/api/quick", json=ask) for n in eight)
                )
                got = {}
                for name, r in zip(eight, answers, strict=True):
                    assert r.status_code == 200, r.text
                    got[name] = r.json()
                codes = {a["code"] for a in got.values()}
                assert len(codes) == 2, got
                by_code = {c: {n for n in eight if got[n]["code"] == c} for c in codes}
                assert {frozenset(v) for v in by_code.values()} == {
                    frozenset(STRONG),
                    frozenset(WEAK),
                }
                seated: list[int] = []
                for code, names in by_code.items():
                    status, seats = seats_of(code)
                    assert status == "playing"  # full: started at once
                    assert all(s["kind"] == "human" for s in seats)
                    seated += [s["account"] for s in seats]
                    assert {s["name"] for s in seats} == names
                    by_seat = [rated(everyone[s["name"]]) for s in seats]
                    assert 0.45 <= win_chance(by_seat) <= 0.55, seats
                    best, worst = max(names, key=everyone.get), min(names, key=everyone.get)
                    where = {s["name"]: i for i, s in enumerate(seats)}
                    assert where[best] % 2 == where[worst] % 2  # strongest with weakest
                assert sorted(seated) == sorted(ids[n] for n in eight)  # once each, nobody lost
                # Every page learns its player's seat from its token, moved or not.
                ws_base = base.replace("http", "ws")
                for name in eight:
                    a = got[name]
                    ws = await websockets.connect(f"{ws_base}/ws/{a['code']}")
                    await ws.send(json.dumps({"type": "hello", "token": a["token"]}))
                    while True:
                        msg = json.loads(await asyncio.wait_for(ws.recv(), 10))
                        if msg["type"] == "state" and msg["seat"] is not None:
                            break
                    assert msg["table"]["seats"][msg["seat"]]["name"] == name
                    await ws.close()

                # Far apart: let in only after waiting; bots after the wait she chose.
                start = time.monotonic()
                farah = await browsers["Farah"].post(
                    "/api/quick", json={"rated": True, "bots": "medium", "deals": 1, "wait": 12}
                )
                assert farah.status_code == 200, farah.text
                await asyncio.sleep(8)
                gopal = await browsers["Gopal"].post(
                    "/api/quick", json={"rated": True, "bots": "medium", "deals": 1, "wait": 10}
                )
                assert gopal.status_code == 200, gopal.text
                code = farah.json()["code"]
                assert gopal.json()["code"] == code
                assert seats_of(code)[0] == "waiting"
                while seats_of(code)[0] == "waiting":
                    assert time.monotonic() - start < 30, "the countdown never ended"
                    await asyncio.sleep(0.2)
                assert 11 <= time.monotonic() - start < 20  # her 12 s, not the server's 120
                _, seats = seats_of(code)
                assert [s["kind"] for s in seats].count("bot") == 2
                humans = [i for i, s in enumerate(seats) if s["kind"] == "human"]
                assert humans[0] % 2 == humans[1] % 2  # partners against the two bots
                medium = bot_rating("medium", "four")
                bot = Player(medium.mu, medium.sigma)
                table = [rated(everyone[s["name"]]) if s["kind"] == "human" else bot for s in seats]
                # As even as these four allow (about 16%: the bots are strong), far better
                # than each with a bot (about 2% for Gopal's side).
                best = arrange([p if p is not bot else None for p in table], bot)
                assert abs(win_chance(table) - 0.5) == pytest.approx(abs(best.chance - 0.5))
                split = win_chance([rated(FAR["Farah"]), bot, bot, rated(FAR["Gopal"])])
                assert abs(split - 0.5) > abs(best.chance - 0.5) + 0.1
            finally:
                for browser in browsers.values():
                    await browser.aclose()

        asyncio.run(asyncio.wait_for(scenario(), 120))
        engine.dispose()
    assert "Traceback" not in served.log_text()
