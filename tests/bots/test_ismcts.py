"""The ISMCTS bot: legal, reproducible, sensible on obvious positions; its playout policy legal.

Tiny budgets only (tens of iterations): no timing and no strength assertions here (strength is
measured by bench/duel.py, speed by bench/bots.py).
"""

from __future__ import annotations

import random

import pytest

from seep.bots import make_bot
from seep.bots.ismcts import IsmctsBot, estimate, playout, policy_move
from seep.cards import parse_card, parse_cards
from seep.codes import CAPTURE, PHASE_BID, PHASE_PLAY
from seep.engine import Position
from seep.errors import SeepError
from seep.format import position_from_dict
from seep.moves import Move
from seep.options import Rules
from seep.verify import check
from seep.view import View
from seepkit.builders import make_position
from seepkit.play import random_positions


def view_of(pos: Position) -> View:
    seat = pos.to_move
    assert seat is not None
    return View.from_position(pos, seat)


def position_at(seed: int, plays: int) -> Position:
    """A position of a random deal after the bid and ``plays`` card plays."""
    rng = random.Random(seed)
    pos = Position.new_deal(seed, seed % 4)
    while pos.phase_id == PHASE_BID or pos.plays < plays:
        pos.push(rng.choice(pos.legal_codes()))
    return pos


def test_bid_phase_returns_a_bid() -> None:
    bot = IsmctsBot(iterations=20)
    for seed in range(6):
        pos = Position.new_deal(seed, seed % 4)
        d = bot.choose(view_of(pos), random.Random(seed))
        assert d.move in pos.legal_codes()
        assert d.move.action in ("bid", "redeal")


@pytest.mark.parametrize("root", ["ucb", "halving"])
@pytest.mark.parametrize("plays", [0, 1, 12, 24, 36, 44, 46, 47])
def test_always_a_legal_move(plays: int, root: str) -> None:
    """The opening (play 1, R16), mid-deal and the last plays."""
    bot = IsmctsBot(iterations=25, root=root)
    for seed in range(4):
        pos = position_at(seed, plays)
        d = bot.choose(view_of(pos), random.Random(seed))
        assert d.move in pos.legal_codes()
        assert isinstance(d.move, Move)
        assert d.reason


def test_legal_over_a_whole_deal_against_itself() -> None:
    bot = IsmctsBot(iterations=20)
    rng = random.Random(5)
    pos = Position.new_deal(11, 2)
    history: list[tuple[int, int]] = []
    while not pos.is_over():
        seat = pos.to_move
        assert seat is not None
        d = bot.choose(View.from_position(pos, seat, history), rng)
        assert pos.is_legal(d.move)
        history.append((seat, int(d.move)))
        pos.push(d.move)
    assert sum(pos.card_points()) == 100


def test_single_legal_move_returns_without_searching(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_search(*args: object) -> None:
        raise AssertionError("searched with a single legal move")

    monkeypatch.setattr(IsmctsBot, "search", no_search)
    pos = position_at(3, 47)  # play 48: the dealer's last card
    codes = pos.legal_codes()
    assert len(codes) == 1
    d = IsmctsBot(iterations=10**9).choose(view_of(pos), random.Random(0))
    assert d.move == codes[0]
    assert d.reason == "the only legal move"


@pytest.mark.parametrize("root", ["ucb", "halving"])
def test_reproducible_with_seed_and_iteration_budget(root: str) -> None:
    for seed, plays in ((1, 0), (2, 9), (3, 23), (4, 40)):
        view = view_of(position_at(seed, plays))
        a = IsmctsBot(iterations=40, root=root).choose(view, random.Random(99))
        b = IsmctsBot(iterations=40, root=root).choose(view, random.Random(99))
        assert (a.move, a.reason) == (b.move, b.reason)


def test_same_view_same_choice_whatever_the_hidden_cards() -> None:
    """The bot sees only the view: two positions with the same view get the same move."""
    pos = position_at(8, 17)
    view = view_of(pos)
    other = view.determinize(random.Random(1))
    assert other.hands != pos.hands
    assert view_of(other) == view
    a = IsmctsBot(iterations=30).choose(view_of(other), random.Random(4))
    b = IsmctsBot(iterations=30).choose(view, random.Random(4))
    assert a == b


@pytest.mark.parametrize("root", ["ucb", "halving"])
def test_takes_an_obvious_sweep(root: str) -> None:
    """R37/R38: 9S takes {4D, 5C}, the whole floor, for a 50-point sweep mid-deal; the other
    cards can only be thrown (or 9S + 4D built into a 13-house)."""
    d = make_position(["9S", "KH", "QD"], mover=2, loose=["4D", "5C"])
    pos = position_from_dict(d)
    sweep = Move.capture(parse_card("9S"), parse_cards("4D 5C"))
    assert sweep in pos.legal_codes()
    decision = IsmctsBot(iterations=50, root=root).choose(view_of(pos), random.Random(0))
    assert decision.move == sweep
    # The average is the whole deal's expected difference (the piles the builder filled
    # count too), so only its form is checked.
    assert decision.reason.startswith("searched 50 playouts: this move averages ")


def test_takes_a_lone_house_for_a_sweep() -> None:
    """Capturing the only thing on the floor, an opponent's house, is a sweep (R37)."""
    d = make_position(["JS", "2H", "7D"], mover=2, houses=["H11[6C 5D]{E}"])
    pos = position_from_dict(d)
    sweep = Move.capture(parse_card("JS"), 0, (11,))
    assert sweep in pos.legal_codes()
    assert IsmctsBot(iterations=50).choose(view_of(pos), random.Random(1)).move == sweep


def test_reason_names_the_playouts_and_the_average() -> None:
    d = IsmctsBot(iterations=30).choose(view_of(position_at(6, 10)), random.Random(2))
    assert d.reason.startswith("searched 30 playouts: this move averages ")
    assert d.reason.endswith(" points for our team")


@pytest.mark.parametrize("root", ["ucb", "halving"])
def test_time_budget(root: str) -> None:
    d = IsmctsBot(milliseconds=20, root=root).choose(view_of(position_at(2, 5)), random.Random(0))
    assert d.reason.startswith("searched ")


def test_search_reports_the_move_and_its_playouts() -> None:
    view = view_of(position_at(7, 14))
    found = IsmctsBot(iterations=60).search(view, random.Random(3), view.legal_codes())
    assert found.move in view.legal_codes()
    assert found.playouts == 60
    assert 1 <= found.visits <= 60
    halving = IsmctsBot(iterations=60, root="halving")
    found = halving.search(view, random.Random(3), view.legal_codes())
    assert found.move in view.legal_codes()
    assert found.playouts > 0


def test_candidates_shortlist_the_heuristic_best_moves() -> None:
    """With ``candidates`` the search chooses among the heuristic bot's best card plays."""
    from seep.bots.heuristic import HeuristicBot

    for seed, plays in ((5, 8), (6, 20), (8, 33)):
        view = view_of(position_at(seed, plays))
        codes = view.legal_codes()
        bot = IsmctsBot(iterations=40, candidates=3)
        short = bot.shortlist(view, codes)
        assert len(short) == min(3, len(codes))
        scores = {out.code: sc for sc, out, _ in HeuristicBot().score_moves(view, codes)}
        worst_kept = min(scores[c] for c in short)
        assert all(scores[c] <= worst_kept for c in codes if c not in short)
        d = bot.choose(view, random.Random(seed))
        assert d.move in short or len(codes) == 1


def test_settings_are_checked() -> None:
    with pytest.raises(SeepError):
        IsmctsBot(iterations=0)
    with pytest.raises(SeepError):
        IsmctsBot(milliseconds=-1)
    with pytest.raises(SeepError):
        IsmctsBot(root="random")
    with pytest.raises(SeepError):
        IsmctsBot(horizon=-1)
    with pytest.raises(SeepError):
        IsmctsBot(candidates=-2)
    with pytest.raises(SeepError):
        IsmctsBot(work=0)
    with pytest.raises(SeepError):
        IsmctsBot(particles=-1)


def test_the_work_cap_stops_the_search_deterministically() -> None:
    view = view_of(position_at(4, 8))
    codes = view.legal_codes()
    full = IsmctsBot(iterations=200).search(view, random.Random(3), codes)
    assert full.playouts == 200 and full.work > 0
    cap = full.work // 4
    capped = IsmctsBot(iterations=200, work=cap).search(view, random.Random(3), codes)
    # It stops at the first iteration that reaches the cap: the same on any machine.
    assert capped.playouts < 200 and cap <= capped.work < full.work
    again = IsmctsBot(iterations=200, work=cap).search(view, random.Random(3), codes)
    assert again == capped


def test_not_my_turn() -> None:
    pos = position_at(1, 5)
    seat = (pos.to_move or 0) ^ 1
    with pytest.raises(SeepError):
        IsmctsBot(iterations=5).choose(View.from_position(pos, seat), random.Random(0))


def test_registry_and_presets() -> None:
    assert isinstance(make_bot("ismcts", iterations=5), IsmctsBot)
    hard, expert = make_bot("hard"), make_bot("expert")
    assert isinstance(hard, IsmctsBot) and isinstance(expert, IsmctsBot)
    # Playout budgets, so that a preset's moves depend on the seed only (not on the machine).
    assert hard.milliseconds is None and expert.milliseconds is None
    assert hard.iterations is not None and expert.iterations is not None
    assert hard.iterations < expert.iterations
    assert hard.candidates and expert.candidates
    # The preset's settings can be overridden.
    bot = make_bot("expert", iterations=7)
    assert isinstance(bot, IsmctsBot)
    d = bot.choose(view_of(position_at(4, 8)), random.Random(0))
    assert d.reason.startswith("searched 7 playouts")


RULE_SETS = [
    {},
    {"capture_rule": "any"},
    {"throw_rule": "always"},
    {"throw_rule": "no_other_move"},
    {"house_in_sums": True},
    {"absorb_loose_groups": "mandatory", "allow_pair_build": True},
    {"add_retention": "team", "partner_cement_free": False},
    {"ten_diamonds_points": 2, "majority_bonus": 4},
    {"ten_diamonds_points": 0, "sweep_value": 30, "sweep_last": 10},
]


@pytest.mark.parametrize("rules", RULE_SETS, ids=str)
def test_policy_moves_are_legal(rules: dict[str, object]) -> None:
    """The playout policy's shortcut (capture or throw, never the full move list) is always a
    legal move, also when it plays a random card."""
    rng = random.Random(3)
    for pos in random_positions(300, 7, Rules.parse(rules), phase=PHASE_PLAY):
        legal = pos.legal_codes()
        for epsilon in (0.0, 1.0):
            move = policy_move(pos, rng, epsilon)
            assert check(pos, move) is None, check(pos, move)
            assert move in legal


def test_policy_captures_a_sweep_and_avoids_giving_one() -> None:
    # A sweep beats everything (R37, R38).
    pos = position_from_dict(make_position(["9S", "KH", "QD"], mover=2, loose=["4D", "5C"]))
    assert policy_move(pos, random.Random(0), 0.0) == Move.capture(
        parse_card("9S"), parse_cards("4D 5C")
    )
    # Floor 8H TC and nothing to capture: throwing 2C (no points) would make 2+8 and T, two
    # 10-groups that the next player's TH sweeps (R24, R37), so 9S goes instead.
    d = make_position(["2C", "9S"], mover=2, loose=["8H", "TC"], others={3: ["TH", "KD"]})
    pos = position_from_dict(d)
    for seed in range(10):
        assert policy_move(pos, random.Random(seed), 0.0) == Move.throw(parse_card("9S"))
    # Without a 10 in the next hand, the pointless 2C goes.
    d = make_position(["2C", "9S"], mover=2, loose=["8H", "TC"], others={3: ["QH", "KD"]})
    pos = position_from_dict(d)
    for seed in range(10):
        assert policy_move(pos, random.Random(seed), 0.0) == Move.throw(parse_card("2C"))


def test_playout_finishes_and_estimate_is_exact_at_the_end() -> None:
    rng = random.Random(2)
    for pos in random_positions(40, 9, phase=PHASE_PLAY):
        q = pos.copy()
        playout(q, rng)
        assert q.is_over()
        s0, s1 = q.deal_scores()
        assert estimate(q) == s0 - s1


def test_truncated_playout_stops_after_the_horizon() -> None:
    pos = position_at(5, 10)
    playout(pos, random.Random(0), plies=6)
    assert pos.plays == 16
    assert isinstance(estimate(pos), float)


def test_policy_prefers_the_capture_with_points() -> None:
    """Two captures: QD takes {5S, 7H} (5 points), 6C takes {6H} (nothing)."""
    d = make_position(["QD", "6C", "2H"], mover=2, loose=["5S", "7H", "6H"])
    pos = position_from_dict(d)
    move = Move(policy_move(pos, random.Random(0), 0.0))
    assert move.action_id == CAPTURE and move.card == parse_card("QD")
