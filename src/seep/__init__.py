"""Seep (Sip, Sweep): the four-player Indian fishing card game.

The core: cards and card sets as ints (:mod:`seep.cards`), rule options (:mod:`seep.options`),
positions with legal-move generation and push/pop (:mod:`seep.engine`), moves
(:mod:`seep.moves`), the docs/format.md interchange (:mod:`seep.format`), text notation
(:mod:`seep.notation`), the dict protocol (:mod:`seep.protocol`). Standard library only.

>>> import seep
>>> pos = seep.Position.new_deal(seed=1)
>>> [str(m) for m in pos.legal_moves()]
['bid 10', 'bid 13']
>>> pos.play("bid 13")
{'action': 'bid', 'value': 13, 'seat': 1}
>>> pos.phase, pos.plays, pos.to_move
('play', 0, 1)
"""

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

__version__ = "0.1.0"
