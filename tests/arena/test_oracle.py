"""The oracle (seep.arena.oracle) sees every card: it plays in the arena only, never offered."""

from __future__ import annotations

import pytest

from seep.arena import run_match
from seep.arena.frozen import FROZEN
from seep.bots import BOTS, DIFFICULTIES, make_bot
from seep.bots.base import UnknownBotError


def test_the_oracle_is_not_offered_to_players() -> None:
    make_bot("random")  # loads the built-in bots
    assert "oracle" not in BOTS and "oracle" not in DIFFICULTIES and "oracle" not in FROZEN
    with pytest.raises(UnknownBotError):
        make_bot("oracle")


def test_the_oracle_plays_in_the_arena() -> None:
    result = run_match("oracle:iterations=10", "random", deals=2, seed=3)
    assert result.deals == 2
