"""Profiles and leaderboards (docs/web.md "Profiles and leaderboards", seep.web.profiles):
a player's public profile after rated matches, the leaderboard's rules and pages, and both
read as an attacker would (nothing secret in them, bad input refused, reads limited)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

pytest.importorskip("openskill")

from sqlalchemy import insert

from seep.web import profiles
from seep.web.messages.players import Leaderboard, Profile
from seep.web.ratings import PROVISIONAL_SIGMA, shown
from seep.web.schema import ratings_t
from seepkit.ratings import me_of, rated_match, sign_up
from seepkit.web import web_client


def test_a_profile_shows_ratings_matches_stats_and_history(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SEEP_MESSAGE_BUDGET", "0")
    with web_client(tmp_path) as (client, manager, checker):
        browsers = [sign_up(client.app, n) for n in ("Asha", "Bala", "Chitra", "Dev")]
        four, _ = rated_match(client, manager, checker, browsers)
        two, _ = rated_match(client, manager, checker, [browsers[0]], preset="two_player")
        r = client.get("/api/players/ASHA")  # the name as it looks: any case
        assert r.status_code == 200, r.text
        prof = Profile.model_validate(r.json()).model_dump()
        assert prof["name"] == "Asha"
        assert prof["ratings"] == me_of(browsers[0])["ratings"]
        newest, older = prof["matches"]
        assert (newest["code"], older["code"]) == (two.code, four.code)
        assert newest["format"] == "two" and newest["partner"] is None
        assert newest["opponents"] == [{"name": two.seats[1].name, "account": False}]
        assert older["partner"] == {"name": "Chitra", "account": True}
        assert older["opponents"] == [
            {"name": "Bala", "account": True},
            {"name": "Dev", "account": True},
        ]
        for m in (newest, older):
            assert m["change"] == m["rating_after"] - m["rating_before"]
            assert m["replay"] == f"/replay/{m['code']}"
            assert client.get(m["replay"]).status_code == 200
        assert older["rating_before"] == 1500
        assert older["rating_after"] == shown(manager.store.rated_matches()[0].mu_after, "four")
        assert [p["rating"] for p in prof["history"]["four"]] == [older["rating_after"]]
        assert [p["rating"] for p in prof["history"]["two"]] == [prof["ratings"]["two"]["rating"]]
        assert prof["next_page"] is None
        # The statistics, against the stored records.
        stats = prof["stats"]
        assert stats["matches"] == 2 and stats["wins"] + stats["losses"] + stats["draws"] == 2
        assert stats["abandons"] == 0
        records = [four.record(), two.record()]
        deals = sum(len(rec["deals"]) for rec in records)
        points = sum(d["result"]["points"][0] for rec in records for d in rec["deals"])
        sweeps = sum(d["result"]["sweeps"][0] for rec in records for d in rec["deals"])
        assert stats["deals"] == deals == 2
        assert stats["points_per_deal"] == round(points / deals, 1)
        assert stats["sweep_points_per_deal"] == round(sweeps / deals, 1)
        assert stats["baazis"] == sum(t.session.standing().baazis[0] for t in (four, two))
        # A page past the end is empty; the profile page itself is the app's page.
        assert client.get("/api/players/Asha?page=2").json()["matches"] == []
        page = client.get("/u/Asha")
        assert page.status_code == 200 and "text/html" in page.headers["content-type"]


def test_a_profile_shows_nothing_secret_and_refuses_bad_input(tmp_path: Path) -> None:
    with web_client(tmp_path) as (client, _manager, _checker):
        asha = sign_up(client.app, "Asha")
        made = asha.post("/api/tables", json={"rated": True, "bots": "easy"}).json()
        text = client.get("/api/players/Asha").text
        cookie = asha.cookies.get("seep_session")
        assert cookie and cookie not in text and made["token"] not in text
        assert "password" not in text and "argon2" not in text and "token" not in text
        for path, code, status in [
            ("/api/players/Nobody", "unknown_player", 404),
            ("/api/players/" + "x" * 200, "unknown_player", 404),
            ("/api/players/Asha?page=0", "bad_request", 400),
            ("/api/players/Asha?page=abc", "bad_request", 400),
            ("/api/players/Asha?page=99999999", "bad_request", 400),
            ("/api/leaderboard?format=five", "bad_request", 400),
            ("/api/leaderboard?page=-1", "bad_request", 400),
        ]:
            r = client.get(path)
            assert r.status_code == status and r.json()["error"]["code"] == code, (path, r.text)


def test_profile_reads_are_limited_per_address(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SEEP_MAX_PROFILES_PER_MINUTE", "3")
    with web_client(tmp_path) as (client, _manager, _checker):
        answers = [client.get("/api/leaderboard").status_code for _ in range(3)]
        answers.append(client.get("/api/players/Anyone").status_code)
        assert answers == [200, 200, 200, 429]
        assert client.get("/api/lobby").status_code == 200  # other reads are not counted here


def test_the_leaderboard_lists_settled_recent_players_best_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(profiles, "BOARD_PAGE", 2)
    with web_client(tmp_path) as (client, manager, _checker):
        store = manager.store
        now, old = time.time(), time.time() - 40 * 86400
        people = {
            # name: (mu, sigma, games, last, format)
            "Asha": (30.0, 3.0, 40, now, "four"),
            "Bala": (28.0, 4.0, 25, now, "four"),
            "Chitra": (32.0, PROVISIONAL_SIGMA + 0.5, 20, now, "four"),  # provisional
            "Dev": (31.0, 3.0, 3, now, "four"),  # too few matches
            "Esha": (33.0, 3.0, 50, old, "four"),  # not played for 40 days
            "Farid": (26.0, 5.0, 30, now, "four"),
            "Gita": (35.0, 3.0, 30, now, "two"),  # the other format
        }
        ids = {name: store.create_account(name, name.lower(), "x").id for name in people}
        with store.engine.begin() as c:
            for name, (mu, sigma, games, last, fmt) in people.items():
                account = ids[name]
                c.execute(
                    insert(ratings_t).values(
                        account=account, format=fmt, mu=mu, sigma=sigma, games=games, last=last
                    )
                )
        first = Leaderboard.model_validate(client.get("/api/leaderboard").json()).model_dump()
        assert first["total"] == 3 and first["next_page"] == 2
        assert [(p["rank"], p["name"]) for p in first["players"]] == [(1, "Asha"), (2, "Bala")]
        assert first["players"][0]["rating"] == shown(30.0, "four")
        second = client.get("/api/leaderboard?format=four&page=2").json()
        assert [(p["rank"], p["name"]) for p in second["players"]] == [(3, "Farid")]
        assert second["next_page"] is None
        two = client.get("/api/leaderboard?format=two").json()
        assert [p["name"] for p in two["players"]] == ["Gita"]
        assert json.dumps(two).count("mu") == 0  # the shown rating only
        assert client.get("/leaderboard").status_code == 200
