"""The arena tests' bots: a plugin module written to a folder at test time (tests/arena)."""

from __future__ import annotations

from pathlib import Path

# The test bots live in a plugin module written to a temporary folder at test time, not in
# tests/: a module there would be imported while pytest collects doctests, and its bots (one
# of them cheats) would be registered for every other test that lists the registered bots.
PLUGIN = "seep_arena_test_bots"
PLUGIN_SOURCE = '''\
"""Bots for the arena tests, registered on import (an arena plugin module).

* ``arena-spy-a`` / ``arena-spy-b``: random moves, and a log of every call (what the bot was
  shown, which seat, its RNG), to check seating and honesty;
* ``arena-cheat``: plays an illegal move at its first play (to check the arena refuses it);
* ``arena-first``: always the first legal move (a deterministic bot);
* ``arena-clock``: the same, but with a ``milliseconds`` budget like a timed search;
* ``arena-sulk``: refuses to play after the bid (a SeepError), or crashes with crash=true;
* ``arena-die``: kills its worker process (to check that a dead worker stops the run).
"""

from __future__ import annotations

import multiprocessing
import os
import random
from typing import Any

from seep.bots import Decision, register
from seep.codes import PHASE_PLAY, THROW, make_code
from seep.errors import SeepError
from seep.moves import Move
from seep.view import View

# (bot tag, seat, the object shown to the bot, first number drawn from its RNG)
CALLS: list[tuple[str, int, Any, float]] = []


class SpyBot:
    """A random bot that logs what it is shown."""

    def __init__(self, tag: str) -> None:
        self.name = f"arena-spy-{tag}"
        self.tag = tag

    def choose(self, view: View, rng: random.Random) -> Decision:
        # Draw from a copy so logging does not change the moves chosen.
        probe = random.Random()
        probe.setstate(rng.getstate())
        CALLS.append((self.tag, view.seat, view, probe.random()))
        return Decision(Move(rng.choice(view.legal_codes())), "spy")


class CheatBot:
    """Throws a card it does not hold at its first play (bids normally)."""

    name = "arena-cheat"

    def choose(self, view: View, rng: random.Random) -> Decision:
        if view.phase_id == PHASE_PLAY:
            foreign = next(c for c in range(52) if not view.hand >> c & 1)
            return Decision(Move(make_code(THROW, card=foreign)), "cheating")
        return Decision(Move(view.legal_codes()[0]), "bid")


class FirstBot:
    """The first legal move."""

    name = "arena-first"

    def choose(self, view: View, rng: random.Random) -> Decision:
        return Decision(Move(view.legal_codes()[0]), "first")


class ClockBot(FirstBot):
    """Looks like a search that stops on the clock (a ``milliseconds`` budget)."""

    name = "arena-clock"
    milliseconds = 5.0


class SulkBot:
    """Refuses to play (a SeepError) after the bid, or crashes (a bug) with ``crash=True``."""

    name = "arena-sulk"

    def __init__(self, crash: bool = False) -> None:
        self.crash = crash

    def choose(self, view: View, rng: random.Random) -> Decision:
        if view.phase_id == PHASE_PLAY:
            if self.crash:
                raise RuntimeError("sulk bot crashed")
            raise SeepError("sulk bot will not play")
        return Decision(Move(view.legal_codes()[0]), "bid")


class DieBot(FirstBot):
    """Kills its process at its first play, but only in a worker process (never pytest's)."""

    name = "arena-die"

    def choose(self, view: View, rng: random.Random) -> Decision:
        if view.phase_id == PHASE_PLAY and multiprocessing.parent_process() is not None:
            os._exit(3)
        return super().choose(view, rng)


register("arena-spy-a", lambda: SpyBot("a"))
register("arena-spy-b", lambda: SpyBot("b"))
register("arena-cheat", CheatBot)
register("arena-first", FirstBot)
register("arena-clock", ClockBot)
register("arena-sulk", SulkBot)
register("arena-die", DieBot)
'''


def write_plugin(directory: Path) -> Path:
    """Write the test bots' plugin module into ``directory``; returns the directory."""
    (directory / f"{PLUGIN}.py").write_text(PLUGIN_SOURCE, encoding="utf-8")
    return directory
