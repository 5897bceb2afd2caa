"""A reference match for the tests: deals strung together by :meth:`Position.next_deal` alone.

:class:`seep.session.Session` is the game loop every interface drives; this is the older,
independent way of playing a match (each finished deal scored and the next one dealt by
:meth:`seep.engine.Position.next_deal`, R42, R44-R47, R9, R10), kept here so that the tests
can hold a session's outcomes and records to it (tests/test_session.py).

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

from collections.abc import Mapping
from typing import Any

from seep.engine import Position
from seep.options import Rules
from seep.scoring import deal_result
from seep.session import deal_seed, first_dealer, replay_record  # noqa: F401 (the doctest)

__all__ = ["Match"]


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
