"""The dataset loader (seep.integrations.dataset) against the core and the environments, on the
shipped sample tests/data/dataset (``seep dataset --deals 6 --bot heuristic --seed 1
--per-file 3 --out tests/data/dataset``)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

np = pytest.importorskip("numpy")

from seep.bots import make_bot  # noqa: E402
from seep.format import position_from_dict  # noqa: E402
from seep.integrations.actions import MoveBuilder, move_actions  # noqa: E402
from seep.integrations.dataset import (  # noqa: E402
    DatasetError,
    dataset_files,
    decisions,
    load_dataset,
    read_records,
)
from seep.integrations.features import observation  # noqa: E402
from seep.moves import Move  # noqa: E402
from seep.session import Session  # noqa: E402
from seep.view import View  # noqa: E402

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "dataset"


def _records() -> list[tuple[str, dict[str, Any]]]:
    return list(read_records(SAMPLE))


def test_the_sample_is_what_its_manifest_says() -> None:
    manifest = json.loads((SAMPLE / "manifest.json").read_text())
    assert manifest["format"] == "seep-dataset/1" and manifest["bot"] == "heuristic"
    files = dataset_files(SAMPLE)
    assert [f.name for f in files] == [f["name"] for f in manifest["files"]]
    records = _records()
    assert len(records) == manifest["deals"] == 6
    assert records[0][0].endswith("deals-000000.jsonl:1")
    for _, record in records:
        assert set(record) == {"format", "rules", "seed", "deals"}
        assert len(record["deals"]) == 1 and "result" in record["deals"][0]


def _reference(record: dict[str, Any]) -> list[tuple[Any, ...]]:
    """The decisions of a record computed another way: the engine's legal moves, every legal
    move's action path, the observation made from the seat's View (not the position), the
    return from the record's stored result."""
    deal = record["deals"][0]
    pos = position_from_dict(deal["start"])
    history: list[tuple[int, int]] = []
    score = deal["result"]["score"]
    out = []
    for mv in deal["moves"]:
        seat = pos.to_move
        assert seat is not None and mv["seat"] == seat
        code = int(Move.from_dict(mv))
        legal = pos.legal_codes()
        assert code in legal  # the action is legal
        paths = [move_actions(c, legal) for c in legal]
        mine = move_actions(code, legal)
        builder = MoveBuilder(legal)
        view = View.from_position(pos, seat, history)
        for k, a in enumerate(mine):
            # the allowed actions: the next step of every legal move that agrees so far
            allowed = {p[k] for p in paths if len(p) > k and p[:k] == mine[:k]}
            mask = np.zeros(133, np.int8)
            mask[sorted(allowed)] = 1
            team = seat & 1
            ret = score[team] - score[1 - team]
            out.append((observation(view, builder).copy(), mask, a, ret, seat))
            builder.apply(a)
        pos.push(code)
        history.append((seat, code))
    return out


def test_decisions_agree_with_a_replay_through_the_core() -> None:
    for where, record in _records():
        got = list(decisions(record, where))
        want = _reference(record)
        assert len(got) == len(want)
        for d, (obs, mask, action, ret, seat) in zip(got, want, strict=True):
            assert d.seat == seat and d.action == action and d.ret == ret
            np.testing.assert_array_equal(d.action_mask, mask)
            np.testing.assert_array_equal(d.observation, obs)
            assert d.action_mask[d.action] == 1


def test_the_packed_arrays_unpack_to_the_decisions() -> None:
    data = load_dataset(SAMPLE)
    flat = [d for where, record in _records() for d in decisions(record, where)]
    assert len(data) == len(flat) and data.deals == 6
    every = data.arrays()
    assert every.observation.dtype == np.float32 and every.action_mask.dtype == np.int8
    np.testing.assert_array_equal(every.observation, np.stack([d.observation for d in flat]))
    np.testing.assert_array_equal(every.action_mask, np.stack([d.action_mask for d in flat]))
    np.testing.assert_array_equal(every.action, [d.action for d in flat])
    np.testing.assert_array_equal(every.ret, [d.ret for d in flat])
    # the two teams' returns are opposite in every deal
    for k in range(data.deals):
        rows = data.deal == k
        teams = {int(s) & 1: float(r) for s, r in zip(data.seat[rows], data.ret[rows], strict=True)}
        assert teams[0] == -teams[1]
    fewer = load_dataset(SAMPLE, forced=False)
    assert 0 < len(fewer) < len(data)
    assert (fewer.arrays().action_mask.sum(axis=1) > 1).all()
    assert load_dataset(SAMPLE, max_deals=2).deals == 2


def test_batches_cover_every_decision_once_in_a_seeded_order() -> None:
    data = load_dataset(SAMPLE)
    n = len(data)

    def order(seed: int, shuffle: bool = True) -> list[tuple[int, float]]:
        return [
            (int(a), float(r))
            for b in data.batches(50, seed=seed, shuffle=shuffle)
            for a, r in zip(b.action, b.ret, strict=True)
        ]

    assert order(1) == order(1) != order(2)
    assert sorted(order(1)) == sorted(order(0, shuffle=False))
    assert order(0, shuffle=False) == list(
        zip(data.action.tolist(), data.ret.tolist(), strict=True)
    )
    sizes = [len(b.action) for b in data.batches(50, seed=0)]
    assert sum(sizes) == n and sizes[-1] == (n % 50 or 50)
    assert all(len(b.action) == 50 for b in data.batches(50, drop_last=True))
    train, valid = data.split(0.5, seed=3)
    assert len(train) + len(valid) == n and train.deals + valid.deals == 6
    assert set(train.where).isdisjoint(valid.where)


def test_a_policy_trained_on_it_plays_in_the_pettingzoo_env() -> None:
    """The same observations, masks and rewards as the environment gives: a deal of the
    environment played by heuristic bots, written as a record and loaded, then the loader's
    actions stepped through the environment."""
    pytest.importorskip("pettingzoo")
    from seep.integrations.pettingzoo import SeepAECEnv

    env = SeepAECEnv()
    env.reset(seed=5)
    session = Session(start=env.position.copy(), deals=1)
    bot = make_bot("heuristic")
    rng = random.Random(0)
    while not session.deal_over:
        seat = session.to_move
        assert seat is not None
        session.play(
            int(bot.choose(View.from_position(session.position, seat, session.history), rng).move)
        )
    record = session.to_record()
    for d in decisions(record):
        obs = env.observe(env.agent_selection)
        assert env.agent_selection == f"player_{d.seat}"
        np.testing.assert_array_equal(obs["observation"], d.observation)
        np.testing.assert_array_equal(obs["action_mask"], d.action_mask)
        env.step(d.action)
    assert env.terminations["player_0"]
    assert env.rewards["player_0"] == (d.ret if d.seat % 2 == 0 else -d.ret)


# --- bad files --------------------------------------------------------------------------------


def _copy(tmp_path: Path) -> Path:
    out = tmp_path / "ds"
    out.mkdir()
    for f in SAMPLE.iterdir():
        (out / f.name).write_text(f.read_text())
    return out


def _edit_line(path: Path, line: int, edit: Any) -> None:
    lines = path.read_text().splitlines()
    lines[line - 1] = edit(lines[line - 1])
    path.write_text("\n".join(lines) + "\n")


def test_a_bad_line_is_named_by_file_and_line(tmp_path: Path) -> None:
    ds = _copy(tmp_path)
    second = ds / "deals-000001.jsonl"
    _edit_line(second, 2, lambda s: s[:-10])
    with pytest.raises(DatasetError, match=r"deals-000001\.jsonl:2: not JSON"):
        load_dataset(ds)


def _edit_record(path: Path, line: int, change: Any) -> None:
    def edit(text: str) -> str:
        record = json.loads(text)
        change(record)
        return json.dumps(record)

    _edit_line(path, line, edit)


def test_an_illegal_move_a_wrong_result_and_a_missing_file_are_refused(tmp_path: Path) -> None:
    ds = _copy(tmp_path)
    first = ds / "deals-000000.jsonl"

    def illegal(record: dict[str, Any]) -> None:
        moves = record["deals"][0]["moves"]
        moves[5], moves[6] = moves[6], moves[5]

    _edit_record(first, 3, illegal)
    with pytest.raises(DatasetError, match=r"deals-000000\.jsonl:3: deal 1, move 6: "):
        load_dataset(ds)
    (first).write_text((SAMPLE / first.name).read_text())

    def wrong(record: dict[str, Any]) -> None:
        record["deals"][0]["result"]["score"][0] += 1

    _edit_record(first, 1, wrong)
    with pytest.raises(DatasetError, match=r"deals-000000\.jsonl:1: deal 1: recorded score"):
        load_dataset(ds)

    def unfinished(record: dict[str, Any]) -> None:
        del record["deals"][0]["result"]

    _edit_record(first, 1, unfinished)
    with pytest.raises(DatasetError, match=r":1: deal 1: no 'result'"):
        load_dataset(ds)
    first.unlink()
    with pytest.raises(DatasetError, match=r"incomplete.*deals-000000\.jsonl.*again"):
        load_dataset(ds)
    with pytest.raises(DatasetError, match="no such file"):
        load_dataset(tmp_path / "nothing")


def test_a_record_of_several_deals_numbers_them(tmp_path: Path) -> None:
    session = Session("standard", seed=4, deals=2)
    rng = random.Random(1)
    bot = make_bot("greedy")
    while not session.match_over:
        if session.deal_over:
            session.start_next_deal()
        seat = session.to_move
        assert seat is not None
        session.play(
            int(bot.choose(View.from_position(session.position, seat, session.history), rng).move)
        )
    path = tmp_path / "two.jsonl"
    path.write_text(json.dumps(session.to_record()) + "\n")
    data = load_dataset(path)
    assert data.deals == 2 and set(data.deal.tolist()) == {0, 1}
    assert data.where == [f"{path}:1, deal 1", f"{path}:1, deal 2"]
