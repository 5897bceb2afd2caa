"""Team ratings (docs/web.md "Ratings"): openskill's Plackett-Luce model with its default
parameters, one rating per format, updated once per finished rated match.

The teams are the partnerships (seats 0+2 and 1+3, docs/rules.md R3), one player a team at two
seats (§12); the ranks are the match's result (:attr:`seep.session.Standing.leader`: a drawn
match ranks both teams equal). A bot plays at the fixed rating of its difficulty
(:data:`BOT_ELO`, set from the arena's ladder), which rated play never changes.

Fair play: a player who leaves a rated match and does not come back in time has *forfeited*
it (:attr:`RatedMatch.forfeited`). His team counts as having lost, whatever the cards said;
his rating takes openskill's full loss, and his partner's does not fall for it: openskill's
weights (normalized per team to 1..2) only halve a loss for the heavier player, so the
partner's rating is kept as it was instead (the opponents still gain their win).

A rating is shown as one number on the arena ladder's Elo scale (:func:`shown`): 1500 for a
new player, and a gap of 200 between two teams' mean ratings is openskill's 76% to win, as in
Elo; with a question mark while its uncertainty is large (:data:`PROVISIONAL_SIGMA`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

from openskill.models import PlackettLuce

from seep.cards import team_of

__all__ = [
    "BOT_ELO",
    "BOT_SIGMA",
    "FORMATS",
    "MODEL",
    "PROVISIONAL_SIGMA",
    "RatedMatch",
    "Rating",
    "TeamTotals",
    "bot_rating",
    "elo_gap",
    "format_of",
    "points_per_mu",
    "rate",
    "shown",
]

MODEL = PlackettLuce()  # openskill's defaults: mu 25, sigma 25/3, beta 25/6, tau 25/300
FORMATS = ("four", "two")  # partnerships (four seats), head to head (two, §12)

#: A rating is provisional ("1432?") while its sigma is above this: about 15 matches of four
#: players from the start (8.33), 10 of two (tests/web/test_web_ratings.py measures it).
PROVISIONAL_SIGMA = 6.5

#: The bots' fixed ratings, on the Elo scale of docs/strength.md's ladder: ``easy`` (greedy)
#: and ``medium`` (heuristic) are its round robin (Bradley-Terry over 600 duplicate deals a
#: pairing); ``hard`` and ``expert`` are chained from the duplicate pairs they won against
#: ``expert@1``, itself from its pairs against ``heuristic`` (:func:`elo_gap`): expert@1 won
#: 110, lost 39, drew 1 of 150 (+179), hard beat expert@1 182/113/5 of 300 (+81), expert beat it
#: 101/47/2 of 150 (+131).
BOT_ELO: dict[str, int] = {"easy": 1624, "medium": 2018, "hard": 2278, "expert": 2328}
#: How well a bot's rating is known (in openskill's units: about 100 Elo points a unit).
BOT_SIGMA = 1.0
_MEAN_ELO = 1500  # the ladder's mean, given to a new player's mu (25)


def elo_gap(won: int, lost: int, drawn: int) -> float:
    """The Elo difference that expects the score of ``won``, ``lost`` and ``drawn`` (a draw
    half a win)."""
    score = (won + drawn / 2) / (won + lost + drawn)
    return 400 * math.log10(score / (1 - score))


def _points_per_mu(players: int) -> float:
    z = NormalDist().inv_cdf(1 / (1 + 10 ** (-200 / 400)))
    return 200 / (z * math.sqrt(2) * MODEL.beta / players)


# A team's mu is the sum of its players': two in "four", one in "two".
_POINTS_PER_MU = {"four": _points_per_mu(2), "two": _points_per_mu(1)}


def points_per_mu(format: str) -> float:
    """Shown rating points per unit of openskill's mu, so that a 200-point gap between two
    teams of settled ratings is a 76% chance to win (Elo's) by openskill's prediction
    (a normal model: the difference of the teams' summed mu over sqrt(2 beta^2))."""
    return _POINTS_PER_MU[format]


def format_of(players: int) -> str:
    """The rating format of a table of ``players`` seats."""
    return "four" if players == 4 else "two"


@dataclass(frozen=True)
class Rating:
    """One player's rating in one format: openskill's ``mu`` and ``sigma``, and the rated
    matches behind it."""

    mu: float = MODEL.mu
    sigma: float = MODEL.sigma
    games: int = 0

    @property
    def provisional(self) -> bool:
        """True while the rating is still uncertain (shown with a question mark)."""
        return self.sigma > PROVISIONAL_SIGMA

    def shown(self, format: str) -> int:
        """The rating as one number (:func:`shown`)."""
        return shown(self.mu, format)

    def to_dict(self, format: str) -> dict[str, Any]:
        """``{"mu", "sigma", "rating", "games", "provisional"}`` (docs/web.md "Ratings")."""
        return {
            "mu": round(self.mu, 4),
            "sigma": round(self.sigma, 4),
            "rating": self.shown(format),
            "games": self.games,
            "provisional": self.provisional,
        }


def shown(mu: float, format: str) -> int:
    """A mu on the arena ladder's Elo scale: 1500 for a new player."""
    return round(_MEAN_ELO + (mu - MODEL.mu) * points_per_mu(format))


def bot_rating(bots: str, format: str) -> Rating:
    """The fixed rating of a bot difficulty (:data:`BOT_ELO`)."""
    mu = MODEL.mu + (BOT_ELO[bots] - _MEAN_ELO) / points_per_mu(format)
    return Rating(mu, BOT_SIGMA)


@dataclass(frozen=True)
class TeamTotals:
    """One team's totals over a match: baazis won, card points, sweep points."""

    baazis: int = 0
    points: int = 0
    sweep_points: int = 0


@dataclass(frozen=True)
class RatedMatch:
    """A rated match at its end as the ratings need it: the format, each seat's account
    (``None``: a bot of difficulty ``bots``), the winning team by the cards (``None``: drawn,
    or not played out) and the seats whose player forfeited it by leaving."""

    format: str
    accounts: tuple[int | None, ...]
    bots: str
    winner: int | None
    forfeited: frozenset[int] = frozenset()
    # What the profile's statistics count: the deals played out, and per team its baazis won,
    # card points and sweep points over them (docs/format.md's deal results).
    deals: int = 0
    totals: tuple[TeamTotals, ...] = ()

    def team(self, seat: int) -> int:
        """A seat's team (the core's :func:`seep.cards.team_of`)."""
        return team_of(seat)

    @property
    def ranked_winner(self) -> int | None:
        """The team the ratings count as the winner: the one without a forfeit when only
        the other has one; else the winner by the cards (both sides forfeited: a draw)."""
        losers = {self.team(s) for s in self.forfeited}
        if len(losers) == 1:
            return 1 - losers.pop()
        return None if losers else self.winner

    def kept(self, seat: int) -> bool:
        """True for a seat whose rating this match leaves as it was: a bot's, or the partner
        of a player who forfeited (he does not fall for him)."""
        if self.accounts[seat] is None:
            return True
        team = self.team(seat)
        return (
            seat not in self.forfeited
            and self.ranked_winner != team
            and any(self.team(s) == team for s in self.forfeited)
        )

    def result(self, seat: int) -> str:
        """``"win"``, ``"loss"`` or ``"draw"`` for a seat, as the ratings count it."""
        winner = self.ranked_winner
        if seat in self.forfeited:
            return "loss"
        if winner is None:
            return "draw"
        return "win" if self.team(seat) == winner else "loss"


def rate(match: RatedMatch, before: Mapping[int, Rating]) -> dict[int, Rating]:
    """Every account's new rating after ``match``, from its rating ``before`` (an account
    missing there is new): openskill's Plackett-Luce update of the two teams ranked by
    :attr:`RatedMatch.ranked_winner`, bots at their fixed ratings (which stay as they were),
    a forfeiter's partner kept as he was (:meth:`RatedMatch.kept`)."""
    seats: Sequence[int | None] = match.accounts
    now = {
        s: before.get(a, Rating()) if a is not None else bot_rating(match.bots, match.format)
        for s, a in enumerate(seats)
    }
    teams: list[list[int]] = [[], []]
    for s in range(len(seats)):
        teams[match.team(s)].append(s)
    winner = match.ranked_winner
    ranks = [0.0, 0.0] if winner is None else [float(t != winner) for t in (0, 1)]
    rated = MODEL.rate(
        [[MODEL.rating(mu=now[s].mu, sigma=now[s].sigma) for s in team] for team in teams],
        ranks=ranks,
    )
    after: dict[int, Rating] = {}
    for team, new in zip(teams, rated, strict=True):
        for s, r in zip(team, new, strict=True):
            account = seats[s]
            if account is None:
                continue
            if match.kept(s):
                after[account] = now[s]  # nor does the match count among his games
            else:
                after[account] = Rating(r.mu, r.sigma, now[s].games + 1)
    return after
