"""The protocol: the engine over docs/format.md dicts, for programs outside the project.

Exactly these functions; each takes and returns plain JSON-able dicts and never mutates its
input. ``python -m seep protocol`` serves them over JSON lines (:mod:`seep.protocol_server`).

>>> pos = new_deal(seed=1, dealer=0)
>>> pos["phase"], pos["to_move"], len(pos["hands"][1])
('bid', 1, 4)
>>> moves = legal(pos)
>>> after = apply(pos, moves[0])
>>> after["phase"] in ("play", "bid")
True
"""

from __future__ import annotations

from typing import Any

from .engine import PHASE_OVER, Position
from .errors import IllegalMoveError, InvalidPositionError, InvalidRulesError
from .format import position_from_dict
from .moves import Move
from .options import Rules
from .verify import verify_move

__all__ = ["apply", "legal", "new_deal", "next_deal", "score", "view"]


def _seed(seed: Any) -> int:
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise InvalidPositionError(f"'seed' must be an integer, got {seed!r}")
    return seed


def new_deal(
    seed: int, dealer: int = 0, rules: str | dict[str, Any] = "standard"
) -> dict[str, Any]:
    """A ``bid``-phase position dealt from a shuffle seeded by ``seed`` (R11-R12)."""
    if not isinstance(dealer, int) or isinstance(dealer, bool) or not 0 <= dealer <= 3:
        raise InvalidPositionError(f"'dealer' must be a seat 0..3, got {dealer!r}")
    try:
        parsed = Rules.parse(rules)
    except InvalidRulesError as exc:
        raise InvalidPositionError(f"rules: {exc}") from None
    return Position.new_deal(_seed(seed), dealer, parsed).to_dict()


def legal(position: dict[str, Any]) -> list[dict[str, Any]]:
    """The legal moves of the seat to move (``[]`` once the deal is over)."""
    pos = position_from_dict(position)
    return [Move(c).to_dict() for c in pos.legal_codes()]


def apply(position: dict[str, Any], move: dict[str, Any]) -> dict[str, Any]:
    """The position after ``move``. An illegal move raises :class:`IllegalMoveError` (a
    ``ValueError``) whose message says why; a malformed one :class:`MalformedMoveError`."""
    pos = position_from_dict(position)
    code = Move.from_dict(move)
    verify_move(pos, code)
    pos.push(code)
    return pos.to_dict()


def score(position: dict[str, Any]) -> dict[str, Any]:
    """Scores of a finished deal (R42): per team ``points`` (card points), ``bonus`` (the
    majority bonus, 0 under the standard rules), ``sweeps`` and ``score`` (their sum)."""
    pos = position_from_dict(position)
    if pos.phase_id != PHASE_OVER:
        raise IllegalMoveError(f"the deal is not over ({pos.plays} of 48 plays made): no score yet")
    points = pos.card_points()
    bonus = pos.majority_bonus()
    return {
        "points": list(points),
        "bonus": list(bonus),
        "sweeps": list(pos.sweeps),
        "score": list(pos.deal_scores()),
    }


def next_deal(position: dict[str, Any], seed: int) -> dict[str, Any]:
    """From a finished deal: the next deal's ``bid``-phase position with ``match`` updated
    (R44-R46) and the next dealer chosen (R9, R10, option ``dealer_rule``)."""
    pos = position_from_dict(position)
    return pos.next_deal(_seed(seed)).to_dict()


def view(position: dict[str, Any], seat: int) -> dict[str, Any]:
    """The docs/format.md view of ``seat``: what that seat knows of the position (its own hand, the
    floor, hand sizes, piles, scores; no other hand, no stock). A bare position has no
    history, so ``history`` is ``[]``."""
    from .view import View

    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat <= 3:
        raise InvalidPositionError(f"'seat' must be 0..3, got {seat!r}")
    return View.from_position(position_from_dict(position), seat).to_dict()
