"""Deal scores and the match: score() on finished deals and next_deal() per R7-R10, R42-R47
and E13 (docs/rules.md), over hand-made phase-"over" positions with chosen piles and sweeps."""

from __future__ import annotations

from typing import Any

import pytest

from seep.protocol import next_deal, score
from seepkit.builders import (
    ALL_CARDS,
    Position,
    all_cards_of,
    bidder,
    card_points,
    finished_position,
    full_rules,
    play_position,
)
from seepkit.match_cases import CASES, match


def assert_fresh_deal(new: Position, dealer: int, rules: dict[str, Any]) -> None:
    """next_deal returns a new phase-"bid" position for ``dealer`` (R12, docs/format.md)."""
    assert new["format"] == "seep/1"
    assert new["phase"] == "bid"
    assert new["dealer"] == dealer
    assert new["to_move"] == bidder(dealer)
    assert new["plays"] == 0
    assert new["bid"] is None
    assert new["rules"] == rules
    assert new["captured"] == [[], []]
    assert new["sweeps"] == [0, 0]
    assert new["last_capture"] is None
    assert new["houses"] == []
    assert len(new["loose"]) == 4
    sizes = [len(h) for h in new["hands"]]
    if rules["deal_before_bid"]:
        assert sizes == [4, 4, 4, 4]
    else:
        assert sizes == [4 if s == bidder(dealer) else 0 for s in range(4)]
    assert sorted(all_cards_of(new)) == sorted(ALL_CARDS)


# --- score() (R42, R5, R38, R39, variant 1) ---------------------------------------------------


@pytest.mark.parametrize("points0", [0, 4, 9, 48, 73, 99, 100])
@pytest.mark.parametrize("sweeps", [(0, 0), (50, 0), (25, 100), (0, 150)])
def test_score_standard(points0: int, sweeps: tuple[int, int]) -> None:
    """R42/R5/invariant 7: card points sum to 100; deal score = card points + sweeps (R39)."""
    pos = finished_position(points0, sweeps=sweeps)
    result = score(pos)
    assert result["points"] == [points0, 100 - points0]
    assert sum(result["points"]) == 100
    assert result["sweeps"] == list(sweeps)
    assert result["score"] == [points0 + sweeps[0], 100 - points0 + sweeps[1]]


def test_score_counts_every_scoring_card() -> None:
    """R5: spades at capture value (91), other aces 1 each, TD 6; nothing else scores."""
    pile0 = ["AS", "KS", "AH", "TD", "KH", "QD", "2C"]
    pile1 = [c for c in ALL_CARDS if c not in pile0]
    pos = play_position(plays=48, captured=[pile0, pile1], last_capture=1)
    assert score(pos)["points"] == [1 + 13 + 1 + 6, 100 - 21]


@pytest.mark.parametrize(
    ("cards0", "bonus"), [(30, (4, 0)), (26, (0, 0)), (20, (0, 4)), (27, (4, 0)), (25, (0, 4))]
)
def test_score_family(cards0: int, bonus: tuple[int, int]) -> None:
    """Variant 1 / A21 (preset family): TD = 2 (96 card points), majority_bonus 4 to the team
    with more cards, nobody on 26-26 [DEFAULT]."""
    points0 = 40
    pos = finished_position(points0, rules="family", cards0=cards0, sweeps=(0, 50))
    assert len(pos["captured"][0]) == cards0
    assert card_points(pos["captured"][1], "family") == 96 - points0
    result = score(pos)
    card = [points0, 96 - points0]
    assert result["sweeps"] == [0, 50]
    assert result["score"] == [card[0] + bonus[0], card[1] + bonus[1] + 50]
    # R42: "96 card points plus the 4-point majority bonus"; whether `points` shows the bonus
    # is not fixed, but it is the same for both teams.
    assert result["points"] in (card, [card[0] + bonus[0], card[1] + bonus[1]])


def test_score_ten_diamonds_option() -> None:
    """R5 option ten_diamonds_points: TD worth 2 without the majority bonus: total 96."""
    pile0 = ["TD", "2C"]
    pile1 = [c for c in ALL_CARDS if c not in pile0]
    pos = play_position(plays=48, captured=[pile0, pile1], rules={"ten_diamonds_points": 2})
    assert score(pos)["points"] == [2, 94]


# --- next_deal: E13 step by step --------------------------------------------------------------


def test_e13_step_by_step() -> None:
    """E13: D and the dealer across three deals of a baazi (R9, R10, R44, R45)."""
    rules = full_rules("standard")
    # Deal 1 (dealer N): NS 48 + sweep 50 = 98, WE 52 -> D = +46; NS ahead -> W deals.
    deal1 = finished_position(48, sweeps=(50, 0), dealer=0, match=match())
    assert score(deal1)["score"] == [98, 52]
    new = next_deal(deal1, 101)
    assert new["match"] == match(46, (0, 0), 1)
    assert new["dealer"] == 1
    assert_fresh_deal(new, 1, rules)
    # Deal 2 (dealer W): NS 60, WE 40 -> D = +66; W's team behind -> W deals again.
    deal2 = finished_position(60, dealer=1, match=new["match"])
    new = next_deal(deal2, 102)
    assert new["match"] == match(66, (0, 0), 2)
    assert new["dealer"] == 1
    assert_fresh_deal(new, 1, rules)
    # Deal 3 (dealer W): NS 91, WE 9 (9 is enough) -> D = 148 >= 100: NS win the baazi, D := 0;
    # would-be dealer W (behind) -> his partner E deals (R10).
    deal3 = finished_position(91, dealer=1, match=new["match"])
    assert score(deal3)["score"] == [91, 9]
    after = next_deal(deal3, 103)
    assert after["match"] == match(0, (1, 0), 3)
    assert after["dealer"] == 3
    assert_fresh_deal(after, 3, rules)
    # Alternative deal 3: NS 93, WE 7 -> WE < 9: NS win the baazi at once; next dealer E.
    alt = finished_position(93, dealer=1, match=new["match"])
    after = next_deal(alt, 103)
    assert after["match"] == match(0, (1, 0), 3)
    assert after["dealer"] == 3


@pytest.mark.parametrize(
    ("dealer", "before", "points0", "sweeps", "rules", "after", "next_dealer"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_next_deal(
    dealer: int,
    before: dict[str, Any],
    points0: int,
    sweeps: tuple[int, int],
    rules: dict[str, Any],
    after: dict[str, Any],
    next_dealer: int,
) -> None:
    """R44-R46 update `match`; R9/R10 (or dealer_rule "rotate") pick the next dealer; the new
    dealer after a baazi belongs to the team that lost it (R10)."""
    if after["deals"] == 0:
        after = {**after, "deals": before["deals"] + 1}
    pos = finished_position(points0, sweeps=sweeps, dealer=dealer, match=before, rules=rules)
    new = next_deal(pos, 7)
    assert new["match"] == after
    assert new["dealer"] == next_dealer
    assert_fresh_deal(new, next_dealer, full_rules(rules))
    won = [b - a for a, b in zip(before["baazis"], after["baazis"], strict=True)]
    if any(won) and rules.get("dealer_rule") != "rotate":
        loser = won.index(0)
        assert next_dealer % 2 == loser


def test_next_deal_deterministic() -> None:
    """docs/format.md: a record replays to the same positions: same finished deal and seed, same
    next deal; the seed drives the shuffle."""
    pos = finished_position(48, sweeps=(50, 0))
    assert next_deal(pos, 5) == next_deal(pos, 5)
    stocks = {tuple(next_deal(pos, seed)["stock"]) for seed in range(6)}
    assert len(stocks) >= 5


def test_next_deal_keeps_rules_deal_before_bid() -> None:
    """The rules object travels to the next deal; with deal_before_bid every seat gets 4 (A5)."""
    rules = {"deal_before_bid": True, "sweep_value": 40}
    pos = finished_position(60, dealer=2, rules=rules)
    new = next_deal(pos, 3)
    assert_fresh_deal(new, 3, full_rules(rules))
    assert len(new["stock"]) == 32


def test_next_deal_needs_a_finished_deal() -> None:
    """next_deal works from a finished deal (phase "over"); a running deal is refused."""
    running = play_position(plays=20)
    with pytest.raises(ValueError):
        next_deal(running, 1)
