"""CPU time of the parts of one ISMCTS iteration of ``hard`` and ``expert``, in microseconds.

An iteration deals the hidden cards (weighted by inference, :class:`seep.bots.inference.Dealer`;
uniformly, :meth:`View.determinize`), walks the tree, plays out 8 plies with the playout policy
and scores the position reached with the value network (or ``estimate``). This prints the mean
cost of each part over the positions of heuristic self-play deals (CPU time,
``time.process_time``, so that the load of a shared machine inflates it little), and whether the
compiled modules ran (``make core``; ``SEEP_PURE=1`` with a copy of the sources without the
``.so`` files gives the pure-Python figures). ``--json`` prints one JSON object.

Once per move, before its iterations, the search weighs ``particles`` deals by the other seats'
choices (:func:`seep.bots.likelihood.card_factors`): ``particle_of_32`` and ``particle_of_64``
are its cost per particle with ``hard``'s 32 and ``expert``'s 64 (a particle costs less the
more there are: they share what each past move does to the public position).

    python bench/search_parts.py [--deals 2] [--repeat 20] [--json]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

if "--no-src" not in sys.argv:  # --no-src: the seep found on PYTHONPATH (a pure copy)
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from move_cost import views

import seep
from seep.bots.inference import UNIFORM, Dealer, evidence
from seep.bots.ismcts import estimate, playout
from seep.bots.likelihood import card_factors
from seep.bots.valuenet import load_value
from seep.codes import PHASE_PLAY
from seep.view import View


def play_views(deals: int, seed: int) -> list[View]:
    """The mover's view (with the history) at every fourth play of heuristic self-play deals."""
    return views(deals, 4, seed, keep=lambda pos: pos.phase_id == PHASE_PLAY and pos.plays % 4 == 1)


def micros(work: Callable[[], object], times: int) -> float:
    """Mean CPU microseconds of ``work()`` over ``times`` calls."""
    start = time.process_time()
    for _ in range(times):
        work()
    return 1e6 * (time.process_time() - start) / times


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=20, help="calls per position and part")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--no-src", action="store_true", help="use the seep on PYTHONPATH")
    args = ap.parse_args()
    views = play_views(args.deals, args.seed)
    rng = random.Random(args.seed)
    value = load_value(estimate)
    # Positions as the search scores them: a deal, 8 playout plies.
    leaves = []
    for view in views:
        for _ in range(args.repeat):
            pos = view.determinize(rng)
            playout(pos, rng, 0.1, 8)
            leaves.append(pos)
    parts: dict[str, float] = {}
    dealers = [Dealer(view, evidence(view)) for view in views]
    n = len(views) * args.repeat
    parts["deal_inferred"] = sum(micros(lambda d=d: d(rng), args.repeat) for d in dealers) / len(
        dealers
    )
    parts["deal_uniform"] = sum(
        micros(lambda v=v: v.determinize(rng), args.repeat) for v in views
    ) / len(views)
    dets = [view.determinize(rng) for view in views for _ in range(args.repeat)]
    it = iter(dets)
    parts["playout_8_plies"] = micros(lambda: playout(next(it), rng, 0.1, 8), n)
    it = iter(leaves)
    parts["value_net"] = micros(lambda: value(next(it)), n)
    it = iter(leaves)
    parts["estimate"] = micros(lambda: estimate(next(it)), n)
    for particles in (32, 64):
        # Once per position (a whole move's weighing), per particle.
        total = 0.0
        for view in views:
            dealer = Dealer(view, UNIFORM, duty_first=True)
            start = time.process_time()
            card_factors(view, dealer, rng, particles)
            total += time.process_time() - start
        parts[f"particle_of_{particles}"] = 1e6 * total / (len(views) * particles)
    result = {
        "compiled": seep.COMPILED,
        "positions": len(views),
        "us": {k: round(v, 2) for k, v in parts.items()},
    }
    if args.json:
        print(json.dumps(result))
    else:
        print(f"{len(views)} positions, {'compiled' if seep.COMPILED else 'pure Python'}")
        for k, v in parts.items():
            print(f"{k:18} {v:8.2f} us")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
