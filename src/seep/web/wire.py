"""What goes on the wire: the one place that writes a table's messages (docs/web.md).

``state`` (:func:`state` as a dict; :class:`seep.web.statetext.StateWriter` writes it as the
JSON text a broadcast sends),
the table's public summary (:func:`table_public`), the lobby's rows (:func:`lobby_row`), a move
as a record (:func:`move_record`) and a refusal's reason (:func:`reason_dict`). Every rule
question goes to the core: the views come from :class:`seep.view.View` (a seat's) and
:class:`seep.view.PublicView` (a spectator's), the legal moves from the position, a dead card's
reason from the rules checker.

The functions read a table through :class:`TableFacts`, the few attributes they need, so this
module imports no table: the table module (:mod:`seep.web.table`) sits above it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence, Set
from typing import Any, Protocol

from ..cards import card_list, card_name
from ..codes import PHASE_PLAY, code_card
from ..engine import Position
from ..moves import Move, MoveRecord
from ..session import Session, replay_record
from ..verify import Refusal
from ..view import PublicView, View
from . import social

__all__ = [
    "SeatFacts",
    "TableFacts",
    "card_names_text",
    "clock_info",
    "dead_cards",
    "dumps",
    "lobby_row",
    "move_dict",
    "move_record",
    "move_text",
    "moves_part",
    "moves_text",
    "reason_dict",
    "record_text",
    "replay_steps",
    "seat_public",
    "state",
    "stored_lobby_row",
    "stored_move_text",
    "table_public",
]

_ENCODER = json.JSONEncoder(separators=(",", ":"), check_circular=False)
# The standard library's C encoder, made once: JSONEncoder.encode makes a new one at every
# call, which costs more than writing a small message (a broadcast writes several a move).
_MAKE_ENCODER: Any = getattr(json.encoder, "c_make_encoder", None)  # not in typeshed
_C_ENCODER: Any = (
    None
    if _MAKE_ENCODER is None
    else _MAKE_ENCODER(
        None,
        _ENCODER.default,
        json.encoder.encode_basestring_ascii,
        None,
        ":",
        ",",
        False,
        False,
        True,
    )
)


def dumps(msg: Any) -> str:
    """A message as compact JSON (no spaces: a tenth smaller, and quicker to write), as
    ``json.dumps(msg, separators=(",", ":"))`` writes it."""
    if _C_ENCODER is None:
        return _ENCODER.encode(msg)
    return "".join(_C_ENCODER(msg, 0))


def move_dict(code: int) -> dict[str, Any]:
    """A move's docs/format.md dict."""
    return Move(code).to_dict()


def move_record(seat: int, code: int) -> dict[str, Any]:
    """A move as stored and shown in a history: its docs/format.md dict with its ``seat``."""
    return MoveRecord(seat, code).to_dict()


# A code's move never changes, and a deal's few hundred distinct moves recur in every state
# (its history, the latest moves, the legal list): each is written once while kept.
_MOVE_TEXTS: dict[int, str] = {}
_MOVE_TEXTS_KEPT = 1 << 16


def move_text(code: int) -> str:
    """``dumps(move_dict(code))``, written once while kept."""
    text = _MOVE_TEXTS.get(code)
    if text is None:
        if len(_MOVE_TEXTS) >= _MOVE_TEXTS_KEPT:
            _MOVE_TEXTS.clear()
        text = _MOVE_TEXTS[code] = dumps(move_dict(code))
    return text


# The same, as the store writes it (json's default separators, as it always has): a move's
# row is written for every move, and its dict and dumps cost more than the lookup.
_STORED_TEXTS: dict[int, str] = {}


def stored_move_text(seat: int, code: int) -> str:
    """``json.dumps(move_record(seat, code))``, the move's text kept while kept: what the
    store writes of a move."""
    text = _STORED_TEXTS.get(code)
    if text is None:
        if len(_STORED_TEXTS) >= _MOVE_TEXTS_KEPT:
            _STORED_TEXTS.clear()
        text = _STORED_TEXTS[code] = json.dumps(move_dict(code))
    return f'{text[:-1]}, "seat": {seat:d}}}'


def record_text(seat: int, code: int) -> str:
    """``dumps(move_record(seat, code))``: the move's text with its ``seat`` last."""
    return f'{move_text(code)[:-1]},"seat":{seat:d}}}'


# A set of cards' text, by its mask: a deal's floor, captures and hands recur from one state
# to the next (a capture changes two sets, a throw one), so most are written once a deal.
_CARDS_TEXTS: dict[int, str] = {}
_CARDS_TEXTS_KEPT = 1 << 14  # a few thousand live at once on a busy instance


def card_names_text(mask: int) -> str:
    """``dumps(card_list(mask))`` (a card's name needs no escaping), written once while kept."""
    text = _CARDS_TEXTS.get(mask)
    if text is None:
        if len(_CARDS_TEXTS) >= _CARDS_TEXTS_KEPT:
            _CARDS_TEXTS.clear()
        names = card_list(mask)
        text = _CARDS_TEXTS[mask] = '["' + '","'.join(names) + '"]' if names else "[]"
    return text


def reason_dict(refusal: Refusal) -> dict[str, Any]:
    """A refusal as the page words it: the rule's number, the template's English (the key of
    its translation: a rule may have several) and the facts filled into it."""
    return {"rule": refusal.rule, "template": refusal.template, "args": dict(refusal.args)}


def dead_cards(
    pos: Position, seat: int, used: Set[Any]
) -> tuple[dict[str, str], dict[str, dict[str, Any]]]:
    """Why each card of ``seat``'s hand with no legal use has none: the rules checker's
    refusal of throwing it (R16 the bid, R21d retention, R21f(b) a house of its value ...),
    as English text and as the refusal's rule and arguments (for the page's own language)."""
    if pos.phase_id != PHASE_PLAY:
        return {}, {}
    texts: dict[str, str] = {}
    reasons: dict[str, dict[str, Any]] = {}
    legal = pos.legal
    hand = pos.hands[seat]
    while hand:  # the hand's cards, lowest first
        low = hand & -hand
        hand ^= low
        card = low.bit_length() - 1
        name = card_name(card)
        if name not in used:
            refusal = legal.why_dead(card)
            if refusal is None:
                texts[name] = "no legal use now"
            else:
                texts[name] = f"{refusal.text} ({refusal.rule})"
                reasons[name] = reason_dict(refusal)
    return texts, reasons


class SeatFacts(Protocol):
    """What the wire shows of a seat."""

    @property
    def name(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def connections(self) -> int: ...
    @property
    def away(self) -> bool: ...
    @property
    def forfeited(self) -> bool: ...
    @property
    def rating(self) -> tuple[int, bool] | None: ...


class TableFacts(Protocol):
    """What the wire reads of a table (:class:`seep.web.table.Table` has it)."""

    @property
    def code(self) -> str: ...
    @property
    def status(self) -> str: ...
    @property
    def host(self) -> int: ...
    @property
    def settings(self) -> Mapping[str, Any]: ...
    @property
    def seats(self) -> Sequence[SeatFacts]: ...
    @property
    def muted(self) -> Set[int]: ...
    @property
    def watching(self) -> Mapping[str, Any]: ...
    @property
    def rematch(self) -> Set[int]: ...
    @property
    def starts_at(self) -> float | None: ...
    @property
    def version(self) -> int: ...
    @property
    def deadline(self) -> float | None: ...
    @property
    def ready(self) -> Set[int]: ...
    @property
    def players(self) -> int: ...
    @property
    def session(self) -> Session | None: ...
    @property
    def to_move(self) -> int | None: ...


def seat_public(seat: SeatFacts) -> dict[str, Any]:
    """A seat as everyone may see it."""
    return {
        "name": seat.name,
        "kind": seat.kind,
        "connected": seat.kind == "bot" or seat.connections > 0,
        "away": seat.away,
        "forfeited": seat.forfeited,
        "rating": None
        if seat.rating is None
        else {"rating": seat.rating[0], "provisional": seat.rating[1]},
    }


def table_public(t: TableFacts) -> dict[str, Any]:
    """The table as anyone may see it (``GET /api/tables/{code}``, ``state.table``)."""
    return {
        "code": t.code,
        "status": t.status,
        "host": t.host,
        "settings": dict(t.settings),
        "seats": [seat_public(s) for s in t.seats],
        "muted": sorted(t.muted),
        "watching": t.watching,
        "rematch": sorted(t.rematch),
        "starts_at": t.starts_at,
    }


def lobby_row(t: TableFacts) -> dict[str, Any]:
    """A live table's row of ``GET /api/lobby``."""
    seats = [seat_public(s) for s in t.seats]
    return {
        "code": t.code,
        "settings": dict(t.settings),
        "seats": seats,
        "free": sum(1 for s in t.seats if s.kind == "empty"),
    }


def stored_lobby_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """The lobby row of a waiting table held by another instance, from its stored seats (its
    players count as connected: a waiting table's seats are saved on every change)."""
    seats = [
        {"name": s["name"], "kind": s["kind"], "connected": s["kind"] != "empty", "away": False}
        for s in row["seats"]
    ]
    free = sum(1 for s in seats if s["kind"] == "empty")
    return {"code": row["code"], "settings": row["settings"], "seats": seats, "free": free}


def summary(t: TableFacts) -> dict[str, Any] | None:
    """The finished deal's summary (``None`` while a deal runs): its outcome (R42, R44-R47,
    from the session: nothing is dealt to learn it), the cards each team took and who has said
    ``next``."""
    session = t.session
    out = session.outcome() if session is not None else None
    if out is None or session is None:
        return None
    captured = session.position.captured
    return dict(
        out.to_dict(),
        captured=[card_list(captured[0]), card_list(captured[1])],
        ready=sorted(t.ready),
    )


def match_info(session: Session | None) -> dict[str, Any] | None:
    """The running match: deals finished, the baazi difference, baazis won, history (a
    finished deal on show counts, as on its summary)."""
    if session is None:
        return None
    standing = session.standing()
    shown = session.position
    return {
        "deals": standing.deals,
        "diff": standing.diff,
        "baazis": list(standing.baazis),
        "history": session.results(),
        # The deal on show so far: card points and score (R42), public information.
        "points": list(shown.card_points()),
        "score": list(shown.deal_scores()),
    }


def last_moves(t: TableFacts) -> list[dict[str, Any] | None]:
    """Each seat's latest move of the deal on show."""
    if t.session is None:
        return [None] * t.players
    return [None if m is None else move_dict(m.code) for m in t.session.last_moves()]


def clock_info(t: TableFacts) -> dict[str, Any] | None:
    to_move = t.to_move
    if t.deadline is None or to_move is None:
        return None
    return {"seat": to_move, "deadline": t.deadline}


def _offered(
    pos: Position, seat: int
) -> tuple[list[int], dict[str, int] | None, dict[str, str], dict[str, dict[str, Any]]]:
    """What the seat to move is offered: the legal codes, or each card's count when they are
    too many (issue 12: the page asks for one card's moves with a 'moves' message), and its
    dead cards with their reasons."""
    codes, counts = social.legal_or_counts(pos)
    if counts is not None:
        used: set[Any] = set(counts)
    elif pos.phase_id == PHASE_PLAY:  # every move of the play phase plays a card
        used = {card_name(code_card(c)) for c in codes}
    else:
        used = set()  # no card is dead in the bid (dead_cards)
    dead, dead_reasons = dead_cards(pos, seat, used)
    return codes, counts, dead, dead_reasons


def moves_part(t: TableFacts, seat: int | None) -> dict[str, Any]:
    """The part of ``state`` only the seat to move gets: its legal moves and dead cards."""
    session = t.session
    if session is None or seat is None or t.to_move != seat:
        return {"legal": [], "dead": {}, "dead_reasons": {}, "legal_counts": None}
    codes, counts, dead, dead_reasons = _offered(session.position, seat)
    legal = [move_dict(c) for c in codes]
    return {"legal": legal, "dead": dead, "dead_reasons": dead_reasons, "legal_counts": counts}


def moves_text(t: TableFacts, seat: int) -> tuple[str, str]:
    """:func:`moves_part` of the seat to move as text: its members ``legal``, ``dead`` and
    ``dead_reasons``, and the text of ``legal_counts``."""
    session = t.session
    assert session is not None
    codes, counts, dead, dead_reasons = _offered(session.position, seat)
    legal = ",".join(map(move_text, codes))
    if dead:
        moves = f'"legal":[{legal}],"dead":{dumps(dead)},"dead_reasons":{dumps(dead_reasons)}'
    else:  # a dead card has its text (and often a reason): none, neither
        moves = f'"legal":[{legal}],"dead":{{}},"dead_reasons":{{}}'
    return moves, "null" if counts is None else dumps(counts)


def state(t: TableFacts, seat: int | None) -> dict[str, Any]:
    """The ``state`` message for a connection at ``seat`` (``None``: a spectator)."""
    session = t.session
    view: dict[str, Any] | None = None
    if session is not None:
        pos, history = session.position, session.history
        if seat is None:
            view = PublicView.from_position(pos, history).to_dict()
        else:
            view = View.from_position(pos, seat, history).to_dict()
    extra = moves_part(t, seat)
    return {
        "type": "state",
        "version": t.version,
        "seat": seat,
        "table": table_public(t),
        "view": view,
        "legal": extra["legal"],
        "dead": extra["dead"],
        "dead_reasons": extra["dead_reasons"],
        "last_moves": last_moves(t),
        "history_sweeps": t.session.deal_sweeps() if t.session is not None else [],
        "match": match_info(t.session),
        "summary": summary(t),
        "clock": clock_info(t),
        "legal_counts": extra["legal_counts"],
    }


def replay_steps(record: Mapping[str, Any]) -> dict[str, Any]:
    """Every position of the record's deals, replayed by the engine, for the replay page:
    ``{"steps": [{"deal", "index", "move", "position", "result"}]}``."""
    steps: list[dict[str, Any]] = []
    deal = -1
    index = 0
    for move, position in replay_record(record):
        if move is None:
            deal += 1
            index = -1
        result = None
        if move is not None and index == len(record["deals"][deal]["moves"]) - 1:
            result = record["deals"][deal].get("result")
        steps.append(
            {"deal": deal, "index": index, "move": move, "position": position, "result": result}
        )
        index += 1
    return {"steps": steps}
