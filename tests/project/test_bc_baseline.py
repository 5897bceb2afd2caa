"""examples/bc_baseline.py trains on the shipped dataset sample for a few seconds and plays in
the arena (its figures, on a larger dataset, are in docs/research.md)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("numpy")
pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "tests" / "data" / "dataset"


def run(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "bc_baseline.py"), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_behaviour_cloning_trains_on_the_sample_and_plays_in_the_arena(tmp_path: Path) -> None:
    weights = tmp_path / "bc.npz"
    out = run("train", "--data", str(SAMPLE), "--minutes", "0.03", "--out", str(weights))
    summary = json.loads(out.strip().splitlines()[-1])
    assert summary["deals"] == 6 and summary["steps"] >= 1 and weights.exists()
    assert 0.0 <= summary["last"]["held_out_accuracy"] <= 1.0
    result = json.loads(run("arena", "--weights", str(weights), "--deals", "2"))
    assert set(result) == {"deals", "seed", "random", "greedy", "heuristic"}
    assert all(result[b]["ci95"] is None for b in ("random", "greedy", "heuristic"))
    agree = json.loads(
        run("agree", "--data", str(SAMPLE), "--weights", str(weights), "--deals", "1")
    )
    assert agree["deals"] == 1 and agree["moves_with_a_choice"] > 0
    assert 0.0 <= agree["bc_agreement"] <= 1.0 and 0.0 < agree["teacher_self_agreement"] <= 1.0


def test_the_bc_bot_refuses_to_play_without_weights(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SEEP_BC_WEIGHTS", raising=False)
    monkeypatch.syspath_prepend(str(ROOT / "examples"))
    import bc_baseline

    with pytest.raises(ValueError, match="SEEP_BC_WEIGHTS"):
        bc_baseline.BCBot()
