"""What an event shows (docs/web.md "Events"): the lobby's list, an event's page with its teams,
rounds and standings (Swiss, an arena's, or duplicate's matchpoints deal by deal), from the
store's rows; and a round table's result as its stored record gives it.

A duplicate round's deal shows nothing of its play (no table code, no result) until every table
of the round has finished it (its results are written then, all at once: the runner's
``close_deal``); see :func:`duplicate_scores`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from ..session import Session
from .tournament import arena, duplicate, swiss

__all__ = [
    "arena_ends",
    "arena_inputs",
    "arena_standings",
    "deal_lines",
    "duplicate_scores",
    "duplicate_standings",
    "members",
    "page",
    "playing",
    "result_of_record",
    "seats_of",
    "summary",
    "swiss_inputs",
    "swiss_standings",
    "team_name",
    "with_forfeits",
]


def result_of_record(record: Mapping[str, Any] | None) -> dict[str, Any]:
    """A round table's result from its stored game record: the winning side (``None``: a
    draw, or nothing played), each side's score summed over the finished deals, the baazis
    won, and the deals played. A table closed unfinished counts what was finished."""
    if record is None or not record.get("deals"):
        return {"winner": None, "score": [0, 0], "baazis": [0, 0], "deals": 0}
    session = Session.from_record(dict(record))
    standing = session.standing()
    scores = [d["result"]["score"] for d in record["deals"] if d.get("result")]
    return {
        "winner": standing.leader,
        "score": [sum(s[0] for s in scores), sum(s[1] for s in scores)],
        "baazis": list(standing.baazis),
        "deals": len(scores),
    }


def with_forfeits(result: dict[str, Any], seats: Sequence[int]) -> dict[str, Any]:
    """A table's result where the players of ``seats`` forfeited it (an event without bots,
    docs/web.md "Events"): their side lost, whatever was played (both sides: a draw)."""
    if not seats:
        return result
    sides = sorted({s % 2 for s in seats})
    winner = None if len(sides) == 2 else 1 - sides[0]
    return {**result, "winner": winner, "forfeited": sides}


def team_name(team: Mapping[str, Any]) -> str:
    """A team's name as the page shows it: its player, or both partners."""
    return team["name1"] if team["name2"] is None else f"{team['name1']} & {team['name2']}"


def members(team: Mapping[str, Any]) -> list[tuple[int | None, str]]:
    """A team's players (account, name); a deleted account's is ``None``."""
    out: list[tuple[int | None, str]] = [(team["player1"], str(team["name1"]))]
    if team["name2"] is not None:
        out.append((team["player2"], str(team["name2"])))
    return out


def playing(team: Mapping[str, Any]) -> bool:
    """Whether a team takes part (its partner accepted, it checked in)."""
    return bool(team["accepted"] and team["checked_in"])


def seats_of(
    table: Mapping[str, Any], teams: Mapping[int, Mapping[str, Any]], players: int
) -> dict[int, tuple[int | None, str]]:
    """Who sits where at a round's table: ``team_a`` on side 0 (seats 0 and 2; at two players
    seat 0) unless ``swapped``, ``team_b`` on the other; partners opposite each other (drawn
    each round: ``team_a2`` opposite ``team_a``, ``team_b2`` opposite ``team_b``)."""
    out: dict[int, tuple[int | None, str]] = {}
    for key, side in (("team_a", 0), ("team_b", 1)):
        if table["swapped"]:
            side = 1 - side
        people = members(teams[table[key]])
        if table.get(f"{key}2") is not None:  # partners drawn: a player each
            people += members(teams[table[f"{key}2"]])
        for seat, member in zip(range(side, players, 2), people, strict=False):
            out[seat] = member
    return out


def summary(r: Mapping[str, Any]) -> dict[str, Any]:
    """An event's line in the lobby's list (and the head of its page)."""
    keys = ("id", "name", "kind", "format", "rated", "partners", "bots", "starts")
    return {
        **{k: r[k] for k in keys},
        **{"rounds": r["rounds"], "deals": r["deals"], "status": r["status"]},
        "round": r["round"],
        "organiser": r["organiser_name"],
        "minutes": r["minutes"],
        "baazis": r.get("baazis"),
    }


def _shown(event: Mapping[str, Any], t: Mapping[str, Any]) -> bool:
    """Whether a table's code shows: a duplicate table's once its deal is open (its result
    written) or the event is over; any other table's at once. Until then its line has its
    teams and status only (a code would be something to ask the table's endpoints about)."""
    return event["kind"] != "duplicate" or t["result"] is not None or event["status"] == "finished"


def page(
    event: Mapping[str, Any],
    teams: Sequence[Mapping[str, Any]],
    rounds: Sequence[Mapping[str, Any]],
    tables: Sequence[Mapping[str, Any]],
    mine: Mapping[str, Any] | None,
) -> dict[str, Any]:
    """``GET /api/events/{id}``: the event, its teams, standings and rounds with their tables
    (results once known), the deal-by-deal comparison of a duplicate event, and the reader's
    own team (``mine``)."""
    out_rounds = []
    for r in rounds:
        rows = [t for t in tables if t["round"] == r["number"]]
        out_rounds.append(
            {
                "number": r["number"],
                "status": r["status"],
                "bye": r["bye"],
                "tables": [
                    {
                        "board": t["board"],
                        "deal": t["deal"],
                        "code": t["code"] if _shown(event, t) else None,
                        "teams": [t["team_a"], t["team_b"]],
                        "partners": [t["team_a2"], t["team_b2"]],
                        "swapped": t["swapped"],
                        "status": t["table_status"],
                        "result": json.loads(t["result"]) if t["result"] else None,
                    }
                    for t in rows
                ],
            }
        )
    out: dict[str, Any] = {
        **summary(event),
        "teams": [
            {
                "id": t["id"],
                "name": team_name(t),
                "players": [m[1] for m in members(t)],
                "accepted": t["accepted"],
                "checked_in": t["checked_in"],
                "withdrawn": t["withdrawn"],
            }
            for t in teams
        ],
        "rounds": out_rounds,
        # The summary's numbers of rounds and deals a round, which the lists above and the
        # duplicate comparison's ``deals`` take the names of.
        "planned": {
            "rounds": event["rounds"],
            "deals": event["deals"],
            "baazis": event.get("baazis"),
        },
        "me": None if mine is None else {"team": mine["id"]},
    }
    if event["kind"] == "arena":
        out["ends"] = arena_ends(event)
        out["standings"] = arena_standings(teams, tables)
    elif event["kind"] == "duplicate":
        scores = duplicate_scores(tables)
        out["standings"] = [] if event["round"] == 0 else duplicate_standings(teams, scores)
        out["deals"] = deal_lines(tables, scores)
    else:
        out["standings"] = [] if event["round"] == 0 else swiss_standings(teams, rounds, tables)
    return out


def swiss_standings(
    teams: Sequence[Mapping[str, Any]],
    rounds: Sequence[Mapping[str, Any]],
    tables: Sequence[Mapping[str, Any]],
) -> list[dict[str, Any]]:
    """The Swiss standings' lines (:func:`seep.web.tournament.swiss.standings`)."""
    by_id = {int(t["id"]): t for t in teams}
    ids, results, withdrawn = swiss_inputs(teams, rounds, tables)
    return [
        {
            "rank": s.rank,
            "team": s.team,
            "name": team_name(by_id[int(s.team)]),
            "points": s.points,
            "buchholz": s.buchholz,
            "diff": s.diff,
            "played": s.played,
            "byes": s.byes,
            "withdrawn": s.withdrawn,
        }
        for s in swiss.standings(ids, results, withdrawn)
    ]


def _side_a(t: Mapping[str, Any]) -> int:
    return 1 if t["swapped"] else 0


def swiss_inputs(
    teams: Sequence[Mapping[str, Any]],
    rounds: Sequence[Mapping[str, Any]],
    tables: Sequence[Mapping[str, Any]],
) -> tuple[list[int], list[swiss.Result], set[int]]:
    """The Swiss module's inputs from the store's rows: the teams that take part (seed order:
    as they registered), the results of the rounds done (byes included), the withdrawn. A
    pair that played several tables in a round (a duplicate round's deals) has one game: the
    sums of its tables' scores, won by the side that won more of them. Partners drawn each
    round: each player has his side's game against one opponent (``team_a`` against
    ``team_b``, ``team_a2`` against ``team_b2``)."""
    ids = [int(t["id"]) for t in teams if playing(t)]
    withdrawn = {int(t["id"]) for t in teams if playing(t) and t["withdrawn"]}
    done = {r["number"] for r in rounds if r["status"] == "done"}
    results: list[swiss.Result] = [
        swiss.Result(int(r["bye"]), None) for r in rounds if r["number"] in done and r["bye"]
    ]
    games: dict[tuple[int, int, int], list[Any]] = {}
    for t in tables:
        if t["round"] not in done or not t["result"]:
            continue
        res = json.loads(t["result"])
        side_a = _side_a(t)
        pairs = [(int(t["team_a"]), int(t["team_b"]))]
        if t["team_a2"] is not None and t["team_b2"] is not None:  # partners drawn
            pairs.append((int(t["team_a2"]), int(t["team_b2"])))
        for a, b in pairs:
            game = games.setdefault((int(t["round"]), a, b), [0, 0, 0])  # a's diff, wins, b's
            game[0] += res["score"][side_a] - res["score"][1 - side_a]
            if res["winner"] is not None:
                game[1 if res["winner"] == side_a else 2] += 1
    for (_, a, b), (diff, won_a, won_b) in games.items():
        winner = a if won_a > won_b else b if won_b > won_a else None
        results.append(swiss.Result(a, b, winner, diff))
    return ids, results, withdrawn


def arena_ends(ev: Mapping[str, Any]) -> float:
    """When an arena's window closes (seconds since 1970)."""
    return float(ev["starts"]) + 60.0 * int(ev["minutes"] or 0)


def arena_inputs(
    teams: Sequence[Mapping[str, Any]], tables: Sequence[Mapping[str, Any]]
) -> tuple[list[int], list[arena.Game], dict[int, float]]:
    """The arena module's inputs from the store's rows: the teams that take part (seed order),
    the games with a result in the order they ended, and when each team's last game ended."""
    ids = [int(t["id"]) for t in teams if playing(t)]
    done = []
    for t in tables:
        if t["result"]:
            res = json.loads(t["result"])
            a, b = int(t["team_a"]), int(t["team_b"])
            winner = None if res["winner"] is None else (a, b)[int(res["winner"])]
            done.append((float(res.get("ended", 0.0)), int(t["board"]), arena.Game(a, b, winner)))
    done.sort(key=lambda x: (x[0], x[1]))
    last: dict[int, float] = {}
    for when, _, g in done:
        last[int(g.a)] = last[int(g.b)] = when
    return ids, [g for _, _, g in done], last


def arena_standings(
    teams: Sequence[Mapping[str, Any]], tables: Sequence[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """The arena standings' lines (:func:`seep.web.tournament.arena.standings`)."""
    by_id = {int(t["id"]): t for t in teams}
    ids, games, _ = arena_inputs(teams, tables)
    return [
        {
            "rank": s.rank,
            "team": s.team,
            "name": team_name(by_id[int(s.team)]),
            "points": s.points,
            "played": s.played,
            "wins": s.wins,
            "draws": s.draws,
            "losses": s.losses,
            "streak": s.streak,
            "on_streak": s.streak >= arena.STREAK,
            "withdrawn": bool(by_id[int(s.team)]["withdrawn"]),
        }
        for s in arena.standings(ids, games)
    ]


def duplicate_scores(tables: Sequence[Mapping[str, Any]]) -> list[duplicate.DealScore]:
    """Every team's score on every open deal of a duplicate event (deals are numbered across
    the event: round ``r``'s deal ``d`` is one deal, every table of the round having held the
    same cards). Only tables whose result is written count: a deal opens as a whole."""
    out: list[duplicate.DealScore] = []
    for t in tables:
        if not t["result"]:
            continue
        score = json.loads(t["result"])["score"]
        key = _deal_key(t)
        side_a = _side_a(t)
        for team, side in ((int(t["team_a"]), side_a), (int(t["team_b"]), 1 - side_a)):
            out.append(duplicate.DealScore(team, key, side, duplicate.margin(score, side)))
    return out


def _deal_key(t: Mapping[str, Any]) -> int:
    # One number per (round, deal): rounds have at most MAX_DEALS (20) deals.
    return int(t["round"]) * 1000 + int(t["deal"])


def duplicate_standings(
    teams: Sequence[Mapping[str, Any]], scores: Sequence[duplicate.DealScore]
) -> list[dict[str, Any]]:
    """Duplicate standings' lines: by the percentage of matchpoints to tops
    (:func:`seep.web.tournament.duplicate.standings`)."""
    by_id = {int(t["id"]): t for t in teams}
    ids = [int(t["id"]) for t in teams if playing(t)]
    known = set(ids)
    return [
        {
            "rank": s.rank,
            "team": s.team,
            "name": team_name(by_id[int(s.team)]),
            "matchpoints": s.points,
            "top": s.top,
            "percent": s.percent,
            "deals": s.deals,
            "withdrawn": bool(by_id[int(s.team)]["withdrawn"]),
        }
        for s in duplicate.standings(ids, [x for x in scores if x.team in known])
    ]


def deal_lines(
    tables: Sequence[Mapping[str, Any]], scores: Sequence[duplicate.DealScore]
) -> list[dict[str, Any]]:
    """The open deals' comparison: for each (round, deal), each team's score on it (its deal
    score minus the other side's), the average of the others that held the same cards, its
    matchpoints and their percentage of the top."""
    out: dict[int, dict[str, Any]] = {}
    for t in tables:
        if t["result"]:
            out.setdefault(
                _deal_key(t), {"round": int(t["round"]), "deal": int(t["deal"]), "results": []}
            )
    for m in duplicate.matchpoints(scores):
        out[int(m.deal)]["results"].append(
            {
                "team": m.team,
                "side": m.side,
                "score": m.score,
                "field_average": None if m.field is None else float(m.field),
                "matchpoints": m.points,
                "top": m.top,
                "percent": m.percent,
            }
        )
    return [out[k] for k in sorted(out)]
