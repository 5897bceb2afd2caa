"""Regenerate tests/data/frozen_bots.json: the moves today's bots make on a set of positions.

Run once, before the bots change (``python tests/data/frozen_bots.py``); the frozen bots
(``expert@1``, ``hard@1``, ``heuristic@1``) must keep making them (tests/bots/test_frozen_bots.py).
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

from seep.arena.frozen import make_arena_bot
from seep.engine import Position
from seep.view import View

OUT = Path(__file__).with_name("frozen_bots.json")
# The bots as they were frozen, and how many positions each is checked on.
BOTS = {"heuristic": 40, "hard": 16, "expert": 8}


def positions(count: int, seed: int) -> list[dict[str, Any]]:
    """Deal seeds, dealers and random move prefixes: the bid, play 1 and a spread of plays."""
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    while len(out) < count:
        deal, dealer = rng.randrange(1 << 30), rng.randrange(4)
        pos = Position.new_deal(deal, dealer)
        moves: list[int] = []
        while not pos.is_over() and len(out) < count:
            if pos.plays < 2 or rng.random() < 0.12:
                out.append({"deal": deal, "dealer": dealer, "moves": list(moves)})
            code = rng.choice(pos.legal_codes())
            pos.push(code)
            if pos.phase == "bid":  # a redeal (R14): start the record again
                break
            moves.append(code)
    return out


def replay(entry: dict[str, Any]) -> View:
    """The mover's view (with the deal's history) of a recorded position."""
    pos = Position.new_deal(entry["deal"], entry["dealer"])
    history = []
    for code in entry["moves"]:
        seat = pos.to_move
        assert seat is not None
        pos.push(code)
        history.append((seat, code))
    seat = pos.to_move
    assert seat is not None
    return View.from_position(pos, seat, history)


def record(bots: dict[str, int], position_seed: int, move_seed: int) -> dict[str, Any]:
    """Each bot's moves on ``bots[name]`` positions (from ``positions(count, position_seed +
    k)`` for the k-th bot), searched with ``random.Random(move_seed + i)`` on the i-th."""
    data: dict[str, list[dict[str, Any]]] = {}
    for k, (name, count) in enumerate(bots.items()):
        rows = positions(count, position_seed + k)
        bot = make_arena_bot(name)
        for i, row in enumerate(rows):
            row["seed"] = move_seed + i
            row["move"] = int(bot.choose(replay(row), random.Random(row["seed"])).move)
        data[name] = rows
    return data


def main() -> int:
    OUT.write_text(json.dumps(record(BOTS, 100, 7000), indent=1) + "\n", encoding="utf-8")
    print(f"wrote {OUT}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
