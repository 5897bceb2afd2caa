"""Sessions: a match as it is played, the one game loop every interface drives.

A :class:`Session` holds the deal in play and every deal before it, and answers, once for
every interface (the arena, the terminal game and replay, the web table, the OpenSpiel,
PettingZoo and Gymnasium environments, the ``seep demo``):

* the (seat, move code) history of every deal (:attr:`Session.history` for the deal in play,
  what :meth:`seep.view.View.from_position` takes), and each seat's last move;
* each move checked once (:meth:`Session.verify`, :meth:`Session.play`), with the engine's
  reason when it is illegal (:meth:`Session.play_legal` takes a code of the position's own
  ``legal_codes()`` unchecked: already decided);
* the match length, a number of deals or of baazis or both (whichever comes first), and
  :attr:`Session.match_over`;
* the outcome of a finished deal (:meth:`Session.outcome`: its result, whether it ended the
  baazi and who won it, the next dealer; R42, R44-R47) while the finished deal is still on show,
  from :func:`seep.baazi.settle`, which :meth:`seep.engine.Position.next_deal` uses too;
  nothing is dealt until :meth:`Session.start_next_deal`;
* undo to a seat's last move, across deal boundaries (:meth:`Session.undo_to`);
* docs/format.md game records (:meth:`Session.to_record`, :meth:`Session.from_record`,
  :meth:`Session.restore` for stored moves, :meth:`Session.steps` to walk through a record).

Deals are shuffled by :func:`deal_seed` and the first dealer drawn by :func:`first_dealer` (the
same ``seed`` gives the same deals), unless ``deal_seeds`` (deal index -> shuffle seed) says
otherwise, or a deal is given as a start position or a deck in deal order (an OpenSpiel chance
player deals card by card).

>>> import random
>>> s = Session(seed=7, deals=2)
>>> rng = random.Random(0)
>>> while not s.match_over:
...     if s.deal_over:
...         _ = s.start_next_deal()
...     _ = s.play(rng.choice(s.position.legal_codes()))
>>> s.deal_number, s.outcome().match_over, len(s.to_record()["deals"])
(2, True, 2)

**The web table** drives a session too, and keeps no history, no finished position and no
next deal of its own: a player's move is verified once (:meth:`Session.verify`, the turn and the
rules; :class:`~seep.errors.MalformedMoveError` before its base class
:class:`~seep.errors.IllegalMoveError`), stored, then made with :meth:`Session.play`, which
does not check it again; each seat's view is ``View.from_position(session.position, seat,
session.history)``; a finished deal's summary is :meth:`Session.outcome`, the match
:meth:`Session.standing` and :meth:`Session.results`; the next deal is
:meth:`Session.start_next_deal` unless ``outcome().match_over`` (the last deal stays on show);
practice undo is :meth:`Session.undo_to`; the published record is ``to_record(unfinished=False)``
(a running deal's start shows every hand); and a restarted server makes the stored moves again
with :meth:`Session.restore`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from .baazi import settle
from .engine import Position
from .errors import IllegalMoveError, InvalidPositionError
from .format import position_from_dict
from .moves import Move, MoveRecord, move_code
from .options import Rules
from .scoring import deal_result
from .verify import verify_move

__all__ = [
    "DealOutcome",
    "Session",
    "Standing",
    "deal_seed",
    "first_dealer",
    "replay_record",
]


def deal_seed(match_seed: int, deal_index: int) -> int:
    """The shuffle seed of deal ``deal_index`` of a match: a pure function of the match seed."""
    return random.Random(f"seep-deal:{match_seed}:{deal_index}").randrange(1 << 62)


def first_dealer(match_seed: int, players: int = 4) -> int:
    """The first dealer of a match (A2: chosen at random): a pure function of the match seed
    (a seat below ``players``)."""
    return random.Random(f"seep-dealer:{match_seed}").randrange(players)


class Standing(NamedTuple):
    """The match so far: deals finished (the deal on show counts once it is over), the baazi
    difference D (R44, team 0 minus team 1) and the baazis won by each team."""

    deals: int
    diff: int
    baazis: tuple[int, int]

    @property
    def leader(self) -> int | None:
        """The team ahead in the match (docs/rules.md §6.3, R7): the one with more baazis;
        level in baazis, the one leading the baazi in play (D); level in both, ``None``. At
        the match's end this is its winner, ``None`` a draw."""
        if self.baazis[0] != self.baazis[1]:
            return 0 if self.baazis[0] > self.baazis[1] else 1
        if self.diff:
            return 0 if self.diff > 0 else 1
        return None


@dataclass(frozen=True, slots=True)
class DealOutcome:
    """What a finished deal did (R42, R44-R47), known before the next deal is dealt.

    ``deal`` counts from 1; ``result`` is the docs/format.md deal result (``points``, ``bonus``,
    ``sweeps``, ``score`` per team); ``diff`` and ``baazis`` are the match after the deal;
    ``winner`` the team that won the baazi in this deal (``None``: the baazi goes on);
    ``dealer`` deals next (R47); ``under_min`` which teams scored under ``min_score`` (R46);
    ``match_over`` whether the session's length is reached.
    """

    deal: int
    result: dict[str, list[int]]
    diff: int
    baazis: tuple[int, int]
    winner: int | None
    dealer: int
    under_min: tuple[bool, bool]
    match_over: bool

    @property
    def baazi_over(self) -> bool:
        """True when this deal ended the baazi (R45, R46)."""
        return self.winner is not None

    def to_dict(self) -> dict[str, Any]:
        """The outcome as JSON (the web table's deal summary): ``deal``, ``result``,
        ``baazi_over``, ``baazi_winner``, ``diff``, ``baazis``, ``match_over`` and, once the
        match is over, ``match_winner`` (:attr:`Standing.leader`: ``None`` a draw)."""
        return {
            "deal": self.deal,
            "result": {k: list(v) for k, v in self.result.items()},
            "baazi_over": self.winner is not None,
            "baazi_winner": self.winner,
            "diff": self.diff,
            "baazis": list(self.baazis),
            "match_over": self.match_over,
            "match_winner": self.match_winner,
        }

    @property
    def match_winner(self) -> int | None:
        """The team that won the match when this deal ended it (``None``: a draw, or the
        match goes on)."""
        if not self.match_over:
            return None
        return Standing(self.deal, self.diff, self.baazis).leader


def _length(name: str, value: int | None) -> int | None:
    if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
        raise ValueError(f"{name} must be a positive integer or None, got {value!r}")
    return value


class Session:
    """A match being played: the deal in play, the finished deals, their moves.

    ``rules`` are the options (a preset name, a mapping or :class:`~seep.options.Rules`);
    ``seed`` fixes the shuffles (:func:`deal_seed`) and, when ``dealer`` is ``None``, the first
    dealer (:func:`first_dealer`). ``deals`` and ``baazis`` set the
    match length: the match is over at the end of the deal that makes either count (``None``:
    no limit; neither: the match never ends by itself). ``deal_seeds`` maps a deal's index
    (0, 1, ...) to its shuffle seed, called once as each deal is dealt. ``start`` is the first
    deal's bid-phase position instead of a shuffle (copied; its rules are the session's).
    """

    __slots__ = (
        "_checked",
        "_deal_seeds",
        "_finals",
        "_moves",
        "_outcome",
        "_pos",
        "_starts",
        "_sweeps",
        "baazis_to_play",
        "deals_to_play",
        "rules",
        "seed",
    )

    def __init__(
        self,
        rules: str | Mapping[str, Any] | Rules = "standard",
        *,
        seed: int = 0,
        dealer: int | None = None,
        deals: int | None = None,
        baazis: int | None = None,
        deal_seeds: Callable[[int], int] | None = None,
        start: Position | None = None,
    ) -> None:
        self.seed = seed
        self.deals_to_play = _length("deals", deals)
        self.baazis_to_play = _length("baazis", baazis)
        self._deal_seeds = deal_seeds
        if start is not None:
            self.rules = start.rules
            if start.phase != "bid" or start.plays:
                raise InvalidPositionError("a session starts from a deal's bid-phase position")
            pos = start.copy()
        else:
            self.rules = Rules.parse(rules)
            first = first_dealer(seed, self.rules.players) if dealer is None else dealer
            pos = Position.new_deal(self._seed_of(0), first, self.rules)
        self._starts: list[Position | None] = [pos.copy()]  # each deal's start, never changed
        self._finals: list[Position] = []  # each finished deal's last position
        self._moves: list[list[tuple[int, int]]] = [[]]  # each deal's (seat, move code)
        self._sweeps: list[list[int]] = [[]]  # the sweep bonus each move scored (R38)
        self._pos = pos
        self._outcome: DealOutcome | None = None
        self._checked = -1  # a move code already checked legal in the position in play

    def _seed_of(self, index: int) -> int:
        if self._deal_seeds is not None:
            return self._deal_seeds(index)
        return deal_seed(self.seed, index)

    # --- the state ----------------------------------------------------------------------------

    @property
    def position(self) -> Position:
        """The deal in play, or the finished deal on show until :meth:`start_next_deal`.
        Read it; change it only through the session."""
        return self._pos

    @property
    def deal_number(self) -> int:
        """The number of the deal in play, from 1."""
        return len(self._moves)

    @property
    def deal_over(self) -> bool:
        """True when the deal in play is over (its outcome is known)."""
        return self._pos.is_over()

    @property
    def deals_finished(self) -> int:
        """Deals played to the end, the one on show included."""
        return len(self._finals) + (1 if self._pos.is_over() else 0)

    @property
    def match_over(self) -> bool:
        """True when the deal on show is over and ends the match (its length reached). A
        property, as :attr:`deal_over` is; ``position.is_over()`` is the deal's."""
        out = self.outcome()
        return out is not None and out.match_over

    @property
    def to_move(self) -> int | None:
        """The seat to move, ``None`` when the deal is over."""
        return self._pos.to_move

    @property
    def history(self) -> tuple[tuple[int, int], ...]:
        """The deal in play's moves as (seat, move code), as views take them."""
        return tuple(self._moves[-1])

    def deal_history(self, index: int) -> tuple[tuple[int, int], ...]:
        """The (seat, move code) moves of deal ``index`` (0 is the first deal)."""
        return tuple(self._moves[index])

    @property
    def moves_made(self) -> int:
        """Moves made in the whole session (every deal)."""
        return sum(map(len, self._moves))

    def deal_sweeps(self) -> list[int]:
        """The sweep bonus (R38) each move of the deal in play scored, in the order of its
        moves (a view's ``history``): 0 for a move that swept nothing."""
        return list(self._sweeps[-1])

    def deal_records(self, index: int = -1) -> list[MoveRecord]:
        """The moves of deal ``index`` (0 is the first deal; -1, the default, the deal in play)
        as records: seat, move code and the sweep bonus each scored (R38)."""
        return [
            MoveRecord(s, c, w)
            for (s, c), w in zip(self._moves[index], self._sweeps[index], strict=True)
        ]

    def last_moves(self) -> list[MoveRecord | None]:
        """Each seat's latest move in the deal in play, with the sweep bonus it scored
        (:class:`~seep.moves.MoveRecord`), ``None`` for a seat that has not moved in this
        deal."""
        missing = self.rules.players
        out: list[MoveRecord | None] = [None] * missing
        moves, sweeps = self._moves[-1], self._sweeps[-1]
        for i in range(len(moves) - 1, -1, -1):  # the latest moves, one a seat, usually do
            seat, code = moves[i]
            if out[seat] is None:
                out[seat] = MoveRecord(seat, code, sweeps[i])
                missing -= 1
                if not missing:
                    break
        return out

    def outcome(self) -> DealOutcome | None:
        """The outcome of the deal in play once it is over (``None`` before): R42, R44-R47,
        without dealing the next deal."""
        if self._outcome is not None:
            return self._outcome
        pos = self._pos
        if not pos.is_over():
            return None
        s = settle(pos)
        number = len(self._moves)
        over = (self.deals_to_play is not None and number >= self.deals_to_play) or (
            self.baazis_to_play is not None and s.baazis[0] + s.baazis[1] >= self.baazis_to_play
        )
        self._outcome = DealOutcome(
            number, deal_result(pos), s.diff, s.baazis, s.winner, s.dealer, s.under_min, over
        )
        return self._outcome

    def standing(self) -> Standing:
        """Deals finished, the baazi difference and the baazis won, the deal on show counted
        once it is over."""
        out = self.outcome()
        if out is not None:
            return Standing(out.deal, out.diff, out.baazis)
        pos = self._pos
        return Standing(len(self._finals), pos.match_diff, pos.match_baazis)

    def results(self) -> list[dict[str, list[int]]]:
        """The docs/format.md result of every deal played to the end, the one on show included."""
        out = [deal_result(p) for p in self._finals]
        if self._pos.is_over():
            out.append(deal_result(self._pos))
        return out

    # --- moves --------------------------------------------------------------------------------

    def _code(self, move: int | Mapping[str, Any] | str) -> int:
        return move_code(move)

    def verify(self, move: int | Mapping[str, Any] | str, seat: int | None = None) -> int:
        """The code of ``move`` (a code, a docs/format.md move or notation) if it is legal now, for
        ``seat`` when given; raises :class:`~seep.errors.IllegalMoveError` saying why not
        (:class:`~seep.errors.MalformedMoveError` for a move that does not parse), as
        :func:`seep.verify.verify_move` does (:func:`seep.verify.check` answers with the
        refusal instead). A move verified here is not checked again by :meth:`play`."""
        code = self._code(move)
        self._verify_code(code, seat)
        self._checked = code
        return code

    def _verify_code(self, code: int, seat: int | None) -> None:
        pos = self._pos
        if seat is not None and seat != pos.to_move and not pos.is_over():
            raise IllegalMoveError(f"seat {pos.to_move} is to move, not seat {seat}")
        if not pos.is_legal(code):
            if pos.is_over():
                raise IllegalMoveError(
                    "the match is over"
                    if self.match_over
                    else f"deal {len(self._moves)} is over: the next deal has not been dealt"
                )
            verify_move(pos, code)  # raises with the reason
            raise IllegalMoveError(f"{code:#x} is not a legal move here")  # pragma: no cover

    def play(self, move: int | Mapping[str, Any] | str, seat: int | None = None) -> tuple[int, int]:
        """Check (unless :meth:`verify` just did) and make a move of the seat to move;
        returns (seat, move code). Raises as :meth:`verify` does, changing nothing."""
        code = move if type(move) is int else self._code(move)
        if code != self._checked or (seat is not None and seat != self._pos.to_move):
            self._verify_code(code, seat)
        return self.play_legal(code)

    def play_legal(self, code: int) -> tuple[int, int]:
        """Make a move already known to be legal here, unchecked: a code of
        ``position.legal_codes()`` (what an environment's action builder gives). Anything
        from outside (a player, a bot, a file) goes through :meth:`play`."""
        pos = self._pos
        mover = pos.to_move
        assert mover is not None
        sw = pos.sweeps
        before = sw[0] + sw[1]
        pos.advance(code)
        sw = pos.sweeps
        entry = (mover, code)
        self._moves[-1].append(entry)
        self._sweeps[-1].append(sw[0] + sw[1] - before)
        self._checked = -1
        self._outcome = None
        return entry

    def record_played(self, moves: Sequence[tuple[int, int]], sweeps: Sequence[int]) -> None:
        """Record moves already made on :attr:`position` by its driver (``Position.advance``
        with codes of its own ``legal_codes()``), as :meth:`play_legal` would have made them:
        ``moves`` the (seat, move code) of each, ``sweeps`` the sweep bonus each scored (R38).
        For a driver that makes many moves between looks at the session (OpenSpiel's
        ``python_seep`` core): a call from compiled code into this interpreted module costs
        more than the move's own bookkeeping."""
        self._moves[-1].extend(moves)
        self._sweeps[-1].extend(sweeps)
        self._checked = -1
        self._outcome = None

    def start_next_deal(
        self,
        seed: int | None = None,
        *,
        deck: Sequence[int] | None = None,
        start: Position | None = None,
    ) -> Position:
        """Deal the next deal after a finished one, with the match as :meth:`outcome` says
        (dealer, baazi difference, baazis: R44-R47); returns its position. The shuffle is
        ``seed``, else the session's seed for the deal's index; or ``deck`` gives the 52 cards
        in deal order; or ``start`` is the bid-phase position itself (from a record: taken as
        it is, its rules must be the session's). Raises
        :class:`~seep.errors.IllegalMoveError` while the deal runs or once the match is over.
        """
        out = self.outcome()
        if out is None:
            raise IllegalMoveError(
                f"deal {len(self._moves)} is not over ({self._pos.plays} of 48 plays made)"
            )
        if out.match_over:
            raise IllegalMoveError(f"the match is over after {out.deal} deal(s)")
        if start is not None:
            if start.rules != self.rules:
                raise InvalidPositionError(
                    f"deal {out.deal + 1}: its rules differ from the match's"
                )
            if start.phase != "bid" or start.plays:
                raise InvalidPositionError(f"deal {out.deal + 1}: a deal starts in the bid phase")
            pos = start.copy()
        else:
            match = (out.diff, out.baazis, self._pos.match_deals + 1)
            if deck is not None:
                pos = Position.from_deck(list(deck), out.dealer, self.rules, match=match)
            else:
                shuffle = self._seed_of(len(self._moves)) if seed is None else seed
                pos = Position.new_deal(shuffle, out.dealer, self.rules, match=match)
        self._finals.append(self._pos)
        self._starts.append(pos.copy())
        self._moves.append([])
        self._sweeps.append([])
        self._pos = pos
        self._outcome = None
        self._checked = -1
        return pos

    # --- undo ---------------------------------------------------------------------------------

    def undo(self, count: int = 1) -> int:
        """Take back the last ``count`` moves, across deal boundaries (a deal left without
        moves is taken back with the move before it); returns how many were taken back."""
        total = self.moves_made
        if not 0 < count <= total:
            raise IllegalMoveError(f"cannot take back {count} of the {total} moves made")
        d = len(self._moves) - 1
        left = count
        while left > len(self._moves[d]):
            left -= len(self._moves[d])
            d -= 1
        keep = len(self._moves[d]) - left
        start = self._starts[d]
        if start is None:
            raise IllegalMoveError(f"deal {d + 1} was redealt: its start is unknown")
        pos = start.copy()
        for _, code in self._moves[d][:keep]:
            pos.advance(code)
        del self._starts[d + 1 :]
        del self._finals[d:]
        del self._moves[d + 1 :]
        del self._sweeps[d + 1 :]
        del self._moves[d][keep:]
        del self._sweeps[d][keep:]
        self._pos = pos
        self._outcome = None
        self._checked = -1
        return count

    def undo_to(self, seat: int) -> int:
        """Take back ``seat``'s last move and every move after it, in this deal or an earlier
        one; returns how many moves were taken back (then ``seat`` is to move)."""
        after = 0
        for moves in reversed(self._moves):
            for s, _ in reversed(moves):
                after += 1
                if s == seat:
                    return self.undo(after)
        raise IllegalMoveError(f"seat {seat} has made no move to take back")

    # --- copies -------------------------------------------------------------------------------

    def copy(self) -> Session:
        """An independent copy (fast: finished deals are shared, they never change)."""
        c = Session.__new__(Session)
        c.rules = self.rules
        c.seed = self.seed
        c.deals_to_play = self.deals_to_play
        c.baazis_to_play = self.baazis_to_play
        c._deal_seeds = self._deal_seeds
        c._starts = self._starts[:]
        c._finals = self._finals[:]
        c._moves = self._moves[:]
        c._moves[-1] = self._moves[-1][:]
        c._sweeps = self._sweeps[:]
        c._sweeps[-1] = self._sweeps[-1][:]
        c._pos = self._pos.copy()
        c._outcome = self._outcome
        c._checked = self._checked
        return c

    def redealt(self, position: Position) -> Session:
        """A copy in which the deal in play goes on from ``position`` instead: the same point
        of the same deal (same dealer, plays and match) with other hidden cards, such as
        :meth:`seep.view.View.determinize` gives. Its start is then unknown, so the copy
        cannot undo into this deal nor write it in a record."""
        pos = self._pos
        if (position.dealer, position.plays, position.phase, position.rules) != (
            pos.dealer,
            pos.plays,
            pos.phase,
            pos.rules,
        ) or (position.match_diff, position.match_baazis, position.match_deals) != (
            pos.match_diff,
            pos.match_baazis,
            pos.match_deals,
        ):
            raise InvalidPositionError("a redealt position must be at the same point of the deal")
        c = self.copy()
        c._pos = position.copy()
        c._starts[-1] = None
        c._checked = -1
        return c

    # --- docs/format.md records -------------------------------------------------------------------

    def to_record(self, unfinished: bool = True) -> dict[str, Any]:
        """The docs/format.md game record: every finished deal with its result, and the deal in
        play if it has begun (unless ``unfinished`` is false: a running deal's start shows
        every hand, which a server must not publish)."""
        deals = []
        for i, moves in enumerate(self._moves):
            last = i == len(self._moves) - 1
            over = not last or self._pos.is_over()
            if last and not over and (not moves or not unfinished):
                break
            start = self._starts[i]
            if start is None:
                raise InvalidPositionError(f"deal {i + 1} was redealt: its start is unknown")
            deal: dict[str, Any] = {
                "start": start.to_dict(),
                "moves": [MoveRecord(s, c).to_dict() for s, c in moves],
            }
            if over:
                deal["result"] = deal_result(self._finals[i] if not last else self._pos)
            deals.append(deal)
        return {
            "format": "seep/1",
            "rules": self.rules.to_dict(),
            "seed": self.seed,
            "deals": deals,
        }

    @classmethod
    def from_record(
        cls,
        record: Mapping[str, Any],
        *,
        deals: int | None = None,
        baazis: int | None = None,
    ) -> Session:
        """The session a record holds, replayed and checked move by move (raises
        :class:`~seep.errors.InvalidPositionError` or :class:`~seep.errors.IllegalMoveError`
        naming the deal and move). Its last deal stays on show, finished or not; later deals
        are shuffled from the record's ``seed`` (:func:`deal_seed`)."""
        session: Session | None = None
        for step in cls.steps(record, deals=deals, baazis=baazis):
            session = step
        if session is None:
            seed = record.get("seed", 0)
            return cls(record.get("rules", "standard"), seed=seed, deals=deals, baazis=baazis)
        return session

    @classmethod
    def steps(
        cls,
        record: Mapping[str, Any],
        *,
        deals: int | None = None,
        baazis: int | None = None,
    ) -> Iterator[Session]:
        """Walk through a record: the same session after each deal's start and after each
        move (copy what you keep). The whole record is checked first, so a bad record raises
        before anything is yielded."""
        for _ in replay_record(record):
            pass  # every start, move and result checked, with the deal and move named
        seed = record.get("seed", 0)
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise InvalidPositionError(f"record: 'seed' must be an integer, got {seed!r}")
        session: Session | None = None
        for i, deal in enumerate(record["deals"]):
            start = position_from_dict(deal["start"])
            if session is None:
                session = cls(seed=seed, deals=deals, baazis=baazis, start=start)
            else:
                if not session.deal_over:
                    raise InvalidPositionError(f"deal {i} of the record is not over")
                session.start_next_deal(start=start)
            yield session
            for mv in deal["moves"]:
                session.play(mv)
                yield session

    def restore(self, moves: Iterable[Mapping[str, Any]]) -> int:
        """Make stored docs/format.md moves (each with its ``seat`` when known) one after another,
        dealing the next deal whenever one is over (a server restoring a table from its store);
        returns how many were made. To replay a record, walking through it, see :meth:`steps`
        and :func:`replay_record`."""
        n = 0
        for mv in moves:
            if self._pos.is_over():
                self.start_next_deal()
            seat = mv.get("seat")
            self.play(mv, seat if isinstance(seat, int) and not isinstance(seat, bool) else None)
            n += 1
        return n


def replay_record(
    record: Mapping[str, Any],
) -> Iterator[tuple[dict[str, Any] | None, dict[str, Any]]]:
    """Replay a docs/format.md game record, yielding ``(move, position after it)`` pairs (the move
    is ``None`` for each deal's start). Raises :class:`IllegalMoveError` at the first illegal move
    and :class:`InvalidPositionError` when a stored start or result disagrees with the replay.
    """
    if not isinstance(record, Mapping) or record.get("format", "seep/1") != "seep/1":
        raise InvalidPositionError("a game record is a JSON object with format 'seep/1'")
    deals = record.get("deals")
    if not isinstance(deals, list):
        raise InvalidPositionError("a game record needs a list 'deals'")
    rules = Rules.parse(record.get("rules", "standard"))
    for i, deal in enumerate(deals):
        if not isinstance(deal, Mapping) or "start" not in deal or "moves" not in deal:
            raise InvalidPositionError(f"deal {i + 1} of the record needs 'start' and 'moves'")
        pos = position_from_dict(deal["start"])
        if pos.rules != rules:
            raise InvalidPositionError(f"deal {i + 1}: its rules differ from the record's")
        yield None, pos.to_dict()
        for j, mv in enumerate(deal["moves"]):
            try:
                code = Move.from_dict(mv)
                verify_move(pos, code)
            except IllegalMoveError as exc:  # a malformed move too: its place is named
                raise type(exc)(f"deal {i + 1}, move {j + 1}: {exc}") from None
            seat = mv.get("seat") if isinstance(mv, Mapping) else None
            if seat is not None and seat != pos.to_move:
                raise InvalidPositionError(
                    f"deal {i + 1}, move {j + 1}: recorded for seat {seat} but seat "
                    f"{pos.to_move} is to move"
                )
            pos.push(code)
            yield Move(code).to_dict(), pos.to_dict()
        if "result" in deal:
            if not pos.is_over():
                raise InvalidPositionError(f"deal {i + 1} has a result but is not over")
            got = deal_result(pos)
            want = deal["result"]
            for key in ("points", "sweeps", "score"):
                if key in want and want[key] != got[key]:
                    raise InvalidPositionError(
                        f"deal {i + 1}: recorded {key} {want[key]} but the replay gives {got[key]}"
                    )
