"""The one way the terminal names a card: as it is typed and as docs/format.md writes it (``TH``).

The table, the move lists, the echo of a move and the hints all name cards through
:func:`card_name` (the core's :func:`seep.cards.card_name`, which the notation uses too).
The bots word their reasons for every interface with suit symbols (``10♥``, as
:func:`seep.notation.card_text` writes them, which suits the web page);
:func:`in_card_names` rewrites those words before the terminal shows them, so a hint names
``TH`` exactly as the screen and the notation do.

>>> from seep.cards import parse_card
>>> card_name(parse_card("TH"))
'TH'
>>> in_card_names("captures 10♦ and 5♠ with 5♥ for 11 points")
'captures TD and 5S with 5H for 11 points'
"""

from __future__ import annotations

import re

from ..cards import CARD_NAMES, card_name
from ..notation import card_text as _bot_card_text

__all__ = ["card_name", "in_card_names"]

# The bots' name of each card -> the terminal's, built from the bots' own function so the two
# cannot drift apart.
_FROM_BOTS = {_bot_card_text(c): card_name(c) for c in range(len(CARD_NAMES))}
_BOT_CARD = re.compile("|".join(map(re.escape, _FROM_BOTS)))


def in_card_names(text: str) -> str:
    """Words written by a bot (a hint's reason) with each card in the terminal's names."""
    return _BOT_CARD.sub(lambda m: _FROM_BOTS[m.group(0)], text)
