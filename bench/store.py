"""The store's write of a move: server CPU per ``Store.add_move`` (its two statements and the
commit), on a fresh SQLite file (WAL, as ``seep serve`` keeps it) or ``--url``.

A move is written once for each move of every table (docs/web.md "Broadcast cost"): what it
costs, end to end, with the database's own work in it.

    python bench/store.py [--moves 5000] [--tables 50] [--batch 1] [--url sqlite:///...] [--json]

``--batch N`` writes N tables' moves a transaction, as the server's writer thread does
(``seep.web.group_commit``) when moves come while it writes.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from typing import Any

from seep.web.store import Store
from seep.web.table import Table


def _run(url: str, moves: int, tables: int, batch: int) -> dict[str, Any]:
    store = Store(url)
    rows = [Table(f"B{i:05d}", {"bots": "easy"}, i) for i in range(tables)]
    for row in rows:
        store.create_table(row)
    move = {"action": "throw", "card": "9C", "seat": 3}
    per_table = moves // tables
    times = []
    for seq in range(per_table):  # the tables' moves interleaved, as a busy server's are
        t0 = time.process_time()
        if batch <= 1:
            for row in rows:
                store.add_move(row, seq, move, seq + 1)
        else:  # as the server's writer thread does (seep.web.group_commit)
            for k in range(0, tables, batch):
                some = [(row.code, seq, move, seq + 1) for row in rows[k : k + batch]]
                assert store.write_moves(some) == [None] * len(some)
        times.append((time.process_time() - t0) / tables)
        if seq % 20 == 19:
            store.checkpoint()
    store.close()
    return {
        "moves": per_table * tables,
        "tables": tables,
        "batch": max(1, batch),
        "cpu_us_per_move": round(statistics.median(times) * 1e6, 1),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--moves", type=int, default=5000)
    ap.add_argument("--tables", type=int, default=50)
    ap.add_argument("--url", default=None, help="a database URL (default: a fresh SQLite file)")
    ap.add_argument(
        "--batch",
        type=int,
        default=1,
        help="moves a transaction (Store.write_moves, the server's group commit; 1: add_move)",
    )
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        url = args.url or f"sqlite:///{tmp}/bench.db"
        result = _run(url, args.moves, args.tables, args.batch)
    if args.json:
        print(json.dumps(result))
    else:
        print(
            f"{result['moves']} moves at {result['tables']} tables, {result['batch']} a "
            "transaction: "
            f"{result['cpu_us_per_move']} us of CPU a move (median)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
