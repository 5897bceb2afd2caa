"""The offline table measured in Debian's chromium (issue 27 item 3): what it costs to open it the
first time, how long until the player sees his first legal move, and each bot difficulty's time
per move in the worker (Python under Pyodide).

It starts ``seep serve``'s app (uvicorn) on a free port with a temporary SQLite database, opens
the offline lobby in a fresh browser context (nothing cached) and starts a game, then plays
``--deals`` one-deal games per difficulty, seat 0 playing its first legal move at once and the
bots with no pause (``seep:offline-bot-delay`` 0), reading the worker's ``timing`` messages (the
time of each bot move's ``step()``, in the worker).

Reports: the first load (bytes over the network for the lobby, its service worker's precache
and the table: Pyodide, our bundle, the page's files; and the seconds from opening the lobby
until its service worker holds them all), the time from opening the offline table to the first
legal move shown (Pyodide started, bundle loaded, deal restored, bots' bid played), and per
difficulty the median and max milliseconds a move. ``--write`` keeps the per-difficulty figures
in src/seep/web/offline-bots.json, from which the offline lobby offers the difficulties whose
slowest move took under a second (seep.web.offline_assets.offered_difficulties).

    python bench/offline.py [--deals 1] [--levels easy,medium,hard,expert] [--json] [--write]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
BOT_TIMES = ROOT / "src" / "seep" / "web" / "offline-bots.json"
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]
LEVELS = ("easy", "medium", "hard", "expert")

NEW_GAME = """async ([bots, seed]) => {
  const store = await import('/static/js/offline-store.js');
  const id = 'bench-' + bots + '-' + seed;
  const now = Date.now();
  await store.saveGame({id, started: now, updated: now, seed, moves: [], left: 0,
    status: 'playing', record: null,
    options: {players: 4, bots, length: 'deal', name: 'Bench'}});
  return id;
}"""

# Seat 0 plays its first legal move as soon as it may, and says "next" at the deal's end.
AUTOPLAY = """() => {
  const view = window.seepTable;
  const st = view && view.state;
  if (!st) return 'waiting';
  if (st.table.status === 'finished') return 'finished';
  if (st.summary) { view.send({type: 'next'}); return 'next'; }
  if ((st.legal || []).length && view.lastSent !== st.version) {
    view.lastSent = st.version;
    view.send({type: 'move', move: st.legal[0], version: st.version});
  }
  return 'playing';
}"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _serve(tmp: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = _free_port()
    env = {
        **os.environ,
        "SEEP_DATABASE_URL": f"sqlite:///{tmp / 'seep.db'}",
        "PYTHONPATH": str(ROOT / "src"),
    }
    cmd = [sys.executable, "-m", "uvicorn", "--factory", "seep.web.app:create_app"]
    proc = subprocess.Popen(
        [*cmd, "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning"],
        env=env,
        cwd=tmp,
    )
    base = f"http://127.0.0.1:{port}"
    for _ in range(200):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return proc, base
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit("the server did not start")


def _first_load(browser: Any, base: str) -> dict[str, Any]:
    """A fresh context: the lobby, its service worker's precache, then a new game's table."""
    ctx = browser.new_context()
    sizes: dict[str, int] = {}

    def finished(req: Any) -> None:
        resp = req.response()
        if resp is None or resp.from_service_worker:
            return  # answered from the cache: nothing crossed the network
        s = req.sizes()
        sizes[req.url] = max(
            sizes.get(req.url, 0), s["responseBodySize"] + s["responseHeadersSize"]
        )

    ctx.on("requestfinished", finished)
    page = ctx.new_page()
    page.add_init_script("localStorage.setItem('seep:offline-bot-delay', '0')")
    t0 = time.perf_counter()
    page.goto(base + "/offline")
    page.wait_for_selector("#offline-ready:not([hidden])", timeout=120_000)
    cached_s = time.perf_counter() - t0
    page.select_option("#offline-bots", "easy")
    page.click("#offline-start")
    page.wait_for_url("**/offline?game=*")
    page.wait_for_function("() => window.seepOffline.metrics.firstLegal !== null", timeout=120_000)
    first = page.evaluate("() => window.seepOffline.metrics")
    out = {
        "bytes": sum(sizes.values()),
        "requests": len(sizes),
        "pyodide_bytes": sum(v for k, v in sizes.items() if "/pyodide/" in k),
        "lobby_ready_s": round(cached_s, 2),
        "first_legal_s": round(first["firstLegal"] / 1000, 2),
        "python_loaded_s": round(first["ready"]["loaded_ms"] / 1000, 2),
    }
    ctx.close()
    return out


def _level(browser: Any, base: str, level: str, deals: int) -> dict[str, Any]:
    ctx = browser.new_context()
    page = ctx.new_page()
    page.add_init_script("localStorage.setItem('seep:offline-bot-delay', '0')")
    page.goto(base + "/offline")
    page.wait_for_selector("#offline-form")
    times: list[float] = []
    opened: list[float] = []
    for deal in range(deals):
        game = page.evaluate(NEW_GAME, [level, 1000 + deal])
        page.goto(f"{base}/offline?game={game}")
        page.wait_for_function("() => window.seepOffline && window.seepOffline.metrics.ready")
        deadline = time.monotonic() + 1800
        while page.evaluate(AUTOPLAY) != "finished":
            if time.monotonic() > deadline:
                raise SystemExit(f"{level}: the deal did not finish in 30 minutes")
            time.sleep(0.02)
        metrics = page.evaluate("() => window.seepOffline.metrics")
        times += [t["ms"] for t in metrics["timings"]]
        opened.append(metrics["firstLegal"] or 0.0)
    ctx.close()
    return {
        "moves": len(times),
        "median_ms": round(statistics.median(times), 1),
        "max_ms": round(max(times), 1),
        "under_a_second": max(times) < 1000.0,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=1, help="one-deal games per difficulty")
    ap.add_argument("--levels", default=",".join(LEVELS))
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--write", action="store_true", help=f"keep the figures in {BOT_TIMES}")
    args = ap.parse_args()
    levels = [x for x in args.levels.split(",") if x]
    with tempfile.TemporaryDirectory() as tmp:
        proc, base = _serve(Path(tmp))
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
                first = _first_load(browser, base)
                bots = {level: _level(browser, base, level, args.deals) for level in levels}
                version = browser.version
                browser.close()
        finally:
            proc.terminate()
            proc.wait(10)
    out = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, chromium {version}",
        "command": "python bench/offline.py " + " ".join(sys.argv[1:]),
        "first_load": first,
        "bots": bots,
    }
    if args.write:
        BOT_TIMES.write_text(json.dumps(out, indent=1) + "\n")
    if args.json:
        print(json.dumps(out, indent=1))
    else:
        f = first
        print(f"first load: {f['bytes'] / 1e6:.1f} MB in {f['requests']} requests ")
        print(f"  (Pyodide {f['pyodide_bytes'] / 1e6:.1f} MB), lobby ready {f['lobby_ready_s']} s")
        print(f"offline table to first legal move: {f['first_legal_s']} s")
        print(f"  (Python loaded in the worker: {f['python_loaded_s']} s)")
        for level, b in bots.items():
            print(f"{level:7} {b['moves']:4} moves  median {b['median_ms']:7.1f} ms")
            print(f"        max {b['max_ms']:8.1f} ms  under a second: {b['under_a_second']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
