"""OpenSpiel's tabular Q-learning on two-player ``python_seep`` through ``rl_environment``.

Two of OpenSpiel's own ``QLearner`` agents (``open_spiel.python.algorithms.tabular_qlearner``,
numpy only) learn by self-play in OpenSpiel's ``rl_environment.Environment`` over two-player
Seep (docs/rules.md §12: ``players=2``; each deal is one episode, the reward the deal score
difference R42). The key of a state is the player's observation string (the view: his hand,
the floor, the houses, the counts). Seep's information sets are far too many for a table to
generalise, so this is a plumbing example, not a strong player: it shows the two-player game
running through OpenSpiel's RL loop, then plays the learner (greedy) against uniformly random
play with the seats swapped::

    .venv/bin/python examples/openspiel_qlearner.py --episodes 200 --eval 100
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

import pyspiel
from open_spiel.python import rl_environment
from open_spiel.python.algorithms import tabular_qlearner

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

import seep.integrations.openspiel  # noqa: F401  (registers python_seep)


def observation_key(state: pyspiel.State) -> str:
    """The Q-table key: the mover's observation string (his view of the deal)."""
    if state.is_terminal():  # the last time step: only its reward is used
        return "over"
    return str(state.observation_string(state.current_player()))


def make_env(seed: int) -> rl_environment.Environment:
    game = pyspiel.load_game("python_seep", {"players": 2})
    return rl_environment.Environment(game, seed=seed)


def train(env: rl_environment.Environment, agents: list, episodes: int) -> None:
    for _ in range(episodes):
        step = env.reset()
        while not step.last():
            player = step.observations["current_player"]
            out = agents[player].step(step)
            step = env.step([out.action])
        for agent in agents:  # the final rewards
            agent.step(step)


def evaluate(env: rl_environment.Environment, learner: list, deals: int, seed: int) -> list[float]:
    """The learner's deal score difference per deal against random play, seat by seat."""
    rnd = random.Random(seed)
    diffs = []
    for k in range(deals):
        seat = k % 2
        step = env.reset()
        while not step.last():
            player = step.observations["current_player"]
            if player == seat:
                action = learner[seat].step(step, is_evaluation=True).action
            else:
                action = rnd.choice(step.observations["legal_actions"][player])
            step = env.step([action])
        diffs.append(float(step.rewards[seat]))
    return diffs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--episodes", type=int, default=200, help="self-play training deals")
    ap.add_argument("--eval", type=int, default=100, help="deals against random play")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    env = make_env(args.seed)
    n = env.action_spec()["num_actions"]
    agents = [
        tabular_qlearner.QLearner(
            player_id=p, num_actions=n, info_state_to_string_override=observation_key
        )
        for p in range(2)
    ]
    # The override reads the state from the time step: the environment must include it.
    env = rl_environment.Environment(env.game, seed=args.seed, include_full_state=True)
    start = time.perf_counter()
    train(env, agents, args.episodes)
    trained = time.perf_counter() - start
    diffs = evaluate(env, agents, args.eval, args.seed)
    mean = statistics.mean(diffs)
    half = 1.96 * statistics.stdev(diffs) / len(diffs) ** 0.5 if len(diffs) > 1 else float("nan")
    print(
        json.dumps(
            {
                "players": 2,
                "episodes": args.episodes,
                "eval_deals": len(diffs),
                "mean_diff_per_deal_vs_random": round(mean, 1),
                "ci95": [round(mean - half, 1), round(mean + half, 1)],
                "train_seconds": round(trained, 1),
                "q_states": sum(len(a._q_values) for a in agents),
            }
        )
    )


if __name__ == "__main__":
    main()
