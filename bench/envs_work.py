"""Fixed work for instruction counts: the loops of ``bench/envs.py``, run for a count.

``python bench/envs_work.py KIND N`` runs N units of one loop and exits: KIND ``vec`` /
``self`` (N steps of ``SeepVectorEnv`` / ``SeepSelfPlayVectorEnv``, 64 games), ``pz`` (N
PettingZoo steps), ``gym`` (N Gymnasium steps), ``os`` / ``hearts`` (N random rollouts of
``python_seep`` / OpenSpiel's C++ ``hearts``). Under valgrind the instructions of one unit
are the difference of two counts divided by the units in between (start-up drops out)::

    valgrind --tool=callgrind python bench/envs_work.py vec 20    # "Collected : A"
    valgrind --tool=callgrind python bench/envs_work.py vec 60    # "Collected : B"
    # (B - A) / 40 instructions per step of 64 games

Unlike wall-clock figures these hardly move when other work shares the machine.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

import numpy as np


def main(kind: str, n: int) -> None:
    if kind in ("vec", "self"):
        from seep.integrations.vector import SeepSelfPlayVectorEnv, SeepVectorEnv

        envs = (SeepVectorEnv if kind == "vec" else SeepSelfPlayVectorEnv)(num_envs=64)
        rng = np.random.default_rng(4)
        obs, _ = envs.reset(seed=4)
        for _ in range(n):
            mask = obs["action_mask"]
            obs, *_ = envs.step((rng.random(mask.shape) * mask).argmax(axis=1))
    elif kind == "pz":
        from seep.integrations.pettingzoo import SeepAECEnv

        env = SeepAECEnv()
        rng = np.random.default_rng(1)
        env.reset(seed=1)
        steps = 0
        while steps < n:
            for _agent in env.agent_iter():
                obs, _r, terminated, truncated, _i = env.last()
                if terminated or truncated:
                    env.step(None)
                    continue
                legal = np.flatnonzero(obs["action_mask"])
                env.step(int(legal[rng.integers(len(legal))]))
                steps += 1
            env.reset()
    elif kind == "gym":
        from seep.integrations.gymnasium import SeepEnv

        genv = SeepEnv(opponents="random", partner="random")
        rng = np.random.default_rng(2)
        obs, _ = genv.reset(seed=2)
        for _ in range(n):
            legal = np.flatnonzero(obs["action_mask"])
            obs, _r, done, _t, _i = genv.step(int(legal[rng.integers(len(legal))]))
            if done:
                obs, _ = genv.reset()
    elif kind in ("os", "hearts"):
        import pyspiel

        import seep.integrations.openspiel  # noqa: F401  (registers python_seep)

        game = pyspiel.load_game("python_seep" if kind == "os" else "hearts")
        prng = random.Random(3)
        for _ in range(n):
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes = state.chance_outcomes()
                    acts = [a for a, _ in outcomes]
                    probs = [p for _, p in outcomes]
                    state.apply_action(prng.choices(acts, probs)[0])
                else:
                    state.apply_action(prng.choice(state.legal_actions()))
            state.returns()
    else:
        raise SystemExit(f"unknown kind {kind!r}: vec, self, pz, gym, os or hearts")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    main(sys.argv[1], int(sys.argv[2]))
