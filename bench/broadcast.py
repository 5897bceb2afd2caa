"""Server CPU per move at each move of a deal: does the broadcast grow with the deal?

Plays ``--tables`` deals in process, each at a table of four seated players (one socket each)
and ``--spectators`` watchers, through the server's own path for a socket message
(:meth:`seep.web.tables.TableManager.handle`: parse, check, store, apply, drive, broadcast),
and measures the CPU time of each move's handling (``time.process_time``), sockets and the
database left out. Prints the median CPU per move at move 1 (the bid), 12, 24 and 48 of the
deal, and over all of them: a broadcast that does not grow with the deal shows the same figure
at move 1 and move 48.

    python bench/broadcast.py [--tables 40] [--sockets 4] [--spectators 2] [--seed 1]
                              [--history whole|append] [--writer] [--json]

``--sockets 1 --spectators 0`` is bench/server.py's table: one player's socket, the other
seats' moves made by the server (as bots' are; their thinking left out). ``--writer`` times
the state writer alone (:class:`seep.web.statetext.StateWriter`: a change's shared parts and
each socket's text), on the same deals whatever the tree: the deal's shuffle is ``--seed``
plus the table's number.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import time
from typing import Any

from seep.moves import Move
from seep.web.statetext import StateWriter
from seep.web.table import Table, parse_settings
from seep.web.tables import TableManager

MOVES_SHOWN = (1, 12, 24, 48)


def _drain(conns: list[Any], sizes: list[int]) -> None:
    """Empty the sockets' queues, noting the length of each state the first one was sent."""
    for i, conn in enumerate(conns):
        while not conn.queue.empty():
            text = conn.queue.get_nowait()
            if i == 0 and text is not None and text.startswith('{"type":"state"'):
                sizes.append(len(text))


async def _one_deal(
    rng: random.Random,
    sockets: int,
    spectators: int,
    times: dict[int, list[float]],
    append: bool = False,
    sizes: list[list[int]] | None = None,
) -> None:
    manager = TableManager(None, bot_delay=1e9, rate_limit=1 << 30, ready_seconds=0)
    created = manager.create({"name": "P0"})
    code = created["code"]
    tokens = [created["token"]]
    for i in range(1, 4):
        tokens.append(manager.join(code, {"name": f"P{i}"})["token"])
    seats = []
    for token in tokens[:sockets]:
        conn = manager.connect(code)
        conn.append = append  # as a hello with "history": "append" sets it
        manager.hello(conn, token)
        seats.append(conn)
    watchers = [manager.connect(code) for _ in range(spectators)]
    conns = seats + watchers
    deal_sizes: list[int] = []
    await manager.handle(seats[0], json.dumps({"type": "start"}))
    _drain(conns, deal_sizes)
    table = manager.tables[code]
    index = 0
    while table.to_move is not None:
        pos = table.position
        assert pos is not None
        choice = rng.choice(pos.legal_codes())
        if table.to_move < sockets:
            move = Move(choice).to_dict()
            text = json.dumps({"type": "move", "version": table.version, "move": move})
            t0 = time.process_time()
            await manager.handle(seats[table.to_move], text)
        else:
            # A seat with no socket: its move goes the way a bot's does, from the server itself.
            commit = getattr(manager, "commit", None) or manager._play  # main's name: _play
            t0 = time.process_time()
            commit(table, choice)
        spent = time.process_time() - t0
        index += 1
        times.setdefault(index, []).append(spent)
        _drain(conns, deal_sizes)
    if sizes is not None:
        sizes.append(deal_sizes)
    manager.shutdown()


def _writer_deal(
    seed: int,
    sockets: int,
    spectators: int,
    times: dict[int, list[float]],
    append: bool,
    sizes: list[list[int]],
) -> None:
    """One deal of a table (shuffled by ``seed``), its writer's CPU at each move: the change's
    shared parts, then each socket's text (the spectators share one)."""
    rng = random.Random(seed)
    table = Table("WRITER", parse_settings({"bots": "easy"}), seed)
    for seat in range(4):
        table.join(f"P{seat}", seat)
    table.start(0)
    writer = StateWriter()
    held: list[tuple[int, int] | None] = [None] * sockets
    deal_sizes: list[int] = []
    index = 0
    while table.to_move is not None:
        table.apply(table.check_code(rng.choice(table.position.legal_codes())))
        table.version += 1
        t0 = time.process_time()
        writer.begin(table)
        for seat in range(sockets):
            if append:
                text = writer.appended(seat, held[seat])
                held[seat] = writer.held
            else:
                text = writer.text(seat)
            if seat == 0:
                deal_sizes.append(len(text))
        for _ in range(spectators):
            writer.text(None)
        writer.end()
        spent = time.process_time() - t0
        index += 1
        times.setdefault(index, []).append(spent)
    sizes.append(deal_sizes)


async def _run(args: Any) -> dict[str, Any]:
    rng = random.Random(args.seed)
    times: dict[int, list[float]] = {}
    sizes: list[list[int]] = []  # each deal's states at the first seat, their lengths
    append = args.history == "append"
    for n in range(args.tables):
        if args.writer:
            _writer_deal(args.seed + n, args.sockets, args.spectators, times, append, sizes)
        else:
            await _one_deal(rng, args.sockets, args.spectators, times, append, sizes)
    every = [t for ts in times.values() for t in ts]

    def us(values: list[float]) -> float:
        return round(statistics.median(values) * 1e6, 1)

    return {
        "measured": "the state writer" if args.writer else "TableManager.handle",
        "history": args.history,
        "tables": args.tables,
        "sockets": args.sockets,
        "spectators": args.spectators,
        "cpu_us_per_move": {str(k): us(times[k]) for k in MOVES_SHOWN if k in times},
        "cpu_us_per_move_all": us(every),
        "moves": len(every),
        # What the first seat's socket is sent (before compression): a deal's states in all,
        # and the deal's last state (the median over the deals).
        "state_bytes_per_deal": statistics.median(sum(d) for d in sizes),
        "last_state_bytes": statistics.median(d[-1] for d in sizes),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=40, help="deals played (one table each)")
    ap.add_argument(
        "--sockets", type=int, default=4, help="seats with a socket (the others move unseen)"
    )
    ap.add_argument("--spectators", type=int, default=2, help="watchers at each table")
    ap.add_argument("--seed", type=int, default=1, help="seed of the moves chosen")
    ap.add_argument(
        "--history",
        choices=("whole", "append"),
        default="whole",
        help="the seated sockets' history: whole states, or appended (docs/web.md)",
    )
    ap.add_argument(
        "--writer", action="store_true", help="time the state writer alone, on seeded deals"
    )
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args()
    result = asyncio.run(_run(args))
    if args.json:
        print(json.dumps(result))
        return 0
    print(
        f"{result['tables']} deals, {result['sockets']} seated sockets and "
        f"{result['spectators']} spectators a "
        f"table ({result['history']} history), {result['moves']} moves: server CPU per move "
        f"(median), {result['measured']}"
    )
    for k, v in result["cpu_us_per_move"].items():
        print(f"  move {k:>2}: {v:8.1f} us")
    print(f"  all     : {result['cpu_us_per_move_all']:8.1f} us")
    print(
        f"first seat's states: {result['state_bytes_per_deal']:,.0f} bytes a deal, the last "
        f"{result['last_state_bytes']:,.0f} (median, before compression)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
