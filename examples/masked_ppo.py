"""Masked PPO on ``Seep-v0``: sb3-contrib's ``MaskablePPO`` learns one seat's sub-decisions
against ``random`` bots, then plays duplicate arena matches against ``random`` and ``greedy``.

Needs the extra ``seep-game[rl]`` (sb3-contrib, PyTorch; ``make test`` installs it with the
CPU build of PyTorch). The policy sees the 504-value observation; the mask of legal
sub-decisions comes from ``SeepEnv.action_masks()`` (sb3-contrib's ``ActionMasker``), so it
never tries an illegal action. Train, then measure::

    .venv/bin/python examples/masked_ppo.py train --minutes 5 --out masked_ppo.zip
    .venv/bin/python examples/masked_ppo.py arena --model masked_ppo.zip --deals 400

The arena bot ``masked_ppo`` (registered when this module is imported, model from
``SEEP_PPO_MODEL``) builds each move from the policy's sub-decisions on the seat's view.
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

import gymnasium as gym
from sb3_contrib import MaskablePPO
from sb3_contrib.common.wrappers import ActionMasker
from stable_baselines3.common.callbacks import BaseCallback

from seep.bots import Decision, register
from seep.integrations.actions import MoveBuilder
from seep.integrations.features import observation
from seep.integrations.gymnasium import SeepEnv
from seep.moves import Move
from seep.view import View


class ObservationOnly(gym.ObservationWrapper[Any, int, Any]):
    """The observation vector alone (the mask goes to the policy through ActionMasker)."""

    def __init__(self, env: SeepEnv) -> None:
        super().__init__(env)
        self.observation_space = env.observation_space["observation"]

    def observation(self, observation: dict[str, Any]) -> Any:
        return observation["observation"]


def make_env(seed: int) -> gym.Env[Any, int]:
    base = SeepEnv(opponents="random", partner="random")
    base.reset(seed=seed)
    return ActionMasker(ObservationOnly(base), lambda e: base.action_masks())


class Deadline(BaseCallback):
    """Stops training after ``seconds`` of wall time."""

    def __init__(self, seconds: float) -> None:
        super().__init__()
        self.end = time.monotonic() + seconds

    def _on_step(self) -> bool:
        return time.monotonic() < self.end


def train(minutes: float, timesteps: int, seed: int, out: Path) -> dict[str, Any]:
    env = make_env(seed)
    n_steps = max(64, min(512, timesteps))  # a tiny budget (the test) trains on one batch
    model = MaskablePPO(
        "MlpPolicy",
        env,
        seed=seed,
        n_steps=n_steps,
        batch_size=min(128, n_steps),
        learning_rate=3e-4,
        verbose=0,
    )
    start = time.monotonic()
    model.learn(total_timesteps=timesteps, callback=Deadline(minutes * 60))
    model.save(out)
    return {
        "timesteps": int(model.num_timesteps),
        "seconds": round(time.monotonic() - start, 1),
        "model": str(out),
    }


class MaskedPPOBot:
    """A trained policy as a bot: it chooses sub-decisions until they make a move."""

    name = "masked_ppo"

    def __init__(self, model: str | None = None) -> None:
        path = model or os.environ.get("SEEP_PPO_MODEL")
        if not path:
            raise ValueError(
                "the masked_ppo bot needs a model: set SEEP_PPO_MODEL to a file written by "
                "'masked_ppo.py train' (or pass model=...)"
            )
        self.model = MaskablePPO.load(path, device="cpu")

    def choose(self, view: View, rng: random.Random) -> Decision:
        builder = MoveBuilder(view.legal_codes())
        while True:
            obs = observation(view, builder)
            mask = np.zeros(133, np.bool_)
            mask[builder.legal_actions()] = True
            action, _ = self.model.predict(obs, action_masks=mask, deterministic=True)
            code = builder.apply(int(action))
            if code is not None:
                return Decision(Move(code), "masked PPO policy")


register("masked_ppo", MaskedPPOBot)


def arena(model: str, deals: int, seed: int) -> dict[str, Any]:
    """Duplicate matches of the trained policy against ``random`` and ``greedy``."""
    from seep.arena import run_match

    path = str(Path(model).resolve())
    os.environ["SEEP_PPO_MODEL"] = path
    out: dict[str, Any] = {"deals": deals}
    for opponent in ("random", "greedy"):
        r = run_match(
            f"masked_ppo:model={json.dumps(path)}",
            opponent,
            deals=deals,
            seed=seed,
            workers=1,
            plugins=["masked_ppo"],
        )
        out[opponent] = {
            "mean_diff_per_deal": round(r.mean_diff, 1),
            "ci95": [round(x, 1) for x in r.ci95] if r.ci95 else None,
        }
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description="MaskablePPO on Seep-v0")
    sub = ap.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("train")
    t.add_argument("--minutes", type=float, default=5.0, help="wall-time budget")
    t.add_argument("--timesteps", type=int, default=10_000_000, help="step budget")
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--out", type=Path, default=Path("masked_ppo.zip"))
    a = sub.add_parser("arena")
    a.add_argument("--model", default="masked_ppo.zip")
    a.add_argument("--deals", type=int, default=400, help="deals per match (even)")
    a.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    if args.cmd == "train":
        print(json.dumps(train(args.minutes, args.timesteps, args.seed, args.out)))
    else:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        print(json.dumps(arena(args.model, args.deals, args.seed)))


if __name__ == "__main__":
    main()
