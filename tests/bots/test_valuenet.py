"""The learned value network: its runtime (no numpy), `seep train` (tiny budgets) and its use."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from seep.__main__ import main
from seep.bots import make_bot
from seep.bots.ismcts import estimate
from seep.bots.valuenet import FEATURE_NAMES, Net, features, load_net, load_value
from seep.engine import Position
from seep.errors import SeepError
from seep.view import View

pytest.importorskip("numpy")


def test_the_bots_runtime_does_not_import_numpy() -> None:
    code = (
        "import sys, random\n"
        "from seep.bots import make_bot\n"
        "from seep.engine import Position\n"
        "from seep.view import View\n"
        "pos = Position.new_deal(2); pos.push(pos.legal_codes()[0])\n"
        "for name in ('policy', 'hard', 'expert'):\n"
        "    make_bot(name, **({} if name == 'policy' else {'iterations': 5}))"
        ".choose(View.from_position(pos, pos.to_move), random.Random(0))\n"
        "assert 'numpy' not in sys.modules, 'numpy was imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_shipped_weights_load_and_score_positions() -> None:
    net = load_net()
    assert net.info["positions"] > 0 and "seep train" in net.info["command"]
    value = load_value(estimate)
    pos = Position.new_deal(5)
    pos.push(pos.legal_codes()[0])
    while not pos.is_over():
        assert isinstance(value(pos), float)
        assert len(features(pos, 0.0)) == len(FEATURE_NAMES)
        pos.push(pos.legal_codes()[-1])
    s0, s1 = pos.deal_scores()
    assert value(pos) == s0 - s1  # a finished deal is scored exactly


def test_malformed_weights_are_refused() -> None:
    with pytest.raises(SeepError, match="malformed"):
        Net({"features": list(FEATURE_NAMES)})
    with pytest.raises(SeepError, match="other features"):
        Net({"features": ["x"], "w1": [], "b1": [], "w2": [], "b2": 0})


def test_train_reproduces_its_weights_from_the_seed(tmp_path: Path) -> None:
    outs = []
    for k in range(2):
        out = tmp_path / f"v{k}.json"
        argv = ["train", "--deals", "4", "--epochs", "5", "--hidden", "3", "--seed", "9"]
        assert main([*argv, "--out", str(out)]) == 0
        outs.append(json.loads(out.read_text()))
    assert outs[0] == outs[1]
    net = Net(outs[0])
    assert len(net.b1) == 3 and net.info["positions"] > 0


def test_train_reads_arena_records(tmp_path: Path) -> None:
    records = tmp_path / "r.jsonl"
    assert main(["arena", "greedy", "random", "--deals", "2", "--records", str(records)]) == 0
    out = tmp_path / "v.json"
    argv = ["train", "--records", str(records), "--epochs", "3", "--hidden", "2"]
    assert main([*argv, "--out", str(out)]) == 0
    assert Net(json.loads(out.read_text())).info["source"].startswith("records")


def test_train_refuses_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["train", "--records", str(tmp_path / "missing.jsonl")]) == 2
    assert main(["train", "--deals", "0"]) == 2
    assert "seep train" in capsys.readouterr().err


def test_search_with_the_net_and_the_prior_plays_legal_moves() -> None:
    bot = make_bot("ismcts", iterations=20, value="net", horizon=8, prior=1.0, candidates=3)
    pos = Position.new_deal(8)
    rng = random.Random(1)
    history: list[tuple[int, int]] = []
    while not pos.is_over():
        seat = pos.to_move
        assert seat is not None
        code = int(bot.choose(View.from_position(pos, seat, history), rng).move)
        assert pos.is_legal(code)
        pos.push(code)
        history.append((seat, code))
