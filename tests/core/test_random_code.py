"""Position.random_code: the random bot's move without the list, the same move as
``rng.choice(pos.legal_codes())`` from the same draws (seeded random play, the environments'
bots and their pinned digests rely on it)."""

from __future__ import annotations

import random

import pytest

from seep.engine import Position, random_below
from seep.options import Rules
from seepkit.play import EVERY_MOVE_KIND

# The option sets that reach every kind of move, and two more.
OPTIONS: list[str | dict[str, object]] = [
    *EVERY_MOVE_KIND,
    {"throw_rule": "always"},
    {"house_in_sums": True, "capture_rule": "any", "throw_rule": "always"},
]


class _Preset(random.Random):
    """A source whose every ``getrandbits`` gives ``value``: the index random_code draws."""

    value = 0

    def getrandbits(self, k: int) -> int:
        return self.value


def test_every_index_gives_the_lists_code() -> None:
    """Every index of the list reaches its code (throw-only cards, each value's uses, the
    other cards of a value, repeated uses made once), under option sets with every move kind."""
    preset = _Preset()
    seen = 0
    for k, options in enumerate(OPTIONS):
        rules = Rules.parse(options)
        rng = random.Random(k)
        for _ in range(6):
            pos = Position.new_deal(rng.randrange(1 << 40), rng.randrange(rules.players), rules)
            while not pos.is_over():
                codes = pos.legal_codes()
                for i in range(len(codes)):
                    preset.value = i
                    assert pos.random_code(preset) == codes[i], (options, i, pos.to_dict())
                seen += len(codes)
                pos.advance(rng.choice(codes))
    assert seen > 20_000


def test_the_same_draws_as_choice() -> None:
    """The same move and the same state of the source after it as ``rng.choice``."""
    for k, options in enumerate(OPTIONS):
        rules = Rules.parse(options)
        rng = random.Random(100 + k)
        for d in range(4):
            a = random.Random(d)
            b = random.Random(d)
            pos = Position.new_deal(rng.randrange(1 << 40), rng.randrange(rules.players), rules)
            while not pos.is_over():
                code = pos.random_code(a)
                assert code == b.choice(pos.legal_codes())
                pos.advance(code)
            assert a.getstate() == b.getstate()


def test_random_below_is_randrange() -> None:
    for seed in range(3):
        a = random.Random(seed)
        b = random.Random(seed)
        for n in (1, 2, 3, 7, 8, 9, 100, 1 << 20, (1 << 62) + 5):
            assert random_below(a, n) == b.randrange(n)


def test_a_finished_deal_has_no_move_to_draw() -> None:
    """As ``rng.choice`` of the empty list: an IndexError, and no draw made."""
    rng = random.Random(4)
    pos = Position.new_deal(11, 2)
    while not pos.is_over():
        pos.advance(pos.random_code(rng))
    state = rng.getstate()
    with pytest.raises(IndexError):
        pos.random_code(rng)
    assert rng.getstate() == state
