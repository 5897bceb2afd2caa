"""Web server load benchmark: many simultaneous tables on one server process.

Starts ``seep serve`` (one uvicorn process) on a free port with a temporary SQLite database,
creates ``--tables`` tables, and plays each with one WebSocket client (random legal moves, sent
as soon as the client's turn comes) against three bots, over loopback, for ``--seconds``.
Reports the moves per second the server made (the clients' and the bots') and the latency
of the clients' moves: from a move sent to the state update that shows it, received. The bots'
pause before each move (``--bot-delay``, the server's default 0.6 s) is part of the game's
pace, not of any latency measured.

    python bench/server.py [--tables 200] [--seconds 30] [--bot-delay 0.6] [--bots easy] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import websockets

ROOT = Path(__file__).resolve().parent.parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Stats:
    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.client_moves = 0
        self.moves_seen = 0  # every move of every table, from the history lengths
        self.errors: dict[str, int] = {}
        self.measuring = False


async def play_table(base: str, wsbase: str, args: Any, stats: Stats, rng: random.Random) -> None:
    async with httpx.AsyncClient() as http:
        body = {"name": "Bench", "bots": args.bots, "deals": 100}
        made = (await http.post(f"{base}/api/tables", json=body)).json()
    url = f"{wsbase}/ws/{made['code']}"
    async with websockets.connect(url, max_size=1 << 22) as ws:
        await ws.send(json.dumps({"type": "hello", "token": made["token"]}))
        await ws.send(json.dumps({"type": "start"}))
        sent_at: float | None = None
        history = 0
        deal = 0
        async for raw in ws:
            now = time.perf_counter()
            msg = json.loads(raw)
            if msg["type"] == "error":
                stats.errors[msg["code"]] = stats.errors.get(msg["code"], 0) + 1
                sent_at = None
                continue
            if msg["type"] != "state" or msg["view"] is None:
                continue
            view = msg["view"]
            n = len(view["history"])
            d = msg["match"]["deals"] if msg["match"] else 0
            if d != deal:
                deal, history = d, 0
            if stats.measuring and n > history:
                stats.moves_seen += n - history
            if sent_at is not None and n > history:
                if stats.measuring:
                    stats.latencies.append(now - sent_at)
                    stats.client_moves += 1
                sent_at = None
            history = max(history, n)
            if msg["summary"] is not None and msg["table"]["status"] == "playing":
                if 0 not in msg["summary"]["ready"]:
                    await ws.send(json.dumps({"type": "next"}))
            elif msg["legal"] and sent_at is None:
                move = rng.choice(msg["legal"])
                sent_at = time.perf_counter()
                await ws.send(json.dumps({"type": "move", "move": move, "version": msg["version"]}))


async def run(args: Any, base: str, wsbase: str) -> dict[str, Any]:
    stats = Stats()
    rng = random.Random(args.seed)
    tasks = []
    for _ in range(args.tables):
        tasks.append(
            asyncio.create_task(play_table(base, wsbase, args, stats, random.Random(rng.random())))
        )
        await asyncio.sleep(args.ramp / args.tables)  # tables start over the ramp, not at once
    await asyncio.sleep(args.warmup)
    stats.measuring = True
    t0 = time.perf_counter()
    cpu0 = _cpu(args.server_pid)
    client0 = time.process_time()
    await asyncio.sleep(args.seconds)
    stats.measuring = False
    elapsed = time.perf_counter() - t0
    cpu = (_cpu(args.server_pid) - cpu0) / elapsed
    client_cpu = (time.process_time() - client0) / elapsed
    failed = [t for t in tasks if t.done() and t.exception() is not None]
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    lat = sorted(stats.latencies)

    def pct(p: float) -> float:
        return round(lat[min(len(lat) - 1, int(p * len(lat)))] * 1000, 2) if lat else float("nan")

    return {
        "tables": args.tables,
        "seconds": round(elapsed, 1),
        "bot_delay": args.bot_delay,
        "bots": args.bots,
        "moves_per_s": round(stats.moves_seen / elapsed, 1),
        "client_moves": stats.client_moves,
        "client_moves_per_s": round(stats.client_moves / elapsed, 1),
        "latency_ms_p50": pct(0.50),
        "latency_ms_p99": pct(0.99),
        "latency_ms_max": round(lat[-1] * 1000, 2) if lat else None,
        "latency_ms_mean": round(statistics.fmean(lat) * 1000, 2) if lat else None,
        "server_cpu": round(cpu, 2),
        "client_cpu": round(client_cpu, 2),
        "load_average": round(os.getloadavg()[0], 2),
        "errors": stats.errors,
        "failed_clients": len(failed),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
    }


def _cpu(pid: int) -> float:
    """CPU seconds used so far by a process (Linux /proc)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def _with_server(args: Any) -> dict[str, Any]:
    """Run the benchmark against a fresh ``seep serve`` process on a free port."""
    port = _free_port()
    with tempfile.TemporaryDirectory(dir=args.db_dir) as tmp:
        env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
        server = subprocess.Popen(
            [
                *(sys.executable, "-m", "seep", "serve", "--port", str(port)),
                *(
                    "--database-url",
                    f"sqlite:///{tmp}/bench.db",
                    "--bot-delay",
                    str(args.bot_delay),
                ),
            ],
            env=env,
            stdout=subprocess.DEVNULL,
        )
        args.server_pid = server.pid
        base, wsbase = f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}"
        try:
            for _ in range(200):
                try:
                    httpx.get(f"{base}/api/tables/NONE", timeout=1)
                    break
                except httpx.TransportError:
                    time.sleep(0.1)
            return asyncio.run(run(args, base, wsbase))
        finally:
            server.terminate()
            server.wait(10)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=200)
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--warmup", type=float, default=5.0, help="seconds before measuring")
    ap.add_argument("--ramp", type=float, default=5.0, help="seconds over which tables start")
    ap.add_argument("--bot-delay", type=float, default=0.6)
    ap.add_argument("--bots", default="easy", help="bot difficulty of every table")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--db-dir", default=None, help="folder of the SQLite file (default: /tmp)")
    ap.add_argument("--server", default=None, help="HOST:PORT of a running server to use")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args()
    if args.server:
        # A server already running (to profile it): no CPU figure for it.
        args.server_pid = 0
        base, wsbase = f"http://{args.server}", f"ws://{args.server}"
        result = asyncio.run(run(args, base, wsbase))
    else:
        result = _with_server(args)
    if args.json:
        print(json.dumps(result))
    else:
        print(
            f"{result['tables']} tables, {result['seconds']} s measured, bots {args.bots}, "
            f"bot delay {args.bot_delay} s"
        )
        print(
            f"moves/s (all seats): {result['moves_per_s']}   client moves/s: "
            f"{result['client_moves_per_s']} ({result['client_moves']} measured)"
        )
        print(
            f"latency move -> state: p50 {result['latency_ms_p50']} ms, "
            f"p99 {result['latency_ms_p99']} ms, max {result['latency_ms_max']} ms"
        )
        print(
            f"server CPU: {result['server_cpu']} cores, clients' {result['client_cpu']}, "
            f"load average {result['load_average']}; errors {result['errors']}, "
            f"failed clients {result['failed_clients']}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
