"""Inference from the play (seep.bots.inference): the evidence it reads and the deals it makes."""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from seep.bots.inference import LACK_STRONG, Dealer, determinize, evidence
from seep.cards import VALUE_MASK, cards_of_mask, parse_cards
from seep.codes import THROW, make_code
from seep.engine import Position
from seep.view import View
from seepkit.play import self_play

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))


def test_no_history_means_uniform_deals() -> None:
    pos = Position.new_deal(4)
    pos.push(pos.legal_codes()[0])
    view = View.from_position(pos, 1)
    assert all(x == 1.0 for row in evidence(view) for x in row)


def test_a_throw_past_a_capture_lowers_that_value() -> None:
    # Seat 1 throws the 2 of clubs while a 9 lies loose: he probably holds no 9.
    floor = parse_cards("9s 3h")
    hands = [parse_cards("Kd"), parse_cards("2c Qd"), parse_cards("4h"), parse_cards("5h")]
    pos = Position(dealer=3, phase_id=1, bid=13, plays=1, hands=hands, loose=floor)
    two_clubs = (hands[1] & -hands[1]).bit_length() - 1
    throw = make_code(THROW, two_clubs)
    pos.push(throw)
    view = View.from_position(pos, 2, [(1, throw)])
    f = evidence(view)
    # 9 (points), 12 (9 + 3 sweeps the floor) and 3 (no points, weaker) were capturable.
    assert f[1][9] <= LACK_STRONG and f[1][12] <= LACK_STRONG
    assert LACK_STRONG < f[1][3] < 1.0
    assert f[1][13] == 1.0 and f[3][9] == 1.0


def test_inferred_deals_fit_the_view() -> None:
    rng = random.Random(3)
    for seed in (1, 2):
        for _, view in self_play(seed)[::5]:
            factors = evidence(view)
            for _ in range(3):
                det = determinize(view, rng, factors)
                assert View.from_position(det, view.seat, view.history) == view
                for s, v in view.owner_needs():
                    assert det.hands[s] & VALUE_MASK[v]


def test_inference_raises_the_hit_rate() -> None:
    from inference import hit_rates  # bench/inference.py

    r = hit_rates(deals=12, samples=8, seed=2, particles=16)
    print(r)
    assert r["inferred"] > r["uniform"]
    # The choices' weights place more cards right, and are surer only where they are right.
    assert r["choices"] > r["inferred"]
    assert r["choices_log_score"] > r["uniform_log_score"]


def assert_deals_alike(
    view: View,
    reference: Callable[[random.Random], Position],
    deal: Callable[[random.Random], Position],
    rng: random.Random,
    samples: int = 400,
) -> None:
    """``deal``'s positions fit ``view`` and the owners' duty, and over ``samples`` deals (drawn
    in turn with ``reference``'s) put each hidden card in each hand about as often."""
    counts = {"reference": [0] * 208, "deal": [0] * 208}
    for _ in range(samples):
        for kind, dealer in (("reference", reference), ("deal", deal)):
            det = dealer(rng)
            if kind == "deal":
                assert View.from_position(det, view.seat, view.history) == view
                for s, v in view.owner_needs():
                    assert det.hands[s] & VALUE_MASK[v]
            for s in range(4):
                for c in cards_of_mask(det.hands[s]):
                    counts[kind][4 * c + s] += 1
    for i in range(208):
        a, b = counts["reference"][i] / samples, counts["deal"][i] / samples
        assert abs(a - b) < 0.15, (i, a, b)


def test_the_dealer_deals_like_determinize() -> None:
    # Dealer (the search's fast deals) draws from the same distribution as determinize: both
    # fit the view, and over many deals each hidden card lands in each hand about as often.
    rng = random.Random(5)
    for seed in (1, 3):
        for _, view in self_play(seed)[20:40:6]:
            factors = evidence(view)
            assert_deals_alike(
                view, lambda r, v=view, f=factors: determinize(v, r, f), Dealer(view, factors), rng
            )


def test_the_search_parts_bench_runs(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    import search_parts  # bench/search_parts.py

    monkeypatch.setattr(sys, "argv", ["search_parts.py", "--deals", "1", "--repeat", "1", "--json"])
    assert search_parts.main() == 0
    parts = json.loads(capsys.readouterr().out)["us"]
    assert set(parts) == {
        "deal_inferred",
        "deal_uniform",
        "playout_8_plies",
        "value_net",
        "estimate",
        "particle_of_32",
        "particle_of_64",
    }
    assert all(v > 0 for v in parts.values())


def test_owners_first_deals_like_dealing_all_and_checking() -> None:
    # duty_first deals each owner a card of his house's value first and keeps the deal with
    # probability 1/k: the same distribution as the rejection deals, without their retries.
    rng = random.Random(8)
    checked = 0
    for seed in (1, 2, 3, 4):
        for _, view in self_play(seed)[12:44:4]:
            if not view.owner_needs():
                continue
            checked += 1
            factors = evidence(view)
            assert_deals_alike(
                view, Dealer(view, factors), Dealer(view, factors, duty_first=True), rng
            )
    assert checked >= 3
