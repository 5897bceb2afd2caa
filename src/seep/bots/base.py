"""The bot protocol and the random bot (the registry is :mod:`seep.bots.registry`)."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Protocol

from ..errors import SeepError
from ..moves import Move
from ..view import View

__all__ = ["Bot", "Decision", "RandomBot", "UnknownBotError"]


class UnknownBotError(SeepError):
    """No bot or difficulty of that name."""


@dataclass(frozen=True, slots=True)
class Decision:
    """A bot's move and a short reason for it (shown as a hint to players)."""

    move: Move
    reason: str


class Bot(Protocol):
    """Anything with a ``name`` that chooses a move for the seat of a view.

    ``choose`` is only called when it is the view's seat's turn; it must depend on nothing but
    the view and ``rng`` (and the bot's fixed settings).
    """

    name: str

    def choose(self, view: View, rng: random.Random) -> Decision: ...


class RandomBot:
    """A uniformly random legal move."""

    name = "random"

    def choose(self, view: View, rng: random.Random) -> Decision:
        moves = view.legal_codes()
        if not moves:
            raise SeepError(f"seat {view.seat} has no move to make (not his turn?)")
        return Decision(Move(rng.choice(moves)), f"a random choice among {len(moves)} moves")
