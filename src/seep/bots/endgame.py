"""An exact endgame solver: perfect-information alpha-beta search to the end of the deal.

Once the stock is dealt (R18) and only a few cards are left in the hands, a determinization
(:meth:`seep.view.View.determinize`) is a small game of perfect information: every hand is
known, every move is public, and the deal's score follows from the moves alone (card points,
R5; sweeps, R38; the leftovers to the last capturer, R40). :func:`solve` finds its exact
minimax value, team 0 maximising the deal score difference and team 1 minimising it (R42),
over every legal move (builds, cements and breaks included). :func:`solve_moves` scores each
of the mover's moves; the ISMCTS bot averages those scores over sampled determinizations
("perfect-information Monte Carlo") for its last plays, instead of searching them.

The search is alpha-beta with captures tried first and a table of positions already solved
(the same cards can be reached in several orders). A node budget bounds the work: when it is
spent the solver gives up (``None``) and the caller falls back to its search.

>>> from seep.engine import Position
>>> pos = Position.new_deal(3)
>>> while pos.phase == "bid" or hidden_cards(pos) > 4:
...     pos.push(pos.legal_codes()[0])
>>> value = solve(pos)
>>> value is not None and value == brute_force(pos)
True
"""

from __future__ import annotations

from typing import Final

from ..codes import CAPTURE, PHASE_OVER, SH_ACTION
from ..engine import Position

__all__ = ["DEFAULT_NODES", "brute_force", "hidden_cards", "solve", "solve_moves"]

#: Nodes a call of :func:`solve_moves` may visit before it gives up.
DEFAULT_NODES: Final = 20_000

_INF: Final = 1 << 20


def hidden_cards(pos: Position) -> int:
    """Cards still to be played: the four hands (and the stock, which must be empty for an
    exact solve to be cheap)."""
    return sum(h.bit_count() for h in pos.hands) + len(pos.stock)


class _Budget(Exception):
    """The node budget is spent."""


class _Solver:
    __slots__ = ("left", "table")

    def __init__(self, nodes: int) -> None:
        self.left = nodes
        self.table: dict[tuple[int, ...], int] = {}

    def value(self, pos: Position, alpha: int, beta: int) -> int:
        """The exact deal score difference (team 0 minus team 1) under best play, if it lies
        in ``(alpha, beta)``; otherwise a bound on the same side (fail-hard alpha-beta)."""
        if pos.phase_id == PHASE_OVER:
            s0, s1 = pos.deal_scores()
            return s0 - s1
        self.left -= 1
        if self.left < 0:
            raise _Budget
        # Everything the rest of the deal depends on: the hands, the floor, the piles and
        # sweeps, who captured last, and the play number (R38's last-play sweep).
        key = (
            *pos.hands,
            pos.loose,
            *(c | v << 52 | o << 60 | cem << 64 for v, c, cem, o in pos.houses()),
            pos.captured[0],
            pos.sweeps[0] - pos.sweeps[1],
            pos.last_capture,
            pos.plays,
            *pos.stock,  # empty in the endgames it is meant for
        )
        hit = self.table.get(key)
        if hit is not None:
            return hit
        maximise = pos.to_move is not None and pos.to_move & 1 == 0
        codes = sorted(pos.legal_codes(), key=lambda c: (c >> SH_ACTION & 7) != CAPTURE)
        best = -_INF if maximise else _INF
        a, b = alpha, beta
        for code in codes:
            pos.push(code)
            try:
                v = self.value(pos, a, b)
            finally:
                pos.pop()
            if maximise:
                if v > best:
                    best = v
                    a = max(a, v)
            elif v < best:
                best = v
                b = min(b, v)
            if a >= b:
                break
        if alpha < best < beta:  # an exact value: only those are stored
            self.table[key] = best
        return best


def solve(pos: Position, nodes: int = DEFAULT_NODES) -> int | None:
    """The exact deal score difference (team 0 minus team 1, R42) of a perfect-information
    position under best play by both teams, or ``None`` if ``nodes`` were not enough."""
    solver = _Solver(nodes)
    try:
        return solver.value(pos.copy(), -_INF, _INF)
    except _Budget:
        return None


def solve_moves(pos: Position, codes: list[int], nodes: int = DEFAULT_NODES) -> list[int] | None:
    """The exact value (team 0 minus team 1) of each move of ``codes`` in ``pos``, or ``None``
    if ``nodes`` were not enough. One table serves all the moves."""
    solver = _Solver(nodes)
    work = pos.copy()
    out = []
    try:
        for code in codes:
            work.push(code)
            try:
                out.append(solver.value(work, -_INF, _INF))
            finally:
                work.pop()
    except _Budget:
        return None
    return out


def brute_force(pos: Position) -> int:
    """Plain minimax with no pruning and no table (a test oracle for :func:`solve`)."""
    if pos.phase_id == PHASE_OVER:
        s0, s1 = pos.deal_scores()
        return s0 - s1
    values = []
    for code in pos.legal_codes():
        pos.push(code)
        values.append(brute_force(pos))
        pos.pop()
    assert pos.to_move is not None
    return max(values) if pos.to_move & 1 == 0 else min(values)
