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

from .cards import CARD_NAMES, parse_card
from .engine import Position
from .errors import BadRequestError, InvalidRulesError, NotationError, TooManyMovesError
from .format import position_from_dict
from .moves import Move
from .options import Rules
from .scoring import deal_result
from .verify import verify_move
from .view import View

__all__ = ["apply", "legal", "new_deal", "next_deal", "score", "view"]


def _seed(seed: Any) -> int:
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise BadRequestError(f"'seed' must be an integer, got {seed!r}")
    return seed


def new_deal(
    seed: int, dealer: int = 0, rules: str | dict[str, Any] = "standard"
) -> dict[str, Any]:
    """A ``bid``-phase position dealt from a shuffle seeded by ``seed`` (R11-R12)."""
    try:
        parsed = Rules.parse(rules)
    except InvalidRulesError as exc:
        raise BadRequestError(f"rules: {exc}") from None
    n = parsed.players
    if not isinstance(dealer, int) or isinstance(dealer, bool) or not 0 <= dealer < n:
        raise BadRequestError(f"'dealer' must be a seat 0..{n - 1}, got {dealer!r}")
    return Position.new_deal(_seed(seed), dealer, parsed).to_dict()


#: The longest list :func:`legal` answers unless asked for more.
DEFAULT_LIMIT = 10_000
_MAX_LIMIT = 1_000_000


def legal(
    position: dict[str, Any], limit: int = DEFAULT_LIMIT, card: str | None = None
) -> list[dict[str, Any]]:
    """The legal moves of the seat to move (``[]`` once the deal is over), only those playing
    ``card`` (a card name such as ``"KH"``) when given.

    A floor of many loose cards can have millions of legal moves; they are counted first
    (:mod:`seep.counting`, milliseconds), and a list longer than ``limit`` (default 10,000, at
    most 1,000,000) is refused with :class:`~seep.errors.TooManyMovesError`, which carries the
    number of moves of each card: ask again with ``card``. The policy is the position's
    (:meth:`seep.engine.LegalMoves.within`); in the bid phase the bids are always listed.
    """
    if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= _MAX_LIMIT:
        raise BadRequestError(f"'limit' must be an integer 1..{_MAX_LIMIT}, got {limit!r}")
    wanted = -1
    if card is not None:
        if not isinstance(card, str):
            raise BadRequestError(f"'card' must be a card name such as 'KH', got {card!r}")
        try:
            wanted = parse_card(card, strict=True)
        except NotationError as exc:
            raise BadRequestError(f"card: {exc}") from None
    moves = position_from_dict(position).legal
    codes = moves.within(limit, None if card is None else wanted)
    if codes is None:
        counts = moves.by_card()
        total = counts.get(wanted, 0) if card is not None else sum(counts.values())
        raise TooManyMovesError(total, limit, {CARD_NAMES[c]: n for c, n in counts.items()})
    return [Move(c).to_dict() for c in codes]


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
    return deal_result(position_from_dict(position))


def next_deal(position: dict[str, Any], seed: int) -> dict[str, Any]:
    """From a finished deal: the next deal's ``bid``-phase position with ``match`` updated
    (R44-R46) and the next dealer chosen (R9, R10, option ``dealer_rule``)."""
    pos = position_from_dict(position)
    return pos.next_deal(_seed(seed)).to_dict()


def view(position: dict[str, Any], seat: int) -> dict[str, Any]:
    """The docs/format.md view of ``seat``: what that seat knows of the position (its own hand, the
    floor, hand sizes, piles, scores; no other hand, no stock). A bare position has no
    history, so ``history`` is ``[]``."""
    pos = position_from_dict(position)
    n = pos.rules.players
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < n:
        raise BadRequestError(f"'seat' must be 0..{n - 1}, got {seat!r}")
    return View.from_position(pos, seat).to_dict()
