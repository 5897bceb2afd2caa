"""``seep dataset``: self-play records written per file, atomically, resumably, with a
manifest (seep.arena.dataset)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from seep.__main__ import main
from seep.session import replay_record

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "dataset"


def _files(d: Path) -> dict[str, str]:
    return {f.name: f.read_text() for f in sorted(d.glob("*.jsonl"))}


def test_the_shipped_sample_is_what_its_command_writes(tmp_path: Path) -> None:
    manifest = json.loads((SAMPLE / "manifest.json").read_text())
    args = manifest["command"].split()[1:]
    assert main([*args, "--out", str(tmp_path), "--no-progress"]) == 0
    assert _files(tmp_path) == _files(SAMPLE)
    mine = json.loads((tmp_path / "manifest.json").read_text())
    for key in ("format", "bot", "seed", "rules", "deals", "per_file", "files", "reproducible"):
        assert mine[key] == manifest[key]
    for line in (tmp_path / "deals-000001.jsonl").read_text().splitlines():
        moves = [m for m, _ in replay_record(json.loads(line)) if m is not None]
        assert len(moves) == 49  # the bid and 48 plays, each checked; the result too


def test_an_interrupted_dataset_is_finished_by_the_same_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["dataset", "--deals", "5", "--bot", "greedy", "--seed", "2", "--per-file", "2"]
    args += ["--out", str(tmp_path / "ds"), "--no-progress"]
    assert main(args) == 0
    whole = _files(tmp_path / "ds")
    assert list(whole) == ["deals-000000.jsonl", "deals-000001.jsonl", "deals-000002.jsonl"]
    assert [len(t.splitlines()) for t in whole.values()] == [2, 2, 1]
    manifest = json.loads((tmp_path / "ds" / "manifest.json").read_text())
    assert (manifest["bot"], manifest["seed"], manifest["deals"]) == ("greedy", 2, 5)
    assert manifest["version"] and manifest["reproducible"] is True
    # a run stopped while writing the second file: the first is whole, the second not there
    (tmp_path / "ds" / "deals-000001.jsonl").unlink()
    (tmp_path / "ds" / "deals-000001.jsonl.123.tmp").write_text('{"half a')
    assert main(args) == 0
    assert _files(tmp_path / "ds") == whole
    # more deals: the same dataset grown, its whole files kept, the last one written again
    grown = [*args[:2], "7", *args[3:]]
    before = (tmp_path / "ds" / "deals-000000.jsonl").stat().st_mtime_ns
    assert main(grown) == 0
    now = _files(tmp_path / "ds")
    assert [len(t.splitlines()) for t in now.values()] == [2, 2, 2, 1]
    assert (tmp_path / "ds" / "deals-000000.jsonl").stat().st_mtime_ns == before
    assert now["deals-000002.jsonl"].startswith(whole["deals-000002.jsonl"])
    fresh = tmp_path / "fresh"
    assert main([*grown[:-3], "--out", str(fresh), "--no-progress"]) == 0
    assert _files(fresh) == now
    capsys.readouterr()
    assert main(args) == 2
    assert "holds 7 deals: a dataset only grows" in capsys.readouterr().err
    # the same directory with other settings is refused
    capsys.readouterr()
    assert main([*args[:-3], "--seed", "3", "--out", str(tmp_path / "ds")]) == 2
    assert "holds another dataset (other seed)" in capsys.readouterr().err


def test_workers_write_the_same_files(tmp_path: Path) -> None:
    common = ["dataset", "--deals", "4", "--bot", "random", "--per-file", "1", "--no-progress"]
    assert main([*common, "--out", str(tmp_path / "one")]) == 0
    assert main([*common, "--workers", "2", "--out", str(tmp_path / "two")]) == 0
    assert _files(tmp_path / "one") == _files(tmp_path / "two")


def test_bad_arguments_give_one_line_and_status_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = str(tmp_path / "x")
    assert main(["dataset", "--deals", "2", "--bot", "nobody", "--out", out]) == 2
    assert "nobody" in capsys.readouterr().err
    assert main(["dataset", "--deals", "0", "--bot", "random", "--out", out]) == 2
    assert "at least 1" in capsys.readouterr().err
