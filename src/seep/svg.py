"""SVG drawings of a Seep table, in the manner of python-chess's ``chess.svg``.

:func:`position` draws a whole position, every hand face up; :func:`view` what one seat sees,
the other hands, the stock and a face-down floor as card backs only (the SVG holds no card the
seat has not seen). Each returns an SVG document as a string: the floor's loose cards and its
houses (value, sets, owners, cemented), the hands around the table with the seats' compass
names (N W S E, :func:`seep.cards.seat_names`), the dealer and the seat to move, and each
team's pile, sweeps and score. ``size`` sets the width in pixels; ``move`` outlines a move's
card and what it takes or joins; ``four_colour`` draws diamonds blue and clubs green.

Standard library only, and below the engine: this module never imports it (``Position`` and
``View`` call it for ``_repr_svg_``, so a notebook shows the picture). docs/engine.md's
picture is drawn by examples/svg_position.py.

>>> from seep.engine import Position
>>> pos = Position.new_deal(1)
>>> position(pos).startswith("<svg")
True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple
from xml.sax.saxutils import escape, quoteattr

from .cards import CARD_NAMES, cards_of_mask, seat_names, seat_to_move, team_names
from .codes import (
    BREAK,
    BUILD,
    CAPTURE,
    CEMENT,
    PHASE_NAMES,
    PHASE_OVER,
    THROW,
    code_action,
    code_card,
    code_house,
    code_houses,
    code_loose,
    code_value,
)
from .moves import format_move, move_code
from .options import Rules
from .scoring import deal_scores

if TYPE_CHECKING:  # the engine and the view import this module lazily (_repr_svg_)
    from .engine import Position
    from .view import View

__all__ = ["position", "view"]

SEAT_WORDS = {"N": "North", "W": "West", "S": "South", "E": "East"}
SUIT_SYMBOLS = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}
# Red and black as printed packs are; the four-colour deck keeps spades black and hearts red.
TWO_COLOURS = {"S": "#1a1a1a", "H": "#c8102e", "D": "#c8102e", "C": "#1a1a1a"}
FOUR_COLOURS = {"S": "#1a1a1a", "H": "#c8102e", "D": "#0b5cad", "C": "#1e7b34"}

WIDTH, HEIGHT = 960, 660
CARD_W, CARD_H = 44, 62
HIGHLIGHT = "#f2a900"
FELT = "#2f6b46"

Houses = Sequence[tuple[int, int, bool, int]]  # (value, cards, cemented, owner mask)
MoveLike = int | str | Mapping[str, Any]


class _Seat(NamedTuple):
    """One seat as drawn: its cards face up (``cards``) or only their number (``backs``)."""

    cards: list[int] | None
    backs: int


class _Table(NamedTuple):
    """What the drawing shows, from a position or a view alike."""

    rules: Rules
    dealer: int
    phase_id: int
    bid: int
    plays: int
    seats: list[_Seat]
    loose: int
    facedown: int
    houses: Houses
    stock: int
    captured: tuple[int, int]
    sweeps: tuple[int, int]
    title: str


def _card(
    x: float,
    y: float,
    card: int,
    colours: Mapping[str, str],
    highlight: bool = False,
) -> str:
    """One card face up: a rounded rectangle, the rank and suit in the corner, the suit big."""
    name = CARD_NAMES[card]
    rank = "10" if name[0] == "T" else name[0]
    suit = SUIT_SYMBOLS[name[1]]
    fill = colours[name[1]]
    stroke = f'stroke="{HIGHLIGHT}" stroke-width="4"' if highlight else 'stroke="#555"'
    return (
        f'<g class="card" data-card="{name}">'
        f'<rect x="{x}" y="{y}" width="{CARD_W}" height="{CARD_H}" rx="5" fill="#fff" '
        f"{stroke}/>"
        f'<text x="{x + 4}" y="{y + 16}" font-size="14" font-weight="bold" fill="{fill}">'
        f"{rank}</text>"
        f'<text x="{x + 4}" y="{y + 30}" font-size="13" fill="{fill}">{suit}</text>'
        f'<text x="{x + CARD_W / 2 + 4}" y="{y + CARD_H - 10}" font-size="22" '
        f'text-anchor="middle" fill="{fill}">{suit}</text>'
        "</g>"
    )


def _back(x: float, y: float) -> str:
    """One card face down: the same shape, no mark of the card."""
    return (
        f'<rect class="back" x="{x}" y="{y}" width="{CARD_W}" height="{CARD_H}" rx="5" '
        f'fill="#24478f" stroke="#fff" stroke-width="2"/>'
    )


def _text(
    x: float,
    y: float,
    text: str,
    size: int = 15,
    anchor: str = "start",
    fill: str = "#fff",
    **attrs: str,
) -> str:
    """A line of text; ``attrs`` are more SVG attributes (``font_weight`` for font-weight)."""
    extra = "".join(f" {k.replace('_', '-')}={quoteattr(v)}" for k, v in attrs.items())
    return (
        f'<text x="{x}" y="{y}" font-size="{size}" text-anchor="{anchor}" fill="{fill}"{extra}>'
        f"{escape(text)}</text>"
    )


def _row(
    x: float,
    y: float,
    seat: _Seat,
    step: float,
    colours: Mapping[str, str],
    marked: int,
) -> list[str]:
    """A hand spread from ``x``: its cards overlapping by ``CARD_W - step``, or its backs."""
    if seat.cards is None:
        return [_back(x + i * step, y) for i in range(seat.backs)]
    return [
        _card(x + i * step, y, c, colours, highlight=bool(marked >> c & 1))
        for i, c in enumerate(seat.cards)
    ]


def _house_label(house: tuple[int, int, bool, int], names: str) -> str:
    value, _, cemented, owners = house
    who = ", ".join(names[s] for s in range(len(names)) if owners >> s & 1)
    return f"House {value} · {who}" + (" · cemented" if cemented else "")


def _house_width(house: tuple[int, int, bool, int], names: str) -> float:
    # Wide enough for its cards and for its label (about 7 px a character at 13 px).
    return max(
        CARD_W + 16 * (house[1].bit_count() - 1) + 12, 7.2 * len(_house_label(house, names)) + 12
    )


def _house(
    x: float,
    y: float,
    house: tuple[int, int, bool, int],
    names: str,
    colours: Mapping[str, str],
    marked: bool,
) -> tuple[list[str], float]:
    """A house: its cards overlapping in a frame (solid when cemented, dashed when not),
    labelled with its value and owners; returns the parts and the frame's width."""
    value, cards, cemented, _ = house
    members = list(cards_of_mask(cards))
    width = _house_width(house, names)
    dash = "" if cemented else ' stroke-dasharray="6 4"'
    stroke = HIGHLIGHT if marked else "#e8e0b0"
    parts = [
        f'<g class="house" data-value="{value}">',
        f'<rect x="{x}" y="{y}" width="{width}" height="{CARD_H + 34}" rx="8" '
        f'fill="#245a3a" stroke="{stroke}" stroke-width="{4 if marked else 2}"{dash}/>',
        _text(x + 6, y + 17, _house_label(house, names), 13),
    ]
    parts += [_card(x + 6 + 16 * i, y + 26, c, colours) for i, c in enumerate(members)]
    parts.append("</g>")
    return parts, width


def _draw(
    table: _Table,
    bottom: int,
    size: int | None,
    move: MoveLike | None,
    four_colour: bool,
) -> str:
    rules = table.rules
    n = rules.players
    names = seat_names(n)
    colours = FOUR_COLOURS if four_colour else TWO_COLOURS
    code = None if move is None else move_code(move)
    marked_cards = 0  # the move's card and the loose cards it takes or joins
    marked_houses = 0  # bit v: the houses it takes, raises or joins
    if code is not None:
        action = code_action(code)
        if action == THROW:
            marked_cards = 1 << code_card(code)
        elif action in (CAPTURE, BUILD, CEMENT, BREAK):
            marked_cards = 1 << code_card(code) | code_loose(code)
            if action == CAPTURE:
                marked_houses = code_houses(code) << 9
            elif action == CEMENT:
                marked_houses = 1 << code_value(code)
            elif action == BREAK:
                marked_houses = 1 << code_house(code)
    width = WIDTH if size is None else size
    height = round(width * HEIGHT / WIDTH)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="{width}" '
        f'height="{height}" viewBox="0 0 {WIDTH} {HEIGHT}" '
        'font-family="DejaVu Sans, Arial, sans-serif">',
        f"<title>{escape(table.title)}</title>",
        f'<rect width="{WIDTH}" height="{HEIGHT}" rx="18" fill="{FELT}"/>',
    ]
    # The header: the phase, the bid, the plays made.
    phase = PHASE_NAMES[table.phase_id]
    head = f"{table.title}: {phase} phase, {table.plays} of 48 plays"
    if table.bid:
        head += f", bid {table.bid} by {names[seat_to_move(table.dealer, 0, n)]}"
    out.append(_text(WIDTH / 2, 24, head, 16, "middle", font_weight="bold"))
    to_move = None if table.phase_id == PHASE_OVER else seat_to_move(table.dealer, table.plays, n)
    # The seats: ``bottom`` at the bottom, then round the table in playing order, which runs
    # counter-clockwise (R19): the next seat sits on the bottom seat's right.
    places = ("bottom", "right", "top", "left") if n == 4 else ("bottom", "top")
    for s in range(n):
        place = places[(s - bottom) % n]
        seat = table.seats[s]
        count = len(seat.cards) if seat.cards is not None else seat.backs
        label = f"{SEAT_WORDS[names[s]]} ({names[s]})"
        if s == table.dealer:
            label += " · dealer"
        if s == to_move:
            label += " · to move"
        if place in ("bottom", "top"):
            step = 34
            x = WIDTH / 2 - (CARD_W + step * max(count - 1, 0)) / 2
            y = HEIGHT - CARD_H - 16.0 if place == "bottom" else 58.0
            ly = y - 8 if place == "bottom" else y + CARD_H + 18
            out.append(_text(WIDTH / 2, ly, label, 15, "middle", font_weight="bold"))
        else:
            step = 20
            x = 14.0 if place == "left" else WIDTH - 14.0 - (CARD_W + step * 11)
            y = HEIGHT / 2 - CARD_H / 2
            out.append(_text(x, y - 10, label, 15, font_weight="bold"))
        if s == to_move:
            out.append(
                f'<rect x="{x - 5}" y="{y - 5}" width="{CARD_W + step * max(count - 1, 0) + 10}" '
                f'height="{CARD_H + 10}" rx="8" fill="none" stroke="{HIGHLIGHT}" '
                'stroke-width="2" stroke-dasharray="3 3"/>'
            )
        out += _row(x, y, seat, step, colours, marked_cards)
    # The floor, in the middle: the loose cards, then the houses.
    fx, fy, fw = 292, 170, WIDTH - 584
    out.append(_text(fx, fy - 8, "Floor", 14, font_style="italic"))
    loose = list(cards_of_mask(table.loose))
    per_row = int((fw + 6) // (CARD_W + 6))
    for i, c in enumerate(loose):
        cx = fx + (i % per_row) * (CARD_W + 6)
        cy = fy + (i // per_row) * (CARD_H + 8)
        out.append(_card(cx, cy, c, colours, highlight=bool(marked_cards >> c & 1)))
    for i in range(table.facedown):
        out.append(_back(fx + i * (CARD_W + 6), fy))
    rows = (len(loose) + per_row - 1) // per_row if loose else (1 if table.facedown else 0)
    hx, hy = float(fx), float(fy + rows * (CARD_H + 8) + 6)
    for house in table.houses:
        w = _house_width(house, names)
        if hx + w > fx + fw and hx > fx:
            hx, hy = float(fx), hy + CARD_H + 42
        parts, w = _house(hx, hy, house, names, colours, bool(marked_houses >> house[0] & 1))
        out += parts
        hx += w + 10
    if not loose and not table.facedown and not table.houses:
        out.append(_text(fx, fy + 20, "(empty)", 14, font_style="italic"))
    # The stock, and the score of each team.
    if table.stock:
        sx, sy = WIDTH - 14 - CARD_W - 40, 58
        out += [_back(sx + 4 * i, sy + 2 * i) for i in range(min(3, table.stock))]
        out.append(
            _text(sx + CARD_W / 2 + 4, sy + CARD_H + 22, f"stock {table.stock}", 13, "middle")
        )
    scores = deal_scores([table.captured[0], table.captured[1]], list(table.sweeps), rules)
    for team, name in enumerate(team_names(n)):
        sweeps = table.sweeps[team]
        line = (
            f"{name}: {scores[team]} points · {table.captured[team].bit_count()} cards"
            f" · {sweeps} sweep{'' if sweeps == 1 else 's'}"
        )
        out.append(_text(14, 58 + 20 * team, line, 14))
    if code is not None:
        out.append(_text(14, HEIGHT - 16, f"move: {format_move(code)}", 14, fill=HIGHLIGHT))
    out.append("</svg>")
    return "\n".join(out)


def position(
    pos: Position,
    seat: int | None = None,
    *,
    size: int | None = None,
    move: MoveLike | None = None,
    four_colour: bool = False,
) -> str:
    """The table of ``pos`` as an SVG document, every hand face up.

    ``seat`` sits at the bottom (default: South, so the seats lie as on a map); ``size`` is
    the width in pixels (default 960); ``move`` (a code, :class:`~seep.moves.Move`, notation
    or a docs/format.md move) outlines its card and the cards and houses it takes or joins;
    ``four_colour`` draws diamonds blue and clubs green.
    """
    n = pos.rules.players
    # South at the bottom by default: the compass as on a map, N at the top, W on the left.
    bottom = seat_names(n).index("S") if seat is None else seat
    if not isinstance(bottom, int) or not 0 <= bottom < n:
        raise ValueError(f"a seat is 0..{n - 1}, got {seat!r}")
    table = _Table(
        rules=pos.rules,
        dealer=pos.dealer,
        phase_id=pos.phase_id,
        bid=pos.bid,
        plays=pos.plays,
        seats=[_Seat(list(cards_of_mask(h)), 0) for h in pos.hands],
        loose=pos.loose,
        facedown=0,
        houses=pos.houses(),
        stock=len(pos.stock),
        captured=(pos.captured[0], pos.captured[1]),
        sweeps=(pos.sweeps[0], pos.sweeps[1]),
        title="Seep",
    )
    return _draw(table, bottom, size, move, four_colour)


def view(
    v: View,
    *,
    size: int | None = None,
    move: MoveLike | None = None,
    four_colour: bool = False,
) -> str:
    """What one seat sees as an SVG document: its own hand face up at the bottom, the other
    hands, the stock and a face-down floor as card backs (no card it has not seen).
    ``size``, ``move`` and ``four_colour`` as for :func:`position`."""
    names = seat_names(v.rules.players)
    table = _Table(
        rules=v.rules,
        dealer=v.dealer,
        phase_id=v.phase_id,
        bid=v.bid,
        plays=v.plays,
        seats=[
            _Seat(list(cards_of_mask(v.hand)), 0) if s == v.seat else _Seat(None, size_)
            for s, size_ in enumerate(v.hand_sizes)
        ],
        loose=v.loose,
        facedown=v.facedown,
        houses=v.houses,
        stock=v.stock_size,
        captured=v.captured,
        sweeps=v.sweeps,
        title=f"Seep, {SEAT_WORDS[names[v.seat]]}'s view",
    )
    return _draw(table, v.seat, size, move, four_colour)
