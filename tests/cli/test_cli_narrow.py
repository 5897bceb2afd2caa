"""The narrowing of a card's uses in ``seep play`` (seep.cli.narrow): every question keeps only
legal moves, every answer narrows, and every legal use can be reached."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("rich")

from seep.cards import parse_card
from seep.cli.names import card_name, in_card_names
from seep.cli.narrow import LIMIT, Step, describe_move, next_step
from seep.engine import Position
from seep.format import position_from_dict
from seep.moves import Move
from seep.notation import card_text as bot_card_text
from seep.notation import format_move, parse_move
from seep.notation import move_words as bot_describe
from seep.options import Rules
from seepkit.builders import make_position


def crowded() -> tuple[Position, list[Move]]:
    """A floor of nine low loose cards: 2S has over two hundred uses (R27, R31)."""
    pos = position_from_dict(
        make_position(
            ["2S", "9H", "TH", "JH", "QH", "KH", "3S"],
            mover=2,
            loose=["AD", "3D", "4D", "5D", "6D", "7D", "AC", "3C", "4C"],
        )
    )
    uses = [m for m in pos.legal_moves() if m.card == parse_card("2S")]
    return pos, uses


def walk_to(move: Move, moves: list[Move]) -> list[Step]:
    """Answer every question with the option that keeps ``move``; the steps asked."""
    steps = []
    current = moves
    while True:
        step = next_step(current)
        steps.append(step)
        assert step.options
        chosen = [o for o in step.options if move in o.moves]
        assert chosen, f"{format_move(move)} lost at a {step.kind} step"
        if step.kind == "move":
            assert chosen[0].moves == (move,)
            return steps
        assert len(chosen[0].moves) < len(current)  # every answer narrows
        current = list(chosen[0].moves)
        assert len(steps) < 60


def test_a_crowded_floor_is_narrowed_by_action_value_then_cards() -> None:
    _, uses = crowded()
    assert len(uses) > 200
    step = next_step(uses)
    assert step.kind == "action"
    assert [o.label.split()[0] for o in step.options] == ["capture", "build"]
    builds = next(o for o in step.options if o.label.startswith("build"))
    step = next_step(list(builds.moves))
    assert step.kind == "value"
    assert [o.label.split(" (")[0] for o in step.options] == [
        f"a house of {v}" for v in range(9, 14)
    ]
    # Action and value steps split the moves: each move in exactly one option.
    assert sorted(m for o in step.options for m in o.moves) == sorted(builds.moves)
    nine = step.options[0]
    step = next_step(list(nine.moves))
    assert step.kind == "card"
    assert step.question == "Which floor card should the move take?"
    for opt in step.options:
        card = parse_card(opt.label.split()[0])
        assert opt.moves and all(m.loose >> card & 1 for m in opt.moves)
        assert len(opt.moves) < len(nine.moves)
    chosen = step.options[0]
    taken = chosen.label.split()[0]
    step = next_step(list(chosen.moves))
    assert f"besides {taken}" in step.question
    assert all(not o.label.startswith(taken) for o in step.options)


def test_every_use_is_reachable_and_legal() -> None:
    pos, uses = crowded()
    for move in uses:
        steps = walk_to(move, uses)
        assert len(steps[-1].options) <= LIMIT
        assert pos.is_legal(move)


def test_few_uses_are_listed_at_once_with_notation_and_words() -> None:
    c = parse_card("9S")
    moves = [parse_move("9S"), parse_move("9S x 4H 5D"), parse_move("9S =13 4C")]
    step = next_step(moves)
    assert step.kind == "move"
    labels = [o.label for o in step.options]
    assert labels[0].startswith("9S x 4H 5D") and labels[0].endswith("capture 4H 5D")
    assert labels[1].endswith("build a house of 13 from 9S with 4C")
    assert labels[2].endswith("throw it onto the floor")
    assert all(o.moves[0].card == c for o in step.options)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("bid 11", "bid 11"),
        ("redeal", "show the hand and deal again (no card above 8)"),
        ("JS x H11 9C 2D", "capture house 11 + 2D 9C"),
        ("TS +10", "add TS to the house of 10"),
        ("3D +10 7H", "add 3D with 7H to the house of 10"),
        ("4D =13 9H", "build a house of 13 from 4D with 9H"),
        ("2H ^9=11", "break the house of 9 up to 11 with 2H"),
        # 3H breaks the house; QD, a loose card of the new value, merges into it (R29, E11).
        ("3H ^9=12 QD", "break the house of 9 up to 12 with 3H (QD joins it)"),
        ("AS ^10=11 4S 7C", "break the house of 10 up to 11 with AS (4S 7C join it)"),
    ],
)
def test_describe_move(text: str, words: str) -> None:
    assert describe_move(parse_move(text)) == words


def test_card_names_are_the_screens_in_hints_too() -> None:
    """The bots' words (suit symbols) are rewritten into the terminal's card names."""
    for card in range(52):
        assert in_card_names(f"takes {bot_card_text(card)}.") == f"takes {card_name(card)}."
        assert card_name(card) == format_move(Move.throw(card))  # as typed and as listed
    assert in_card_names("captures 10♦ and 5♠ with 5♥") == "captures TD and 5S with 5H"
    assert in_card_names("bids 10 (no card)") == "bids 10 (no card)"


def test_the_bots_and_the_terminal_name_the_same_breaker() -> None:
    """Every break, in the terminal's words and the bots' (R29): the card played breaks."""
    rng = random.Random(3)
    seen = 0
    for _ in range(40):
        pos = Position.new_deal(rng.randrange(1 << 30))
        while not pos.is_over():
            moves = pos.legal_moves()
            for m in moves:
                if m.action != "break" or m.loose.bit_count() > 1:
                    continue
                seen += 1
                ours = describe_move(m)
                theirs = in_card_names(bot_describe(int(m)))
                assert theirs == "breaks" + ours.removeprefix("break"), (ours, theirs)
                assert f"with {card_name(m.card or 0)}" in ours
            pos.push(rng.choice(moves))
    assert seen > 20


def test_no_moves_is_an_error() -> None:
    with pytest.raises(ValueError):
        next_step([])


def test_narrowing_on_random_positions() -> None:
    """Every card's uses in positions from random play (several option sets) narrow to each
    of its legal moves."""
    rng = random.Random(5)
    for rules in ("standard", "family", "two_houses"):
        pos = Position.new_deal(rng.randrange(1 << 30), rules=Rules.parse(rules))
        while not pos.is_over():
            moves = pos.legal_moves()
            cards = {m.card for m in moves}
            for card in cards:
                uses = [m for m in moves if m.card == card]
                for move in rng.sample(uses, min(3, len(uses))):
                    walk_to(move, uses)
            pos.push(rng.choice(moves))
