"""Observation and candidate encodings: bounded, complete, and blind to hidden cards."""

from __future__ import annotations

import itertools
import random

import pytest

np = pytest.importorskip("numpy")

from seep.engine import CAPTURE, Position  # noqa: E402
from seep.integrations.actions import MoveBuilder  # noqa: E402
from seep.integrations.features import (  # noqa: E402
    MOVE_FEATURE_NAMES,
    MOVE_FEATURES,
    OBS_FIELDS,
    OBS_SIZE,
    candidates,
    observation,
)
from seep.options import Rules  # noqa: E402
from seep.view import View  # noqa: E402


def test_layout_is_contiguous() -> None:
    slices = sorted(OBS_FIELDS.values(), key=lambda s: s.start)
    assert slices[0].start == 0 and slices[-1].stop == OBS_SIZE
    assert all(a.stop == b.start for a, b in itertools.pairwise(slices))
    assert len(MOVE_FEATURE_NAMES) == MOVE_FEATURES


@pytest.mark.parametrize("rules", [Rules(), Rules(capture_rule="any", deal_before_bid=True)])
def test_encodings_see_only_the_view(rules: Rules) -> None:
    rng = random.Random(1)
    checked = 0
    for _ in range(3):
        pos = Position.new_deal(rng.getrandbits(32), rng.randrange(4), rules)
        while not pos.is_over():
            seat = pos.to_move
            assert seat is not None
            view = View.from_position(pos, seat)
            b = MoveBuilder(pos.legal_codes())
            obs = observation(view, b)
            assert obs.shape == (OBS_SIZE,) and obs.dtype == np.float32
            assert ((obs >= 0) & (obs <= 1)).all()
            hand = obs[OBS_FIELDS["hand"]]
            assert int(hand.sum()) == pos.hands[seat].bit_count()
            codes, feats = candidates(view)
            assert codes == pos.legal_codes() and feats.shape == (len(codes), MOVE_FEATURES)
            # The same information with other hidden cards gives the same encodings.
            other = View.from_position(view.determinize(rng), seat)
            assert np.array_equal(observation(other, b), obs)
            codes2, feats2 = candidates(other)
            assert codes2 == codes and np.array_equal(feats2, feats)
            for code, row in zip(codes, feats, strict=True):
                if code >> 63 & 7 == CAPTURE:
                    pos.push(code)
                    swept = not pos.loose and not pos.hpresent
                    pos.pop()
                    assert row[MOVE_FEATURE_NAMES.index("sweep")] == float(swept)
            pos.advance(rng.choice(codes))
            checked += 1
    assert checked > 100


def test_pending_sub_decisions_are_encoded() -> None:
    rng = random.Random(2)
    pos = Position.new_deal(seed=3)
    seen = 0
    while not pos.is_over() and seen < 5:
        view = View.from_position(pos, pos.to_move or 0)
        b = MoveBuilder(pos.legal_codes())
        assert observation(view, b)[OBS_FIELDS["stage"]].tolist() == [0, 1, 0, 0]
        assert observation(view)[OBS_FIELDS["stage"]].tolist() == [1, 0, 0, 0]
        for a in b.legal_actions():
            c = b.copy()
            if a < 52 and c.apply(a) is None:
                after = observation(view, c)
                assert after[OBS_FIELDS["pending_card"]][a] == 1
                assert after[OBS_FIELDS["stage"]].tolist() == [0, 0, 1, 0]
                seen += 1
        pos.advance(rng.choice(pos.legal_codes()))
    assert seen >= 5
