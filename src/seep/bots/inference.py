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
from typing import Final

from ..cards import VALUE, VALUE_MASK, mask_points
from ..codes import BID, BUILD, PHASE_BID, PHASE_PLAY, SH_ACTION, SH_CARD, SH_VALUE, THROW
from ..engine import Position
from ..errors import SeepError
from ..floor import floor_index
from ..view import View

__all__ = ["UNIFORM", "Dealer", "Factors", "determinize", "evidence", "replay_start"]

#: ``factors[seat][value]``: the weight of a card of ``value`` in ``seat``'s hand.
Factors = tuple[tuple[float, ...], ...]

#: A throw past a capture worth points (or a house, or a sweep of the whole floor).
LACK_STRONG: Final = 0.1
#: A throw past a capture worth no points.
LACK_WEAK: Final = 0.4
#: The bidder still holds a card of his bid value.
BID_HOLDS: Final = 4.0
#: No factor falls below this (the evidence is a tendency, never a proof).
FLOOR: Final = 0.02

#: The factors of a history that says nothing: a uniform deal.
UNIFORM: Final[Factors] = tuple((1.0,) * 14 for _ in range(4))


def evidence(view: View) -> Factors:
    """The factors that the deal's public history (``view.history``) gives, per seat and
    value; all 1.0 when the history says nothing (or cannot be replayed)."""
    if not view.history or view.rules.players != 4:
        return UNIFORM  # (two players: not modelled yet, the uniform deal stands)
    try:
        return _evidence(view)
    except (SeepError, IndexError, KeyError, ValueError):
        return UNIFORM  # an odd history (a redeal, a variant): no inference


def replay_start(view: View, hands: list[int] | None = None) -> tuple[Position, list[int]]:
    """The position to replay ``view.history`` from, and the cards each seat has played in it.

    The floor is the face-up floor when the history starts: every card on the floor or in a
    pile now that nobody played. Each hand holds just the cards its seat will play (all the
    floor's history needs; the engine's push trusts its input), plus ``hands[seat]`` when
    given. A history that starts after the bid (a view built mid-deal) starts the replay there.
    """
    played = [0, 0, 0, 0]
    for seat, code in view.history:
        if code >> SH_ACTION & 7 < BID:
            played[seat] |= 1 << (code >> SH_CARD & 63)
    public = view.loose | view.captured[0] | view.captured[1]
    for _, cards, _, _ in view.houses:
        public |= cards
    start = public & ~(played[0] | played[1] | played[2] | played[3])
    moves = sum(1 for _, code in view.history if code >> SH_ACTION & 7 < BID)
    has_bid = any(code >> SH_ACTION & 7 == BID for _, code in view.history)
    held = played if hands is None else [played[s] | hands[s] for s in range(4)]
    pos = Position(
        view.rules,
        view.dealer,
        phase_id=PHASE_BID if has_bid else PHASE_PLAY,
        bid=0 if has_bid else view.bid,
        plays=view.plays - moves,
        hands=held,
        stock=(),
        loose=start,
    )
    return pos, played


def _evidence(view: View) -> Factors:
    f = [[1.0] * 14 for _ in range(4)]
    pos, played = replay_start(view)
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
    weighted deals keep failing the owners' duty (R21d).

    The cards are put in random order by ``rng.shuffle``; :class:`Dealer` makes the same deals
    faster, for a search that deals the same view many times, from another random stream."""
    return Dealer(view, factors, tries).shuffled(rng)


def _place(
    r: float, w0: float, w1: float, w2: float, w3: float, f0: int, f1: int, f2: int, f4: int
) -> int:
    """Where a weighted deal puts a card: seat 0-3 (weights ``w0``..``w3``) or 4 for the
    stock and face-down cards (``f4`` places left), by ``r`` drawn uniformly below the total
    weight; rounding at the very edge gives the first seat with room."""
    if r < w0:
        return 0
    if r < w0 + w1:
        return 1
    if r < w0 + w1 + w2:
        return 2
    if r < w0 + w1 + w2 + w3:
        return 3
    if f4:
        return 4
    return 0 if f0 else 1 if f1 else 2 if f2 else 3


class Dealer:
    """Weighted deals of one view (:func:`determinize`), with everything that depends only on
    the view and the factors worked out once: a search deals the same view thousands of times.
    Calling it deals one position from the same distribution as :func:`determinize`, faster:
    the cards are drawn in random order by a Fisher-Yates shuffle on ``rng.random`` as they are
    dealt (``rng.shuffle`` runs Python code per card), and a deal is abandoned as soon as an
    owner can no longer get a card of his house's value (R21d), not once every card is dealt.
    Another random stream than :func:`determinize`'s, so other deals from the same seed.

    ``duty_first`` deals each owner one card of his value before the rest and keeps the deal
    with probability 1 / k (k: his cards of that value): the same deals, without the retries
    that evidence against an owner's value costs (and it deals uniform views too, faster than
    :meth:`View.determinize`). ``card_factors[4 * card + seat]`` multiplies the weights per
    card (:func:`.likelihood.card_factors`)."""

    def __init__(
        self,
        view: View,
        factors: Factors,
        tries: int = 32,
        duty_first: bool = False,
        card_factors: list[float] | None = None,
    ) -> None:
        self.view = view
        self.tries = tries
        self.duty_first = duty_first
        by_value = factors is not UNIFORM and view.phase_id != PHASE_BID
        weighted = by_value or card_factors is not None
        unseen = view.unseen()
        self.cards: list[int] = [c for c in range(52) if unseen >> c & 1]
        sizes = list(view.hand_sizes)
        if len(sizes) == 4:
            sizes[view.seat] = 0
        self.sizes: list[int] = sizes
        self.rest: int = view.stock_size + view.facedown
        # Four hands (two players: not modelled) that the unseen cards fill; else
        # View.determinize deals, or raises its own clear error.
        dealable = len(sizes) == 4 and sum(sizes) + self.rest == len(self.cards)
        weighted = weighted and dealable
        # With duty_first the uniform deals are dealt here too (all factors 1): no rejection,
        # and no rng.shuffle, which runs Python code per card.
        self.uniform = not weighted and not (duty_first and dealable)
        # weights[4 * c + s]: the factor of card c in seat s's hand.
        weights: list[float] = [1.0] * 208
        if weighted:
            for c in range(52):
                for s in range(4):
                    f = factors[s][VALUE[c]] if by_value else 1.0
                    if card_factors is not None:
                        f *= card_factors[4 * c + s]
                    weights[4 * c + s] = f
        self.weights = weights
        self.needs: list[tuple[int, int]] = [(s, VALUE_MASK[v]) for s, v in view.owner_needs()]
        self.need_seats: list[int] = [s for s, _ in view.owner_needs()]
        self.need_values: list[int] = [v for _, v in view.owner_needs()]
        self.need_mask = 0
        for v in self.need_values:
            self.need_mask |= 1 << v
        self.need_counts: list[int] = [
            sum(1 for c in self.cards if VALUE[c] == v) for v in self.need_values
        ]
        # duty_first: the unseen cards of each owner's value, one of which he surely holds.
        self.need_cards: list[list[int]] = [
            [c for c in self.cards if VALUE[c] == v] for v in self.need_values
        ]

    def __call__(self, rng: random.Random) -> Position:
        if self.uniform:
            return self.view.determinize(rng)
        for _ in range(self.tries):
            hands = self._try(rng)
            if hands is not None:
                return hands
        return self.view.determinize(rng)

    def _try(self, rng: random.Random) -> Position | None:
        """One weighted deal, or ``None`` as soon as it fails an owner's duty (R21d): the
        same deals as dealing every card and then checking, in a fraction of the time when
        the duty is unlikely (an owner who passed up his own house)."""
        view = self.view
        cards = self.cards
        n = len(cards)
        weights = self.weights
        sizes = self.sizes
        rand = rng.random
        need_seats = self.need_seats
        need_values = self.need_values
        need_mask = self.need_mask
        values = VALUE  # a local: a module global is a dictionary look-up in compiled code
        left = self.need_counts[:]  # cards of the needed value not dealt yet, per need
        met = [False] * len(need_seats)
        f0 = sizes[0]
        f1 = sizes[1]
        f2 = sizes[2]
        f3 = sizes[3]
        f4 = self.rest
        h0 = h1 = h2 = h3 = 0
        duty = 0  # the owners' cards dealt first (duty_first)
        if self.duty_first and need_seats:
            held = [0, 0, 0, 0]
            free = [f0, f1, f2, f3]
            for q in range(len(need_seats)):
                s = need_seats[q]
                pool = [c for c in self.need_cards[q] if not duty >> c & 1]
                if not pool or not free[s]:
                    return None  # the view itself breaks the duty: View.determinize says so
                c = pool[int(rand() * len(pool))]
                duty |= 1 << c
                held[s] |= 1 << c
                free[s] -= 1
            h0, h1, h2, h3 = held
            f0, f1, f2, f3 = free
            need_mask = 0  # every duty is met: no deal is given up for want of a card
        others: list[int] = []
        for i in range(n):
            # Fisher-Yates as it goes: the next card in a uniformly random order.
            j = i + int(rand() * (n - i))
            c = cards[j]
            cards[j] = cards[i]
            cards[i] = c
            if duty >> c & 1:
                continue
            k = 4 * c
            w0 = f0 * weights[k]
            w1 = f1 * weights[k + 1]
            w2 = f2 * weights[k + 2]
            w3 = f3 * weights[k + 3]
            r = rand() * (w0 + w1 + w2 + w3 + f4)
            p = _place(r, w0, w1, w2, w3, f0, f1, f2, f4)
            if p == 0:
                f0 -= 1
                h0 |= 1 << c
            elif p == 1:
                f1 -= 1
                h1 |= 1 << c
            elif p == 2:
                f2 -= 1
                h2 |= 1 << c
            elif p == 3:
                f3 -= 1
                h3 |= 1 << c
            else:
                f4 -= 1
                others.append(c)
            v = values[c]
            if need_mask >> v & 1:
                for q in range(len(need_seats)):
                    if need_values[q] == v and not met[q]:
                        if need_seats[q] == p:
                            met[q] = True
                        else:
                            left[q] -= 1
                            if not left[q]:
                                return None  # no card of v is left for this owner
        hands = [h0, h1, h2, h3]
        if duty:
            # Dealing an owner one card of his value first makes a hand with k such cards k
            # times as likely as it should be (any of the k could have been the first):
            # keeping the deal with probability 1 / k makes the deals exactly those of
            # dealing everything and then checking the duty.
            for q in range(len(need_seats)):
                k = (hands[need_seats[q]] & VALUE_MASK[need_values[q]]).bit_count()
                if rand() * k >= 1.0:
                    return None
        hands[view.seat] = view.hand
        stock = others[: view.stock_size]
        facedown = 0
        for c in others[view.stock_size :]:
            facedown |= 1 << c
        return view._position(hands, stock, view.loose | facedown)

    def shuffled(self, rng: random.Random) -> Position:
        """One deal as :func:`determinize` has always made it (the card order by
        ``rng.shuffle``, every card dealt before the owners' duty is checked): the same
        random stream, so the bots that use it keep their moves."""
        view = self.view
        if self.uniform:
            return view.determinize(rng)
        cards = self.cards
        weights = self.weights
        sizes = self.sizes
        rand = rng.random
        for _ in range(self.tries):
            rng.shuffle(cards)
            f0 = sizes[0]
            f1 = sizes[1]
            f2 = sizes[2]
            f3 = sizes[3]
            f4 = self.rest
            h0 = h1 = h2 = h3 = 0
            others: list[int] = []
            for c in cards:
                k = 4 * c
                w0 = f0 * weights[k]
                w1 = f1 * weights[k + 1]
                w2 = f2 * weights[k + 2]
                w3 = f3 * weights[k + 3]
                r = rand() * (w0 + w1 + w2 + w3 + f4)
                p = _place(r, w0, w1, w2, w3, f0, f1, f2, f4)
                if p == 0:
                    f0 -= 1
                    h0 |= 1 << c
                elif p == 1:
                    f1 -= 1
                    h1 |= 1 << c
                elif p == 2:
                    f2 -= 1
                    h2 |= 1 << c
                elif p == 3:
                    f3 -= 1
                    h3 |= 1 << c
                else:
                    f4 -= 1
                    others.append(c)
            hands = [h0, h1, h2, h3]
            ok = True
            for s, need in self.needs:
                if not hands[s] & need:
                    ok = False
                    break
            if ok:
                hands[view.seat] = view.hand
                stock = others[: view.stock_size]
                facedown = 0
                for c in others[view.stock_size :]:
                    facedown |= 1 << c
                return view._position(hands, stock, view.loose | facedown)
        return view.determinize(rng)
