"""Bot benchmark: ISMCTS search speed and the time per move of each difficulty preset.

Prints ISMCTS iterations per second (one process, one core) at the opening (play 1, right
after the bid) and at mid-deal (around play 24), each over several positions of random deals,
and the mean milliseconds per move of the presets ``easy``, ``medium``, ``hard`` and
``expert`` over a sample of positions met in play (bid, opening, every stage of the deal).
Presets that are not registered are skipped. ``--json`` prints one JSON object instead.

Each figure is measured in ``--rounds`` rounds on fresh positions; the figure reported is the
median round, and ``*_best`` the best one: the highest rate, the lowest time (as in
bench/engine.py: virtual machines vary by some 10% from one second to the next, and more when
other processes share the cores).

    python bench/bots.py [--rounds 5] [--positions 8] [--iterations 400] [--json]
                         [--cpu] [--levels hard expert expert@1] [--no-rates]
"""

from __future__ import annotations

import argparse
import itertools
import json
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from seep.arena.frozen import make_arena_bot
from seep.bots import DIFFICULTIES
from seep.bots.ismcts import IsmctsBot
from seep.codes import PHASE_BID, PHASE_OVER
from seep.engine import Position
from seep.view import View

LEVELS = ("easy", "medium", "hard", "expert")


def position_at(seed: int, plays: int) -> Position:
    """A random deal after the bid and ``plays`` uniformly random card plays."""
    rng = random.Random(seed)
    pos = Position.new_deal(seed, rng.randrange(4))
    while pos.phase_id == PHASE_BID or pos.plays < plays:
        pos.advance(rng.choice(pos.legal_codes()))
    return pos


def views_at(plays: int, count: int, seeds: itertools.count[int]) -> list[View]:
    """Views of the seat to move after ``plays`` plays, in ``count`` fresh random deals, skipping
    positions with a single legal move (nothing to search)."""
    out: list[View] = []
    while len(out) < count:
        pos = position_at(next(seeds), plays)
        view = View.from_position(pos, pos.to_move or 0)
        if len(view.legal_codes()) > 1:
            out.append(view)
    return out


def ismcts_rate(views: list[View], iterations: int) -> float:
    """ISMCTS iterations per second over ``views``, ``iterations`` each (the whole search:
    determinizations, tree, playouts)."""
    bot = IsmctsBot(iterations=iterations, milliseconds=None)
    rng = random.Random(1)
    done = 0
    start = time.perf_counter()
    for view in views:
        done += bot.search(view, rng, view.legal_codes()).playouts
    return done / (time.perf_counter() - start)


def sample_views(count: int, seeds: itertools.count[int]) -> list[View]:
    """Views of the seat to move at every stage: positions of random deals at uniformly random
    points from the bid to play 48 (with the public history, as a game would pass it)."""
    out: list[View] = []
    while len(out) < count:
        seed = next(seeds)
        rng = random.Random(seed)
        pos = Position.new_deal(seed, rng.randrange(4))
        stop = rng.randrange(49)  # plies after the deal: 0 is the bid
        history: list[tuple[int, int]] = []
        for _ in range(stop):
            seat = pos.to_move
            code = rng.choice(pos.legal_codes())
            history.append((seat or 0, code))
            pos.advance(code)
            if pos.phase_id == PHASE_BID:
                history.clear()  # a redeal (R14)
        if pos.phase_id != PHASE_OVER:
            out.append(View.from_position(pos, pos.to_move or 0, history))
    return out


def ms_per_move(name: str, views: list[View], clock: Callable[[], float]) -> float:
    """Mean milliseconds per ``choose`` of the bot or preset ``name`` over ``views``."""
    bot = make_arena_bot(name)
    rng = random.Random(2)
    start = clock()
    for view in views:
        bot.choose(view, rng)
    return 1000.0 * (clock() - start) / len(views)


def rounds(measure: Callable[[], float], n: int) -> tuple[float, float, float]:
    """Median, lowest and highest of ``n`` rounds of ``measure``."""
    values = sorted(measure() for _ in range(n))
    return statistics.median(values), values[0], values[-1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5, help="rounds per figure")
    ap.add_argument("--positions", type=int, default=8, help="positions per round")
    ap.add_argument("--iterations", type=int, default=400, help="ISMCTS iterations per search")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument(
        "--cpu",
        action="store_true",
        help="time moves in CPU time (time.process_time): on a shared machine the wall time "
        "grows with the load, the CPU time hardly does",
    )
    ap.add_argument(
        "--levels",
        nargs="+",
        default=list(LEVELS),
        metavar="BOT",
        help="the presets (or bots) whose time per move to measure (default: the four levels)",
    )
    ap.add_argument("--no-rates", action="store_true", help="skip the ISMCTS iterations/s")
    args = ap.parse_args()
    clock = time.process_time if args.cpu else time.perf_counter
    seeds = itertools.count(5000)
    result: dict[str, object] = {}
    notes: dict[str, str] = {}
    # ISMCTS speed: fresh positions every round; higher is better, so "best" is the highest.
    for key, plays, note in (
        ()
        if args.no_rates
        else (
            ("ismcts_iterations_per_s_opening", 0, "ISMCTS iterations/s at the opening (play 1)"),
            ("ismcts_iterations_per_s_middle", 23, "ISMCTS iterations/s at mid-deal (play 24)"),
        )
    ):
        median, _, best = rounds(
            lambda p=plays: ismcts_rate(views_at(p, args.positions, seeds), args.iterations),
            args.rounds,
        )
        result[key] = round(median, 1)
        result[key + "_best"] = round(best, 1)
        notes[key] = note
    # Time per move of each difficulty; lower is better, so "best" is the lowest.
    # The same positions for every bot (fresh ones each round), so that bots compare.
    samples = [sample_views(args.positions, seeds) for _ in range(args.rounds)]
    kind = "CPU ms" if args.cpu else "ms"
    for name in args.levels:
        key = f"ms_per_move_{name}"
        times = sorted(ms_per_move(name, views, clock) for views in samples)
        result[key] = round(statistics.median(times), 2)
        result[key + "_best"] = round(times[0], 2)
        bot_name, settings = DIFFICULTIES.get(name, (name, {}))
        notes[key] = f"{kind} per move, {name} ({bot_name} {json.dumps(settings)})"[:62]

    # --- Arena deals per second per worker --------------------------------------------------
    # Reserved for the arena's author: the figure "arena_deals_per_s_per_worker" goes here.
    # ------------------------------------------------------------------------------------------

    result["clock"] = "process_time" if args.cpu else "perf_counter"
    result["rounds"] = args.rounds
    result["positions"] = args.positions
    result["ismcts_iterations"] = args.iterations
    result["python"] = platform.python_version()
    result["machine"] = platform.machine()
    if args.json:
        print(json.dumps(result))
        return
    print(f"{'':62} {'median':>10} {'best':>10}")
    for key, note in notes.items():
        print(f"{note:62} {result[key]:>10} {result[key + '_best']:>10}")


if __name__ == "__main__":
    main()
