"""Typed errors of the Seep core.

Every error is a :class:`ValueError` so callers that only know the standard library can still
catch it; the message always names the problem (the card, the option, the rule).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # seep.verify imports this module; the type is only for annotations
    from .verify import Refusal

__all__ = [
    "BadRequestError",
    "IllegalMoveError",
    "InvalidPositionError",
    "InvalidRulesError",
    "MalformedMoveError",
    "NotationError",
    "SeepError",
    "TooManyMovesError",
]


class SeepError(ValueError):
    """Base class of every error raised by the Seep core."""


class BadRequestError(SeepError):
    """A request to the protocol with a bad field of its own (a seed, a seat, a dealer, the
    rules, a bot name), as opposed to a bad position or move."""


class NotationError(SeepError):
    """A card, move or position text (or JSON value) could not be parsed."""


class InvalidRulesError(SeepError):
    """An unknown rule option or a bad value for one."""


class InvalidPositionError(SeepError):
    """A position breaks the format or an invariant of the rules (cards, houses, turn...)."""


class IllegalMoveError(SeepError):
    """A move that is not legal in the position; the message says why.

    When the rules refuse the move (:func:`seep.verify.verify_move`, so
    :meth:`Position.play <seep.engine.Position.play>` and a session's ``verify`` / ``play``),
    :attr:`refusal` is the :class:`~seep.verify.Refusal` of :func:`seep.verify.check`: its
    ``rule`` (``"R16"``) and ``args`` (``{"bid": 13}``) let a caller word the reason in its own
    language or person; :attr:`rule` is that rule number. Both are ``None`` for a refusal
    that is no rule's (not this seat's turn, no next deal yet). The exception's own ``args``
    stay what they are for every exception: ``(message,)``.

    >>> from seep.engine import Position
    >>> pos = Position.new_deal(1)
    >>> pos.play("bid 13")["value"]
    13
    >>> try:
    ...     pos.play("6D")
    ... except IllegalMoveError as exc:
    ...     exc.rule, exc.refusal.args
    ('R16', {'bid': 13})
    """

    def __init__(self, message: str, refusal: Refusal | None = None) -> None:
        super().__init__(message)
        self.refusal = refusal

    def __reduce__(self) -> tuple[type[IllegalMoveError], tuple[str, Refusal | None]]:
        # The refusal crosses a process boundary too (the arena's workers, a pool of bots).
        return (type(self), (str(self), self.refusal))

    @property
    def rule(self) -> str | None:
        """The number of the rule the move breaks (docs/rules.md), ``None`` if no rule's."""
        return None if self.refusal is None else self.refusal.rule


class MalformedMoveError(IllegalMoveError):
    """A move that is not even well formed (missing field, unknown action, bad card)."""


class TooManyMovesError(SeepError):
    """A list of legal moves longer than the caller's limit (a huge floor can have millions).
    ``counts`` maps each card name of the mover's hand to its number of legal moves, so the
    caller can ask again card by card; ``total`` and ``limit`` say how far over it was."""

    def __init__(self, total: int, limit: int, counts: dict[str, int]) -> None:
        self.total = total
        self.limit = limit
        self.counts = counts
        super().__init__(
            f"{total} legal moves, more than the limit of {limit}: ask for the moves of one "
            "card at a time ('card'), or raise 'limit'"
        )
