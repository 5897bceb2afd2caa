"""The arena: bots measured against each other, honestly.

*Duplicate deals.* Luck of the cards dominates a single deal of Seep, so every shuffle is
played twice: bot A on seats 0 and 2 and bot B on 1 and 3, then the seats swapped, with the
same dealer and the same cards. What is left of the score difference is skill (and the bots'
own randomness). In ``baazis`` mode each pair plays a whole baazi (a
:class:`~seep.session.Session` deals until a team wins it, R45 and R46) in both seatings,
on the same sequence of shuffles. The dealer of later deals follows the results (R9), so
from the second deal of a baazi on the two seatings may see the same pack dealt from
different seats.

*Honest bots.* Each seat has its own bot object and its own :class:`random.Random`, seeded
from the run seed, the pair, the deal, the seating and the seat; a bot is shown only
:meth:`View.from_position(pos, seat, history) <seep.view.View.from_position>`, never the
position, and every move it returns is checked for legality.

*Statistics.* The mean score difference per deal (A's team minus B's) comes with a Student t
95% interval over the duplicate pairs (:data:`~seep.arena.runner.CI_METHOD`), baazi win rates
with Wilson intervals, and a round robin with Elo ratings fitted by maximum likelihood
(Bradley-Terry; mean 1500, or one bot pinned at 0). See :mod:`seep.arena.stats`.

*Reproducible, in parallel.* The same seed gives the same results (every figure but the
timings) with any number of workers, on the local process pool or on Ray
(``backend="ray"``, the optional extra ``seep-game[ray]``). The engine lists legal moves in
an order that depends on the position alone, so a seeded bot plays a game the same way in any
process. A bot that searches for a fixed time (the ``hard`` and ``expert`` presets) is
reported in the results' ``warnings``: its play depends on the machine, not only on the seed.

>>> r = run_match("random", "random", deals=8, seed=1)
>>> r.deals, r.pairs
(8, 4)
>>> run_match("random", "random", deals=8, seed=1).to_dict(timing=False) == r.to_dict(False)
True

From the shell: ``seep arena random greedy --deals 1000 --workers 2`` or
``seep arena --round-robin random greedy heuristic --deals 400``.
"""

from __future__ import annotations

from .play import (
    ArenaError,
    BotError,
    BotSpec,
    GameResult,
    MatchConfig,
    RunError,
    play_game,
    play_pair,
)
from .runner import (
    CI_METHOD,
    ELO_METHOD,
    MatchResult,
    RoundRobinResult,
    round_robin,
    run_match,
    self_play_records,
)
from .stats import elo_expected, elo_ratings, mean_ci, ratio_ci, t_quantile, wilson

__all__ = [
    "CI_METHOD",
    "ELO_METHOD",
    "ArenaError",
    "BotError",
    "BotSpec",
    "GameResult",
    "MatchConfig",
    "MatchResult",
    "RoundRobinResult",
    "RunError",
    "elo_expected",
    "elo_ratings",
    "mean_ci",
    "play_game",
    "play_pair",
    "ratio_ci",
    "round_robin",
    "run_match",
    "self_play_records",
    "t_quantile",
    "wilson",
]
