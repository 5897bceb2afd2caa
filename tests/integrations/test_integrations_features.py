"""Observation and candidate encodings: bounded, complete, and blind to hidden cards."""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest

np = pytest.importorskip("numpy")

from seep.codes import CAPTURE  # noqa: E402
from seep.engine import Position  # noqa: E402
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


def _bits(mask: int, width: int) -> list[float]:
    return [float(mask >> i & 1) for i in range(width)]


def _expected(view: View) -> dict[str, list[float]]:
    """The fields of the observation, straight from the layout's description (docs/research.md),
    independent of the encoder."""
    n, seat, team = view.rules.players, view.seat, view.seat & 1
    houses = [0.0] * 30
    house_cards = 0
    for value, cards, cemented, owners in view.houses:
        house_cards |= cards
        j = 6 * (value - 9)
        houses[j] = 1.0
        houses[j + 1] = float(cemented)
        for s in range(n):
            if owners >> s & 1:
                houses[j + 2 + (s - seat) % n] = 1.0
    rel = [0.0] * 4
    for s in range(n):
        rel[(s - seat) % n] = view.hand_sizes[s] / (48 / n)
    one = lambda width, i: [float(k == i) for k in range(width)]  # noqa: E731
    diff, baazis, deals = view.match
    lead = max(view.rules.baazi_lead, 1)
    own = diff if team == 0 else -diff
    lc = view.last_capture
    return {
        "hand": _bits(view.hand, 52),
        "loose": _bits(view.loose, 52),
        "house_cards": _bits(house_cards, 52),
        "captured_own": _bits(view.captured[team], 52),
        "captured_other": _bits(view.captured[1 - team], 52),
        "unseen": _bits(view.unseen(), 52),
        "houses": houses,
        "hand_sizes": rel,
        "stock": [view.stock_size / 44],
        "facedown": [view.facedown / 4],
        "plays": [view.plays / 48],
        "phase": one(3, view.phase_id),
        "bid": one(5, view.bid - 9),
        "to_move": one(4, -1 if view.to_move is None else (view.to_move - seat) % n),
        "dealer": one(4, (view.dealer - seat) % n),
        "sweeps": [min(view.sweeps[team] / 200, 1.0), min(view.sweeps[1 - team] / 200, 1.0)],
        "last_capture": one(3, 2 if lc < 0 else 0 if lc == team else 1),
        "match": [
            min(max(0.5 + own / (2 * lead), 0.0), 1.0),
            min(baazis[team] / 10, 1.0),
            min(baazis[1 - team] / 10, 1.0),
            min(deals / 50, 1.0),
        ],
    }


def _batch_both_ways(
    pos: Position, seats: list[int], builders: list[MoveBuilder], rules: Rules
) -> Any:
    """The batch of ``pos`` seen from ``seats``, written from the positions' parts and from
    the batched environments' ints: asserted byte for byte the same, and returned."""
    from seep.integrations.features import ObservationBatch
    from seep.integrations.hotpath import Game, batch_parts, games_ints

    batch = ObservationBatch(len(seats))
    batch.write(*batch_parts([pos] * len(seats), seats, builders))
    games = [Game(0) for _ in seats]
    for g, b in zip(games, builders, strict=True):
        g.pos = pos
        g.builder = b
    from_ints = ObservationBatch(len(seats))
    games_ints(games, seats, from_ints.ints)
    from_ints.write_ints(rules.players, rules.baazi_lead)
    assert from_ints.obs.tobytes() == batch.obs.tobytes()
    assert from_ints.mask.tobytes() == batch.mask.tobytes()
    return batch


@pytest.mark.parametrize(
    "rules",
    [
        Rules(),
        Rules.parse("two_player"),
        Rules(capture_rule="any", sweep_value=-50),
        Rules(baazi_lead=3, sweep_value=150),
    ],
    ids=["standard", "two_player", "negative_sweeps", "short_baazi"],
)
def test_observation_of_the_position_is_the_views(rules: Rules) -> None:
    """What the environments compute on every step (position_observation, the batch, the
    batched environments' ints) is the View's observation, field by field as documented, on
    every seat, through whole baazis."""
    from seep.integrations.features import position_observation
    from seep.session import Session

    rng = random.Random(4)
    session = Session(rules, seed=9, baazis=2)
    checked = 0
    while True:
        pos = session.position
        seats = list(range(rules.players))
        builders = [MoveBuilder() for _ in seats]
        if not pos.is_over():
            b = builders[pos.to_move or 0] = MoveBuilder(pos.legal_codes())
            for _ in range(rng.randrange(3)):  # a move half built
                c = b.copy()
                if c.apply(rng.choice(c.legal_actions())) is None:
                    b = builders[pos.to_move or 0] = c
        batch = _batch_both_ways(pos, seats, builders, rules)
        for seat in seats:
            view = View.from_position(pos, seat)
            obs = observation(view, builders[seat])
            assert np.array_equal(position_observation(pos, seat, builders[seat]), obs)
            assert np.array_equal(batch.obs[seat], obs)
            assert np.array_equal(batch.mask[seat], _mask_or_all(builders[seat]))
            for name, values in _expected(view).items():
                assert obs[OBS_FIELDS[name]].tolist() == np.float32(values).tolist(), name
            checked += 1
        if session.match_over:
            break
        if session.deal_over:
            session.start_next_deal()
        else:
            session.play(rng.choice(pos.legal_codes()))
    assert checked > 300


def _mask_or_all(b: MoveBuilder) -> list[int]:
    m = b.mask() or (1 << 133) - 1
    return [m >> a & 1 for a in range(133)]


@pytest.mark.parametrize("lead", [1, 3, 100, 10**12])
def test_batch_ints_at_the_ends_of_the_real_values(lead: int) -> None:
    """The batched environments' ints give the batch's values where the real-valued entries
    are capped or clipped: sweeps past 200 or below 0, baazis past 10, deals past 50, a baazi
    difference past the lead either way."""
    rules = Rules(baazi_lead=lead)
    dealt = Position.new_deal(5, 1, rules)
    cases = [
        ((450, -100), (-5 * lead, (12, 3), 70)),
        ((0, 200), (lead + 1, (0, 10), 50)),
        ((199, 201), (lead - 1, (9, 11), 49)),
        ((25, 0), (0, (0, 0), 0)),
    ]
    for sweeps, match in cases:
        pos = Position(
            rules,
            dealt.dealer,
            hands=dealt.hands,
            stock=dealt.stock,
            loose=dealt.loose,
            sweeps=sweeps,
            match=match,
        )
        seats = [0, 1, 2, 3]
        builders = [MoveBuilder(pos.legal_codes()) for _ in seats]
        _batch_both_ways(pos, seats, builders, rules)


def test_card_counts_of_the_batch_ints() -> None:
    """The batched environments count a mask's cards in the word (hotpath._cards_in), as
    int.bit_count does, on every size of set up to the full pack."""
    from seep.integrations.hotpath import _cards_in

    rng = random.Random(3)
    masks = [0, (1 << 52) - 1] + [1 << c for c in range(52)]
    for size in range(53):
        masks.append(sum(1 << c for c in rng.sample(range(52), size)))
    for m in masks:
        assert _cards_in(m) == m.bit_count()
