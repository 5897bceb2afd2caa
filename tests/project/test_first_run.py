"""The first run is the good run (issue 22): what a fresh clone shows a newcomer.

`make run` builds the compiled core before it serves, `seep serve` says which core runs, the
MIT notice ships, and the README is a short front door whose first screen shows both commands.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest

import seep
from seep import __main__ as cli
from seepkit.server import free_port

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_license_file_ships_and_pyproject_names_it() -> None:
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License")
    assert 'THE SOFTWARE IS PROVIDED "AS IS"' in text
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["license"] == "MIT"
    assert "LICENSE" in project["license-files"]


def test_the_readme_is_a_front_door() -> None:
    lines = README.splitlines()
    assert len(lines) <= 140, f"README has {len(lines)} lines: figures belong in docs/"
    first_screen = "\n".join(lines[:25])
    assert "make run" in first_screen and "make test" in first_screen
    # The button's own words (index.html), not an older label.
    index = (ROOT / "src/seep/web/static/index.html").read_text(encoding="utf-8")
    for quoted in re.findall(r'press "([^"]+)"', README):
        assert f">{quoted}<" in index, f"the README names a button {quoted!r} the lobby lacks"
    # Every local link of the README leads somewhere.
    for target in re.findall(r"\]\(((?:docs|examples|bench|deploy)/[^)#]+)", README):
        assert (ROOT / target).exists(), f"README links to a missing {target}"


def _prerequisites(target: str) -> list[str]:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    rule = re.search(rf"^{target}:(.*)$", makefile, re.M)
    assert rule, f"no {target} rule in the Makefile"
    return rule.group(1).split()


def test_make_run_builds_the_compiled_core_first() -> None:
    assert "$(COMPILED)" in _prerequisites("run")
    assert "$(COMPILED)" in _prerequisites("cluster")


def test_the_banner_names_the_core(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cli, "COMPILED", True)
    assert "compiled core" in cli.core_banner()
    assert not cli.core_banner().startswith("warning")
    monkeypatch.setattr(cli, "COMPILED", False)
    assert cli.core_banner().startswith("warning: ")
    assert "pure-Python core" in cli.core_banner() and "make core" in cli.core_banner()


def test_seep_serve_says_which_core_runs(tmp_path: Path) -> None:
    pytest.importorskip("uvicorn")
    port = free_port()
    env = dict(os.environ, SEEP_DATABASE_URL=f"sqlite:///{tmp_path / 'seep.db'}")
    proc = subprocess.Popen(
        [sys.executable, "-m", "seep", "serve", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=env,
        cwd=tmp_path,
        text=True,
    )
    try:
        assert proc.stdout is not None
        deadline = time.monotonic() + 60
        first = ""
        while time.monotonic() < deadline and not first.strip():
            first = proc.stdout.readline()
        expected = "compiled core (mypyc)" if seep.COMPILED else "pure-Python core"
        assert expected in first, first
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_the_guides_protocol_examples_answer_as_shown() -> None:
    """Each `$ echo '...' | seep protocol` example of the guide, run: its answer as printed
    there (``...`` stands for the elided part); those on a placeholder position ``P`` aside."""
    guide = (ROOT / "docs" / "getting-started.md").read_text(encoding="utf-8")
    examples = re.findall(r"^\$ echo '(.+)' \| seep protocol\n(.+)$", guide, re.M)
    runnable = [(request, answer) for request, answer in examples if '"position": P' not in request]
    assert len(runnable) >= 2
    for request, answer in runnable:
        got = subprocess.run(
            [sys.executable, "-m", "seep", "protocol"],
            input=request + "\n",
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        ).stdout.strip()
        pattern = ".*".join(map(re.escape, answer.split("...")))
        assert re.fullmatch(pattern, got), f"{request} answers {got}, the guide says {answer}"


def test_the_readmes_research_quick_start_runs() -> None:
    pytest.importorskip("gymnasium")
    block = re.search(r"## Research\n.*?```python\n(.*?)```", README, re.S)
    assert block, "the README's research quick start has no Python block"
    scope: dict[str, object] = {}
    exec(compile(block.group(1), "README.md", "exec"), scope)
    assert scope["mask"].sum() >= 1  # type: ignore[attr-defined]
