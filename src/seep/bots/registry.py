"""The registry of bots by name, the difficulties, and :func:`make_bot`. The frozen
``name@1`` bots that the new ones are measured against are the arena's
(:mod:`seep.arena.frozen`), not the registry's.

The built-in bots are imported on the first :func:`make_bot` call (they are the costly part of
importing :mod:`seep.bots`); they import :mod:`seep.bots.base`, never this module, so the
registry and the bots form no import cycle.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .base import Bot, RandomBot, UnknownBotError

__all__ = ["BOTS", "DIFFICULTIES", "make_bot", "register"]

#: Bot factories by name; :func:`register` adds more (an arena plugin, an example).
BOTS: dict[str, Callable[..., Bot]] = {"random": RandomBot}
#: The search settings of ``hard`` and ``expert`` (docs/strength.md): the heuristic's three
#: best plays, playouts cut after 8 plies and scored by the learned value network, the hidden
#: cards dealt by how well they explain the other seats' choices (``particles``, each owner's
#: duty card first), and the last 8 cards solved exactly.
_SEARCH: dict[str, Any] = {
    "candidates": 3,
    "horizon": 8,
    "value": "net",
    "duty_first": True,
    "endgame": 8,
}
#: Difficulties: a bot name and its settings ("preset" alone means a rules preset,
#: :data:`seep.options.PRESETS`). Budgets in playouts and in ``work`` (legal moves looked at),
#: not milliseconds, so that a difficulty plays the same moves from the same seed on any
#: machine and under any load (the arena's figures reproduce exactly); on one core of the
#: reference machine ``hard`` and ``expert`` take at most 0.1 s and 1 s per move
#: (``python bench/move_cost.py hard --deals 6 --every 1 --repeat 3 --limit 100``, and
#: ``expert --deals 2 --every 1 --repeat 3 --limit 1000``).
DIFFICULTIES: dict[str, tuple[str, dict[str, Any]]] = {
    "easy": ("greedy", {}),
    "medium": ("heuristic", {}),
    "hard": ("ismcts", {"iterations": 1600, **_SEARCH, "particles": 32, "work": 48000}),
    "expert": (
        "ismcts",
        {"iterations": 16000, **_SEARCH, "particles": 64, "endgame_samples": 48, "work": 640000},
    ),
}


def register(name: str, factory: Callable[..., Bot]) -> None:
    """Add a bot factory under ``name``."""
    BOTS[name] = factory


def make_bot(name: str, **settings: Any) -> Bot:
    """A bot by name (``random``, ``greedy``, ``heuristic``, ``ismcts``, ``policy``,
    ``learned``) or difficulty
    (``easy``, ``medium``, ``hard``, ``expert``), with optional settings."""
    _load_builtin()
    if name in DIFFICULTIES:
        base, fixed = DIFFICULTIES[name]
        return BOTS[base](**{**fixed, **settings})
    factory = BOTS.get(name)
    if factory is None:
        known = ", ".join([*BOTS, *DIFFICULTIES])
        raise UnknownBotError(f"unknown bot {name!r} (known: {known})")
    return factory(**settings)


def _load_builtin() -> None:
    """Import and register the built-in bots (a look-up in ``sys.modules`` after the first
    call); a bot registered under one of their names keeps its place."""
    from .greedy import GreedyBot
    from .heuristic import HeuristicBot
    from .ismcts import IsmctsBot
    from .learned import LearnedBot
    from .policy import PolicyBot

    BOTS.setdefault("greedy", GreedyBot)
    BOTS.setdefault("heuristic", HeuristicBot)
    BOTS.setdefault("ismcts", IsmctsBot)
    BOTS.setdefault("policy", PolicyBot)
    BOTS.setdefault("learned", LearnedBot)
