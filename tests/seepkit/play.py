"""Play for the tests: positions met in random deals, a deal played to its end, a heuristic
self-play deal."""

from __future__ import annotations

import random
from collections.abc import Mapping

from seep.bots.heuristic import HeuristicBot
from seep.engine import Position
from seep.options import Rules
from seep.session import Session
from seep.view import View

# Option sets under which random deals reach every kind of move (the pinned move order of
# tests/core/test_move_order.py and the draws of tests/core/test_random_code.py).
EVERY_MOVE_KIND: list[str | dict[str, object]] = [
    "standard",
    "two_player",
    {"capture_rule": "any"},
    {"absorb_loose_groups": "mandatory"},
    {"absorb_loose_groups": "never"},
    {"house_in_sums": True},
    {"throw_rule": "no_other_move"},
    {"throw_rule": "no_capture_possible"},
    {"allow_pair_build": True, "add_retention": "team"},
    {"partner_cement_free": True, "max_houses": 1},
]


def random_positions(
    count: int,
    seed: int,
    rules: Rules | str | Mapping[str, object] | None = None,
    *,
    phase: int | None = None,
) -> list[Position]:
    """The first ``count`` positions met in random deals (uniform among legal moves, dealt
    from ``seed``): every position of each deal, its end included; with ``phase`` (a
    ``seep.engine`` ``PHASE_*``) only those of that phase."""
    rng = random.Random(seed)
    parsed = Rules.parse(rules)
    out: list[Position] = []
    while len(out) < count:
        pos = Position.new_deal(rng.randrange(1 << 30), rng.randrange(4), parsed)
        while not pos.is_over():
            if phase is None or pos.phase_id == phase:
                out.append(pos.copy())
            pos.push(rng.choice(pos.legal_codes()))
        if phase is None:
            out.append(pos.copy())
    return out[:count]


def played(seed: int, plays: int, rules: str = "standard") -> Position:
    """Deal ``seed`` after ``plays`` random legal plays (the bid first)."""
    pos = Position.new_deal(seed, rules=rules)
    rng = random.Random(seed)
    while not pos.is_over() and (pos.phase == "bid" or pos.plays < plays):
        pos.push(rng.choice(pos.legal_codes()))
    return pos


def play_deal(s: Session, rng: random.Random) -> None:
    """Random legal moves to the end of the session's deal in play."""
    while not s.deal_over:
        s.play(rng.choice(s.position.legal_codes()))


def self_play(seed: int) -> list[tuple[Position, View]]:
    """Positions and the mover's view (with history) along a heuristic self-play deal."""
    rng = random.Random(seed)
    pos = Position.new_deal(seed, seed % 4)
    history: list[tuple[int, int]] = []
    out = []
    bot = HeuristicBot()
    while not pos.is_over():
        seat = pos.to_move
        assert seat is not None
        view = View.from_position(pos, seat, history)
        out.append((pos.copy(), view))
        code = int(bot.choose(view, rng).move)
        pos.push(code)
        history = [] if pos.phase == "bid" else [*history, (seat, code)]
    return out
