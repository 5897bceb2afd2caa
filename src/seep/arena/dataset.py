"""``seep dataset``: self-play deals of one bot written as docs/format.md game records.

    seep dataset --deals N --bot NAME --out DIR [--seed S] [--per-file K] [--workers N]

Every seat is played by its own copy of the bot, shown only its seat's view, as in the arena
(:func:`seep.arena.play.play_game`, seating 0 of pair ``k`` for deal ``k``): deal ``k``'s
cards, dealer and the bots' random sources follow from the seed and ``k`` alone, so a dataset
is the same whatever the number of workers, and one made with more deals from the same seed
starts with the same deals.

``DIR`` receives ``deals-000000.jsonl``, ``deals-000001.jsonl``, ... (JSON lines: one game
record of one finished deal a line, ``K`` deals a file, default 1000) and ``manifest.json``
(:data:`MANIFEST_FORMAT`: the bot, seed, rules, deals, files and the seep version). Each file
is written under a temporary name and renamed when complete, so a file that exists is whole;
the same command run again (after an interruption) keeps the files already there and writes
the missing ones, and with a larger ``--deals`` it adds deals to the dataset. A directory
holding a dataset made with other settings is refused.

The loader for learning, with the environments' observation and action encoding, is
:mod:`seep.integrations.dataset`.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

from .. import __version__
from ..errors import SeepError
from ..options import Rules
from .cli import add_run_arguments
from .play import ArenaError, BotSpec, MatchConfig, RunError, load_plugins, play_game

__all__ = [
    "MANIFEST",
    "MANIFEST_FORMAT",
    "add_dataset_parser",
    "deal_record",
    "run_dataset",
    "shard_name",
    "write_dataset",
]

MANIFEST = "manifest.json"
MANIFEST_FORMAT = "seep-dataset/1"
DEFAULT_PER_FILE = 1000
# The manifest's keys that say which dataset a directory holds: a rerun with other values
# would mix two datasets in one directory (more deals is the same dataset, grown).
_IDENTITY = ("format", "bot", "seed", "rules", "per_file")


def shard_name(index: int) -> str:
    """The file name of the ``index``-th file of deals (0, 1, ...)."""
    return f"deals-{index:06d}.jsonl"


def _config(bot: str, seed: int, rules: Rules, plugins: Sequence[str]) -> MatchConfig:
    spec = BotSpec.parse(bot)
    return MatchConfig(
        bots=(spec, spec), rules=rules, seed=seed, pairs=1, records=True, plugins=tuple(plugins)
    )


def deal_record(config: MatchConfig, deal: int) -> dict[str, Any]:
    """The game record (docs/format.md) of self-play deal ``deal`` of ``config``'s bot."""
    game = play_game(config, deal, 0)
    assert game.record is not None, "the config keeps records"
    rec = game.record
    # The arena's own key (pair, seating, seats) says nothing here: every seat is the bot.
    return {
        "format": rec["format"],
        "rules": rec["rules"],
        "seed": rec["seed"],
        "deals": rec["deals"],
    }


def _write_shard(job: tuple[MatchConfig, Path, int, int]) -> tuple[int, float]:
    """Play deals ``first`` .. ``stop - 1`` into ``path``, atomically; (deals, seconds)."""
    config, path, first, stop = job
    load_plugins(config.plugins)
    t0 = time.perf_counter()
    tmp = path.with_name(path.name + f".{os.getpid()}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            for k in range(first, stop):
                f.write(json.dumps(deal_record(config, k), separators=(",", ":")) + "\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return stop - first, time.perf_counter() - t0


def _manifest(
    bot: str, seed: int, rules: Rules, deals: int, per_file: int, warnings: list[str]
) -> dict[str, Any]:
    files = [
        {"name": shard_name(i), "first": first, "deals": min(deals, first + per_file) - first}
        for i, first in enumerate(range(0, deals, per_file))
    ]
    return {
        "format": MANIFEST_FORMAT,
        "records": "seep/1 game records (docs/format.md), one finished deal a line",
        "bot": bot,
        "seed": seed,
        "rules": rules.to_dict(),
        "deals": deals,
        "per_file": per_file,
        "files": files,
        "version": __version__,
        "reproducible": not warnings,
        "warnings": warnings,
        "command": f"seep dataset --deals {deals} --bot {bot} --seed {seed} --per-file {per_file}",
    }


def _write_json(path: Path, data: dict[str, Any]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def write_dataset(
    out: str | Path,
    bot: str,
    deals: int,
    seed: int = 0,
    *,
    rules: str | dict[str, Any] | Rules = "standard",
    per_file: int = DEFAULT_PER_FILE,
    workers: int = 1,
    plugins: Sequence[str] = (),
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Write ``deals`` self-play deals of ``bot`` into the directory ``out`` (see the module
    docstring) and return the manifest. Files already there from the same settings are kept.
    Raises :class:`~seep.arena.ArenaError` for bad settings or a directory holding another
    dataset, :class:`~seep.arena.RunError` when a worker dies."""
    if deals < 1:
        raise ArenaError(f"deals must be at least 1, got {deals}")
    if per_file < 1:
        raise ArenaError(f"per_file must be at least 1, got {per_file}")
    if workers < 1:
        raise ArenaError(f"workers must be at least 1, got {workers}")
    try:
        parsed = Rules.parse(rules)
    except SeepError as exc:
        raise ArenaError(str(exc)) from None
    from .runner import _check_bots  # the arena's own check: a bad name fails before any work

    spec = BotSpec.parse(bot)
    warnings = _check_bots([spec], plugins)
    config = _config(spec.label, seed, parsed, plugins)
    root = Path(out)
    root.mkdir(parents=True, exist_ok=True)
    manifest = _manifest(spec.label, seed, parsed, deals, per_file, warnings)
    path = root / MANIFEST
    # The files a manifest already there vouches for: (first deal, deals) by name.
    kept: dict[str, tuple[int, int]] = {}
    if path.exists():
        try:
            old = json.loads(path.read_text(encoding="utf-8"))
            kept = {f["name"]: (f["first"], f["deals"]) for f in old["files"]}
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ArenaError(f"{path}: not a dataset manifest: {exc}") from None
        differ = [k for k in _IDENTITY if old.get(k) != manifest[k]]
        if differ:
            raise ArenaError(
                f"{root} holds another dataset (other {', '.join(differ)}): "
                "choose another --out, or delete it"
            )
        if old.get("deals", 0) > deals:
            raise ArenaError(f"{root} holds {old['deals']} deals: a dataset only grows")
        if "seconds_per_deal" in old:
            manifest["seconds_per_deal"] = old["seconds_per_deal"]
    # A larger dataset from the same settings begins with the same deals: its whole files
    # are kept, and a file that grows is written again.
    jobs = [
        (config, root / f["name"], f["first"], f["first"] + f["deals"])
        for f in manifest["files"]
        if not (root / f["name"]).exists() or kept.get(f["name"]) != (f["first"], f["deals"])
    ]
    for _, file, _, _ in jobs:
        # Gone before the manifest vouches for its new size: a run stopped in between
        # leaves it missing, never short.
        file.unlink(missing_ok=True)
    _write_json(path, manifest)
    done = deals - sum(stop - first for _, _, first, stop in jobs)
    if progress is not None:
        progress(done, deals)
    seconds = 0.0
    if workers == 1 or len(jobs) <= 1:
        for job in jobs:
            n, s = _write_shard(job)
            done += n
            seconds += s
            if progress is not None:
                progress(done, deals)
    else:
        ctx = multiprocessing.get_context("spawn")  # as the arena: no fork of a busy parent
        pool = ProcessPoolExecutor(max_workers=min(workers, len(jobs)), mp_context=ctx)
        try:
            for future in as_completed([pool.submit(_write_shard, job) for job in jobs]):
                n, s = future.result()
                done += n
                seconds += s
                if progress is not None:
                    progress(done, deals)
        except BrokenProcessPool as exc:
            raise RunError(f"a worker process died: {exc}") from None
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
    if jobs:
        manifest["seconds_per_deal"] = round(seconds / sum(s - f for _, _, f, s in jobs), 4)
        _write_json(path, manifest)
    return manifest


def add_dataset_parser(sub: Any) -> argparse.ArgumentParser:
    """Add the ``dataset`` subcommand to the ``seep`` command's subparsers."""
    p: argparse.ArgumentParser = sub.add_parser(
        "dataset",
        help="self-play deals of a bot as game records, for supervised learning",
        description=(
            "Play N deals of BOT against itself (each seat its own copy, shown its own view) "
            "and write them to DIR as docs/format.md game records, one deal a line, with a "
            "manifest. Run again to finish an interrupted dataset. Speed (one core): random, "
            "greedy and heuristic take about 0.01 s a deal, hard about 3 s, expert (up to "
            "1 s a move) about half a minute. Read it with seep.integrations.dataset."
        ),
    )
    p.add_argument("--deals", type=int, required=True, metavar="N", help="deals to play")
    p.add_argument(
        "--bot", required=True, metavar="NAME", help="a bot or difficulty (e.g. heuristic, hard)"
    )
    p.add_argument("--out", required=True, metavar="DIR", help="the dataset's directory")
    p.add_argument(
        "--per-file",
        type=int,
        default=DEFAULT_PER_FILE,
        metavar="K",
        help=f"deals per file (default {DEFAULT_PER_FILE})",
    )
    add_run_arguments(p, workers="processes in parallel", rules="rules preset (default standard)")
    return p


def run_dataset(args: argparse.Namespace) -> int:
    """Run ``seep dataset`` with parsed arguments; returns the exit status."""
    show = not args.no_progress and sys.stderr.isatty()

    def progress(done: int, total: int) -> None:
        if show:
            print(f"\rdeals {done}/{total}", end="" if done < total else "\n", file=sys.stderr)

    t0 = time.perf_counter()
    try:
        manifest = write_dataset(
            args.out,
            args.bot,
            args.deals,
            args.seed,
            rules=args.rules,
            per_file=args.per_file,
            workers=args.workers,
            plugins=args.plugin,
            progress=progress,
        )
    except RunError as exc:
        print(f"seep dataset: error: {exc}", file=sys.stderr)
        return 1
    except (ArenaError, OSError) as exc:
        print(f"seep dataset: error: {exc}", file=sys.stderr)
        return 2
    for warning in manifest["warnings"]:
        print(f"seep dataset: warning: {warning}", file=sys.stderr)
    print(
        f"{manifest['deals']} deals of {manifest['bot']} in {len(manifest['files'])} files "
        f"under {args.out} ({time.perf_counter() - t0:.1f} s)"
    )
    return 0
