"""The scripts of examples/ run (tiny budgets: their figures are in docs/research.md)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("numpy")

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def run(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_linear_policy_gradient_trains_and_plays_in_the_arena(tmp_path: Path) -> None:
    weights = tmp_path / "w.json"
    out = run(str(EXAMPLES / "linear_pg.py"), "train", "--minutes", "0.03", "--out", str(weights))
    assert json.loads(weights.read_text())
    # mean returns in points (a deal's score difference), not hundreds of points
    summary = json.loads(out.strip().splitlines()[-1])
    assert all(math.isfinite(summary[k]) for k in summary if k.startswith("mean_return"))
    out = run(str(EXAMPLES / "linear_pg.py"), "arena", "--weights", str(weights), "--deals", "4")
    assert out.strip()


def test_openspiel_ismcts_example() -> None:
    pytest.importorskip("pyspiel")
    out = run(str(EXAMPLES / "openspiel_ismcts.py"), "--deals", "2", "--simulations", "5")
    result = json.loads(out)  # strict JSON: no NaN with a single pair of deals
    assert result["deals"] == 2 and result["ci95"] is None
    odd = subprocess.run(
        [sys.executable, str(EXAMPLES / "openspiel_ismcts.py"), "--deals", "3"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert odd.returncode != 0 and "even" in odd.stderr


def test_linear_bot_refuses_to_play_without_weights(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SEEP_LINEAR_WEIGHTS", raising=False)
    monkeypatch.syspath_prepend(str(EXAMPLES))
    import linear_pg

    with pytest.raises(ValueError, match="SEEP_LINEAR_WEIGHTS"):
        linear_pg.LinearBot()


def test_openspiel_examples_two_players() -> None:
    """Two-player python_seep (docs/rules.md §12) through OpenSpiel's ISMCTS and its RL loop
    (rl_environment with OpenSpiel's tabular Q-learner)."""
    pytest.importorskip("pyspiel")
    out = run(
        str(EXAMPLES / "openspiel_ismcts.py"),
        "--deals",
        "2",
        "--simulations",
        "3",
        "--players",
        "2",
    )
    assert json.loads(out)["players"] == 2
    out = run(str(EXAMPLES / "openspiel_qlearner.py"), "--episodes", "3", "--eval", "2")
    result = json.loads(out)
    assert result["players"] == 2 and result["eval_deals"] == 2 and result["q_states"] > 0


def test_masked_ppo_trains_and_plays_in_the_arena(tmp_path: Path) -> None:
    pytest.importorskip("sb3_contrib")
    model = tmp_path / "ppo.zip"
    out = run(str(EXAMPLES / "masked_ppo.py"), "train", "--timesteps", "64", "--out", str(model))
    assert json.loads(out)["timesteps"] >= 64 and model.exists()
    out = run(str(EXAMPLES / "masked_ppo.py"), "arena", "--model", str(model), "--deals", "2")
    result = json.loads(out)
    assert set(result) == {"deals", "random", "greedy"}
