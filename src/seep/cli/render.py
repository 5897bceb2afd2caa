"""Drawing positions, moves and results with rich (terminal play and replay).

Everything here only reads a :class:`~seep.engine.Position` (or a deal result); no rules are
decided here: card texts come from :mod:`seep.cards`, moves from :mod:`seep.notation`, scores
from the engine.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich import box
from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from ..cards import cards_of_mask, partner_of
from ..engine import Position
from ..notation import house_sets
from .names import card_name

__all__ = [
    "SEAT_NAMES",
    "TEAM_NAMES",
    "card_markup",
    "cards_markup",
    "deal_summary",
    "hand_text",
    "plural",
    "position_view",
    "rules_label",
    "seat_full",
    "seat_label",
    "seat_names",
    "seat_words",
    "team_names",
]

# Seat s + 1 sits on the right of seat s (docs/format.md): with N=0 that is W, then S, then E.
SEAT_NAMES = "NWSE"
TEAM_NAMES = ("NS", "WE")


def seat_names(players: int = 4) -> str:
    """The seats' names: N W S E, or N and S facing each other with two players (R2P1)."""
    return SEAT_NAMES if players == 4 else "NS"


def seat_words(players: int = 4) -> tuple[str, ...]:
    """The seats' compass names in full, as the web page says them: North, West, South, East,
    or North and South with two players."""
    return ("North", "West", "South", "East") if players == 4 else ("North", "South")


def seat_full(seat: int, players: int = 4) -> str:
    """A seat's letter and its compass name: ``S (South)``."""
    return f"{seat_names(players)[seat]} ({seat_words(players)[seat]})"


def plural(n: int, one: str, many: str) -> str:
    """``1 deal``, ``2 deals``: the count and the noun that agrees with it."""
    return f"{n} {one if n == 1 else many}"


def team_names(players: int = 4) -> tuple[str, str]:
    """The teams' names: NS and WE, or the two players N and S (R2P1)."""
    return TEAM_NAMES if players == 4 else ("N", "S")


def card_markup(card: int) -> Text:
    """A card as typed (``9S``), hearts and diamonds in red (rich markup; the same card in
    words, with its suit symbol, is :func:`seep.notation.card_text`)."""
    name = card_name(card)
    return Text(name, style="bold red" if name[1] in "HD" else "bold")


def cards_markup(mask: int) -> Text:
    """Cards of a set in index order (by rank, then suit), space separated; ``-`` if none."""
    cards = list(cards_of_mask(mask))
    if not cards:
        return Text("-", style="dim")
    return Text(" ").join(card_markup(c) for c in cards)


def hand_text(mask: int) -> Text:
    """A hand, sorted, each card with the number that chooses it: ``1:2C  2:9S ...``."""
    parts = []
    for i, c in enumerate(cards_of_mask(mask), 1):
        parts.append(Text.assemble((f"{i}:", "cyan"), card_markup(c)))
    return Text("  ").join(parts) if parts else Text("(no cards)", style="dim")


def seat_label(seat: int, you: int | None = None, players: int = 4) -> str:
    """``S (you)``, ``N (partner)``, ``W`` ..."""
    name = seat_names(players)[seat]
    if you is None:
        return name
    if seat == you:
        return f"{name} (you)"
    if players == 4 and seat == partner_of(you):
        return f"{name} (partner)"
    return name


def rules_label(pos: Position) -> str:
    """The preset's name, or ``custom`` with the options that differ from standard."""
    name = pos.rules.preset_name()
    if name:
        return name
    return "custom: " + ", ".join(f"{k}={v}" for k, v in pos.rules.changed().items())


def _signed(n: int) -> str:
    return f"+{n}" if n > 0 else str(n)


def _houses_table(pos: Position, you: int | None) -> Table | Text:
    houses = pos.houses()
    if not houses:
        return Text("no houses", style="dim")
    t = Table(box=box.SIMPLE, show_edge=False, pad_edge=False, padding=(0, 1))
    t.add_column("house")
    t.add_column("kind")
    t.add_column("cards (sets)")
    t.add_column("owners")
    for value, cards, cemented, owners in houses:
        sets = Text(" | ").join(cards_markup(s) for s in house_sets(cards, value))
        n = pos.rules.players
        who = ", ".join(seat_label(s, you, n) for s in range(n) if owners >> s & 1)
        kind = Text("* cemented", style="bold magenta") if cemented else Text("ordinary")
        t.add_row(Text(f"H{value}", style="bold"), kind, sets, who)
    return t


def position_view(
    pos: Position,
    *,
    you: int | None = None,
    last_moves: Sequence[str] = ("", "", "", ""),
    deal_number: int | None = None,
    title: str = "",
    playable: int | None = None,
) -> RenderableType:
    """The table: header, seats (hand sizes or, without ``you``, the hands themselves), teams
    (card points so far, sweeps, baazis, the baazi difference), the floor and whose turn.

    ``you`` is the seat of the player at the terminal: only that hand is shown (and, when only
    some of its cards have a legal use, which: ``playable``, a card mask from the engine's legal
    moves). Without ``you`` (replay of a record) every hand is shown.
    """
    head = Text(title + "  " if title else "", style="bold")
    deal = f"deal {deal_number}" if deal_number is not None else f"deal {pos.match_deals + 1}"
    bid = f"bid {pos.bid}" if pos.phase != "bid" else "bidding"
    head.append(f"{deal} · rules {rules_label(pos)}\n")
    n = pos.rules.players
    names, teams_named = seat_names(n), team_names(n)
    head.append(
        f"dealer {names[pos.dealer]} · bidder {names[pos.bidder]} · {bid} · play {pos.plays}/48"
    )
    if pos.stock:
        head.append(f" · {len(pos.stock)} cards undealt")

    seats = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, 1))
    seats.add_column("seat")
    seats.add_column("team")
    seats.add_column("hand" if you is None else "cards", overflow="fold")
    seats.add_column("last move", overflow="fold")
    to_move = pos.to_move
    for s in range(n):
        marker = "▶ " if s == to_move else "  "
        label = Text(marker + seat_label(s, you, n), style="bold" if s == to_move else "")
        # A record shows every hand; at the table only the sizes of the others are known.
        held: Text | str = (
            cards_markup(pos.hands[s]) if you is None else str(pos.hands[s].bit_count())
        )
        seats.add_row(label, teams_named[s & 1], held, last_moves[s] or "-")

    pts = pos.card_points()
    teams = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, 1))
    for col in ("team", "cards taken", "card points", "sweeps", "baazis won"):
        teams.add_column(col)
    for t in (0, 1):
        name = teams_named[t] + (" (you)" if you is not None and you & 1 == t else "")
        teams.add_row(
            name,
            str(pos.captured[t].bit_count()),
            str(pts[t]),
            str(pos.sweeps[t]),
            str(pos.match_baazis[t]),
        )
    diff = pos.match_diff
    lead = "level" if diff == 0 else f"{teams_named[0 if diff > 0 else 1]} ahead by {abs(diff)}"
    baazi = Text(
        f"baazi difference {teams_named[0]}-{teams_named[1]}: {_signed(diff)} ({lead}; "
        f"{pos.rules.baazi_lead} wins a baazi)"
    )

    if pos.phase == "bid":
        loose: Text = Text(f"{pos.loose.bit_count()} cards face down", style="dim")
        if you is None:
            loose = Text.assemble(cards_markup(pos.loose), (" (face down)", "dim"))
    else:
        loose = cards_markup(pos.loose)
    floor = Group(Text.assemble(("floor, loose: ", "bold"), loose), _houses_table(pos, you))

    parts: list[RenderableType] = [head, seats, teams, baazi, floor]
    if to_move is None:
        parts.append(Text("the deal is over", style="bold"))
    elif you is not None:
        parts.append(Text.assemble(("your hand: ", "bold"), hand_text(pos.hands[you])))
        hand = pos.hands[you]
        if to_move == you and playable is not None and playable != hand and pos.phase != "bid":
            # Say it before the player tries: at play 1 or when a house binds his cards.
            numbered = [f"{i}:{card_name(c)}" for i, c in enumerate(cards_of_mask(hand), 1)]
            can = [
                t for t, c in zip(numbered, cards_of_mask(hand), strict=True) if playable >> c & 1
            ]
            parts.append(Text(f"cards you can play now: {'  '.join(can)}", style="yellow"))
        whose = "your turn" if to_move == you else f"{seat_label(to_move, you, n)} to move"
        parts.append(Text(whose, style="bold green" if to_move == you else ""))
    else:
        parts.append(Text(f"{names[to_move]} to move", style="bold"))
    return Group(*parts)


def deal_summary(result: Mapping[str, Any], you: int | None = None, players: int = 4) -> Table:
    """A finished deal's result (docs/format.md ``result``): points, bonus, sweeps, score per
    team."""
    t = Table(title="deal result", box=box.SIMPLE_HEAD, show_edge=False)
    for col in ("team", "card points", "bonus", "sweeps", "score"):
        t.add_column(col)
    for team in (0, 1):
        name = team_names(players)[team] + (" (you)" if you is not None and you & 1 == team else "")
        bonus = result.get("bonus", [0, 0])
        t.add_row(
            name,
            str(result["points"][team]),
            str(bonus[team]),
            str(result["sweeps"][team]),
            str(result["score"][team]),
        )
    return t


def make_console() -> Console:
    """The console every command draws on (``NO_COLOR`` and ``COLUMNS`` are honoured by rich)."""
    return Console(highlight=False, soft_wrap=False)
