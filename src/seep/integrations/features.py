"""Encodings for learning agents: a fixed-size observation tensor and per-move features.

Both read only a :class:`~seep.view.View` (one seat's information set), so an agent trained on
them cannot use hidden cards. numpy is used at this edge only; the engine stays pure Python.

* :func:`observation` - a float32 vector of :data:`OBS_SIZE` values in ``[0, 1]``: the view
  (card sets as 52-bit planes, houses, sizes, the bid, scores, the match) plus the mover's
  sub-decisions so far (:class:`~seep.integrations.actions.MoveBuilder`). Seats are relative
  to the viewer: 0 = the viewer, 1 = the next seat (on his right), 2 = the partner, 3 = the
  previous seat. :data:`OBS_FIELDS` names the slices.
* :func:`candidates` - the legal moves of a view, each with a feature vector of
  :data:`MOVE_FEATURES` values (:data:`MOVE_FEATURE_NAMES`) describing the move and the floor
  it leaves, for action-conditioned policies (score each candidate, softmax over them).

>>> from seep.engine import Position
>>> from seep.view import View
>>> pos = Position.new_deal(seed=1)
>>> v = View.from_position(pos, pos.bidder)
>>> observation(v).shape, float(observation(v).max()) <= 1.0
((504,), True)
>>> codes, feats = candidates(v)
>>> len(codes) == feats.shape[0], feats.shape[1] == MOVE_FEATURES
(True, True)
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..cards import VALUE_MASK, card_value, mask_points, mask_value_sum
from ..codes import BID, BREAK, BUILD, CAPTURE, CEMENT, REDEAL
from ..engine import Position
from ..view import View
from .actions import NUM_ACTIONS, NUM_USES, MoveBuilder
from .hotpath import INTS_PER_GAME, NUM_REALS, REAL_FIELDS, observation_parts, view_parts

__all__ = [
    "MOVE_FEATURES",
    "MOVE_FEATURE_NAMES",
    "OBS_FIELDS",
    "OBS_SIZE",
    "ObservationBatch",
    "candidates",
    "mask_array",
    "move_features",
    "observation",
    "position_observation",
]

Array = npt.NDArray[np.float32]
_MASK_BYTES = (NUM_ACTIONS + 7) // 8

# --- the observation ----------------------------------------------------------------------

# Binary part, built as one big int and unpacked in one numpy call: (name, width).
_BINARY: tuple[tuple[str, int], ...] = (
    ("hand", 52),
    ("loose", 52),
    ("house_cards", 52),
    ("captured_own", 52),
    ("captured_other", 52),
    ("unseen", 52),
    ("pending_card", 52),  # the card chosen at stage 1 of the move being built
    ("pending_items", 57),  # loose cards and houses chosen at stage 3
    ("pending_use", NUM_USES),
    ("stage", 4),  # not building / card / use / items
)
# Scalar part: (name, width).
_SCALAR: tuple[tuple[str, int], ...] = (
    ("houses", 30),  # per value 9..13: present, cemented, owners by relative seat (4)
    ("hand_sizes", 4),  # / 12 (two players: / 24), relative seats
    ("stock", 1),  # / 44
    ("facedown", 1),  # / 4
    ("plays", 1),  # / 48
    ("phase", 3),
    ("bid", 5),  # 9..13
    ("to_move", 4),  # relative seat
    ("dealer", 4),  # relative seat
    ("sweeps", 2),  # own, other team; / 200, clipped
    ("last_capture", 3),  # own team, other team, nobody
    ("match", 4),  # diff (0.5 = level), baazis own / other, deals
)


def _layout() -> tuple[dict[str, slice], int, int]:
    fields: dict[str, slice] = {}
    i = 0
    for name, width in _BINARY:
        fields[name] = slice(i, i + width)
        i += width
    nbin = i
    for name, width in _SCALAR:
        fields[name] = slice(i, i + width)
        i += width
    return fields, nbin, i


OBS_FIELDS, _NBIN, OBS_SIZE = _layout()
_OBS_BYTES = OBS_SIZE // 8  # 63: the 0/1 entries come as one int, bit k for entry k
assert OBS_SIZE % 8 == 0
# The real-valued entries (seep.integrations.hotpath gives their values in this order).
_REAL_IDX = np.concatenate(
    [np.arange(OBS_FIELDS[f].start, OBS_FIELDS[f].stop) for f in REAL_FIELDS]
)
# Each byte's 8 bits as 8 float32 (or int8) 0/1 values, least significant bit first: a
# table lookup turns the bytes of an int into entries in one numpy call.
_BYTE_BITS = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1, bitorder="little")
_BYTE_F32 = _BYTE_BITS.astype(np.float32)
_BYTE_I8 = _BYTE_BITS.view(np.int8)


def observation(view: View, builder: MoveBuilder | None = None, out: Array | None = None) -> Array:
    """The observation vector of a view (``OBS_SIZE`` float32 values in ``[0, 1]``).

    ``builder`` is the sub-decision state of the move being built (the choices are public:
    the move reveals them anyway); ``out`` is an array to fill in place."""
    return _fill(*view_parts(view, builder), out)


def position_observation(
    pos: Position, seat: int, builder: MoveBuilder | None = None, out: Array | None = None
) -> Array:
    """:func:`observation` of ``View.from_position(pos, seat)``, the same values, made
    without the view (:func:`seep.integrations.hotpath.observation_parts`): what the
    environments compute on every step."""
    return _fill(*observation_parts(pos, seat, builder), out)


def _fill(big: int, reals: list[float], out: Array | None) -> Array:
    # ndarray.take, not indexing: a fraction of the cost on arrays this small.
    entries = _BYTE_F32.take(np.frombuffer(big.to_bytes(_OBS_BYTES, "little"), np.uint8), 0)
    if out is None:
        out = entries.reshape(OBS_SIZE)
    else:
        out[:] = entries.reshape(OBS_SIZE)
    out[_REAL_IDX] = reals
    return out


class ObservationBatch:
    """The observations of N games in one float32 ``(N, OBS_SIZE)`` array (:attr:`obs`) and
    their action masks in one int8 ``(N, NUM_ACTIONS)`` array (:attr:`mask`), both written
    by :meth:`write` in a few numpy calls for the whole batch."""

    def __init__(self, num: int) -> None:
        self.obs = np.zeros((num, OBS_SIZE), np.float32)
        self.mask = np.zeros((num, NUM_ACTIONS), np.int8)
        # The same memory seen as (bytes of the packed int, 8 entries) for ndarray.take.
        self._obs_bytes = self.obs.reshape(num * _OBS_BYTES, 8)
        self._mask_bits = np.zeros((num, 8 * _MASK_BYTES), np.int8)
        self._mask_bytes = self._mask_bits.reshape(num * _MASK_BYTES, 8)
        #: The buffer hotpath.games_ints writes into, and the same memory as ints.
        self.ints = bytearray(8 * INTS_PER_GAME * num)
        self._ints = np.frombuffer(self.ints, "<i8").reshape(num, INTS_PER_GAME)
        self._reals = np.zeros((num, NUM_REALS), np.float64)  # write_ints' real values
        self._num = num

    def write(self, obs: bytes, reals: list[float], masks: bytes) -> None:
        """Fill both arrays from :func:`~seep.integrations.hotpath.batch_parts`."""
        _BYTE_F32.take(np.frombuffer(obs, np.uint8), 0, self._obs_bytes)
        self.obs[:, _REAL_IDX] = np.array(reals, np.float32).reshape(-1, NUM_REALS)
        _BYTE_I8.take(np.frombuffer(masks, np.uint8), 0, self._mask_bytes)
        self.mask[:] = self._mask_bits[:, :NUM_ACTIONS]

    def write_ints(self, players: int, baazi_lead: int) -> None:
        """Fill both arrays from what :func:`~seep.integrations.hotpath.games_ints` wrote
        into :attr:`ints` (the games' rules: ``players`` and ``baazi_lead``): the same values
        as :meth:`write` of :func:`~seep.integrations.hotpath.batch_parts`."""
        num = self._num
        a = self._ints  # a view of self.ints: nothing to convert
        chunk_bytes = a[:, :12].view(np.uint8).reshape(num, 12, 8)
        # Each chunk's 7 low bytes (little end first), one game's after the other, unpacked
        # to bits in one call: 9 chunks of the observation's 504 entries, then 3 of the mask.
        bits = np.unpackbits(chunk_bytes[:, :, :7], axis=2, bitorder="little")
        bits = bits.reshape(num, 12 * 56)
        self.obs[:] = bits[:, :OBS_SIZE]
        self.mask[:] = bits[:, OBS_SIZE : OBS_SIZE + NUM_ACTIONS]
        # hotpath._reals' arithmetic on every column at once, the same doubles: x / divisor,
        # + 0.5 for the baazi difference (+ 0.0, nothing, elsewhere), then capped at 1 where
        # it is (at inf elsewhere) and at 0 for the difference (-inf elsewhere); then float32.
        # The counts come in games_ints' order: 10 in the chunks' eighth bytes, then 3 ints.
        divisors, offsets, highs, lows = _real_rows(players, baazi_lead)
        r = self._reals
        r[:, :10] = chunk_bytes[:, :10, 7]
        r[:, 10:] = a[:, 12:]
        r /= divisors
        r += offsets
        np.minimum(r, highs, out=r)
        np.maximum(r, lows, out=r)
        self.obs[:, _INTS_REAL_IDX] = r


_Row = npt.NDArray[np.float64]
# The real values in the order hotpath.games_ints gives their counts (indices into
# REAL_FIELDS' order): hand sizes, stock, face-down, plays, baazis, deals, then sweeps and
# the baazi difference; and their columns in the observation.
_INTS_ORDER = np.array([0, 1, 2, 3, 4, 5, 6, 10, 11, 12, 7, 8, 9])
_INTS_REAL_IDX = _REAL_IDX[_INTS_ORDER]
_REAL_ROWS: dict[tuple[int, int], tuple[_Row, _Row, _Row, _Row]] = {}


def _real_rows(players: int, baazi_lead: int) -> tuple[_Row, _Row, _Row, _Row]:
    """write_ints' rows for the 13 real values: divisors, offsets, upper and lower bounds, in
    the order hotpath.games_ints gives the counts (:data:`_INTS_ORDER` of REAL_FIELDS'
    order: hand sizes 4, stock, face-down, plays, sweeps 2, baazi difference, baazis 2,
    deals)."""
    key = (players, baazi_lead)
    rows = _REAL_ROWS.get(key)
    if rows is None:
        most = 48.0 / players
        lead = baazi_lead if baazi_lead > 1 else 1
        inf = np.inf
        divisors = [most] * 4 + [44.0, 4.0, 48.0, 200.0, 200.0, 2.0 * lead, 10.0, 10.0, 50.0]
        offsets = [0.0] * 9 + [0.5] + [0.0] * 3
        highs = [inf] * 7 + [1.0] * 6
        lows = [-inf] * 9 + [0.0] + [-inf] * 3
        rows = _REAL_ROWS[key] = (
            np.array(divisors)[_INTS_ORDER],
            np.array(offsets)[_INTS_ORDER],
            np.array(highs)[_INTS_ORDER],
            np.array(lows)[_INTS_ORDER],
        )
    return rows


def mask_array(mask: int) -> npt.NDArray[np.int8]:
    """The int8 0/1 array of a bitmask of action ids (bit ``a`` for action ``a``)."""
    bits = _BYTE_I8.take(np.frombuffer(mask.to_bytes(_MASK_BYTES, "little"), np.uint8), 0)
    return bits.reshape(8 * _MASK_BYTES)[:NUM_ACTIONS]


# --- candidate moves ----------------------------------------------------------------------

MOVE_FEATURE_NAMES: tuple[str, ...] = (
    "bias",
    *(f"action_{a}" for a in ("throw", "capture", "build", "cement", "break", "bid", "redeal")),
    *(f"card_value_{v}" for v in range(1, 14)),
    *(f"target_{v}" for v in range(9, 14)),  # bid value or the house value made
    "card_points",  # / 10
    "captured_cards",  # cards won by a capture (card included) / 10
    "captured_points",  # / 20
    "sweep",  # the capture clears the floor
    "floor_loose_after",  # loose cards left / 10
    "floor_points_after",  # points left on the floor (loose and houses) / 20
    "floor_sum_after",  # value sum of the loose cards left / 52
    "floor_sweepable_after",  # no house and loose sum <= 13: one card could sweep next
    "houses_after",  # / 5
    "my_houses_after",  # houses my team owns after the move / 5
    "house_points",  # points in the house made or joined / 20
    "hold_target_after",  # I still hold a card of the house value made (R21d)
    "same_value_left",  # cards of the played card's value still in my hand / 3
    "hand_after",  # / 12
    "bid_value_cards",  # for a bid: cards of that value in hand / 4
)
MOVE_FEATURES = len(MOVE_FEATURE_NAMES)
_F = {name: i for i, name in enumerate(MOVE_FEATURE_NAMES)}


def candidates(view: View) -> tuple[list[int], Array]:
    """The legal moves of the view's seat (engine codes, the engine's order) and a
    ``(len(moves), MOVE_FEATURES)`` float32 array of their features. Empty when it is not the
    seat's turn."""
    codes = view.legal_codes()
    feats = np.zeros((len(codes), MOVE_FEATURES), np.float32)
    if codes:
        pos = view.shell()
        for row, code in zip(feats, codes, strict=True):
            move_features(view, pos, code, row)
    return codes, feats


def move_features(view: View, pos: Position, code: int, row: Array) -> None:
    """Fill ``row`` with the features of move ``code`` of ``view``; ``pos`` is
    ``view.shell()`` (made once per view), used to play the move and look at the result."""
    f = _F
    tdp = view.rules.ten_diamonds_points
    action = code >> 63 & 7
    row[f["bias"]] = 1.0
    row[f["action_throw"] + action] = 1.0
    hand = view.hand
    if action == BID:
        v = code >> 66 & 15
        row[f["target_9"] + v - 9] = 1.0
        row[f["bid_value_cards"]] = (hand & VALUE_MASK[v]).bit_count() / 4.0
        return
    if action == REDEAL:
        return
    card = code >> 57 & 63
    value = card_value(card)
    row[f["card_value_1"] + value - 1] = 1.0
    row[f["card_points"]] = mask_points(1 << card, tdp) / 10.0
    hand_after = hand & ~(1 << card)
    row[f["same_value_left"]] = (hand_after & VALUE_MASK[value]).bit_count() / 3.0
    row[f["hand_after"]] = hand_after.bit_count() / 12.0
    seat = view.seat
    team = seat & 1
    before = pos.captured[team]
    pos.push(code)
    try:
        if action == CAPTURE:
            won = pos.captured[team] & ~before
            row[f["captured_cards"]] = won.bit_count() / 10.0
            row[f["captured_points"]] = mask_points(won, tdp) / 20.0
            row[f["sweep"]] = 1.0 if not pos.loose and not pos.hpresent else 0.0
        elif action in (BUILD, CEMENT, BREAK):
            v = code >> 66 & 15
            row[f["target_9"] + v - 9] = 1.0
            row[f["house_points"]] = mask_points(pos.hcards[v], tdp) / 20.0
            row[f["hold_target_after"]] = 1.0 if hand_after & VALUE_MASK[v] else 0.0
        loose = pos.loose
        floor_pts = mask_points(loose, tdp)
        houses = 0
        mine = 0
        team_seats = 0b0101 << team
        for v in range(9, 14):
            if pos.hpresent >> v & 1:
                houses += 1
                floor_pts += mask_points(pos.hcards[v], tdp)
                if pos.howners[v] & team_seats:
                    mine += 1
        loose_sum = mask_value_sum(loose)
        row[f["floor_loose_after"]] = loose.bit_count() / 10.0
        row[f["floor_points_after"]] = floor_pts / 20.0
        row[f["floor_sum_after"]] = loose_sum / 52.0
        row[f["floor_sweepable_after"]] = 1.0 if loose and not houses and loose_sum <= 13 else 0.0
        row[f["houses_after"]] = houses / 5.0
        row[f["my_houses_after"]] = mine / 5.0
    finally:
        pos.pop()
