"""Scoring and the match counters (seep.scoring): R45, R46 and the both-under case A27."""

from __future__ import annotations

from seep.options import Rules
from seep.scoring import baazi_winner, next_dealer

HIGH_MIN = Rules(min_score=60)  # only with options can both teams be under min_score (A27)


def test_one_team_under_min_score_loses_the_baazi() -> None:
    assert baazi_winner((8, 92), (8, 92), 70, Rules()) == (1, 0)  # R46, whatever D was
    assert baazi_winner((9, 91), (9, 91), 70, Rules()) == (-1, -12)  # exactly 9 is enough


def test_both_under_min_score_the_lower_loses() -> None:
    # A27: both under 60; the lower test score loses the baazi and D is reset.
    assert baazi_winner((45, 55), (45, 55), 30, HIGH_MIN) == (1, 0)
    assert baazi_winner((55, 45), (55, 45), -30, HIGH_MIN) == (0, 0)


def test_both_under_min_score_tie_loses_nobody_and_d_is_updated() -> None:
    # A27: a tie loses nobody; D is updated as usual (R45), and a lead may still win.
    assert baazi_winner((50, 50), (50, 50), 30, HIGH_MIN) == (-1, 30)
    # Without sweeps in the test the test scores tie; the deal scores (with a sweep) go to D.
    no_sweeps = Rules(min_score=60, min_score_includes_sweeps=False)
    assert baazi_winner((100, 50), (50, 50), -20, no_sweeps) == (-1, 30)
    assert baazi_winner((100, 50), (50, 50), 60, no_sweeps) == (0, 0)  # |D| reaches 100


def test_a27_through_the_engine() -> None:
    """A finished deal under min_score 200 (both teams under it): the lower loses the baazi."""
    import random

    from seep.engine import Position

    rules = Rules(min_score=200)
    rng = random.Random(3)
    pos = Position.new_deal(5, 0, rules)
    while not pos.is_over():
        pos.push(rng.choice(pos.legal_codes()))
    s = pos.deal_scores()
    nxt = pos.next_deal(9)
    if s[0] == s[1]:
        assert nxt.match_baazis == (0, 0)
        assert nxt.match_diff == 0
    else:
        loser = 0 if s[0] < s[1] else 1
        assert nxt.match_baazis[1 - loser] == 1 and nxt.match_baazis[loser] == 0
        assert nxt.match_diff == 0
    assert pos.baazi_winner() == (-1 if s[0] == s[1] else 1 - (0 if s[0] < s[1] else 1))


def test_next_dealer() -> None:
    assert next_dealer(0, -1, 10, Rules()) == 1  # R9: the dealer's team ahead: passes right
    assert next_dealer(0, -1, -10, Rules()) == 0  # behind: the same dealer
    assert next_dealer(0, 1, 0, Rules()) == 2  # R10: would-be dealer 0, then his partner
    assert next_dealer(3, -1, 0, Rules(dealer_rule="rotate")) == 0
