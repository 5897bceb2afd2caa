"""Every rating recomputed from the stored results alone (issue 25's check of the ratings):
each rated match in the order it was rated, its winner read from its stored record by the
engine, openskill's Plackett-Luce with its defaults, the bots at their fixed ratings."""

from __future__ import annotations

import json
from typing import Any

from openskill.models import PlackettLuce

from seep.session import Session
from seep.web.ratings import MODEL, bot_rating

__all__ = ["recompute"]


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
