"""Seep (Sip, Sweep): the four-player Indian fishing card game (and its two-player variant,
rules ``two_player``).

The core: cards and card sets as ints (:mod:`seep.cards`), rule options (:mod:`seep.options`),
move codes (:mod:`seep.codes`), floor combinatorics (:mod:`seep.floor`), the one checker of a
move (:mod:`seep.verify`), positions with legal-move generation and push/pop
(:mod:`seep.engine`), scoring (:mod:`seep.scoring`) and the baazi (:mod:`seep.baazi`), moves
(:mod:`seep.moves`), the docs/format.md interchange (:mod:`seep.format`), text notation
(:mod:`seep.notation`), the dict protocol (:mod:`seep.protocol`), and SVG pictures of a table
(:mod:`seep.svg`; ``print(pos)`` draws it as text). Standard library only; docs/engine.md has
the module map.

>>> import seep
>>> pos = seep.Position.new_deal(seed=1)
>>> [str(m) for m in pos.legal_moves()]
['bid 10', 'bid 13']
>>> pos.play("bid 13")
{'action': 'bid', 'value': 13, 'seat': 1}
>>> pos.phase, pos.plays, pos.to_move
('play', 0, 1)
"""

from . import engine as _engine
from .cards import card_name, card_value, format_cards, parse_card, parse_cards
from .engine import Position
from .errors import (
    IllegalMoveError,
    InvalidPositionError,
    InvalidRulesError,
    MalformedMoveError,
    NotationError,
    SeepError,
)
from .moves import Move
from .options import PRESETS, Rules

__all__ = [
    "COMPILED",
    "PRESETS",
    "IllegalMoveError",
    "InvalidPositionError",
    "InvalidRulesError",
    "MalformedMoveError",
    "Move",
    "NotationError",
    "Position",
    "Rules",
    "SeepError",
    "card_name",
    "card_value",
    "format_cards",
    "parse_card",
    "parse_cards",
]

#: The version of the package: the one place it is written (pyproject.toml reads it from here
#: for the package metadata; ``seep --version``, the web app's footer and "Report position" use
#: it). CHANGELOG.md says what each version added.
__version__ = "0.2.0"

#: True when the core runs compiled by mypyc (an install on a machine with a C compiler and
#: without ``SEEP_PURE=1``), False for the pure-Python modules; the behaviour is the same.
COMPILED: bool = not (_engine.__file__ or "").endswith(".py")
