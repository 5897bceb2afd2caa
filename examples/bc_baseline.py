"""Behaviour cloning on a ``seep dataset``: an MLP learns a bot's sub-decisions, then plays
duplicate arena matches against ``random``, ``greedy`` and ``heuristic``.

Needs PyTorch (CPU) to train, as the extra ``seep-game[rl]`` brings it; the trained bot plays
with numpy alone. The data are self-play records read by :mod:`seep.integrations.dataset`, in
the environments' encoding (the 504-value observation, the 133 sub-decision ids and their
mask), so the policy learned here is a policy for ``Seep-v0`` and the PettingZoo environment
too. Make the data, train, measure (docs/research.md, "A dataset for supervised learning")::

    .venv/bin/seep dataset --deals 10000 --bot heuristic --seed 1 --out data/heuristic-10k
    .venv/bin/python examples/bc_baseline.py train --data data/heuristic-10k --minutes 5 \\
        --out bc.npz
    .venv/bin/python examples/bc_baseline.py arena --weights bc.npz --deals 600

The network: observation -> 256 -> 256 -> 133 logits (ReLU), the actions outside the mask
removed before the softmax; the loss is the cross-entropy of the recorded action. Decisions
with a single allowed action teach nothing and are left out. A held-out tenth of the deals
gives the accuracy printed after each epoch.

The arena bot ``bc`` (registered when this module is imported; weights from its setting
``weights=FILE`` or from ``SEEP_BC_WEIGHTS``) builds each move from the network's most likely
allowed sub-decision on its seat's view, as :class:`~seep.integrations.actions.MoveBuilder`
offers them.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from seep.bots import Decision, register
from seep.integrations.actions import NUM_ACTIONS, MoveBuilder
from seep.integrations.dataset import DecisionSet, load_dataset
from seep.integrations.features import OBS_SIZE, observation
from seep.moves import Move
from seep.view import View

HIDDEN = 256


# --- training (torch) ---------------------------------------------------------------------------


def _accuracy(model: Any, data: DecisionSet, torch: Any) -> float:
    """Share of decisions where the network's best allowed action is the recorded one."""
    if len(data) == 0:
        return float("nan")
    right = 0
    with torch.no_grad():
        for b in data.batches(4096, shuffle=False):
            logits = model(torch.from_numpy(b.observation))
            logits = logits.masked_fill(torch.from_numpy(b.action_mask) == 0, -1e9)
            right += int((logits.argmax(1) == torch.from_numpy(b.action)).sum())
    return right / len(data)


def train(
    data_dir: str,
    minutes: float,
    seed: int,
    out: Path,
    max_deals: int | None,
    threads: int,
    batch_size: int = 512,
) -> dict[str, Any]:
    import torch
    from torch import nn

    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    t0 = time.monotonic()
    data = load_dataset(data_dir, max_deals=max_deals, forced=False)
    fit, held = data.split(0.1, seed=seed) if data.deals >= 10 else (data, data)
    load_s = time.monotonic() - t0
    model = nn.Sequential(
        nn.Linear(OBS_SIZE, HIDDEN),
        nn.ReLU(),
        nn.Linear(HIDDEN, HIDDEN),
        nn.ReLU(),
        nn.Linear(HIDDEN, NUM_ACTIONS),
    )
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    start = time.monotonic()
    end = start + minutes * 60
    epochs: list[dict[str, float]] = []
    steps = 0
    while time.monotonic() < end:
        model.train()
        total = 0.0
        seen = 0
        for b in fit.batches(batch_size, seed=seed + len(epochs)):
            logits = model(torch.from_numpy(b.observation))
            logits = logits.masked_fill(torch.from_numpy(b.action_mask) == 0, -1e9)
            loss = nn.functional.cross_entropy(logits, torch.from_numpy(b.action))
            opt.zero_grad()
            loss.backward()
            opt.step()
            steps += 1
            total += float(loss.detach()) * len(b.action)
            seen += len(b.action)
            if time.monotonic() >= end:
                break
        model.eval()
        epochs.append(
            {
                "loss": round(total / max(1, seen), 4),
                "held_out_accuracy": round(_accuracy(model, held, torch), 4),
                "minutes": round((time.monotonic() - start) / 60, 2),
            }
        )
        print(json.dumps({"epoch": len(epochs), **epochs[-1]}), file=sys.stderr)
    weights = {k: v.detach().numpy() for k, v in model.state_dict().items()}
    np.savez(out, **weights)
    return {
        "deals": data.deals,
        "decisions": len(data),
        "held_out_deals": held.deals,
        "load_seconds": round(load_s, 1),
        "train_minutes": round((time.monotonic() - start) / 60, 2),
        "epochs": len(epochs),
        "steps": steps,
        "last": epochs[-1] if epochs else None,
        "weights": str(out),
    }


# --- the bot (numpy) ----------------------------------------------------------------------------


class BCBot:
    """The cloned policy as a bot: the most likely allowed sub-decision, until a move."""

    name = "bc"

    def __init__(self, weights: str | None = None) -> None:
        path = weights or os.environ.get("SEEP_BC_WEIGHTS")
        if not path:
            raise ValueError(
                "the bc bot needs weights: set SEEP_BC_WEIGHTS to a file written by "
                "'bc_baseline.py train' (or pass weights=...)"
            )
        w = np.load(path)
        # nn.Sequential's names: layers 0, 2 and 4 are the linear ones.
        self.layers = [(w[f"{i}.weight"].T.copy(), w[f"{i}.bias"]) for i in (0, 2, 4)]

    def logits(self, obs: np.ndarray) -> np.ndarray:
        x = obs
        for i, (wt, b) in enumerate(self.layers):
            x = x @ wt + b
            if i < len(self.layers) - 1:
                x = np.maximum(x, 0.0)
        return x

    def choose(self, view: View, rng: random.Random) -> Decision:
        builder = MoveBuilder(view.legal_codes())
        while True:
            allowed = builder.legal_actions()
            if len(allowed) == 1:
                action = allowed[0]
            else:
                scores = self.logits(observation(view, builder))
                action = max(allowed, key=lambda a: scores[a])
            code = builder.apply(action)
            if code is not None:
                return Decision(Move(code), "behaviour cloning")


register("bc", BCBot)


def arena(weights: str, deals: int, seed: int, workers: int) -> dict[str, Any]:
    """Duplicate matches of the cloned policy against ``random``, ``greedy``, ``heuristic``."""
    from seep.arena import run_match

    path = str(Path(weights).resolve())
    os.environ["SEEP_BC_WEIGHTS"] = path
    out: dict[str, Any] = {"deals": deals, "seed": seed}
    for opponent in ("random", "greedy", "heuristic"):
        r = run_match(
            f"bc:weights={json.dumps(path)}",
            opponent,
            deals=deals,
            seed=seed,
            workers=workers,
            plugins=["bc_baseline"],
        )
        wins = sum(x > 0 for g in r.games for x in g.diffs)
        out[opponent] = {
            "mean_diff_per_deal": round(r.mean_diff, 1),
            "ci95": [round(x, 1) for x in r.ci95] if r.ci95 else None,
            "deals_won": round(wins / max(1, r.deals), 3),
            "bc_ms_per_move": round(
                1000
                * sum(g.seconds[0] for g in r.games)
                / max(1, sum(g.moves[0] for g in r.games)),
                3,
            ),
        }
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description="behaviour cloning on a seep dataset")
    sub = ap.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("train")
    t.add_argument("--data", required=True, help="a seep dataset directory (or .jsonl file)")
    t.add_argument("--minutes", type=float, default=5.0, help="wall-time budget of training")
    t.add_argument("--max-deals", type=int, default=None, help="read at most this many deals")
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    t.add_argument("--out", type=Path, default=Path("bc.npz"))
    a = sub.add_parser("arena")
    a.add_argument("--weights", default="bc.npz")
    a.add_argument("--deals", type=int, default=600, help="deals per match (even)")
    a.add_argument("--seed", type=int, default=1)
    a.add_argument("--workers", type=int, default=1)
    args = ap.parse_args()
    if args.cmd == "train":
        summary = train(args.data, args.minutes, args.seed, args.out, args.max_deals, args.threads)
        print(json.dumps(summary))
    else:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        print(json.dumps(arena(args.weights, args.deals, args.seed, args.workers)))


if __name__ == "__main__":
    main()
