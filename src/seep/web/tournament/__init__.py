"""Events' pure decisions (issue 30; docs/web.md "Events"): no tables, no clock, no store.

- :mod:`seep.web.tournament.swiss`: Swiss standings (points, Buchholz, points difference,
  seed) and the pairing of a round (score groups, no rematch while avoidable, byes,
  withdrawals).
- :mod:`seep.web.tournament.arena`: an arena's scoring (a win 2, a draw 1, double on a streak),
  its standings, and the pairing of the teams free now, each with the nearest-ranked.
- :mod:`seep.web.tournament.duplicate`: duplicate Seep: the same shuffles at every table of a
  round (the core's seeded dealing), which seats each team takes, matchpoints and percentages,
  the friendly "two tables" for eight, and what of a round may be shown while it is played.

Each module is the standard library and the ``seep`` core only; teams are named by any ids the
caller chooses (an int or a str), a team of one at two seats and of two partners at four alike.
"""

from __future__ import annotations

TeamId = int | str
"""A team's id as the caller names it (its store id, or a name in tests)."""

__all__ = ["TeamId"]
