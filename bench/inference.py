"""Inference benchmark: how often sampled deals put the hidden cards in the right hands.

Heuristic-bot self-play deals are played; at a spread of positions after the stock is dealt,
the mover's view is determinized ``--samples`` times, uniformly (:meth:`View.determinize`) and
with inference from the history (:mod:`seep.bots.inference`). The *hit rate* is the share of
the cards in the other three hands that a sample places in the hand that truly holds them
(the stock is empty by then). ``--json`` prints one JSON object.

    python bench/inference.py [--deals 40] [--samples 20] [--seed 1] [--json]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from seep.bots.heuristic import HeuristicBot
from seep.bots.inference import determinize, evidence
from seep.engine import Position
from seep.view import View


def hit_rates(deals: int, samples: int, seed: int) -> dict[str, float]:
    """Mean hit rates (uniform, inferred) over the positions of ``deals`` self-play deals."""
    rng = random.Random(seed)
    bot = HeuristicBot()
    hits = {"uniform": 0, "inferred": 0}
    total = 0
    positions = 0
    for _ in range(deals):
        pos = Position.new_deal(rng.randrange(1 << 30), rng.randrange(4))
        history: list[tuple[int, int]] = []
        while not pos.is_over():
            seat = pos.to_move
            assert seat is not None
            view = View.from_position(pos, seat, history)
            if 8 <= pos.plays <= 40 and pos.plays % 4 == 0:
                positions += 1
                factors = evidence(view)
                truth = pos.hands
                for _ in range(samples):
                    for name, det in (
                        ("uniform", view.determinize(rng)),
                        ("inferred", determinize(view, rng, factors)),
                    ):
                        for s in range(4):
                            if s != seat:
                                hits[name] += (det.hands[s] & truth[s]).bit_count()
                total += samples * sum(truth[s].bit_count() for s in range(4) if s != seat)
            code = int(bot.choose(view, rng).move)
            pos.push(code)
            if pos.phase == "bid":
                history = []
                continue
            history.append((seat, code))
    return {
        "positions": positions,
        "samples": samples,
        "uniform": hits["uniform"] / total,
        "inferred": hits["inferred"] / total,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=40)
    ap.add_argument("--samples", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    r = hit_rates(args.deals, args.samples, args.seed)
    if args.json:
        print(json.dumps(r))
    else:
        print(f"{r['positions']} positions, {r['samples']} samples each")
        print(f"hit rate, uniform deals:  {100 * r['uniform']:.1f}%")
        print(f"hit rate, with inference: {100 * r['inferred']:.1f}%")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
