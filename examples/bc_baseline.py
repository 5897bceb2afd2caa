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


def agreement(data_dir: str, weights: str | None, deals: int) -> dict[str, Any]:
    """On the first ``deals`` deals of a dataset, at each move with a choice (play phase):
    how often the dataset's bot, asked twice with two other random sources, picks the same
    move (its ties are drawn at random: no imitation can agree with it more often), and how
    often the cloned policy picks the recorded move."""
    from seep.arena import BotSpec
    from seep.format import position_from_dict
    from seep.integrations.dataset import read_records
    from seep.session import Session

    manifest = json.loads((Path(data_dir) / "manifest.json").read_text())
    teacher = BotSpec.parse(manifest["bot"]).make()
    student = BCBot(weights) if weights else None
    moves = same = cloned = 0
    for n, (_, record) in enumerate(read_records(data_dir)):
        if n >= deals:
            break
        deal = record["deals"][0]
        session = Session(start=position_from_dict(deal["start"]), deals=1)
        for mv in deal["moves"]:
            pos = session.position
            seat = pos.to_move
            assert seat is not None
            if pos.plays > 0 and len(pos.legal_codes()) > 1:
                view = View.from_position(pos, seat, session.history)
                a = int(teacher.choose(view, random.Random(1)).move)
                b = int(teacher.choose(view, random.Random(2)).move)
                moves += 1
                same += a == b
                if student is not None:
                    cloned += int(student.choose(view, random.Random(0)).move) == int(
                        Move.from_dict(mv)
                    )
            session.play(mv)
    out: dict[str, Any] = {
        "deals": min(deals, n + 1),
        "moves_with_a_choice": moves,
        "teacher_self_agreement": round(same / max(1, moves), 3),
        "bc_agreement": round(cloned / max(1, moves), 3) if student is not None else None,
    }
    if student is not None:
        # The clone's accuracy per kind of sub-decision (those with a choice), same deals.
        data = load_dataset(data_dir, max_deals=deals, forced=False)
        every = data.arrays()
        logits = student.logits(every.observation)
        logits[every.action_mask == 0] = -np.inf
        right = logits.argmax(1) == every.action
        a = every.action
        kinds = {
            "card": a < 52,
            "bid": (a >= 52) & (a < 58),
            "use": (a >= 58) & (a < 75),
            "item_or_done": a >= 75,
        }
        out["bc_accuracy"] = {
            k: [round(float(right[m].mean()), 3), int(m.sum())] for k, m in kinds.items() if m.any()
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
    g = sub.add_parser("agree", help="how often the bot agrees with itself, and bc with it")
    g.add_argument("--data", required=True)
    g.add_argument("--weights", default=None)
    g.add_argument("--deals", type=int, default=100)
    args = ap.parse_args()
    if args.cmd == "agree":
        print(json.dumps(agreement(args.data, args.weights, args.deals)))
    elif args.cmd == "train":
        summary = train(args.data, args.minutes, args.seed, args.out, args.max_deals, args.threads)
        print(json.dumps(summary))
    else:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        print(json.dumps(arena(args.weights, args.deals, args.seed, args.workers)))


if __name__ == "__main__":
    main()
