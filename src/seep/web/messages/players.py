"""The HTTP answers about players, as pydantic models (docs/web.md "Accounts", "Profiles"):
the signed-in player (``/api/me``), a profile, the leaderboard and one's own matches."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from .answers import Sent

__all__ = [
    "BoardRow",
    "Leaderboard",
    "Me",
    "MyMatch",
    "MyMatches",
    "PlayerName",
    "Profile",
    "ProfileMatch",
    "ProfileStats",
    "RatingPoint",
    "RatingShown",
]


class RatingShown(Sent):
    """A rating in one format: openskill's ``mu`` and ``sigma``, the number shown, the rated
    matches behind it, and whether it is still provisional (shown as "1432?")."""

    mu: float
    sigma: float
    rating: int
    games: int
    provisional: bool


class Me(Sent):
    """``GET /api/me``, and the answer to signing up or in: the signed-in account."""

    name: str
    created: Annotated[int, Field(description="when the account was made (Unix seconds)")]
    ratings: dict[Literal["four", "two"], RatingShown] = Field(
        description='the rating in each format (docs/web.md "Ratings")'
    )
    abandons: int = Field(
        description='rated matches forfeited by leaving them (docs/web.md "Fair play")'
    )


class PlayerName(Sent):
    """A seat of a rated match as a profile lists it."""

    name: str
    account: bool = Field(description="a player's account (his profile is /u/{name})")


class ProfileMatch(Sent):
    """One rated match of a profile, with the player's rating before and after it."""

    code: str
    format: Literal["four", "two"]
    ended: int
    result: Literal["win", "loss", "draw"]
    forfeited: bool
    partner: PlayerName | None = Field(description="null in two-player")
    opponents: list[PlayerName]
    rating_before: int
    rating_after: int
    change: int
    replay: str


class ProfileStats(Sent):
    """A player's rated matches summed (his team's baazis, card and sweep points)."""

    matches: int
    wins: int
    losses: int
    draws: int
    abandons: int
    deals: int
    baazis: int
    points_per_deal: float
    sweep_points_per_deal: float


class RatingPoint(Sent):
    """The rating after one rated match (the profile's chart)."""

    ended: int
    rating: int


class Profile(Sent):
    """``GET /api/players/{name}?page=N``: a player's public profile (docs/web.md
    "Profiles and leaderboards"), 20 rated matches a page, newest first."""

    name: str
    created: int
    ratings: dict[Literal["four", "two"], RatingShown]
    stats: ProfileStats
    history: dict[Literal["four", "two"], list[RatingPoint]]
    matches: list[ProfileMatch]
    next_page: int | None


class BoardRow(Sent):
    """One player on a leaderboard."""

    rank: int
    name: str
    rating: int
    games: int


class Leaderboard(Sent):
    """``GET /api/leaderboard?format=four&page=N``: settled players, best first, 50 a page."""

    format: Literal["four", "two"]
    total: int
    players: list[BoardRow]
    next_page: int | None


class MyMatch(Sent):
    """One of an account's stored games (``GET /api/me/matches``; with its record in
    ``GET /api/me/records``)."""

    code: str
    seat: int
    status: Literal["finished", "closed"]
    created: int
    players: list[str | None]
    replay: str
    record: dict[str, Any] | None = None


class MyMatches(Sent):
    """``GET /api/me/matches?page=N``: 50 games a page, newest first."""

    matches: list[MyMatch]
    next_page: int | None
