"""Regenerate the golden data under tests/data (run only when a rule change is intended).

    PYTHONPATH=src python tests/data/generate.py

Writes ``perft.json`` (node counts of fixed deals), ``records/*.json`` (complete docs/format.md game
records of random matches) and ``playthroughs/*.txt`` (every position of a deal in notation).
The tests replay these files and diff them against the engine; a change to any count or
position is a change of the rules as implemented and must be explained in the commit.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "src"))

from seep.engine import Position, perft  # noqa: E402
from seep.moves import Move  # noqa: E402
from seep.notation import format_position  # noqa: E402
from seep.options import Rules  # noqa: E402
from seep.session import Session  # noqa: E402


def start_after(seed: int, rules: Rules, plies: int) -> Position:
    """The position after ``plies`` random moves of deal ``seed`` (a fixed, reproducible path)."""
    pos = Position.new_deal(seed, seed % rules.players, rules)
    rng = random.Random(seed)
    for _ in range(plies):
        pos.push(rng.choice(pos.legal_codes()))
    return pos


PERFT_CASES: list[tuple[int, dict[str, Any], int, int]] = [
    # (seed, rules, plies before, depth)
    (1, {}, 0, 5),
    (2, {}, 0, 6),
    (5, {}, 0, 5),
    (11, {}, 20, 4),
    (12, {}, 30, 4),
    (13, {"capture_rule": "any"}, 25, 4),
    (14, {"absorb_loose_groups": "mandatory"}, 25, 4),
    (15, {"house_in_sums": True, "allow_pair_build": True}, 25, 4),
    (16, {"throw_rule": "always", "max_houses": 2}, 15, 3),
    (17, {"deal_before_bid": True}, 0, 4),
    (18, {"throw_rule": "no_other_move", "partner_cement_free": False}, 25, 4),
    (19, {"absorb_loose_groups": "never", "add_retention": "team"}, 25, 4),
    (20, {}, 44, 4),
    # Two players (docs/rules.md §12): the opening, across the half-time deal after play 24 (R2P7),
    # the last plays, and the deal options of §12.4.
    (21, {"players": 2}, 0, 5),
    (22, {"players": 2}, 22, 4),
    (23, {"players": 2}, 36, 4),
    (24, {"players": 2}, 46, 3),
    (25, {"players": 2, "second_deal": False}, 10, 4),
    (26, {"players": 2, "deal_before_bid": True}, 0, 4),
]


def make_perft() -> None:
    out = []
    for seed, rules, plies, depth in PERFT_CASES:
        pos = start_after(seed, Rules.parse(rules), plies)
        counts = [perft(pos, d) for d in range(1, depth + 1)]
        out.append({"position": pos.to_dict(), "counts": counts})
        print(seed, rules, plies, counts)
    (HERE / "perft.json").write_text(json.dumps(out, indent=1) + "\n")


def make_records() -> None:
    for seed, rules in [
        (101, "standard"),
        (102, "family"),
        (103, "two_houses"),
        (104, "two_player"),
    ]:
        session = Session(rules, seed=seed)
        rng = random.Random(seed)
        while session.deals_finished < 3:
            if session.deal_over:
                session.start_next_deal()
            session.play(rng.choice(session.position.legal_codes()))
        path = HERE / "records" / f"match-{seed}-{rules}.json"
        path.write_text(json.dumps(session.to_record(), indent=1) + "\n")


def make_playthroughs() -> None:
    for seed, rules in [(201, "standard"), (202, "capture_rule=any"), (203, "two_player")]:
        spec: Any = rules if "=" not in rules else dict([rules.split("=")])
        pos = Position.new_deal(seed, 0, Rules.parse(spec))
        rng = random.Random(seed)
        lines = [f"# playthrough: seed {seed}, rules {rules}, dealer 0, random moves"]
        lines.append(format_position(pos))
        while not pos.is_over():
            moves = pos.legal_codes()
            lines.append(f"legal {len(moves)}")
            m = Move(rng.choice(moves))
            pos.push(m)
            lines.append(f"move {m}")
            lines.append(format_position(pos))
        (HERE / "playthroughs" / f"deal-{seed}.txt").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    make_perft()
    make_records()
    make_playthroughs()
