"""The release's facts in one place: the version has one source (``seep.__version__``) that the
package metadata, CITATION.cff and CHANGELOG.md agree with, and the stable public API
(``seep.__all__``) loses no name without a changelog entry that names it under "Removed".
"""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import pytest

import seep

ROOT = Path(__file__).resolve().parents[2]

#: The stable public API as recorded at 0.2.0: what ``from seep import *`` gives. A name added
#: to ``seep.__all__`` joins here (and the changelog's "Added"); a name taken out of it must be
#: named under a "Removed" heading of CHANGELOG.md, or this test fails.
PUBLIC_API = {
    "COMPILED",
    "PRESETS",
    "IllegalMoveError",
    "InvalidPositionError",
    "InvalidRulesError",
    "MalformedMoveError",
    "Move",
    "NotationError",
    "Position",
    "Rules",
    "SeepError",
    "card_name",
    "card_value",
    "format_cards",
    "parse_card",
    "parse_cards",
}


def _source_version() -> str:
    """``__version__`` as written in src/seep/__init__.py (what setuptools' ``attr:`` reads)."""
    tree = ast.parse((ROOT / "src" / "seep" / "__init__.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "__version__":
            value = ast.literal_eval(node.value)
            assert isinstance(value, str)
            return value
    raise AssertionError("src/seep/__init__.py assigns no __version__")


def _removed_names(changelog: str) -> set[str]:
    """Every name in backquotes under a "### Removed" heading of the changelog."""
    names: set[str] = set()
    for section in re.split(r"^### ", changelog, flags=re.M)[1:]:
        heading, _, body = section.partition("\n")
        if heading.strip() == "Removed":
            body = re.split(r"^## ", body, flags=re.M)[0]
            names.update(n.removeprefix("seep.") for n in re.findall(r"`([\w.]+)`", body))
    return names


def test_the_version_has_one_source() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert "version" not in project and "version" in project["dynamic"]
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]
    assert setuptools["setuptools"]["dynamic"]["version"] == {"attr": "seep.__version__"}
    assert seep.__version__ == _source_version()
    assert re.fullmatch(r"\d+\.\d+\.\d+", seep.__version__)


def test_the_changelog_has_the_version() -> None:
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    versions = re.findall(r"^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d\d-\d\d)$", changelog, flags=re.M)
    assert versions, "no released version in CHANGELOG.md"
    assert versions[0][0] == seep.__version__, "the newest changelog entry is not this version"
    assert "## [Unreleased]" in changelog
    assert [v for v, _ in versions] == sorted(
        (v for v, _ in versions), key=lambda v: tuple(map(int, v.split("."))), reverse=True
    )


def test_citation_is_cff_1_2_0() -> None:
    yaml = pytest.importorskip("yaml")
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    # The keys CFF 1.2.0 requires, and the types its schema gives them.
    assert cff["cff-version"] == "1.2.0"
    assert isinstance(cff["message"], str) and cff["message"]
    assert isinstance(cff["title"], str) and cff["title"]
    assert isinstance(cff["authors"], list) and cff["authors"]
    for author in cff["authors"]:
        assert author.get("name") or author.get("family-names"), author
    assert cff["type"] in {"software", "dataset"}
    assert cff["version"] == seep.__version__
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert f"## [{seep.__version__}] - {cff['date-released']}" in changelog


def test_the_public_api_loses_no_name_silently() -> None:
    now = set(seep.__all__)
    assert len(now) == len(seep.__all__), "a name twice in seep.__all__"
    for name in now:
        assert hasattr(seep, name), f"seep.__all__ names {name}, which seep lacks"
    gone = PUBLIC_API - now - _removed_names((ROOT / "CHANGELOG.md").read_text(encoding="utf-8"))
    assert not gone, (
        f"{sorted(gone)} left seep.__all__ without a 'Removed' entry naming them in CHANGELOG.md"
    )
    new = now - PUBLIC_API
    assert not new, f"{sorted(new)} joined seep.__all__: record them in PUBLIC_API"


def test_removed_names_are_read_from_the_changelog() -> None:
    text = "## [1.0.0] - 2030-01-01\n\n### Removed\n\n- `seep.parse_card`, use `parse_cards`.\n"
    text += "\n## [0.9.0] - 2029-01-01\n\n### Added\n\n- `Position`\n"
    assert _removed_names(text) == {"parse_card", "parse_cards"}


def test_the_public_api_has_docstrings() -> None:
    for name in seep.__all__:
        obj = getattr(seep, name)
        if callable(obj):
            assert (obj.__doc__ or "").strip(), f"seep.{name} has no docstring"


def test_cibuildwheel_builds_the_supported_pythons_and_tests_them() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    cibw = config["tool"]["cibuildwheel"]
    pythons = config["project"]["requires-python"].removeprefix(">=")
    assert cibw["build"].split()[0] == "cp" + pythons.replace(".", "") + "-*"
    assert "seep.COMPILED" in cibw["test-command"][0]
    assert "tests/core" in cibw["test-command"][-1]
    assert (ROOT / "docs" / "releasing.md").read_text(encoding="utf-8").count("cibuildwheel") > 2
