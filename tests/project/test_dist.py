"""The wheels as built (``make dist``), each installed into a fresh virtual environment and
tested there, with no checkout on the path: the core's tests (tests/core, copied out and run
against the installed package), ``seep --version`` (compiled or pure), ``seep play --help`` and
``seep serve`` answering the lobby page with its static files from the installed package.

``make test`` builds the wheels first and sets ``SEEP_DIST=dist``: a missing wheel then fails
the test. Run alone, the tests look in ./dist and skip when ``make dist`` has not run.

The environments: seep itself comes from the wheel alone (``pip install --no-deps``, nothing of
the checkout on ``sys.path``, which each test asserts through ``seep.__file__``). The third-party
libraries the checks need (pytest, hypothesis; FastAPI, uvicorn and the rest of the ``web``
extra) are not fetched again from PyPI for every run: a ``.pth`` file in the fresh environment
adds the running interpreter's site-packages after the environment's own. A ``.pth`` line only
adds a folder, it runs none of that folder's own ``.pth`` files, so the checkout's editable
install there (a path hook) stays inert, and the environment's own seep comes first anyway.
"""

from __future__ import annotations

import os
import re
import shutil
import site
import subprocess
import sys
import sysconfig
import tomllib
from pathlib import Path

import pytest

import seep
from seepkit.server import serve

pytestmark = pytest.mark.dist

ROOT = Path(__file__).resolve().parents[2]
REQUIRED = bool(os.environ.get("SEEP_DIST"))
DIST = ROOT / os.environ.get("SEEP_DIST", "dist")

#: What the installed package's test run copies besides tests/core: the shared kit, the recorded
#: games, and the files the core's tests compare with (the SVG example and its picture).
COPIED = ["tests/core", "tests/seepkit", "tests/data", "examples/svg_position.py", "docs/images"]
#: Tests of the checkout's sources rather than of the package (they read src/).
SOURCE_ONLY = [
    "tests/core/test_position_fields.py::test_no_module_outside_the_engine_writes_a_field",
]


def _wheel(kind: str) -> Path:
    pattern = "*-py3-none-any.whl" if kind == "pure" else "*-cp*-cp*-*.whl"
    found = sorted(DIST.glob(pattern))
    if not found:
        if REQUIRED and (kind == "pure" or seep.COMPILED):
            pytest.fail(f"no {kind} wheel in {DIST} (make dist)")
        pytest.skip(f"no {kind} wheel in {DIST}: make dist builds it")
    return found[-1]


def _clean_env(venv: Path, kind: str, empty: Path) -> dict[str, str]:
    """This process's environment without the checkout: PYTHONPATH an empty folder."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "SEEP_"))}
    env["PYTHONPATH"] = str(empty)
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["VIRTUAL_ENV"] = str(venv)
    if kind == "pure":
        env["SEEP_PURE"] = "1"  # tests/core/test_pure_build.py then checks the core is pure
    return env


class Installed:
    """A fresh virtual environment with one wheel installed."""

    def __init__(self, root: Path, kind: str) -> None:
        self.kind = kind
        self.root = root
        self.venv = root / "venv"
        self.python = self.venv / "bin" / "python"
        self.empty = root / "empty"
        self.empty.mkdir()
        self.env = _clean_env(self.venv, kind, self.empty)

    def run(self, *cmd: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(c) for c in cmd],
            cwd=cwd or self.empty,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=900,
        )


@pytest.fixture(scope="module", params=["pure", "compiled"])
def installed(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Installed:
    kind = request.param
    wheel = _wheel(kind)
    env = Installed(tmp_path_factory.mktemp(f"wheel-{kind}"), kind)
    # Without the checkout's PYTHONPATH: pip would take its egg-info for an installed seep-game.
    clean = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", env.venv], check=True, env=clean)
    pip = [sys.executable, "-m", "pip", "--python", env.python, "install", "--quiet"]
    subprocess.run([*pip, "--no-deps", "--no-index", wheel], check=True, timeout=300, env=clean)
    purelib = env.run(env.python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))")
    ours = {sysconfig.get_path("purelib"), sysconfig.get_path("platlib"), *site.getsitepackages()}
    (Path(purelib.stdout.strip()) / "_seep_test_libraries.pth").write_text(
        "".join(f"{p}\n" for p in sorted(ours) if Path(p).is_dir())
    )
    return env


def test_seep_comes_from_the_wheel(installed: Installed) -> None:
    out = installed.run(
        installed.python, "-c", "import seep; print(seep.__file__, seep.COMPILED, seep.__version__)"
    )
    assert out.returncode == 0, out.stderr
    path, compiled, version = out.stdout.split()
    assert Path(path).is_relative_to(installed.venv), path
    assert compiled == str(installed.kind == "compiled")
    assert version == seep.__version__
    meta = installed.run(
        installed.python, "-c", "import importlib.metadata as m; print(m.version('seep-game'))"
    )
    assert meta.stdout.strip() == seep.__version__


def test_seep_version_says_which_core(installed: Installed) -> None:
    out = installed.run(installed.venv / "bin" / "seep", "--version")
    assert out.returncode == 0, out.stderr
    core = "compiled core (mypyc)" if installed.kind == "compiled" else "pure-Python core"
    assert out.stdout.strip() == f"seep {seep.__version__}, {core}"


def test_seep_play_help(installed: Installed) -> None:
    out = installed.run(installed.venv / "bin" / "seep", "play", "--help")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("usage: seep play")


def test_the_core_tests_pass_on_the_installed_package(installed: Installed) -> None:
    project = installed.root / "project"
    for name in COPIED:
        source, target = ROOT / name, project / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, target)
    # The checkout's pytest settings, without its paths: tests/ for the kit, nothing of src/.
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    markers = "".join(f"\n    {m}" for m in config["markers"])
    (project / "pytest.ini").write_text(
        "[pytest]\npythonpath = tests\n"
        f"doctest_optionflags = {config['doctest_optionflags']}\nmarkers ={markers}\n"
    )
    args = ["-q", "-p", "no:cacheprovider", "--import-mode=importlib", "--rootdir", project]
    args += ["-c", project / "pytest.ini", "-W", "error::pytest.PytestConfigWarning"]
    args += [f"--deselect={t}" for t in SOURCE_ONLY]
    if installed.kind == "pure":
        args += ["-m", "not default_build_only"]
    # The run itself says where seep came from; the conftest-free kit imports the installed one.
    probe = project / "tests" / "core" / "test_zz_installed.py"
    probe.write_text(
        "import seep\n\n\ndef test_installed():\n"
        f"    assert seep.__file__.startswith({str(installed.venv)!r}), seep.__file__\n"
    )
    out = installed.run(installed.python, "-m", "pytest", *args, "tests/core", cwd=project)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    passed = re.search(r"(\d+) passed", out.stdout)
    assert passed and int(passed.group(1)) > 100, out.stdout[-2000:]


def test_seep_serve_answers_the_lobby_with_its_static_files(installed: Installed) -> None:
    pytest.importorskip("fastapi")
    httpx = pytest.importorskip("httpx")
    serve_env = {"PYTHONPATH": str(installed.empty), "SEEP_PURE": ""}
    command = (str(installed.venv / "bin" / "seep"), "serve")
    with serve(installed.root, env=serve_env, command=command, cwd=installed.empty) as server:
        page = httpx.get(f"{server.base}/")
        assert page.status_code == 200 and "<title>Seep</title>" in page.text
        for asset in re.findall(r'(?:href|src)="(/static/[^"]+)"', page.text):
            answer = httpx.get(server.base + asset)
            assert answer.status_code == 200 and answer.content, asset
        assert httpx.get(f"{server.base}/how-to-play").status_code == 200
        assert httpx.get(f"{server.base}/api/lobby").json()["version"] == seep.__version__
        banner = server.log_text().splitlines()[0]
    core = "compiled core" if installed.kind == "compiled" else "pure-Python core"
    assert f"Seep {seep.__version__}" in banner and core in banner, banner


def test_the_readme_installs_extras_that_exist() -> None:
    """Every extra the README's install lines name is one of pyproject.toml's."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    named = set()
    for line in re.findall(r"^pip install .*$", readme, flags=re.M):
        for group in re.findall(r"\[([\w,-]+)\]", line):
            named.update(group.split(","))
    assert named, "the README names no extra to install"
    assert named <= set(extras), sorted(named - set(extras))


def test_the_sdist_holds_the_sources() -> None:
    """The sdist builds the same package: setup.py, pyproject.toml and every tracked file of
    src/seep that is a module or named by package-data (the web app's static files too)."""
    import tarfile

    found = sorted(DIST.glob("seep_game-*.tar.gz"))
    if not found:
        if REQUIRED:
            pytest.fail(f"no sdist in {DIST} (make dist)")
        pytest.skip(f"no sdist in {DIST}: make dist builds it")
    with tarfile.open(found[-1]) as sdist:
        names = {n.split("/", 1)[1] for n in sdist.getnames() if "/" in n}
    assert {"setup.py", "pyproject.toml", "README.md", "LICENSE", "PKG-INFO"} <= names
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: no list of tracked files")
    tracked = subprocess.run(
        ["git", "ls-files", "src/seep"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    wanted = {t for t in tracked if t.endswith((".py", ".js", ".css", ".html", ".json", ".svg"))}
    assert wanted, "git ls-files found nothing"
    missing = sorted(wanted - names)
    assert not missing, missing[:10]
