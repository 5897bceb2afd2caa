"""A table's ``state`` messages as JSON text, each distinct one written once per change.

A broadcast must not grow with the deal (issue 24): :class:`StateWriter` writes the parts all
seats share once per change and keeps the deal's history serialised, appending each new move,
so the state at move 48 costs what it costs at move 1. The text is byte for byte
``dumps(state(table, seat))`` (:func:`seep.web.wire.state`).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

from ..view import PublicView
from .wire import (
    TableFacts,
    card_names_text,
    clock_info,
    dumps,
    match_info,
    move_text,
    moves_text,
    record_text,
    summary,
    table_public,
)

__all__ = ["StateWriter"]


# Marks a hole in a view's JSON text: a view holds only the core's data (cards, numbers, the
# rules' names), never this string, so the text is cut at its quoted form.
_HOLE = "\x00hole\x00"
_HOLE_TEXT = dumps(_HOLE)
_VIEW_HOLES = ("rules", "seat", "hands", "history")


def _cut(d: Mapping[str, Any], holes: tuple[str, ...]) -> list[str]:
    """The JSON text of ``d`` cut at the values of ``holes`` (keys of ``d``, in its order):
    ``pieces[0] + value_0 + pieces[1] + ... + pieces[-1]`` is the whole text."""
    pieces = dumps({k: _HOLE if k in holes else v for k, v in d.items()}).split(_HOLE_TEXT)
    assert len(pieces) == len(holes) + 1
    return pieces


def _members(d: Mapping[str, Any]) -> str:
    """The members of a JSON object's text, without its braces (``"a":1,"b":2``)."""
    return dumps(d)[1:-1]


_NOT_TO_MOVE = _members({"legal": [], "dead": {}, "dead_reasons": {}})
# Each history a writer keeps has its own number: a connection that holds the moves of one
# (the appended history, docs/web.md "WebSocket") is sent only the moves after them.
_HISTORIES = itertools.count(1)


class StateWriter:
    """One table's ``state`` messages as JSON text, each distinct one written once per change.

    :meth:`begin` writes what every connection's state shares: the table, the deal's public
    view (:class:`~seep.view.PublicView`, cut where a seat's view differs: its ``seat`` and
    its ``hands``), the match, the summary; :meth:`text` then fills in a seat's (or the
    spectator's) own part and the history. The deal's history is kept serialised move by
    move: a new move is one more item, and a history that is no longer an extension of the
    kept one (an undo, a new deal) is written again and numbered anew (:attr:`history_id`).
    What does not change from one move to the next (the rules, the table's seats) is written
    again only when it changes.

    A connection that asked for the appended history is sent, with ``since``, only the moves
    from that number on, and ``history_from`` says where they start.
    """

    def __init__(self) -> None:
        self._moves: tuple[tuple[int, int], ...] = ()
        self._items: list[str] = []  # the JSON of each move record of ``_moves``
        self.history_id = next(_HISTORIES)  # the number of the kept history (see above)
        self._table: TableFacts | None = None
        self._shared: tuple[str, str] = ("", "")
        self._view: list[str] = []  # the public view cut at rules, seat, hands and history
        self._sizes: list[Any] = []
        self._history: str | None = None  # the whole history's text, once written
        self._texts: dict[tuple[int | None, int | None], str] = {}
        self._rules: tuple[object, str] = (None, "")  # the rules and their text
        self._public: tuple[dict[str, Any] | None, str] = (None, "")  # table_public, its text
        self._match: tuple[dict[str, Any] | None, str] = (None, "null")  # match_info, its text

    def _keep_history(self, history: tuple[tuple[int, int], ...]) -> None:
        n = len(self._moves)
        if len(history) < n or history[:n] != self._moves:
            n = 0
            self._items = []
            self.history_id = next(_HISTORIES)
        for s, c in history[n:]:
            self._items.append(record_text(s, c))
        self._moves = history

    @property
    def held(self) -> tuple[int, int] | None:
        """What a connection sent this change's state holds: the history's number and its
        moves (``None`` before the start: no view)."""
        if not self._view:
            return None
        return self.history_id, len(self._items)

    def _text_of(self, cached: tuple[Any, str], value: Any) -> tuple[Any, str]:
        """``value`` and its text: the kept one while ``value`` is unchanged."""
        return cached if cached[0] == value else (value, dumps(value))

    def appended(self, seat: int | None, held: tuple[int, int] | None) -> str:
        """The state for a connection of the appended history that holds ``held`` (what
        :attr:`held` said at its last state; ``None``: nothing): only the moves it lacks, all
        of them when its moves are of another history."""
        since = held[1] if held is not None and held[0] == self.history_id else 0
        return self.text(seat, since)

    def begin(self, t: TableFacts) -> None:
        """Start a change's messages: the parts every connection's state shares."""
        session = t.session
        self._table = t
        self._texts = {}
        self._history = None
        if session is not None:
            self._keep_history(session.history)
            sweeps = dumps(session.deal_sweeps())
            public = PublicView.from_position(session.position)
            self._sizes = list(public.hand_sizes)
            if self._rules[0] is not public.rules:
                self._rules = (public.rules, dumps(public.rules.to_dict()))
            view = public.to_dict(history=False)
            view["history"] = None
            self._view = _cut(view, _VIEW_HOLES)
            latest = ",".join(
                "null" if m is None else move_text(m.code) for m in session.last_moves()
            )
        else:
            sweeps, self._view = "[]", []
            latest = ",".join(["null"] * t.players)
        self._public = self._text_of(self._public, table_public(t))
        self._match = self._text_of(self._match, match_info(session))
        out = summary(t)
        clock = clock_info(t)
        head = f'{{"type":"state","version":{t.version:d},"seat":'
        self._shared = (
            head,
            f',"last_moves":[{latest}],"history_sweeps":{sweeps},"match":{self._match[1]},'
            f'"summary":{"null" if out is None else dumps(out)},'
            f'"clock":{"null" if clock is None else dumps(clock)},"legal_counts":',
        )

    def text(self, seat: int | None, since: int | None = None) -> str:
        """The state for ``seat`` (``None``: a spectator) of the change :meth:`begin` began;
        with ``since`` (at most the moves of the kept history) its history holds only the
        moves from that number on, and says so in ``history_from``."""
        key = (seat, since)
        got = self._texts.get(key)
        if got is not None:
            return got
        t = self._table
        assert t is not None, "begin() first"
        head, tail = self._shared
        seat_text = "null" if seat is None else f"{seat:d}"
        if not self._view or t.session is None:
            view_text = "null"
        else:
            hands = [f"{n:d}" for n in self._sizes]
            if seat is not None:
                hands[seat] = card_names_text(t.session.position.hands[seat])
            if since is None:
                if self._history is None:
                    self._history = "[" + ",".join(self._items) + "]"
                history = self._history
            else:
                history = "[" + ",".join(self._items[since:]) + "]"
            a, b, c, d, e = self._view
            rules = self._rules[1]
            view_text = f"{a}{rules}{b}{seat_text}{c}[{','.join(hands)}]{d}{history}{e}"
        if seat is not None and t.to_move == seat:
            moves, counts_text = moves_text(t, seat)
        else:
            moves, counts_text = _NOT_TO_MOVE, "null"
        table = self._public[1]
        start = f"{head}{seat_text}"
        if since is not None:
            start += f',"history_from":{since:d}'
        text = f'{start},"table":{table},"view":{view_text},{moves}{tail}{counts_text}}}'
        self._texts[key] = text
        return text

    def end(self) -> None:
        """The change is sent: let the table go (the history stays kept for the next one)."""
        self._table = None
        self._texts = {}
