"""Inference from the choices made (seep.bots.likelihood): which deals explain the play."""

from __future__ import annotations

import random
from typing import Any

from seep.bots.heuristic import HeuristicBot
from seep.bots.inference import UNIFORM, Dealer
from seep.bots.ismcts import IsmctsBot
from seep.bots.likelihood import card_factors, log_likelihood
from seep.cards import VALUE_MASK, parse_card, parse_cards
from seep.codes import CEMENT, PHASE_PLAY, make_code
from seep.engine import Position
from seep.format import position_from_dict
from seep.view import View
from seepkit.builders import make_position
from seepkit.play import self_play


def test_the_true_deal_explains_the_heuristic_play_exactly() -> None:
    # The heuristic bot plays a move of the highest score, so in its self-play the true
    # hands cost nothing: the replay shows every player the position he saw.
    model = HeuristicBot()
    checked = 0
    for seed in (1, 2):
        for pos, view in self_play(seed)[10::6]:
            if view.phase_id == PHASE_PLAY:
                assert log_likelihood(view, list(pos.hands), model) == 0.0
                checked += 1
    assert checked >= 8


def test_a_random_deal_explains_the_play_worse_than_the_true_one() -> None:
    model = HeuristicBot()
    rng = random.Random(4)
    worse = 0
    late = [(p, v) for p, v in self_play(5) if v.phase_id == PHASE_PLAY and v.plays >= 24]
    for _, view in late[:4]:
        dealer = Dealer(view, UNIFORM, duty_first=True)
        logs = [log_likelihood(view, list(dealer(rng).hands), model) for _ in range(10)]
        assert all(x <= 0.0 for x in logs)
        worse += sum(x < 0.0 for x in logs)
    assert worse >= 30  # most random deals make some move a poorer one


def test_no_factors_without_plays_to_explain() -> None:
    pos = Position.new_deal(4)
    view = View.from_position(pos, pos.to_move or 0)  # the bid
    assert card_factors(view, Dealer(view, UNIFORM), random.Random(1), 8) is None
    pos.push(pos.legal_codes()[0])
    view = View.from_position(pos, pos.to_move or 0)  # no history given
    assert card_factors(view, Dealer(view, UNIFORM), random.Random(1), 8) is None


def test_weighted_deals_fit_the_view_and_put_more_cards_right() -> None:
    rng = random.Random(6)
    hits = {"uniform": 0, "weighted": 0}
    for seed in (7, 8):
        for pos, view in self_play(seed)[16:40:6]:
            uniform = Dealer(view, UNIFORM, duty_first=True)
            factors = card_factors(view, uniform, rng, 24)
            assert factors is not None and len(factors) == 208 and min(factors) > 0
            weighted = Dealer(view, UNIFORM, duty_first=True, card_factors=factors)
            for _ in range(30):
                for name, dealer in (("uniform", uniform), ("weighted", weighted)):
                    det = dealer(rng)
                    assert View.from_position(det, view.seat, view.history) == view
                    for s, v in view.owner_needs():
                        assert det.hands[s] & VALUE_MASK[v]
                    hits[name] += sum(
                        (det.hands[s] & pos.hands[s]).bit_count()
                        for s in range(4)
                        if s != view.seat
                    )
    assert hits["weighted"] > hits["uniform"]


def test_a_search_with_particles_plays_legal_moves() -> None:
    bot = IsmctsBot(iterations=20, candidates=3, particles=4, duty_first=True)
    for pos, view in self_play(9)[5::9]:
        if view.phase_id == PHASE_PLAY:
            d = bot.choose(view, random.Random(1))
            assert int(d.move) in pos.legal_codes()


def test_shared_move_facts_give_the_same_likelihood_as_scoring_afresh() -> None:
    # card_factors scores the same past plays under many deals and keeps what each move does
    # to the public position between them (heuristic.move_facts). That position is the same
    # in every deal but for the houses' owners (an opponent who cements joins them only if
    # his hand keeps the value, R28, A14), and a cement's own result depends on the same: the
    # shared facts must give exactly the scores of scoring every deal afresh, owners trap
    # included.
    model = HeuristicBot()
    compared = 0
    owner_splits = 0
    for seed in (1, 2, 6):  # deal 6 meets a past play under different owners
        rng = random.Random(7)
        for _, view in self_play(seed)[8::3]:
            if view.phase_id != PHASE_PLAY:
                continue
            dealer = Dealer(view, UNIFORM, duty_first=True)
            facts: dict[tuple[int, int], dict[int, Any]] = {}
            for _ in range(6):
                hands = list(dealer(rng).hands)
                shared = log_likelihood(view, hands, model, facts=facts)
                assert shared == log_likelihood(view, hands, model)
                compared += 1
            places = [i for i, _ in facts]
            owner_splits += len(places) - len(set(places))
    assert compared >= 150
    assert owner_splits >= 1  # some past play was met under different owners


def test_shared_move_facts_tell_apart_a_cement_that_keeps_the_value() -> None:
    # Under add_retention="team" South may add to West's house of 10 on his partner's ten
    # (A14) and joins the owners only if he keeps a ten himself (R28): the same move has two
    # results, and facts shared between two hands must not mix them up.
    model = HeuristicBot()
    facts: dict[int, Any] = {}
    owners = []
    for hand in (["6S", "TH", "2C"], ["6S", "2C", "3D"]):
        pos = position_from_dict(
            make_position(
                hand,
                mover=2,
                loose=["4H", "9C"],
                houses=["H10[6C 4C]{W}"],
                rules={"add_retention": "team"},
                others={0: ["TD", "AS", "AH"]},
            )
        )
        view = View.from_position(pos, 2)
        cement = make_code(CEMENT, parse_card("6S"), value=10, loose=parse_cards("4H"))
        assert cement in pos.legal_codes()
        shared = model.score_moves(view, [cement], facts)
        assert shared == model.score_moves(view, [cement])
        owners.append(shared[0][1].houses[0][3])
    assert owners == [0b0110, 0b0010]  # West and South; West alone
