"""Information-set Monte Carlo tree search (single-observer ISMCTS) for Seep.

The bot sees only its seat's :class:`~seep.view.View`. Every iteration of the search

1. **determinizes** the view: :meth:`View.determinize` deals the cards the seat has not seen
   (other hands, the stock, a face-down floor) at random, consistently with what is public
   (hand sizes, and R21d: every house owner holds a card of his house's value);
2. **selects** a path down one shared tree whose edges are move codes. Every move in Seep is
   public (the card played and what it does lie face up, R43), so a node is the history of
   moves since the root, and each node belongs to the seat to move there, whichever seat that
   is. Only the moves legal in this determinization compete (a node's children are the moves
   seen so far, and a child's *availability* counts the visits in which it was legal); the
   choice is UCB1 with the availability count in place of the parent's visits
   (Cowling, Powley and Whitehouse's SO-ISMCTS). Each seat maximises its own team's result, so
   an opponent's node is scored from the opponents' side;
3. **expands** one move not tried before at this node: the playout policy's choice if it is
   new there, else a random one. Below the root, *progressive widening* admits a new move only
   while a node visited k times has fewer than about ``1 + widening * sqrt(k)`` moves, so the
   policy's reply is studied before the long tail of odd ones (an opponent who can sweep is
   assumed to sweep long before every throw he might make instead has been tried);
4. **plays out** the deal with a cheap policy (below) for ``horizon`` plies, or to its end;
5. **backs up** the deal score difference of the root seat's team, ``(ours - theirs) / 100``,
   sweeps included (R38, R42): exact if the deal ended, otherwise :func:`estimate`'s
   expectation. Every node on the path adds it with the sign of the node's mover.

The move chosen is the root move visited most. At the bid the root moves are the bids (R13);
the floor turned up after the bid (R15) and the stock dealt after play 1 (R18) are simply part
of each determinization.

**The playout policy** never asks for the full legal-move list (building, cementing and
breaking make it long, and generating it costs more than the rest of a playout step). Under
the default throw rule a card either can capture (a house of its value or a group of loose
cards summing to it, R23) and then may not be thrown, or cannot and then may be thrown (R22);
so "capture with a capturing card, otherwise throw" is always a legal move (docs/rules.md §11.8).
For each value in hand the policy scores its capture (the best maximal family, R25, by card
points, plus the sweep bonus, R38) or the throw of its cheapest card, less the next player's
sweep bonus if he could take the whole floor left behind (one card takes a floor whose loose
cards split into groups of its value and that holds no house but one of that value, R24,
R21g). Inside a playout the next hand is known (it is part of the determinization), so the
policy knows whether he can. With a small probability it plays a random card instead, so that
playouts are not all alike. Houses are never built in playouts; a house on the floor is taken
by the first card of its value played, which is always legal (R21d only forbids *other* uses
of an owner's last card of that value). Play 1 (restricted by the bid, R16) and the options
the shortcut does not cover (``throw_rule="no_other_move"``, ``house_in_sums``) use the full
legal-move list.

**Cut playouts.** Most of what decides between two moves happens within a few rounds, while
the rest of the deal mainly adds noise; a playout cut after ``horizon`` plies and scored by
:func:`estimate` (points and sweeps so far, plus shares of the points still in hands, houses
and loose cards, fitted by least squares to the final results of full playouts) is four times
cheaper and less noisy. In duplicate-deal duels against the greedy bot (``seep.arena``), cut
playouts did at least as well as full ones at equal iterations.

**Additions of issue 14** (settings, each off by default; the ``hard`` and ``expert`` presets
turn them on, docs/strength.md measures them): ``value="net"`` scores cut playouts with the
learned value network (:mod:`.valuenet`) instead of :func:`estimate`; ``prior`` adds the
network's (or ``estimate``'s) value of each root move as a progressive bias; ``inference``
deals the hidden cards weighted by the history (:mod:`.inference`); ``endgame`` solves the
last cards exactly on sampled deals instead of searching (:mod:`.endgame`).

The search depends only on the view and the ``rng`` passed in: with an ``iterations`` budget
(and no time limit) the same view and seed give the same move.

>>> import random
>>> from seep.engine import Position
>>> from seep.view import View
>>> pos = Position.new_deal(3)
>>> for _ in range(6):
...     pos.push(pos.legal_codes()[0])
>>> len(pos.legal_codes()) > 1
True
>>> bot = IsmctsBot(iterations=30)
>>> d = bot.choose(View.from_position(pos, pos.to_move), random.Random(1))
>>> d.move in pos.legal_codes(), d.reason.startswith("searched 30 playouts")
(True, True)
"""

from __future__ import annotations

import functools
import math
import operator
import random
import time
from collections.abc import Callable
from typing import Final, NamedTuple

from ..cards import VALUE, VALUE_MASK, card_points, seat_to_move
from ..cards import byte_fold as _fold
from ..codes import (
    BUILD,
    CAPTURE,
    HOUSE_CODE_BIT,
    PHASE_OVER,
    PHASE_PLAY,
    THROW,
    code_action,
    code_card,
    code_houses,
    code_loose,
    make_code,
)
from ..engine import Position
from ..errors import SeepError
from ..floor import MAXIMAL_UNIONS, floor_index, group_unions, sweepers
from ..moves import Move
from ..options import Rules
from ..verify import capture_else_throw_is_legal
from ..view import View
from .base import Decision
from .endgame import solve_moves
from .heuristic import HeuristicBot
from .inference import UNIFORM, Dealer, evidence
from .likelihood import card_factors

__all__ = ["IsmctsBot", "Search", "estimate", "playout", "policy_move"]

#: Default time budget per move when neither ``iterations`` nor ``milliseconds`` is given.
DEFAULT_MILLISECONDS: Final = 200.0
#: UCB1 exploration constant. Results are score differences / 100, whose spread over playouts
#: is about 0.5-1 (sweeps of 50 dominate), so the constant is of that order.
DEFAULT_EXPLORATION: Final = 0.7
#: Progressive widening below the root: a node visited k times tries about 1 + w * sqrt(k)
#: moves (0: every move at once, plain UCT).
DEFAULT_WIDENING: Final = 1.0
#: Playout plies before the result is estimated (None: play to the end of the deal).
DEFAULT_HORIZON: Final[int | None] = None
#: How the root moves share the budget (see :class:`IsmctsBot`).
DEFAULT_ROOT: Final = "ucb"
#: Probability that a playout step plays a random card instead of the policy's best.
DEFAULT_EPSILON: Final = 0.1

# --- tables ---------------------------------------------------------------------------------

_VAL: Final = VALUE
# Per card: its capture tag (the card and its value, R23), and its throw code (R22).
_CAPTURE_TAG: Final = tuple(make_code(CAPTURE, c, value=_VAL[c]) for c in range(52))
_THROW_CODE: Final = tuple(make_code(THROW, c) for c in range(52))
# Per card: the card field of a move code; per house value: a build's action and value.
_CARD_FIELD: Final = tuple(make_code(THROW, c) for c in range(52))
_BUILD_TAG: Final = tuple(make_code(BUILD, value=v) for v in range(14))
_HOUSE_VALUES_MASK: Final = 0b11111 << 9  # bits 9..13
#: Share of the points a playout build keeps off the floor that counts as won.
_BUILD_SHARE: Final = 0.6
# Per value 9..13: the move-code bit that captures the house of that value.
_HOUSE_BIT: Final = HOUSE_CODE_BIT


def _byte_tables(f: Callable[[int], int], combine: Callable[[int, int], int]) -> _ByteTables:
    """Tables to fold ``f`` over the cards of a mask one byte at a time: entry ``[k][b]``
    combines ``f(c)`` over the cards ``c = 8k + i`` of the bits ``i`` of ``b``."""
    return tuple(
        tuple(
            functools.reduce(
                combine, (f(8 * k + i) for i in range(8) if b >> i & 1 and 8 * k + i < 52), 0
            )
            for b in range(256)
        )
        for k in range(7)
    )


_ByteTables = tuple[tuple[int, ...], ...]
# Value sum of the cards of a mask; bit v for every value v among them.
_VALUE_SUM: Final = _byte_tables(lambda c: _VAL[c], operator.add)
_VALUES: Final = _byte_tables(lambda c: 1 << _VAL[c], operator.or_)


_POINTS_BY_TD: Final[dict[int, _ByteTables]] = {}


def _points_table(ten_diamonds: int) -> _ByteTables:
    """Card points by byte (see :func:`_byte_tables`) for a ``ten_diamonds_points`` value."""
    table = _POINTS_BY_TD.get(ten_diamonds)
    if table is None:
        table = _byte_tables(lambda c: card_points(c, ten_diamonds), operator.add)
        _POINTS_BY_TD[ten_diamonds] = table
    return table


# _fold(mask, tables) (cards.byte_fold): a per-card quantity summed over a set in seven
# look-ups. For _VALUES the sum is a union: byte k holds exactly the values 2k+1 and 2k+2, so
# no two bytes share a bit.


def _card_by_points(
    pick: Callable[..., int], tiebreak: int
) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """``table[td_scores][v][nibble]``: of the cards of value v whose suits are the bits of
    ``nibble``, the one ``pick`` (max or min) chooses by points, ties by ``tiebreak * card``."""
    # Plain loops: a lambda inside nested comprehensions is beyond mypyc (the module compiles).
    tables = []
    for td in (False, True):
        by_value = []
        for v in range(14):
            row = []
            for nib in range(16):
                cards = [4 * v - 4 + s for s in range(4) if nib >> s & 1] if v else []
                ten = 6 if td else 0
                row.append(
                    pick(cards, key=lambda c: (card_points(c, ten), tiebreak * c), default=0)
                )
            by_value.append(tuple(row))
        tables.append(tuple(by_value))
    return tuple(tables)


# One worth the most points (capturing with it takes it too), and one worth the fewest (the
# one to throw).
_BEST_CARD: Final = _card_by_points(max, -1)
_WORST_CARD: Final = _card_by_points(min, 1)

# The best maximal family of v-groups (R24, R25) of a loose floor, by (floor, v, ten of
# diamonds): the union of its groups, its card points and its value sum. A pure function of
# its key, so it is cached, and cleared when large (playouts meet many floors).
_Family = tuple[int, int, int]
_BEST_FAMILY: Final[dict[tuple[int, int, int], _Family]] = {}
_CACHE_LIMIT: Final = 100_000


def _best_family(loose: int, v: int, groups: tuple[int, ...], ten_diamonds: int) -> _Family:
    """A maximal family of disjoint v-groups (no v-group left disjoint from it, R25) with the
    most card points, then the most cards, as (union, points, value sum); ``groups`` are all
    the v-groups of ``loose``."""
    key = (loose, v, ten_diamonds)
    hit = _BEST_FAMILY.get(key)
    if hit is not None:
        return hit
    table = _points_table(ten_diamonds)
    if len(groups) == 1:
        best = groups[0]
    elif len(groups) > 14:
        # Very large floors (many small loose cards): a greedy family is maximal too, since
        # every group skipped meets the union; enumerating all families could explode.
        best = 0
        for g in groups:
            if not best & g:
                best |= g
    else:
        best, best_key = 0, (-1, -1, -1)
        for u in group_unions(groups, MAXIMAL_UNIONS):
            k = (_fold(u, table), u.bit_count(), u)
            if k > best_key:
                best, best_key = u, k
    if len(_BEST_FAMILY) > _CACHE_LIMIT:
        _BEST_FAMILY.clear()
    result = _BEST_FAMILY[key] = (best, _fold(best, table), _fold(best, _VALUE_SUM))
    return result


# --- the playout policy ---------------------------------------------------------------------


# The loose group of a given sum with the most points, as (group, points, value sum), cached
# like the families.
_BEST_GROUP: Final[dict[tuple[int, int, int], _Family]] = {}


def _best_group(loose: int, t: int, groups: tuple[int, ...], ten_diamonds: int) -> _Family:
    """The group of ``groups`` (the loose t-groups of ``loose``) worth the most points, then
    the first; with its points and its value sum ``t``."""
    key = (loose, t, ten_diamonds)
    hit = _BEST_GROUP.get(key)
    if hit is not None:
        return hit
    table = _points_table(ten_diamonds)
    best = max(groups, key=lambda g: _fold(g, table))
    if len(_BEST_GROUP) > _CACHE_LIMIT:
        _BEST_GROUP.clear()
    result = _BEST_GROUP[key] = (best, _fold(best, table), t)
    return result


def _random_card(mask: int, rand: Callable[[], float]) -> int:
    """A uniformly random card of a non-empty mask."""
    for _ in range(int(rand() * mask.bit_count())):
        mask &= mask - 1
    return (mask & -mask).bit_length() - 1


def _sweep_value(rules: Rules, play: int) -> int:
    """R38: the bonus of a sweep on play ``play`` (1..48)."""
    if play == 1:
        return rules.sweep_first
    return rules.sweep_last if play == 48 else rules.sweep_value


_Policy = Callable[[Position, Callable[[], float], float], int]
_POLICIES: Final[dict[Rules, _Policy]] = {}


def policy_move(pos: Position, rng: random.Random, epsilon: float = DEFAULT_EPSILON) -> int:
    """A legal move for the seat to move in a play-phase position, by the cheap playout policy
    (see the module docstring), or with probability ``epsilon`` a random card's capture or
    throw."""
    return _policy(pos.rules)(pos, rng.random, epsilon)


def _policy(rules: Rules) -> _Policy:
    """The playout policy for a rule set (its tables looked up once, not on every move)."""
    move = _POLICIES.get(rules)
    if move is None:
        move = _POLICIES[rules] = _make_policy(rules)
    return move


def _make_policy(rules: Rules) -> _Policy:
    tdp = rules.ten_diamonds_points
    points = tuple(card_points(c, tdp) for c in range(52))
    table = _points_table(tdp)
    best_card = _BEST_CARD[tdp != 0]
    worst_card = _WORST_CARD[tdp != 0]
    # sweeps[n]: the bonus of a sweep on play n (R38); index 49 for "after the deal".
    sweeps = (0, *(_sweep_value(rules, n) for n in range(1, 49)), 0)
    shortcut = capture_else_throw_is_legal(rules)
    # Builds in playouts: not when absorbing further loose groups is compulsory (R31), nor
    # under a limit on houses (A22).
    builds = rules.absorb_loose_groups != "mandatory" and rules.max_houses is None
    build_share = _BUILD_SHARE
    build_tag = _BUILD_TAG
    card_field = _CARD_FIELD
    values = _VALUES
    value_sum = _VALUE_SUM
    divisors = _DIVISORS
    vals = _VAL
    capture_tag = _CAPTURE_TAG
    throw_code = _THROW_CODE
    house_bit = _HOUSE_BIT

    def move(pos: Position, rand: Callable[[], float], epsilon: float) -> int:
        plays = pos.plays
        if plays == 0 or not shortcut:
            return _fallback_move(pos, rand, epsilon, table)
        hands = pos.hands
        n = len(hands)  # four seats, or two (docs/rules.md §12)
        p = seat_to_move(pos.dealer, plays, n)
        hand = hands[p]
        loose = pos.loose
        hp = pos.hpresent
        subsets, avail = floor_index(loose)
        if rand() < epsilon:
            c = _random_card(hand, rand)
            v = vals[c]
            if not (avail | hp) >> v & 1:
                return throw_code[c]
            family = _best_family(loose, v, subsets[v], tdp)[0] if avail >> v & 1 else 0
            return capture_tag[c] | family | (house_bit[v] if hp >> v & 1 else 0)

        held = _fold(hand, values)
        # The next player is an opponent; a playout knows his hand (it is part of the
        # determinization), so it knows which floors he would sweep.
        nxt = _fold(hands[(p + 1) % n], values)
        lose = sweeps[plays + 2]
        floor_sum = _fold(loose, value_sum)
        best_code = 0
        best_score = -1e9
        capvals = held & (avail | hp)
        cv = capvals
        while cv:
            # Capture (R23-R25) with the best card of value v and the best maximal family.
            lowv = cv & -cv
            cv ^= lowv
            v = lowv.bit_length() - 1
            c = best_card[v][hand >> (4 * v - 4) & 15]
            if avail & lowv:
                family, gain, family_sum = _best_family(loose, v, subsets[v], tdp)
            else:
                family = gain = family_sum = 0
            code = capture_tag[c] | family
            gain += points[c]
            if hp & lowv:
                code |= house_bit[v]
                gain += _fold(pos.hcards[v], table)
            score = 2.0 + gain + rand()  # a capture beats a harmless throw
            rest = loose & ~family
            hrest = hp & ~lowv
            if not rest and not hrest:
                score += sweeps[plays + 1]  # R37, R38
            elif lose and _swept(rest, hrest, nxt, floor_sum - family_sum):
                score -= lose
            if score > best_score:
                best_score = score
                best_code = code
        if best_score >= 1.0:
            return best_code  # a capture that leaves no sweep beats every throw (scores < 1)
        # Throw (R22) a card that cannot capture: the cheapest of its value; not one that
        # leaves the next player a sweep.
        tv = held & ~capvals
        top = vals[loose.bit_length() - 1] if loose else 0
        while tv:
            lowv = tv & -tv
            tv ^= lowv
            v = lowv.bit_length() - 1
            c = worst_card[v][hand >> (4 * v - 4) & 15]
            score = rand() - points[c]
            if lose:
                if hp:
                    if _swept(loose | 1 << c, hp, nxt, floor_sum + v):
                        score -= lose
                else:
                    # Inline the common case of _swept: no house on the floor.
                    total = floor_sum + v
                    t = v if v > top else top
                    fits = nxt & divisors[total] >> t << t
                    if fits and (fits >> total & 1 or sweepers(loose | 1 << c) & fits):
                        score -= lose
            if score > best_score:
                best_score = score
                best_code = throw_code[c]
            if not builds:
                continue
            # Build (R27) instead: the card and a loose group make a house of a value V held
            # in another card; loose V cards merge into it (R21f(a)). It keeps the cards off
            # the floor for a later capture of ours, unless the next player holds a V.
            bv = held & ~hp & _HOUSE_VALUES_MASK & ~((2 << v) - 1)
            while bv:
                lowV = bv & -bv
                bv ^= lowV
                V = lowV.bit_length() - 1
                if not avail >> (V - v) & 1:
                    continue
                group, gain, group_sum = _best_group(loose, V - v, subsets[V - v], tdp)
                singles = loose & VALUE_MASK[V]
                moved = group | singles
                gain += points[c] + _fold(singles, table)
                score = 0.5 + build_share * gain + rand()
                if nxt & lowV:
                    score -= gain  # he can take the house at once (R21g)
                if lose and _swept(
                    loose & ~moved, hp | lowV, nxt, floor_sum - group_sum - V * singles.bit_count()
                ):
                    score -= lose
                if score > best_score:
                    best_score = score
                    best_code = build_tag[V] | card_field[c] | moved
        return best_code

    return move


def _swept(loose: int, houses: int, values: int, total: int) -> bool:
    """Whether a card of one of ``values`` (bit v) takes the whole floor of ``loose`` cards
    (worth ``total``) and ``houses`` (bit V per house), a sweep (R37): a house only by a card of
    its value (R21g), so at most one house, and the loose cards split into groups of the card's
    value (R24)."""
    if houses:
        if houses & (houses - 1) or not values & houses:
            return False
        if not loose:
            return True
        values = houses
    elif not loose:
        return False
    # Only a value at least the largest loose card's and dividing the total can split them.
    top = _VAL[loose.bit_length() - 1]
    fits = values & _DIVISORS[total] >> top << top
    if not fits:
        return False
    if fits >> total & 1:
        return True  # one group: the whole floor
    return bool(sweepers(loose) & fits)


# _DIVISORS[t]: bit w for every value w (1..13) dividing t (t up to the 364 of the whole pack).
_DIVISORS: Final = tuple(sum(1 << w for w in range(1, 14) if t % w == 0) for t in range(365))


def _fallback_move(
    pos: Position, rand: Callable[[], float], epsilon: float, table: _ByteTables
) -> int:
    """The playout policy on the full legal-move list: the capture taking the most points
    (own card included), else a random move; with probability ``epsilon`` a random move."""
    codes = pos.legal_codes()
    if len(codes) == 1 or rand() < epsilon:
        return codes[int(rand() * len(codes))]
    best_code = -1
    best_score = -1.0
    for code in codes:
        if code_action(code) != CAPTURE:
            continue
        taken = code_loose(code) | 1 << code_card(code)
        hb = code_houses(code)
        for i in range(5):
            if hb >> i & 1:
                taken |= pos.hcards[9 + i]
        score = _fold(taken, table) + rand()
        if score > best_score:
            best_score, best_code = score, code
    if best_code >= 0:
        return best_code
    return codes[int(rand() * len(codes))]


def playout(
    pos: Position,
    rng: random.Random,
    epsilon: float = DEFAULT_EPSILON,
    plies: int | None = None,
) -> None:
    """Play ``pos`` on with :func:`policy_move` (no undo: ``advance``): to the end of the deal,
    or for at most ``plies`` plies."""
    if pos.phase_id != PHASE_PLAY:
        if pos.phase_id == PHASE_OVER:
            return
        codes = pos.legal_codes()  # the bid (R13): a random one
        pos.advance(codes[int(rng.random() * len(codes))])
    advance = pos.advance
    move = _policy(pos.rules)
    rand = rng.random
    stop = 48 if plies is None else pos.plays + plies
    while pos.phase_id == PHASE_PLAY and pos.plays < stop:
        advance(move(pos, rand, epsilon))


# Weights of the cards still in play in :func:`estimate`: least squares fits (by stage of the
# deal) of the final score difference of heuristic-bot self-play deals on these features of
# the positions met (3,500 deals, every ply). ``plays`` is the number of plays made.
_W_LOOSE_NEXT: Final = 0.5  # loose points: the side to move gets the first chance at them


def _w_hand(plays: int) -> float:
    """A scoring card in a team's hands mostly ends in its pile early in the deal (about 0.7),
    hardly more often than not at its end."""
    return 0.75 - 0.016 * plays


def _w_secure(plays: int) -> float:
    """A house whose value the other side does not hold: its owners take it (R21d keeps their
    card), and it tends to grow: worth more than its points (1.9 early, 1.35 late)."""
    return 1.9 - 0.012 * plays


def _w_contested(plays: int) -> float:
    """A house whose value the other side also holds: a coin toss early, lost late (the other
    side's card is played at the end of the deal, when nobody else can take it first)."""
    return 0.1 - 0.025 * plays


_W_MOVER_SWEEP: Final = 1.0  # the side to move can sweep the floor: it will (R37, R38)


def estimate(pos: Position) -> float:
    """The deal score difference, team 0 minus team 1 (R42), expected from a position: exact
    when the deal is over; otherwise the points and sweeps scored so far plus a share of the
    card points still in hands, houses and loose cards (the position is a determinization:
    who holds which card is known)."""
    s0, s1 = pos.deal_scores()
    diff = float(s0 - s1)
    if pos.phase_id == PHASE_OVER:
        return diff
    table = _points_table(pos.rules.ten_diamonds_points)
    h = pos.hands
    plays = pos.plays
    if len(h) == 4:
        team0 = h[0] | h[2]
        team1 = h[1] | h[3]
    else:  # two players: each is his own team (R2P1)
        team0 = h[0]
        team1 = h[1]
    diff += _w_hand(plays) * (_fold(team0, table) - _fold(team1, table))
    hp = pos.hpresent
    while hp:
        low = hp & -hp
        hp ^= low
        v = low.bit_length() - 1
        owners = pos.howners[v]
        if not owners & 0b1010:  # team 0's house
            w = _w_contested(plays) if team1 & VALUE_MASK[v] else _w_secure(plays)
            diff += w * _fold(pos.hcards[v], table)
        elif not owners & 0b0101:  # team 1's house
            w = _w_contested(plays) if team0 & VALUE_MASK[v] else _w_secure(plays)
            diff -= w * _fold(pos.hcards[v], table)
    mover = seat_to_move(pos.dealer, plays, len(h))
    loose = _fold(pos.loose, table)
    if loose:
        diff += _W_LOOSE_NEXT * (loose if mover & 1 == 0 else -loose)
    if plays < 47 and _swept(
        pos.loose, pos.hpresent, _fold(h[mover], _VALUES), _fold(pos.loose, _VALUE_SUM)
    ):
        bonus = _W_MOVER_SWEEP * _sweep_value(pos.rules, plays + 1)
        diff += bonus if mover & 1 == 0 else -bonus
    return diff


# --- the tree -------------------------------------------------------------------------------


class _Node:
    """A node of the search tree, reached by one move; statistics are kept from the side of
    the seat that made that move (``sign`` turns the root team's result into his)."""

    __slots__ = ("avail", "children", "sign", "total", "visits")

    def __init__(self, sign: float) -> None:
        self.children: dict[int, _Node] = {}
        self.visits = 0
        self.total = 0.0
        self.avail = 0  # visits of the parent in which this move was legal
        self.sign = sign


class Search(NamedTuple):
    """What a search found: the move to play, its playouts and mean result (the root team's
    score difference / 100), the playouts made in all, and the work they did (``work``)."""

    move: int
    visits: int
    mean: float
    playouts: int
    work: int = 0


class IsmctsBot:
    """Single-observer information-set MCTS (see the module docstring).

    Args:
        iterations: playouts per move.
        milliseconds: time per move. With both, the search stops at whichever comes first;
            with neither, :data:`DEFAULT_MILLISECONDS`. Only an iteration budget alone makes
            the choice reproducible from the seed.
        exploration: the UCB1 constant.
        epsilon: probability of a random card in a playout step.
        widening: progressive widening below the root (0: off).
        horizon: playout plies before the result is estimated (None: to the end of the deal).
        root: how the root moves share the budget: ``"ucb"`` (UCB1 like every other node;
            the move played is the most visited) or ``"halving"`` (sequential halving on
            common determinizations; the move played is the best survivor).
        candidates: search only the heuristic bot's this many best card plays (0: all).
        inference: deal the hidden cards by what the history says (:mod:`.inference`)
            instead of uniformly.
        duty_first: deal by :class:`.inference.Dealer`, each owner one card of his house's
            value before the rest (R21d: he surely holds one), the deal kept with
            probability 1 / (his cards of that value): the deals of dealing everything and
            then checking the duty, without the hundreds of failed deals that evidence
            against the owner's value costs that way. Without ``inference``, the uniform
            deals of :meth:`View.determinize`, faster.
        endgame: once the stock is dealt and at most this many cards are left in the hands,
            solve each of ``endgame_samples`` determinizations exactly (:mod:`.endgame`) and
            play the move of the best mean instead of searching (0: never).
        endgame_samples: determinizations solved per endgame move.
        value: the leaf evaluation of cut playouts: ``"estimate"`` (:func:`estimate`) or
            ``"net"`` (the learned value network, :mod:`.valuenet`).
        prior: weight of the root move prior (progressive bias, 0: none): each root move's
            value relative to the best, added to its UCB score divided by its visits.
        prior_samples: determinizations the prior is measured on (``prior_from`` "value").
        prior_from: where the prior's values come from: ``"value"``, each root move's
            evaluation (``value``) right after it on ``prior_samples`` determinizations, or
            ``"learned"``, the learned action-value networks of the ``learned`` bot
            (:func:`seep.bots.learned.move_values`, from the view; four-player play only).
        work: stop the search early once its tree walks have looked at this many legal
            moves in all (None: no cap). A deterministic cap on a move's cost: an
            iteration costs more where the tree's nodes have many moves (a crowded floor, a
            full hand), and counting them, unlike a clock, plays the same moves on any
            machine.
        particles: weigh this many uniform deals by how well they explain the other seats'
            choices (:mod:`.likelihood`) and deal the search's determinizations by the
            per-card factors the weighted deals give, instead of ``inference``'s (0: off);
            these deals always deal the owners' cards first (as ``duty_first``).
    """

    name = "ismcts"

    def __init__(
        self,
        iterations: int | None = None,
        milliseconds: float | None = None,
        exploration: float = DEFAULT_EXPLORATION,
        epsilon: float = DEFAULT_EPSILON,
        widening: float = DEFAULT_WIDENING,
        horizon: int | None = DEFAULT_HORIZON,
        root: str = DEFAULT_ROOT,
        candidates: int = 0,
        inference: bool = False,
        duty_first: bool = False,
        endgame: int = 0,
        endgame_samples: int = 24,
        value: str = "estimate",
        prior: float = 0.0,
        prior_samples: int = 4,
        prior_from: str = "value",
        work: int | None = None,
        particles: int = 0,
    ) -> None:
        if iterations is None and milliseconds is None:
            milliseconds = DEFAULT_MILLISECONDS
        if iterations is not None and iterations < 1:
            raise SeepError(f"iterations must be at least 1, got {iterations}")
        if milliseconds is not None and milliseconds <= 0:
            raise SeepError(f"milliseconds must be positive, got {milliseconds}")
        if horizon is not None and horizon < 0:
            raise SeepError(f"horizon must be None or at least 0, got {horizon}")
        if root not in ("ucb", "halving"):
            raise SeepError(f"root must be 'ucb' or 'halving', got {root!r}")
        if candidates < 0:
            raise SeepError(f"candidates must be 0 (all moves) or more, got {candidates}")
        self.iterations = iterations
        self.milliseconds = milliseconds
        self.exploration = exploration
        self.epsilon = epsilon
        self.widening = widening
        self.horizon = horizon
        self.root = root
        self.candidates = candidates
        if endgame < 0 or endgame_samples < 1:
            raise SeepError("endgame must be 0 or more and endgame_samples at least 1")
        if value not in ("estimate", "net"):
            raise SeepError(f"value must be 'estimate' or 'net', got {value!r}")
        self.inference = inference
        self.duty_first = duty_first
        self.endgame = endgame
        self.endgame_samples = endgame_samples
        self.value = value
        if prior < 0 or prior_samples < 1:
            raise SeepError("prior must be 0 or more and prior_samples at least 1")
        self.prior = prior
        self.prior_samples = prior_samples
        if prior_from not in ("value", "learned"):
            raise SeepError(f"prior_from must be 'value' or 'learned', got {prior_from!r}")
        self.prior_from = prior_from
        if work is not None and work < 1:
            raise SeepError(f"work must be None or at least 1, got {work}")
        self.work = work
        if particles < 0:
            raise SeepError(f"particles must be 0 (off) or more, got {particles}")
        self.particles = particles
        self._bias: dict[int, float] = {}
        self._evaluate: Callable[[Position], float] = estimate
        if value == "net":
            from .valuenet import load_value

            self._evaluate = load_value(estimate)

    def choose(self, view: View, rng: random.Random) -> Decision:
        """Search from ``view`` and return the move found (see ``root``)."""
        codes = view.legal_codes()
        if not codes:
            raise SeepError(f"seat {view.seat} has no move to make (not his turn?)")
        if len(codes) == 1:
            return Decision(Move(codes[0]), "the only legal move")
        deal = self._dealer(view, rng)
        if (
            self.endgame
            and view.phase_id == PHASE_PLAY
            and view.stock_size == 0
            and sum(view.hand_sizes) <= self.endgame
        ):
            solved = self.solve_endgame(view, rng, sorted(codes), deal)
            if solved is not None:
                code, mean = solved
                return Decision(
                    Move(code),
                    f"solved the endgame exactly on {self.endgame_samples} deals: this move "
                    f"averages {mean:+.1f} points for our team",
                )
        if self.candidates and view.phase_id == PHASE_PLAY and len(codes) > self.candidates:
            codes = self.shortlist(view, codes)
        found = self.search(view, rng, codes, deal)
        return Decision(
            Move(found.move),
            f"searched {found.playouts:,} playouts: this move averages "
            f"{100.0 * found.mean:+.0f} points for our team",
        )

    def shortlist(self, view: View, codes: list[int]) -> list[int]:
        """The ``candidates`` moves of ``codes`` that the heuristic bot scores best: the
        search spends its budget telling apart the plausible moves only (on a crowded floor
        one card can have hundreds of uses, most of them poor)."""
        scored = HeuristicBot().score_moves(view, codes)
        # Sorted by score, then by code: the list depends on the view alone.
        ranked = sorted(((-sc, out.code) for sc, out, _ in scored))
        return [code for _, code in ranked[: self.candidates]]

    def _dealer(self, view: View, rng: random.Random) -> Callable[[random.Random], Position]:
        """How this search deals the hidden cards of ``view``: uniformly, or weighted by the
        history (``inference``), and by how well the deals explain the other seats' choices
        (``particles``)."""
        if self.particles:
            # The choices' weights stand instead of evidence()'s single signals: they read
            # the same throws (a throw past a capture scores poorly) and more, and evidence's
            # factors are overconfident (bench/inference.py: their per-card log score is
            # below the uniform deal's; the weighted deals' is above it).
            by_card = card_factors(
                view, Dealer(view, UNIFORM, duty_first=True), rng, self.particles
            )
            if by_card is not None:
                return Dealer(view, UNIFORM, duty_first=True, card_factors=by_card)
        if not self.inference:
            # duty_first: the same uniform deals by Dealer's Fisher-Yates, without
            # View.determinize's rng.shuffle (Python code per card) and its retries.
            return Dealer(view, UNIFORM, duty_first=True) if self.duty_first else view.determinize
        return Dealer(view, evidence(view), duty_first=self.duty_first)

    def _prior(
        self,
        view: View,
        rng: random.Random,
        codes: list[int],
        deal: Callable[[random.Random], Position],
    ) -> dict[int, float]:
        """The move prior: each root move's value by the network (``value="net"``) or
        :func:`estimate`, after it is made on ``prior_samples`` common determinizations,
        relative to the best, in points / 100, times ``prior``; with ``prior_from``
        ``"learned"``, the learned networks' values of the moves instead."""
        if self.prior_from == "learned":
            if view.phase_id != PHASE_PLAY or view.rules.players != 4:
                return {}  # the networks know the four-player play only
            # Imported here: the learned bot is pure Python, and only this option needs it.
            from .learned import move_values

            values = move_values(view, codes)
            best = max(values)
            return {c: self.prior * (v - best) for c, v in zip(codes, values, strict=True)}
        evaluate = self._evaluate
        sign = 1.0 if view.seat & 1 == 0 else -1.0
        totals = dict.fromkeys(codes, 0.0)
        for _ in range(self.prior_samples):
            det = deal(rng)
            for c in codes:
                det.push(c)
                totals[c] += sign * evaluate(det)
                det.pop()
        top = max(totals.values())
        scale = self.prior / (100.0 * self.prior_samples)
        return {c: scale * (t - top) for c, t in totals.items()}

    def solve_endgame(
        self,
        view: View,
        rng: random.Random,
        codes: list[int],
        deal: Callable[[random.Random], Position],
    ) -> tuple[int, float] | None:
        """The move of ``codes`` with the best mean exact value over ``endgame_samples``
        determinizations, and that mean (our team's points); ``None`` when a solve runs
        out of its node budget."""
        sign = 1 if view.seat & 1 == 0 else -1
        totals = [0] * len(codes)
        for _ in range(self.endgame_samples):
            values = solve_moves(deal(rng), codes)
            if values is None:
                return None
            for i, v in enumerate(values):
                totals[i] += sign * v
        best = max(range(len(codes)), key=lambda i: (totals[i], -i))
        return codes[best], totals[best] / self.endgame_samples

    def search(
        self,
        view: View,
        rng: random.Random,
        codes: list[int],
        deal: Callable[[random.Random], Position] | None = None,
    ) -> Search:
        """Search the root moves ``codes`` (the view's legal moves); ``deal`` samples the
        hidden cards (default: uniformly)."""
        if deal is None:
            deal = view.determinize
        if self.root == "halving":
            return self._search_halving(view, rng, codes)
        limit = self.iterations if self.iterations is not None else 1 << 62
        deadline = (
            time.perf_counter() + self.milliseconds / 1000.0
            if self.milliseconds is not None
            else math.inf
        )
        clock = time.perf_counter
        iterate = self._iterate
        team = view.seat & 1
        root = _Node(1.0)
        self._bias = self._prior(view, rng, codes, deal) if self.prior else {}
        work_limit = self.work if self.work is not None else 1 << 62
        n = 0
        work = 0
        while n < limit and work < work_limit and (n == 0 or clock() < deadline):
            n += 1
            # The root's moves are the view's own: they depend on his hand and the floor only.
            work += iterate(deal(rng), root, codes, [], team, rng)
        code, child = max(
            root.children.items(), key=lambda kv: (kv[1].visits, kv[1].total / kv[1].visits)
        )
        return Search(code, child.visits, child.total / child.visits, n, work)

    def _search_halving(self, view: View, rng: random.Random, codes: list[int]) -> Search:
        """Sequential halving at the root on common random numbers: in each round every root
        move still in the race is played on the same determinizations, with the same random
        stream, so that the luck of the hidden cards cancels out of their comparison; then the
        worse half drops out. Below each root move the tree is searched as usual. The budget
        is shared out evenly between the rounds."""
        team = view.seat & 1
        children = {c: _Node(1.0) for c in codes}
        alive = list(codes)
        rounds = (len(codes) - 1).bit_length()  # ceil(log2(moves)): one survivor at the end
        clock = time.perf_counter
        start = clock()
        budget = self.milliseconds / 1000.0 if self.milliseconds is not None else math.inf
        left = self.iterations if self.iterations is not None else 1 << 62
        iterate = self._iterate

        def mean(c: int) -> float:
            ch = children[c]
            return ch.total / ch.visits if ch.visits else -math.inf

        n = 0
        for r in range(rounds, 0, -1):
            # This round's share of what is left: playouts, or time.
            passes = max(1, left // r // len(alive))
            round_end = (
                start + budget - (budget - (clock() - start)) * (r - 1) / r
                if budget < math.inf
                else math.inf
            )
            done = 0
            while done < passes and (done == 0 or clock() < round_end):
                det = view.determinize(rng)
                state = rng.getstate()
                for c in alive:
                    rng.setstate(state)  # the same random stream for every root move
                    pos = det.copy()
                    child = children[c]
                    pos.advance(c)
                    if pos.phase_id == PHASE_OVER:
                        iterate(pos, child, [], [child], team, rng)
                    else:
                        iterate(pos, child, pos.legal_codes(), [child], team, rng)
                n += len(alive)
                left -= len(alive)
                done += 1
            if r > 1:
                alive.sort(key=mean, reverse=True)
                alive = alive[: (len(alive) + 1) // 2]
            if left <= 0 or clock() - start >= budget:
                break
        best = max(alive, key=mean)
        child = children[best]
        return Search(best, child.visits, child.total / child.visits, n)

    def _iterate(
        self,
        pos: Position,
        node: _Node,
        legal: list[int],
        path: list[_Node],
        team: int,
        rng: random.Random,
    ) -> int:
        """One iteration from ``node`` (whose moves legal in ``pos`` are ``legal``): select
        and expand down the tree, play out, and back the result up ``path`` plus the nodes
        visited. ``node`` is the search root when ``path`` is empty. Returns the number of
        legal moves the walk looked at (the ``work`` it did)."""
        c_ucb = self.exploration
        widening = self.widening
        log = math.log
        sqrt = math.sqrt
        rand = rng.random
        top = not path  # no widening at the search root: every root move gets tried
        bias = self._bias
        seen = 0
        while legal:
            seen += len(legal)
            children = node.children
            # UCB1 over the tried moves legal in this determinization; each of them was
            # available once more.
            best_score = -math.inf
            best: _Node | None = None
            best_code = 0
            tried = 0
            for c in legal:
                ch = children.get(c)
                if ch is None:
                    continue
                tried += 1
                ch.avail += 1
                score = ch.total / ch.visits + c_ucb * sqrt(log(ch.avail) / ch.visits)
                if top and bias:  # progressive bias: the prior fades as visits come in
                    score += bias[c] / ch.visits
                if score > best_score:
                    best_score = score
                    best = ch
                    best_code = c
            # Progressive widening: a node visited k times considers about
            # 1 + widening * sqrt(k) of its moves, so that replies are tried in the policy's
            # order of preference and the best ones are found before the others.
            if tried < len(legal) and (
                best is None or top or not widening or tried < 1 + widening * sqrt(node.visits)
            ):
                # Expansion: the playout policy's move if new here, else a random new one.
                code = policy_move(pos, rng, 0.0) if pos.phase_id == PHASE_PLAY else -1
                if code in children or code not in legal:
                    untried = [c for c in legal if c not in children]
                    code = untried[int(rand() * len(untried))]
                mover = seat_to_move(pos.dealer, pos.plays, len(pos.hands))
                child = _Node(1.0 if mover & 1 == team else -1.0)
                child.avail = 1
                children[code] = child
                pos.advance(code)
                path.append(child)
                break
            assert best is not None
            node = best
            top = False
            pos.advance(best_code)
            path.append(node)
            if pos.phase_id == PHASE_OVER:
                break
            legal = pos.legal_codes()
        playout(pos, rng, self.epsilon, self.horizon)
        result = self._evaluate(pos) / (100.0 if team == 0 else -100.0)
        for nd in path:
            nd.visits += 1
            nd.total += nd.sign * result
        return seen
