"""The state of OpenSpiel's ``python_seep`` without pyspiel or numpy: compiled with the core.

:class:`SpielCore` holds everything a :class:`seep.integrations.openspiel.SeepState` holds and
does what a random rollout asks of it on every action: apply an action (a card dealt, or a
sub-decision of :mod:`seep.integrations.actions`, committing the move when it is complete),
the chance outcomes, the legal actions, the returns. ``SeepState`` (a ``pyspiel.State``
subclass, which mypyc cannot compile) is a thin shell that holds a core and answers the calls
of every action with the core's own callables (its bound methods, and :class:`CurrentPlayer`,
:class:`IsTerminal`, :class:`ChanceOutcomes` and :class:`Returns` for the names OpenSpiel's
C++ calls back); the module imports neither pyspiel nor numpy, so mypyc compiles it with the
core (``setup.py``). The player ids are OpenSpiel's (``CHANCE`` -1, ``TERMINAL`` -4;
``seep.integrations.openspiel`` checks them).
"""

from __future__ import annotations

import math
import operator
from typing import Any, Final, SupportsIndex

from ..cards import seat_to_move
from ..codes import PHASE_OVER
from ..engine import Position
from ..options import STANDARD, Rules
from ..session import Session
from .actions import MoveBuilder

__all__ = [
    "CHANCE",
    "TERMINAL",
    "ChanceOutcomes",
    "CurrentPlayer",
    "IsTerminal",
    "Returns",
    "SpielCore",
    "pseudo_player_error",
]

CHANCE: Final = -1  # pyspiel.PlayerId.CHANCE
TERMINAL: Final = -4  # pyspiel.PlayerId.TERMINAL
_HIGH: Final = 32  # cards 32..51, value 9 and above: a hand that can bid (R13)

# (card, 1/n) for every card and every count n of cards left: the uniform chance outcomes are
# picked from here, not built a tuple at a time (the same floats: 1.0 / n). Typed Any so that
# compiled code hands out the tuples themselves instead of unboxing and boxing them again.
_UNIFORM: Final[tuple[tuple[Any, ...], ...]] = tuple(
    tuple((card, 1.0 / n) for card in range(52)) if n else () for n in range(53)
)


# What legal_actions raises for a negative player (pyspiel.SpielError once the game is
# registered: this module does not import pyspiel).
_PSEUDO_PLAYER_ERROR: Final[list[type[Exception]]] = [ValueError]


def pseudo_player_error(error: type[Exception]) -> None:
    """Make :meth:`SpielCore.legal_actions` raise ``error`` for a negative player, as
    OpenSpiel's own ``legal_actions`` raises ``pyspiel.SpielError``."""
    _PSEUDO_PLAYER_ERROR[0] = error


def _bidder_row(i: int) -> tuple[Any, ...]:
    """The chance outcome of each card as the bidder's card ``i + 1`` when the ``i`` dealt
    before it are all low (``None`` where its weight is 0): a card's weight is the number of
    ways to complete his four cards with one above 8 (R14)."""
    k = 4 - i
    n = 52 - i  # cards left
    low = _HIGH - i  # low cards left
    w_high = math.comb(n - 1, k - 1)
    w_low = w_high - math.comb(low - 1, k - 1)
    total = (52 - _HIGH) * w_high + low * w_low
    out: list[tuple[int, float] | None] = []
    for card in range(52):
        w = w_high if card >= _HIGH else w_low
        out.append((card, w / total) if w else None)
    return tuple(out)


_BIDDER: Final[tuple[tuple[Any, ...], ...]] = tuple(_bidder_row(i) for i in range(4))


class SpielCore:
    """Everything a ``python_seep`` state holds, in one object that copies fast (OpenSpiel
    clones a python state by deep-copying its attributes; a generic deepcopy of a position is
    slow). ``cfg`` is the game's (episode, max_deals, rules, first dealer)."""

    __slots__ = (
        "_session",
        "builder",
        "cfg",
        "dealt",
        "floor0",
        "hands0",
        "hands1",
        "left",
        "legal",
        "over",
        "past",
        "pending",
        "player",
        "pos",
        "prefix",
        "unrecorded",
        "unswept",
    )

    cfg: tuple[str, int, Rules, int]  # the game's episode, max_deals, rules and first dealer
    _session: Session | None  # the match (:attr:`session`), some moves not recorded yet
    # The moves made on ``pos`` since the session last recorded any, (seat, code), and the
    # sweep bonus each scored: the session records them when it is next read (``session``).
    unrecorded: list[tuple[int, int]]
    unswept: list[int]
    pos: Position | None  # the session's deal in play, or the last at the end (None: dealing)
    over: bool  # the session is over (kept from its answer: asked on every action)
    dealt: list[int]  # cards dealt so far, in deal order
    left: list[int]  # cards not dealt yet, ascending (the chance outcomes)
    player: int  # current_player(), kept up to date by every action
    legal: list[int] | None  # the legal actions of a player node, once asked
    floor0: int  # the four floor cards, face up from the bid on (R15)
    hands0: list[int]  # hands when the deal was laid out (before the bid)
    hands1: list[int] | None  # hands right after the stock was dealt (play 1)
    prefix: list[int]  # sub-decisions of the move in progress
    builder: MoveBuilder
    past: list[tuple[int, int, list[int], list[int] | None]]  # earlier deals, for strings
    # Actions applied by :meth:`play` that OpenSpiel's C++ history does not hold yet, each
    # ``action << 3 | player + 4``, oldest first (``seep.integrations.openspiel`` replays them
    # into it before anything reads it).
    pending: list[int]

    def __init__(self, cfg: tuple[str, int, Rules, int] = ("deal", 1, STANDARD, 0)) -> None:
        """The initial state: nothing dealt, chance to act. (``cfg`` has a default for
        unpickling, which makes the object before setting its state.)"""
        self.cfg = cfg
        self._session = None
        self.unrecorded = []
        self.unswept = []
        self.pos = None
        self.over = False
        self.dealt = []
        self.left = list(range(52))
        self.player = CHANCE
        self.legal = None
        self.floor0 = 0
        self.hands0 = [0] * cfg[2].players
        self.hands1 = None
        self.prefix = []
        self.builder = MoveBuilder()
        self.past = []
        self.pending = []

    # --- what the state answers ---------------------------------------------------------------

    @property
    def session(self) -> Session | None:
        """The match: every deal's moves (each made so far recorded), the outcome; ``None``
        until the first deal is dealt."""
        s = self._session
        if s is not None and self.unrecorded:
            s.record_played(self.unrecorded, self.unswept)
            self.unrecorded = []
            self.unswept = []
        return s

    @session.setter
    def session(self, value: Session | None) -> None:
        self._session = value
        self.unrecorded = []
        self.unswept = []

    @property
    def history(self) -> tuple[tuple[int, int], ...]:
        """(seat, move code) of the deal in play."""
        return () if self.pos is None or self.session is None else self.session.history

    @property
    def deals(self) -> int:
        """Deals finished."""
        return 0 if self.session is None else self.session.deals_finished

    @property
    def result(self) -> tuple[float, float]:
        """Team 0's and team 1's returns."""
        out = None if self.session is None or not self.over else self.session.outcome()
        if out is None:
            return (0.0, 0.0)
        if self.cfg[0] == "deal":
            d = float(out.result["score"][0] - out.result["score"][1])
            return (d, -d)
        if out.winner is None:  # max_deals deals without a baazi
            return (0.0, 0.0)
        return (1.0, -1.0) if out.winner == 0 else (-1.0, 1.0)

    def returns(self) -> list[float]:
        """Each player's return (partners share their team's)."""
        r0, r1 = self.result
        return [r0, r1, r0, r1] if self.cfg[2].players == 4 else [r0, r1]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The cards that can be dealt next with their probabilities, ascending by card."""
        left = self.left
        dealt = self.dealt
        i = len(dealt)
        if i >= 4 or _holds_high(dealt):
            row = _UNIFORM[len(left)]
            return [row[card] for card in left]
        # The bidder's hand must hold a card above 8 (R14): each card weighted by the number
        # of ways to complete the hand with one, which depends only on how many cards were
        # dealt (all of them low so far): _BIDDER's rows.
        bidder = _BIDDER[i]
        return [bidder[card] for card in left if bidder[card] is not None]

    def kept_legal(self) -> list[int]:
        """The legal actions of the player to move, kept (not to be changed)."""
        legal = self.legal
        if legal is None:
            legal = self.legal = self.builder.legal_actions()
        return legal

    def current_player(self) -> int:
        """OpenSpiel's ``current_player()``: the seat to act, ``CHANCE`` or ``TERMINAL``."""
        return self.player

    def is_chance_node(self) -> bool:
        """OpenSpiel's ``is_chance_node()``."""
        return self.player == CHANCE

    def is_terminal(self) -> bool:
        """OpenSpiel's ``is_terminal()``."""
        return self.over

    def legal_actions(self, player: SupportsIndex | None = None) -> list[int]:
        """The legal actions of ``player`` (default: the player to act), a new list, as
        OpenSpiel's ``State.legal_actions`` answers: none at the end or for a player not to
        act, the chance outcomes' cards at a chance node, else the player's. A negative
        player at a player node raises :func:`pseudo_player_error`'s error."""
        if self.over:
            return []
        if player is not None and self.player != CHANCE:
            p = operator.index(player)
            if p != self.player:
                if p < 0:
                    raise _PSEUDO_PLAYER_ERROR[0](f"Called LegalActions for pseudo-player {p}")
                return []
        if self.player == CHANCE:
            return [a for a, _ in self.chance_outcomes()]
        legal = self.legal
        if legal is None:
            # A new list every time the builder is asked (it keeps what it worked out).
            return self.builder.legal_actions()
        return legal[:]

    # --- actions ------------------------------------------------------------------------------

    def play(self, action: SupportsIndex) -> None:
        """OpenSpiel's ``apply_action()`` (any integer ``action``: numpy's too): :meth:`apply`,
        keeping the action with its player in :attr:`pending` (applied from Python, it is not
        in OpenSpiel's C++ history yet)."""
        a = action if isinstance(action, int) else operator.index(action)
        player = self.player
        self.apply(a)
        self.pending.append(a << 3 | player + 4)

    def apply(self, action: int) -> None:
        """Apply an action: the card dealt at a chance node, else a sub-decision of the player
        to move."""
        if self.pos is None:
            left = self.left
            left.remove(action)  # first: a card not left raises with nothing changed
            self.dealt.append(action)
            if not left:
                self.start_deal()
            return
        code = self.builder.apply(action)
        self.prefix.append(action)
        self.legal = None
        if code is not None:
            self.commit(code)

    def start_deal(self) -> None:
        """Lay out the deal once its 52 cards are dealt."""
        episode, max_deals, rules, dealer = self.cfg
        session = self.session
        if session is None:
            baazi = episode == "baazi"
            session = self.session = Session(
                start=Position.from_deck(self.dealt, dealer, rules),
                deals=max_deals if baazi else 1,
                baazis=1 if baazi else None,
            )
        else:
            session.start_next_deal(deck=self.dealt)  # dealer and match by R44-R47
        pos = self.pos = session.position
        self.floor0 = pos.loose
        self.hands0 = pos.hands[:]
        self.hands1 = None
        self.prefix = []
        self.builder = MoveBuilder(pos.legal_codes())
        self.legal = None
        self.player = seat_to_move(pos.dealer, pos.plays, len(pos.hands))

    def commit(self, code: int) -> None:
        """Make the move the sub-decisions chose (a code of the position's legal codes)."""
        pos = self.pos
        assert self._session is not None and pos is not None
        self.prefix = []
        # Session.play_legal's work, the session's part left for it to record when read.
        sw = pos.sweeps
        before = sw[0] + sw[1]
        pos.advance(code)  # the session's position
        sw = pos.sweeps
        self.unrecorded.append((self.player, code))
        self.unswept.append(sw[0] + sw[1] - before)
        if pos.plays == 1 and self.hands1 is None:
            self.hands1 = pos.hands[:]
        if pos.phase_id != PHASE_OVER:
            codes, runs = pos.legal_codes_by_card()  # the first actions without shifts
            self.builder.start(codes, runs)
            self.player = seat_to_move(pos.dealer, pos.plays, len(pos.hands))
            return
        self.builder = MoveBuilder()
        session = self.session
        assert session is not None
        if session.match_over:
            self.over = True
            self.player = TERMINAL
            return
        self.past.append((pos.dealer, self.floor0, self.hands0, self.hands1))
        self.pos = None
        self.dealt = []
        self.left = list(range(52))
        self.player = CHANCE

    def player_of(self) -> int:
        """The player to act, worked out: terminal, chance while a deal is being dealt, else
        the seat to move."""
        if self.over:
            return TERMINAL
        pos = self.pos
        if pos is None:
            return CHANCE
        return seat_to_move(pos.dealer, pos.plays, len(pos.hands))

    # --- copies -------------------------------------------------------------------------------

    def copy(self) -> SpielCore:
        """An independent copy (what never changes in place is shared)."""
        c = SpielCore.__new__(SpielCore)
        c.cfg = self.cfg
        session = self.session
        if session is not None:
            session = session.copy()
        c._session = session
        c.unrecorded = []
        c.unswept = []
        c.pos = None if self.pos is None or session is None else session.position
        c.over = self.over
        c.dealt = self.dealt[:]
        c.left = self.left[:]
        c.player = self.player
        c.legal = self.legal
        c.floor0 = self.floor0
        c.hands0 = self.hands0[:]
        c.hands1 = None if self.hands1 is None else self.hands1[:]
        c.prefix = self.prefix[:]
        c.builder = self.builder.copy()
        c.past = self.past[:]
        c.pending = self.pending[:]
        return c

    def __deepcopy__(self, memo: dict[int, Any]) -> SpielCore:
        return self.copy()

    def __getstate__(self) -> dict[str, Any]:
        # The attributes by name, in the order of their names (as pickled before).
        return {
            "builder": self.builder,
            "cfg": self.cfg,
            "dealt": self.dealt,
            "floor0": self.floor0,
            "hands0": self.hands0,
            "hands1": self.hands1,
            "left": self.left,
            "legal": self.legal,
            "over": self.over,
            "past": self.past,
            "pending": self.pending,
            "player": self.player,
            "pos": self.pos,
            "prefix": self.prefix,
            "session": self.session,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.cfg = state["cfg"]
        self.session = state["session"]  # every move recorded (``__getstate__``)
        self.pos = state["pos"]
        self.over = state["over"]
        self.dealt = state["dealt"]
        self.floor0 = state["floor0"]
        self.hands0 = state["hands0"]
        self.hands1 = state["hands1"]
        self.prefix = state["prefix"]
        self.builder = state["builder"]
        self.past = state["past"]
        self.pending = state.get("pending", [])  # pickled before it was kept: none
        if "player" in state:
            self.left = state["left"]
            self.legal = state["legal"]
            self.player = state["player"]
        else:  # pickled before these were kept
            dealt = set(self.dealt)
            self.left = [x for x in range(52) if x not in dealt]
            self.legal = None
            self.player = self.player_of()


# A core's answers as objects to call, for a ``pyspiel.State`` to hold by the names
# OpenSpiel's C++ calls back into Python. A bound method of a compiled class answers as fast,
# but pybind11 takes it for one of its own C++ functions and never calls it from C++; it
# calls an object like any Python method. (One class each, with no common base: mypyc's
# __call__ crashes when it is defined in a subclass.)


class CurrentPlayer:
    """``core.current_player()``, to call."""

    __slots__ = ("core",)

    def __init__(self, core: SpielCore) -> None:
        self.core = core

    def __call__(self) -> int:
        return self.core.player


class IsTerminal:
    """``core.is_terminal()``, to call."""

    __slots__ = ("core",)

    def __init__(self, core: SpielCore) -> None:
        self.core = core

    def __call__(self) -> bool:
        return self.core.over


class ChanceOutcomes:
    """``core.chance_outcomes()``, to call."""

    __slots__ = ("core",)

    def __init__(self, core: SpielCore) -> None:
        self.core = core

    def __call__(self) -> list[tuple[int, float]]:
        return self.core.chance_outcomes()


class Returns:
    """``core.returns()``, to call."""

    __slots__ = ("core",)

    def __init__(self, core: SpielCore) -> None:
        self.core = core

    def __call__(self) -> list[float]:
        return self.core.returns()


def _holds_high(cards: list[int]) -> bool:
    return any(card >= _HIGH for card in cards)
