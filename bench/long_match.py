"""A long duplicate match, pair by pair, resumable: the figures of ``seep arena`` so far.

``seep arena A B --deals N --seed S`` prints its figures only at the end, which can be hours
away for the search bots on a shared machine. This plays the same pairs (pair k of a run
depends only on the seed and k, not on the number of pairs or workers), appends each pair's
result to ``--out`` as one JSON line, skips the pairs already there when run again, and prints
the mean score difference per deal and its Student t 95% interval over the pairs done: when
all N/2 pairs are done, the same figures as the ``seep arena`` command. A second process
with ``--reverse`` on the same file plays the pairs from the last one down.

    python bench/long_match.py expert expert@1 --deals 300 --seed 82 --out expert.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from seep.arena.play import BotSpec, MatchConfig, play_pair
from seep.arena.stats import mean_ci


def summary(rows: list[dict[str, float]]) -> dict[str, object]:
    """Mean diff per deal and its 95% interval over the pairs in ``rows`` (a pair two
    processes both played, which gives the same result, counts once)."""
    rows = list({r["pair"]: r for r in reversed(rows)}.values())
    values = [r["diff"] / r["deals"] for r in rows]
    mean, ci = mean_ci(values)
    lo, hi = ci if ci is not None else (mean, mean)
    a = sum(r["seconds_a"] for r in rows) / max(1, sum(r["moves_a"] for r in rows))
    b = sum(r["seconds_b"] for r in rows) / max(1, sum(r["moves_b"] for r in rows))
    return {
        "pairs": len(rows),
        "deals": int(sum(r["deals"] for r in rows)),
        "mean_diff": round(mean, 2),
        "ci95": [round(lo, 2), round(hi, 2)],
        "won_lost_drawn": [
            sum(v > 0 for v in values),
            sum(v < 0 for v in values),
            sum(v == 0 for v in values),
        ],
        "ms_per_move": [round(1000 * a, 1), round(1000 * b, 1)],
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("bots", nargs=2)
    ap.add_argument("--deals", type=int, default=300)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", required=True)
    ap.add_argument("--start", type=int, default=0, help="the first pair to play (default 0)")
    ap.add_argument(
        "--reverse",
        action="store_true",
        help="play the pairs from the last one down (a second process on the same --out)",
    )
    args = ap.parse_args()
    config = MatchConfig(
        bots=(BotSpec.parse(args.bots[0]), BotSpec.parse(args.bots[1])),
        seed=args.seed,
        pairs=args.deals // 2,
    )
    out = Path(args.out)
    rows = [json.loads(x) for x in out.read_text().splitlines()] if out.exists() else []
    order = range(config.pairs - 1, -1, -1) if args.reverse else range(args.start, config.pairs)
    for pair in order:
        # Another process may be filling the same file from the other end.
        if out.exists():
            rows = [json.loads(x) for x in out.read_text().splitlines() if x.strip()]
        if pair in {r["pair"] for r in rows}:
            if args.reverse or args.start:
                break  # met another process
            continue
        games = play_pair(config, pair)
        row = {
            "pair": pair,
            "deals": sum(g.deals for g in games),
            "diff": sum(sum(g.diffs) for g in games),
            "moves_a": sum(g.moves[0] for g in games),
            "moves_b": sum(g.moves[1] for g in games),
            "seconds_a": sum(g.seconds[0] for g in games),
            "seconds_b": sum(g.seconds[1] for g in games),
        }
        with out.open("a", encoding="utf-8") as f:
            f.write(json.dumps(row) + "\n")
        rows.append(row)
        print(json.dumps(summary(rows)), flush=True)
    print(json.dumps(summary(rows)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
