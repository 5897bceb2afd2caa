"""Matchmaking by strength for rated quick match (docs/web.md "Quick match"): pure decisions,
no tables, no clock, no store.

Two questions, each a function of what the caller read:

- :func:`choose_group`: which waiting group (a rated quick-match table's seated players) a
  newcomer joins. A player accepts another whose shown rating (:func:`seep.web.ratings.shown`)
  is within :meth:`Policy.accepted_gap` of his own, a gap that starts at :attr:`Policy.gap`
  and widens by :attr:`Policy.widen` points a second the longer of the two has waited, up to
  anyone after :attr:`Policy.anyone` seconds. A newcomer fits a group when everyone in it
  accepts him; of the groups he fits he joins the nearest (the smallest largest gap), the
  first listed on a tie (the caller lists the longest waiting first). None fits: he opens a
  group of his own.
- :func:`arrange`: the seats of a full table (humans, and bots at their fixed rating in the
  seats nobody took) so that openskill's :meth:`~openskill.models.PlackettLuce.predict_win`
  for the two teams (seats 0+2 and 1+3, :func:`seep.cards.team_of`) is as near 50% as the
  players allow; among equally balanced arrangements the one that moves fewest humans.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuceRating

from seep.cards import team_of

from .ratings import MODEL, shown

__all__ = ["Arrangement", "Player", "Policy", "arrange", "choose_group", "fits", "win_chance"]


@dataclass(frozen=True)
class Player:
    """A player as matchmaking sees him: his rating in the table's format (openskill's ``mu``
    and ``sigma``) and the seconds he has waited at his table (0 for a newcomer)."""

    mu: float
    sigma: float
    waited: float = 0.0


@dataclass(frozen=True)
class Policy:
    """How far apart in shown rating points two players may be to sit together: ``gap`` at
    once, ``widen`` more for each second waited, anyone at all once ``anyone`` seconds are
    waited (0: never)."""

    gap: float = 200.0
    widen: float = 10.0
    anyone: float = 60.0

    def accepted_gap(self, waited: float) -> float:
        """The largest gap in shown points accepted after ``waited`` seconds (``inf``:
        anyone)."""
        if self.anyone > 0 and waited >= self.anyone:
            return math.inf
        return self.gap + self.widen * max(waited, 0.0)


def _distance(a: Player, b: Player, format: str) -> float:
    return abs(shown(a.mu, format) - shown(b.mu, format))


def fits(newcomer: Player, group: Sequence[Player], format: str, policy: Policy) -> bool:
    """True when every player of ``group`` accepts ``newcomer``: their gap is within the
    accepted gap of the longer wait of the two."""
    return all(
        _distance(newcomer, p, format) <= policy.accepted_gap(max(p.waited, newcomer.waited))
        for p in group
    )


def choose_group(
    newcomer: Player, groups: Sequence[Sequence[Player]], format: str, policy: Policy
) -> int | None:
    """The index of the group ``newcomer`` joins, or ``None`` when he fits none (he opens
    his own). Of the groups he fits, the one whose farthest player is nearest to him; the
    first listed on a tie. An empty group fits anyone."""
    best: tuple[float, int] | None = None
    for i, group in enumerate(groups):
        if not fits(newcomer, group, format, policy):
            continue
        far = max((_distance(newcomer, p, format) for p in group), default=0.0)
        if best is None or far < best[0]:
            best = (far, i)
    return None if best is None else best[1]


def win_chance(seats: Sequence[Player]) -> float:
    """openskill's chance that team 0 (seats 0 and 2; seat 0 alone at two seats) beats
    team 1, the seats' players in seat order."""
    teams: list[list[PlackettLuceRating]] = [[], []]
    for s, p in enumerate(seats):
        teams[team_of(s)].append(MODEL.rating(mu=p.mu, sigma=p.sigma))
    return float(MODEL.predict_win(teams)[0])


@dataclass(frozen=True)
class Arrangement:
    """Where everyone sits: ``order[i]`` is the old seat of the one who sits at seat ``i``
    now; ``chance`` is team 0's chance to win (:func:`win_chance`) seated so."""

    order: tuple[int, ...]
    chance: float

    @property
    def moved(self) -> bool:
        """True when anyone changes seat."""
        return any(i != old for i, old in enumerate(self.order))


def arrange(seats: Sequence[Player | None], bot: Player) -> Arrangement:
    """The most balanced seating of a table about to start: ``seats`` holds each seat's
    human (``None``: an empty seat, which a bot of rating ``bot`` takes). Every seating is
    tried (24 at four seats; at two, one player a team, both are equally balanced), and the
    one with team 0's chance nearest 50% wins; on a tie, the one that moves fewest humans
    (bots are alike: one moving costs nothing), then the first in order."""
    who = [p if p is not None else bot for p in seats]
    best: tuple[float, int, tuple[int, ...]] | None = None
    chance = 0.5
    for order in itertools.permutations(range(len(seats))):
        p = win_chance([who[old] for old in order])
        moves = sum(1 for i, old in enumerate(order) if i != old and seats[old] is not None)
        # Rounded: floating noise must not beat a seating that moves nobody.
        key = (round(abs(p - 0.5), 9), moves, order)
        if best is None or key < best:
            best, chance = key, p
    assert best is not None
    return Arrangement(best[2], chance)
