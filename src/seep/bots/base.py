"""The bot protocol, the registry of bots and difficulty presets, and the random bot."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from ..errors import SeepError
from ..moves import Move
from ..view import View

__all__ = [
    "BOTS",
    "PRESETS",
    "Bot",
    "Decision",
    "RandomBot",
    "UnknownBotError",
    "make_bot",
    "register",
]


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


BOTS: dict[str, Callable[..., Bot]] = {"random": RandomBot}
# Difficulty presets: a bot name and its settings.
PRESETS: dict[str, tuple[str, dict[str, Any]]] = {}


def register(name: str, factory: Callable[..., Bot]) -> None:
    """Add a bot factory under ``name``."""
    BOTS[name] = factory


def make_bot(name: str, **settings: Any) -> Bot:
    """A bot by name (``random``, ``greedy``, ``heuristic``, ``ismcts``) or difficulty
    (``easy``, ``medium``, ``hard``, ``expert``), with optional settings."""
    _load_builtin()
    if name in PRESETS:
        base, preset = PRESETS[name]
        bot = BOTS[base](**{**preset, **settings})
        return bot
    factory = BOTS.get(name)
    if factory is None:
        known = ", ".join([*BOTS, *PRESETS])
        raise UnknownBotError(f"unknown bot {name!r} (known: {known})")
    return factory(**settings)


def _load_builtin() -> None:
    """Import the built-in bots (each registers itself) on first use."""
    from . import greedy, heuristic, ismcts  # noqa: F401
