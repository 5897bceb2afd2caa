"""What a cold processor cache costs the easy bot: its view and its choice, timed warm (one
decision after another), cold (a sweep through memory before each, as on a busy server where
hundreds of tables' work runs between two bots' moves) and in batches (a sweep before every
``k``-th), the case the web's timer slack makes (docs/web.md "Broadcast cost").

Thread CPU time (``time.thread_time_ns``) around ``View.from_position`` (with the deal's
history, as the web makes it) and ``GreedyBot.choose``, over the play-phase positions of
``--deals`` random deals; ``--json`` for one object.

    python bench/bot_warmth.py [--deals 60] [--sweep-mb 16] [--batches 3 10] [--json]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

import seep
from seep.bots.greedy import GreedyBot
from seep.codes import PHASE_BID
from seep.engine import Position
from seep.view import View

Case = tuple[Position, int, list[tuple[int, int]]]


def positions(deals: int, seed: int) -> list[Case]:
    """(position, seat to move, the deal's moves) at every play of random deals."""
    rng = random.Random(seed)
    out: list[Case] = []
    for d in range(deals):
        pos = Position.new_deal(d)
        history: list[tuple[int, int]] = []
        while not pos.is_over():
            seat = pos.to_move
            assert seat is not None
            if pos.phase_id != PHASE_BID:
                out.append((pos.copy(), seat, list(history)))
            code = rng.choice(pos.legal_codes())
            history.append((seat, code))
            pos.push(code)
    return out


def timed(cases: list[Case], batch: int, sweep: bytearray) -> tuple[float, float]:
    """Mean µs of the view and of the choice, a sweep of ``sweep`` before every ``batch``-th
    decision (0: never)."""
    bot, rng = GreedyBot(), random.Random(0)
    view_ns = choose_ns = 0
    for i, (pos, seat, history) in enumerate(cases):
        if batch and i % batch == 0:
            for j in range(0, len(sweep), 64):  # one write a cache line
                sweep[j] = (sweep[j] + 1) & 255
        a = time.thread_time_ns()
        view = View.from_position(pos, seat, history)
        b = time.thread_time_ns()
        bot.choose(view, rng)
        c = time.thread_time_ns()
        view_ns += b - a
        choose_ns += c - b
    n = len(cases) * 1000
    return view_ns / n, choose_ns / n


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=60)
    ap.add_argument("--seed", type=int, default=2)
    ap.add_argument("--sweep-mb", type=int, default=16, help="memory swept to cool the caches")
    ap.add_argument("--batches", type=int, nargs="*", default=[3, 10])
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    cases = positions(args.deals, args.seed)
    sweep = bytearray(args.sweep_mb << 20)
    timed(cases[:200], 0, sweep)  # the code loaded once
    rows = {"warm": timed(cases, 0, sweep), "cold": timed(cases, 1, sweep)}
    for k in args.batches:
        rows[f"batches of {k}"] = timed(cases, k, sweep)
    result = {
        "compiled": seep.COMPILED,
        "decisions": len(cases),
        "sweep_mb": args.sweep_mb,
        "us": {name: {"view": round(v, 1), "choose": round(c, 1)} for name, (v, c) in rows.items()},
    }
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"easy bot, {len(cases)} decisions, core {'compiled' if seep.COMPILED else 'pure'}:")
    for name, (v, c) in rows.items():
        print(f"  {name:>14}: view {v:6.1f} µs, choice {c:6.1f} µs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
