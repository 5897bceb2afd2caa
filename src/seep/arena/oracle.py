"""The oracle: a bot that sees every card, for measuring the headroom only.

It is the ISMCTS bot searching the one true position instead of determinizations of its view
(and solving the endgame exactly on it): what the same search would reach if inference were
perfect. It cheats by construction, so it lives in the arena alone: it is not in the bot
registry (:data:`seep.bots.BOTS`), the difficulties, the web app or the terminal game. The
arena hands it the full position (``sees_all``); every other bot gets only its view.

    seep arena oracle expert --deals 100 --seed 61
"""

from __future__ import annotations

import random
from typing import Any

from ..bots.base import Decision
from ..bots.ismcts import IsmctsBot
from ..codes import PHASE_PLAY
from ..engine import Position
from ..moves import Move
from ..view import View

__all__ = ["ARENA_ONLY", "OracleBot"]


class OracleBot:
    """ISMCTS on the true position (settings as :class:`~seep.bots.ismcts.IsmctsBot`;
    default the ``expert`` preset's search, which needs no inference here)."""

    name = "oracle"
    sees_all = True

    def __init__(self, **settings: Any) -> None:
        preset = {
            "iterations": 3000,
            "candidates": 3,
            "horizon": 8,
            "value": "net",
            "endgame": 8,
            "endgame_samples": 1,  # one deal: the true one
        }
        self.search = IsmctsBot(**{**preset, **settings})

    def choose(self, view: View, rng: random.Random) -> Decision:  # pragma: no cover
        raise RuntimeError("the oracle plays only in the arena, which shows it every card")

    def choose_seeing(self, pos: Position, view: View, rng: random.Random) -> Decision:
        """The move for the seat to move, searching the true position ``pos``."""
        bot = self.search
        codes = sorted(view.legal_codes())
        if len(codes) == 1:
            return Decision(Move(codes[0]), "the only legal move")

        def deal(_: random.Random) -> Position:
            return pos.copy()

        if bot.endgame and view.phase_id == PHASE_PLAY and view.stock_size == 0:
            if sum(view.hand_sizes) <= bot.endgame:
                solved = bot.solve_endgame(view, rng, codes, deal)
                if solved is not None:
                    return Decision(Move(solved[0]), "solved exactly, seeing every card")
        if bot.candidates and view.phase_id == PHASE_PLAY and len(codes) > bot.candidates:
            codes = bot.shortlist(view, codes)
        found = bot.search(view, rng, codes, deal)
        return Decision(Move(found.move), "searched the true position")


#: Bots the arena builds itself (never offered to players).
ARENA_ONLY: dict[str, type[OracleBot]] = {"oracle": OracleBot}
