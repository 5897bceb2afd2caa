"""Bots: every bot chooses a move from a :class:`~seep.view.View` and its own seeded RNG.

A bot never sees a position, only the information set of its seat, so it cannot use hidden
cards (the honesty test in tests/bots/test_bot_honesty.py checks that its choice does not change
when the hidden cards do). :func:`make_bot` builds a bot by name or difficulty:

========== ==========================================================================
name       what it is
========== ==========================================================================
random     a uniformly random legal move
greedy     the best immediate points and sweeps, avoiding leaving a sweep
heuristic  card counting, house strategy with the partner, sweep defence, bid choice
ismcts     information-set Monte Carlo tree search over determinizations of the view
easy       greedy
medium     heuristic
hard       ismcts with a small budget
expert     ismcts with a budget of under a second per move
========== ==========================================================================

>>> import random
>>> from seep.engine import Position
>>> from seep.view import View
>>> pos = Position.new_deal(1)
>>> bot = make_bot("random")
>>> d = bot.choose(View.from_position(pos, pos.bidder), random.Random(0))
>>> d.move.action, bool(d.reason)
('bid', True)
"""

from __future__ import annotations

from .base import Bot, Decision, UnknownBotError
from .registry import BOTS, DIFFICULTIES, make_bot, register

__all__ = ["BOTS", "DIFFICULTIES", "Bot", "Decision", "UnknownBotError", "make_bot", "register"]
