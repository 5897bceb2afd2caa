"""What a table offers beyond the game itself: the coach, the position report, transfer codes
that carry a seat to another device (with their QR code), and one card's moves when a
position's list is too long to send.

No web framework and no rules here: the coach asks the heuristic bot (which sees only the
seat's :class:`~seep.view.View`), the moves come from the engine.
"""

from __future__ import annotations

import hashlib
import random
import secrets
from dataclasses import dataclass, field
from typing import Any

from .. import __version__
from ..bots.heuristic import HeuristicBot, play_reason
from ..bots.tactics import Counting
from ..cards import card_name
from ..codes import (
    PHASE_PLAY,
)
from ..engine import Position
from ..floor import sweep_values
from ..moves import Move
from ..notation import move_words
from ..view import View

__all__ = [
    "MAX_LEGAL",
    "TRANSFER_SECONDS",
    "Transfers",
    "card_moves",
    "coach",
    "legal_or_counts",
    "qr_svg",
    "report",
]

MAX_LEGAL = 10_000  # moves sent in one list (issue 12: a floor of 20 cards has 1.7 million)
TRANSFER_SECONDS = 300.0  # a transfer code's life
_VALUE_NAMES = ("", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")


# --- long move lists ---------------------------------------------------------------------------


def legal_or_counts(pos: Position) -> tuple[list[int], dict[str, int] | None]:
    """The legal move codes of ``pos``, or, when there are more than :data:`MAX_LEGAL`, no list
    and each card's number of moves, for the cards that have one (the page then asks for one
    card's moves). A huge floor is counted in milliseconds, never listed
    (:meth:`seep.engine.LegalMoves.within`)."""
    legal = pos.legal
    codes = legal.within(MAX_LEGAL)
    if codes is not None:
        return codes, None
    return [], {card_name(c): n for c, n in legal.by_card().items() if n}


def card_moves(pos: Position, card: int) -> tuple[list[int], int]:
    """The legal moves of ``pos`` that play ``card`` (at most :data:`MAX_LEGAL`) and how many
    there are (only that card's moves are made)."""
    codes = pos.legal.of_card(card)
    return codes[:MAX_LEGAL], len(codes)


# --- the coach -----------------------------------------------------------------------------------


def coach(view: View) -> dict[str, Any]:
    """The coach's advice for the seat to move (practice tables): the heuristic bot's three
    best moves with its reasons, warnings on the moves that leave the next player a sweep
    (R37) or a house of ours he may take, and the unseen cards by value. All from ``view``.

    Each warning names its move (``move``) and lists its ``risks`` for the page to word in its
    language: ``{"risk": "sweep", "values": ["9", "10"]}`` (the values he may sweep with) or
    ``{"risk": "house", "value": 11}`` (our house he may take); ``warnings`` says the same in
    English sentences that name the move (two plays of one card differ in their words)."""
    counting = Counting(view)
    unseen = {_VALUE_NAMES[v]: counting.left[v] for v in range(1, 14)}
    top: list[dict[str, Any]] = []
    warnings: list[dict[str, Any]] = []
    codes = sorted(view.legal_codes())
    if not codes or len(codes) > MAX_LEGAL:
        return {"top": top, "warnings": warnings, "unseen": unseen}
    bot = HeuristicBot()
    if view.phase_id != PHASE_PLAY:  # the bid (R13): the bot's choice and its reason
        decision = bot.choose(view, random.Random(0))
        top.append({"move": decision.move.to_dict(), "reason": decision.reason})
        return {"top": top, "warnings": warnings, "unseen": unseen}
    scored = bot.score_moves(view, codes)
    ranked = sorted(scored, key=lambda item: -item[0])
    for _, out, threat in ranked[:3]:
        top.append(
            {"move": Move(out.code).to_dict(), "reason": play_reason(view, out, threat, scored)}
        )
    nxt = (view.seat + 1) & 3
    ours = 1 << view.seat | 1 << (view.seat ^ 2)
    before = {(v, cards) for v, cards, _, _ in view.shell().houses()}
    sweeps_score = view.rules.sweep_value or view.rules.sweep_last
    for _, out, _ in scored:
        if out.over:
            continue
        risks: list[dict[str, Any]] = []
        hp = 0
        for v, _, _, _ in out.houses:
            hp |= 1 << v
        sweepers = sweep_values(out.loose, hp) if sweeps_score else 0
        # Values the next player may hold: some unseen, or a house of his (R21d).
        held = [v for v in range(1, 14) if sweepers >> v & 1 and counting.p_holds((nxt,), 1 << v)]
        if held:
            risks.append({"risk": "sweep", "values": [_VALUE_NAMES[v] for v in held]})
        for v, cards, _, owners in out.houses:
            if (v, cards) in before or not owners & ours or owners & ~ours:
                continue
            if counting.p_holds((nxt,), 1 << v):
                risks.append({"risk": "house", "value": v})
        if risks:
            said = [_risk_text(out.code, r) for r in risks]
            warnings.append({"move": Move(out.code).to_dict(), "risks": risks, "warnings": said})
    return {"top": top, "warnings": warnings, "unseen": unseen}


def _risk_text(code: int, risk: dict[str, Any]) -> str:
    """A coach's warning in English, naming the move: "Careful: after you play 9♠ onto the
    house of 11, the next player can take your house of 11." (the page words it itself)."""
    move = _move_words(code)
    if risk["risk"] == "sweep":
        values = " or ".join(risk["values"])
        return f"Careful: after {move}, the next player can sweep the floor (with {values})."
    return f"Careful: after {move}, the next player can take your house of {risk['value']}."


def _move_words(code: int) -> str:
    """A card play as the coach says it to its player: "you throw 9♠", "you build a house of 11
    from 9♠ with 2♣" (:func:`seep.notation.move_words`)."""
    return move_words(code, "you")


def report(view: dict[str, Any], legal: list[dict[str, Any]], counts: Any) -> dict[str, Any]:
    """A position report: the seat's docs/format.md view (never a hidden card), the moves offered
    (or their counts per card) and the app version."""
    out: dict[str, Any] = {"app": f"seep {__version__}", "view": view, "legal": legal}
    if counts is not None:
        out["legal_counts"] = counts
    return out


# --- carrying a seat to another device -------------------------------------------------------


@dataclass
class _Code:
    seat: int
    expires: float


@dataclass
class Transfers:
    """One table's live transfer codes: one per seat (a new one replaces the old), used once,
    for :data:`TRANSFER_SECONDS`. Only their hashes are kept."""

    codes: dict[str, _Code] = field(default_factory=dict)

    def issue(self, seat: int, now: float) -> tuple[str, float]:
        """A new code for ``seat`` and its expiry; the seat's older code dies."""
        self.codes = {h: c for h, c in self.codes.items() if c.seat != seat and c.expires > now}
        code = secrets.token_hex(16)  # hex: no card names by chance in tests' leak checks
        expires = now + TRANSFER_SECONDS
        self.codes[_hash(code)] = _Code(seat, expires)
        return code, expires

    def redeem(self, code: str, now: float) -> int | None:
        """The seat ``code`` carries, spent; ``None`` for a wrong, used or expired code."""
        got = self.codes.pop(_hash(code), None)
        if got is None or got.expires <= now:
            return None
        return got.seat

    def drop_seat(self, seat: int) -> None:
        """Forget ``seat``'s code (its player left or was taken off)."""
        self.codes = {h: c for h, c in self.codes.items() if c.seat != seat}


def _hash(code: str) -> str:
    return hashlib.sha256(code.encode()).hexdigest()


def qr_svg(text: str) -> dict[str, Any] | None:
    """``text`` as a QR code for the page to draw: ``size`` (modules, quiet zone included)
    and ``path``, an SVG path of the dark modules (segno, a web extra; ``None`` without it).
    Drawn by the page as an element: no markup crosses the wire."""
    try:
        import segno
    except ImportError:  # the link alone still works
        return None
    border = 2
    rows = [list(r) for r in segno.make(text, error="m").matrix]
    size = len(rows) + 2 * border
    parts: list[str] = []
    for y, row in enumerate(rows):
        x = 0
        while x < len(row):
            if row[x]:
                start = x
                while x < len(row) and row[x]:
                    x += 1
                parts.append(f"M{start + border} {y + border}h{x - start}v1h{start - x}z")
            else:
                x += 1
    return {"size": size, "path": "".join(parts)}
