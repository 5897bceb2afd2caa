"""Inference benchmark: how often sampled deals put the hidden cards in the right hands.

Heuristic-bot self-play deals are played; at a spread of positions after the stock is dealt,
the mover's view is determinized ``--samples`` times in three ways: uniformly
(:meth:`View.determinize`), weighted by the single signals of the history
(:func:`seep.bots.inference.evidence`, the ``inference`` setting), and weighted per card by
how well ``--particles`` uniform deals explain the other seats' choices
(:func:`seep.bots.likelihood.card_factors`, the ``particles`` setting). Two figures each:

* the *hit rate*: the share of the cards in the other three hands that a sample places in the
  hand that truly holds them (the stock is empty by then);
* the *log score*: the mean natural log of the share of samples that put each hidden card in
  its true hand (add-one-half smoothed), per card: it rewards confidence only where it is
  right, so a method that is sure of wrong places scores below the uniform deal.

``--json`` prints one JSON object.

    python bench/inference.py [--deals 40] [--samples 20] [--particles 64] [--seed 1] [--json]
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from seep.bots.heuristic import HeuristicBot
from seep.bots.inference import UNIFORM, Dealer, determinize, evidence
from seep.bots.likelihood import card_factors
from seep.cards import cards_of_mask
from seep.engine import Position
from seep.view import View

METHODS = ("uniform", "inferred", "choices")


def hit_rates(deals: int, samples: int, seed: int, particles: int = 0) -> dict[str, float]:
    """Mean hit rates and log scores per method over the positions of ``deals`` self-play
    deals (``choices`` only with ``particles``)."""
    rng = random.Random(seed)
    bot = HeuristicBot()
    methods = METHODS if particles else METHODS[:2]
    hits = dict.fromkeys(methods, 0)
    logs = dict.fromkeys(methods, 0.0)
    total = 0
    cards = 0
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
                deal: dict[str, Callable[[random.Random], Position]] = {
                    "uniform": view.determinize,
                    "inferred": lambda r, v=view, f=factors: determinize(v, r, f),
                }
                if particles:
                    plain = Dealer(view, UNIFORM, duty_first=True)
                    by_card = card_factors(view, plain, rng, particles)
                    deal["choices"] = Dealer(view, UNIFORM, duty_first=True, card_factors=by_card)
                for name in methods:
                    placed = [0] * 208
                    for _ in range(samples):
                        det = deal[name](rng)
                        for s in range(4):
                            if s != seat:
                                for c in cards_of_mask(det.hands[s] & truth[s]):
                                    hits[name] += 1
                                    placed[4 * c + s] += 1
                    for s in range(4):
                        if s != seat:
                            for c in cards_of_mask(truth[s]):
                                share = (placed[4 * c + s] + 0.5) / (samples + 1.0)
                                logs[name] += math.log(share)
                hidden = sum(truth[s].bit_count() for s in range(4) if s != seat)
                total += samples * hidden
                cards += hidden
            code = int(bot.choose(view, rng).move)
            pos.push(code)
            if pos.phase == "bid":
                history = []
                continue
            history.append((seat, code))
    out: dict[str, float] = {"positions": positions, "samples": samples, "particles": particles}
    for name in methods:
        out[name] = hits[name] / total
        out[f"{name}_log_score"] = logs[name] / cards
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=40)
    ap.add_argument("--samples", type=int, default=20)
    ap.add_argument("--particles", type=int, default=64, help="0: skip the choices' weights")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    r = hit_rates(args.deals, args.samples, args.seed, args.particles)
    if args.json:
        print(json.dumps(r))
        return 0
    print(f"{r['positions']} positions, {r['samples']} samples each")
    labels = {
        "uniform": "uniform deals",
        "inferred": "evidence (inference)",
        "choices": f"choices ({args.particles} particles)",
    }
    for name, label in labels.items():
        if name in r:
            score = r[name + "_log_score"]
            print(f"{label:28} hit rate {100 * r[name]:5.1f}%   log score {score:.4f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
