"""A learned evaluation: a small value network over a determinized position, standard library only.

The ISMCTS bot cuts its playouts and scores the position reached; the hand-fitted
:func:`~seep.bots.ismcts.estimate` was the only score until now. :func:`load_value` returns a
learned one: a network with one hidden layer (``tanh``) over :data:`FEATURE_NAMES`, features
of a complete position (a determinization: every hand known) seen from the side to move. It
predicts what the rest of the deal adds to the score difference (R42), so the exact score so
far is kept as it is and only the uncertain part is learned; ``estimate`` itself is one of the
inputs, so the net learns a correction to it.

The weights ship in ``seep/bots/data/value.json`` (plain lists of floats, a few kilobytes),
read with the standard library: the bots never import numpy. ``seep train`` (the ``train``
extra, :mod:`seep.bots.train`) reproduces them from a seed; docs/strength.md gives the command
and the figures. The module is compiled by mypyc with the core where a C compiler is at hand
(setup.py): about 5 µs an evaluation then (``python bench/search_parts.py``), 33 µs in pure Python.

>>> from seep.bots.ismcts import estimate
>>> from seep.engine import Position
>>> pos = Position.new_deal(3)
>>> pos.push(pos.legal_codes()[0])
>>> value = load_value(estimate)
>>> isinstance(value(pos), float)
True
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Callable
from importlib import resources
from typing import Any, Final

from ..cards import VALUE_MASK, mask_points, mask_value_sum, seat_to_move
from ..codes import PHASE_OVER
from ..engine import Position
from ..errors import SeepError
from ..floor import sweep_values

__all__ = ["FEATURE_NAMES", "Net", "features", "load_value"]

FEATURE_NAMES = (
    "estimate",  # estimate(pos) less the score so far, for the side to move, / 100
    "plays",  # / 48
    "hand_points_us",  # card points in our two hands, / 20
    "hand_points_them",
    "hand_cards_us",  # / 24
    "hand_cards_them",
    "house_points_us",  # points in houses our team owns, / 20
    "house_points_them",
    "house_secure_us",  # ... of which in houses whose value the other team lacks
    "house_secure_them",
    "loose_points",  # / 20
    "loose_cards",  # / 12
    "loose_sum",  # value sum / 52
    "sweep_now",  # the mover can take the whole floor (R24, R37): the bonus / 50
    "sweep_next",  # the next player could take the whole floor if the mover threw nothing
    "high_us",  # cards 9..13 in our hands / 10 (they capture and build houses)
    "high_them",
    "last_capture_us",  # the leftovers go to the last capturer (R40)
    "last_capture_them",
    "stock",  # / 44 (before play 1 the stock is still to be dealt, R18)
)
_HIGH: Final = VALUE_MASK[9] | VALUE_MASK[10] | VALUE_MASK[11] | VALUE_MASK[12] | VALUE_MASK[13]


def features(pos: Position, base: float, scores: tuple[int, int] | None = None) -> list[float]:
    """:data:`FEATURE_NAMES` of a play-phase position, from the side of the seat to move;
    ``base`` is :func:`~seep.bots.ismcts.estimate` of it (team 0 minus team 1), ``scores``
    its ``deal_scores()`` if the caller has them."""
    plays = pos.plays
    h = pos.hands
    n = len(h)  # four seats, or two (docs/rules.md §12: each player his own team)
    mover = seat_to_move(pos.dealer, plays, n)
    us = mover & 1
    ours = h[us] | h[us + 2] if n == 4 else h[us]
    theirs = h[1 - us] | h[3 - us] if n == 4 else h[1 - us]
    tdp = pos.rules.ten_diamonds_points
    s0, s1 = pos.deal_scores() if scores is None else scores
    sign = 1.0 if us == 0 else -1.0
    hp_us = hp_them = sec_us = sec_them = 0
    value_mask = VALUE_MASK  # a local: a module global is a dictionary look-up when compiled
    hpresent = pos.hpresent
    bits = hpresent
    while bits:
        low = bits & -bits
        bits ^= low
        v = low.bit_length() - 1
        pts = mask_points(pos.hcards[v], tdp)
        owners = pos.howners[v]
        team0 = not owners & 0b1010
        team1 = not owners & 0b0101
        mine = team0 if us == 0 else team1
        other = team1 if us == 0 else team0
        if mine:
            hp_us += pts
            if not theirs & value_mask[v]:
                sec_us += pts
        elif other:
            hp_them += pts
            if not ours & value_mask[v]:
                sec_them += pts
    loose = pos.loose
    sweeps = sweep_values(loose, hpresent) if loose or hpresent else 0
    nxt = h[(mover + 1) % n]
    sweep_now = 1.0 if sweeps and _holds_any(h[mover], sweeps) else 0.0
    sweep_next = 1.0 if sweeps and _holds_any(nxt, sweeps) else 0.0
    last = pos.last_capture
    return [
        sign * (base - (s0 - s1)) / 100.0,
        plays / 48.0,
        mask_points(ours, tdp) / 20.0,
        mask_points(theirs, tdp) / 20.0,
        ours.bit_count() / 24.0,
        theirs.bit_count() / 24.0,
        hp_us / 20.0,
        hp_them / 20.0,
        sec_us / 20.0,
        sec_them / 20.0,
        mask_points(loose, tdp) / 20.0,
        loose.bit_count() / 12.0,
        mask_value_sum(loose) / 52.0,
        sweep_now,
        sweep_next,
        (ours & _HIGH).bit_count() / 10.0,
        (theirs & _HIGH).bit_count() / 10.0,
        1.0 if last >= 0 and last & 1 == us else 0.0,
        1.0 if last >= 0 and last & 1 != us else 0.0,
        len(pos.stock) / 44.0,
    ]


def _holds_any(hand: int, values: int) -> bool:
    """Whether ``hand`` holds a card of one of ``values`` (bit v for value v)."""
    while values:
        low = values & -values
        values ^= low
        if hand & VALUE_MASK[low.bit_length() - 1]:
            return True
    return False


class Net:
    """A one-hidden-layer network: ``out = w2 . tanh(W1 x + b1) + b2``, scaled by 100 (the
    output is in points / 100). Plain lists: a forward pass is a few hundred multiplications."""

    def __init__(self, data: dict[str, Any]) -> None:
        try:
            names = tuple(data["features"])
            self.w1: list[list[float]] = [[float(x) for x in row] for row in data["w1"]]
            self.b1: list[float] = [float(x) for x in data["b1"]]
            self.w2: list[float] = [float(x) for x in data["w2"]]
            self.b2 = float(data["b2"])
        except (KeyError, TypeError, ValueError) as exc:
            raise SeepError(f"value network weights are malformed: {exc}") from None
        if names != FEATURE_NAMES:
            raise SeepError("value network weights were trained on other features")
        if len(self.w1) != len(self.b1) or len(self.w2) != len(self.b1):
            raise SeepError("value network weights have inconsistent shapes")
        if any(len(row) != len(FEATURE_NAMES) for row in self.w1):
            raise SeepError("value network weights have inconsistent shapes")
        self.info: dict[str, Any] = dict(data.get("info", {}))
        # W1 row after row in one list: one look-up per weight in the forward pass.
        self.flat: list[float] = [x for row in self.w1 for x in row]

    def forward(self, x: list[float]) -> float:
        """The network's output for one feature vector (points / 100)."""
        out = self.b2
        n = len(x)
        flat = self.flat
        b1 = self.b1
        w2 = self.w2
        # Only the non-zero inputs: a zero input adds a signed zero to a sum that starts at
        # +0.0, which leaves every sum exactly as it was (about half the inputs are zero).
        live = [i for i in range(n) if x[i] != 0.0]
        k = 0
        for j in range(len(b1)):
            # Summed left to right from 0, like sum() over the products: the same float.
            acc = 0.0
            for i in live:
                acc += flat[k + i] * x[i]
            k += n
            out += w2[j] * math.tanh(b1[j] + acc)
        return out

    def value(self, pos: Position, estimate: Callable[[Position], float]) -> float:
        """The expected deal score difference, team 0 minus team 1, like ``estimate``
        (:func:`seep.bots.ismcts.estimate`, one of the inputs)."""
        base = estimate(pos)
        if pos.phase_id == PHASE_OVER:
            return base
        scores = pos.deal_scores()
        s0, s1 = scores
        rest = 100.0 * self.forward(features(pos, base, scores))
        mover = seat_to_move(pos.dealer, pos.plays, len(pos.hands))
        return (s0 - s1) + (rest if mover & 1 == 0 else -rest)


@functools.cache
def load_net(name: str = "value.json") -> Net:
    """The shipped network (read once)."""
    text = resources.files("seep.bots").joinpath("data", name).read_text(encoding="utf-8")
    return Net(json.loads(text))


def load_value(estimate: Callable[[Position], float]) -> Callable[[Position], float]:
    """The shipped network's :meth:`Net.value` over ``estimate``: a drop-in for it."""
    net = load_net()

    def value(pos: Position) -> float:
        return net.value(pos, estimate)

    return value
