"""Arena benchmark: duplicate deals per second, per worker, for a few bot pairings.

For each pairing (random vs random, and greedy vs greedy when that bot is registered) it
runs ``seep.arena.run_match`` with 1 worker (in process) and with ``--workers`` processes
(the local spawn pool), and reports deals per second end to end (pool start-up included)
and per worker. Everything the arena does is in the figure: a View for every move, the bot's
choice, the legality check, the scoring; the bots' own share is ``ms_per_move``. Deals per
CPU second (this process and its workers) is the figure to trust on a busy machine. Each
figure is the median of ``--rounds`` runs on different seeds. ``--json`` prints one JSON
object.

    python bench/arena.py [--deals 400] [--workers 2] [--rounds 3] [--bots random greedy] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from seep.arena import run_match
from seep.bots import BOTS, make_bot


def _cpu() -> float:
    """CPU seconds of this process and of its finished (joined) child processes."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def measure(bot: str, deals: int, workers: int, rounds: int) -> dict[str, Any]:
    """Median deals/s of ``bot`` against itself over ``rounds`` runs."""
    rates, cpu_rates, ms = [], [], []
    for r in range(rounds):
        cpu0 = _cpu()
        result = run_match(bot, bot, deals=deals, seed=1000 + r, workers=workers)
        cpu = _cpu() - cpu0
        rates.append(result.deals / result.seconds)
        cpu_rates.append(result.deals / cpu)
        ms.append(sum(x or 0.0 for x in result.ms_per_move()) / 2)
    rate = statistics.median(rates)
    return {
        "bots": f"{bot} vs {bot}",
        "workers": workers,
        "deals": deals,
        "deals_per_s": round(rate, 1),
        "deals_per_s_per_worker": round(rate / workers, 1),
        # Deals per CPU second (workers' start-up included): what a worker does when it has
        # a core to itself, and less sensitive than wall time to other load on the machine.
        "deals_per_cpu_s": round(statistics.median(cpu_rates), 1),
        "bot_ms_per_move": round(statistics.median(ms), 4),
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--deals", type=int, default=400, help="deals per run (even)")
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--bots", nargs="+", default=["random", "greedy"])
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    make_bot("random")  # loads the built-in bots
    bots = [b for b in args.bots if b in BOTS]
    rows = []
    for bot in bots:
        for workers in sorted({1, args.workers}):
            rows.append(measure(bot, args.deals, workers, args.rounds))
    if args.json:
        out = {
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "rounds": args.rounds,
            "results": rows,
        }
        print(json.dumps(out))
        return 0
    print(f"arena deals/s (median of {args.rounds}; Python {platform.python_version()})")
    print(
        f"  {'pairing':22} {'workers':>7} {'deals/s':>9} {'per worker':>11} "
        f"{'per CPU s':>10} {'bot ms/move':>12}"
    )
    for r in rows:
        print(
            f"  {r['bots']:22} {r['workers']:>7} {r['deals_per_s']:>9,.1f} "
            f"{r['deals_per_s_per_worker']:>11,.1f} {r['deals_per_cpu_s']:>10,.1f} "
            f"{r['bot_ms_per_move']:>12.4f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
