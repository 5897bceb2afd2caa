"""Shared helpers of the rule-based bots: what a move does, card counting, capture outlooks,
and what a capture takes and scores in words (a move in words is
:func:`seep.notation.move_words`).

Everything here works from a :class:`~seep.view.View` (the seat's information set) or from
public floor masks, never from hidden cards, so bots built on it stay honest.

>>> from seep.cards import parse_card, parse_cards
>>> capture_outlook(parse_cards("3S 4H 7D"), 7, 6)   # 7D and {3S, 4H}: 3 points, all taken
(3, True)
"""

from __future__ import annotations

from math import comb

from ..cards import VALUE_MASK, mask_points, seat_to_move
from ..codes import (
    CAPTURE,
    code_action,
    code_card,
    code_houses,
    code_loose,
)
from ..engine import Position
from ..floor import ALL_UNIONS, floor_index, group_unions
from ..notation import card_text, cards_text
from ..view import View

__all__ = [
    "Counting",
    "Outcome",
    "capture_outlook",
    "capture_text",
    "simulate",
    "team_margin",
]

# --- capture outlooks ------------------------------------------------------------------------

# (loose mask, value, ten-of-diamonds points) -> (best points, coverable); a pure function of
# public masks, bounded by clearing like the engine's floor caches.
_OUTLOOK: dict[tuple[int, int, int], tuple[int, bool]] = {}
_OUTLOOK_LIMIT = 100_000


def capture_outlook(loose: int, v: int, tdp: int) -> tuple[int, bool]:
    """What a card of value ``v`` can take from the loose cards ``loose``: the most card points
    of a family of disjoint v-groups (R23, R24; a maximal family can always be chosen with at
    least these points, R25), and whether v-groups can cover every loose card (a sweep of the
    loose part, R37). ``tdp`` is the ten of diamonds' worth (R5).
    """
    key = (loose, v, tdp)
    hit = _OUTLOOK.get(key)
    if hit is not None:
        return hit
    groups = floor_index(loose)[0][v] if loose else ()
    if not groups:
        result = (0, not loose)
    else:
        # Every family of disjoint v-groups (R24): the most points of one, and whether one
        # covers the whole loose floor.
        best = 0
        cover = False
        for u in group_unions(groups, ALL_UNIONS):
            pts = mask_points(u, tdp)
            if pts > best:
                best = pts
            cover = cover or u == loose
        result = (best, cover)
    if len(_OUTLOOK) > _OUTLOOK_LIMIT:
        _OUTLOOK.clear()
    _OUTLOOK[key] = result
    return result


# --- card counting ---------------------------------------------------------------------------


class Counting:
    """The unseen cards of a view, counted by value, and the chances that some seat holds any
    card of a set of values (a seat's hand is a uniform draw from the unseen cards; a house
    owner surely holds its value, R21d).
    """

    __slots__ = ("_none", "hand_size", "known", "left", "n_unseen", "players", "unseen")

    def __init__(self, view: View) -> None:
        self.unseen = view.unseen()
        self.n_unseen = self.unseen.bit_count()
        # left[v]: unseen cards of value v.
        self.left = [0] + [(self.unseen & VALUE_MASK[v]).bit_count() for v in range(1, 14)]
        # Hand sizes as they will be when the other seats next play: before play 1 the
        # others have not been dealt yet (R18: the bidder ends with 11, the others with 12).
        # Two players (R2P4): 11 and 12 after play 1 too (23 and 24 with second_deal false).
        # Otherwise a hand is a uniform draw from the unseen cards, the stock included.
        players = view.rules.players
        self.players = players
        sizes = list(view.hand_sizes)
        if view.plays == 0 and view.stock_size:
            bidder = seat_to_move(view.dealer, 0, players)
            full = 24 if players == 2 and not view.rules.second_deal else 12
            sizes = [full - 1 if s == bidder else full for s in range(players)]
        self.hand_size = sizes
        # known[s]: bitmask of values seat s surely holds (owners' duty, R21d, under both
        # add_retention settings).
        known = [0] * players
        for value, _, _, owners in view.houses:
            for s in range(players):
                if owners >> s & 1:
                    known[s] |= 1 << value
        self.known = known
        self._none: dict[tuple[int, int], float] = {}

    def p_none(self, n: int, k: int) -> float:
        """Chance that a hand of ``n`` unseen cards holds none of ``k`` given unseen cards."""
        key = (n, k)
        hit = self._none.get(key)
        if hit is None:
            total = self.n_unseen
            if n <= 0 or k <= 0:
                hit = 1.0
            elif n > total or k > total - n:
                hit = 0.0
            else:
                hit = comb(total - k, n) / comb(total, n)
            self._none[key] = hit
        return hit

    def p_holds(self, seats: tuple[int, ...], values: int) -> float:
        """Chance that the given seats together hold a card of one of ``values`` (bit v)."""
        known = 0
        n = 0
        for s in seats:
            known |= self.known[s]
            n += self.hand_size[s]
        if known & values:
            return 1.0
        k = 0
        m = values
        while m:
            low = m & -m
            m ^= low
            k += self.left[low.bit_length() - 1]
        return 1.0 - self.p_none(n, k)

    def expected_best(self, seat: int, gains: list[tuple[float, int]]) -> float:
        """Expected best of ``gains`` ((gain, value) pairs) that seat ``seat`` can realise:
        it realises a gain when it holds a card of that value, and takes the best it holds."""
        if not gains:
            return 0.0
        gains = sorted(gains, reverse=True)
        n = self.hand_size[seat]
        known = self.known[seat]
        total = 0.0
        prev = 0.0
        k = 0
        sure = False
        for g, v in gains:
            if g <= 0:
                break
            k += self.left[v]
            sure = sure or bool(known >> v & 1)
            p = 1.0 if sure else 1.0 - self.p_none(n, k)
            total += g * (p - prev)
            prev = p
            if sure:
                break
        return total


# --- what a move does ------------------------------------------------------------------------


class Outcome:
    """The public result of one of the mover's moves, from the mover's team's side (read
    only). A plain class, not a dataclass: the bots make one for every legal move they weigh,
    and a compiled dataclass is built by a Python ``__init__`` (five times slower)."""

    __slots__ = ("code", "gain", "houses", "loose", "over", "points", "sweep")

    def __init__(
        self,
        *,
        code: int,
        gain: int,
        points: int,
        sweep: int,
        loose: int,
        houses: tuple[tuple[int, int, bool, int], ...],
        over: bool,
    ) -> None:
        self.code = code
        self.gain = gain  # change of (our score - their score): card points, sweeps, leftovers
        self.points = points  # card points a capture takes, the played card included
        self.sweep = sweep  # sweep bonus scored by the move
        self.loose = loose  # loose cards after the move
        self.houses = houses  # houses after the move
        self.over = over  # the move ended the deal

    def _fields(self) -> tuple[object, ...]:
        return (self.code, self.gain, self.points, self.sweep, self.loose, self.houses, self.over)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Outcome) and self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        return (
            f"Outcome(code={self.code}, gain={self.gain}, points={self.points}, "
            f"sweep={self.sweep}, loose={self.loose}, houses={self.houses}, over={self.over})"
        )


def team_margin(pos: Position, team: int) -> int:
    """Score of ``team`` minus the other's so far in the deal (R42)."""
    a, b = pos.deal_scores()
    return a - b if team == 0 else b - a


def simulate(shell: Position, code: int, team: int, base: int) -> Outcome:
    """Make ``code`` on ``shell`` (a view's public position), read the result, take it back.
    ``base`` is :func:`team_margin` before the move."""
    points = 0
    if code_action(code) == CAPTURE:
        # The capture's own cards; at the end of the deal the leftovers (R40) come on top.
        taken = 1 << code_card(code) | code_loose(code)
        hb = code_houses(code)
        for v, cards, _, _ in shell.houses():
            if hb >> (v - 9) & 1:
                taken |= cards
        points = mask_points(taken, shell.rules.ten_diamonds_points)
    sweeps_before = shell.sweeps[team]
    shell.push(code)
    try:
        return Outcome(
            code=code,
            gain=team_margin(shell, team) - base,
            points=points,
            sweep=shell.sweeps[team] - sweeps_before,
            loose=shell.loose,
            houses=tuple(shell.houses()),
            over=shell.is_over(),
        )
    finally:
        shell.pop()


def _taken_text(code: int) -> str:
    """What a capture takes, in words: ``the house of 10 and 3♠, 4♥``."""
    items = [f"the house of {9 + i}" for i in range(5) if code_houses(code) >> i & 1]
    if code_loose(code):
        items.append(cards_text(code_loose(code)))
    return " and ".join(items)


def capture_text(out: Outcome) -> str:
    """A capture in words with what it scores: ``captures 10♦ and 5♠ with 5♥ for 11 points``,
    ``sweeps with 7♣ (3♠, 4♥): 3 points + 50 for the sweep``."""
    code = out.code
    card = code_card(code)
    what = _taken_text(code)
    pts = f"{out.points} point" + ("" if out.points == 1 else "s")
    if out.sweep:
        return f"sweeps with {card_text(card)} ({what}): {pts} + {out.sweep} for the sweep"
    return f"captures {what} with {card_text(card)} for {pts}"
