"""Draw a Seep position as SVG (seep.svg): docs/engine.md's picture, docs/images/position.svg.

    python examples/svg_position.py [SEED] [PLAYS] > docs/images/position.svg

Deal ``SEED`` (default 5) after ``PLAYS`` plays of random legal moves (default 10; the bid
first), every hand face up, South at the bottom, with one legal move outlined: the first that
takes or joins something, else the first. The same seed gives the same picture.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from seep import svg
from seep.codes import THROW, code_action
from seep.engine import Position


def sample(seed: int, plays: int) -> Position:
    """Deal ``seed`` after ``plays`` random legal plays (the bid does not count as a play)."""
    pos = Position.new_deal(seed)
    rng = random.Random(seed)
    while not pos.is_over() and (pos.phase == "bid" or pos.plays < plays):
        pos.push(rng.choice(pos.legal_codes()))
    return pos


def main(argv: list[str]) -> int:
    try:
        seed = int(argv[0]) if argv else 5
        plays = int(argv[1]) if len(argv) > 1 else 10
    except ValueError:
        print("usage: python examples/svg_position.py [SEED] [PLAYS]", file=sys.stderr)
        return 2
    pos = sample(seed, plays)
    moves = sorted(pos.legal_codes(), key=lambda code: code_action(code) == THROW)
    print(svg.position(pos, move=moves[0] if moves else None))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
