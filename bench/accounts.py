"""Profiles and leaderboards at scale (issue 25 item 8): a fresh database filled with
``--accounts`` accounts and ``--matches`` rated matches (each with its table and every seat's
rating change), then the answers of ``GET /api/players/{name}`` (a first page and a deep page
of the busiest player's matches) and ``GET /api/leaderboard`` (a first and a deep page),
through the app itself (FastAPI's TestClient: routes, store, SQL), median and p99 over
``--requests`` each; and SQLite's plan of every query those answers run (``EXPLAIN QUERY
PLAN``: each reads by an index, none scans a table).

The fill writes the store's own tables (:mod:`seep.web.schema`) with big ``executemany``
transactions. Its ratings are drawn, not computed match by match (openskill over a million
matches would take the bench's time): the rows have the shape and spread of real ones.
One player in a hundred plays ten times as often as the others, and the first account, a
hundredth of all matches: its profile has pages deep enough to measure.

    python bench/accounts.py [--accounts 100000] [--matches 1000000] [--requests 50]
                             [--database-url postgresql+psycopg://...] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import event, insert
from sqlalchemy.engine import Connection

from seep.web.names import skeleton
from seep.web.schema import accounts_t, rated_matches_t, rating_changes_t, ratings_t, tables_t
from seep.web.store import Store

BATCH = 20_000  # rows an executemany; a transaction holds a few of them
DAY = 86_400.0
HASH = "$argon2id$v=19$m=19456,t=2,p=1$YmVuY2hiZW5jaA$" + "A" * 43  # never checked here


def _chunks(rows: Iterator[dict[str, Any]], size: int = BATCH) -> Iterator[list[dict[str, Any]]]:
    batch: list[dict[str, Any]] = []
    for row in rows:
        batch.append(row)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def _write(c: Connection, table: Any, rows: Iterator[dict[str, Any]]) -> int:
    n = 0
    for batch in _chunks(rows):
        c.execute(insert(table), batch)
        n += len(batch)
    return n


def fill(store: Store, accounts: int, matches: int, seed: int = 1) -> dict[str, Any]:
    """``accounts`` accounts and ``matches`` rated matches (four of five of four seats) over
    the last 60 days; returns the rows written and the seconds taken."""
    rng = random.Random(seed)
    now = time.time()
    heavy = max(1, accounts // 100)  # the busy ones: ten times as many matches each
    weights = [10.0 if i < heavy else 1.0 for i in range(accounts)]
    cum = list(_cumulative(weights))
    started = time.perf_counter()
    per: dict[tuple[int, str], list[float]] = {}  # (account, format) -> [games, last]
    with store.engine.begin() as c:
        _write(
            c,
            accounts_t,
            (
                {"id": i, "name": f"p{i:06d}", "name_key": skeleton(f"p{i:06d}"),
                 "password_hash": HASH, "created": now - 90 * DAY}
                for i in range(1, accounts + 1)
            ),
        )  # fmt: skip

    def seats_of(i: int) -> tuple[str, list[int]]:
        fmt = "two" if i % 5 == 4 else "four"
        size = 2 if fmt == "two" else 4
        chosen: list[int] = []
        if i % 100 == 0:
            chosen.append(1)  # the first account: one match in a hundred
        while len(chosen) < size:
            a = 1 + _pick(cum, rng.random() * cum[-1])
            if a not in chosen:
                chosen.append(a)
        return fmt, chosen

    done = 0
    while done < matches:
        n = min(matches - done, 5 * BATCH)
        tables, rated, changes = [], [], []
        for i in range(done, done + n):
            fmt, chosen = seats_of(i)
            ended = now - 60 * DAY * (matches - i) / matches
            code = f"M{i:07d}"
            seats = [{"name": f"p{a:06d}", "kind": "human", "account": a} for a in chosen]
            tables.append(
                {"code": code, "settings": json.dumps({"rated": True, "bots": "easy"}),
                 "seed": "1", "status": "finished", "host": 0, "seats": json.dumps(seats),
                 "version": 1, "created": ended - 600, "record": None}
            )  # fmt: skip
            winner = rng.randrange(2)
            rated.append({"id": i + 1, "code": code, "format": fmt, "winner": winner,
                          "ended": ended})  # fmt: skip
            for seat, a in enumerate(chosen):
                mu = rng.gauss(25, 4)
                won = seat % 2 == winner
                changes.append(
                    {"match": i + 1, "seat": seat, "account": a,
                     "result": "win" if won else "loss", "forfeited": rng.random() < 0.01,
                     "deals": 3, "baazis": rng.randrange(4), "points": rng.randrange(40, 120),
                     "sweep_points": rng.randrange(0, 50), "mu_before": mu, "sigma_before": 5.0,
                     "mu_after": mu + (0.4 if won else -0.4), "sigma_after": 4.9}
                )  # fmt: skip
                kept = per.setdefault((a, fmt), [0, 0.0])
                kept[0] += 1
                kept[1] = ended
        with store.engine.begin() as c:
            _write(c, tables_t, iter(tables))
            _write(c, rated_matches_t, iter(rated))
            _write(c, rating_changes_t, iter(changes))
        done += n
    with store.engine.begin() as c:
        _write(
            c,
            ratings_t,
            (
                {"account": a, "format": f, "mu": rng.gauss(25, 4),
                 "sigma": max(1.5, 8.3 - 0.25 * g), "games": g, "last": last}
                for (a, f), (g, last) in per.items()
            ),
        )  # fmt: skip
    store.checkpoint("TRUNCATE")
    with store.engine.begin() as c:  # the planner's statistics, as a live database has them
        c.exec_driver_sql("ANALYZE")
    seconds = time.perf_counter() - started
    return {
        "accounts": accounts,
        "matches": matches,
        "rating_changes": sum(g for g, _ in per.values()),
        "ratings": len(per),
        "fill_seconds": round(seconds, 1),
    }


def _cumulative(weights: list[float]) -> Iterator[float]:
    total = 0.0
    for w in weights:
        total += w
        yield total


def _pick(cum: list[float], x: float) -> int:
    lo, hi = 0, len(cum) - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if cum[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


@contextmanager
def _statements(store: Store) -> Iterator[list[tuple[str, Any]]]:
    """Every SQL statement the store runs meanwhile, with its parameters."""
    seen: list[tuple[str, Any]] = []

    def before(_c: Any, _cur: Any, sql: str, params: Any, _ctx: Any, _many: bool) -> None:
        seen.append((sql, params))

    event.listen(store.engine, "before_cursor_execute", before)
    try:
        yield seen
    finally:
        event.remove(store.engine, "before_cursor_execute", before)


def _plans(store: Store, statements: list[tuple[str, Any]]) -> list[dict[str, Any]]:
    """SQLite's plan of each distinct SELECT (PostgreSQL: its EXPLAIN)."""
    out, done = [], set()
    pg = store.engine.dialect.name == "postgresql"
    with store.engine.connect() as c:
        for sql, params in statements:
            if not sql.lstrip().upper().startswith("SELECT") or sql in done:
                continue
            done.add(sql)
            explain = "EXPLAIN " if pg else "EXPLAIN QUERY PLAN "
            rows = c.exec_driver_sql(explain + sql, params).all()
            plan = [str(r[0]) if pg else str(r[-1]) for r in rows]
            out.append({"sql": " ".join(sql.split())[:160], "plan": plan})
    return out


def measure(url: str, requests: int, accounts: int) -> dict[str, Any]:
    """Median and p99 milliseconds of each answer through the app, and the query plans."""
    os.environ["SEEP_MAX_PROFILES_PER_MINUTE"] = "0"  # the bench is one client: no limit
    from fastapi.testclient import TestClient

    from seep.web.app import create_app

    app = create_app(url)
    out: dict[str, Any] = {}
    with TestClient(app) as client:
        store: Store = app.state.manager.store
        first = client.get("/api/leaderboard").json()
        last_page = max(1, -(-first["total"] // 50))
        heavy_pages = _pages(client, "p000001")
        asks = {
            "profile_first": ("/api/players/p000001", None),
            "profile_deep": ("/api/players/p000001", str(heavy_pages)),
            "profile_typical": (f"/api/players/p{accounts // 2:06d}", None),
            "leaderboard_first": ("/api/leaderboard", None),
            "leaderboard_deep": ("/api/leaderboard", str(last_page)),
        }
        plans: list[tuple[str, Any]] = []
        for what, (path, page) in asks.items():
            params = {"page": page} if page else None
            with _statements(store) as seen:
                r = client.get(path, params=params)
            assert r.status_code == 200, r.text
            plans += seen
            times = []
            for _ in range(requests):
                t0 = time.perf_counter()
                client.get(path, params=params)
                times.append((time.perf_counter() - t0) * 1000)
            times.sort()
            out[what] = {
                "page": int(page or 1),
                "median_ms": round(statistics.median(times), 2),
                "p99_ms": round(times[min(len(times) - 1, int(0.99 * len(times)))], 2),
            }
        out["leaderboard_total"] = first["total"]
        out["plans"] = _plans(store, plans)
    return out


def _pages(client: Any, name: str) -> int:
    """The number of the last page of a player's rated matches (20 a page)."""
    stats = client.get(f"/api/players/{name}").json()["stats"]
    return max(1, -(-int(stats["matches"]) // 20))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--accounts", type=int, default=100_000)
    ap.add_argument("--matches", type=int, default=1_000_000)
    ap.add_argument("--requests", type=int, default=50, help="requests of each kind timed")
    ap.add_argument("--database-url", default=None, help="an EMPTY database (default: SQLite)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        url = args.database_url or f"sqlite:///{tmp}/bench.db"
        store = Store(url)
        try:
            result = fill(store, args.accounts, args.matches)
        finally:
            store.close()
        result.update(measure(url, args.requests, args.accounts))
        result["database"] = url.split(":", 1)[0]
    if args.json:
        print(json.dumps(result))
        return 0
    print(
        f"filled {result['accounts']} accounts, {result['matches']} rated matches "
        f"({result['rating_changes']} rating changes) in {result['fill_seconds']} s"
    )
    for what in ("profile_first", "profile_deep", "profile_typical"):
        r = result[what]
        print(f"{what:18} page {r['page']:5}: median {r['median_ms']} ms, p99 {r['p99_ms']} ms")
    for what in ("leaderboard_first", "leaderboard_deep"):
        r = result[what]
        print(f"{what:18} page {r['page']:5}: median {r['median_ms']} ms, p99 {r['p99_ms']} ms")
    print(f"leaderboard: {result['leaderboard_total']} settled players (four)")
    for p in result["plans"]:
        print(f"  {p['sql']}\n    " + "\n    ".join(p["plan"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
