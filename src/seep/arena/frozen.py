"""The frozen bots (``name@1``): the difficulties as they were before issue 14, kept playing the
same moves so that the new bots are measured against them (``seep arena expert expert@1``).

They are measuring instruments, not players: the bot registry (:data:`seep.bots.BOTS`, the
difficulties), the web app and the terminal game never offer them; the arena, the benchmarks
and the tests make them with :func:`make_arena_bot`, which knows the arena's own bots (the
oracle, :mod:`seep.arena.oracle`) too. ``expert@1`` and ``hard@1`` run
:class:`seep.arena.ismcts_v1.IsmctsBotV1`, a verbatim copy of the search as it was then;
tests/bots/test_frozen_bots.py holds every frozen bot to the moves it made.

>>> make_arena_bot("hard@1").name
'ismcts@1'
"""

from __future__ import annotations

from typing import Any

from ..bots import BOTS, DIFFICULTIES, Bot, make_bot
from ..bots.base import UnknownBotError

__all__ = ["FROZEN", "make_arena_bot"]

#: Frozen bots by name: the bot they run (``ismcts@1``: :class:`~seep.arena.ismcts_v1.IsmctsBotV1`,
#: else a name of :data:`seep.bots.BOTS`) and its settings.
FROZEN: dict[str, tuple[str, dict[str, Any]]] = {
    "heuristic@1": ("heuristic", {}),
    "hard@1": ("ismcts@1", {"iterations": 300, "candidates": 3}),
    "expert@1": ("ismcts@1", {"iterations": 1500, "candidates": 3}),
}


def make_arena_bot(name: str, **settings: Any) -> Bot:
    """A bot by any name the arena plays: a frozen ``name@1`` bot, one of the arena's own
    (the oracle), or what :func:`seep.bots.make_bot` makes (raises
    :class:`~seep.bots.base.UnknownBotError` for a name none of them knows)."""
    from .oracle import ARENA_ONLY  # the oracle imports the search: only when asked

    if name in ARENA_ONLY:
        return ARENA_ONLY[name](**settings)
    if name in FROZEN:
        base, fixed = FROZEN[name]
        if base == "ismcts@1":
            from .ismcts_v1 import IsmctsBotV1  # the costly import, only when asked

            return IsmctsBotV1(**{**fixed, **settings})
        return make_bot(base, **{**fixed, **settings})
    try:
        return make_bot(name, **settings)
    except UnknownBotError:
        known = ", ".join([*BOTS, *DIFFICULTIES, *FROZEN])
        raise UnknownBotError(f"unknown bot {name!r} (known: {known})") from None
