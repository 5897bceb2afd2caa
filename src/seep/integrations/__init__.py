"""Research interfaces: a fixed action space, feature encodings, and adapters for OpenSpiel,
PettingZoo and Gymnasium.

Nothing here is imported by :mod:`seep` itself. :mod:`.actions` uses only the standard library;
:mod:`.features` and :mod:`.dataset` (``seep dataset``'s records as arrays) need ``numpy``;
the adapters need their frameworks (the extras
``seep-game[openspiel]`` and ``seep-game[pettingzoo]``). See ``docs/actions.md`` and
``docs/research.md``.
"""

from __future__ import annotations

from .actions import NUM_ACTIONS, MoveBuilder, action_name, move_actions

__all__ = ["NUM_ACTIONS", "MoveBuilder", "action_name", "move_actions"]
