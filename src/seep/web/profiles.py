"""Players' profiles and the leaderboards (docs/web.md "Profiles and leaderboards"): what the
store keeps of an account's rated matches, put in the words a page shows. No web framework:
:mod:`seep.web.routes.players` calls these off the event loop, limited per client.

A profile is public: a player's name, ratings, statistics and rated matches (with links to
their replays, which show only finished matches). It never shows a password, a session, a seat
token or anything of a match still running.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from seep.cards import team_of

from .names import skeleton
from .ratings import FORMATS, PROVISIONAL_SIGMA, Rating, shown
from .store import Store

__all__ = [
    "BOARD_DAYS",
    "BOARD_MIN_GAMES",
    "BOARD_PAGE",
    "HISTORY_POINTS",
    "PROFILE_PAGE",
    "ProfileError",
    "Profiles",
]

PROFILE_PAGE = 20  # rated matches a page of a profile
HISTORY_POINTS = 200  # the rating chart's latest points per format
BOARD_PAGE = 50  # players a page of a leaderboard
BOARD_MIN_GAMES = 5  # rated matches a player needs to be on a leaderboard...
BOARD_DAYS = 30  # ...the latest of them this recent, and his rating no longer provisional
MAX_PAGE = 10_000  # a page number past this is refused (the offset stays bounded)


class ProfileError(Exception):
    """A refused read: ``code`` (docs/web.md's error codes) and a message for the player."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _page(value: Any) -> int:
    """A page number from a query string: 1, 2, ... up to :data:`MAX_PAGE`."""
    try:
        page = int(value) if value not in (None, "") else 1
    except (TypeError, ValueError):
        raise ProfileError("bad_request", "'page' must be a whole number from 1") from None
    if not 1 <= page <= MAX_PAGE:
        raise ProfileError("bad_request", f"'page' must be from 1 to {MAX_PAGE}")
    return page


def _seat_name(seat: dict[str, Any]) -> dict[str, Any]:
    """A seat of a stored rated match as a profile lists it: the name, and whether it is a
    player's account (then the page links his profile)."""
    return {"name": seat["name"], "account": seat.get("account") is not None}


@dataclass
class Profiles:
    """The profile and leaderboard reads of a :class:`~seep.web.store.Store`."""

    store: Store

    def profile(self, name: str, page: Any = None) -> dict[str, Any]:
        """``GET /api/players/{name}``: the account's ratings, statistics, rating history and
        a page of its rated matches, newest first (``ProfileError`` ``unknown_player``)."""
        number = _page(page)
        account = self.store.account_named(skeleton(name)) if len(name) <= 64 else None
        if account is None:
            raise ProfileError("unknown_player", "no player has that name")
        held = self.store.ratings_of(account.id)
        rows = self.store.rating_changes_of(
            account.id, (number - 1) * PROFILE_PAGE, PROFILE_PAGE + 1
        )
        matches = [self._match(r) for r in rows[:PROFILE_PAGE]]
        return {
            "name": account.name,
            "created": round(account.created),
            "ratings": {f: held.get(f, Rating()).to_dict(f) for f in FORMATS},
            "stats": self._stats(account.id),
            "history": {
                f: [
                    {"ended": round(h.ended), "rating": shown(h.mu_after, f)}
                    for h in self.store.rating_history(account.id, f, HISTORY_POINTS)
                ]
                for f in FORMATS
            },
            "matches": matches,
            "next_page": number + 1 if len(rows) > PROFILE_PAGE else None,
        }

    def _stats(self, account: int) -> dict[str, Any]:
        s = self.store.stats_of(account)
        deals = int(s.deals)

        def per_deal(total: Any) -> float:
            return round(int(total) / deals, 1) if deals else 0.0

        return {
            "matches": int(s.matches),
            "wins": int(s.wins),
            "losses": int(s.losses),
            "draws": int(s.draws),
            "abandons": int(s.forfeits),
            "deals": deals,
            "baazis": int(s.baazis),
            "points_per_deal": per_deal(s.points),
            "sweep_points_per_deal": per_deal(s.sweep_points),
        }

    @staticmethod
    def _match(row: Any) -> dict[str, Any]:
        """One rated match of a profile: partner, opponents, result and rating change."""
        seats = json.loads(row.seats)
        me, mine = row.seat, team_of(row.seat)
        partners = [s for s in range(len(seats)) if s != me and team_of(s) == mine]
        partner = partners[0] if partners else None
        before, after = shown(row.mu_before, row.format), shown(row.mu_after, row.format)
        return {
            "code": row.code,
            "format": row.format,
            "ended": round(row.ended),
            "result": row.result,
            "forfeited": bool(row.forfeited),
            "partner": _seat_name(seats[partner]) if partner is not None else None,
            "opponents": [_seat_name(seats[s]) for s in range(len(seats)) if team_of(s) != mine],
            "rating_before": before,
            "rating_after": after,
            "change": after - before,
            "replay": f"/replay/{row.code}",
        }

    def leaderboard(self, format: Any, page: Any = None) -> dict[str, Any]:
        """``GET /api/leaderboard?format=four&page=N``: the format's settled players (at least
        :data:`BOARD_MIN_GAMES` rated matches, the latest within :data:`BOARD_DAYS` days, not
        provisional), best first, :data:`BOARD_PAGE` a page."""
        if format not in FORMATS:
            raise ProfileError("bad_request", "'format' must be 'four' or 'two'")
        number = _page(page)
        offset = (number - 1) * BOARD_PAGE
        total, rows = self.store.leaderboard(
            format,
            BOARD_MIN_GAMES,
            time.time() - BOARD_DAYS * 86400.0,
            PROVISIONAL_SIGMA,
            offset,
            BOARD_PAGE,
        )
        return {
            "format": format,
            "total": total,
            "players": [
                {
                    "rank": offset + i + 1,
                    "name": r.name,
                    "rating": shown(r.mu, format),
                    "games": int(r.games),
                }
                for i, r in enumerate(rows)
            ],
            "next_page": number + 1 if offset + len(rows) < total else None,
        }
