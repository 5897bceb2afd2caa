"""Inference from the play: deals of the hidden cards weighted by what the public history says.

:meth:`seep.view.View.determinize` deals the unseen cards uniformly, subject only to the
owners' duty (R21d). But the play tells more:

* a player who **threw** a card while a capture of value v lay on the floor (a loose v-group,
  or a house of value v, R23) probably holds no card of value v: most players take points
  when they can, and a sweep (R38) or a house always. The more the capture was worth, the
  stronger the evidence. This also covers an owner's opponent who left the owner's house on
  the floor;
* an owner who **built or raised** a house of value v holds a card of v (R21d; that much is a
  hard constraint already) and an owner who then **threw** instead of taking his house with
  that card probably holds only the one card of v he must keep;
* the **bidder** held a card of the bid value (R13): unless he has played one since, he very
  likely still holds it.

:func:`evidence` turns the history into a factor per (seat, value): how much more (or less)
likely a card of that value is in that seat's hand than a uniform deal says. Only plays after
the stock was dealt (R18) count, when the hands held every card they hold now.
:func:`determinize` deals the unseen cards one at a time, in random order, each to a place
(another hand, or the stock and face-down floor) with probability proportional to its free
slots times the factor, and then checks the owners' duty like the uniform deal does.

The factors are a model of how people (and our bots) play, not a rule: they only reweight
the deals, and a deal the history makes unlikely is still possible. ``bench/inference.py``
prints how often the sampled deals put the hidden cards in the right hands, with and without
inference.
"""

from __future__ import annotations

import random

from ..cards import VALUE, VALUE_MASK, mask_points
from ..codes import BID, BUILD, PHASE_BID, PHASE_PLAY, SH_ACTION, SH_CARD, SH_VALUE, THROW
from ..engine import Position
from ..errors import SeepError
from ..floor import floor_index
from ..view import View

__all__ = ["Factors", "determinize", "evidence"]

#: ``factors[seat][value]``: the weight of a card of ``value`` in ``seat``'s hand.
Factors = tuple[tuple[float, ...], ...]

#: A throw past a capture worth points (or a house, or a sweep of the whole floor).
LACK_STRONG = 0.1
#: A throw past a capture worth no points.
LACK_WEAK = 0.4
#: The bidder still holds a card of his bid value.
BID_HOLDS = 4.0
#: No factor falls below this (the evidence is a tendency, never a proof).
FLOOR = 0.02

_UNIFORM: Factors = tuple((1.0,) * 14 for _ in range(4))


def evidence(view: View) -> Factors:
    """The factors that the deal's public history (``view.history``) gives, per seat and
    value; all 1.0 when the history says nothing (or cannot be replayed)."""
    if not view.history or view.rules.players != 4:
        return _UNIFORM  # (two players: not modelled yet, the uniform deal stands)
    try:
        return _evidence(view)
    except (SeepError, IndexError, KeyError, ValueError):
        return _UNIFORM  # an odd history (a redeal, a variant): no inference


def _evidence(view: View) -> Factors:
    f = [[1.0] * 14 for _ in range(4)]
    played = [0, 0, 0, 0]
    for seat, code in view.history:
        if code >> SH_ACTION & 7 < BID:
            played[seat] |= 1 << (code >> SH_CARD & 63)
    # The face-up floor at play 1: every card on the floor or in a pile now that nobody played.
    public = view.loose | view.captured[0] | view.captured[1]
    for _, cards, _, _ in view.houses:
        public |= cards
    start = public & ~(played[0] | played[1] | played[2] | played[3])
    # A replay of the public moves: the hands hold just the cards each seat will play (the
    # engine's push trusts its input), which is all the floor's history needs.
    # A history that starts after the bid (a view built mid-deal) starts the replay there.
    moves = sum(1 for _, code in view.history if code >> SH_ACTION & 7 < BID)
    has_bid = any(code >> SH_ACTION & 7 == BID for _, code in view.history)
    pos = Position(
        view.rules,
        view.dealer,
        phase_id=PHASE_BID if has_bid else PHASE_PLAY,
        bid=0 if has_bid else view.bid,
        plays=view.plays - moves,
        hands=played,
        stock=(),
        loose=start,
    )
    tdp = view.rules.ten_diamonds_points
    bid = pos.bid
    bidder = pos.bidder
    for seat, code in view.history:
        action = code >> SH_ACTION & 7
        if action == BID:
            bid = code >> SH_VALUE & 15
        elif pos.plays >= 1 and seat != view.seat:
            card = code >> SH_CARD & 63
            v_played = VALUE[card]
            if action == THROW:
                subsets, avail = floor_index(pos.loose)
                for v in range(1, 14):
                    house = pos.hpresent >> v & 1
                    if v == v_played or not (avail >> v & 1 or house):
                        continue
                    taken = 0
                    for g in subsets[v]:
                        taken |= g
                    worth = mask_points(taken, tdp) + (
                        mask_points(pos.hcards[v], tdp) if house else 0
                    )
                    sweep = taken == pos.loose and not pos.hpresent & ~(1 << v)
                    strong = worth > 0 or house or sweep
                    f[seat][v] *= LACK_STRONG if strong else LACK_WEAK
        if action == BUILD and seat != view.seat:
            # He keeps a card of the value he built (R21d): not evidence against it.
            f[seat][code >> SH_VALUE & 15] = max(f[seat][code >> SH_VALUE & 15], 1.0)
        pos.push(code)
    if (
        bid
        and bidder != view.seat
        and not any(VALUE[c] == bid for c in range(52) if played[bidder] >> c & 1)
    ):
        f[bidder][bid] *= BID_HOLDS
    return tuple(tuple(max(FLOOR, x) for x in row) for row in f)


def determinize(view: View, rng: random.Random, factors: Factors, tries: int = 32) -> Position:
    """A complete position consistent with ``view``, the unseen cards dealt with the weights
    ``factors`` (see the module docstring); the uniform :meth:`View.determinize` when the
    weighted deals keep failing the owners' duty (R21d)."""
    if factors is _UNIFORM or view.phase_id == PHASE_BID or len(view.hand_sizes) != 4:
        return view.determinize(rng)
    unseen = view.unseen()
    cards = [c for c in range(52) if unseen >> c & 1]
    me = view.seat
    sizes = list(view.hand_sizes)
    sizes[me] = 0
    rest = view.stock_size + view.facedown
    if sum(sizes) + rest != len(cards):
        return view.determinize(rng)  # raises its own clear error
    needs = view.owner_needs()
    rand = rng.random
    for _ in range(tries):
        rng.shuffle(cards)
        free = [*sizes, rest]
        hands = [0, 0, 0, 0]
        others: list[int] = []
        for c in cards:
            v = VALUE[c]
            w0 = free[0] * factors[0][v]
            w1 = free[1] * factors[1][v]
            w2 = free[2] * factors[2][v]
            w3 = free[3] * factors[3][v]
            r = rand() * (w0 + w1 + w2 + w3 + free[4])
            if r < w0:
                p = 0
            elif r < w0 + w1:
                p = 1
            elif r < w0 + w1 + w2:
                p = 2
            elif r < w0 + w1 + w2 + w3:
                p = 3
            else:
                p = 4
            if not free[p]:  # rounding at the very edge: the first place with room
                p = next(q for q in range(5) if free[q])
            free[p] -= 1
            if p == 4:
                others.append(c)
            else:
                hands[p] |= 1 << c
        if all(hands[s] & VALUE_MASK[v] for s, v in needs):
            hands[me] = view.hand
            stock = others[: view.stock_size]
            facedown = 0
            for c in others[view.stock_size :]:
                facedown |= 1 << c
            return view._position(hands, stock, view.loose | facedown)
    return view.determinize(rng)
