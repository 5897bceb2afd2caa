"""Inference from the choices made: which hidden hands explain the play we saw.

:mod:`.inference` reads single signals from the history (a throw past a capture, the bid).
A player's every choice says more: a hand in which his move was a poor one is less likely than
a hand in which it was the natural one. This module scores a candidate deal by how well it
explains the moves the other three seats made since the stock was dealt (R18: from then on
their hands held every card they hold now plus the cards they have played since): each move
is scored, in the hand the deal gives its player, by the heuristic bot's evaluation
(:meth:`.heuristic.HeuristicBot.score_moves`, our model of how people and bots play), and the
deal's weight is ``exp(sum(max((score - best) / temperature, log(floor))))``: a move the
model would have made costs nothing, a poorer one costs in proportion to how much poorer,
and no single move costs more than ``floor`` (people do make poor moves).

:func:`card_factors` draws ``particles`` deals from a :class:`.inference.Dealer`, weights
them so, and turns the weighted deals into a factor per card and seat (how much more often
the weighted deals put the card in that hand than the unweighted ones do); a new ``Dealer``
with these factors deals the search's determinizations. Per card, not per deal: the search
then still sees thousands of different deals, shaped by what the choices say, instead of a
few hundred weighted ones. ``bench/inference.py`` measures how often the deals put the
hidden cards in the right hands.
"""

from __future__ import annotations

import math
import random

from ..cards import cards_of_mask
from ..codes import BID, PHASE_PLAY, SH_ACTION
from ..view import View
from .heuristic import HeuristicBot, MoveFacts
from .inference import Dealer, replay_start

__all__ = ["card_factors", "log_likelihood"]

#: Points of the heuristic's score that make a move ``e`` times less likely.
TEMPERATURE = 2.0
#: No single move makes a deal less likely than this.
FLOOR = 0.05


def log_likelihood(
    view: View,
    hands: list[int],
    model: HeuristicBot,
    temperature: float = TEMPERATURE,
    floor: float = FLOOR,
    facts: dict[tuple[int, int], dict[int, MoveFacts]] | None = None,
) -> float:
    """How well the deal ``hands`` (every seat's hand now) explains the card plays of the
    seats other than ``view.seat`` in ``view.history`` made since the stock was dealt: the
    sum over those moves of ``max((score - best score) / temperature, log(floor))`` by
    ``model``'s evaluation in the hand the deal gives the player then.

    ``facts`` carries what each scored move does to the public position from one deal to
    the next (:func:`.heuristic.move_facts`), by the move's place in the history and the
    houses' owners then: the position before a past play is the same in every deal but for
    the owners (an opponent who cements joins them only if his hand keeps the value, R28,
    A14), so most of a deal's scoring is looked up. The result is the same without it."""
    # A replay of the deal with each hand as it was once the stock was dealt (only the plays
    # from then on are scored).
    pos, _ = replay_start(view, hands)
    low = math.log(floor)
    total = 0.0
    history = view.history
    for i in range(len(history)):
        seat, code = history[i]
        if code >> SH_ACTION & 7 < BID and pos.plays >= 1 and seat != view.seat:
            seen = View.from_position(pos, seat, history[:i])
            codes = seen.legal_codes()
            if len(codes) > 1:
                known = None
                if facts is not None:
                    owners = 0
                    for v, _, _, o in seen.houses:
                        owners |= o << 4 * v
                    known = facts.setdefault((i, owners), {})
                scored = model.score_moves(seen, codes, known)
                best = max(sc for sc, _, _ in scored)
                mine = next((sc for sc, out, _ in scored if out.code == code), None)
                total += low if mine is None else max((mine - best) / temperature, low)
        pos.push(code)
    return total


def card_factors(
    view: View,
    dealer: Dealer,
    rng: random.Random,
    particles: int,
    temperature: float = TEMPERATURE,
    floor: float = FLOOR,
) -> list[float] | None:
    """``factors[4 * card + seat]``: how much more often ``particles`` deals of ``dealer``,
    weighted by :func:`log_likelihood`, put the card in that seat's hand than the same deals
    unweighted (smoothed by one deal's share); ``None`` when there is nothing to weigh (no
    history since the stock was dealt, two players)."""
    if (
        len(view.hand_sizes) != 4
        or view.phase_id != PHASE_PLAY
        or not any(s != view.seat and code >> SH_ACTION & 7 < BID for s, code in view.history)
    ):
        return None
    model = HeuristicBot()
    deals = [dealer(rng).hands for _ in range(particles)]
    facts: dict[tuple[int, int], dict[int, MoveFacts]] = {}
    logs = [log_likelihood(view, list(h), model, temperature, floor, facts) for h in deals]
    top = max(logs)
    weights = [math.exp(x - top) for x in logs]
    total = sum(weights)
    post = [0.0] * 208
    prior = [0.0] * 208
    for h, w in zip(deals, weights, strict=True):
        share = w / total
        for s in range(4):
            if s != view.seat:
                for c in cards_of_mask(h[s]):
                    post[4 * c + s] += share
                    prior[4 * c + s] += 1.0 / particles
    smooth = 1.0 / particles
    return [(post[i] + smooth) / (prior[i] + smooth) for i in range(208)]
