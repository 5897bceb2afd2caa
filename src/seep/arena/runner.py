"""Running matches and round robins, locally or on Ray, and summarizing them.

The work is a list of *jobs*, each a run of consecutive duplicate pairs of one match
(:func:`seep.arena.play.run_chunk`). A backend may run them in any order on any number of
processes; the results are put back in job order before anything is summed, so every figure
except the timings is the same for the same seed whatever the backend and the worker count.
"""

from __future__ import annotations

import math
import multiprocessing
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any

from ..errors import SeepError
from ..options import Rules
from .play import (
    ArenaError,
    BotSpec,
    GameResult,
    MatchConfig,
    RunError,
    load_plugins,
    run_chunk,
)
from .stats import elo_ratings, ratio_ci, wilson

__all__ = [
    "BACKENDS",
    "MatchResult",
    "ProgressCallback",
    "RoundRobinResult",
    "round_robin",
    "run_match",
    "self_play_records",
]

BACKENDS = ("local", "ray")
Job = tuple[int, MatchConfig, int, int]
# progress(pairs done, pairs in all, deals done): called in the main process as work finishes.
ProgressCallback = Callable[[int, int, int], None]

CI_METHOD = (
    "Student t interval over duplicate pairs (one value per shuffle or per pair of baazis: "
    "the pair's summed score difference over its number of deals), k - 1 degrees of freedom"
)
ELO_METHOD = (
    "Bradley-Terry maximum likelihood (MM iteration), one virtual draw per pairing as a "
    "prior; a game is a duplicate pair in deals mode (won by the bot whose summed score "
    "difference over both seatings is positive, a draw at 0) and a baazi in baazis mode"
)


# --- results ------------------------------------------------------------------------------


def _r(x: float, digits: int = 4) -> float:
    return round(x, digits) + 0.0


@dataclass
class MatchResult:
    """The games of a match between two bots (A = ``bots[0]``, B = ``bots[1]``), in order:
    pair 0 seating 0, pair 0 seating 1, pair 1 seating 0, ... and summaries of them."""

    config: MatchConfig
    games: list[GameResult]
    seconds: float = 0.0
    workers: int = 1
    backend: str = "local"
    warnings: list[str] = field(default_factory=list)

    @property
    def labels(self) -> tuple[str, str]:
        """The two bots' names (with settings)."""
        return self.config.bots[0].label, self.config.bots[1].label

    @property
    def pairs(self) -> int:
        """Duplicate pairs played."""
        return len(self.games) // 2

    @property
    def deals(self) -> int:
        """Deals played in all (both seatings)."""
        return sum(g.deals for g in self.games)

    def _pair_totals(self) -> tuple[list[int], list[int]]:
        totals, sizes = [], []
        for i in range(0, len(self.games), 2):
            g0, g1 = self.games[i], self.games[i + 1]
            totals.append(sum(g0.diffs) + sum(g1.diffs))
            sizes.append(g0.deals + g1.deals)
        return totals, sizes

    def diff_stats(self) -> tuple[float, float | None, tuple[float, float] | None]:
        """Mean score difference per deal (A's team minus B's), its standard error and 95%
        interval: see :data:`CI_METHOD`. In deals mode every pair has 2 deals and this is the
        t interval of the pair means; in baazis mode pairs differ in length and it is the
        ratio estimator's (:func:`seep.arena.stats.ratio_ci`)."""
        totals, sizes = self._pair_totals()
        return ratio_ci(totals, sizes)

    @property
    def mean_diff(self) -> float:
        """Mean score difference per deal, A's team minus B's."""
        return self.diff_stats()[0]

    @property
    def ci95(self) -> tuple[float, float] | None:
        """95% confidence interval of :attr:`mean_diff` (``None`` with a single pair)."""
        return self.diff_stats()[2]

    def seating_means(self) -> tuple[float, float]:
        """Mean difference per deal with A on seats 0/2 and with A on seats 1/3. Their gap
        shows what the seats themselves are worth (duplicate play cancels it out)."""
        out = []
        for seating in (0, 1):
            gs = [g for g in self.games if g.seating == seating]
            n = sum(g.deals for g in gs)
            out.append(_r(sum(sum(g.diffs) for g in gs) / n) if n else 0.0)
        return out[0], out[1]

    def pair_outcomes(self) -> tuple[int, int, int]:
        """Duplicate pairs won by A, drawn, won by B (by the sign of the pair's summed
        difference)."""
        totals, _ = self._pair_totals()
        a = sum(t > 0 for t in totals)
        b = sum(t < 0 for t in totals)
        return a, len(totals) - a - b, b

    def baazi_counts(self) -> tuple[int, int, int]:
        """Baazis won by A, won by B, and unfinished (baazis mode)."""
        a = sum(g.baazi_winner == 0 for g in self.games)
        b = sum(g.baazi_winner == 1 for g in self.games)
        return a, b, len(self.games) - a - b

    def baazi_win_rate(self) -> tuple[float, tuple[float, float]] | None:
        """A's share of the finished baazis and its 95% Wilson interval (``None`` in deals
        mode). The two baazis of a pair are negatively correlated for A (the good cards go to
        A in one seating and to B in the other), so the binomial interval is conservative."""
        if self.config.mode != "baazis":
            return None
        a, b, _ = self.baazi_counts()
        n = a + b
        lo, hi = wilson(a, n)
        return (_r(a / n) if n else 0.5), (_r(lo), _r(hi))

    def elo_game(self) -> tuple[float, float]:
        """A's score and the number of games, as :func:`elo_ratings` counts them."""
        if self.config.mode == "baazis":
            a, b, _ = self.baazi_counts()
            return float(a), float(a + b)
        a, d, b = self.pair_outcomes()
        return a + d / 2.0, float(a + d + b)

    def _sum(self, name: str) -> tuple[int, int]:
        pairs = [getattr(g, name) for g in self.games]
        return sum(p[0] for p in pairs), sum(p[1] for p in pairs)

    def ms_per_move(self) -> tuple[float | None, float | None]:
        """Mean wall time of each bot's ``choose`` per move, in milliseconds."""
        moves = self._sum("moves")
        secs = (sum(g.seconds[0] for g in self.games), sum(g.seconds[1] for g in self.games))
        return (
            _r(1000 * secs[0] / moves[0], 5) if moves[0] else None,
            _r(1000 * secs[1] / moves[1], 5) if moves[1] else None,
        )

    def to_dict(self, timing: bool = True) -> dict[str, Any]:
        """The results as one JSON-able object. With ``timing=False`` everything that depends
        on the machine or the worker count is left out, and what remains is a pure function
        of the bots, rules, seed and length of the match."""
        mean, se, ci = self.diff_stats()
        deals = self.deals
        score = self._sum("score")
        a_rate = self.baazi_win_rate()
        a_pairs, d_pairs, b_pairs = self.pair_outcomes()
        s0, s1 = self.seating_means()
        rules = self.config.rules
        out: dict[str, Any] = {
            "bots": list(self.labels),
            "mode": self.config.mode,
            "seed": self.config.seed,
            "rules": rules.preset_name() or rules.to_dict(),
            "pairs": self.pairs,
            "deals": deals,
            "mean_diff": mean,
            "ci95": list(ci) if ci else None,
            "stderr": se,
            "ci_method": CI_METHOD,
            "mean_score": [_r(score[0] / deals), _r(score[1] / deals)],
            "by_seating": {"a_on_0_2": s0, "a_on_1_3": s1},
            "pair_outcomes": {"a": a_pairs, "draw": d_pairs, "b": b_pairs},
            "sweeps": list(self._sum("sweeps")),
            "sweep_points": list(self._sum("sweep_points")),
            "under_min_score": list(self._sum("under_min")),
            "redeals": sum(g.redeals for g in self.games),
            "moves": list(self._sum("moves")),
        }
        if self.warnings:
            out["warnings"] = list(self.warnings)
        if a_rate is not None:
            a, b, unfinished = self.baazi_counts()
            out["baazis"] = {
                "a": a,
                "b": b,
                "unfinished": unfinished,
                "win_rate": a_rate[0],
                "wilson95": list(a_rate[1]),
                "deals_per_baazi": _r(deals / len(self.games)),
            }
        if timing:
            out["ms_per_move"] = list(self.ms_per_move())
            out["seconds"] = _r(self.seconds, 3)
            out["deals_per_s"] = _r(deals / self.seconds, 1) if self.seconds > 0 else None
            out["workers"] = self.workers
            out["backend"] = self.backend
        return out

    def records(self) -> list[dict[str, Any]]:
        """docs/format.md game records of every game (only with ``records=True``)."""
        return [g.record for g in self.games if g.record is not None]


@dataclass
class RoundRobinResult:
    """Every pairing of a round robin (``matches[(i, j)]`` for ``i < j``: bot i is A) and the
    Elo ratings fitted to them."""

    bots: list[BotSpec]
    matches: dict[tuple[int, int], MatchResult]
    elo: dict[str, float]
    anchor: str | None = None
    seconds: float = 0.0
    workers: int = 1
    backend: str = "local"
    warnings: list[str] = field(default_factory=list)

    @property
    def deals(self) -> int:
        """Deals played in all pairings."""
        return sum(m.deals for m in self.matches.values())

    def standings(self) -> list[tuple[str, float]]:
        """(bot, Elo) from the highest rating down."""
        return sorted(self.elo.items(), key=lambda kv: (-kv[1], kv[0]))

    def to_dict(self, timing: bool = True) -> dict[str, Any]:
        """The round robin as one JSON-able object (see :meth:`MatchResult.to_dict`)."""
        first = next(iter(self.matches.values()))
        rules = first.config.rules
        out: dict[str, Any] = {
            "round_robin": [b.label for b in self.bots],
            "mode": first.config.mode,
            "seed": first.config.seed,
            "rules": rules.preset_name() or rules.to_dict(),
            "deals": self.deals,
            "elo": {k: _r(v, 1) for k, v in self.standings()},
            "elo_anchor": self.anchor or "mean 1500",
            "elo_method": ELO_METHOD,
            "matches": [m.to_dict(timing=False) for m in self.matches.values()],
        }
        if self.warnings:
            out["warnings"] = list(self.warnings)
        if timing:
            out["seconds"] = _r(self.seconds, 3)
            out["deals_per_s"] = _r(self.deals / self.seconds, 1) if self.seconds > 0 else None
            out["workers"] = self.workers
            out["backend"] = self.backend
            ms: dict[str, list[float]] = {}
            moves: dict[str, int] = {}
            for m in self.matches.values():
                for side, label in enumerate(m.labels):
                    n = sum(g.moves[side] for g in m.games)
                    s = sum(g.seconds[side] for g in m.games)
                    moves[label] = moves.get(label, 0) + n
                    ms.setdefault(label, []).append(s)
            out["ms_per_move"] = {
                k: _r(1000 * sum(ms[k]) / moves[k], 5) if moves[k] else None for k in ms
            }
        return out


# --- planning and running -----------------------------------------------------------------


def _pairs_for(deals: int | None, baazis: int | None) -> tuple[str, int]:
    if (deals is None) == (baazis is None):
        raise ArenaError("give either a number of deals or a number of baazis")
    mode, n = ("deals", deals) if deals is not None else ("baazis", baazis)
    assert n is not None
    if n < 2 or n % 2:
        # Duplicate play: every shuffle (or baazi) is played once in each seating.
        raise ArenaError(
            f"the number of {mode} must be even and at least 2 (each is played twice, "
            f"with the seats swapped), got {n}"
        )
    return mode, n // 2


def _check_bots(specs: Sequence[BotSpec], plugins: Sequence[str]) -> list[str]:
    """Make each bot once here, so a bad name or setting fails before any work starts.

    Returns warnings about bots whose play the seed cannot reproduce.
    """
    load_plugins(plugins)
    warnings = []
    for spec in specs:
        try:
            bot = spec.make()
        except SeepError as exc:
            raise ArenaError(str(exc)) from None
        except (TypeError, ValueError) as exc:
            raise ArenaError(f"bot {spec.label!r}: bad settings: {exc}") from None
        # A search that stops on the clock (ISMCTS's "milliseconds", used by the hard and
        # expert presets) plays differently with the machine's speed and load.
        budget = getattr(bot, "milliseconds", None)
        if isinstance(budget, int | float) and budget > 0:
            warnings.append(
                f"{spec.label} searches for {budget:g} ms a move: its moves depend on the "
                "machine's speed and load, so the results are not reproducible from the seed "
                "(a fixed budget such as iterations=N is)"
            )
    return warnings


def _chunk_size(pairs: int, workers: int) -> int:
    # About 8 jobs per worker balances the load and updates the progress bar often enough;
    # the cap keeps a job short for slow bots. The split never changes the results.
    return max(1, min(16, math.ceil(pairs / (8 * max(1, workers)))))


def _jobs(configs: Sequence[MatchConfig], workers: int) -> list[tuple[int, Job]]:
    """(match index, job) for every chunk of every match, job ids in order."""
    out: list[tuple[int, Job]] = []
    for m, config in enumerate(configs):
        size = _chunk_size(config.pairs, workers)
        for start in range(0, config.pairs, size):
            out.append((m, (len(out), config, start, min(config.pairs, start + size))))
    return out


def _run_local(
    jobs: list[Job], workers: int, done: Callable[[int, list[GameResult]], None]
) -> None:
    if workers <= 1 or len(jobs) <= 1:
        for job in jobs:
            done(*run_chunk(job))
        return
    # "spawn": the same behaviour on every platform, and no fork of a parent that may hold
    # threads (a progress bar, Ray) or big caches. Workers import seep afresh. An executor
    # rather than multiprocessing.Pool: a worker that dies (killed, out of memory) or an
    # error that cannot be unpickled breaks it with an exception, where a Pool waits forever.
    ctx = multiprocessing.get_context("spawn")
    pool = ProcessPoolExecutor(max_workers=min(workers, len(jobs)), mp_context=ctx)
    try:
        futures = [pool.submit(run_chunk, job) for job in jobs]
        for future in as_completed(futures):
            done(*future.result())
    except BrokenProcessPool as exc:
        raise RunError(f"a worker process died: {exc}") from None
    finally:
        # On an error (or Ctrl-C) do not wait for the queued jobs: drop them.
        pool.shutdown(wait=True, cancel_futures=True)


def _execute(
    configs: Sequence[MatchConfig],
    workers: int,
    backend: str,
    address: str | None,
    progress: ProgressCallback | None,
) -> list[list[GameResult]]:
    """Run every pair of every config; the games of each config, in pair order."""
    if backend not in BACKENDS:
        raise ArenaError(f"unknown backend {backend!r} (known: {', '.join(BACKENDS)})")
    if workers < 1:
        raise ArenaError(f"workers must be at least 1, got {workers}")
    planned = _jobs(configs, workers)
    jobs = [job for _, job in planned]
    results: list[list[GameResult] | None] = [None] * len(jobs)
    total = sum(c.pairs for c in configs)
    pairs_done = deals_done = 0

    def done(job_id: int, games: list[GameResult]) -> None:
        nonlocal pairs_done, deals_done
        results[job_id] = games
        pairs_done += len(games) // 2
        deals_done += sum(g.deals for g in games)
        if progress is not None:
            progress(pairs_done, total, deals_done)

    if progress is not None:
        progress(0, total, 0)
    if backend == "ray":
        from .ray_backend import run_jobs

        run_jobs(jobs, workers, address, done)
    else:
        _run_local(jobs, workers, done)
    out: list[list[GameResult]] = [[] for _ in configs]
    for (m, _), games in zip(planned, results, strict=True):
        assert games is not None, "a job returned no result"
        out[m].extend(games)
    return out


def run_match(
    bot_a: str | BotSpec,
    bot_b: str | BotSpec,
    *,
    deals: int | None = None,
    baazis: int | None = None,
    seed: int = 0,
    rules: str | Mapping[str, Any] | Rules = "standard",
    workers: int = 1,
    backend: str = "local",
    address: str | None = None,
    progress: ProgressCallback | None = None,
    max_deals: int = 1000,
    plugins: Sequence[str] = (),
    records: bool = False,
) -> MatchResult:
    """A duplicate match of ``bot_a`` against ``bot_b``.

    ``deals=N`` plays N deals: N/2 shuffles, each with A on seats 0/2 and then on 1/3.
    ``baazis=N`` plays N baazis the same way (N/2 sequences of shuffles). N must be even.
    ``workers`` processes share the work (``backend="local"``: a spawn pool; ``"ray"``: Ray
    tasks, on the cluster at ``address`` or a local one). The results do not depend on
    ``workers`` or ``backend``, only on the bots, ``rules``, ``seed`` and the length.

    A script that uses ``workers > 1`` with the local backend must guard its entry point
    with ``if __name__ == "__main__":`` (the spawned workers import it).

    >>> r = run_match("random", "random", deals=4, seed=1)
    >>> r.deals, r.pairs, len(r.ci95)
    (4, 2, 2)
    """
    mode, pairs = _pairs_for(deals, baazis)
    specs = (BotSpec.parse(bot_a), BotSpec.parse(bot_b))
    try:
        parsed_rules = Rules.parse(rules)
    except SeepError as exc:
        raise ArenaError(str(exc)) from None
    config = MatchConfig(
        bots=specs,
        rules=parsed_rules,
        seed=seed,
        mode=mode,
        pairs=pairs,
        max_deals=max_deals,
        plugins=tuple(plugins),
        records=records,
    )
    warnings = _check_bots(specs, config.plugins)
    t0 = time.perf_counter()
    (games,) = _execute([config], workers, backend, address, progress)
    return MatchResult(config, games, time.perf_counter() - t0, workers, backend, warnings)


def round_robin(
    bots: Sequence[str | BotSpec],
    *,
    deals: int | None = None,
    baazis: int | None = None,
    seed: int = 0,
    rules: str | Mapping[str, Any] | Rules = "standard",
    workers: int = 1,
    backend: str = "local",
    address: str | None = None,
    progress: ProgressCallback | None = None,
    anchor: str | None = None,
    prior: float = 1.0,
    max_deals: int = 1000,
    plugins: Sequence[str] = (),
) -> RoundRobinResult:
    """Every pair of ``bots`` plays a duplicate match of ``deals`` (or ``baazis``), all with
    the same run seed and hence the same shuffles; then Elo ratings are fitted to the results
    (:data:`ELO_METHOD`): mean 1500, or ``anchor`` (a bot's label) at 0.

    >>> rr = round_robin(["random", "greedy"], deals=4, seed=3)
    >>> sorted(rr.elo), round(sum(rr.elo.values()) / 2)
    (['greedy', 'random'], 1500)
    """
    specs = [BotSpec.parse(b) for b in bots]
    labels = [s.label for s in specs]
    if len(specs) < 2:
        raise ArenaError("a round robin needs at least two bots")
    if len(set(labels)) != len(labels):
        raise ArenaError(f"each bot may appear once in a round robin, got {', '.join(labels)}")
    if anchor is not None and anchor not in labels:
        raise ArenaError(f"the Elo anchor {anchor!r} is not one of the bots")
    mode, pairs = _pairs_for(deals, baazis)
    try:
        parsed_rules = Rules.parse(rules)
    except SeepError as exc:
        raise ArenaError(str(exc)) from None
    warnings = _check_bots(specs, plugins)
    keys = [(i, j) for i in range(len(specs)) for j in range(i + 1, len(specs))]
    configs = [
        MatchConfig(
            bots=(specs[i], specs[j]),
            rules=parsed_rules,
            seed=seed,
            mode=mode,
            pairs=pairs,
            max_deals=max_deals,
            plugins=tuple(plugins),
        )
        for i, j in keys
    ]
    t0 = time.perf_counter()
    all_games = _execute(configs, workers, backend, address, progress)
    seconds = time.perf_counter() - t0
    matches = {
        key: MatchResult(config, games, 0.0, workers, backend)
        for key, config, games in zip(keys, configs, all_games, strict=True)
    }
    games_for_elo = []
    for (i, j), m in matches.items():
        score, n = m.elo_game()
        if n:
            games_for_elo.append((labels[i], labels[j], score, n))
    try:
        elo = elo_ratings(labels, games_for_elo, prior=prior, anchor=anchor)
    except ValueError as exc:  # e.g. prior=0 and a bot that won every game
        raise ArenaError(f"no Elo ratings: {exc}") from None
    return RoundRobinResult(specs, matches, elo, anchor, seconds, workers, backend, warnings)


def self_play_records(
    bot: str,
    deals: int,
    seed: int,
    workers: int = 1,
    progress: ProgressCallback | None = None,
) -> list[dict[str, Any]]:
    """The docs/format.md game records of ``deals`` (even) self-play deals of ``bot`` from the
    run seed ``seed``: what ``seep train`` learns from (``bots.train`` is handed this function
    by ``seep``'s command line, so the bots never import the arena)."""
    return run_match(
        bot, bot, deals=deals, seed=seed, workers=workers, records=True, progress=progress
    ).records()
