"""The learned bot and its trainer (``seep train-agent``, :mod:`seep.bots.dmc`).

A tiny agent is trained for a few seconds (a handful of deals), checkpointed, resumed and
exported; the exported JSON plays through the standard-library network exactly as the torch
network scores it. The shipped bot plays legal moves from the view alone (its honesty is
tests/bots/test_bot_honesty.py's, which covers every registered bot) and its CPU time per
move is reported, never asserted (``-s`` shows it; the figure for docs/strength.md comes from
``python bench/move_cost.py learned``).
"""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

import pytest

from seep.__main__ import main
from seep.bots import make_bot
from seep.bots.heuristic import HeuristicBot
from seep.bots.learned import (
    MOVE_NAMES,
    STATE_NAMES,
    LearnedBot,
    QNet,
    _ensemble,
    decision_features,
    merge_weights,
    move_values,
    qnets,
)
from seep.codes import PHASE_PLAY
from seep.engine import Position
from seep.errors import SeepError
from seep.view import View


def _views(deals: int, seed: int) -> list[View]:
    """The mover's view at every play of heuristic self-play deals."""
    rng = random.Random(seed)
    bot = HeuristicBot()
    out = []
    for _ in range(deals):
        pos = Position.new_deal(rng.randrange(1 << 30), rng.randrange(4))
        while not pos.is_over():
            seat = pos.to_move
            assert seat is not None
            view = View.from_position(pos, seat)
            if pos.phase == "play":
                out.append(view)
            pos.push(int(bot.choose(view, rng).move))
    return out


def test_shipped_bot_plays_legal_moves_and_reports_its_time() -> None:
    bot = make_bot("learned")
    assert isinstance(bot, LearnedBot)
    views = _views(2, 5)
    times = []
    for view in views:
        t0 = time.process_time()
        d = bot.choose(view, random.Random(1))
        times.append(time.process_time() - t0)
        assert d.move in view.legal_moves() and d.reason
    times.sort()
    print(
        f"\nlearned: {len(times)} moves, CPU ms per move: mean "
        f"{1000 * sum(times) / len(times):.2f}, max {1000 * times[-1]:.2f}"
    )


def test_features_have_their_names() -> None:
    view = _views(1, 3)[10]
    codes = sorted(view.legal_codes())
    state, moves, scored = decision_features(view, codes, HeuristicBot())
    assert len(state) == len(STATE_NAMES)
    assert [len(m) for m in moves] == [len(MOVE_NAMES)] * len(codes)
    assert [out.code for _, out, _ in scored] == codes
    # Exactly one action and one card value per move; the heuristic's best is marked.
    assert all(sum(m[:5]) == 1.0 and sum(m[5:18]) == 1.0 for m in moves)
    assert any(m[MOVE_NAMES.index("h_best")] == 1.0 for m in moves)


def _tiny(seed: int) -> dict[str, object]:
    """A random 4-2 network's weights in the export's format."""
    rng = random.Random(seed)
    n = len(STATE_NAMES) + len(MOVE_NAMES)
    return {
        "state": list(STATE_NAMES),
        "move": list(MOVE_NAMES),
        "candidates": 4,
        "w1": [[rng.gauss(0, 0.3) for _ in range(n)] for _ in range(4)],
        "b1": [rng.gauss(0, 0.1) for _ in range(4)],
        "w2": [[rng.gauss(0, 0.5) for _ in range(4)] for _ in range(2)],
        "b2": [0.1, 0.1],
        "w3": [1.0, -1.0],
        "b3": 0.0,
    }


def test_an_ensemble_averages_its_networks(tmp_path: Path) -> None:
    a, b = _tiny(1), _tiny(2)
    merged = merge_weights([a, b])
    nets = qnets(merged)
    assert len(nets) == 2 and nets[0].candidates == 4 and nets[0].prior == 0.0
    assert len(qnets(a)) == 1
    single, pair = LearnedBot(QNet(a)), LearnedBot(nets)
    same = LearnedBot(qnets(merge_weights([a, a])))
    for view in _views(1, 4)[::5]:
        assert (
            same.choose(view, random.Random(0)).move == single.choose(view, random.Random(0)).move
        )
        assert pair.choose(view, random.Random(0)).move in view.legal_moves()
    # The shipped file is such an ensemble; its side-by-side layers give each network's mean.
    shipped = LearnedBot()
    assert len(shipped.nets) > 1
    for view in _views(1, 8)[::7]:
        codes = sorted(view.legal_codes())
        state, moves, _ = decision_features(view, codes, shipped.heuristic)
        mean = [
            sum(n.q(n.hidden_state(state), m) for n in shipped.nets) / len(shipped.nets)
            for m in moves
        ]
        assert _ensemble(shipped.nets).values(state, moves) == pytest.approx(mean, abs=1e-9)
    # A large prior hands the choice to the heuristic: one of its equal best moves.
    led = LearnedBot(qnets(merge_weights([a, b], prior=1e6)))
    heuristic = HeuristicBot()
    for view in _views(1, 6)[::4]:
        codes = sorted(view.legal_codes())
        score = {out.code: s for s, out, _ in heuristic.score_moves(view, codes)}
        move = led.choose(view, random.Random(0)).move
        assert score[int(move)] == max(score.values())
    # seep train-agent --merge writes the file (no torch needed).
    paths = []
    for name, data in (("a", a), ("b", b)):
        paths.append(tmp_path / f"{name}.json")
        paths[-1].write_text(json.dumps(data))
    out = tmp_path / "ens.json"
    args = ["train-agent", "--merge", *map(str, paths), "--export", str(out), "--prior", "0.5"]
    assert main(args) == 0
    written = json.loads(out.read_text())
    assert written["prior"] == 0.5 and len(qnets(written)) == 2
    with pytest.raises(SeepError):
        merge_weights([a, {**b, "candidates": 3}])


def test_malformed_weights_are_refused() -> None:
    with pytest.raises(SeepError):
        QNet({"state": list(STATE_NAMES), "move": ["other"], "w1": []})
    with pytest.raises(SeepError):
        QNet({"state": list(STATE_NAMES), "move": list(MOVE_NAMES), "w1": [[1.0]]})


def test_tiny_training_run_resumes_and_exports(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch", reason="seep train-agent needs the 'rl' extra")
    from seep.bots.dmc import _load_weights, _model

    run = tmp_path / "run"
    common = [
        "train-agent",
        "--dir",
        str(run),
        "--hidden",
        "8,4",
        "--batch",
        "16",
        "--deals-per-task",
        "2",
        "--eval-deals",
        "2",
        "--minutes",
        "2",
    ]
    assert main([*common, "--max-deals", "2"]) == 0
    log = [json.loads(line) for line in (run / "log.jsonl").read_text().splitlines()]
    assert log[0]["deals"] == 0 and log[-1]["deals"] >= 2
    assert (run / "checkpoint.pt").exists() and (run / "best.json").exists()
    assert main([*common, "--max-deals", "4", "--resume"]) == 0
    log = [json.loads(line) for line in (run / "log.jsonl").read_text().splitlines()]
    assert log[-1]["deals"] >= 4 and log[-1]["steps"] > 0
    data = json.loads((run / "learned.json").read_text())
    assert data["info"]["deals"] == log[-1]["deals"]

    # The standard-library network scores moves as the torch network does.
    net = QNet(data)
    model = _model((8, 4))
    _load_weights(model, data)
    heuristic = HeuristicBot()
    for view in _views(1, 9)[::6]:
        codes = sorted(view.legal_codes())
        state, moves, _ = decision_features(view, codes, heuristic)
        base = net.hidden_state(state)
        mine = [net.q(base, m) for m in moves]
        with torch.no_grad():
            theirs = model(torch.tensor([state + m for m in moves])).reshape(-1).tolist()
        assert mine == pytest.approx(theirs, abs=1e-4)
    bot = LearnedBot(net)
    view = _views(1, 11)[20]
    assert bot.choose(view, random.Random(0)).move in view.legal_moves()


def test_the_learned_networks_as_the_search_s_move_prior() -> None:
    """``prior_from="learned"``: the root bias is the networks' value of each root move
    (``move_values``, from the view) less the best's, times ``prior``; the search plays legal
    moves with it, and refuses an unknown source."""
    bot = make_bot("ismcts", iterations=20, candidates=3, prior=2.0, prior_from="learned")
    pos = Position.new_deal(12)
    rng = random.Random(3)
    history: list[tuple[int, int]] = []
    checked = 0
    while not pos.is_over():
        seat = pos.to_move
        assert seat is not None
        view = View.from_position(pos, seat, history)
        if pos.phase_id == PHASE_PLAY and checked < 3:
            codes = sorted(view.legal_codes())
            values = move_values(view, codes)
            bias = bot._prior(view, rng, codes, view.determinize)
            best = max(values)
            assert bias == {c: 2.0 * (v - best) for c, v in zip(codes, values, strict=True)}
            assert max(bias.values()) == 0.0
            checked += 1
        code = int(bot.choose(view, rng).move)
        assert pos.is_legal(code)
        pos.push(code)
        history.append((seat, code))
    assert checked == 3
    with pytest.raises(SeepError, match="prior_from"):
        make_bot("ismcts", prior_from="oracle")
