"""Web server load benchmark: many simultaneous tables, played over WebSockets for many deals.

By default it starts ``seep serve`` (one uvicorn process) on a free port with a temporary
SQLite database; ``--url`` uses a server already running, ``--instances N`` starts N instances
on one PostgreSQL behind HAProxy (deploy/cluster.py). Two scenarios:

``bots`` (the default): ``--tables`` tables, each with one client playing random legal moves
against three bots of ``--bots`` difficulty, as soon as its turn comes.

``expert``: ``--expert-tables`` tables of one client and three expert bots (the slowest bots)
beside ``--human-tables`` tables of four clients each, who move ``--think`` seconds after their
turn comes. Latency is measured at the human tables only: what expert bots cost the others.

Reports the moves per second the server made (all seats), the deals finished, the latency of
the clients' moves (from a move sent to the state that shows it, received) and the server's CPU
(its processes and their children: the bot workers), in cores and per move made. The bots'
pause before each move (``--bot-delay``, the server's default 0.6 s) is the game's pace, not
part of any latency. The run fails (exit 1) if a table stops advancing: every table must keep
moving, deal after deal.

    python bench/server.py [--tables 200] [--seconds 30] [--bot-delay 0.6] [--bots easy] [--json]
    python bench/server.py --scenario expert [--expert-tables 24] [--human-tables 50]
    python bench/server.py --instances 3 --tables 600     # needs deploy/cluster.py
    python bench/server.py --url http://127.0.0.1:8000 --tables 50
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import importlib.util
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
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import websockets

ROOT = Path(__file__).resolve().parent.parent
CLUSTER = ROOT / "deploy" / "cluster.py"
# The per-client limits are for the public: one benchmark client plays every table.
UNLIMITED = {
    "SEEP_MAX_TABLES_PER_MINUTE": "0",
    "SEEP_MAX_OPEN_TABLES_PER_CLIENT": "0",
    "SEEP_MAX_OPEN_TABLES": "0",
    "SEEP_MAX_UNKNOWN_CODES_PER_MINUTE": "0",
    "SEEP_MAX_EXPERT_TABLES": "0",
    "SEEP_MAX_CONNECTIONS_PER_CLIENT": "0",
    "SEEP_MAX_SOCKETS_PER_CLIENT": "0",
    "SEEP_MAX_SPECTATORS_PER_CLIENT_TABLE": "0",
    "SEEP_MESSAGE_BUDGET": "0",
}


# The page asks for the appended history; a server from before it has none (SEEP_BENCH_WHOLE=1
# measures one with the whole history in every state, as before).
APPEND = os.environ.get("SEEP_BENCH_WHOLE") != "1"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Stats:
    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.client_moves = 0
        self.moves_seen = 0  # every move of every table (counted by one client per table)
        self.deals = 0  # deals finished while measuring
        self.errors: dict[str, int] = {}
        self.measuring = False
        self.progress: dict[str, float] = {}  # table -> when its game last moved
        self.deal_reached: dict[str, int] = {}  # table -> its current deal (from 0)


async def open_seat(wsbase: str, code: str, token: str | None) -> Any:
    """A WebSocket to a table, holding the token's seat (the ``hello`` handshake; docs/web.md).
    Every client connects here: the one place to change when the protocol changes."""
    ws = await websockets.connect(f"{wsbase}/ws/{code}", max_size=1 << 22, open_timeout=60)
    if token is not None:
        # The appended history, as the page asks for it (docs/web.md): see play_seat.
        hello = {"type": "hello", "token": token, "history": "append"} if APPEND else None
        await ws.send(json.dumps(hello or {"type": "hello", "token": token}))
    return ws


async def play_seat(
    ws: Any,
    code: str,
    args: Any,
    stats: Stats,
    rng: random.Random,
    *,
    counts: bool,
    measured: bool,
    think: float,
) -> None:
    """Play one seat until cancelled: a random legal move ``think`` seconds after each turn
    comes, ``next`` at each summary. ``counts``: this client counts the table's moves and
    deals; ``measured``: its moves' latencies are recorded."""
    sent_at: float | None = None
    history = 0
    deal = -1
    next_sent = -1  # the deal whose summary this client has said "next" to (as the page does)
    held: list[Any] = []  # the deal's moves the last state showed (the appended history)
    async for raw in ws:
        now = time.perf_counter()
        msg = json.loads(raw)
        if msg["type"] == "state":
            if msg["view"] is not None and msg.get("history_from"):
                msg["view"]["history"] = held[: msg["history_from"]] + msg["view"]["history"]
            held = msg["view"]["history"] if msg["view"] is not None else []
        if msg["type"] == "error":
            stats.errors[msg["code"]] = stats.errors.get(msg["code"], 0) + 1
            sent_at = None
            continue
        if msg["type"] != "state" or msg["view"] is None or msg["seat"] is None:
            continue  # before the start, or the spectator's state that precedes the hello
        view = msg["view"]
        n = len(view["history"])
        # While a finished deal's summary shows, match.deals already counts it (docs/web.md).
        d = msg["match"]["deals"] - (1 if msg["summary"] is not None else 0)
        if d != deal:
            if counts and deal >= 0 and stats.measuring:
                stats.deals += d - deal
            deal, history = d, 0
            if counts:
                stats.deal_reached[code] = d
                stats.progress[code] = now
        if n > history:
            if counts:
                stats.progress[code] = now
                if stats.measuring:
                    stats.moves_seen += n - history
            if sent_at is not None:
                if stats.measuring and measured:
                    stats.latencies.append(now - sent_at)
                    stats.client_moves += 1
                sent_at = None
            history = n
        if msg["summary"] is not None and msg["table"]["status"] == "playing":
            if msg["seat"] not in msg["summary"]["ready"] and next_sent != d:
                next_sent = d
                await ws.send(json.dumps({"type": "next"}))
        elif msg["legal"] and sent_at is None:
            if think:
                await asyncio.sleep(think * rng.uniform(0.5, 1.5))
            move = rng.choice(msg["legal"])
            sent_at = time.perf_counter()
            await ws.send(json.dumps({"type": "move", "move": move, "version": msg["version"]}))


async def bot_table(
    base: str, wsbase: str, args: Any, stats: Stats, rng: random.Random, bots: str, think: float
) -> None:
    """One client against three bots."""
    async with httpx.AsyncClient(timeout=60) as http:
        body = {"name": "Bench", "bots": bots, "deals": 100}
        r = await http.post(f"{base}/api/tables", json=body)
        r.raise_for_status()
        made = r.json()
    ws = await open_seat(wsbase, made["code"], made["token"])
    async with ws:
        await ws.send(json.dumps({"type": "start"}))
        await play_seat(
            ws,
            made["code"],
            args,
            stats,
            rng,
            counts=True,
            measured=args.scenario == "bots",
            think=think,
        )


async def human_table(base: str, wsbase: str, args: Any, stats: Stats, rng: random.Random) -> None:
    """Four clients, no bots."""
    async with httpx.AsyncClient(timeout=60) as http:
        r = await http.post(f"{base}/api/tables", json={"name": "H0", "deals": 100})
        r.raise_for_status()
        made = r.json()
        code = made["code"]
        tokens = [made["token"]]
        for seat in (1, 2, 3):
            j = await http.post(
                f"{base}/api/tables/{code}/join", json={"name": f"H{seat}", "seat": seat}
            )
            j.raise_for_status()
            tokens.append(j.json()["token"])
    sockets = [await open_seat(wsbase, code, t) for t in tokens]
    try:
        await sockets[0].send(json.dumps({"type": "start"}))
        await asyncio.gather(
            *(
                play_seat(
                    ws,
                    code,
                    args,
                    stats,
                    random.Random(rng.random()),
                    counts=i == 0,
                    measured=True,
                    think=args.think,
                )
                for i, ws in enumerate(sockets)
            )
        )
    finally:
        for ws in sockets:
            await ws.close()


async def _loop_lag(lags: list[float]) -> None:
    """Record, until cancelled, how late this loop wakes from 5 ms sleeps."""
    while True:
        t = time.perf_counter()
        await asyncio.sleep(0.005)
        lags.append(time.perf_counter() - t - 0.005)


async def run(args: Any, base: str, wsbase: str) -> dict[str, Any]:
    stats = Stats()
    rng = random.Random(args.seed)
    if args.scenario == "expert":
        plan = [("expert", n) for n in range(args.expert_tables)]
        plan += [("human", n) for n in range(args.human_tables)]
        rng.shuffle(plan)
    else:
        plan = [("bots", n) for n in range(args.tables)]
    tasks = []
    for kind, _ in plan:
        r = random.Random(rng.random())
        if kind == "human":
            coro = human_table(base, wsbase, args, stats, r)
        elif kind == "expert":
            coro = bot_table(base, wsbase, args, stats, r, "expert", 0.0)
        else:
            coro = bot_table(base, wsbase, args, stats, r, args.bots, args.think)
        tasks.append(asyncio.create_task(coro))
        await asyncio.sleep(args.ramp / len(plan))  # tables start over the ramp, not at once
    await asyncio.sleep(args.warmup)
    # The client's own collector pauses (a full collection of 600 sockets' objects takes up to
    # 0.2 s here) would be read as the server's latency: none while measuring.
    gc.collect()
    gc.freeze()
    gc.disable()
    stats.measuring = True
    lags: list[float] = []
    lag_probe = asyncio.create_task(_loop_lag(lags))
    t0 = time.perf_counter()
    cpu0 = _cpu(args.server_pids)
    client0 = time.process_time()
    deal0 = dict(stats.deal_reached)
    await asyncio.sleep(args.seconds)
    stats.measuring = False
    lag_probe.cancel()
    gc.enable()
    gc.unfreeze()
    end = time.perf_counter()
    elapsed = end - t0
    cpu = (_cpu(args.server_pids) - cpu0) / elapsed
    client_cpu = (time.process_time() - client0) / elapsed
    failed = [t for t in tasks if t.done() and t.exception() is not None]
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    lat = sorted(stats.latencies)
    stalled = sorted(c for c, at in stats.progress.items() if end - at > args.stall)
    advanced = sum(1 for c, d in stats.deal_reached.items() if d > deal0.get(c, 0))

    def pct(p: float) -> float:
        return round(lat[min(len(lat) - 1, int(p * len(lat)))] * 1000, 2) if lat else float("nan")

    return {
        "scenario": args.scenario,
        "tables": len(plan),
        "instances": args.instances,
        "seconds": round(elapsed, 1),
        "bot_delay": args.bot_delay,
        "bots": args.bots if args.scenario == "bots" else "expert + humans",
        "think": args.think,
        "moves_per_s": round(stats.moves_seen / elapsed, 1),
        "deals_finished": stats.deals,
        "tables_that_finished_a_deal": advanced,
        "furthest_deal": max(stats.deal_reached.values(), default=0) + 1,
        "stalled_tables": len(stalled),
        "client_moves": stats.client_moves,
        "client_moves_per_s": round(stats.client_moves / elapsed, 1),
        "latency_ms_p50": pct(0.50),
        "latency_ms_p99": pct(0.99),
        "latency_ms_max": round(lat[-1] * 1000, 2) if lat else None,
        "latency_ms_mean": round(statistics.fmean(lat) * 1000, 2) if lat else None,
        "server_cpu": round(cpu, 2),
        # What one move (of any seat) costs the server: its processes' CPU over the moves made.
        "server_cpu_us_per_move": (
            round(cpu * elapsed / stats.moves_seen * 1e6, 1) if stats.moves_seen else None
        ),
        "client_cpu": round(client_cpu, 2),
        # How late this client's own loop ran a 5 ms timer: when it is near the latencies, the
        # client, not the server, is what was measured.
        "client_lag_ms_p99": (
            round(sorted(lags)[int(0.99 * len(lags))] * 1000, 2) if lags else None
        ),
        "load_average": round(os.getloadavg()[0], 2),
        "errors": stats.errors,
        "failed_clients": len(failed),
        "failures": sorted({repr(t.exception())[:200] for t in failed}),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
    }


def _descendants(pids: list[int]) -> list[int]:
    """The processes and all their children (Linux /proc): the bot workers count too."""
    parent: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                parent[int(entry.name)] = int(fields[1])
            except (OSError, IndexError, ValueError):
                continue
    found = [p for p in pids if p]
    todo = list(found)
    while todo:
        p = todo.pop()
        kids = [c for c, pp in parent.items() if pp == p]
        found += kids
        todo += kids
    return found


def _cpu(pids: list[int]) -> float:
    """CPU seconds used so far by processes and their live children (Linux /proc)."""
    total = 0.0
    for pid in _descendants(pids):
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, IndexError, ValueError):
            continue
    return total


def _wait_ready(base: str) -> None:
    for _ in range(300):
        try:
            httpx.get(f"{base}/api/tables/NONE", timeout=1)
            return
        except httpx.TransportError:
            time.sleep(0.1)
    raise SystemExit(f"no server answers at {base}")


@contextmanager
def _one_server(args: Any) -> Iterator[tuple[str, list[int]]]:
    """A fresh ``seep serve`` process on a free port and a temporary SQLite file."""
    port = _free_port()
    with tempfile.TemporaryDirectory(dir=args.db_dir) as tmp:
        env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), **UNLIMITED)
        server = subprocess.Popen(
            [
                *(sys.executable, "-m", "seep", "serve", "--port", str(port)),
                *("--database-url", f"sqlite:///{tmp}/bench.db"),
                *("--bot-delay", str(args.bot_delay)),
            ],
            env=env,
            stdout=subprocess.DEVNULL,
        )
        base = f"http://127.0.0.1:{port}"
        try:
            _wait_ready(base)
            yield base, [server.pid]
        finally:
            server.terminate()
            server.wait(10)


@contextmanager
def _cluster(args: Any) -> Iterator[tuple[str, list[int]]]:
    """``--instances N`` instances on PostgreSQL behind HAProxy, by deploy/cluster.py."""
    if not CLUSTER.is_file():
        raise SystemExit(
            f"--instances needs {CLUSTER.relative_to(ROOT)} (it starts PostgreSQL, the "
            "instances and HAProxy; docs/deploy.md): it is missing from this checkout"
        )
    spec = importlib.util.spec_from_file_location("seep_deploy_cluster", CLUSTER)
    assert spec is not None and spec.loader is not None
    cluster_mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = cluster_mod  # (dataclasses look their module up)
    spec.loader.exec_module(cluster_mod)
    with tempfile.TemporaryDirectory(dir=args.db_dir) as tmp:
        cluster = cluster_mod.start_cluster(
            args.instances, tmp, bot_delay=args.bot_delay, env=dict(UNLIMITED)
        )
        try:
            yield cluster.url, [inst.pid for inst in cluster.instances]
        finally:
            cluster.stop()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scenario", choices=("bots", "expert"), default="bots")
    ap.add_argument("--tables", type=int, default=200, help="tables of the bots scenario")
    ap.add_argument("--bots", default="easy", help="bot difficulty of the bots scenario")
    ap.add_argument("--expert-tables", type=int, default=24)
    ap.add_argument("--human-tables", type=int, default=50, help="tables of four clients")
    ap.add_argument(
        "--think",
        type=float,
        default=None,
        help="a client's seconds before each move, +-50%% (bots: 0; expert: 1.0)",
    )
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--warmup", type=float, default=5.0, help="seconds before measuring")
    ap.add_argument("--ramp", type=float, default=5.0, help="seconds over which tables start")
    ap.add_argument("--stall", type=float, default=30.0, help="seconds without a move: stalled")
    ap.add_argument("--bot-delay", type=float, default=0.6)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--db-dir", default=None, help="folder of the SQLite file (default: /tmp)")
    ap.add_argument("--url", default=None, help="a running server to use (no CPU figure)")
    ap.add_argument("--server", default=None, help="HOST:PORT of a running server (as --url)")
    ap.add_argument("--instances", type=int, default=0, help="N instances behind HAProxy")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args()
    if args.think is None:
        args.think = 1.0 if args.scenario == "expert" else 0.0
    url = args.url or (f"http://{args.server}" if args.server else None)
    if url:
        url = url.rstrip("/")
        ws = "ws" + url.removeprefix("http")
        _wait_ready(url)
        args.server_pids = []
        result = asyncio.run(run(args, url, ws))
    else:
        with _cluster(args) if args.instances else _one_server(args) as (base, pids):
            args.server_pids = pids
            result = asyncio.run(run(args, base, "ws" + base.removeprefix("http")))
    if args.json:
        print(json.dumps(result))
    else:
        print(
            f"{result['tables']} tables ({args.scenario}), {result['seconds']} s measured, "
            f"bots {result['bots']}, bot delay {args.bot_delay} s, think {args.think} s, "
            f"{args.instances or 1} instance(s)"
        )
        print(
            f"moves/s (all seats): {result['moves_per_s']}   client moves/s: "
            f"{result['client_moves_per_s']} ({result['client_moves']} measured)"
        )
        print(
            f"deals finished: {result['deals_finished']} (by "
            f"{result['tables_that_finished_a_deal']} tables; furthest: deal "
            f"{result['furthest_deal']}); stalled tables: "
            f"{result['stalled_tables']}"
        )
        print(
            f"latency move -> state: p50 {result['latency_ms_p50']} ms, "
            f"p99 {result['latency_ms_p99']} ms, max {result['latency_ms_max']} ms"
        )
        print(
            f"server CPU: {result['server_cpu']} cores "
            f"({result['server_cpu_us_per_move']} us a move), clients' {result['client_cpu']}, "
            f"load average {result['load_average']}; errors {result['errors']}, "
            f"failed clients {result['failed_clients']} {result['failures'] or ''}"
        )
    if result["stalled_tables"] or result["failed_clients"]:
        print(
            f"FAILED: {result['stalled_tables']} table(s) stopped advancing, "
            f"{result['failed_clients']} client(s) failed",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
