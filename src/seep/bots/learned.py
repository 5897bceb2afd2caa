"""The learned bot: a network that scores every legal move from the seat's view, no search.

A Deep Monte-Carlo action-value network (``seep train-agent``, :mod:`seep.bots.dmc`): for the
seat's view and one of its legal moves it predicts what the rest of the deal adds to the
mover's team's score difference (R42: card points, bonus and sweeps, partners sharing it),
in points / 100. The bot plays the move it rates highest among the heuristic bot's few best
(``candidates``, fixed by the training run and stored with the weights); nothing is sampled
or searched. The shipped file is an ensemble (``seep train-agent --merge``): several
networks from separate training runs, their values averaged, plus the heuristic's own score
of the move weighted by the file's ``prior``.

The inputs are :data:`STATE_NAMES`, features of the view (the hand and the unseen cards
counted by value, the floor, the houses, the score so far), and :data:`MOVE_NAMES`, features of
the move: its card and action and what it takes and leaves, read from the heuristic bot's own
one-ply scoring of it (:meth:`~.heuristic.HeuristicBot.score_moves`), which is itself an
input, so the network starts from the heuristic's knowledge and learns corrections to it.
Everything comes from the view: the bot is as honest as the heuristic (the honesty test,
tests/bots/test_bot_honesty.py, covers it).

The weights ship in ``seep/bots/data/learned.json`` (plain lists of floats) and are read with
the standard library, so the bot needs neither torch nor numpy and runs wherever the core
runs (Pyodide included). The first layer is split into the view's part, computed once a
decision, and the move's part (a few non-zero inputs), computed for each legal move.
The bid (R13) is the heuristic's, and so is every decision under the two-player rules
(docs/rules.md §12): the network was trained on four-player deals only.

>>> import random
>>> from seep.engine import Position
>>> from seep.view import View
>>> pos = Position.new_deal(3)
>>> for _ in range(6):
...     pos.push(pos.legal_codes()[0])
>>> d = LearnedBot().choose(View.from_position(pos, pos.to_move), random.Random(1))
>>> d.move in pos.legal_codes()
True
"""

from __future__ import annotations

import functools
import json
import random
from collections.abc import Sequence
from importlib import resources
from operator import add, mul
from typing import Any, Final

from ..cards import POINTS, VALUE, VALUE_MASK, mask_points, mask_value_sum
from ..codes import BUILD, PHASE_PLAY, code_action, code_card, code_value
from ..errors import SeepError
from ..moves import Move
from ..scoring import deal_scores
from ..view import View
from .base import Decision
from .heuristic import HeuristicBot, play_reason
from .tactics import Outcome

__all__ = [
    "MOVE_NAMES",
    "STATE_NAMES",
    "LearnedBot",
    "QNet",
    "candidates",
    "decision_features",
    "load_qnet",
    "load_qnets",
    "merge_weights",
    "qnets",
]

STATE_NAMES: Final = (
    "plays",  # / 48
    "stock",  # / 44
    "margin",  # our team's deal score minus theirs so far / 100
    "sweeps_us",  # sweep points / 100
    "sweeps_them",
    *(f"hand_{v}" for v in range(1, 14)),  # cards of value v in our hand / 4
    *(f"unseen_{v}" for v in range(1, 14)),  # unseen cards of value v / 4
    "unseen_points",  # card points not yet seen / 100
    "size_next",  # hand sizes / 12
    "size_partner",
    "size_prev",
    "size_own",
    "loose_cards",  # / 12
    "loose_points",  # / 20
    "loose_sum",  # / 52
    "house_points_us",  # / 20
    "house_points_them",
    "houses",  # / 4
    "last_capture_us",
    "last_capture_them",
)
MOVE_NAMES: Final = (
    "throw",
    "capture",
    "build",
    "cement",
    "break",
    *(f"card_{v}" for v in range(1, 14)),  # the value of the card played (one-hot)
    "card_points",  # / 10
    "target",  # the house's value of a build, cement or break / 13
    "keeps_target",  # our hand still holds a card of that value after the move
    "h_score",  # the heuristic's score of the move / 20
    "h_gap",  # its score less the best move's / 20
    "h_best",  # the heuristic's choice (one of its equal best)
    "gain",  # what the move scores now for our team / 20
    "taken_points",  # card points a capture takes / 20
    "sweep",  # sweep points scored / 50
    "threat",  # the next opponent's expected best capture afterwards / 20
    "over",  # the move ends the deal
    "after_loose_cards",  # / 12
    "after_loose_points",  # / 20
    "after_house_us",  # points in our team's houses afterwards / 20
    "after_house_them",
)
N_STATE: Final = len(STATE_NAMES)
N_MOVE: Final = len(MOVE_NAMES)


def _house_points(
    houses: tuple[tuple[int, int, bool, int], ...], ours: int, tdp: int
) -> tuple[int, int]:
    """Card points in houses owned by our team (seat bits ``ours``) and by the other."""
    us = them = 0
    for _, cards, _, owners in houses:
        pts = mask_points(cards, tdp)
        if owners & ours:
            us += pts
        if owners & ~ours:
            them += pts
    return us, them


def decision_features(
    view: View, codes: list[int], heuristic: HeuristicBot
) -> tuple[list[float], list[list[float]], list[tuple[float, Outcome, float]]]:
    """The view's :data:`STATE_NAMES`, each move's :data:`MOVE_NAMES` (in the order of
    ``codes``, card plays of the view's seat) and the heuristic's scoring of the moves."""
    seat = view.seat
    rules = view.rules
    n = rules.players
    tdp = rules.ten_diamonds_points
    team = seat & 1
    partner = (seat + 2) % n if n == 4 else -1
    ours = 1 << seat | (1 << partner if partner >= 0 else 0)
    s0, s1 = deal_scores(list(view.captured), list(view.sweeps), rules)
    margin = s0 - s1 if team == 0 else s1 - s0
    hand = view.hand
    unseen = view.unseen()
    sizes = view.hand_sizes
    loose = view.loose
    hu, ht = _house_points(view.houses, ours, tdp)
    last = view.last_capture
    state: list[float] = [
        view.plays / 48.0,
        view.stock_size / 44.0,
        margin / 100.0,
        view.sweeps[team] / 100.0,
        view.sweeps[1 - team] / 100.0,
    ]
    state += [(hand & VALUE_MASK[v]).bit_count() / 4.0 for v in range(1, 14)]
    state += [(unseen & VALUE_MASK[v]).bit_count() / 4.0 for v in range(1, 14)]
    state += [
        mask_points(unseen, tdp) / 100.0,
        sizes[(seat + 1) % n] / 12.0,
        sizes[partner] / 12.0 if partner >= 0 else 0.0,
        sizes[(seat - 1) % n] / 12.0,
        sizes[seat] / 12.0,
        loose.bit_count() / 12.0,
        mask_points(loose, tdp) / 20.0,
        mask_value_sum(loose) / 52.0,
        hu / 20.0,
        ht / 20.0,
        len(view.houses) / 4.0,
        1.0 if last >= 0 and last & 1 == team else 0.0,
        1.0 if last >= 0 and last & 1 != team else 0.0,
    ]
    scored = heuristic.score_moves(view, codes)
    best = max(s for s, _, _ in scored)
    moves: list[list[float]] = []
    for score, out, threat in scored:
        code = out.code
        card = code_card(code)
        action = code_action(code)
        value = VALUE[card]
        x = [0.0] * N_MOVE
        x[action] = 1.0  # THROW..BREAK are 0..4
        x[4 + value] = 1.0
        pts = POINTS[card] if tdp == 6 else mask_points(1 << card, tdp)
        x[18] = pts / 10.0
        if action >= BUILD:
            target = code_value(code)
            x[19] = target / 13.0
            left = hand & ~(1 << card)
            x[20] = 1.0 if left & VALUE_MASK[target] else 0.0
        x[21] = score / 20.0
        x[22] = (score - best) / 20.0
        x[23] = 1.0 if score >= best - 1e-9 else 0.0
        x[24] = out.gain / 20.0
        x[25] = out.points / 20.0
        x[26] = out.sweep / 50.0
        x[27] = threat / 20.0
        x[28] = 1.0 if out.over else 0.0
        x[29] = out.loose.bit_count() / 12.0
        x[30] = mask_points(out.loose, tdp) / 20.0
        au, at = _house_points(out.houses, ours, tdp)
        x[31] = au / 20.0
        x[32] = at / 20.0
        moves.append(x)
    return state, moves, scored


def candidates(scored: list[tuple[float, Outcome, float]], k: int) -> list[int]:
    """Indices of the heuristic's ``k`` best moves of ``scored`` (all of them for ``k`` 0),
    best first, equal scores in code order: the moves the network chooses among."""
    order = sorted(range(len(scored)), key=lambda i: (-scored[i][0], scored[i][1].code))
    return order[:k] if k > 0 else order


class QNet:
    """``q = w3 . relu(W2 relu(W1 [state, move] + b1) + b2) + b3`` in points / 100, from the
    JSON that ``seep train-agent`` exports; plain lists of floats. ``candidates``: how many
    of the heuristic's best moves the network chooses among (0: all), as in training."""

    def __init__(self, data: dict[str, Any]) -> None:
        try:
            if tuple(data["state"]) != STATE_NAMES or tuple(data["move"]) != MOVE_NAMES:
                raise SeepError("learned network weights were trained on other features")
            w1 = [[float(x) for x in row] for row in data["w1"]]
            self.b1 = [float(x) for x in data["b1"]]
            self.w2 = [[float(x) for x in row] for row in data["w2"]]
            self.b2 = [float(x) for x in data["b2"]]
            self.w3 = [float(x) for x in data["w3"]]
            self.b3 = float(data["b3"])
            self.candidates = int(data.get("candidates", 0))
            self.prior = float(data.get("prior", 0.0))
        except (KeyError, TypeError, ValueError) as exc:
            raise SeepError(f"learned network weights are malformed: {exc}") from None
        h1 = len(self.b1)
        if (
            len(w1) != h1
            or any(len(row) != N_STATE + N_MOVE for row in w1)
            or len(self.w2) != len(self.b2)
            or any(len(row) != h1 for row in self.w2)
            or len(self.w3) != len(self.b2)
        ):
            raise SeepError("learned network weights have inconsistent shapes")
        # Column-major halves of W1: the view's columns are summed once a decision, and a
        # move's few non-zero inputs each add one column.
        self.state_cols = [[row[i] for row in w1] for i in range(N_STATE)]
        self.move_cols = [[row[N_STATE + i] for row in w1] for i in range(N_MOVE)]
        self.info: dict[str, Any] = dict(data.get("info", {}))

    def hidden_state(self, state: list[float]) -> list[float]:
        """``W1[:, state] @ state + b1``: the view's share of the first layer."""
        return _add_columns(self.b1, state, self.state_cols)

    def q(self, base: list[float], move: list[float]) -> float:
        """The value of one move (points / 100) given :meth:`hidden_state` of the view."""
        h = [a if a > 0.0 else 0.0 for a in _add_columns(base, move, self.move_cols)]
        out = self.b3
        for w3, row, b in zip(self.w3, self.w2, self.b2, strict=True):
            z = b + sum(map(mul, row, h))
            if z > 0.0:
                out += w3 * z
        return out


def _add_columns(acc: list[float], xs: list[float], cols: list[list[float]]) -> list[float]:
    """``acc + sum(x * col)`` over the non-zero ``xs``; map() keeps the loops in C, which
    the 5 ms a move of an ensemble needs (most inputs are 0 or 1)."""
    for x, col in zip(xs, cols, strict=True):
        if x == 1.0:
            acc = list(map(add, acc, col))
        elif x != 0.0:
            acc = list(map(add, acc, map(x.__mul__, col)))
    return acc


def qnets(data: dict[str, Any]) -> tuple[QNet, ...]:
    """The networks of a weights file: one network (``seep train-agent``'s export), or an
    ensemble, ``nets`` (:func:`merge_weights`), each member a network's weights sharing the
    file's feature names and ``candidates``."""
    members = data.get("nets")
    if members is None:
        return (QNet(data),)
    if not isinstance(members, list) or not members:
        raise SeepError("learned network weights are malformed: 'nets' is not a list of nets")
    shared = {k: v for k, v in data.items() if k != "nets"}
    return tuple(QNet({**shared, **m}) for m in members)


def merge_weights(
    exports: list[dict[str, Any]], prior: float = 0.0, digits: int = 5
) -> dict[str, Any]:
    """One weights file holding the networks of ``exports`` (``seep train-agent``'s JSON,
    trained on the same features and candidates) as an ensemble whose value is their mean,
    plus ``prior`` times the heuristic's score of the move (see :class:`LearnedBot`);
    weights rounded to ``digits`` significant digits (the file is shipped)."""
    if not exports:
        raise SeepError("no networks to merge")
    first = exports[0]
    for data in exports:
        if data.get("state") != first.get("state") or data.get("move") != first.get("move"):
            raise SeepError("the networks were trained on different features")
        if data.get("candidates", 0) != first.get("candidates", 0):
            raise SeepError("the networks choose among different numbers of candidates")
        qnets(data)  # shapes checked

    def r(x: Any) -> Any:
        return [r(v) for v in x] if isinstance(x, list) else float(f"{x:.{digits}g}")

    keys = ("w1", "b1", "w2", "b2", "w3", "b3")
    return {
        "state": first["state"],
        "move": first["move"],
        "candidates": first.get("candidates", 0),
        "prior": prior,
        "nets": [{k: r(d[k]) for k in keys} for d in exports],
        "info": {"members": [d.get("info", {}) for d in exports]},
    }


class _Ensemble:
    """The mean value of several :class:`QNet` over a decision's moves, their first layers
    laid side by side so that each input adds one long column instead of one per network
    (fewer, longer map() calls: the time per move of five networks stays within 5 ms)."""

    def __init__(self, nets: tuple[QNet, ...]) -> None:
        self.b1 = [b for net in nets for b in net.b1]
        self.state_cols = [[w for net in nets for w in net.state_cols[i]] for i in range(N_STATE)]
        self.move_cols = [[w for net in nets for w in net.move_cols[i]] for i in range(N_MOVE)]
        self.parts: list[tuple[int, int, QNet]] = []
        start = 0
        for net in nets:
            self.parts.append((start, start + len(net.b1), net))
            start += len(net.b1)

    def values(self, state: list[float], moves: list[list[float]]) -> list[float]:
        """The networks' mean value of each of ``moves`` (points / 100) in ``state``."""
        base = _add_columns(self.b1, state, self.state_cols)
        out = []
        for move in moves:
            acc = _add_columns(base, move, self.move_cols)
            total = 0.0
            for start, stop, net in self.parts:
                h = [a if a > 0.0 else 0.0 for a in acc[start:stop]]
                total += net.b3
                for w3, row, b in zip(net.w3, net.w2, net.b2, strict=True):
                    z = b + sum(map(mul, row, h))
                    if z > 0.0:
                        total += w3 * z
            out.append(total / len(self.parts))
        return out


@functools.cache
def _ensemble(nets: tuple[QNet, ...]) -> _Ensemble:
    return _Ensemble(nets)


@functools.cache
def load_qnets(name: str = "learned.json") -> tuple[QNet, ...]:
    """The shipped network or ensemble (read once)."""
    text = resources.files("seep.bots").joinpath("data", name).read_text(encoding="utf-8")
    return qnets(json.loads(text))


def load_qnet(name: str = "learned.json") -> QNet:
    """The first (or only) network of the shipped weights."""
    return load_qnets(name)[0]


# The scoring the move features are made of (the heuristic keeps no state between calls).
_HEURISTIC: Final = HeuristicBot()


def move_values(view: View, codes: list[int], weights: str = "learned.json") -> list[float]:
    """The shipped networks' mean value of each of ``codes`` (card plays of the view's seat,
    in that order), in points / 100: what :class:`LearnedBot` ranks its candidates by, for
    the search's root move prior (:class:`~seep.bots.ismcts.IsmctsBot`, ``prior_from``
    ``"learned"``). From the view alone."""
    state, moves, _ = decision_features(view, codes, _HEURISTIC)
    return _ensemble(load_qnets(weights)).values(state, moves)


class LearnedBot:
    """The move the learned action-value network rates best (see the module docstring);
    ``weights`` names another file in ``seep/bots/data`` or gives loaded networks
    (:class:`QNet`, or several: an ensemble, their values averaged)."""

    name = "learned"

    def __init__(self, weights: str | QNet | Sequence[QNet] = "learned.json") -> None:
        if isinstance(weights, str):
            self.nets = load_qnets(weights)
        elif isinstance(weights, QNet):
            self.nets = (weights,)
        else:
            self.nets = tuple(weights)
        if not self.nets:
            raise SeepError("the learned bot needs at least one network")
        self.net = self.nets[0]
        self.heuristic = HeuristicBot()

    def choose(self, view: View, rng: random.Random) -> Decision:
        if view.phase_id != PHASE_PLAY or view.rules.players != 4:
            return self.heuristic.choose(view, rng)
        codes = sorted(view.legal_codes())
        if not codes:
            raise SeepError(f"seat {view.seat} has no move to make (not his turn?)")
        if len(codes) == 1:
            return Decision(Move(codes[0]), "the only legal move")
        state, moves, scored = decision_features(view, codes, self.heuristic)
        pool = candidates(scored, self.net.candidates)
        # The ensemble's mean, in points / 100, plus the heuristic's score (points) as a
        # prior (0 in the shipped file): an independent second opinion on close moves.
        values = _ensemble(self.nets).values(state, [moves[i] for i in pool])
        k = self.net.prior / 100.0
        values = [v + k * scored[i][0] for v, i in zip(values, pool, strict=True)]
        # Ties (rare with float outputs) go to the heuristic's order: a fixed order, no draw.
        best = max(range(len(pool)), key=lambda j: (values[j], -j))
        _, out, threat = scored[pool[best]]
        reason = play_reason(view, out, threat, scored)
        return Decision(
            Move(out.code),
            f"{reason} (the learned network: {100.0 * values[best]:+.0f} points)",
        )
