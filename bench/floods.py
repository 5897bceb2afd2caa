"""Flood benchmark: an honest player's move latency while one address floods the server.

It starts ``seep serve`` (its default limits) on a free port with a temporary SQLite database
and runs, one after the other, each flood of issue 23 from one attacking loopback address for
``--seconds`` while a bystander at 127.0.0.2 plays a table against three bots (a random legal
move as soon as his turn comes; bench/server.py's client). Each attack runs in its own process,
so the attacker's work does not slow the bystander's measurement. Floods:

``hints``: as many seated sockets (of 400 tried) of the attacker's own tables as the server
lets in, each sending 19 hints a second. ``pings``: 800 spectator sockets tried, pings at 19 a
second. ``nested``: 60 sockets sending 15.5 KB messages of nested arrays. ``knock``: 200
spectator sockets knocking on the bystander's own table every 20 ms. ``posts``: 10,000 POSTs
that announce a body and hang up. ``slowloris``: 1,000 requests whose head never ends.

Per flood: the bystander's move p50/p99/max (move sent -> the state showing it), his moves,
whether he got back into his seat after a reconnect in the middle of the flood, how much the
attacker got in, and the server log's growth. Loopback only; every flood stops by itself.

    python bench/floods.py [--seconds 30] [--floods hints,pings,...] [--json]
    python bench/floods.py --costs     # each message kind's cost to the server's loop
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import websockets

sys.path.insert(0, str(Path(__file__).resolve().parent))
from server import ROOT, Stats, _free_port, _wait_ready, play_seat

FLOODS = ("hints", "pings", "nested", "knock", "posts", "slowloris")
BYSTANDER = "127.0.0.2"
NESTED = '{"type": "ping", "x": ' + "[" * 30 + "0," * 7700 + "0" + "]" * 30 + "}"  # 15.5 KB


# --- the attacker (its own process) ------------------------------------------------------------


class Attack:
    def __init__(self, base: str, source: str, seconds: float, target: str) -> None:
        self.base = base
        self.ws = "ws" + base.removeprefix("http")
        self.source = source
        self.until = time.monotonic() + seconds
        self.target = target  # the bystander's table, for the knocking flood
        self.open_now = 0
        self.most_open = 0
        self.refused = 0
        self.sent = 0

    def going(self) -> bool:
        return time.monotonic() < self.until

    async def tables(self, n: int) -> list[dict[str, Any]]:
        """Up to ``n`` started tables of the attacker's against bots (his creation limits
        allowing)."""
        made = []
        transport = httpx.AsyncHTTPTransport(local_address=self.source)
        async with httpx.AsyncClient(transport=transport, base_url=self.base, timeout=10) as http:
            for _ in range(n):
                r = await http.post("/api/tables", json={"name": "Mallory", "bots": "easy"})
                if not r.is_success:
                    break
                made.append(r.json())
        return made

    async def socket(self, code: str, token: str | None, message: str, rate: float) -> None:
        """One socket, kept open (reopened when closed) and sending ``message`` ``rate``
        times a second (0: only holding it)."""
        while self.going():
            try:
                ws = await websockets.connect(
                    f"{self.ws}/ws/{code}", local_addr=(self.source, 0), open_timeout=5
                )
            except (OSError, websockets.InvalidHandshake, TimeoutError):
                self.refused += 1
                await asyncio.sleep(0.02)
                continue
            try:
                first = json.loads(await asyncio.wait_for(ws.recv(), 5.0))
            except (TimeoutError, websockets.ConnectionClosed):
                first = {"type": "error"}
            if first["type"] == "error":  # refused: the server says why and closes
                self.refused += 1
                with contextlib.suppress(Exception):
                    await ws.close()
                await asyncio.sleep(0.02)  # knock again
                continue
            self.open_now += 1
            self.most_open = max(self.most_open, self.open_now)
            try:
                if token is not None:
                    await ws.send(json.dumps({"type": "hello", "token": token}))
                    await ws.send('{"type": "start"}')
                while self.going():
                    if rate:
                        await ws.send(message)
                        self.sent += 1
                        await asyncio.sleep(1 / rate)
                    else:
                        await asyncio.wait_for(ws.recv(), 1.0)
            except TimeoutError:
                continue
            except websockets.ConnectionClosed:
                self.refused += 1
                await asyncio.sleep(0.02)  # knock again
            finally:
                self.open_now -= 1
                with contextlib.suppress(Exception):
                    await ws.close()

    async def sockets(self, tried: int, seated: bool, message: str, rate: float) -> None:
        tables = await self.tables(5)
        if not tables:
            return
        tasks = [
            self.socket(
                tables[i % len(tables)]["code"],
                tables[i % len(tables)]["token"] if seated else None,
                message,
                rate,
            )
            for i in range(tried)
        ]
        await asyncio.gather(*tasks)

    async def knock(self) -> None:
        await asyncio.gather(*(self.socket(self.target, None, "", 0) for _ in range(200)))

    async def posts(self, count: int = 10_000, concurrency: int = 20) -> None:
        port = int(self.base.rsplit(":", 1)[1])
        request = (
            b"POST /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Content-Length: 1000\r\n\r\n" + b'{"name": "'
        )
        todo = iter(range(count))

        async def worker() -> None:
            for _ in todo:
                if not self.going():
                    return
                try:
                    _, writer = await asyncio.open_connection(
                        "127.0.0.1", port, local_addr=(self.source, 0)
                    )
                    writer.write(request)
                    await writer.drain()
                    writer.close()
                    await writer.wait_closed()
                    self.sent += 1
                except OSError:
                    self.refused += 1

        await asyncio.gather(*(worker() for _ in range(concurrency)))

    async def slowloris(self, count: int = 1000) -> None:
        port = int(self.base.rsplit(":", 1)[1])

        async def one() -> None:
            while self.going():
                try:
                    reader, writer = await asyncio.open_connection(
                        "127.0.0.1", port, local_addr=(self.source, 0)
                    )
                except OSError:
                    self.refused += 1
                    await asyncio.sleep(0.5)
                    continue
                counted = False
                try:
                    writer.write(b"GET / HTTP/1.1\r\nHost: x\r\n")
                    while self.going():
                        try:
                            await asyncio.wait_for(reader.read(4096), 1.0)
                            break  # answered or closed (over its cap, or timed out)
                        except TimeoutError:
                            pass  # a second without a word: the server holds it
                        if not counted:  # open for a second: the server holds it
                            counted = True
                            self.open_now += 1
                            self.most_open = max(self.most_open, self.open_now)
                        writer.write(b"X-a: b\r\n")  # a header line a second, never the end
                        await writer.drain()
                        self.sent += 1
                except OSError:
                    pass
                finally:
                    self.open_now -= counted
                    self.refused += 1
                    writer.close()

        await asyncio.gather(*(one() for _ in range(count)))

    async def run(self, flood: str) -> dict[str, Any]:
        if flood == "hints":
            await self.sockets(400, True, '{"type": "hint"}', 19)
        elif flood == "pings":
            await self.sockets(800, False, '{"type": "ping"}', 19)
        elif flood == "nested":
            await self.sockets(60, False, NESTED, 19)
        elif flood == "knock":
            await self.knock()
        elif flood == "posts":
            await self.posts()
        elif flood == "slowloris":
            await self.slowloris()
        return {
            "most_open": self.most_open,
            "sent": self.sent,
            "refused_or_closed": self.refused,
        }


def attack_main(args: Any) -> int:
    attack = Attack(args.url, args.source, args.seconds, args.target)
    result = asyncio.run(asyncio.wait_for(attack.run(args.attack), args.seconds + 30))
    print(json.dumps(result))
    return 0


# --- the bystander ------------------------------------------------------------------------------


async def _seat(wsbase: str, code: str, token: str) -> Any:
    ws = await websockets.connect(
        f"{wsbase}/ws/{code}", local_addr=(BYSTANDER, 0), max_size=1 << 22, open_timeout=10
    )
    await ws.send(json.dumps({"type": "hello", "token": token}))
    return ws


async def _back_in(ws: Any, seconds: float = 5.0) -> bool:
    """True when ``ws`` gets a state showing it in its seat within ``seconds``."""
    try:
        async with asyncio.timeout(seconds):
            async for raw in ws:
                msg = json.loads(raw)
                if msg["type"] == "state" and msg["seat"] is not None:
                    return True
    except (TimeoutError, websockets.ConnectionClosed):
        pass
    return False


async def bystander(base: str, flood: str, args: Any, attacker: str, log: Path) -> dict[str, Any]:
    wsbase = "ws" + base.removeprefix("http")
    transport = httpx.AsyncHTTPTransport(local_address=BYSTANDER)
    async with httpx.AsyncClient(transport=transport, base_url=base, timeout=30) as http:
        r = await http.post("/api/tables", json={"name": "Honest", "bots": "easy", "deals": 100})
        r.raise_for_status()
        made = r.json()
    code, token = made["code"], made["token"]
    stats = Stats()
    rng = random.Random(1)
    ws = await _seat(wsbase, code, token)
    await ws.send('{"type": "start"}')
    play = asyncio.create_task(
        play_seat(ws, code, args, stats, rng, counts=True, measured=True, think=0.0)
    )
    await asyncio.sleep(2.0)  # the deal under way before the flood
    log0 = log.stat().st_size
    cmd = [sys.executable, __file__, "--attack", flood, "--url", base, "--source", attacker]
    cmd += ["--seconds", str(args.seconds), "--target", code]
    proc = await asyncio.create_subprocess_exec(*cmd, stdout=subprocess.PIPE)
    await asyncio.sleep(1.0)  # the attacker at full strength
    stats.measuring = True
    t0 = time.monotonic()
    await asyncio.sleep(args.seconds / 2 - 1.0)
    # A reconnect in the middle of the flood: the seated player must always get back in.
    play.cancel()
    await asyncio.gather(play, return_exceptions=True)
    await ws.close()
    ws = await _seat(wsbase, code, token)
    back = await _back_in(ws)
    play = asyncio.create_task(
        play_seat(ws, code, args, stats, rng, counts=True, measured=True, think=0.0)
    )
    await asyncio.sleep(max(0.0, args.seconds - (time.monotonic() - t0) - 1.0))
    stats.measuring = False
    play.cancel()
    await asyncio.gather(play, return_exceptions=True)
    await ws.close()
    out, _ = await proc.communicate()
    log1 = log.stat().st_size
    try:
        attacked = json.loads(out.decode().strip().splitlines()[-1])
    except (IndexError, ValueError):
        attacked = {}
    lat = sorted(stats.latencies)

    def ms(q: float) -> float | None:
        return round(1000 * lat[min(len(lat) - 1, int(q * len(lat)))], 1) if lat else None

    return {
        "flood": flood,
        "moves": stats.client_moves,
        "p50_ms": ms(0.5),
        "p99_ms": ms(0.99),
        "max_ms": round(1000 * lat[-1], 1) if lat else None,
        "back_in": back,
        "attacker": attacked,
        "log_bytes": log1 - log0,
        "errors": stats.errors,
    }


async def run(args: Any, base: str, log: Path) -> list[dict[str, Any]]:
    results = []
    for i, flood in enumerate(args.floods):
        attacker = f"127.0.0.{10 + i}"  # a fresh address each: the last one may be banned
        results.append(await bystander(base, flood, args, attacker, log))
        await asyncio.sleep(3.0)  # the attacker's sockets gone before the next flood
    return results


async def message_costs(n: int = 300) -> dict[str, float]:
    """Microseconds the server's loop spends on one message of each kind, in process (no
    socket I/O: a WebSocket frame adds about 70 us to each), at a table against easy bots,
    the player's turn: what docs/web.md's budget weights come from."""
    sys.path.insert(0, str(ROOT / "src"))
    from seep.web.tables import TableManager

    manager = TableManager(None, bot_delay=0.0, rate_limit=10**9)
    made = manager.create({"name": "A", "bots": "easy"})
    conn = manager.connect(made["code"])
    await manager.handle(conn, json.dumps({"type": "hello", "token": made["token"]}))
    await manager.handle(conn, '{"type": "start"}')
    await asyncio.sleep(0.5)
    costs = {}
    for kind, text in [
        ("ping", '{"type": "ping"}'),
        ("report", '{"type": "report"}'),
        ("hint", '{"type": "hint"}'),
        ("nested 15.5 KB (refused)", NESTED),
    ]:
        t0 = time.perf_counter()
        for _ in range(n):
            await manager.handle(conn, text)
            while not conn.queue.empty():
                conn.queue.get_nowait()
        costs[kind] = round(1e6 * (time.perf_counter() - t0) / n, 1)
    manager.shutdown()
    return costs


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=30.0, help="seconds of each flood")
    ap.add_argument("--floods", default=",".join(FLOODS), help="which floods, in order")
    ap.add_argument("--bot-delay", type=float, default=0.1, help="the server's bot pause")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--attack", help=argparse.SUPPRESS)  # the attacker's process
    ap.add_argument("--url", help=argparse.SUPPRESS)
    ap.add_argument("--source", help=argparse.SUPPRESS)
    ap.add_argument("--target", help=argparse.SUPPRESS)
    ap.add_argument("--costs", action="store_true", help="only each message kind's cost")
    args = ap.parse_args()
    if args.attack:
        return attack_main(args)
    if args.costs:
        print(json.dumps(asyncio.run(message_costs())))
        return 0
    args.floods = [f for f in args.floods.split(",") if f]
    unknown = set(args.floods) - set(FLOODS)
    if unknown:
        ap.error(f"unknown floods {sorted(unknown)} (known: {', '.join(FLOODS)})")
    port = _free_port()
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "server.log"
        env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
        with open(log, "wb") as out:
            server = subprocess.Popen(
                [
                    *(sys.executable, "-m", "seep", "serve", "--port", str(port)),
                    *("--database-url", f"sqlite:///{tmp}/floods.db"),
                    *("--bot-delay", str(args.bot_delay)),
                ],
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        base = f"http://127.0.0.1:{port}"
        try:
            _wait_ready(base)
            results = asyncio.run(run(args, base, log))
        finally:
            server.terminate()
            server.wait(10)
    if args.json:
        print(json.dumps({"seconds": args.seconds, "floods": results}))
        return 0
    print(f"each flood {args.seconds:g} s from one address; bystander at {BYSTANDER}")
    print(
        f"{'flood':<10} {'moves':>5} {'p50 ms':>7} {'p99 ms':>7} {'max ms':>7} {'back in':>7} "
        f"{'attacker open':>13} {'sent':>7} {'log bytes':>9}"
    )
    for r in results:
        a = r["attacker"]
        print(
            f"{r['flood']:<10} {r['moves']:>5} {r['p50_ms']!s:>7} {r['p99_ms']!s:>7} "
            f"{r['max_ms']!s:>7} {'yes' if r['back_in'] else 'NO':>7} "
            f"{a.get('most_open', '?')!s:>13} {a.get('sent', '?')!s:>7} {r['log_bytes']:>9}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
