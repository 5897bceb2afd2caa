"""Research-environment benchmark: one process, one core.

Prints PettingZoo steps per second (``SeepAECEnv``, uniformly random actions among the
``action_mask``, the agent loop of PettingZoo's documentation: ``last()`` then ``step()``),
Gymnasium steps per second (one seat against ``random`` bots; the bots' moves happen inside
the step), and OpenSpiel random rollouts per second (whole games from the initial state, a
uniform ``rng.choice`` over ``chance_outcomes()``, which are uniform in both games, and over
``legal_actions()``) of ``python_seep`` beside OpenSpiel's C++ ``hearts``, driven by the same
Python loop, their rounds taken in turns (their ratio is printed, with the lowest and highest
ratio of a pair of rounds). Then the batched environments of
``seep.integrations.vector`` (``--num-envs`` games stepped together, random masked actions
drawn with one numpy call per step): agent steps per second of ``SeepVectorEnv`` (one learning
seat against ``random`` bots) and of ``SeepSelfPlayVectorEnv`` (all four seats). Beside them,
the bound the engine sets: random deals per second of the engine alone (the same calls a deal
of the environment makes: the deal, then ``legal_codes()``, a random choice and ``advance``
for each move) times ``SeepVectorEnv``'s agent steps per episode. ``--json`` prints one JSON
object instead; ``compiled`` says whether the compiled core ran.

Each figure is measured in ``--rounds`` rounds; the figure reported is the median round and
``*_best`` the best one.

    python bench/envs.py [--seconds 3] [--rounds 3] [--num-envs 64] [--clock wall|cpu] [--json]

``--clock cpu`` times the process's CPU time instead of the wall clock: on a machine shared
with other work it moves less. ``bench/envs_work.py`` runs the same loops for a fixed count,
for instruction counts under valgrind.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

import numpy as np
import pyspiel

import seep
import seep.integrations.openspiel
from seep.engine import Position
from seep.integrations.gymnasium import SeepEnv
from seep.integrations.pettingzoo import SeepAECEnv
from seep.integrations.vector import SeepSelfPlayVectorEnv, SeepVectorEnv
from seep.options import Rules

# The clock of every rate: wall time, or the process's CPU time with --clock cpu (less moved
# by other work on a shared machine).
_clock = time.perf_counter


def vector_rate(cls: Any, num_envs: int, seconds: float, seed: int = 4) -> float:
    """Agent steps per second of a batched environment (``num_envs`` steps per call)."""
    envs = cls(num_envs=num_envs)
    rng = np.random.default_rng(seed)
    obs, _ = envs.reset(seed=seed)
    steps = 0
    start = _clock()
    deadline = start + seconds
    while _clock() < deadline:
        obs = vector_step(envs, obs, rng)
        steps += num_envs
    return steps / (_clock() - start)


def vector_step(envs: Any, obs: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    """One step of every game of a batched environment, a random allowed action in each."""
    mask = obs["action_mask"]
    obs, *_ = envs.step((rng.random(mask.shape) * mask).argmax(axis=1))
    return obs


def vector_steps_per_episode(cls: Any, num_envs: int, steps: int, seed: int = 4) -> float:
    """The agent steps of an episode of a batched environment (the loop of
    :func:`vector_rate`, ``steps`` calls)."""
    envs = cls(num_envs=num_envs)
    rng = np.random.default_rng(seed)
    obs, _ = envs.reset(seed=seed)
    episodes = 0
    for _ in range(steps):
        mask = obs["action_mask"]
        obs, _r, terminated, truncated, _i = envs.step((rng.random(mask.shape) * mask).argmax(1))
        episodes += int(terminated.sum() + truncated.sum())
    return steps * num_envs / max(episodes, 1)


def engine_deal_rate(seconds: float, seed: int = 5, rules: str = "standard") -> float:
    """Random deals per second of the engine alone, making the calls a deal of the batched
    environment makes (the deal, then for each move ``legal_codes()``, a random choice and
    ``advance``): what the environments' steps would cost if nothing else did."""
    parsed = Rules.parse(rules)
    rng = random.Random(seed)
    deals = 0
    start = _clock()
    deadline = start + seconds
    while _clock() < deadline:
        pos = Position.new_deal(rng.getrandbits(62), rng.randrange(parsed.players), parsed)
        while not pos.is_over():
            pos.advance(rng.choice(pos.legal_codes()))
        deals += 1
    return deals / (_clock() - start)


def pettingzoo_rate(seconds: float, seed: int = 1, rules: str = "standard") -> tuple[float, float]:
    """PettingZoo agent steps per second (and the mean steps per deal)."""
    env = SeepAECEnv(rules=rules)
    rng = np.random.default_rng(seed)
    steps = deals = 0
    env.reset(seed=seed)
    start = _clock()
    deadline = start + seconds
    while _clock() < deadline:
        steps += pettingzoo_deal(env, rng)
        deals += 1
    return steps / (_clock() - start), steps / max(deals, 1)


def pettingzoo_deal(env: Any, rng: np.random.Generator) -> int:
    """Play one deal of a PettingZoo environment with random allowed actions, then reset it;
    the agent steps taken."""
    steps = 0
    for _agent in env.agent_iter():
        obs, _reward, terminated, truncated, _info = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]))
        steps += 1
    env.reset()
    return steps


def gymnasium_rate(seconds: float, seed: int = 2, rules: str = "standard") -> float:
    """Gymnasium steps per second, one seat against three ``random`` bots (one with two
    players)."""
    env = SeepEnv(opponents="random", partner="random", rules=rules)
    rng = np.random.default_rng(seed)
    steps = 0
    obs, _ = env.reset(seed=seed)
    start = _clock()
    deadline = start + seconds
    while _clock() < deadline:
        obs = gymnasium_step(env, obs, rng)
        steps += 1
    return steps / (_clock() - start)


def gymnasium_step(env: Any, obs: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    """One step of a Gymnasium environment with a random allowed action (a reset after the
    last step of a deal); the next observation."""
    legal = np.flatnonzero(obs["action_mask"])
    obs, _r, done, _t, _i = env.step(int(legal[rng.integers(len(legal))]))
    if done:
        obs, _ = env.reset()
    return obs


def openspiel_rate(game: Any, seconds: float, seed: int = 3) -> tuple[float, float]:
    """Random rollouts per second of an OpenSpiel game (and the mean actions per game,
    chance outcomes included)."""
    rng = random.Random(seed)
    games = actions = 0
    start = _clock()
    deadline = start + seconds
    while _clock() < deadline:
        actions += openspiel_rollout(game, rng)
        games += 1
    return games / (_clock() - start), actions / max(games, 1)


def openspiel_rollout(game: Any, rng: random.Random) -> int:
    """One random rollout of an OpenSpiel game (uniform chance outcomes, drawn plainly); the
    actions applied, chance outcomes included."""
    actions = 0
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            # Both games' chance outcomes (cards to deal; hearts' passing direction) are
            # uniform: a plain choice samples them exactly, without a weighted draw's cost.
            state.apply_action(rng.choice(state.chance_outcomes())[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
        actions += 1
    state.returns()
    return actions


def rounds(measure: Callable[[float], float], seconds: float, n: int) -> tuple[float, float]:
    """The median and the best of ``n`` rounds of ``measure(seconds)``."""
    values = [measure(seconds) for _ in range(n)]
    return statistics.median(values), max(values)


def paired_rounds(
    ours: Callable[[float], float], theirs: Callable[[float], float], seconds: float, n: int
) -> tuple[tuple[float, float], tuple[float, float], list[float]]:
    """``n`` rounds of two measures taken in turns (each pair meets the same load): the median
    and best of each, and the ratio ``ours / theirs`` of every pair, sorted."""
    pairs = [(ours(seconds), theirs(seconds)) for _ in range(n)]
    a = [p[0] for p in pairs]
    b = [p[1] for p in pairs]
    ratios = sorted(x / y for x, y in pairs)
    return (statistics.median(a), max(a)), (statistics.median(b), max(b)), ratios


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=3.0, help="length of one round")
    ap.add_argument("--rounds", type=int, default=3, help="rounds per figure")
    ap.add_argument("--num-envs", type=int, default=64, help="games of the batched envs")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument(
        "--clock", choices=("wall", "cpu"), default="wall", help="time.perf_counter or process_time"
    )
    args = ap.parse_args()
    if args.clock == "cpu":
        global _clock
        _clock = time.process_time
    s, n, ne = args.seconds, args.rounds, args.num_envs
    seep_game = pyspiel.load_game("python_seep")
    hearts = pyspiel.load_game("hearts")
    pz, pz_best = rounds(lambda t: pettingzoo_rate(t)[0], s, n)
    pz_steps = pettingzoo_rate(min(s, 1.0))[1]
    gym_rate, gym_best = rounds(gymnasium_rate, s, n)
    vec, vec_best = rounds(lambda t: vector_rate(SeepVectorEnv, ne, t), s, n)
    vec_steps = vector_steps_per_episode(SeepVectorEnv, ne, 200)
    engine_deals, _ = rounds(engine_deal_rate, s, n)
    selfplay, selfplay_best = rounds(lambda t: vector_rate(SeepSelfPlayVectorEnv, ne, t), s, n)
    (os_seep, os_seep_best), (os_hearts, os_hearts_best), os_ratios = paired_rounds(
        lambda t: openspiel_rate(seep_game, t)[0], lambda t: openspiel_rate(hearts, t)[0], s, n
    )
    seep_actions = openspiel_rate(seep_game, min(s, 1.0))[1]
    hearts_actions = openspiel_rate(hearts, min(s, 1.0))[1]
    two = "two_player"
    seep2 = pyspiel.load_game("python_seep", {"players": 2})
    pz2, pz2_best = rounds(lambda t: pettingzoo_rate(t, rules=two)[0], s, n)
    gym2, gym2_best = rounds(lambda t: gymnasium_rate(t, rules=two), s, n)
    os2, os2_best = rounds(lambda t: openspiel_rate(seep2, t)[0], s, n)
    result = {
        "pettingzoo_steps_per_s": round(pz),
        "pettingzoo_steps_per_s_best": round(pz_best),
        "pettingzoo_steps_per_deal": round(pz_steps, 1),
        "gymnasium_steps_per_s": round(gym_rate),
        "gymnasium_steps_per_s_best": round(gym_best),
        "vector_env_steps_per_s": round(vec),
        "vector_env_steps_per_s_best": round(vec_best),
        "vector_env_steps_per_episode": round(vec_steps, 1),
        "engine_random_deals_per_s": round(engine_deals),
        "vector_env_engine_bound_steps_per_s": round(engine_deals * vec_steps),
        "selfplay_vector_env_steps_per_s": round(selfplay),
        "selfplay_vector_env_steps_per_s_best": round(selfplay_best),
        "num_envs": ne,
        "openspiel_python_seep_rollouts_per_s": round(os_seep, 1),
        "openspiel_python_seep_rollouts_per_s_best": round(os_seep_best, 1),
        "openspiel_python_seep_actions_per_rollout": round(seep_actions, 1),
        "openspiel_hearts_rollouts_per_s": round(os_hearts, 1),
        "openspiel_hearts_rollouts_per_s_best": round(os_hearts_best, 1),
        "openspiel_hearts_actions_per_rollout": round(hearts_actions, 1),
        "python_seep_to_hearts_rollouts_ratio": round(os_seep / os_hearts, 3),
        "python_seep_to_hearts_rollouts_ratio_per_round": [round(r, 3) for r in os_ratios],
        "compiled": seep.COMPILED,
        "two_player_pettingzoo_steps_per_s": round(pz2),
        "two_player_pettingzoo_steps_per_s_best": round(pz2_best),
        "two_player_gymnasium_steps_per_s": round(gym2),
        "two_player_gymnasium_steps_per_s_best": round(gym2_best),
        "two_player_openspiel_python_seep_rollouts_per_s": round(os2, 1),
        "two_player_openspiel_python_seep_rollouts_per_s_best": round(os2_best, 1),
        "seconds": s,
        "rounds": n,
        "clock": args.clock,
        "python": platform.python_version(),
        "load_average_1min": round(os.getloadavg()[0], 2),
    }
    if args.json:
        print(json.dumps(result))
        return
    core = "compiled" if seep.COMPILED else "pure Python"
    print(
        f"python {result['python']} ({core} core), {n} rounds of {s:g} s, "
        f"load {result['load_average_1min']}"
    )
    rows = [
        ("PettingZoo steps/s (random masked actions)", pz, pz_best),
        ("Gymnasium steps/s (vs 3 random bots)", gym_rate, gym_best),
        (f"SeepVectorEnv agent steps/s ({ne} games)", vec, vec_best),
        ("  engine alone: random deals/s", engine_deals, engine_deals),
        (
            "  = bound on SeepVectorEnv agent steps/s",
            engine_deals * vec_steps,
            engine_deals * vec_steps,
        ),
        (f"SeepSelfPlayVectorEnv agent steps/s ({ne} games)", selfplay, selfplay_best),
        ("OpenSpiel python_seep random rollouts/s", os_seep, os_seep_best),
        ("OpenSpiel C++ hearts random rollouts/s", os_hearts, os_hearts_best),
        ("two players: PettingZoo steps/s", pz2, pz2_best),
        ("two players: Gymnasium steps/s (vs 1 random bot)", gym2, gym2_best),
        ("two players: OpenSpiel python_seep rollouts/s", os2, os2_best),
    ]
    for label, median, best in rows:
        print(f"{label:48} {median:>10,.1f}  (best {best:,.1f})")
    print(
        f"steps per deal: PettingZoo {pz_steps:.1f}; actions per rollout (chance included): "
        f"python_seep {seep_actions:.1f}, hearts {hearts_actions:.1f}"
    )
    print(
        f"python_seep / hearts rollouts: {result['python_seep_to_hearts_rollouts_ratio']:.2f} "
        f"(pairs of rounds {os_ratios[0]:.2f}-{os_ratios[-1]:.2f})"
    )
    print(
        f"SeepVectorEnv / 100,000 agent steps/s: {vec / 100_000:.2f}; python_seep / (hearts / 2): "
        f"{2 * os_seep / os_hearts:.2f}"
    )


if __name__ == "__main__":
    main()
