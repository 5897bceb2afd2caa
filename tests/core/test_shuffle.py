"""The compiled shuffle deals what ``random.Random(seed).shuffle`` deals (docs/format.md: every
seed deals the same cards in every engine)."""

from __future__ import annotations

import random

from seep import engine


def _stdlib(seed: int) -> list[int]:
    deck = list(range(52))
    random.Random(seed).shuffle(deck)
    return deck


def test_the_module_uses_its_own_shuffle_here() -> None:
    assert engine._SHUFFLE_HERE


def test_shuffle_matches_the_standard_library() -> None:
    seeds = [*range(3000), -1, -(1 << 70), 1 << 31, 1 << 32, (1 << 64) + 3, 2**200 + 17]
    for seed in seeds:
        assert engine._shuffle_here(seed) == _stdlib(seed), seed


def test_new_deal_is_the_shuffled_pack_laid_out() -> None:
    for seed in (0, 105, 2026):
        pos = engine.Position.new_deal(seed)
        assert pos.to_dict() == engine.Position.from_deck(_stdlib(seed)).to_dict()
