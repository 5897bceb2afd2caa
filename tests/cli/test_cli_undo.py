"""``seep play --practice``: undo reaches back into the deal before, through the session
(driven in-process, without a terminal)."""

from __future__ import annotations

import io

import pytest

pytest.importorskip("rich")

from rich.console import Console

from seep.cli.play import Game, Settings
from seep.notation import format_move


class Stop(Exception):
    """The test has seen what it wanted."""


def test_undo_at_the_start_of_a_deal_goes_back_into_the_last_one() -> None:
    out = io.StringIO()
    game = Game(
        Settings(seed=5, bots="easy", deals=2, practice=True, delay=0.0),
        Console(file=out, width=160),
    )
    s = game.session
    seen: dict[str, object] = {}

    def ask(prompt: str) -> str:
        if "next deal" in prompt:
            return ""
        if s.deal_number == 2 and "undone" not in seen:
            seen["undone"] = True
            seen["before"] = s.moves_made
            return "u"
        if "undone" in seen:
            seen["deal"] = s.deal_number
            seen["to_move"] = s.to_move
            seen["after"] = s.moves_made
            raise Stop
        return format_move(s.position.legal_codes()[0])

    game.ask_fn = ask
    with pytest.raises(Stop):
        game.run()
    text = out.getvalue()
    assert "Deal 1 is over." in text and "Took back your" in text
    assert seen["to_move"] == game.you
    # Seed 5: the second deal's bidder is not South, so the player's last move was in deal 1.
    assert "(back in deal 1)" in text and seen["deal"] == 1
    assert isinstance(seen["after"], int) and isinstance(seen["before"], int)
    assert seen["after"] < seen["before"]
