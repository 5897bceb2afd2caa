"""CPU time per move of bots, on positions met in heuristic self-play.

Processor time (``time.process_time``), not wall time: on a shared machine the wall time of a
move grows with the load, its CPU time hardly does, so this gives the one-quiet-core figure
even when other processes run. Prints the mean and the largest time per move of each bot
over the bid and every ``--every``-th play of ``--deals`` deals; ``--json`` for one object.

    python bench/move_cost.py policy hard expert expert@1 [--deals 2] [--every 4] [--json]
    python bench/move_cost.py hard:iterations=500 expert:iterations=3000
    python bench/move_cost.py hard --deals 6 --every 1 --repeat 3 --limit 100
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

if "--no-src" not in sys.argv:  # bench/search_parts.py --no-src: the seep on PYTHONPATH
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from seep.arena.play import BotSpec
from seep.bots.heuristic import HeuristicBot
from seep.engine import Position
from seep.view import View


def views(
    deals: int, every: int, seed: int, keep: Callable[[Position], bool] | None = None
) -> list[View]:
    """The mover's view at the bid and every ``every``-th play of heuristic self-play deals
    (or wherever ``keep(position)`` says)."""
    rng = random.Random(seed)
    bot = HeuristicBot()
    out = []
    for _ in range(deals):
        pos = Position.new_deal(rng.randrange(1 << 30), rng.randrange(4))
        history: list[tuple[int, int]] = []
        while not pos.is_over():
            seat = pos.to_move
            assert seat is not None
            view = View.from_position(pos, seat, history)
            if keep(pos) if keep is not None else pos.phase == "bid" or pos.plays % every == 0:
                out.append(view)
            code = int(bot.choose(view, rng).move)
            pos.push(code)
            history = [] if pos.phase == "bid" else [*history, (seat, code)]
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("bots", nargs="+")
    ap.add_argument("--deals", type=int, default=2)
    ap.add_argument("--every", type=int, default=4)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="time each move this many times and keep the median (this VM has bursts of "
        "slowness that a single timing catches now and then)",
    )
    ap.add_argument("--limit", type=float, action="append", default=[], metavar="MS")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    sample = views(args.deals, args.every, args.seed)
    result = {}
    for name in args.bots:
        bot = BotSpec.parse(name).make()  # a preset, or an arena spec: hard:iterations=500
        times = []
        for k, view in enumerate(sample):
            runs = []
            for _ in range(max(1, args.repeat)):
                t0 = time.process_time()
                bot.choose(view, random.Random(k))
                runs.append(1000 * (time.process_time() - t0))
            times.append(statistics.median(runs))
        result[name] = {
            "mean_ms": round(sum(times) / len(times), 1),
            "max_ms": round(max(times), 1),
            "over": {str(ms): sum(t > ms for t in times) for ms in args.limit},
        }
    if args.json:
        print(json.dumps({"positions": len(sample), "bots": result}))
    else:
        print(f"{len(sample)} positions (CPU time per move)")
        for name, r in result.items():
            over = "".join(f"   over {ms} ms: {n}" for ms, n in r["over"].items())
            print(f"{name:12} mean {r['mean_ms']:8.1f} ms   max {r['max_ms']:8.1f} ms{over}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
