"""OpenSpiel's own ISMCTS bot on ``python_seep`` against uniformly random play.

Team A (seats 0 and 2) is OpenSpiel's ``ISMCTSBot`` with random-rollout evaluation
(``--simulations`` per sub-decision; it samples worlds with the game's
``resample_from_infostate``, i.e. ``View.determinize``); team B plays uniformly random legal
actions. Each shuffle is played twice with the teams' seats swapped (the same chance outcomes),
and the mean of A's team score minus B's per deal is printed with a 95% interval (``null``
with a single pair of deals). OpenSpiel's ``evaluate_bots`` cannot drive ``ISMCTSBot`` (it
calls ``restart_at``, which ``ISMCTSBot`` does not implement), so this loop calls
``bot.step(state)`` itself::

    .venv/bin/python examples/openspiel_ismcts.py --deals 20 --simulations 50

``--players 2`` plays two-player Seep (docs/rules.md §12): A is one player, B the other.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

import seep.integrations.openspiel  # noqa: F401  (registers python_seep)


def play(game: pyspiel.Game, bot: ismcts.ISMCTSBot, team: int, deal_seed: int) -> float:
    """One deal: ``bot`` plays the seats of ``team``; returns that team's score difference."""
    chance = random.Random(deal_seed)
    rnd = random.Random(deal_seed + 1)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            acts, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(chance.choices(acts, probs)[0])
        elif state.current_player() % 2 == team:
            state.apply_action(bot.step(state))
        else:
            state.apply_action(rnd.choice(state.legal_actions()))
    return float(state.returns()[team])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=20, help="deals (an even number)")
    ap.add_argument("--simulations", type=int, default=50)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--players", type=int, choices=(2, 4), default=4)
    args = ap.parse_args()
    if args.deals < 2 or args.deals % 2:
        ap.error(
            f"--deals must be an even number >= 2 (each shuffle is played twice), got {args.deals}"
        )
    game = pyspiel.load_game("python_seep", {"players": args.players})
    rs = np.random.RandomState(args.seed)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rs)
    bot = ismcts.ISMCTSBot(
        game, evaluator, uct_c=200.0, max_simulations=args.simulations, random_state=rs
    )
    diffs = []
    start = time.perf_counter()
    for pair in range(args.deals // 2):
        seed = random.Random(f"{args.seed}:{pair}").getrandbits(32)
        diffs.append((play(game, bot, 0, seed) + play(game, bot, 1, seed)) / 2)
    mean = statistics.mean(diffs)
    # One pair gives no spread: the interval is null (JSON has no NaN).
    half = 1.96 * statistics.stdev(diffs) / len(diffs) ** 0.5 if len(diffs) > 1 else None
    print(
        json.dumps(
            {
                "players": args.players,
                "deals": 2 * len(diffs),
                "simulations": args.simulations,
                "mean_diff_per_deal": round(mean, 1),
                "ci95": None if half is None else [round(mean - half, 1), round(mean + half, 1)],
                "seconds": round(time.perf_counter() - start, 1),
            }
        )
    )


if __name__ == "__main__":
    main()
