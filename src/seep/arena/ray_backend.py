"""The Ray backend: the arena's jobs as Ray tasks (optional extra ``seep-game[ray]``).

Ray is imported here only, when a match asks for ``backend="ray"``; nothing else in
:mod:`seep` needs it. Each job is one ``ray.remote`` call of the same
:func:`~seep.arena.play.run_chunk` the local backend runs, so the results are identical: the
jobs carry everything (bot names, rules, seed, pair range) and come back tagged with their id.

If Ray is already initialized (a test, a notebook, a driver on a cluster) it is used as it is
and left running. Otherwise this module connects to ``address`` (``"auto"``, ``"ray://..."``)
or, with no address, starts a local Ray with ``workers`` CPUs, and shuts it down afterwards.
Every node needs ``seep-game`` installed (and any bot plugin modules importable).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from .play import ArenaError, GameResult, MatchConfig, run_chunk

__all__ = ["run_jobs"]

Job = tuple[int, MatchConfig, int, int]


def _import_ray() -> Any:
    try:
        import ray  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        raise ArenaError(
            "the ray backend needs Ray: pip install 'seep-game[ray]' (or 'ray>=2.9')"
        ) from None
    return ray


def run_jobs(
    jobs: list[Job],
    workers: int,
    address: str | None,
    done: Callable[[int, list[GameResult]], None],
) -> None:
    """Run ``jobs`` as Ray tasks, calling ``done(job id, games)`` as each one finishes."""
    ray = _import_ray()
    started = False
    if not ray.is_initialized():
        # Ray's own INFO lines would mix with the arena's output; warnings still show.
        quiet = {"log_to_driver": False, "logging_level": logging.WARNING}
        if address is None:
            ray.init(num_cpus=workers, include_dashboard=False, **quiet)
        else:
            ray.init(address=address, **quiet)
        started = True
    try:
        task = ray.remote(num_cpus=1, max_retries=0)(run_chunk)
        pending = {task.remote(job): job[0] for job in jobs}
        while pending:
            # Take whatever has finished within a short wait: one call per batch of results,
            # not one per job, and the progress bar still moves.
            ready, _ = ray.wait(list(pending), num_returns=len(pending), timeout=0.25)
            for ref in ready:
                del pending[ref]
                try:
                    job_id, games = ray.get(ref)
                except ray.exceptions.RayTaskError as exc:
                    # Re-raise the task's own error (an illegal bot move is an ArenaError)
                    # rather than Ray's wrapper with the remote traceback.
                    cause = getattr(exc, "cause", None)
                    if isinstance(cause, BaseException):
                        raise cause from None
                    raise
                done(job_id, games)
    finally:
        if started:
            ray.shutdown()
