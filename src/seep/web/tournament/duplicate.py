"""Duplicate Seep (issue 30 item 4; docs/web.md "Events"): every table of a round plays the
same shuffles, and each team's score on a deal is compared with those of the teams that held
the same cards. Pure functions: no table, no clock, no store.

**The same shuffles.** Deal ``k`` (0, 1, ...) of a round is played at every table as a match of
one deal whose seed is :func:`deal_seed` of the round's seed and ``k``: the core deals it
(:class:`seep.session.Session`: :func:`seep.session.deal_seed` shuffles,
:func:`seep.session.first_dealer` draws the dealer), so every table gets the same hands in the
same seats and the same dealer, as the arena's duplicate pairs do (``seep.arena.play``). Each
deal is a match of its own because the next dealer (R47) and the baazi's difference follow
from how the deal before went, which differs from table to table. A deal's record carries its
own seed only; the round's seed (secret, drawn by the server, e.g. ``secrets.randbits(62)``)
never leaves the server, and one deal's seed tells nothing of another's (they are hashed from
it by :class:`random.Random`'s string seeding, SHA-512).

**Seats.** The cards of seats 0 and 2 (one seat, 0, at two players) are **side 0**, those of
seats 1 and 3 (seat 1) **side 1**. At table ``i`` of a round (:func:`tables`) the first team
named takes side 0, except at the odd tables (the second, the fourth, ...), which are
**swapped**: their first team takes side 1. So with the tables paired by any rule, half the
field holds each side of every deal.

**Matchpoints** (:func:`matchpoints`): a team's score on a deal (:func:`margin`: its deal score,
R42, minus the other side's, the difference that R44 adds to the baazi) is compared with every
other team that held the same cards (the same deal and the same side): 2 points for each it
beat, 1 for each tie. A deal's top is 2 for each other team; :func:`standings` ranks the teams
by their matchpoints as a percentage of their tops, then by the seed order.

**The friendly two tables** (:func:`two_tables`): eight people (four teams A, B, C, D; four
people at two seats): A-B at table 1, C-D at table 2 swapped, so A and D hold the same cards,
and B and C.

**What a round shows while it is played** (:func:`visible_deals`, :func:`may_see_record`,
:func:`may_see_result`, :func:`may_watch`): a deal's records and results open when every table
of the round has finished it; before that a team knows only its own table's results (it saw
them), and nobody watches a table of the round live.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, TypeVar

from seep.options import Rules
from seep.session import Session

from . import TeamId

__all__ = [
    "DealScore",
    "DuplicateStanding",
    "DuplicateTable",
    "Matchpoints",
    "deal_scores",
    "deal_seed",
    "deal_session",
    "margin",
    "matchpoints",
    "may_see_record",
    "may_see_result",
    "may_watch",
    "seat_people",
    "side_seats",
    "standings",
    "tables",
    "two_tables",
    "visible_deals",
]

P = TypeVar("P")


def deal_seed(round_seed: int, deal: int) -> int:
    """The seed of deal ``deal`` (0, 1, ...) of a round: the match seed every table of the
    round plays that deal with (:func:`deal_session`)."""
    if deal < 0:
        raise ValueError(f"a deal's number is 0 or more, not {deal}")
    return random.Random(f"seep-duplicate:{round_seed}:{deal}").randrange(1 << 62)


def deal_session(rules: str | Mapping[str, Any] | Rules, round_seed: int, deal: int) -> Session:
    """Deal ``deal`` of a round as a table plays it: a match of one deal, seeded by
    :func:`deal_seed` (the web table's ``GameTable`` does the same from its ``seed`` and
    ``deals: 1``)."""
    return Session(rules, seed=deal_seed(round_seed, deal), deals=1)


def side_seats(side: int, players: int = 4) -> tuple[int, ...]:
    """The seats whose cards make ``side`` (0: seats 0 and 2; 1: seats 1 and 3; at two
    players the one seat)."""
    if side not in (0, 1) or players not in (2, 4):
        raise ValueError(f"no side {side} at {players} players")
    return tuple(range(side, players, 2))


@dataclass(frozen=True)
class DuplicateTable:
    """A table of a duplicate round: its ``number`` (0 first), its ``first`` and ``second``
    teams, and whether it is ``swapped`` (the first team holds side 1)."""

    number: int
    first: TeamId
    second: TeamId
    swapped: bool

    def side(self, team: TeamId) -> int:
        """The side ``team`` holds at this table."""
        if team == self.first:
            return 1 if self.swapped else 0
        if team == self.second:
            return 0 if self.swapped else 1
        raise ValueError(f"{team!r} does not play at table {self.number}")

    def team_on(self, side: int) -> TeamId:
        """The team holding ``side`` here."""
        return self.first if (side == 1) == self.swapped else self.second

    def seats(self, team: TeamId, players: int = 4) -> tuple[int, ...]:
        """The seats ``team`` sits in (``players`` 4: partners opposite; 2: one seat)."""
        return side_seats(self.side(team), players)


def tables(pairs: Sequence[tuple[TeamId, TeamId]]) -> list[DuplicateTable]:
    """A round's tables from its pairs (by any pairing: Swiss, a movement, the organiser's),
    the odd ones swapped. Raises :class:`ValueError` when a team plays twice."""
    seen: set[TeamId] = set()
    for a, b in pairs:
        if a == b or a in seen or b in seen:
            raise ValueError(f"a team plays twice in the round: {a!r}-{b!r}")
        seen.update((a, b))
    return [DuplicateTable(i, a, b, swapped=i % 2 == 1) for i, (a, b) in enumerate(pairs)]


def two_tables(teams: Sequence[TeamId]) -> list[DuplicateTable]:
    """The friendly duplicate of four teams (eight people at four seats): A-B at table 1,
    C-D at table 2 swapped, so A and D hold the same cards, and B and C."""
    if len(teams) != 4:
        raise ValueError(f"two tables seat four teams, not {len(teams)}")
    a, b, c, d = teams
    return tables([(a, b), (c, d)])


def seat_people(
    table: DuplicateTable, members: Mapping[TeamId, Sequence[P]], players: int = 4
) -> list[P]:
    """Who sits in each seat of ``table`` (seat order), each team's members (one, or two
    partners) in the seats of its side in order."""
    out: list[P | None] = [None] * players
    for team in (table.first, table.second):
        seats = table.seats(team, players)
        people = members[team]
        if len(people) != len(seats):
            raise ValueError(f"{team!r} has {len(people)} players for {len(seats)} seats")
        for seat, person in zip(seats, people, strict=True):
            out[seat] = person
    return [p for p in out if p is not None]


def margin(score: Sequence[int], side: int) -> int:
    """What duplicate compares: ``side``'s deal score minus the other side's, from a deal's
    docs/format.md ``result["score"]`` (one score per side)."""
    return score[side] - score[1 - side]


@dataclass(frozen=True)
class DealScore:
    """A team's result on a deal: the ``side`` it held and its ``score`` (:func:`margin`)."""

    team: TeamId
    deal: int
    side: int
    score: int


def deal_scores(table: DuplicateTable, deal: int, score: Sequence[int]) -> list[DealScore]:
    """Both teams' :class:`DealScore` from a deal's ``result["score"]`` at ``table``."""
    return [
        DealScore(t, deal, table.side(t), margin(score, table.side(t)))
        for t in (table.first, table.second)
    ]


@dataclass(frozen=True)
class Matchpoints:
    """A team's matchpoints on a deal: ``points`` (2 for each team it beat, 1 for each tie)
    out of ``top`` (2 for each of the ``others`` that held the same cards), and their
    ``field`` average score (``None`` when nobody else held them)."""

    team: TeamId
    deal: int
    side: int
    score: int
    points: int
    top: int
    others: int
    field: Fraction | None

    @property
    def percent(self) -> float | None:
        """``points`` as a percentage of ``top`` (``None``: nothing to compare with)."""
        return None if self.top == 0 else 100 * self.points / self.top


def matchpoints(scores: Iterable[DealScore]) -> list[Matchpoints]:
    """Every team's matchpoints on every deal it played, in the order given. Raises
    :class:`ValueError` when a team has two scores for one deal."""
    rows = list(scores)
    holders: dict[tuple[int, int], list[DealScore]] = defaultdict(list)
    seen: set[tuple[TeamId, int]] = set()
    for r in rows:
        if (r.team, r.deal) in seen:
            raise ValueError(f"{r.team!r} has two scores for deal {r.deal}")
        seen.add((r.team, r.deal))
        holders[(r.deal, r.side)].append(r)
    out = []
    for r in rows:
        others = [o.score for o in holders[(r.deal, r.side)] if o.team != r.team]
        points = sum(2 if r.score > s else 1 if r.score == s else 0 for s in others)
        field = Fraction(sum(others), len(others)) if others else None
        out.append(
            Matchpoints(
                r.team, r.deal, r.side, r.score, points, 2 * len(others), len(others), field
            )
        )
    return out


@dataclass(frozen=True)
class DuplicateStanding:
    """A team's line: ``rank`` (1 first), its total ``points`` out of ``top``, their
    ``percent`` (``None`` before any deal was compared), ``deals`` scored, its ``seed``."""

    team: TeamId
    rank: int
    points: int
    top: int
    percent: float | None
    deals: int
    seed: int


def standings(teams: Sequence[TeamId], scores: Iterable[DealScore]) -> list[DuplicateStanding]:
    """The duplicate standings of ``teams`` (in seed order): by percentage (exactly, not
    rounded), the teams with nothing compared yet last, then by the seed order."""
    seed = {t: i for i, t in enumerate(teams)}
    if len(seed) != len(teams):
        raise ValueError("a team is listed twice")
    got = dict.fromkeys(teams, 0)
    top = dict.fromkeys(teams, 0)
    deals = dict.fromkeys(teams, 0)
    for m in matchpoints(scores):
        if m.team not in seed:
            raise ValueError(f"a score names {m.team!r}, who is not in the event")
        got[m.team] += m.points
        top[m.team] += m.top
        deals[m.team] += 1

    def key(t: TeamId) -> tuple[int, Fraction, int]:
        if top[t] == 0:
            return (1, Fraction(0), seed[t])
        return (0, -Fraction(got[t], top[t]), seed[t])

    order = sorted(teams, key=key)
    return [
        DuplicateStanding(
            team=t,
            rank=i + 1,
            points=got[t],
            top=top[t],
            percent=None if top[t] == 0 else 100 * got[t] / top[t],
            deals=deals[t],
            seed=seed[t],
        )
        for i, t in enumerate(order)
    ]


# --- what a running round shows ----------------------------------------------------------------


def _check(progress: Mapping[int, int]) -> None:
    for table, done in progress.items():
        if done < 0:
            raise ValueError(f"table {table} has finished {done} deals")


def visible_deals(progress: Mapping[int, int]) -> frozenset[int]:
    """The deals whose records and results are open to everyone: those every table of the
    round has finished. ``progress`` maps each table of the round (all of them) to how many
    deals it has finished (its deals are played in order, 0 first)."""
    _check(progress)
    if not progress:
        return frozenset()
    return frozenset(range(min(progress.values())))


def may_see_record(progress: Mapping[int, int], deal: int) -> bool:
    """True when a record of ``deal`` (any table's: it shows every hand) may be shown to
    anyone, its own players too: once every table has finished the deal."""
    return deal in visible_deals(progress)


def may_see_result(
    progress: Mapping[int, int], deal: int, table: int, viewer_table: int | None
) -> bool:
    """True when the result of ``deal`` at ``table`` may be shown to someone playing at
    ``viewer_table`` (``None``: not playing in the round): once every table has finished the
    deal, or at once to the table's own players once it has finished it there (they saw it)."""
    if deal in visible_deals(progress):
        return True
    return viewer_table == table and 0 <= deal < progress.get(table, 0)


def may_watch(progress: Mapping[int, int], deals: int) -> bool:
    """True when a table of the round may be watched: only once every table has finished all
    ``deals`` of the round (a spectator sees the cards played, which other tables hold)."""
    return len(visible_deals(progress)) >= deals and bool(progress)
