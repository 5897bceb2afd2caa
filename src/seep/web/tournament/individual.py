"""Individual events (issue 30 item 1; docs/web.md "Events"): at four players, partners drawn
each round. Each player registers alone and is scored alone (his side's result: a win 2, a draw
1, a loss 0, as :mod:`seep.web.tournament.swiss` counts it); a pure function of the standings.

**The draw** (:func:`draw`): the players not withdrawn, in standings order, an odd count giving
a **bye** to the lowest-ranked of those with the fewest byes; the others sit in fours by rank
(the top four at the first table, ...), each table's partnerships drawn at random (the caller's
``random.Random``, e.g. seeded by the round's seed): the first two drawn against the other two,
partners opposite. A count that leaves two over seats them at a last table against each other,
each with a bot partner.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from . import TeamId
from .swiss import Standing

__all__ = ["Draw", "draw"]


@dataclass(frozen=True)
class Draw:
    """A round of an individual event: its ``tables``, each two sides of one or two players
    (side 0 first; a side's first player in seat 0 or 1, his partner opposite), and the
    player with the ``bye`` (``None``: an even count)."""

    tables: tuple[tuple[tuple[TeamId, ...], tuple[TeamId, ...]], ...]
    bye: TeamId | None


def draw(standings: Sequence[Standing], rng: random.Random) -> Draw:
    """The next round's tables of the players of ``standings`` (best first) not withdrawn.

    >>> from seep.web.tournament import swiss
    >>> d = draw(swiss.standings(list("ABCDEFG"), []), random.Random(1))
    >>> d.bye, [sorted(a + b) for a, b in d.tables]
    ('G', [['A', 'B', 'C', 'D'], ['E', 'F']])
    """
    ranked = [s for s in standings if not s.withdrawn]
    bye = None
    if len(ranked) % 2 == 1:
        fewest = min(s.byes for s in ranked)
        lowest = max(i for i, s in enumerate(ranked) if s.byes == fewest)
        bye = ranked.pop(lowest).team
    tables: list[tuple[tuple[TeamId, ...], tuple[TeamId, ...]]] = []
    for i in range(0, len(ranked), 4):
        group = [s.team for s in ranked[i : i + 4]]
        rng.shuffle(group)
        if len(group) == 4:
            tables.append(((group[0], group[2]), (group[1], group[3])))
        else:
            tables.append(((group[0],), (group[1],)))
    return Draw(tuple(tables), bye)
