"""Narrowing a card's uses step by step, so that a crowded floor stays playable.

On a big floor one card can have hundreds of legal uses. Instead of a list that does not fit on
the screen, :func:`next_step` offers one question at a time: first the kind of move (capture,
build, ...), then the value (the house made, raised or taken), then a floor card the move must
include, until few enough moves are left to list them one by one. Every option is a subset of
the engine's legal moves, so the narrowing can never offer an illegal move.

>>> from seep.cards import parse_card, parse_cards
>>> from seep.moves import Move
>>> c = parse_card("9S")
>>> moves = [Move.throw(c), Move.capture(c, parse_cards("4H 5D"))]
>>> moves.append(Move.capture(c, parse_cards("9H")))
>>> step = next_step(moves, limit=2)
>>> step.kind, [o.label for o in step.options]
('action', ['capture (2 ways)', 'throw (1 way)'])
>>> next_step(step.options[0].moves, limit=2).kind
'move'
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass

from ..cards import cards_of_mask, format_cards
from ..moves import Move
from ..notation import format_move, move_words
from .names import card_name

__all__ = ["LIMIT", "Option", "Step", "describe_move", "next_step"]

# Enough to read at a glance and to fit a terminal; more uses than this are narrowed first.
LIMIT = 9

# The order in which actions are offered: the common ones first.
_ACTION_ORDER = ("capture", "build", "cement", "break", "throw", "bid", "redeal")


@dataclass(frozen=True)
class Option:
    """One numbered choice: a label and the legal moves it keeps."""

    label: str
    moves: tuple[Move, ...]


@dataclass(frozen=True)
class Step:
    """One question: ``kind`` is ``"move"`` (each option is a single move), ``"action"``,
    ``"value"`` or ``"card"`` (keep the moves that take a given floor card)."""

    kind: str
    question: str
    options: tuple[Option, ...]


def describe_move(move: Move) -> str:
    """A move in words, for the numbered list of one card's uses (the notation is shown beside
    it): :func:`seep.notation.move_words` in the imperative with the terminal's card names,
    except that a throw and a capture leave out the card, which the list is about."""
    action = move.action
    if action == "redeal":
        return "show the hand and deal again (no card above 8)"
    if action == "throw":
        return "throw it onto the floor"
    if action == "capture":
        items = [f"house {v}" for v in move.houses]
        if move.loose:
            items.append(" ".join(card_name(c) for c in cards_of_mask(move.loose)))
        return "capture " + " + ".join(items)
    return move_words(move, "imperative", card_name, format_cards)


def _move_label(move: Move) -> str:
    """The notation (what a player may type next time) and the move in words."""
    text, words = format_move(move), describe_move(move)
    return text if text == words else f"{text:<24} {words}"


def _ways(n: int) -> str:
    return "1 way" if n == 1 else f"{n} ways"


def _value_key(move: Move) -> tuple[int, ...]:
    """What a move does to the houses: the value built, cemented or raised (with the old value
    for a break), or the houses a capture takes."""
    if move.action == "capture":
        return move.houses
    if move.action == "break":
        return (move.house or 0, move.value or 0)
    return (move.value or 0,) if move.value is not None else ()


def _value_label(action: str, key: tuple[int, ...]) -> str:
    if action == "capture":
        return "with house " + " and ".join(map(str, key)) if key else "loose cards only"
    if action == "break":
        return f"house {key[0]} up to {key[1]}"
    if action == "build":
        return f"a house of {key[0]}"
    if action == "cement":
        return f"onto the house of {key[0]}"
    return str(key)


def _group(
    moves: Sequence[Move], key: Callable[[Move], Hashable]
) -> dict[Hashable, tuple[Move, ...]]:
    groups: dict[Hashable, list[Move]] = {}
    for m in moves:
        groups.setdefault(key(m), []).append(m)
    return {k: tuple(v) for k, v in groups.items()}


def next_step(moves: Sequence[Move], limit: int = LIMIT) -> Step:
    """The next question to ask about ``moves`` (the remaining legal uses of one card, or all
    the moves of the bid phase). Each option keeps fewer moves than ``moves`` unless the step's
    kind is ``"move"``, so repeated narrowing always ends in a list of single moves."""
    if not moves:
        raise ValueError("no moves to choose from")
    if len(moves) <= limit:
        ordered = sorted(moves, key=lambda m: (_ACTION_ORDER.index(m.action), format_move(m)))
        return Step(
            "move",
            "Which move?",
            tuple(Option(_move_label(m), (m,)) for m in ordered),
        )
    by_action = _group(moves, lambda m: m.action)
    if len(by_action) > 1:
        opts = [
            Option(f"{a} ({_ways(len(ms))})", ms)
            for a, ms in by_action.items()
            if isinstance(a, str)
        ]
        opts.sort(key=lambda o: _ACTION_ORDER.index(o.label.split()[0]))
        return Step("action", "Which kind of move?", tuple(opts))
    action = moves[0].action
    by_value = _group(moves, _value_key)
    if len(by_value) > 1:
        opts = []
        for key in sorted(by_value, key=lambda k: k if isinstance(k, tuple) else ()):
            assert isinstance(key, tuple)
            ms = by_value[key]
            opts.append(Option(f"{_value_label(action, key)} ({_ways(len(ms))})", ms))
        return Step("value", "Which house value?", tuple(opts))
    # Same action and value: the moves differ only in the loose cards they take. Offer each
    # floor card that some but not all of them take, so every choice really narrows.
    union = 0
    common = -1
    for m in moves:
        union |= m.loose
        common &= m.loose
    opts = []
    for c in cards_of_mask(union & ~common):
        ms = tuple(m for m in moves if m.loose >> c & 1)
        opts.append(Option(f"{card_name(c)} ({_ways(len(ms))})", ms))
    exact = tuple(m for m in moves if m.loose == common)
    if exact:  # the move that takes just the cards already chosen has no card to pick
        label = "no other floor card" if common else "no floor card"
        opts.append(Option(f"{label} ({_ways(len(exact))})", exact))
    question = "Which floor card should the move take"
    if common:
        question += " besides " + " ".join(card_name(c) for c in cards_of_mask(common))
    return Step("card", question + "?", tuple(opts))
