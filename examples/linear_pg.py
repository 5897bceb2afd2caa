"""A small learning agent: a linear softmax policy over candidate-move features, trained by
policy gradient (REINFORCE with a baseline) against ``random`` bots, then measured in the arena.

The policy scores every legal move of a view with ``features @ w``
(:func:`seep.integrations.features.candidates`) and samples from the softmax. It plays both
seats of one team (shared weights) against two ``random`` bots; the return of every decision
is the team's deal score minus the other team's, divided by 100. Training uses the engine
directly (the candidate encoding needs whole moves, not sub-decisions).

Train for two minutes, save the weights, then evaluate in a duplicate arena match::

    .venv/bin/python examples/linear_pg.py train --minutes 2 --out examples/linear_pg.json
    .venv/bin/python examples/linear_pg.py arena --weights examples/linear_pg.json --deals 2000
    # or from the shell, the bot registered by this module as a plugin:
    PYTHONPATH=examples SEEP_LINEAR_WEIGHTS=examples/linear_pg.json \\
        .venv/bin/seep arena linear random --deals 2000 --plugin linear_pg

``linear`` is registered with :func:`seep.bots.register` when this module is imported; the
arena imports it in every worker (``plugins``).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from seep.bots import Decision, make_bot, register
from seep.codes import PHASE_OVER
from seep.engine import Position
from seep.integrations.features import MOVE_FEATURE_NAMES, MOVE_FEATURES, candidates
from seep.moves import Move
from seep.view import View


def softmax(logits: np.ndarray) -> np.ndarray:
    z = logits - logits.max()
    e = np.exp(z)
    return e / e.sum()


class LinearBot:
    """A bot choosing among candidate moves with a linear softmax policy (greedy=argmax)."""

    name = "linear"

    def __init__(self, weights: str | None = None, greedy: bool = True) -> None:
        path = weights or os.environ.get("SEEP_LINEAR_WEIGHTS")
        if not path:
            # Zero weights would play the first candidate every time: a silent nonsense bot.
            raise ValueError(
                "the linear bot needs its weights: set SEEP_LINEAR_WEIGHTS to a file written by "
                "'linear_pg.py train' (or pass weights=...)"
            )
        data = json.loads(Path(path).read_text())
        self.w = np.array([data["weights"][n] for n in MOVE_FEATURE_NAMES], np.float32)
        assert self.w.shape == (MOVE_FEATURES,)
        self.greedy = greedy

    def choose(self, view: View, rng: random.Random) -> Decision:
        codes, feats = candidates(view)
        logits = feats @ self.w
        if self.greedy:
            i = int(np.argmax(logits))
        else:
            p = softmax(logits)
            i = int(rng.choices(range(len(codes)), weights=p.tolist())[0])
        return Decision(Move(codes[i]), f"linear policy score {float(logits[i]):.2f}")


register("linear", LinearBot)


def train(minutes: float, seed: int, lr: float, out: Path) -> dict[str, float]:
    """REINFORCE against random bots for ``minutes``; writes the weights to ``out``."""
    rng = random.Random(seed)
    w = np.zeros(MOVE_FEATURES, np.float64)
    opponent = make_bot("random")
    baseline = 0.0
    deals = 0
    returns: list[float] = []
    deadline = time.perf_counter() + 60 * minutes
    grad = np.zeros_like(w)
    batch = 16
    while time.perf_counter() < deadline:
        team = deals & 1  # the learner plays team 0 and team 1 alternately
        pos = Position.new_deal(rng.getrandbits(62), rng.randrange(4))
        history: list[tuple[int, int]] = []
        trace = np.zeros_like(w)  # sum over decisions of grad log pi
        while pos.phase_id != PHASE_OVER:
            seat = pos.to_move
            assert seat is not None
            view = View.from_position(pos, seat, tuple(history))
            if seat & 1 == team:
                codes, feats = candidates(view)
                f = feats.astype(np.float64)
                p = softmax(f @ w)
                i = rng.choices(range(len(codes)), weights=p.tolist())[0]
                trace += f[i] - p @ f
                code = codes[i]
            else:
                code = int(opponent.choose(view, rng).move)
            history.append((seat, code))
            pos.advance(code)
        s = pos.deal_scores()
        g = (s[team] - s[1 - team]) / 100.0
        returns.append(g)
        grad += (g - baseline) * trace
        baseline += 0.01 * (g - baseline)
        deals += 1
        if deals % batch == 0:
            w += lr * grad / batch
            grad[:] = 0.0
    out.write_text(
        json.dumps(
            {
                "weights": {n: float(x) for n, x in zip(MOVE_FEATURE_NAMES, w, strict=True)},
                "deals": deals,
                "minutes": minutes,
                "seed": seed,
                "lr": lr,
            },
            indent=1,
        )
        + "\n"
    )
    first = returns[: max(1, len(returns) // 10)]
    last = returns[-max(1, len(returns) // 10) :]
    # Reported in points (the deal score difference), as the docs quote them; the gradient
    # above uses the return divided by 100.
    return {
        "deals": deals,
        "mean_return_first_tenth": round(100 * sum(first) / len(first), 2),
        "mean_return_last_tenth": round(100 * sum(last) / len(last), 2),
    }


def arena(weights: str, deals: int, seed: int, workers: int) -> dict[str, object]:
    """Duplicate match of the greedy linear policy against ``random``."""
    from seep.arena import run_match

    os.environ["SEEP_LINEAR_WEIGHTS"] = str(Path(weights).resolve())
    r = run_match(
        f"linear:weights={json.dumps(str(Path(weights).resolve()))}",
        "random",
        deals=deals,
        seed=seed,
        workers=workers,
        plugins=["linear_pg"],
    )
    ci95 = list(r.ci95) if r.ci95 else None  # null, not NaN: the output is strict JSON
    return {"deals": r.deals, "mean_diff_per_deal": r.mean_diff, "ci95": ci95}


def main() -> None:
    ap = argparse.ArgumentParser(description="linear policy gradient on candidate features")
    sub = ap.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("train")
    t.add_argument("--minutes", type=float, default=2.0)
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--lr", type=float, default=0.05)
    t.add_argument("--out", type=Path, default=Path("examples/linear_pg.json"))
    a = sub.add_parser("arena")
    a.add_argument("--weights", default="examples/linear_pg.json")
    a.add_argument("--deals", type=int, default=2000)
    a.add_argument("--seed", type=int, default=1)
    a.add_argument("--workers", type=int, default=1)
    args = ap.parse_args()
    if args.cmd == "train":
        print(json.dumps(train(args.minutes, args.seed, args.lr, args.out)))
    else:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        print(json.dumps(arena(args.weights, args.deals, args.seed, args.workers)))


if __name__ == "__main__":
    main()
