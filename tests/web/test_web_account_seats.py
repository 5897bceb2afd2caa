"""Seats that belong to accounts (docs/web.md "Accounts"): a signed-in player sits under his
account's name; a guest who signs up keeps the seats his browser holds; the account's stored
games are listed and downloaded as docs/format.md records that replay; a deleted account's
seats become "a former player" in the store and at the live tables, and nobody else's change."""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("argon2")

from seep.session import replay_record
from seepkit.web import Player, create_table, deal_over, until_playing, web_client

PASSWORD = "a password long enough"


def _sign_up(client: Any, name: str, **extra: Any) -> dict[str, Any]:
    r = client.post("/api/accounts", json={"name": name, "password": PASSWORD, **extra})
    assert r.status_code == 201, r.text
    me: dict[str, Any] = r.json()
    return me


def _seats(db: Path, code: str) -> list[dict[str, Any]]:
    con = sqlite3.connect(db)
    try:
        (raw,) = con.execute("SELECT seats FROM tables WHERE code = ?", (code,)).fetchone()
        rows = con.execute("SELECT seat, account FROM seat_accounts WHERE code = ?", (code,))
        linked = dict(rows.fetchall())
    finally:
        con.close()
    seats: list[dict[str, Any]] = json.loads(raw)
    for i, seat in enumerate(seats):
        assert seat.get("account") == linked.get(i), (code, i)  # the index says what the JSON says
    return seats


def _finish(client: Any, checker: Any, manager: Any, code: str, token: str) -> None:
    p = Player(client, checker, code, token)
    p.send({"type": "start"})
    until_playing(p, deal_over, random.Random(7))
    p.send({"type": "next"})  # the last deal's summary read: the match ends
    p.until(lambda m: m["type"] == "state" and m["table"]["status"] == "finished")
    p.close()
    assert manager.store.load_finished(code) is not None


def test_seats_follow_accounts_from_sign_up_to_deletion(tmp_path: Path) -> None:
    db = tmp_path / "seep.db"
    with web_client(tmp_path) as (client, manager, checker):
        # A guest's table, then he signs up: the seat his browser holds becomes his.
        guest_table = create_table(client, name="Deepa G", deals=1)
        me = _sign_up(
            client, "Deepa", seats=[{"code": guest_table["code"], "token": guest_table["token"]}]
        )
        assert me["name"] == "Deepa"
        seat = manager.get(guest_table["code"]).seats[0]
        assert seat.account is not None and seat.name == "Deepa G"  # his, under the name he gave
        assert _seats(db, guest_table["code"])[0]["account"] == seat.account
        deepa = seat.account

        # Signed in, a new table seats him under his account's name, whatever the body says.
        made = create_table(client, name="Someone Else", deals=1)
        assert manager.get(made["code"]).seats[0].name == "Deepa"
        _finish(client, checker, manager, made["code"], made["token"])

        # Another account joins nothing of his: a token handed over cannot take a held seat.
        client.post("/api/logout")
        _sign_up(client, "Other One", seats=[{"code": made["code"], "token": made["token"]}])
        assert _seats(db, made["code"])[0]["account"] == deepa
        other_table = create_table(client, deals=1)
        assert manager.get(other_table["code"]).seats[0].name == "Other One"
        client.post("/api/logout")

        # His games: the finished one, listed and downloaded with a record that replays.
        r = client.post("/api/login", json={"name": "deepa", "password": PASSWORD})
        assert r.status_code == 200
        listed = client.get("/api/me/matches").json()
        assert listed["next_page"] is None
        assert [(m["code"], m["seat"], m["status"]) for m in listed["matches"]] == [
            (made["code"], 0, "finished")
        ]
        assert listed["matches"][0]["players"][0] == "Deepa"
        assert "record" not in listed["matches"][0]
        r = client.get("/api/me/records")
        assert r.headers["content-disposition"].startswith("attachment")
        (game,) = r.json()["matches"]
        assert game["record"] == client.get(f"/api/tables/{made['code']}/record").json()
        replay_record(game["record"])  # a docs/format.md record, whole
        assert client.get("/api/me/matches?page=x").json()["error"]["code"] == "bad_request"

        # Deleted: "a former player" in the store and at the live table; the others unchanged.
        r = client.post("/api/me/delete", json={"password": PASSWORD})
        assert r.status_code == 200
        for code in (guest_table["code"], made["code"]):
            assert _seats(db, code)[0]["name"] == "a former player"
            assert _seats(db, code)[0]["account"] is None
        assert manager.get(guest_table["code"]).seats[0].name == "a former player"
        assert manager.get(guest_table["code"]).seats[0].account is None
        assert _seats(db, other_table["code"])[0]["name"] == "Other One"
        assert client.get("/api/me/matches").json()["error"]["code"] == "not_signed_in"


def test_held_seats_are_checked(tmp_path: Path) -> None:
    with web_client(tmp_path) as (client, _, _):
        for seats in ["x", [{"code": "A"}], [{"code": "A", "token": 5}], [{}] * 51]:
            body = {"name": "Checked", "password": PASSWORD, "seats": seats}
            r = client.post("/api/accounts", json=body)
            assert r.status_code == 400 and "'seats'" in r.json()["error"]["message"], seats
        # Seats of no table, or a wrong token: nothing given, the account is made.
        r = client.post(
            "/api/accounts",
            json={
                "name": "Checked",
                "password": PASSWORD,
                "seats": [{"code": "NOPE", "token": "x"}],
            },
        )
        assert r.status_code == 201
