"""Fixed work for instruction counts: the loops of ``bench/envs.py``, run for a count.

``python bench/envs_work.py KIND N`` runs N units of one loop and exits: KIND ``vec`` /
``self`` (N steps of ``SeepVectorEnv`` / ``SeepSelfPlayVectorEnv``, 64 games), ``pz`` (N
PettingZoo steps), ``gym`` (N Gymnasium steps), ``os`` / ``hearts`` (N random rollouts of
``python_seep`` / OpenSpiel's C++ ``hearts``). Under valgrind the instructions of one unit
are the difference of two counts divided by the units in between (start-up drops out)::

    valgrind --tool=callgrind python bench/envs_work.py vec 20    # "Collected : A"
    valgrind --tool=callgrind python bench/envs_work.py vec 60    # "Collected : B"
    # (B - A) / 40 instructions per step of 64 games

Unlike wall-clock figures these hardly move when other work shares the machine. The loops are
``bench/envs.py``'s own (its ``*_step``, ``pettingzoo_deal`` and ``openspiel_rollout``); numpy's
BLAS runs one thread here (``OPENBLAS_NUM_THREADS=1`` unless set), whose idle spinning would
otherwise add a varying count.
"""

from __future__ import annotations

import os
import random
import sys
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy is imported (envs)
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np
from envs import gymnasium_step, openspiel_rollout, pettingzoo_deal, vector_step


def main(kind: str, n: int) -> None:
    if kind in ("vec", "self"):
        from seep.integrations.vector import SeepSelfPlayVectorEnv, SeepVectorEnv

        envs = (SeepVectorEnv if kind == "vec" else SeepSelfPlayVectorEnv)(num_envs=64)
        rng = np.random.default_rng(4)
        obs, _ = envs.reset(seed=4)
        for _ in range(n):
            obs = vector_step(envs, obs, rng)
    elif kind == "pz":
        from seep.integrations.pettingzoo import SeepAECEnv

        env = SeepAECEnv()
        rng = np.random.default_rng(1)
        env.reset(seed=1)
        steps = 0
        while steps < n:
            steps += pettingzoo_deal(env, rng)
    elif kind == "gym":
        from seep.integrations.gymnasium import SeepEnv

        genv = SeepEnv(opponents="random", partner="random")
        rng = np.random.default_rng(2)
        obs, _ = genv.reset(seed=2)
        for _ in range(n):
            obs = gymnasium_step(genv, obs, rng)
    elif kind in ("os", "hearts"):
        import pyspiel

        game = pyspiel.load_game("python_seep" if kind == "os" else "hearts")
        prng = random.Random(3)
        for _ in range(n):
            openspiel_rollout(game, prng)
    else:
        raise SystemExit(f"unknown kind {kind!r}: vec, self, pz, gym, os or hearts")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    main(sys.argv[1], int(sys.argv[2]))
