"""What a finished deal does to the match (seep.baazi.settle_deal): R45, R46 and A27."""

from __future__ import annotations

import random

from seep.baazi import settle_deal
from seep.engine import Position
from seep.options import Rules

HIGH_MIN = Rules(min_score=60)  # only with options can both teams be under min_score (A27)


def test_one_team_under_min_score_loses_the_baazi() -> None:
    s = settle_deal(Rules(), 0, 70, (0, 0), (8, 92), (0, 0))
    assert (s.winner, s.diff, s.baazis) == (1, 0, (0, 1))  # R46, whatever D was
    s = settle_deal(Rules(), 0, 70, (0, 0), (9, 91), (0, 0))
    assert (s.winner, s.diff) == (None, -12)  # exactly 9 is enough


def test_both_under_min_score_the_lower_loses() -> None:
    # A27: both under 60; the lower test score loses the baazi and D is reset.
    s = settle_deal(HIGH_MIN, 0, 30, (2, 1), (45, 55), (0, 0))
    assert (s.winner, s.diff, s.baazis, s.under_min) == (1, 0, (2, 2), (True, True))
    s = settle_deal(HIGH_MIN, 0, -30, (0, 0), (55, 45), (0, 0))
    assert (s.winner, s.diff) == (0, 0)


def test_both_under_min_score_tie_loses_nobody_and_d_is_updated() -> None:
    # A27: a tie loses nobody; D is updated as usual (R45), and a lead may still win.
    s = settle_deal(HIGH_MIN, 0, 30, (0, 0), (50, 50), (0, 0))
    assert (s.winner, s.diff, s.baazis) == (None, 30, (0, 0))
    # Without sweeps in the test the test scores tie; the deal scores (with a sweep) go to D.
    no_sweeps = Rules(min_score=60, min_score_includes_sweeps=False)
    s = settle_deal(no_sweeps, 0, -20, (0, 0), (50, 50), (50, 0))
    assert (s.winner, s.diff) == (None, 30)
    s = settle_deal(no_sweeps, 0, 60, (0, 0), (50, 50), (50, 0))
    assert (s.winner, s.diff, s.baazis) == (0, 0, (1, 0))  # |D| reaches 100


def test_a27_through_the_engine() -> None:
    """Finished deals under min_score 200 (both teams always under it): the lower test score
    loses the baazi; on a tie nobody does and D takes the score difference (0)."""
    rules = Rules(min_score=200)
    rng = random.Random(3)
    for seed in range(6):
        pos = Position.new_deal(seed, 0, rules, match=(40, (0, 0), 0))
        while not pos.is_over():
            pos.push(rng.choice(pos.legal_codes()))
        a, b = pos.deal_scores()
        nxt = pos.next_deal(9)
        if a == b:
            assert (nxt.match_baazis, nxt.match_diff) == ((0, 0), 40)
        else:
            assert nxt.match_baazis == ((1, 0) if a > b else (0, 1))
            assert nxt.match_diff == 0


def test_next_dealer() -> None:
    assert settle_deal(Rules(), 0, 0, (0, 0), (60, 40), (0, 0)).dealer == 1  # R9: ahead: right
    assert settle_deal(Rules(), 0, 0, (0, 0), (40, 60), (0, 0)).dealer == 0  # behind: same
    assert settle_deal(Rules(), 0, 0, (0, 0), (5, 95), (0, 0)).dealer == 2  # R10
    rotate = Rules(dealer_rule="rotate")
    assert settle_deal(rotate, 3, 0, (0, 0), (40, 60), (0, 0)).dealer == 0
