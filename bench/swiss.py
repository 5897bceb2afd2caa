"""How long a Swiss round's pairing takes (seep.web.tournament.swiss), round by round.

Plays events of ``--teams`` teams for ``--rounds`` rounds (results at random, seeded), pairing
each round with :func:`seep.web.tournament.swiss.pair_round`, and prints the slowest round's
pairing time and the rematches the pairing could not avoid. Rounds past ``teams - 1`` force
rematches (every pair has met), the slowest case: the least cost is then searched in full.

    python bench/swiss.py [--teams 8 16 24 64] [--rounds N] [--seed 1] [--json]

``--rounds`` defaults to each field's ``teams + 2``, capped at 16.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from typing import Any

from seep.web.tournament import TeamId
from seep.web.tournament.swiss import Result, pair_round


def run(teams: int, rounds: int, seed: int) -> dict[str, Any]:
    """One event: per round the pairing's seconds and rematches."""
    rng = random.Random(seed)
    ids: list[TeamId] = list(range(teams))
    results: list[Result] = []
    times: list[float] = []
    rematches: list[int] = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        p = pair_round(ids, results)
        times.append(time.perf_counter() - t0)
        rematches.append(p.rematches)
        for a, b in p.pairs:
            results.append(Result(a, b, rng.choice([a, b, None]), rng.randint(-50, 50)))
        if p.bye is not None:
            results.append(Result(p.bye, None))
    slowest = max(range(rounds), key=lambda i: times[i])
    return {
        "teams": teams,
        "rounds": rounds,
        "slowest_round": slowest + 1,
        "slowest_ms": round(1000 * times[slowest], 2),
        "median_ms": round(1000 * sorted(times)[rounds // 2], 2),
        "rematches": sum(rematches),
        "first_rematch_round": next((i + 1 for i, r in enumerate(rematches) if r), None),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--teams", type=int, nargs="+", default=[8, 16, 24, 64])
    ap.add_argument("--rounds", type=int, default=None)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rows = [run(n, args.rounds or min(n + 2, 16), args.seed) for n in args.teams]
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print("teams rounds  slowest (round)  median  rematches (first in round)")
    for r in rows:
        print(
            f"{r['teams']:5} {r['rounds']:6}  {r['slowest_ms']:8.2f} ms ({r['slowest_round']:2})"
            f"  {r['median_ms']:6.2f} ms  {r['rematches']:3} ({r['first_rematch_round']})"
        )


if __name__ == "__main__":
    main()
