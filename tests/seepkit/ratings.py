"""Every rating recomputed from the stored results alone (issue 25's check of the ratings):
each rated match in the order it was rated, its winner read from its stored record by the
engine, openskill's Plackett-Luce with its defaults, the bots at their fixed ratings."""

from __future__ import annotations

import json
import random
import time
from typing import Any

from fastapi.testclient import TestClient
from openskill.models import PlackettLuce

from seep.session import Session
from seep.web.ratings import MODEL, bot_rating

from .web import Player, my_turn

__all__ = ["PASSWORD", "me_of", "play_out", "rated_match", "recompute", "sign_up"]

PASSWORD = "a password long enough"


def recompute(rows: list[Any]) -> dict[tuple[int, str], tuple[float, float, int]]:
    """``(mu, sigma, games)`` by ``(account, format)`` from :meth:`Store.rated_matches`' rows,
    checking on the way that each stored winner and rating before the match is the one the
    results give."""
    model = PlackettLuce()
    ratings: dict[tuple[int, str], tuple[float, float, int]] = {}
    matches: dict[int, list[Any]] = {}
    for row in rows:
        matches.setdefault(row.id, []).append(row)
    for seats in matches.values():
        first = seats[0]
        fmt, settings = first.format, json.loads(first.settings)
        # A match played out has its winner by the cards; one closed unfinished, none.
        played = Session.from_record(json.loads(first.record))
        by_cards = played.standing().leader if first.status == "finished" else None
        assert by_cards == first.winner, first.code
        # A player who left it forfeited it: his team lost, his partner is kept as he was.
        quitters = {row.seat % 2 for row in seats if row.forfeited}
        if len(quitters) == 1:
            winner: int | None = 1 - next(iter(quitters))
        else:
            winner = None if quitters else by_cards
        kept = {
            row.seat
            for row in seats
            if not row.forfeited and row.seat % 2 != winner and row.seat % 2 in quitters
        }
        teams: list[list[Any]] = [[], []]
        keys: list[list[tuple[int, str] | None]] = [[], []]
        for row in seats:
            if row.account is None:
                bot = bot_rating(settings["bots"], fmt)
                mu, sigma = bot.mu, bot.sigma
            else:
                mu, sigma, _ = ratings.get((row.account, fmt), (MODEL.mu, MODEL.sigma, 0))
            before = (row.mu_before, row.sigma_before)
            assert abs(before[0] - mu) < 1e-9 and abs(before[1] - sigma) < 1e-9, first.code
            teams[row.seat % 2].append(model.rating(mu=mu, sigma=sigma))
            keys[row.seat % 2].append(None if row.account is None else (row.account, fmt))
        kept_keys = {(row.account, fmt) for row in seats if row.seat in kept}
        ranks = [0.0, 0.0] if winner is None else [float(t != winner) for t in (0, 1)]
        for team, key_team in zip(model.rate(teams, ranks=ranks), keys, strict=True):
            for r, key in zip(team, key_team, strict=True):
                if key is not None and key not in kept_keys:
                    games = ratings.get(key, (0.0, 0.0, 0))[2]
                    ratings[key] = (r.mu, r.sigma, games + 1)
    return ratings


def sign_up(app: Any, name: str) -> TestClient:
    """A browser of its own (its own cookies) signed up as ``name``."""
    browser = TestClient(app)
    r = browser.post("/api/accounts", json={"name": name, "password": PASSWORD})
    assert r.status_code == 201, r.text
    return browser


def play_out(players: list[Player], table: Any, rng: random.Random) -> dict[str, Any]:
    """Every human seat plays random legal moves in turn and says 'next' after each deal,
    until the match is over; the last state. The table (its humans' moves change it only when
    they are sent) says whose turn it is once the mover's answer has come; a bot's
    turn is waited out."""

    def state(m: dict[str, Any]) -> bool:
        return m["type"] == "state"

    by_seat = {p.until(lambda m: state(m) and m["seat"] is not None)["seat"]: p for p in players}
    while table.status != "finished":
        if table.deal_over():
            now = table.version
            for seat, p in by_seat.items():
                if seat not in table.ready:
                    p.send({"type": "next"})
            last = players[0].until(
                lambda m: (
                    state(m)
                    and m["version"] > now  # noqa: B023
                    and (m["summary"] is None or m["table"]["status"] == "finished")
                )
            )
            continue
        if table.to_move not in by_seat:  # a bot's turn: its move comes by itself
            deadline = time.monotonic() + 30.0
            while table.to_move not in by_seat and not table.deal_over():
                assert time.monotonic() < deadline, "the bot did not move"
                time.sleep(0.005)
            continue
        p = by_seat[table.to_move]

        # Not ``now``: a player's coming and going counts as a change too (no new turn).
        def mine(m: dict[str, Any]) -> bool:
            return my_turn(m) and m["version"] >= table.game_version

        # The state may be in already: the bidder plays the first card too (R13).
        turn = p.state if p.state is not None and mine(p.state) else p.until(mine)
        move = {"type": "move", "move": rng.choice(turn["legal"]), "version": turn["version"]}
        made = table.moves_made
        while True:
            p.send(move)
            # The answer is the state with the move made: a state of a player's coming, sent
            # while the move was being written, is not it.
            got = p.until(
                lambda m: (
                    m["type"] == "error"
                    or (state(m) and m["version"] > turn["version"] and table.moves_made != made)  # noqa: B023
                )
            )
            if got["type"] == "state":
                break
            # One player against a quick bot sends faster than a socket's 20 messages a second.
            assert got["code"] == "rate_limited", got
            time.sleep(1.0)
    return last


def rated_match(
    client: TestClient, manager: Any, checker: Any, browsers: list[TestClient], **settings: Any
) -> tuple[Any, dict[str, Any]]:
    """A rated table made by the first browser, joined by the others in turn, started and
    played out; the table and its last state."""
    made = browsers[0].post("/api/tables", json={"rated": True, "deals": 1, **settings})
    assert made.status_code == 201, made.text
    code = made.json()["code"]
    tokens = [made.json()["token"]]
    for b in browsers[1:]:
        joined = b.post(f"/api/tables/{code}/join", json={})
        assert joined.status_code == 200, joined.text
        tokens.append(joined.json()["token"])
    players = [Player(client, checker, code, t) for t in tokens]
    players[0].send({"type": "start"})
    table = manager.get(code)  # held until it is over and left
    last = play_out(players, table, random.Random(code))
    for p in players:
        p.close()
    return table, last


def me_of(browser: TestClient) -> dict[str, Any]:
    r = browser.get("/api/me")
    assert r.status_code == 200, r.text
    me: dict[str, Any] = r.json()
    return me
