"""A fixed action space for Seep: a move is a short sequence of sub-decisions by its mover.

Seep's moves are combinatorial (a card, a use with a target value, and a set of floor items),
far too many to number once and for all, so a move is chosen in up to three stages, each a
choice among ``NUM_ACTIONS`` = 133 fixed action ids (``docs/actions.md``):

=========  ==========  =========================================================
ids        stage       meaning
=========  ==========  =========================================================
0-51       1 (first)   play card ``c`` (the card's own id, ``seep.cards``)
52-56      1           bid 9..13 (R13)
57         1           redeal (R14; only offered when it is the one legal move)
58         2 (use)     throw the card
59         2           capture with it
60-64      2           build a house of 9..13
65-69      2           cement the existing house of 9..13
70-74      2           break the ordinary house of 9..13 (raise it by the card)
75-126     3 (items)   take loose card ``id - 75`` (in increasing card order)
127-131    3           take the house of 9..13 (a capture)
132        3           done: the items chosen so far are the whole set
=========  ==========  =========================================================

The floor items of a move are exactly bits 0-56 of its engine code (loose cards, then captured
houses), so stage 3 picks those bits one at a time in increasing order and ``done`` ends the
set. Increasing order gives every move one canonical path. A move is **committed as soon as
the choices so far identify exactly one legal move**: a bid takes one step, a throw usually
two, and ``done`` is only offered when the set chosen so far is complete for one legal move
while a larger set is also legal. Every offered action leads to at least one legal move, so the
masks never lead into a dead end, and the paths are in one-to-one correspondence with the
engine's ``legal_codes()`` (``tests/integrations/test_integrations_actions.py`` enumerates them).

>>> from seep.engine import Position
>>> pos = Position.new_deal(seed=1)
>>> pos.push(pos.legal_codes()[-1])          # bid 13
>>> b = MoveBuilder(pos.legal_codes())
>>> [action_name(a) for a in b.legal_actions()]
['card 3H', 'card TH', 'card KH']
>>> from seep.moves import Move
>>> str(Move(b.apply(49)))                  # KH has one legal move: committed at once
'KH x 3C TD'
>>> b = MoveBuilder(pos.legal_codes())
>>> [b.apply(a) for a in move_actions(b.cands[0], b.cands)][-1] in pos.legal_codes()
True
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

from ..cards import CARD_NAMES
from ..codes import BID, BREAK, BUILD, CAPTURE, CEMENT, REDEAL, THROW
from ..codes import SH_ACTION as _SH_ACTION
from ..codes import SH_CARD as _SH_CARD
from ..codes import SH_HOUSE as _SH_HOUSE
from ..codes import SH_VALUE as _SH_VALUE

__all__ = [
    "BID0",
    "CARD0",
    "DONE",
    "ITEM0",
    "ITEM_BITS",
    "NUM_ACTIONS",
    "NUM_ITEMS",
    "NUM_USES",
    "REDEAL_ACTION",
    "STAGE_CARD",
    "STAGE_ITEMS",
    "STAGE_USE",
    "USE0",
    "MoveBuilder",
    "action_name",
    "first_action",
    "move_actions",
    "use_action",
]

CARD0: Final = 0
BID0: Final = 52
REDEAL_ACTION: Final = 57
USE0: Final = 58
NUM_USES: Final = 17  # throw, capture, build 9..13, cement 9..13, break 9..13
ITEM0: Final = USE0 + NUM_USES  # 75
NUM_ITEMS: Final = 57  # code bits 0..51 (loose cards) and 52..56 (houses 9..13)
DONE: Final = ITEM0 + NUM_ITEMS  # 132
NUM_ACTIONS: Final = DONE + 1  # 133
ITEM_BITS: Final = (1 << NUM_ITEMS) - 1

STAGE_CARD: Final = 0
STAGE_USE: Final = 1
STAGE_ITEMS: Final = 2

# A move code is wider than a machine word: its fields above the items are read from one
# shift, ``code >> SH_CARD`` (a small int), at these offsets.
_TOP_ACTION: Final = _SH_ACTION - _SH_CARD
_TOP_VALUE: Final = _SH_VALUE - _SH_CARD
_TOP_HOUSE: Final = _SH_HOUSE - _SH_CARD

_USE_NAMES = (
    ["throw", "capture"]
    + [f"build {v}" for v in range(9, 14)]
    + [f"cement {v}" for v in range(9, 14)]
    + [f"break {v}" for v in range(9, 14)]
)


def first_action(code: int) -> int:
    """The stage-1 action of a move code: its card, its bid, or the redeal."""
    top = code >> _SH_CARD
    act = top >> _TOP_ACTION & 7
    if act == BID:
        return BID0 + (top >> _TOP_VALUE & 15) - 9
    if act == REDEAL:
        return REDEAL_ACTION
    return top & 63


def use_action(code: int) -> int:
    """The stage-2 action of a card play: the use with its house value."""
    top = code >> _SH_CARD
    act = top >> _TOP_ACTION & 7
    if act == THROW:
        return USE0
    if act == CAPTURE:
        return USE0 + 1
    if act == BUILD:
        return USE0 + 2 + (top >> _TOP_VALUE & 15) - 9
    if act == CEMENT:
        return USE0 + 7 + (top >> _TOP_VALUE & 15) - 9
    if act == BREAK:
        return USE0 + 12 + (top >> _TOP_HOUSE & 15) - 9
    raise ValueError(f"a {act} move has no use stage")


def action_name(action: int) -> str:
    """A short readable name of an action id (``card KH``, ``bid 13``, ``take 3C``, ``done``)."""
    if not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"action ids are 0..{NUM_ACTIONS - 1}, got {action!r}")
    if action < BID0:
        return "card " + CARD_NAMES[action]
    if action < REDEAL_ACTION:
        return f"bid {action - BID0 + 9}"
    if action == REDEAL_ACTION:
        return "redeal"
    if action < ITEM0:
        return _USE_NAMES[action - USE0]
    if action < ITEM0 + 52:
        return "take " + CARD_NAMES[action - ITEM0]
    if action < DONE:
        return f"take house {action - ITEM0 - 52 + 9}"
    return "done"


class MoveBuilder:
    """The sub-decision state of the mover: which legal moves the choices so far still allow.

    ``MoveBuilder(legal_codes)`` starts a move; :meth:`legal_actions` / :meth:`mask` give the
    allowed action ids; :meth:`apply` takes one and returns the move code once it is committed
    (``None`` while the move is still open). The builder is then spent: start a new one (or
    :meth:`reset`) for the next move.
    """

    __slots__ = ("_firsts", "_mask", "_opts", "_runs", "below", "cands", "stage")

    def __init__(self, codes: Iterable[int] = ()) -> None:
        self.cands: list[int] = []
        self.stage = STAGE_CARD
        self.below = 0  # stage 3: items with a bit index below this are decided
        self._opts: dict[int, list[int]] | None = None
        self._mask = -1  # -1: not computed yet
        self._firsts: list[int] | None = None  # stage 1: each candidate's first action
        self._runs: list[int] | None = None  # stage 1: each card's end among the candidates
        self.reset(codes)

    def reset(self, codes: Iterable[int]) -> None:
        """Start a new move among ``codes`` (the engine's ``legal_codes()``)."""
        self.start(list(codes))

    def start(self, codes: list[int], runs: list[int] | None = None) -> None:
        """:meth:`reset` with a list the builder may keep as it is (the caller's own, never
        to be changed again: a new ``legal_codes()``), without copying it; ``runs``, where
        given, where each card's moves end in it (``Position.legal_codes_by_card``: a card
        play's first action is its card, so the first choice is read from them without
        taking each long code apart)."""
        self.cands = codes
        self.stage = STAGE_CARD
        self.below = 0
        self._opts = None
        self._firsts = None
        self._runs = runs
        m = -1
        if runs is not None:
            m = 0
            for i in range(len(runs)):
                m |= 1 << (runs[i] & 63)
        self._mask = m

    def copy(self) -> MoveBuilder:
        """An independent copy (the candidate list is shared; it is never changed in place)."""
        b = MoveBuilder()
        b.cands = self.cands
        b.stage = self.stage
        b.below = self.below
        b._opts = self._opts
        b._mask = self._mask
        b._firsts = self._firsts
        b._runs = self._runs
        return b

    # --- the choices ----------------------------------------------------------------------

    def options(self) -> dict[int, list[int]]:
        """Each allowed action id with the legal moves it keeps (cached until :meth:`apply`)."""
        opts = self._opts
        if opts is not None:
            return opts
        opts = {}
        stage = self.stage
        if stage == STAGE_CARD:
            cands = self.cands
            firsts = self._first_actions()
            for i in range(len(cands)):
                c = cands[i]
                a = firsts[i]
                lst = opts.get(a)
                if lst is None:
                    opts[a] = [c]
                else:
                    lst.append(c)
        elif stage == STAGE_USE:
            for c in self.cands:
                a = use_action(c)
                lst = opts.get(a)
                if lst is None:
                    opts[a] = [c]
                else:
                    lst.append(c)
        else:
            # Items not yet decided: bits >= self.below. The next choice is the lowest of
            # them, or done when a candidate has none left.
            keep = ITEM_BITS & ~((1 << self.below) - 1)
            for c in self.cands:
                r = c & keep
                a = ITEM0 + (r & -r).bit_length() - 1 if r else DONE
                lst = opts.get(a)
                if lst is None:
                    opts[a] = [c]
                else:
                    lst.append(c)
        self._opts = opts
        return opts

    def legal_actions(self) -> list[int]:
        """The allowed action ids, ascending."""
        if self.stage == STAGE_CARD and self._opts is None:
            # The first choice of every move: the bits of the first actions (all below 58).
            m = self.mask()
            out = []
            while m:  # one step per allowed action, ascending
                low = m & -m
                out.append(low.bit_length() - 1)
                m ^= low
            return out
        return sorted(self.options())

    def mask(self) -> int:
        """The allowed action ids as a bitmask (bit ``a`` for action ``a``)."""
        m = self._mask
        if m >= 0:
            return m
        if self.stage == STAGE_CARD and self._opts is None:
            # The first choice of every move, so the hot one: straight from the codes.
            self._first_actions()
            return self._mask
        m = 0
        for a in self.options():
            m |= 1 << a
        self._mask = m
        return m

    def _first_actions(self) -> list[int]:
        """The stage-1 action of each candidate (kept: the mask and :meth:`apply` both read
        them, and a move code is too long an int to take apart twice cheaply); at stage 1
        the mask is worked out on the way."""
        firsts = self._firsts
        runs = self._runs
        if firsts is None and runs is not None:
            # Each card's moves, from the end of the card before to its own.
            firsts = [0] * len(self.cands)
            i = 0
            for r in runs:
                end = r >> 6
                while i < end:
                    firsts[i] = r & 63
                    i += 1
            self._firsts = firsts
        elif firsts is None:
            cands = self.cands
            firsts = [0] * len(cands)  # set in place: compiled, cheaper than appends
            m = 0
            for i in range(len(cands)):
                top = cands[i] >> _SH_CARD  # the one long-int operation (first_action's)
                act = top >> _TOP_ACTION & 7
                if act < BID:  # a card play (throw .. break): its card
                    f = top & 63
                elif act == BID:
                    f = BID0 + (top >> _TOP_VALUE & 15) - 9
                else:
                    f = REDEAL_ACTION
                firsts[i] = f
                m |= 1 << f
            self._firsts = firsts
            if self.stage == STAGE_CARD and self._opts is None:
                self._mask = m
        return firsts

    def apply(self, action: int) -> int | None:
        """Take one sub-decision; returns the committed move code, or ``None`` if the move is
        still open. Raises ``ValueError`` for an action the mask does not allow."""
        opts = self._opts
        sub: list[int] | None
        if opts is not None:
            sub = opts.get(action)
        elif self.stage == STAGE_CARD and type(action) is int:
            # The first choice: its moves, without grouping every candidate first.
            cands = self.cands
            runs = self._runs
            if runs is not None:
                sub = None  # a card's moves are next to each other: one slice
                start = 0
                for r in runs:
                    if r & 63 == action:
                        sub = cands[start : r >> 6]
                        break
                    start = r >> 6
            else:
                firsts = self._first_actions()
                sub = [cands[i] for i in range(len(cands)) if firsts[i] == action] or None
        else:
            sub = self.options().get(action)
        if sub is None:
            raise ValueError(
                f"action {action} ({_safe_name(action)}) is not allowed here "
                f"(allowed: {self.legal_actions()})"
            )
        self._opts = None
        self._mask = -1
        self._firsts = None
        self._runs = None
        self.cands = sub
        if len(sub) == 1:
            return sub[0]
        if self.stage == STAGE_ITEMS:
            # Two distinct legal moves never agree on card, use and items, so ``done`` always
            # leaves a single candidate; an item decides one more bit.
            self.below = action - ITEM0 + 1
        else:
            self.stage += 1
        return None

    # --- what is chosen so far (for observations) ------------------------------------------

    def chosen_first(self) -> int | None:
        """The stage-1 action chosen so far, ``None`` at stage 1."""
        if self.stage == STAGE_CARD or not self.cands:
            return None
        return first_action(self.cands[0])

    def chosen_use(self) -> int | None:
        """The stage-2 action chosen so far, ``None`` before stage 3."""
        if self.stage != STAGE_ITEMS or not self.cands:
            return None
        return use_action(self.cands[0])

    def chosen_items(self) -> int:
        """The floor items chosen so far (code bits 0..56)."""
        if self.stage != STAGE_ITEMS or not self.cands:
            return 0
        return self.cands[0] & ITEM_BITS & ((1 << self.below) - 1)


def move_actions(code: int, legal: Sequence[int]) -> list[int]:
    """The action ids that choose the move ``code`` among the legal moves ``legal``.

    >>> from seep.engine import Position
    >>> pos = Position.new_deal(seed=1)
    >>> [action_name(a) for a in move_actions(pos.legal_codes()[0], pos.legal_codes())]
    ['bid 10']
    """
    if code not in legal:
        raise ValueError("the move is not among the legal moves")
    b = MoveBuilder(legal)
    path: list[int] = []
    while True:
        if b.stage == STAGE_CARD:
            a = first_action(code)
        elif b.stage == STAGE_USE:
            a = use_action(code)
        else:
            r = code & ITEM_BITS & ~((1 << b.below) - 1)
            a = ITEM0 + (r & -r).bit_length() - 1 if r else DONE
        path.append(a)
        done = b.apply(a)
        if done is not None:
            return path


def _safe_name(action: object) -> str:
    try:
        return action_name(int(action))  # type: ignore[call-overload]
    except (ValueError, TypeError):
        return "not an action id"
