"""The rulebook and the format in the repo (docs/rules.md, docs/format.md).

docs/rules.md must carry every rule number (R1-R47, A1-A27, R2P1-R2P15), every worked example
(E1-E13, T1-T3) with its move counts, and every option with the default the engine uses
(``seep.options``). That is checked from the repository alone, so it works in a clean clone.
When the specification itself sits next to the repository (``../shared``, or the directory
named by ``SEEP_SPEC_DIR``), docs/rules.md and docs/format.md are also checked against it:
the same numbers, the same option rows, the same move counts, the same JSON examples.

The last tests check that nothing tracked in the repository links or points outside it, and
that every ``rules.md#anchor`` / ``format.md#anchor`` cited anywhere exists.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from seep.moves import Move
from seep.options import PRESETS, Rules

ROOT = Path(__file__).resolve().parents[2]
RULES_MD = ROOT / "docs" / "rules.md"
FORMAT_MD = ROOT / "docs" / "format.md"
# The specification is kept outside the repository; this file is the one place that names it
# (the scan for links leaving the repository skips this file for that reason).
SPEC_DIR = Path(os.environ.get("SEEP_SPEC_DIR", ROOT.parent / "shared"))
SPEC_RULES = SPEC_DIR / "RULES.md"
SPEC_FORMAT = SPEC_DIR / "FORMAT.md"
THIS_FILE = Path(__file__).resolve().relative_to(ROOT).as_posix()

RULE_NUMBERS = (
    [f"R{n}" for n in range(1, 21)]
    + [f"R21{x}" for x in "abcdefgh"]
    + [f"R{n}" for n in range(22, 48)]
)
AMBIGUITIES = [f"A{n}" for n in range(1, 28)]
TWO_PLAYER_RULES = [f"R2P{n}" for n in range(1, 16)]
EXAMPLES = [f"E{n}" for n in range(1, 14)]
TWO_PLAYER_EXAMPLES = ["T1", "T2", "T3"]

#: The options §12.3 introduces, with the specification's defaults (the engine has them as
#: well: test_option_defaults_match_the_engine checks its values).
SPEC_ONLY_DEFAULTS: dict[str, Any] = {
    "players": 4,
    "second_deal": True,
    "majority_tie": "none",
    "min_score_effect": "lose_baazi",
}
SPEC_ONLY_PRESETS: dict[str, dict[str, Any]] = {"two_player": {"players": 2}}  # and the engine's

#: The move counts of the worked examples, as the specification states them.
LEGAL_MOVES = {
    "E1": "4 (variant: 5).",
    "E3": "(a) 13, (b) 7.",
    "E4": "N 6, W 6, E 5.",
    "E5": "7 (one Q: 5; variant: 7).",
    "E6": "3 (with JS JH 8H: 7).",
    "E7": "4.",
    "E8": "5.",
    "E9": "N 3; E with 4D 8C: 2; E with 4D TH: 3.",
    "E10": "2.",
    "E11": "3.",
}
TWO_PLAYER_COUNTS = {"T2": ["**6** moves", "**10**", "**3**"], "T3": ["12 legal moves"]}


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _anchors(text: str) -> list[str]:
    return re.findall(r'<a id="([^"]+)"></a>', text)


def _rule_labels(text: str) -> list[str]:
    """Rule labels in bold (``**R27.``, ``**R21a.``, ``**R2P4.``) in order of appearance."""
    return re.findall(r"\*\*(R2P\d+|R\d+[a-h]?)\.", text)


def _ambiguity_labels(text: str) -> list[str]:
    """The first cell of each row of the A-table."""
    return re.findall(r"^\| (?:<a id=\"a\d+\"></a>)?(A\d+) \|", text, re.M)


def _example_labels(text: str) -> list[str]:
    return re.findall(r"^### (E\d+)\b", text, re.M)


def _two_player_example_labels(text: str) -> list[str]:
    return re.findall(r"^(?:<a id=\"t\d\"></a>\n)?\*\*(T\d)\.", text, re.M)


def _sections(text: str, labels: list[str], pattern: str) -> dict[str, str]:
    """The text from each label's heading to the next heading of the same kind."""
    starts = [(m.start(), m.group(1)) for m in re.finditer(pattern, text, re.M)]
    out: dict[str, str] = {}
    for i, (pos, label) in enumerate(starts):
        end = starts[i + 1][0] if i + 1 < len(starts) else len(text)
        out[label] = text[pos:end]
    assert set(labels) <= set(out), sorted(set(labels) - set(out))
    return out


def _example_sections(text: str) -> dict[str, str]:
    sections = _sections(text, EXAMPLES, r"^### (E\d+)\b")
    # E13 runs to the invariants; cut it there.
    sections["E13"] = sections["E13"].split("\n## ", 1)[0]
    return sections


def _legal_moves_line(section: str) -> str | None:
    m = re.search(r"^Legal moves: (.+)$", section, re.M)
    return m.group(1).strip() if m else None


def _option_rows(text: str) -> dict[str, list[str]]:
    """Option tables: key -> [type, default, alternatives, controls] (first table wins)."""
    rows: dict[str, list[str]] = {}
    for line in text.splitlines():
        m = re.match(r"^\| `(\w+)` \|(.*)\|\s*$", line)
        if m:
            cells = [c.strip() for c in m.group(2).split("|")]
            if len(cells) == 4:
                rows.setdefault(m.group(1), cells)
    return rows


def _json_value(cell: str) -> Any:
    """The first backticked JSON value of a table cell: ``"maximal"``, ``false``, ``null``."""
    m = re.match(r"`([^`]+)`", cell)
    assert m, f"no `value` in {cell!r}"
    return json.loads(m.group(1))


def _backticked_values(cell: str) -> list[Any]:
    return [json.loads(v) for v in re.findall(r"`([^`]+)`", cell)]


def _preset_rows(text: str) -> dict[str, dict[str, Any]]:
    """The preset table of §3: name -> the options it sets."""
    presets: dict[str, dict[str, Any]] = {}
    for m in re.finditer(r'^\| <a id="preset-(\w+)"></a>`\w+` \| ([^|]*) \|', text, re.M):
        options: dict[str, Any] = {}
        for key, value in re.findall(r"`(\w+): ([^`]+)`", m.group(2)):
            options[key] = json.loads(value)
        presets[m.group(1)] = options
    return presets


# --- docs/rules.md on its own (works in a clean clone) --------------------------------------


def test_rulebook_says_it_follows_the_specification() -> None:
    for path in (RULES_MD, FORMAT_MD):
        head = _text(path)[:1200]
        assert "follows the specification" in head, path
        assert "outside this repository" in head, path


def test_every_number_is_in_the_rulebook_in_order_with_its_anchor() -> None:
    text = _text(RULES_MD)
    anchors = _anchors(text)
    assert len(anchors) == len(set(anchors)), "duplicate anchors"
    labels = _rule_labels(text)
    assert labels == RULE_NUMBERS + TWO_PLAYER_RULES
    assert _ambiguity_labels(text) == AMBIGUITIES
    assert _example_labels(text) == EXAMPLES
    assert _two_player_example_labels(text) == TWO_PLAYER_EXAMPLES
    wanted = (
        ["r21"]
        + [n.lower() for n in RULE_NUMBERS + AMBIGUITIES + TWO_PLAYER_RULES]
        + [n.lower() for n in EXAMPLES + TWO_PLAYER_EXAMPLES]
        + [f"inv-{i}" for i in range(1, 9)]
        + [f"inv2-{i}" for i in range(1, 6)]
        + [f"s{i}" for i in range(1, 13)]
        + [f"s6-{i}" for i in range(1, 17)]
        + [f"s12-{i}" for i in range(1, 8)]
    )
    missing = [a for a in wanted if a not in anchors]
    assert not missing, missing


def test_option_defaults_match_the_engine() -> None:
    rows = _option_rows(_text(RULES_MD))
    engine = Rules().to_dict()
    assert set(rows) == set(engine) | set(SPEC_ONLY_DEFAULTS)
    for key, value in engine.items():
        assert _json_value(rows[key][1]) == value, key
        anchor = f'<a id="opt-{key}"></a>'
        assert anchor in _text(RULES_MD), anchor
    for key, value in SPEC_ONLY_DEFAULTS.items():
        assert _json_value(rows[key][1]) == value, key


def test_listed_alternatives_are_accepted_by_the_engine() -> None:
    rows = _option_rows(_text(RULES_MD))
    for key in Rules().to_dict():
        for alternative in _backticked_values(rows[key][2]):
            assert getattr(Rules.parse({key: alternative}), key) == alternative


def test_presets_match_the_engine() -> None:
    presets = _preset_rows(_text(RULES_MD))
    assert set(presets) == set(PRESETS) | set(SPEC_ONLY_PRESETS)
    for name, preset in PRESETS.items():
        assert Rules.parse(presets[name]) == preset, name
    for name, options in SPEC_ONLY_PRESETS.items():
        assert presets[name] == options, name


def test_two_player_option_table_agrees_with_section_3() -> None:
    text = _text(RULES_MD)
    section = text.split('<a id="s12-3"></a>', 1)[1].split('<a id="s12-4"></a>', 1)[0]
    rows = _option_rows(section)
    assert set(rows) == set(SPEC_ONLY_DEFAULTS)
    for key, cells in rows.items():
        assert _json_value(cells[1]) == SPEC_ONLY_DEFAULTS[key]


def test_worked_examples_keep_their_move_counts() -> None:
    text = _text(RULES_MD)
    sections = _example_sections(text)
    for label, count in LEGAL_MOVES.items():
        assert _legal_moves_line(sections[label]) == count, label
    for label in ("E2", "E12", "E13"):
        assert _legal_moves_line(sections[label]) is None, label
    two = _sections(text, TWO_PLAYER_EXAMPLES, r"^\*\*(T\d)\.")
    for label, phrases in TWO_PLAYER_COUNTS.items():
        for phrase in phrases:
            assert phrase in two[label], (label, phrase)


def test_invariants_are_all_there() -> None:
    text = _text(RULES_MD)
    section = text.split('<a id="s11"></a>', 1)[1].split('<a id="s12"></a>', 1)[0]
    assert re.findall(r"^(\d)\. <a id=\"inv-\d\"></a>", section, re.M) == list("12345678")
    two = text.split('<a id="s12-7"></a>', 1)[1]
    assert re.findall(r"^(\d)\. <a id=\"inv2-\d\"></a>", two, re.M) == list("12345")


def test_format_examples_are_read_by_the_engine() -> None:
    """The example moves of docs/format.md parse, and write back the same (lists as sets)."""

    def canonical(move: dict[str, Any]) -> dict[str, Any]:
        return {k: sorted(map(str, v)) if isinstance(v, list) else v for k, v in move.items()}

    text = _text(FORMAT_MD)
    lines = re.findall(r"```jsonl\n(.*?)```", text, re.S)[0].splitlines()
    assert len(lines) == 6
    for line in lines:
        move = json.loads(line)
        assert canonical(Move.from_dict(move).to_dict()) == canonical(move)
    for block in re.findall(r"```json\n(.*?)```", text, re.S):
        json.loads(block)


# --- against the specification, when it is next to the repository ---------------------------

needs_spec = pytest.mark.skipif(
    not SPEC_RULES.is_file(), reason="the specification is not next to the repository"
)


@needs_spec
def test_same_numbers_as_the_specification() -> None:
    spec, ours = _text(SPEC_RULES), _text(RULES_MD)
    assert _rule_labels(spec) == _rule_labels(ours)
    assert _ambiguity_labels(spec) == _ambiguity_labels(ours)
    assert _example_labels(spec) == _example_labels(ours)
    assert _two_player_example_labels(spec) == _two_player_example_labels(ours)
    spec_numbered = re.findall(r"^### (\d+(?:\.\d+)?) ", spec, re.M) + re.findall(
        r"^## (\d+)\. ", spec, re.M
    )
    for number in spec_numbered:
        anchor = "s" + number.replace(".", "-")
        assert f'<a id="{anchor}"></a>' in ours, f"section {number}"


@needs_spec
def test_same_option_rows_as_the_specification() -> None:
    spec, ours = _option_rows(_text(SPEC_RULES)), _option_rows(_text(RULES_MD))
    assert spec == ours
    spec_12 = _option_rows(_text(SPEC_RULES).split("### 12.3", 1)[1])
    ours_12 = _option_rows(_text(RULES_MD).split('<a id="s12-3"></a>', 1)[1])
    assert spec_12 == ours_12


@needs_spec
def test_same_presets_as_the_specification() -> None:
    spec = _text(SPEC_RULES)
    presets = _preset_rows(_text(RULES_MD))
    paragraph = spec.split("**Presets**", 1)[1].split("\n\n", 1)[0]
    found = dict(re.findall(r"`(\w+)` = ([^;(]+?)(?: \(|;|\.)", paragraph))
    assert set(found) == set(presets)
    for name, text in found.items():
        options = {k: json.loads(v) for k, v in re.findall(r"`(\w+): ([^`]+)`", text)}
        assert options == presets[name], name


@needs_spec
def test_same_move_counts_as_the_specification() -> None:
    spec = _example_sections(_text(SPEC_RULES))
    ours = _example_sections(_text(RULES_MD))
    for label in EXAMPLES:
        assert _legal_moves_line(spec[label]) == _legal_moves_line(ours[label]), label
    for label, count in LEGAL_MOVES.items():
        assert _legal_moves_line(spec[label]) == count, label
    spec_t = _sections(_text(SPEC_RULES), TWO_PLAYER_EXAMPLES, r"^\*\*(T\d)\.")
    for label, phrases in TWO_PLAYER_COUNTS.items():
        for phrase in phrases:
            assert phrase in spec_t[label], (label, phrase)


@needs_spec
def test_same_cards_in_the_examples_as_the_specification() -> None:
    """Every card, house and group written in an example is written in ours too."""
    token = r"H\d+\[[^\]]*\](?:\{[^}]*\})?|\{[2-9TJQKA][SHDC][^}]*\}|\b[2-9TJQKA][SHDC]\b"
    spec = _example_sections(_text(SPEC_RULES))
    ours = _example_sections(_text(RULES_MD))
    for label in EXAMPLES:
        want = set(re.findall(token, spec[label]))
        have = set(re.findall(token, ours[label]))
        assert want <= have, (label, sorted(want - have))
    spec_t = _text(SPEC_RULES).split("### 12.6", 1)[1].split("### 12.7", 1)[0]
    ours_t = _text(RULES_MD).split('<a id="s12-6"></a>', 1)[1].split('<a id="s12-7"></a>', 1)[0]
    assert set(re.findall(token, spec_t)) <= set(re.findall(token, ours_t))


@pytest.mark.skipif(not SPEC_FORMAT.is_file(), reason="the specification is not next to the repo")
def test_format_examples_match_the_specification() -> None:
    def blocks(text: str) -> list[Any]:
        return [json.loads(b) for b in re.findall(r"```json\n(.*?)```", text, re.S)]

    ours = blocks(_text(FORMAT_MD))
    for block in blocks(_text(SPEC_FORMAT)):
        assert block in ours
    spec_actions = re.findall(r"^\| `(\w+)` \| ([^|]+) \|", _text(SPEC_FORMAT), re.M)
    our_actions = re.findall(r"^\| `(\w+)` \| ([^|]+) \|", _text(FORMAT_MD), re.M)
    assert spec_actions and set(spec_actions) <= set(our_actions)


# --- nothing tracked points outside the repository ------------------------------------------


def _tracked_text_files() -> list[tuple[str, str]]:
    try:
        out = subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, text=True
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    files = []
    for name in filter(None, out.split("\0")):
        path = ROOT / name
        if name == THIS_FILE or not path.is_file():
            continue
        try:
            files.append((name, path.read_text(encoding="utf-8")))
        except UnicodeDecodeError:
            continue  # images and other binary files
    return files


_LEAVING = re.compile(r"\.\./shared|shared/(?:RULES|FORMAT)\.md|\b(?:RULES|FORMAT)\.md")


def test_no_tracked_file_points_outside_the_repository() -> None:
    hits = []
    for name, text in _tracked_text_files():
        for number, line in enumerate(text.splitlines(), 1):
            if _LEAVING.search(line):
                hits.append(f"{name}:{number}: {line.strip()}")
    assert not hits, "\n".join(hits)


def test_markdown_links_stay_inside_the_repository() -> None:
    hits = []
    for name, text in _tracked_text_files():
        if not name.endswith(".md"):
            continue
        base = (ROOT / name).parent
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue
            path = (base / target.split("#", 1)[0]).resolve()
            if not path.is_relative_to(ROOT) or not path.exists():
                hits.append(f"{name}: {target}")
    assert not hits, hits


def test_cited_anchors_exist() -> None:
    anchors = {
        "rules.md": set(_anchors(_text(RULES_MD))),
        "format.md": set(_anchors(_text(FORMAT_MD))),
    }
    hits = []
    for name, text in _tracked_text_files():
        for doc, anchor in re.findall(r"\b(rules\.md|format\.md)#([\w-]+)", text):
            if anchor not in anchors[doc]:
                hits.append(f"{name}: {doc}#{anchor}")
    assert not hits, hits
