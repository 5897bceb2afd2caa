"""Engine benchmark: one process, one core.

Prints random complete deals per second (bid to scoring, uniformly random legal moves),
legal-move generations per second on positions from random play, push/pop pairs per second,
and protocol ``legal`` calls per second (docs/format.md dicts in and out). Beside them, in the same
run, OpenSpiel's C++ ``hearts`` (when ``open_spiel`` is installed): random complete deals per
second driven from Python the plain way (a uniform ``rng.choice`` over the chance outcomes,
which are uniform: the passing direction, then the cards still to deal; a uniform
``rng.choice`` over the legal actions), their rounds in turns, and the ratio of ours to it
(each pair of rounds too). ``--json`` prints one JSON object instead; its ``compiled`` says
whether the mypyc-compiled core ran (``seep --version`` says it too).

Each figure is measured in ``--rounds`` rounds; the figure reported is the median round, and
``*_best`` the best one (virtual machines vary by some 10% from one second to the next).

    python bench/engine.py [--seconds 5] [--rounds 5] [--clock wall|cpu] [--json]

``--clock cpu`` times the process's CPU time instead of the wall clock: on a machine shared
with other work it moves less.

``--fixed deals|legal|push_pop|hearts --count N`` runs a fixed workload instead and times nothing:
``N`` random deals (seeds from 1), ``N`` cold rounds of legal-move generation / push + pop
over the 2,000 sample positions, or ``N`` random deals of hearts in its loop; for instruction
counts, which load does not change (run it with two counts and divide the difference by the
deals in between: the start-up drops out)::

    valgrind --tool=callgrind python bench/engine.py --fixed deals --count 100
    valgrind --tool=callgrind python bench/engine.py --fixed hearts --count 100

The first four figures are four-player Seep; the last three the same for two players
(rules ``two_player``, docs/rules.md §12).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

import seep
from seep import protocol
from seep.engine import Position
from seep.options import STANDARD, Rules

# The clock of every rate: wall time, or the process's CPU time with --clock cpu.
_clock = time.perf_counter


def hearts_deals(seconds: float, seed: int = 1) -> float:
    """Random complete deals per second of OpenSpiel's C++ hearts, driven from Python."""
    import pyspiel

    game = pyspiel.load_game("hearts")
    rng = random.Random(seed)
    n = 0
    start = _clock()
    deadline = start + seconds
    while _clock() < deadline:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                # hearts' chance outcomes (passing direction, cards to deal) are uniform: a plain
                # choice draws from them exactly, without a weighted draw's extra Python.
                state.apply_action(rng.choice(state.chance_outcomes())[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
        state.returns()
        n += 1
    return n / (_clock() - start)


def hearts_work(count: int, seed: int = 1) -> None:
    """``count`` random deals of hearts in the loop of :func:`hearts_deals`, untimed."""
    import pyspiel

    game = pyspiel.load_game("hearts")
    rng = random.Random(seed)
    for _ in range(count):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choice(state.chance_outcomes())[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
        state.returns()


def random_deals(seconds: float, seed: int = 1, rules: Rules = STANDARD) -> tuple[float, int]:
    """Complete deals per second with uniform random legal moves (also returns plies)."""
    rng = random.Random(seed)
    n = plies = 0
    start = _clock()
    deadline = start + seconds
    while _clock() < deadline:
        pos = Position.new_deal(rng.randrange(1 << 30), rng.randrange(rules.players), rules)
        while pos.phase_id != 2:
            pos.advance(rng.choice(pos.legal_codes()))
            plies += 1
        pos.deal_scores()
        n += 1
    return n / (_clock() - start), plies


def sample_positions(count: int, seed: int = 2, rules: Rules = STANDARD) -> list[Position]:
    """Positions met in random play (every ply of random deals, phase play)."""
    rng = random.Random(seed)
    out: list[Position] = []
    while len(out) < count:
        pos = Position.new_deal(rng.randrange(1 << 30), rng.randrange(rules.players), rules)
        while pos.phase_id != 2:
            if pos.phase_id == 1:
                out.append(pos.copy())
            pos.push(rng.choice(pos.legal_codes()))
    return out[:count]


def legal_rate(positions: list[Position], seconds: float) -> tuple[float, float]:
    """Legal-move generations per second, and the mean number of legal moves."""
    from seep import floor

    total_moves = sum(len(p.legal_codes()) for p in positions)
    n = 0
    start = _clock()
    deadline = start + seconds
    while n == 0 or _clock() < deadline:
        # Cold caches each round: the figure must not rest on repeated positions.
        floor.clear_caches()
        for p in positions:
            p.legal_codes()
        n += len(positions)
    return n / (_clock() - start), total_moves / len(positions)


def push_pop_rate(positions: list[Position], seconds: float) -> float:
    """push + pop pairs per second over the legal moves of the sample positions."""
    work = [(p, p.legal_codes()) for p in positions]
    n = 0
    start = _clock()
    deadline = start + seconds
    while _clock() < deadline:
        for p, moves in work:
            for m in moves[:4]:
                p.push(m)
                p.pop()
                n += 1
    return n / (_clock() - start)


def protocol_rate(positions: list[Position], seconds: float) -> float:
    """``seep.protocol.legal`` calls per second on docs/format.md dicts."""
    dicts = [p.to_dict() for p in positions[:200]]
    n = 0
    start = _clock()
    deadline = start + seconds
    while _clock() < deadline:
        for d in dicts:
            protocol.legal(d)
        n += len(dicts)
    return n / (_clock() - start)


def fixed_work(kind: str, count: int) -> None:
    """The workload of one figure, ``count`` times over, untimed (see ``--fixed``)."""
    from seep import floor

    if kind == "hearts":
        hearts_work(count)
        return
    if kind == "deals":
        rng = random.Random(1)
        for _ in range(count):
            pos = Position.new_deal(rng.randrange(1 << 30), rng.randrange(4))
            while pos.phase_id != 2:
                pos.advance(rng.choice(pos.legal_codes()))
            pos.deal_scores()
        return
    positions = sample_positions(2000)
    if kind == "legal":
        for _ in range(count):
            floor.clear_caches()
            for p in positions:
                p.legal_codes()
    else:
        work = [(p, p.legal_codes()) for p in positions]
        for _ in range(count):
            for p, moves in work:
                for m in moves[:4]:
                    p.push(m)
                    p.pop()


def rounds(measure: Callable[[float], float], seconds: float, n: int) -> tuple[float, float]:
    """Median and best of ``n`` rounds of ``measure`` sharing ``seconds``."""
    rates = sorted(measure(seconds / n) for _ in range(n))
    return statistics.median(rates), rates[-1]


def paired_rounds(
    ours: Callable[[float], float], theirs: Callable[[float], float], seconds: float, n: int
) -> tuple[tuple[float, float], tuple[float, float], list[float]]:
    """``n`` rounds of two measures taken in turns, sharing ``seconds`` (each pair meets the
    same load): the median and best of each, and the ratio ``ours / theirs`` of every pair,
    sorted."""
    pairs = [(ours(seconds / n), theirs(seconds / n)) for _ in range(n)]
    a = sorted(p[0] for p in pairs)
    b = sorted(p[1] for p in pairs)
    ratios = sorted(x / y for x, y in pairs)
    return (statistics.median(a), a[-1]), (statistics.median(b), b[-1]), ratios


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=5.0, help="time per figure")
    ap.add_argument("--rounds", type=int, default=5, help="rounds per figure")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument(
        "--fixed",
        choices=("deals", "legal", "push_pop", "hearts"),
        help="run a fixed workload, untimed",
    )
    ap.add_argument("--count", type=int, default=1, help="repetitions of --fixed")
    ap.add_argument(
        "--clock", choices=("wall", "cpu"), default="wall", help="time.perf_counter or process_time"
    )
    args = ap.parse_args()
    if args.clock == "cpu":
        global _clock
        _clock = time.process_time
    if args.fixed:
        fixed_work(args.fixed, args.count)
        return
    positions = sample_positions(2000)
    _, mean_moves = legal_rate(positions, 0.0)
    two = Rules.parse("two_player")
    positions2 = sample_positions(2000, rules=two)
    _, mean_moves2 = legal_rate(positions2, 0.0)
    seeds = itertools.count(1000)
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        have_hearts = False
    else:
        have_hearts = True
    # A fresh stream of deals every round: no round replays another's positions.
    if have_hearts:
        # Ours and hearts' in turns, so that each ratio compares rounds under the same load.
        ours, hearts, ratios = paired_rounds(
            lambda s: random_deals(s, next(seeds))[0],
            lambda s: hearts_deals(s, next(seeds)),
            args.seconds,
            args.rounds,
        )
    else:
        ours = rounds(lambda s: random_deals(s, next(seeds))[0], args.seconds, args.rounds)
    figures = {
        "random_deals_per_s": ours,
        "legal_per_s": rounds(lambda s: legal_rate(positions, s)[0], args.seconds, args.rounds),
        "push_pop_per_s": rounds(lambda s: push_pop_rate(positions, s), args.seconds, args.rounds),
        "protocol_legal_per_s": rounds(
            lambda s: protocol_rate(positions, s), args.seconds, args.rounds
        ),
        # Two-player Seep (docs/rules.md §12), the same measures.
        "two_player_random_deals_per_s": rounds(
            lambda s: random_deals(s, next(seeds), two)[0], args.seconds, args.rounds
        ),
        "two_player_legal_per_s": rounds(
            lambda s: legal_rate(positions2, s)[0], args.seconds, args.rounds
        ),
        "two_player_push_pop_per_s": rounds(
            lambda s: push_pop_rate(positions2, s), args.seconds, args.rounds
        ),
    }
    if have_hearts:
        figures["hearts_random_deals_per_s"] = hearts
    result: dict[str, object] = {}
    for key, (median, best) in figures.items():
        result[key] = round(median, 1)
        result[key.replace("_per_s", "_best_per_s")] = round(best, 1)
    if "hearts_random_deals_per_s" in figures:
        ratio = figures["random_deals_per_s"][0] / figures["hearts_random_deals_per_s"][0]
        result["deals_ratio_to_hearts"] = round(ratio, 3)
        result["deals_ratio_to_hearts_per_round"] = [round(r, 3) for r in ratios]
    result["compiled"] = seep.COMPILED
    result["mean_legal_moves"] = round(mean_moves, 2)
    result["two_player_mean_legal_moves"] = round(mean_moves2, 2)
    result["rounds"] = args.rounds
    result["clock"] = args.clock
    result["load_average_1min"] = round(os.getloadavg()[0], 2)
    result["python"] = platform.python_version()
    result["machine"] = platform.machine()
    if args.json:
        print(json.dumps(result))
        return
    notes = {
        "random_deals_per_s": "random complete deals/s (bid to scoring, uniform random moves)",
        "legal_per_s": f"legal-move generations/s (mean {mean_moves:.1f} moves, cold caches)",
        "push_pop_per_s": "push + pop pairs/s",
        "protocol_legal_per_s": "protocol legal calls/s (docs/format.md dict in, move dicts out)",
        "hearts_random_deals_per_s": "OpenSpiel C++ hearts random complete deals/s (plain loop)",
        "two_player_random_deals_per_s": "two players: random complete deals/s",
        "two_player_legal_per_s": f"two players: legal-move generations/s (mean {mean_moves2:.1f})",
        "two_player_push_pop_per_s": "two players: push + pop pairs/s",
    }
    core = "compiled core (mypyc)" if seep.COMPILED else "pure-Python core"
    print(f"{core:62} {'median':>10} {'best':>10}")
    for key, (median, best) in figures.items():
        print(f"{notes[key]:62} {median:10.1f} {best:10.1f}")
    if "deals_ratio_to_hearts" in result:
        print(
            f"{'random deals: ours / hearts (pairs of rounds: lowest, highest)':62} "
            f"{result['deals_ratio_to_hearts']:10.2f} {ratios[0]:10.2f} {ratios[-1]:10.2f}"
        )


if __name__ == "__main__":
    main()
