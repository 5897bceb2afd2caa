"""``seep replay FILE`` (step through a game record) and ``seep show FILE`` (its results).

A record is read and checked by the core (:meth:`seep.session.Session.steps`) before anything
is shown, so a bad file gets one clear message naming the problem instead of a half replay.
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
from ..moves import Move
from ..notation import format_move
from ..session import DealOutcome, Session
from .narrow import describe_move
from .render import deal_summary, position_view, seat_names, team_names

__all__ = ["Frame", "RecordError", "load_frames", "read_record", "record_error", "replay", "show"]


class RecordError(Exception):
    """A file that is not a valid game record; the message names the problem."""


@dataclass(frozen=True)
class Frame:
    """One position of a record: ``deal`` and ``move`` count from 1 (``move`` 0 is the deal's
    start); ``last`` is each seat's latest move in the deal so far; ``outcome`` is the deal's
    (R42, R44-R47) once it is over."""

    deal: int
    move: int
    moves_in_deal: int
    position: Position
    played: str  # "W plays 9S x 4H 5D ..." or "" at a deal's start
    last: tuple[str, ...]  # one a seat: four, or two (docs/rules.md §12)
    outcome: DealOutcome | None = None


def read_record(path: str) -> dict[str, Any]:
    """Read a record file as a JSON object (not yet checked as a game). Raises
    :class:`RecordError` naming the problem."""
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
    except (ValueError, RecursionError) as exc:  # a number too long, arrays nested too deep
        raise RecordError(f"{path} is not a game record: {exc}") from None
    if not isinstance(record, dict):
        raise RecordError(f"{path}: a game record is a JSON object, got {type(record).__name__}")
    return record


def record_error(path: str, exc: Exception) -> RecordError:
    """The :class:`RecordError` for an error the core raised while replaying a record."""
    # ValueError covers every error of the core (they name the deal and move); the others
    # come from a record whose parts have the wrong JSON types.
    detail = str(exc) if isinstance(exc, ValueError) else f"malformed record ({exc!r})"
    return RecordError(f"{path}: {detail}")


# What the core raises for a bad record: see record_error.
RECORD_ERRORS = (ValueError, KeyError, TypeError, AttributeError)


def load_frames(path: str) -> tuple[dict[str, Any], list[Frame]]:
    """Read and replay a record file; every position, in order. Raises :class:`RecordError`."""
    record = read_record(path)
    # One list per deal of (position, what was played, each seat's last move so far, outcome).
    deals: list[list[tuple[Position, str, tuple[str, ...], DealOutcome | None]]] = []
    try:
        for session in Session.steps(record):
            history = session.history
            if not history:
                deals.append([])
                played = ""
            else:
                seat, code = history[-1]
                move = Move(code)
                name = seat_names(session.rules.players)[seat]
                played = f"{name} plays {format_move(move)}   {describe_move(move)}"
            last = tuple("" if m is None else format_move(m.code) for m in session.last_moves())
            deals[-1].append((session.position.copy(), played, last, session.outcome()))
    except RECORD_ERRORS as exc:
        raise record_error(path, exc) from None
    if not deals:
        raise RecordError(f"{path}: the record holds no deals")
    frames = [
        Frame(d, i, len(entries) - 1, pos, played, la, out)
        for d, entries in enumerate(deals, 1)
        for i, (pos, played, la, out) in enumerate(entries)
    ]
    return record, frames


def _draw(console: Console, frames: list[Frame], i: int, path: str) -> None:
    f = frames[i]
    console.print()
    title = f"replay {Path(path).name} · position {i + 1}/{len(frames)}"
    console.print(position_view(f.position, last_moves=f.last, deal_number=f.deal, title=title))
    where = f"deal {f.deal}, move {f.move}/{f.moves_in_deal}"
    console.print(Text(f"{where}: {f.played}" if f.played else f"{where}: the deal's start"))
    if f.outcome is not None:
        console.print(deal_summary(f.outcome.result, players=f.position.rules.players))


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
                        has = "only deal 1" if deals == 1 else f"deals 1 to {deals}"
                        console.print(Text(f"The record has {has}.", style="red"))
                        continue
                    target = next(k for k, f in enumerate(frames) if f.deal == n)
                else:
                    cur = frames[i]
                    if not 0 <= n <= cur.moves_in_deal:
                        has = (
                            "no move yet (only its start, 0)"
                            if cur.moves_in_deal == 0
                            else f"moves 0 to {cur.moves_in_deal}"
                        )
                        console.print(Text(f"Deal {cur.deal} has {has}.", "red"))
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
    players = frames[0].position.rules.players
    names, teams = seat_names(players), team_names(players)
    for col in ("deal", "dealer", "bid"):
        table.add_column(col, justify="right")
    for col in (
        f"{teams[0]}: points + sweeps = score",
        f"{teams[1]}: points + sweeps = score",
        f"{teams[0]}-{teams[1]} after",
    ):
        table.add_column(col, justify="right")
    totals = [0, 0]
    last = ends[-1].position
    diff, baazis = last.match_diff, last.match_baazis  # the match before an unfinished deal
    for f in ends:
        pos = f.position
        bid = str(pos.bid) if pos.phase != "bid" else "-"
        if f.outcome is None:
            table.add_row(
                str(f.deal), names[pos.dealer], bid, f"unfinished: {pos.plays} of 48 plays"
            )
            continue
        res = f.outcome.result
        diff, baazis = f.outcome.diff, f.outcome.baazis  # R44-R46, as the session applies them
        for t in (0, 1):
            totals[t] += res["score"][t]
        pts = [res["points"][t] + res["bonus"][t] for t in (0, 1)]
        table.add_row(
            str(f.deal),
            names[pos.dealer],
            bid,
            f"{pts[0]} + {res['sweeps'][0]} = {res['score'][0]}",
            f"{pts[1]} + {res['sweeps'][1]} = {res['score'][1]}",
            f"{diff:+d}",
        )
    console.print(table)
    console.print(
        Text(
            f"Final: total scores {teams[0]} {totals[0]}, {teams[1]} {totals[1]}; "
            f"baazis won {teams[0]} {baazis[0]}, "
            f"{teams[1]} {baazis[1]}; baazi difference {teams[0]}-{teams[1]} "
            f"{diff:+d}",
            style="bold",
        )
    )
    return 0
