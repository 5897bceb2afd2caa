"""The environments' hot path, without numpy: observations from a position, random bots.

* :func:`observation_parts` gives one seat's observation (:mod:`seep.integrations.features`)
  as two plain values: every 0/1 entry of the 504 as one int whose bit ``k`` is entry ``k``
  (zero at the real-valued entries), and the 13 real-valued entries as floats.
  :func:`seep.integrations.features.position_observation` and
  :class:`~seep.integrations.features.ObservationBatch` turn them into float32 arrays with a
  few numpy calls (per batch): no per-entry work.
* :func:`play_random`: the ``random`` bot's moves without its view (``Position.random_code``).
* :class:`Game`, :func:`bots_play`, :func:`step_against_bots` and :func:`games_ints`: the
  games of :class:`seep.integrations.vector.SeepVectorEnv` and its step, one call per batch
  (its loop over the games runs here, compiled, rather than in the interpreter).

The observation reads what :meth:`seep.view.View.from_position` reads for the seat (his own
hand, the public floor, piles, counters and sizes) and nothing else: no other hand, no stock
card, no face-down floor card. :func:`view_parts` computes the same from a
:class:`~seep.view.View`; ``tests/integrations/test_integrations_features.py`` checks that both
agree on every seat of random deals.

This module imports no numpy, so it is compiled with the core (mypyc, ``setup.py``).
"""

from __future__ import annotations

import random
import struct
import sys
from collections.abc import Callable
from typing import Any, Final

from ..cards import FULL_DECK, seat_to_move
from ..codes import BID, PHASE_BID, PHASE_OVER, SH_ACTION, SH_CARD
from ..engine import Position, random_below
from ..options import Rules
from ..view import View
from .actions import ITEM_BITS, STAGE_CARD, STAGE_ITEMS, USE0, MoveBuilder, use_action

__all__ = [
    "INTS_PER_GAME",
    "NUM_REALS",
    "REAL_FIELDS",
    "Game",
    "batch_parts",
    "bots_play",
    "games_ints",
    "observation_parts",
    "play_random",
    "random_below",
    "step_against_bots",
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
    house_cards, houses = _houses(pos, seat, n)
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


def _houses(pos: Position, seat: int, n: int) -> tuple[int, int]:
    """The cards of the houses on the floor, and the houses as the seat sees them: 6 bits a
    value 9..13 (present, cemented, owner relative to the seat)."""
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
    return house_cards, houses


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

#: The ints :func:`games_ints` gives per game: the 504 0/1 entries as 9 chunks of 56 bits (7
#: bytes each, little end first), the action mask as 3 more, each of the first 10 chunks with
#: a small count in its eighth byte, then 3 more counts (see :func:`games_ints`).
INTS_PER_GAME: Final = 15
_M56: Final = (1 << 56) - 1
# A game's ints as 8-byte little-endian integers, written straight into the caller's buffer
# (numpy reads it without converting an int at a time). The native C long converts a
# Python int in a few steps; where it is not an 8-byte little-endian word, the standard
# format says the same bytes, only slower.
_NATIVE: Final = struct.calcsize("l") == 8 and sys.byteorder == "little"
_RECORD: Final = struct.Struct(f"{INTS_PER_GAME}l" if _NATIVE else f"<{INTS_PER_GAME}q")
_PACK_INTO: Final = _RECORD.pack_into


def games_ints(games: list[Game], seats: list[int], buf: bytearray) -> None:
    """The observations of the games of a batched environment (game ``i`` seen by
    ``seats[i]``, building its own move), written to ``buf`` (at least ``8 *``
    :data:`INTS_PER_GAME` ``* len(games)`` bytes) as :data:`INTS_PER_GAME` 8-byte
    little-endian signed ints a game, one game after the other, each below 2**62 but the last
    3 (any sign):

    * 9 chunks of 56 bits: bit ``k`` of chunk ``j`` is 0/1 entry ``56 * j + k`` of
      :func:`observation_parts` (the same entries, made without a 504-bit int: each chunk
      fits a machine word, so the compiled code makes no long integer);
    * 3 chunks of 56 bits of the action mask (every action allowed when none is: a finished
      deal);
    * above the 56 bits of chunks 0..9 (bits 56..61: below 64), the counts the first 10 real
      values are made of: the hand sizes by relative seat (4), the stock, the face-down cards,
      the plays, the baazis (own team, other) and the deals, the last three capped where
      their real values are (at 10, 10 and 50: the same values);
    * the sweeps (own team, other) and the baazi difference seen from the seat's team.

    :func:`observation_parts` divides these 13 counts into its 13 real values
    (:meth:`seep.integrations.features.ObservationBatch.write_ints` does the same
    arithmetic). Counts in a chunk's spare byte, rather than ints of their own, spare
    writing and reading 10 more ints a game."""
    for i in range(len(games)):
        g = games[i]
        _game_ints(g.pos, seats[i], g.builder, buf, 8 * INTS_PER_GAME * i)


def _game_ints(pos: Position, seat: int, builder: MoveBuilder, buf: bytearray, at: int) -> None:
    """:func:`games_ints` of one game, written to ``buf`` from byte ``at`` (the
    fields of :func:`observation_parts`, cut where the 56-bit chunks fall: the offsets of the
    module's field constants)."""
    hands = pos.hands
    n = len(hands)  # a hand per player
    team = seat & 1
    phase = pos.phase_id
    if phase == PHASE_BID:
        loose = 0
        facedown = _cards_in(pos.loose)
    else:
        loose = pos.loose
        facedown = 0
    captured = pos.captured
    own = captured[team]
    other = captured[1 - team]
    house_cards, houses = _houses(pos, seat, n)
    hand = hands[seat]
    unseen = FULL_DECK & ~(hand | loose | own | other | house_cards)
    # The move being built (_public): its card, use and items so far, and the stage.
    pcard = 0
    puse = 0
    pitems = 0
    if not builder.cands:
        stage_bits = 1
    else:
        stage = builder.stage
        stage_bits = 1 << (1 + stage)
        if stage != STAGE_CARD:
            first = builder.cands[0]
            top = first >> SH_CARD
            if top >> (SH_ACTION - SH_CARD) & 7 < BID:  # a card play (a bid is never pending)
                pcard = 1 << (top & 63)
            if stage == STAGE_ITEMS:
                puse = 1 << (use_action(first) - USE0)
                pitems = first & ITEM_BITS & ((1 << builder.below) - 1)
    dealer = pos.dealer
    plays = pos.plays
    bid = pos.bid
    lc = pos.last_capture
    last = 2 if lc < 0 else 0 if lc == team else 1
    # Chunk 8 holds bits 448..503: houses from 442, phase 479, bid 482, to move 487, dealer
    # 491, last capture 497 (the real-valued entries between them are 0 here).
    c8 = houses >> 6 | 1 << (31 + phase) | 1 << (43 + (dealer - seat) % n) | 1 << (49 + last)
    if bid:
        c8 |= 1 << (34 + bid - 9)
    if phase != PHASE_OVER:
        c8 |= 1 << (39 + (dealer + 1 + plays - seat) % n)  # R19: seat_to_move
    # The counts of the real values (a hand holds at most 52 cards, a deal 48 plays).
    if n == 4:
        size2 = _cards_in(hands[(seat + 2) & 3])
        size3 = _cards_in(hands[(seat + 3) & 3])
    else:
        size2 = size3 = 0
    baazis0, baazis1 = pos.match_baazis  # unpacked: a tuple indexed by a variable is boxed
    baazis_own = baazis0 if team == 0 else baazis1
    baazis_other = baazis1 if team == 0 else baazis0
    deals = pos.match_deals
    m = builder.mask()
    if not m:
        m = _ALL_ACTIONS
    sweeps = pos.sweeps
    _PACK_INTO(
        buf,
        at,
        hand | (loose & 0xF) << 52 | _cards_in(hand) << 56,
        loose >> 4 | (house_cards & 0xFF) << 48 | _cards_in(hands[(seat + 1) % n]) << 56,
        house_cards >> 8 | (own & 0xFFF) << 44 | size2 << 56,
        own >> 12 | (other & 0xFFFF) << 40 | size3 << 56,
        other >> 16 | (unseen & 0xFFFFF) << 36 | len(pos.stock) << 56,
        unseen >> 20 | (pcard & 0xFFFFFF) << 32 | facedown << 56,
        pcard >> 24 | (pitems & 0xFFFFFFF) << 28 | plays << 56,
        pitems >> 28
        | puse << 29
        | stage_bits << 46
        | (houses & 63) << 50
        | (baazis_own if baazis_own < 10 else 10) << 56,
        c8 | (baazis_other if baazis_other < 10 else 10) << 56,
        m & _M56 | (deals if deals < 50 else 50) << 56,
        m >> 56 & _M56,
        m >> 112,
        sweeps[team],
        sweeps[1 - team],
        pos.match_diff if team == 0 else -pos.match_diff,
    )


def _cards_in(mask: int) -> int:
    """The number of cards in a card mask (bits 0..51), counted in the word itself: compiled,
    each step is a machine operation (int.bit_count is a generic method call, and a table
    read a boxed list item)."""
    x = mask - (mask >> 1 & 0x5555555555555)
    x = (x & 0x3333333333333) + (x >> 2 & 0x3333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F
    # The byte sums added into the low byte by shifts: a multiply would leave the short ints.
    x += x >> 8
    x += x >> 16
    x += x >> 32
    return x & 0x7F


# --- the random bot ---------------------------------------------------------------------------


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
    n = len(pos.hands)  # a hand per player
    while pos.phase_id != PHASE_OVER:
        seat = seat_to_move(pos.dealer, pos.plays, n)  # pos.to_move, without the property
        if stop[seat]:
            return seat
        code = pos.random_code(rngs[seat])  # rng.choice(pos.legal_codes()), without the list
        pos.advance(code)
        if history is not None:
            history.append((seat, code))
    return -1


# --- the batched environments' games ----------------------------------------------------------


class Game:
    """One deal of a batched environment: the position, its moves, the move being built, the
    random sources. The deal is driven on the :class:`~seep.engine.Position` itself (no
    :class:`~seep.session.Session`: an episode is one deal, and the moves are kept only when a
    bot needs them for its view)."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        # One per seat (two used with two players): each bot draws from its own.
        self.seat_rngs = [random.Random(f"{seed}:{s}") for s in range(4)]
        self.pos = Position()  # the deal, made by deal()
        self.history: list[tuple[int, int]] = []  # (seat, move code), for bots' views
        self.builder = MoveBuilder()
        self.illegal = 0
        self.steps = 0

    def deal(self, rules: Rules) -> None:
        """Start the next deal: its dealer and shuffle from the game's random source."""
        rng = self.rng
        dealer = random_below(rng, rules.players)  # rng.randrange(rules.players)
        self.pos = Position.new_deal(rng.getrandbits(62), dealer, rules)
        self.history = []
        self.illegal = 0
        self.steps = 0


def bots_play(
    g: Game,
    seat: int,
    stop: list[bool],
    keep_history: bool,
    other: Callable[[Game, int], None] | None,
) -> None:
    """The bots of ``g`` move until ``seat`` (the learning seat) is to move, its moves then
    offered by ``g.builder``, or the deal is over. The ``random`` bots move inline
    (:func:`play_random`); a seat with ``stop[seat]`` other than ``seat`` is played by
    ``other(g, seat)``, which makes its move and records it in ``g.history``. The moves are
    kept in ``g.history`` only with ``keep_history``."""
    pos = g.pos
    history = g.history if keep_history else None
    while True:
        s = play_random(pos, stop, g.seat_rngs, history)
        if s < 0:
            g.builder.reset(())
            return
        if s == seat:
            codes, runs = pos.legal_codes_by_card()  # new lists, the builder's to keep
            g.builder.start(codes, runs)
            return
        assert other is not None
        other(g, s)


def step_against_bots(
    games: list[Game],
    acts: list[int],
    autoreset: list[bool],
    seat: int,
    stop: list[bool],
    keep_history: bool,
    other: Callable[[Game, int], None] | None,
    rules: Rules,
    illegal_reward: Any,
    max_illegal: int,
    reward_scale: Any,
) -> tuple[list[object], list[bool], list[bool], list[bool]]:
    """One step of :class:`~seep.integrations.vector.SeepVectorEnv`: game ``i`` takes the
    learning seat's sub-decision ``acts[i]`` (or starts its next deal when ``autoreset[i]``),
    then its bots move (:func:`bots_play`). Returns the rewards, terminated, truncated and the
    next step's autoreset flags. ``illegal_reward`` and ``reward_scale`` are whatever numbers
    the environment was given: the rewards are made with Python's arithmetic on them (a
    numpy float32 scale rounds as it did in the interpreted step)."""
    n = len(games)
    rewards: list[object] = [0.0] * n
    terminated = [False] * n
    truncated = [False] * n
    again = [False] * n
    team = seat & 1
    for i in range(n):
        g = games[i]
        if autoreset[i]:
            g.deal(rules)
            bots_play(g, seat, stop, keep_history, other)
            continue
        g.steps += 1
        b = g.builder
        action = acts[i]
        if action < 0 or not b.mask() >> action & 1:
            g.illegal += 1
            rewards[i] = illegal_reward
            if g.illegal >= max_illegal:
                truncated[i] = again[i] = True
            continue
        g.illegal = 0
        code = b.apply(action)
        if code is None:
            continue
        pos = g.pos
        pos.advance(code)  # from the builder, made of legal_codes()
        if keep_history:
            g.history.append((seat, code))
        bots_play(g, seat, stop, keep_history, other)
        if pos.phase_id == PHASE_OVER:
            s = pos.deal_scores()
            rewards[i] = (s[team] - s[1 - team]) * reward_scale
            terminated[i] = again[i] = True
    return rewards, terminated, truncated, again
