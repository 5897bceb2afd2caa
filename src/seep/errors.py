"""Typed errors of the Seep core.

Every error is a :class:`ValueError` so callers that only know the standard library can still
catch it; the message always names the problem (the card, the option, the rule).
"""

from __future__ import annotations

__all__ = [
    "BadRequestError",
    "IllegalMoveError",
    "InvalidPositionError",
    "InvalidRulesError",
    "MalformedMoveError",
    "NotationError",
    "SeepError",
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
    """A move that is not legal in the position; the message says why."""


class MalformedMoveError(IllegalMoveError):
    """A move that is not even well formed (missing field, unknown action, bad card)."""
