"""Matches and game records (docs/format.md "Game record").

A :class:`Match` strings deals together: each finished deal is scored (R42), the running baazi
difference and the baazis won are updated (R44-R46) and the next dealer chosen (R9, R10), all
by :meth:`seep.engine.Position.next_deal`. It keeps every deal's start, moves and result, and
writes and reads docs/format.md game records; :func:`replay_record` checks a record move by move.

>>> import random
>>> m = Match(seed=7, rules="standard")
>>> rng = random.Random(0)
>>> while m.deals_finished < 2:
...     _ = m.play(rng.choice(m.position.legal_moves()))
...     if m.position.is_over():
...         _ = m.next_deal()
>>> rec = m.to_record()
>>> len(rec["deals"]) >= 2 and rec["format"] == "seep/1"
True
>>> [p for _, p in replay_record(rec)][-1]["phase"]
'over'
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping
from typing import Any

from .engine import Position
from .errors import IllegalMoveError, InvalidPositionError
from .format import position_from_dict
from .moves import Move
from .options import Rules
from .verify import verify_move

__all__ = ["Match", "deal_result", "deal_seed", "first_dealer", "replay_record"]


def deal_result(pos: Position) -> dict[str, list[int]]:
    """The ``result`` of a finished deal: per team ``points``, ``bonus``, ``sweeps``, ``score``."""
    if not pos.is_over():
        raise IllegalMoveError(f"the deal is not over ({pos.plays} of 48 plays made): no score yet")
    return {
        "points": list(pos.card_points()),
        "bonus": list(pos.majority_bonus()),
        "sweeps": list(pos.sweeps),
        "score": list(pos.deal_scores()),
    }


def deal_seed(match_seed: int, deal_index: int) -> int:
    """The shuffle seed of deal ``deal_index`` of a match: a pure function of the match seed."""
    return random.Random(f"seep-deal:{match_seed}:{deal_index}").randrange(1 << 62)


def first_dealer(match_seed: int, players: int = 4) -> int:
    """The first dealer of a match (A2: chosen at random): a pure function of the match seed
    (a seat below ``players``)."""
    return random.Random(f"seep-dealer:{match_seed}").randrange(players)


class Match:
    """A running match: the current deal plus the history of the finished ones.

    ``seed`` fixes every shuffle (deal ``i`` uses a seed derived from it) and, when ``dealer``
    is ``None``, the first dealer (A2: chosen at random).
    """

    def __init__(
        self,
        seed: int,
        rules: str | Mapping[str, Any] | Rules = "standard",
        dealer: int | None = None,
    ) -> None:
        self.seed = seed
        self.rules = Rules.parse(rules)
        first = first_dealer(seed, self.rules.players) if dealer is None else dealer
        self.position = Position.new_deal(deal_seed(seed, 0), first, self.rules)
        self.deals: list[dict[str, Any]] = []  # finished deals: start, moves, result
        self._start = self.position.to_dict()
        self._moves: list[dict[str, Any]] = []

    @property
    def deals_finished(self) -> int:
        """Deals scored so far in this match."""
        return len(self.deals)

    @property
    def baazis(self) -> tuple[int, int]:
        """Baazis won by team 0 and team 1."""
        return self.position.match_baazis

    def play(self, move: int | dict[str, Any] | str) -> dict[str, Any]:
        """Check and make a move in the current deal; returns its record (with ``seat``)."""
        record = self.position.play(move)
        self._moves.append(record)
        return record

    def undo(self) -> dict[str, Any]:
        """Take back the last move of the current deal; returns its record."""
        if not self._moves:
            raise IllegalMoveError("no move to take back in this deal")
        self.position.pop()
        return self._moves.pop()

    def next_deal(self) -> dict[str, Any]:
        """Score the finished deal and deal the next one; returns the finished deal's result."""
        pos = self.position
        result = deal_result(pos)
        self.deals.append(
            {"start": self._start, "moves": [dict(m) for m in self._moves], "result": result}
        )
        self.position = pos.next_deal(deal_seed(self.seed, len(self.deals)))
        self._start = self.position.to_dict()
        self._moves = []
        return result

    def to_record(self) -> dict[str, Any]:
        """The docs/format.md game record: every finished deal, and the current one if begun."""
        deals = list(self.deals)
        if self._moves:
            deals.append({"start": self._start, "moves": [dict(m) for m in self._moves]})
        return {
            "format": "seep/1",
            "rules": self.rules.to_dict(),
            "seed": self.seed,
            "deals": deals,
        }

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> Match:
        """Rebuild a match from a record, replayed and checked move by move; a record whose
        last deal is finished continues with a fresh deal."""
        for _ in replay_record(record):
            pass  # validates every start, move and result
        seed = record.get("seed", 0)
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise InvalidPositionError(f"record: 'seed' must be an integer, got {seed!r}")
        m = cls.__new__(cls)
        m.seed = seed
        m.rules = Rules.parse(record.get("rules", "standard"))
        m.deals = []
        m._moves = []
        deals = record["deals"]
        if not deals:
            return cls(seed, m.rules)
        for deal in deals:
            pos = position_from_dict(deal["start"])
            m.position = pos
            m._start = pos.to_dict()
            m._moves = []
            for mv in deal["moves"]:
                m.play(mv)
            if pos.is_over():
                m.next_deal()
        return m


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
