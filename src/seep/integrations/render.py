"""What the environments' ``render()`` gives for ``render_mode`` "ansi" and "human"."""

from __future__ import annotations

from collections.abc import Sequence

from ..engine import Position
from ..moves import Move
from ..notation import format_position, seat_names

__all__ = ["env_render", "render_text"]


def render_text(position: Position, history: Sequence[tuple[int, int]]) -> str:
    """The position in the notation of docs/notation.md, and the last move of the deal (its
    seat by compass letter, as every interface names it, and by number, as the agents do)."""
    text = format_position(position)
    if history:
        seat, code = history[-1]
        name = seat_names(position.rules.players)[seat]
        text += f"\nlast move: {name} (seat {seat}) {Move(code)}"
    return text


def env_render(
    mode: str | None, position: Position, history: Sequence[tuple[int, int]]
) -> str | None:
    """``render()`` of an environment in ``mode``: the text ("ansi"), printed ("human"), or
    nothing (``None``)."""
    if mode is None:
        return None
    text = render_text(position, history)
    if mode == "human":
        print(text)
        return None
    return text
