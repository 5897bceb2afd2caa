"""Engine benchmark: one process, one core.

Prints random complete deals per second (bid to scoring, uniformly random legal moves),
legal-move generations per second on positions from random play, push/pop pairs per second,
and protocol ``legal`` calls per second (FORMAT.md dicts in and out). ``--json`` prints one
JSON object instead.

    python bench/engine.py [--seconds 3] [--json]
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from seep import protocol
from seep.engine import Position


def random_deals(seconds: float, seed: int = 1) -> tuple[float, int]:
    """Complete deals per second with uniform random legal moves (also returns plies)."""
    rng = random.Random(seed)
    n = plies = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        pos = Position.new_deal(rng.randrange(1 << 30), rng.randrange(4))
        while pos.phase_id != 2:
            pos.advance(rng.choice(pos.legal_codes()))
            plies += 1
        pos.deal_scores()
        n += 1
    return n / (time.perf_counter() - start), plies


def sample_positions(count: int, seed: int = 2) -> list[Position]:
    """Positions met in random play (every ply of random deals, phase play)."""
    rng = random.Random(seed)
    out: list[Position] = []
    while len(out) < count:
        pos = Position.new_deal(rng.randrange(1 << 30), rng.randrange(4))
        while pos.phase_id != 2:
            if pos.phase_id == 1:
                out.append(pos.copy())
            pos.push(rng.choice(pos.legal_codes()))
    return out[:count]


def legal_rate(positions: list[Position], seconds: float) -> tuple[float, float]:
    """Legal-move generations per second, and the mean number of legal moves."""
    from seep import engine

    total_moves = sum(len(p.legal_codes()) for p in positions)
    n = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        # Cold caches each round: the figure must not rest on repeated positions.
        engine._FLOOR.clear()
        engine._FAMILIES.clear()
        for p in positions:
            p.legal_codes()
        n += len(positions)
    return n / (time.perf_counter() - start), total_moves / len(positions)


def push_pop_rate(positions: list[Position], seconds: float) -> float:
    """push + pop pairs per second over the legal moves of the sample positions."""
    work = [(p, p.legal_codes()) for p in positions]
    n = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        for p, moves in work:
            for m in moves[:4]:
                p.push(m)
                p.pop()
                n += 1
    return n / (time.perf_counter() - start)


def protocol_rate(positions: list[Position], seconds: float) -> float:
    """``seep.protocol.legal`` calls per second on FORMAT.md dicts."""
    dicts = [p.to_dict() for p in positions[:200]]
    n = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        for d in dicts:
            protocol.legal(d)
        n += len(dicts)
    return n / (time.perf_counter() - start)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args()
    deals, _plies = random_deals(args.seconds)
    positions = sample_positions(2000)
    legal, mean_moves = legal_rate(positions, args.seconds)
    pushpop = push_pop_rate(positions, args.seconds)
    proto = protocol_rate(positions, args.seconds)
    result = {
        "random_deals_per_s": round(deals, 1),
        "legal_per_s": round(legal, 1),
        "mean_legal_moves": round(mean_moves, 2),
        "push_pop_per_s": round(pushpop, 1),
        "protocol_legal_per_s": round(proto, 1),
        "python": platform.python_version(),
        "machine": platform.machine(),
    }
    if args.json:
        print(json.dumps(result))
        return
    print(f"random deals/s          {deals:10.1f}   (bid to scoring, uniform random moves)")
    print(f"legal generations/s     {legal:10.1f}   (mean {mean_moves:.1f} moves, cold caches)")
    print(f"push+pop/s              {pushpop:10.1f}")
    print(f"protocol legal calls/s  {proto:10.1f}   (FORMAT.md dict in, move dicts out)")


if __name__ == "__main__":
    main()
