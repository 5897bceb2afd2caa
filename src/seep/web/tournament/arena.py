"""Arena events (issue 30 item 3; docs/web.md "Events"): within the event's time window a
team that finishes a game is paired again at once; pure functions of the games so far.

**Scoring** (:func:`score`), after Lichess's arena: a win 2 points, a draw 1, a loss 0. A team
that has won its last two games or more is **on a streak**: while on it, a win counts double
(4) and a draw too (2); anything but a win ends the streak, and a win after it starts the count
again (so the third win in a row is the first worth 4). The streak is the run of wins just
before a game, counted over the team's games in the order they finished.

**Standings** (:func:`standings`): by points, then by fewer games played (the same points in
fewer games), then by the seed order (the order the teams are listed in, strongest first).

**Pairing** (:func:`opponent`, :func:`pair_free`): a free team (its last game over, not
withdrawn) is paired with the free team nearest it in the standings (the higher-ranked of two
at the same distance), not its last opponent when any other team is free; :func:`pair_free`
pairs everyone free now, the longest waiting first, and leaves at most one team waiting.

**The window** (:func:`pairs_at`, :func:`counts`): teams are paired from the event's start
until its end; a game counts when it finished by the end (one still running then does not).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from . import TeamId

__all__ = [
    "STREAK",
    "ArenaStanding",
    "Free",
    "Game",
    "counts",
    "free_teams",
    "opponent",
    "pair_free",
    "pairs_at",
    "score",
    "standings",
]

#: Wins in a row after which a win (or a draw) counts double.
STREAK = 2


@dataclass(frozen=True)
class Game:
    """A finished game of the arena between ``a`` and ``b``, won by ``winner`` (``a``, ``b``
    or ``None`` for a draw). Games are given in the order they finished."""

    a: TeamId
    b: TeamId
    winner: TeamId | None = None

    def __post_init__(self) -> None:
        if self.a == self.b:
            raise ValueError(f"a team cannot play itself: {self.a!r}")
        if self.winner not in (None, self.a, self.b):
            raise ValueError(f"the winner {self.winner!r} did not play {self.a!r}-{self.b!r}")


def score(streak: int, outcome: str) -> tuple[int, int]:
    """A game's points for a team that had won its last ``streak`` games in a row, and its
    streak after it: ``outcome`` is ``"win"``, ``"draw"`` or ``"loss"``.

    >>> score(0, "win"), score(1, "win"), score(2, "win"), score(2, "draw"), score(5, "loss")
    ((2, 1), (2, 2), (4, 3), (2, 0), (0, 0))
    """
    double = 2 if streak >= STREAK else 1
    if outcome == "win":
        return 2 * double, streak + 1
    if outcome == "draw":
        return double, 0
    if outcome == "loss":
        return 0, 0
    raise ValueError(f"an outcome is 'win', 'draw' or 'loss', not {outcome!r}")


@dataclass(frozen=True)
class ArenaStanding:
    """A team's line: ``rank`` (1 first), ``points``, games ``played``, ``wins``, ``draws``,
    ``losses``, its ``streak`` now (wins in a row; on a streak at :data:`STREAK`), its
    ``last`` opponent (``None`` before its first game) and its ``seed``."""

    team: TeamId
    rank: int
    points: int
    played: int
    wins: int
    draws: int
    losses: int
    streak: int
    last: TeamId | None
    seed: int

    @property
    def on_streak(self) -> bool:
        """True when its next win counts double."""
        return self.streak >= STREAK


def standings(teams: Sequence[TeamId], games: Iterable[Game]) -> list[ArenaStanding]:
    """The arena's standings of ``teams`` (in seed order) after ``games`` (in the order they
    finished), best first. Raises :class:`ValueError` for a game of a team not listed."""
    seed = {t: i for i, t in enumerate(teams)}
    if len(seed) != len(teams):
        raise ValueError("a team is listed twice")
    tally = {t: [0, 0, 0, 0, 0] for t in teams}  # points, wins, draws, losses, streak
    last: dict[TeamId, TeamId | None] = dict.fromkeys(teams)
    for g in games:
        for t in (g.a, g.b):
            if t not in seed:
                raise ValueError(f"a game names {t!r}, who is not in the event")
        for t, other in ((g.a, g.b), (g.b, g.a)):
            row = tally[t]
            outcome = "draw" if g.winner is None else "win" if g.winner == t else "loss"
            got, row[4] = score(row[4], outcome)
            row[0] += got
            row[{"win": 1, "draw": 2, "loss": 3}[outcome]] += 1
            last[t] = other
    played = {t: r[1] + r[2] + r[3] for t, r in tally.items()}
    order = sorted(teams, key=lambda t: (-tally[t][0], played[t], seed[t]))
    return [
        ArenaStanding(
            team=t,
            rank=i + 1,
            points=tally[t][0],
            played=played[t],
            wins=tally[t][1],
            draws=tally[t][2],
            losses=tally[t][3],
            streak=tally[t][4],
            last=last[t],
            seed=seed[t],
        )
        for i, t in enumerate(order)
    ]


@dataclass(frozen=True)
class Free:
    """A team free to play now: its ``rank`` in the standings (1 first) and its ``last``
    opponent (``None``: none yet)."""

    team: TeamId
    rank: int
    last: TeamId | None = None


def opponent(team: Free, free: Sequence[Free]) -> Free | None:
    """Whom ``team`` plays next among ``free`` (it may be listed there; it is skipped): the
    nearest in rank, the higher-ranked on a tie, not an immediate rematch (``team``'s last
    opponent, or one whose last opponent was ``team``) while another is free. ``None`` when
    nobody else is free."""
    others = [f for f in free if f.team != team.team]
    if not others:
        return None
    fresh = [f for f in others if f.team != team.last and f.last != team.team]
    pool = fresh or others
    return min(pool, key=lambda f: (abs(f.rank - team.rank), f.rank))


def pair_free(free: Sequence[Free]) -> tuple[list[tuple[TeamId, TeamId]], TeamId | None]:
    """Pair every team in ``free`` (listed longest waiting first): each in turn, not yet
    paired, takes its :func:`opponent` among those left. Returns the pairs (the one who
    waited longer first) and the team left waiting (``None``: nobody)."""
    left = list(free)
    pairs: list[tuple[TeamId, TeamId]] = []
    while len(left) >= 2:
        first = left.pop(0)
        other = opponent(first, left)
        assert other is not None
        left.remove(other)
        pairs.append((first.team, other.team))
    return pairs, left[0].team if left else None


def free_teams(
    table: Sequence[ArenaStanding],
    waiting: Sequence[TeamId],
    lasts: Mapping[TeamId, TeamId | None] | None = None,
) -> list[Free]:
    """The :class:`Free` of each team in ``waiting`` (longest waiting first), with its rank
    and last opponent read from ``table`` (:func:`standings`); ``lasts`` overrides the last
    opponents (the store's, when games are kept elsewhere)."""
    line = {s.team: s for s in table}
    out = []
    for t in waiting:
        s = line[t]
        last = s.last if lasts is None else lasts.get(t, s.last)
        out.append(Free(t, s.rank, last))
    return out


def pairs_at(now: float, starts: float, ends: float) -> bool:
    """True when the arena pairs teams at ``now``: from ``starts`` until before ``ends`` (any
    one clock, seconds)."""
    return starts <= now < ends


def counts(finished: float, ends: float) -> bool:
    """True when a game that finished at ``finished`` counts: by the window's end."""
    return finished <= ends
