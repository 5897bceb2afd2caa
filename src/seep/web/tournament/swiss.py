"""Swiss events (issue 30 item 2; docs/web.md "Events"): standings and the pairing of a round,
pure functions of the results so far.

**Standings** (:func:`standings`): by points (a win 2, a draw 1, a loss 0, a bye 2:
:class:`Points`), then **Buchholz** (the sum of the points of every opponent met, a bye adding
nothing), then the **points difference** (the sum of each game's score difference, a bye 0),
then the seed order (the order the teams are listed in, strongest first). A withdrawn team
stays in the standings and in its opponents' Buchholz; it is never paired again.

**Pairing** (:func:`pair`, :func:`pair_round`), of the teams not withdrawn in their standings'
order, in this order of importance:

1. **No rematch while avoidable.** A pairing's cost counts, for each pair, how often its teams
   met before; a pair meeting for the third time costs more than any number meeting for the
   second. Only pairings of the least cost possible for the whole field are considered
   (:func:`_Field.cost`: an exact search with memory, which stops at the first pairing of
   cost 0; fields of an event's size, tens of teams, take milliseconds).
2. **The bye** (an odd count): to the lowest-ranked team that has not had one and whose bye
   leaves the least cost; every team has had one: the lowest-ranked of those with fewest.
   Avoiding a rematch comes first: a team gets a second bye rather than two teams meeting
   again.
3. **Score groups, top down.** The teams of equal points form a group; those the group above
   could not pair **float down** to the next. Each group pairs as many of its teams as it can
   while the rest of the field can still be paired at the least cost; who floats down is
   chosen from the bottom of the group (so a team that floated in floats again last).
4. **Who meets whom in a group.** A team that floated down meets the highest-ranked team of its
   new group that it may; the others, 2k teams, are paired top half against bottom half: the
   first plays the (k+1)th, the second the (k+2)th and so on (the Dutch order). When a pair has
   met, the nearest exchange that the rest allows is taken: the top team tries the (k+2)th,
   ..., then the kth, ..., the second, before anything else changes.

The team named first in a pair is the higher ranked; pairs are listed by the higher team's
rank (the first "board" first). A team of one (two seats) and a partnership (four seats) are
paired alike: teams are ids.
"""

from __future__ import annotations

import itertools
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

from . import TeamId

__all__ = ["Pairing", "Points", "Result", "Standing", "pair", "pair_round", "standings"]


@dataclass(frozen=True)
class Points:
    """What a game is worth in a Swiss event's standings."""

    win: int = 2
    draw: int = 1
    loss: int = 0
    bye: int = 2


@dataclass(frozen=True)
class Result:
    """One game: ``a`` against ``b`` (``b`` ``None``: ``a`` had the bye), won by ``winner``
    (``a``, ``b``, or ``None`` for a draw; ignored for a bye); ``diff`` is ``a``'s score
    minus ``b``'s (the match's points, as the event counts them), ``-diff`` for ``b``."""

    a: TeamId
    b: TeamId | None
    winner: TeamId | None = None
    diff: int = 0

    def __post_init__(self) -> None:
        if self.b == self.a:
            raise ValueError(f"a team cannot play itself: {self.a!r}")
        if self.b is not None and self.winner not in (None, self.a, self.b):
            raise ValueError(f"the winner {self.winner!r} did not play {self.a!r}-{self.b!r}")


@dataclass(frozen=True)
class Standing:
    """A team's line in the standings: ``rank`` (1 first), its ``points``, ``buchholz`` and
    points ``diff``, its ``seed`` (its index in the seed order), games ``played`` (byes not
    counted), ``byes`` had, ``opponents`` met in order (twice if met twice), ``withdrawn``."""

    team: TeamId
    rank: int
    points: int
    buchholz: int
    diff: int
    seed: int
    played: int
    byes: int
    opponents: tuple[TeamId, ...]
    withdrawn: bool = False


def standings(
    teams: Sequence[TeamId],
    results: Iterable[Result],
    withdrawn: Collection[TeamId] = (),
    points: Points = Points(),
) -> list[Standing]:
    """The standings of ``teams`` (listed in seed order) after ``results``, best first.

    Raises :class:`ValueError` for a result naming a team not in ``teams`` or a team listed
    twice.
    """
    seed = {t: i for i, t in enumerate(teams)}
    if len(seed) != len(teams):
        raise ValueError("a team is listed twice")
    pts = dict.fromkeys(teams, 0)
    diff = dict.fromkeys(teams, 0)
    byes = dict.fromkeys(teams, 0)
    met: dict[TeamId, list[TeamId]] = {t: [] for t in teams}
    for r in results:
        for t in (r.a, r.b):
            if t is not None and t not in seed:
                raise ValueError(f"a result names {t!r}, who is not in the event")
        if r.b is None:
            byes[r.a] += 1
            pts[r.a] += points.bye
            continue
        met[r.a].append(r.b)
        met[r.b].append(r.a)
        diff[r.a] += r.diff
        diff[r.b] -= r.diff
        if r.winner is None:
            pts[r.a] += points.draw
            pts[r.b] += points.draw
        else:
            loser = r.b if r.winner == r.a else r.a
            pts[r.winner] += points.win
            pts[loser] += points.loss
    buchholz = {t: sum(pts[o] for o in met[t]) for t in teams}
    order = sorted(teams, key=lambda t: (-pts[t], -buchholz[t], -diff[t], seed[t]))
    gone = set(withdrawn)
    return [
        Standing(
            team=t,
            rank=i + 1,
            points=pts[t],
            buchholz=buchholz[t],
            diff=diff[t],
            seed=seed[t],
            played=len(met[t]),
            byes=byes[t],
            opponents=tuple(met[t]),
            withdrawn=t in gone,
        )
        for i, t in enumerate(order)
    ]


@dataclass(frozen=True)
class Pairing:
    """A round's pairing: ``pairs`` (higher-ranked team first, the first board first), the
    team with the ``bye`` (``None``: an even count), and how many pairs are ``rematches``
    (0 unless no pairing without one exists)."""

    pairs: tuple[tuple[TeamId, TeamId], ...]
    bye: TeamId | None
    rematches: int


class _Field:
    """The teams to pair, by index in rank order, and the least cost of pairing any subset
    of them (a bit mask), remembered."""

    def __init__(self, ranked: Sequence[Standing]) -> None:
        self.ranked = ranked
        n = len(ranked)
        index = {s.team: i for i, s in enumerate(ranked)}
        times = [[0] * n for _ in range(n)]
        for i, s in enumerate(ranked):
            for o in s.opponents:
                j = index.get(o)
                if j is not None:
                    times[i][j] += 1
        # A k-th meeting costs more than any number of (k-1)-th ones: n // 2 pairs at most.
        base = n // 2 + 1
        self.penalty = [[0 if t == 0 else base ** (t - 1) for t in row] for row in times]
        self.times = times
        self._memo: dict[int, int] = {0: 0}
        self._clean: dict[int, bool] = {0: True}

    def cost(self, mask: int) -> int:
        """The least total penalty of pairing every team in ``mask`` (an even count)."""
        memo = self._memo
        got = memo.get(mask)
        if got is not None:
            return got
        low = mask & -mask
        x = low.bit_length() - 1
        rest = mask ^ low
        best: int | None = None
        row = self.penalty[x]
        # Partners never met first: a branch of cost 0 ends the search at once.
        partners = sorted(_bits(rest), key=lambda y: row[y])
        for y in partners:
            p = row[y]
            if best is not None and p >= best:
                break
            c = p + self.cost(rest & ~(1 << y))
            if best is None or c < best:
                best = c
                if best == 0:
                    break
        assert best is not None
        memo[mask] = best
        return best

    def clean(self, mask: int) -> bool:
        """True when the teams in ``mask`` can be paired with no rematch: the search for a
        cost of 0 alone, which stops at the first such pairing and never looks for the least
        cost of one that has none (the full search, :meth:`cost`, on many subsets of a field
        where rematches are near is what takes time)."""
        got = self._memo.get(mask)
        if got is not None:
            return got == 0
        known = self._clean.get(mask)
        if known is not None:
            return known
        low = mask & -mask
        x = low.bit_length() - 1
        rest = mask ^ low
        row = self.penalty[x]
        ok = any(row[y] == 0 and self.clean(rest & ~(1 << y)) for y in _bits(rest))
        self._clean[mask] = ok
        return ok

    def costs(self, mask: int, target: int) -> bool:
        """True when pairing ``mask`` costs exactly ``target``."""
        return self.clean(mask) if target == 0 else self.cost(mask) == target

    def dutch(self, members: list[int], floated: set[int], target: int) -> list[tuple[int, int]]:
        """``members`` (indices, rank order) paired at the cost ``target``: first each team that
        ``floated`` down into the group, with the highest-ranked team of the group it may meet;
        then the rest top half against bottom half. Each team takes the first partner in that
        order that keeps the cost at ``target``."""
        pairs: list[tuple[int, int]] = []
        left = list(members)
        while left:
            t, rest = left[0], left[1:]
            if t in floated:
                order = [u for u in rest if u not in floated] + [u for u in rest if u in floated]
            else:
                k = len(left) // 2
                order = rest[k - 1 :] + rest[: k - 1][::-1]
            rest_mask = _mask(rest)
            for u in order:
                p = self.penalty[t][u]
                if p <= target and self.costs(rest_mask & ~(1 << u), target - p):
                    target -= p
                    pairs.append((t, u))
                    left = [v for v in rest if v != u]
                    break
            else:  # pragma: no cover - target is always reachable
                raise AssertionError("no pairing at the target cost")
        return pairs


def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _mask(indices: Iterable[int]) -> int:
    m = 0
    for i in indices:
        m |= 1 << i
    return m


def pair(table: Sequence[Standing]) -> Pairing:
    """The next round's pairing of the teams of ``table`` (:func:`standings`) not withdrawn.

    >>> t = standings(["A", "B", "C", "D", "E"], [])
    >>> p = pair(t)
    >>> p.pairs, p.bye
    ((('A', 'C'), ('B', 'D')), 'E')
    """
    # By points first, as standings() ranks them (score groups must be contiguous).
    ranked = sorted((s for s in table if not s.withdrawn), key=lambda s: (-s.points, s.rank))
    field = _Field(ranked)
    n = len(ranked)
    everyone = (1 << n) - 1
    bye: int | None = None
    if n % 2:
        # Lowest ranked first among those with fewest byes; the least cost wins.
        candidates = sorted(range(n), key=lambda i: (ranked[i].byes, -i))
        clean = [i for i in candidates if field.clean(everyone & ~(1 << i))]
        if clean:
            bye = clean[0]
        else:  # a rematch somewhere whoever has the bye: the bye that costs least
            bye = min(
                candidates, key=lambda i: (field.cost(everyone & ~(1 << i)), ranked[i].byes > 0)
            )
        everyone &= ~(1 << bye)
    target = 0 if field.clean(everyone) else field.cost(everyone)
    groups = [
        [i for i, _ in grp]
        for _, grp in itertools.groupby(
            ((i, ranked[i].points) for i in _bits(everyone)), key=lambda x: x[1]
        )
    ]
    pairs: list[tuple[int, int]] = []
    floaters: list[int] = []
    below = everyone
    for group in groups:
        incoming = floaters
        members = floaters + group
        below &= ~_mask(group)
        chosen: tuple[list[int], int] | None = None
        for f in range(len(members) % 2, len(members) + 1, 2):
            # Who floats down: from the bottom of the group up.
            for down in itertools.combinations(members[::-1], f):
                inside = [m for m in members if m not in down]
                if target == 0:
                    c_in = 0
                    fits = field.clean(_mask(inside)) and field.clean(_mask(down) | below)
                else:
                    c_in = field.cost(_mask(inside))
                    fits = c_in + field.cost(_mask(down) | below) == target
                if fits:
                    chosen = (inside, c_in)
                    floaters = sorted(down)
                    break
            if chosen is not None:
                break
        assert chosen is not None, "the field's least cost is always reachable"
        inside, c_in = chosen
        pairs.extend(field.dutch(inside, set(incoming), c_in))
        target -= c_in
    pairs.sort()
    return Pairing(
        pairs=tuple((ranked[a].team, ranked[b].team) for a, b in pairs),
        bye=None if bye is None else ranked[bye].team,
        rematches=sum(1 for a, b in pairs if field.times[a][b]),
    )


def pair_round(
    teams: Sequence[TeamId],
    results: Iterable[Result],
    withdrawn: Collection[TeamId] = (),
    points: Points = Points(),
) -> Pairing:
    """The next round's pairing after ``results``: :func:`pair` of :func:`standings`."""
    return pair(standings(teams, results, withdrawn, points))
