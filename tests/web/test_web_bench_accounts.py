"""bench/accounts.py (issue 25 item 8) runs, small, as CI runs it: it fills a fresh SQLite
database, answers every profile and leaderboard page it times through the app, and the
plans it prints show the reads by revision 0007's indexes, no table scanned."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("fastapi")

BENCH = Path(__file__).resolve().parents[2] / "bench" / "accounts.py"


def test_the_accounts_bench_runs_small_and_reads_by_the_indexes() -> None:
    args = ["--accounts", "200", "--matches", "1000", "--requests", "3", "--json"]
    done = subprocess.run(
        [sys.executable, str(BENCH), *args], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["accounts"] == 200 and result["matches"] == 1000
    assert result["rating_changes"] == 3600  # four seats in four matches of five, else two
    for what in ("profile_first", "profile_deep", "leaderboard_first", "leaderboard_deep"):
        assert result[what]["median_ms"] > 0 and result[what]["p99_ms"] >= 0, what
    assert result["profile_deep"]["page"] > 1 and result["leaderboard_deep"]["page"] > 1
    plans = "\n".join(line for p in result["plans"] for line in p["plan"])
    assert "ix_ratings_leaderboard" in plans and "ix_rating_changes_profile" in plans
    assert "SCAN rating" not in plans and "SCAN accounts" not in plans, plans
