"""The sub-decision action space reaches every legal move exactly once and nothing else."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from seep.engine import Position
from seep.integrations.actions import (
    DONE,
    ITEM0,
    NUM_ACTIONS,
    STAGE_ITEMS,
    MoveBuilder,
    action_name,
    first_action,
    move_actions,
)
from seep.options import Rules

RULE_SETS = [
    Rules(),
    Rules(capture_rule="any"),
    Rules(absorb_loose_groups="mandatory"),
    Rules(house_in_sums=True, allow_pair_build=True),
    Rules(throw_rule="always", absorb_loose_groups="never"),
    Rules(add_retention="team", partner_cement_free=False, deal_before_bid=True),
]


def positions(rules: Rules, deals: int, seed: int) -> Iterator[Position]:
    """Every position of ``deals`` random deals (bid phase included)."""
    rng = random.Random(seed)
    for _ in range(deals):
        pos = Position.new_deal(rng.getrandbits(32), rng.randrange(4), rules)
        while not pos.is_over():
            yield pos
            pos.advance(rng.choice(pos.legal_codes()))


def enumerate_paths(builder: MoveBuilder) -> Iterator[tuple[list[int], int]]:
    """Every action path from ``builder`` with the move it commits."""
    for a in builder.legal_actions():
        b = builder.copy()
        code = b.apply(a)
        if code is not None:
            yield [a], code
        else:
            for rest, c in enumerate_paths(b):
                yield [a, *rest], c


@pytest.mark.parametrize("index", range(len(RULE_SETS)))
def test_paths_are_exactly_the_legal_moves(index: int) -> None:
    n = 0
    for pos in positions(RULE_SETS[index], deals=4, seed=index):
        legal = pos.legal_codes()
        paths = list(enumerate_paths(MoveBuilder(legal)))
        codes = [c for _, c in paths]
        assert len(codes) == len(set(codes)) == len(legal)  # a bijection
        assert set(codes) == set(legal)
        for path, code in paths:
            assert all(0 <= a < NUM_ACTIONS for a in path)
            assert move_actions(code, legal) == path
            assert pos.is_legal(code)
        n += 1
    assert n > 150


def test_masks_and_legal_actions_agree() -> None:
    for pos in positions(Rules(), deals=2, seed=5):
        b = MoveBuilder(pos.legal_codes())
        rng = random.Random(pos.plays)
        while True:
            acts = b.legal_actions()
            assert acts and acts == sorted(set(acts))
            assert b.mask() == sum(1 << a for a in acts)
            code = b.apply(rng.choice(acts))
            if code is not None:
                assert code in pos.legal_codes()
                break


def test_items_ascend_and_done_only_when_complete() -> None:
    for pos in positions(Rules(capture_rule="any"), deals=3, seed=9):
        for path, code in enumerate_paths(MoveBuilder(pos.legal_codes())):
            items = [a - ITEM0 for a in path if ITEM0 <= a < DONE]
            assert items == sorted(items)
            if path[-1] == DONE:
                assert sum(1 << i for i in items) == code & ((1 << 57) - 1)


def test_illegal_action_is_refused_with_reason() -> None:
    pos = Position.new_deal(seed=1)
    b = MoveBuilder(pos.legal_codes())
    with pytest.raises(ValueError, match="not allowed"):
        b.apply(0)
    assert b.stage == 0 and b.chosen_first() is None


def test_chosen_state_is_reported() -> None:
    rng = random.Random(3)
    seen_items = False
    for pos in positions(Rules(capture_rule="any"), deals=3, seed=4):
        b = MoveBuilder(pos.legal_codes())
        while True:
            a = rng.choice(b.legal_actions())
            before = b.stage
            if b.apply(a) is not None:
                break
            if before == 0:
                assert b.chosen_first() == a
            if b.stage == STAGE_ITEMS and b.chosen_items():
                seen_items = True
    assert seen_items


def test_action_names() -> None:
    assert action_name(0) == "card AS"
    assert action_name(56) == "bid 13"
    assert action_name(57) == "redeal"
    assert action_name(60) == "build 9"
    assert action_name(131) == "take house 13"
    assert action_name(DONE) == "done"
    with pytest.raises(ValueError):
        action_name(NUM_ACTIONS)


def test_first_choice_fast_paths_agree_with_the_grouping() -> None:
    """mask(), legal_actions() and apply() answer the first choice without grouping the
    candidates (options()); both ways give the same, bids and redeals included."""
    rules = Rules(add_retention="team", deal_before_bid=True)
    for pos in positions(rules, deals=2, seed=9):
        legal = pos.legal_codes()
        opts = MoveBuilder(legal).options()
        fast = MoveBuilder(legal)
        assert fast.mask() == sum(1 << a for a in opts)
        assert fast.legal_actions() == sorted(opts)
        for a, moves in opts.items():
            b = MoveBuilder(legal)
            code = b.apply(a)
            assert (b.cands == moves) and (code == (moves[0] if len(moves) == 1 else None))
        missing = next(a for a in range(NUM_ACTIONS) if a not in opts)
        with pytest.raises(ValueError, match="not allowed"):
            MoveBuilder(legal).apply(missing)
    # the forced redeal (R14) is a first choice too
    redeal = MoveBuilder([6 << 63])
    assert redeal.legal_actions() == [57] and redeal.apply(57) == 6 << 63


def test_random_below_is_randrange() -> None:
    """The draw of the inline random bots and of a game's dealer is ``randrange``'s, from
    the same random source (a subclass that draws its bits its own way included)."""
    from seep.integrations.hotpath import random_below

    class Counted(random.Random):
        def getrandbits(self, k: int) -> int:
            return super().getrandbits(k)

    for cls in (random.Random, Counted):
        a, b = cls(11), random.Random(11)
        for n in [1, 2, 3, 4, 5, 7, 8, 9, 63, 64, 65, 1000, 2**40 + 3]:
            for _ in range(50):
                assert random_below(a, n) == b.randrange(n)


def test_a_builder_started_with_the_cards_runs_is_the_same_builder() -> None:
    """``Position.legal_codes_by_card`` gives, in the play phase, where each card's moves (its
    first action's) end in the list, every card's moves next to each other; a builder started
    with them offers and applies what one without them does, the options and a copy too."""
    for options in ({}, {"players": 2}, {"house_in_sums": True, "throw_rule": "always"}):
        rules = Rules.parse(options)
        rng = random.Random(5)
        for _ in range(6):
            pos = Position.new_deal(rng.randrange(1 << 40), rng.randrange(rules.players), rules)
            while not pos.is_over():
                codes, runs = pos.legal_codes_by_card()
                assert codes == pos.legal_codes()
                if pos.phase == "play":
                    assert runs is not None
                    firsts: list[int] = []
                    for r in runs:
                        firsts += [r & 63] * ((r >> 6) - len(firsts))
                    assert firsts == [first_action(c) for c in codes]
                    assert len({r & 63 for r in runs}) == len(runs)  # one run a card
                else:
                    assert runs is None
                with_runs = MoveBuilder()
                with_runs.start(codes, runs)
                if rng.random() < 0.3:
                    assert with_runs.copy().options() == MoveBuilder(codes).options()
                plain = MoveBuilder(codes)
                while True:
                    assert with_runs.mask() == plain.mask()
                    assert with_runs.legal_actions() == plain.legal_actions()
                    action = rng.choice(plain.legal_actions())
                    code = with_runs.apply(action)
                    assert code == plain.apply(action)
                    if code is not None:
                        break
                pos.advance(code)
