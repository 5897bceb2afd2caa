"""The environments' hot path, without numpy: observations from a position, random bots.

* :func:`observation_parts` gives one seat's observation (:mod:`seep.integrations.features`)
  as two plain values: every 0/1 entry of the 504 as one int whose bit ``k`` is entry ``k``
  (zero at the real-valued entries), and the 13 real-valued entries as floats.
  :func:`seep.integrations.features.position_observation` and
  :class:`~seep.integrations.features.ObservationBatch` turn them into float32 arrays with a
  few numpy calls (per batch): no per-entry work.
* :func:`random_choice` and :func:`play_random`: the ``random`` bot's moves without its view.

The observation reads what :meth:`seep.view.View.from_position` reads for the seat (his own
hand, the public floor, piles, counters and sizes) and nothing else: no other hand, no stock
card, no face-down floor card. :func:`view_parts` computes the same from a
:class:`~seep.view.View`; ``tests/integrations/test_integrations_features.py`` checks that both
agree on every seat of random deals.

This module imports no numpy, so it is compiled with the core (mypyc, ``setup.py``).
"""

from __future__ import annotations

import random
from typing import Final

from ..cards import FULL_DECK
from ..codes import BID, PHASE_BID, PHASE_OVER, SH_ACTION, SH_CARD
from ..engine import Position
from ..view import View
from .actions import ITEM_BITS, STAGE_CARD, STAGE_ITEMS, USE0, MoveBuilder, use_action

__all__ = [
    "NUM_REALS",
    "REAL_FIELDS",
    "batch_parts",
    "observation_parts",
    "play_random",
    "random_choice",
    "view_parts",
]

# Where each 0/1 field starts: the offsets of seep.integrations.features.OBS_FIELDS (a test
# holds them equal).
_LOOSE: Final = 52
_HOUSE_CARDS: Final = 104
_CAPTURED_OWN: Final = 156
_CAPTURED_OTHER: Final = 208
_UNSEEN: Final = 260
_PENDING_CARD: Final = 312
_PENDING_ITEMS: Final = 364
_PENDING_USE: Final = 421
_STAGE: Final = 438
_HOUSES: Final = 442  # 6 per value 9..13: present, cemented, owners by relative seat
_PHASE: Final = 479
_BID: Final = 482
_TO_MOVE: Final = 487
_DEALER: Final = 491
_LAST_CAPTURE: Final = 497

#: The real-valued fields, in the order :func:`observation_parts` gives their values.
REAL_FIELDS: Final = ("hand_sizes", "stock", "facedown", "plays", "sweeps", "match")
NUM_REALS: Final = 13


def _rotations(n: int) -> list[list[int]]:
    """[seat][owner mask] -> the owners as relative seats (bit ``(s - seat) % n``)."""
    return [
        [sum(1 << (s - seat) % n for s in range(n) if owners >> s & 1) for owners in range(16)]
        for seat in range(n)
    ]


_ROT2: Final = _rotations(2)
_ROT4: Final = _rotations(4)


def observation_parts(
    pos: Position, seat: int, builder: MoveBuilder | None
) -> tuple[int, list[float]]:
    """The observation of ``seat``: (its 0/1 entries as one int, its 13 real values);
    ``builder`` is the move the seat is building (``None`` or empty: none)."""
    rules = pos.rules
    n = rules.players
    team = seat & 1
    phase = pos.phase_id
    hands = pos.hands
    if phase == PHASE_BID:
        loose = 0
        facedown = pos.loose.bit_count()
    else:
        loose = pos.loose
        facedown = 0
    captured = pos.captured
    house_cards = 0
    houses = 0
    hp = pos.hpresent
    if hp:
        rot = (_ROT4 if n == 4 else _ROT2)[seat]
        hcards = pos.hcards
        hcem = pos.hcem
        howners = pos.howners
        for v in range(9, 14):
            if hp >> v & 1:
                house_cards |= hcards[v]
                h = 1 | rot[howners[v] & 15] << 2
                if hcem[v]:
                    h |= 2
                houses |= h << 6 * (v - 9)
    big = _cards(
        hands[seat], loose, house_cards, captured[team], captured[1 - team], houses
    ) | _public(builder, phase, pos.bid, pos.dealer, pos.plays, pos.last_capture, seat, n)
    sizes = [0, 0, 0, 0]
    for s in range(n):
        sizes[(s - seat) % n] = hands[s].bit_count()
    sweeps = pos.sweeps
    baazis = pos.match_baazis
    reals = _reals(
        sizes,
        len(pos.stock),
        facedown,
        pos.plays,
        sweeps[team],
        sweeps[1 - team],
        pos.match_diff if team == 0 else -pos.match_diff,
        baazis[team],
        baazis[1 - team],
        pos.match_deals,
        n,
        rules.baazi_lead,
    )
    return big, reals


def view_parts(view: View, builder: MoveBuilder | None) -> tuple[int, list[float]]:
    """:func:`observation_parts` of a :class:`~seep.view.View`: the seat's information set,
    what the observation is defined on."""
    seat = view.seat
    n = view.rules.players
    team = seat & 1
    rot = (_ROT4 if n == 4 else _ROT2)[seat]
    house_cards = 0
    houses = 0
    for value, cards, cemented, owners in view.houses:
        house_cards |= cards
        h = 1 | rot[owners & 15] << 2
        if cemented:
            h |= 2
        houses |= h << 6 * (value - 9)
    own = view.captured[team]
    other = view.captured[1 - team]
    big = _cards(view.hand, view.loose, house_cards, own, other, houses) | _public(
        builder, view.phase_id, view.bid, view.dealer, view.plays, view.last_capture, seat, n
    )
    sizes = [0, 0, 0, 0]
    for s in range(n):
        sizes[(s - seat) % n] = view.hand_sizes[s]
    diff, baazis, deals = view.match
    reals = _reals(
        sizes,
        view.stock_size,
        view.facedown,
        view.plays,
        view.sweeps[team],
        view.sweeps[1 - team],
        diff if team == 0 else -diff,
        baazis[team],
        baazis[1 - team],
        deals,
        n,
        view.rules.baazi_lead,
    )
    return big, reals


def _cards(hand: int, loose: int, house_cards: int, own: int, other: int, houses: int) -> int:
    """The card planes (the unseen cards are the rest of the pack) and the houses field."""
    unseen = FULL_DECK & ~(hand | loose | own | other | house_cards)
    return (
        hand
        | loose << _LOOSE
        | house_cards << _HOUSE_CARDS
        | own << _CAPTURED_OWN
        | other << _CAPTURED_OTHER
        | unseen << _UNSEEN
        | houses << _HOUSES
    )


def _public(
    builder: MoveBuilder | None,
    phase: int,
    bid: int,
    dealer: int,
    plays: int,
    last_capture: int,
    seat: int,
    n: int,
) -> int:
    """The move being built (its choices are public: the move reveals them anyway), the phase,
    the bid, the seat to move, the dealer and the last capture, seats relative to ``seat``."""
    if builder is None or not builder.cands:
        big = 1 << _STAGE
    else:
        stage = builder.stage
        big = 1 << (_STAGE + 1 + stage)
        if stage != STAGE_CARD:
            first = builder.cands[0]
            if first >> SH_ACTION & 7 < BID:  # a card play: its card (a bid is never pending)
                big |= 1 << (_PENDING_CARD + (first >> SH_CARD & 63))
            if stage == STAGE_ITEMS:
                big |= 1 << (_PENDING_USE + use_action(first) - USE0)
                big |= (first & ITEM_BITS & ((1 << builder.below) - 1)) << _PENDING_ITEMS
    big |= 1 << (_PHASE + phase)
    if bid:
        big |= 1 << (_BID + bid - 9)
    if phase != PHASE_OVER:
        big |= 1 << (_TO_MOVE + (dealer + 1 + plays - seat) % n)  # R19: seat_to_move
    big |= 1 << (_DEALER + (dealer - seat) % n)
    lc = 2 if last_capture < 0 else 0 if last_capture == seat & 1 else 1
    return big | 1 << (_LAST_CAPTURE + lc)


def _reals(
    sizes: list[int],
    stock: int,
    facedown: int,
    plays: int,
    sweeps_own: int,
    sweeps_other: int,
    diff: int,
    baazis_own: int,
    baazis_other: int,
    deals: int,
    n: int,
    baazi_lead: int,
) -> list[float]:
    """The real-valued entries: hand sizes by relative seat / a hand's most cards (12, or 24
    with two players), stock / 44, face-down cards / 4, plays / 48, sweeps (own, other team)
    / 200 capped at 1, the baazi difference seen from the seat's team (0.5 = level) in
    [0, 1], baazis (own, other) / 10 and deals / 50, capped at 1."""
    most = 48.0 / n
    lead = baazi_lead if baazi_lead > 1 else 1
    d = 0.5 + diff / (2.0 * lead)
    return [
        sizes[0] / most,
        sizes[1] / most,
        sizes[2] / most,
        sizes[3] / most,
        stock / 44.0,
        facedown / 4.0,
        plays / 48.0,
        min(sweeps_own / 200.0, 1.0),
        min(sweeps_other / 200.0, 1.0),
        0.0 if d < 0.0 else 1.0 if d > 1.0 else d,
        min(baazis_own / 10.0, 1.0),
        min(baazis_other / 10.0, 1.0),
        min(deals / 50.0, 1.0),
    ]


def batch_parts(
    positions: list[Position], seats: list[int], builders: list[MoveBuilder]
) -> tuple[bytes, list[float], bytes]:
    """The observations of a batch of games (game ``i``: ``positions[i]`` seen by
    ``seats[i]``, building ``builders[i]``) as (each game's 0/1 entries as 63 bytes, little
    end first, one after the other; every game's 13 real values in one list; each game's
    action mask as 17 bytes, every action allowed when none is: a finished deal)."""
    obs: list[bytes] = []
    reals: list[float] = []
    masks: list[bytes] = []
    for i in range(len(positions)):
        b = builders[i]
        big, r = observation_parts(positions[i], seats[i], b)
        obs.append(big.to_bytes(63, "little"))
        reals.extend(r)
        m = b.mask()
        masks.append((m if m else _ALL_ACTIONS).to_bytes(17, "little"))
    return b"".join(obs), reals, b"".join(masks)


_ALL_ACTIONS: Final = (1 << 133) - 1


# --- the random bot ---------------------------------------------------------------------------


def random_choice(rng: random.Random, codes: list[int]) -> int:
    """``rng.choice(codes)``, the same draw from the same random source (CPython's
    ``Random.choice`` takes ``_randbelow``: ``getrandbits`` of the length's bit count until
    below it), without its two Python-level calls. ``codes`` is not empty."""
    n = len(codes)
    k = n.bit_length()
    getrandbits = rng.getrandbits
    r = getrandbits(k)
    while r >= n:
        r = getrandbits(k)
    return codes[r]


def play_random(
    pos: Position,
    stop: list[bool],
    rngs: list[random.Random],
    history: list[tuple[int, int]] | None,
) -> int:
    """Play the ``random`` bot's moves (:class:`seep.bots.base.RandomBot`: a uniform choice
    among the legal moves, from the seat's own random source ``rngs[seat]``) until a seat
    with ``stop[seat]`` is to move (returned) or the deal is over (-1). Each move made is
    appended to ``history`` as (seat, code) unless it is ``None``."""
    while pos.phase_id != PHASE_OVER:
        seat = pos.to_move
        assert seat is not None
        if stop[seat]:
            return seat
        code = random_choice(rngs[seat], pos.legal_codes())
        pos.advance(code)
        if history is not None:
            history.append((seat, code))
    return -1
