"""A table's ``state`` messages as JSON text, each distinct one written once per change.

A broadcast must not grow with the deal (issue 24): :class:`StateWriter` writes the parts all
seats share once per change and keeps the deal's history serialised, appending each new move,
so the state at move 48 costs what it costs at move 1. The text is byte for byte
``dumps(state(table, seat))`` (:func:`seep.web.wire.state`).
"""

from __future__ import annotations

import itertools
from typing import Any

from ..codes import PHASE_BID, PHASE_NAMES, PHASE_OVER
from ..options import Rules
from ..session import Session
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


def _members(d: dict[str, Any]) -> str:
    """The members of a JSON object's text, without its braces (``"a":1,"b":2``)."""
    return dumps(d)[1:-1]


# A view's text up to its seat, by its rules object (kept with its text, so that its id is not
# reused while kept; hashing the rules costs more than the lookup): written once a table.
_VIEW_HEADS: dict[int, tuple[Rules, str]] = {}
_PHASES = tuple(dumps(name) for name in PHASE_NAMES)


def _view_head(rules: Rules) -> str:
    kept = _VIEW_HEADS.get(id(rules))
    if kept is not None and kept[0] is rules:
        return kept[1]
    if len(_VIEW_HEADS) >= 1 << 12:
        _VIEW_HEADS.clear()
    head = f'{{"format":"seep/1","rules":{dumps(rules.to_dict())},"seat":'
    _VIEW_HEADS[id(rules)] = (rules, head)
    return head


# A floor's houses' text, by the houses (a house outlives many moves).
_HOUSES_TEXTS: dict[tuple[int, tuple[tuple[int, int, bool, int], ...]], str] = {}


def _houses_text(houses: tuple[tuple[int, int, bool, int], ...], players: int) -> str:
    if not houses:
        return "[]"
    key = (players, houses)
    text = _HOUSES_TEXTS.get(key)
    if text is None:
        if len(_HOUSES_TEXTS) >= 1 << 12:
            _HOUSES_TEXTS.clear()
        text = _HOUSES_TEXTS[key] = _write_houses(houses, players)
    return text


def _write_houses(houses: tuple[tuple[int, int, bool, int], ...], players: int) -> str:
    items = [
        f'{{"value":{value:d},"cards":{card_names_text(cards)},'
        f'"cemented":{"true" if cemented else "false"},'
        f'"owners":[{",".join([f"{s:d}" for s in range(players) if owners >> s & 1])}]}}'
        for value, cards, cemented, owners in houses
    ]
    return f"[{','.join(items)}]"


def _view_parts(v: PublicView) -> tuple[str, str, str]:
    """A public view's text (``dumps(v.to_dict(history=False))``) cut where a seat's view
    differs and where the history goes: ``head`` + seat + ``middle`` + hands + ``tail`` +
    history + ``"}"``. Written field by field in docs/format.md's order, each set of cards
    once while kept (tests/web/test_web_wire.py holds it to the view's dict)."""
    phase = v.phase_id
    players = len(v.hand_sizes)
    to_move = "null" if phase == PHASE_OVER else f"{v.to_move:d}"
    loose = f"{v.facedown:d}" if phase == PHASE_BID else card_names_text(v.loose)
    houses = _houses_text(v.houses, players)
    diff, baazis, deals = v.match
    last = "null" if v.last_capture < 0 else f"{v.last_capture:d}"
    middle = (
        f',"dealer":{v.dealer:d},"phase":{_PHASES[phase]},'
        f'"bid":{f"{v.bid:d}" if v.bid else "null"},"plays":{v.plays:d},'
        f'"to_move":{to_move},"hands":'
    )
    tail = (
        f',"stock":{v.stock_size:d},"loose":{loose},"houses":{houses},'
        f'"captured":[{card_names_text(v.captured[0])},{card_names_text(v.captured[1])}],'
        f'"sweeps":[{v.sweeps[0]:d},{v.sweeps[1]:d}],"last_capture":{last},'
        f'"match":{{"diff":{diff:d},"baazis":[{",".join([f"{b:d}" for b in baazis])}],'
        f'"deals":{deals:d}}},"history":'
    )
    return _view_head(v.rules), middle, tail


def _public_key(t: TableFacts) -> tuple[Any, ...]:
    """What :func:`~seep.web.wire.table_public` shows of a table, but its settings and its
    spectators (compared on their own), as a value to compare: cheaper than the dict."""
    seats = tuple(
        [(s.name, s.kind, s.connections > 0, s.away, s.forfeited, s.rating) for s in t.seats]
    )
    return (t.code, t.status, t.host, seats, frozenset(t.muted), frozenset(t.rematch), t.starts_at)


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
    move, and so are the sweeps its moves scored: a new move is one more item, and a history
    that is no longer an extension of the kept one (an undo, a new deal) is written again and
    numbered anew (:attr:`history_id`). What does not change from one move to the next (the
    rules, the table's seats, the match) is written again only when it changes.

    A connection that asked for the appended history is sent, with ``since``, only the moves
    from that number on, and ``history_from`` says where they start.
    """

    def __init__(self) -> None:
        self._moves: tuple[tuple[int, int], ...] = ()
        self._items: list[str] = []  # the JSON of each move record of ``_moves``
        self._sweeps = ""  # the JSON items of the sweeps of ``_moves``, comma-separated
        self._latest: list[str] = []  # each seat's latest move of ``_moves``, its JSON or null
        self.history_id = next(_HISTORIES)  # the number of the kept history (see above)
        self._table: TableFacts | None = None
        self._shared: tuple[str, str] = ("", "")
        self._view: tuple[str, str, str] | None = None  # the public view's parts (_view_parts)
        self._sizes: tuple[int, ...] = ()
        self._history: str | None = None  # the whole history's text, once written
        self._texts: dict[tuple[int | None, int | None], str] = {}
        self._public_now = ""  # this change's table text
        # The table's public text (table_public) and what it was written from (_public_key,
        # the settings and the spectators as then): written again only when one changed.
        self._public: tuple[Any, dict[str, Any], Any, str] = (None, {}, None, "")
        # The match's text up to the deal's points (match_info: it changes only when a deal
        # ends), by the session and its deals finished.
        self._match: tuple[Any, str] = (None, "")

    def _keep_history(
        self, history: tuple[tuple[int, int], ...], sweeps: list[int], players: int
    ) -> None:
        n = len(self._moves)
        if len(history) < n or history[:n] != self._moves or len(self._latest) != players:
            n = 0
            self._items = []
            self._sweeps = ""
            self._latest = ["null"] * players
            self.history_id = next(_HISTORIES)
        if len(history) > n:
            latest = self._latest
            for s, c in history[n:]:
                self._items.append(record_text(s, c))
                latest[s] = move_text(c)  # the seat's latest move, so far
            # A move's sweep never changes once made: only the new moves' are written.
            new = ",".join([f"{w:d}" for w in sweeps[n:]])
            self._sweeps = f"{self._sweeps},{new}" if n else new
        self._moves = history

    @property
    def held(self) -> tuple[int, int] | None:
        """What a connection sent this change's state holds: the history's number and its
        moves (``None`` before the start: no view)."""
        if self._view is None:
            return None
        return self.history_id, len(self._items)

    def _public_text(self, t: TableFacts) -> str:
        """``dumps(table_public(t))``, the kept text while what it shows is unchanged."""
        key = _public_key(t)
        kept = self._public
        if kept[0] == key and kept[1] == t.settings and kept[2] == t.watching:
            return kept[3]
        text = dumps(table_public(t))
        self._public = (key, dict(t.settings), t.watching, text)
        return text

    def _match_text(self, session: Session | None) -> str:
        """``dumps(match_info(session))``: the standing and the deals' results written again
        only when a deal ends, the deal on show's points and score each time."""
        if session is None:
            return "null"
        key = (session, session.deals_finished, session.deal_over)
        kept = self._match
        if kept[0] != key:
            whole = dumps(match_info(session))
            # The points and the score are the last members: cut before them.
            kept = self._match = (key, whole[: whole.rindex(',"points":')])
        shown = session.position
        (a, b), (c, d) = shown.card_points(), shown.deal_scores()
        return f'{kept[1]},"points":[{a:d},{b:d}],"score":[{c:d},{d:d}]}}'

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
            public = PublicView.from_position(session.position)
            self._sizes = public.hand_sizes
            self._keep_history(session.history, session.deal_sweeps(), len(public.hand_sizes))
            self._view = _view_parts(public)
            latest = ",".join(self._latest)
            sweeps_text = f"[{self._sweeps}]"
        else:
            sweeps_text, self._view = "[]", None
            latest = ",".join(["null"] * t.players)
        self._public_now = self._public_text(t)
        match = self._match_text(session)
        out = summary(t)
        clock = clock_info(t)
        head = f'{{"type":"state","version":{t.version:d},"seat":'
        self._shared = (
            head,
            f',"last_moves":[{latest}],"history_sweeps":{sweeps_text},"match":{match},'
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
        if self._view is None or t.session is None:
            view_text = "null"
        else:
            hands = [f"{n:d}" for n in self._sizes]
            if seat is not None:
                hands[seat] = card_names_text(t.session.position.hands[seat])
            if since is None:
                if self._history is None:
                    self._history = "[" + ",".join(self._items) + "]"
                history = self._history
            elif since:
                history = "[" + ",".join(self._items[since:]) + "]"
            else:
                history = self._history = self._history or "[" + ",".join(self._items) + "]"
            a, b, c = self._view
            view_text = f"{a}{seat_text}{b}[{','.join(hands)}]{c}{history}}}"
        if seat is not None and t.to_move == seat:
            moves, counts_text = moves_text(t, seat)
        else:
            moves, counts_text = _NOT_TO_MOVE, "null"
        table = self._public_now
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
