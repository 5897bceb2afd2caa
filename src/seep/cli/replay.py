"""``seep replay FILE`` (step through a game record) and ``seep show FILE`` (its results).

A record is read and checked by the core (:func:`seep.match.replay_record`) before anything is
shown, so a bad file gets one clear message naming the problem instead of a half replay.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..engine import Position
from ..format import position_from_dict
from ..match import deal_result, replay_record
from ..moves import Move
from ..notation import format_move
from .narrow import describe_move
from .render import SEAT_NAMES, TEAM_NAMES, deal_summary, position_view

__all__ = ["Frame", "RecordError", "load_frames", "replay", "show"]


class RecordError(Exception):
    """A file that is not a valid game record; the message names the problem."""


@dataclass(frozen=True)
class Frame:
    """One position of a record: ``deal`` and ``move`` count from 1 (``move`` 0 is the deal's
    start); ``last`` is each seat's latest move in the deal so far."""

    deal: int
    move: int
    moves_in_deal: int
    position: Position
    played: str  # "W plays 9S x 4H 5D ..." or "" at a deal's start
    last: tuple[str, str, str, str]


def load_frames(path: str) -> tuple[dict[str, Any], list[Frame]]:
    """Read and replay a record file; every position, in order. Raises :class:`RecordError`."""
    try:
        text = Path(path).read_text()
    except OSError as exc:
        raise RecordError(f"cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise RecordError(f"{path} is not a text file") from None
    try:
        record = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecordError(
            f"{path} is not JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"
        ) from None
    if not isinstance(record, dict):
        raise RecordError(f"{path}: a game record is a JSON object, got {type(record).__name__}")
    raw: list[tuple[dict[str, Any] | None, dict[str, Any]]] = []
    try:
        raw = list(replay_record(record))
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        # ValueError covers every error of the core (they name the deal and move); the others
        # come from a record whose parts have the wrong JSON types.
        detail = str(exc) if isinstance(exc, ValueError) else f"malformed record ({exc!r})"
        raise RecordError(f"{path}: {detail}") from None
    if not raw:
        raise RecordError(f"{path}: the record holds no deals")
    # One list per deal of (position, what was played, each seat's last move so far).
    deals: list[list[tuple[Position, str, tuple[str, str, str, str]]]] = []
    last = ["", "", "", ""]
    prev: Position | None = None
    for move, data in raw:
        pos = position_from_dict(data)
        if move is None or prev is None:
            last = ["", "", "", ""]
            deals.append([(pos, "", ("", "", "", ""))])
        else:
            seat = prev.to_move
            assert seat is not None
            code = Move.from_dict(move)
            last[seat] = format_move(code)
            played = f"{SEAT_NAMES[seat]} plays {format_move(code)}   {describe_move(code)}"
            deals[-1].append((pos, played, (last[0], last[1], last[2], last[3])))
        prev = pos
    frames = [
        Frame(d, i, len(entries) - 1, pos, played, lasts)
        for d, entries in enumerate(deals, 1)
        for i, (pos, played, lasts) in enumerate(entries)
    ]
    return record, frames


def _draw(console: Console, frames: list[Frame], i: int, path: str) -> None:
    f = frames[i]
    console.print()
    title = f"replay {Path(path).name} · position {i + 1}/{len(frames)}"
    console.print(position_view(f.position, last_moves=f.last, deal_number=f.deal, title=title))
    where = f"deal {f.deal}, move {f.move}/{f.moves_in_deal}"
    console.print(Text(f"{where}: {f.played}" if f.played else f"{where}: the deal's start"))
    if f.position.is_over():
        console.print(deal_summary(deal_result(f.position)))


REPLAY_HELP = (
    "n or Enter: next move · p: previous · d N: start of deal N · m N: move N of this deal · "
    "e: end · q: quit"
)


def replay(path: str, console: Console, ask: Callable[[str], str] | None = None) -> int:
    """Step through a record forwards and backwards; returns the exit status."""
    try:
        _, frames = load_frames(path)
    except RecordError as exc:
        console.print(Text(f"seep replay: {exc}", style="bold red"))
        return 2
    read = ask or (lambda prompt: console.input(Text(prompt, style="bold cyan")))
    deals = frames[-1].deal
    i = 0
    _draw(console, frames, i, path)
    console.print(Text(REPLAY_HELP, style="dim"))
    try:
        while True:
            text = read("replay> ").strip().lower()
            target = i
            parts = text.split()
            if text in ("", "n", "next"):
                target = i + 1
            elif text in ("p", "prev", "previous", "b", "back"):
                target = i - 1
            elif text in ("e", "end"):
                target = len(frames) - 1
            elif text in ("q", "quit", "exit"):
                return 0
            elif text in ("h", "help", "?"):
                console.print(Text(REPLAY_HELP))
                continue
            elif len(parts) == 2 and parts[0] in ("d", "m") and parts[1].isdigit():
                n = int(parts[1])
                if parts[0] == "d":
                    if not 1 <= n <= deals:
                        console.print(Text(f"The record has deals 1 to {deals}.", style="red"))
                        continue
                    target = next(k for k, f in enumerate(frames) if f.deal == n)
                else:
                    cur = frames[i]
                    if not 0 <= n <= cur.moves_in_deal:
                        console.print(
                            Text(f"Deal {cur.deal} has moves 0 to {cur.moves_in_deal}.", "red")
                        )
                        continue
                    target = i - cur.move + n
            else:
                console.print(Text(f"Unknown command {text!r}. {REPLAY_HELP}", style="red"))
                continue
            if target < 0:
                console.print(Text("This is the first position.", style="dim"))
                continue
            if target >= len(frames):
                console.print(Text("This is the last position (q to quit).", style="dim"))
                continue
            i = target
            _draw(console, frames, i, path)
    except (EOFError, KeyboardInterrupt):
        console.print()
        return 0


def show(path: str, console: Console) -> int:
    """Print each deal's result and the final scores of a record; returns the exit status."""
    try:
        record, frames = load_frames(path)
    except RecordError as exc:
        console.print(Text(f"seep show: {exc}", style="bold red"))
        return 2
    ends = [f for k, f in enumerate(frames) if k + 1 == len(frames) or frames[k + 1].move == 0]
    table = Table(title=f"{Path(path).name}: seed {record.get('seed', '-')}", show_edge=False)
    for col in ("deal", "dealer", "bid"):
        table.add_column(col, justify="right")
    for col in ("NS: points + sweeps = score", "WE: points + sweeps = score", "NS-WE after"):
        table.add_column(col, justify="right")
    totals = [0, 0]
    final = ends[-1].position
    for f in ends:
        pos = f.position
        bid = str(pos.bid) if pos.phase != "bid" else "-"
        if not pos.is_over():
            table.add_row(
                str(f.deal), SEAT_NAMES[pos.dealer], bid, f"unfinished: {pos.plays} of 48 plays"
            )
            continue
        res = deal_result(pos)
        after = pos.next_deal(0)  # the engine applies R44-R46 to the match; the seed is unused
        for t in (0, 1):
            totals[t] += res["score"][t]
        pts = [res["points"][t] + res["bonus"][t] for t in (0, 1)]
        table.add_row(
            str(f.deal),
            SEAT_NAMES[pos.dealer],
            bid,
            f"{pts[0]} + {res['sweeps'][0]} = {res['score'][0]}",
            f"{pts[1]} + {res['sweeps'][1]} = {res['score'][1]}",
            f"{after.match_diff:+d}",
        )
        final = after
    console.print(table)
    console.print(
        Text(
            f"Final: total scores {TEAM_NAMES[0]} {totals[0]}, {TEAM_NAMES[1]} {totals[1]}; "
            f"baazis won {TEAM_NAMES[0]} {final.match_baazis[0]}, "
            f"{TEAM_NAMES[1]} {final.match_baazis[1]}; baazi difference NS-WE "
            f"{final.match_diff:+d}",
            style="bold",
        )
    )
    return 0
