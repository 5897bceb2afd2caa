"""The frozen bots (``expert@1``, ``hard@1``, ``heuristic@1``) make the moves today's
``expert``, ``hard`` and ``heuristic`` made when they were frozen, for the same view and seed
(tests/data/frozen_bots.json, written by tests/data/frozen_bots.py before the bots changed)."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

import pytest

from seep.arena.frozen import FROZEN, make_arena_bot
from seep.bots import DIFFICULTIES, make_bot

sys.path.insert(0, str(Path(__file__).parents[1] / "data"))
from frozen_bots import replay

DATA: dict[str, list[dict[str, Any]]] = json.loads(
    (Path(__file__).parents[1] / "data" / "frozen_bots.json").read_text(encoding="utf-8")
)
# The moves of the bots docs/strength.md measures, as they were measured
# (tests/data/measured_bots.py).
MEASURED: dict[str, list[dict[str, Any]]] = json.loads(
    (Path(__file__).parents[1] / "data" / "measured_bots.json").read_text(encoding="utf-8")
)


@pytest.mark.parametrize("name", sorted(DATA))
def test_frozen_bot_plays_the_frozen_moves(name: str) -> None:
    bot = make_arena_bot(f"{name}@1")
    for row in DATA[name]:
        move = bot.choose(replay(row), random.Random(row["seed"])).move
        assert int(move) == row["move"], f"{name}@1 changed its move at {row}"


@pytest.mark.parametrize("name", sorted(MEASURED))
def test_the_measured_bots_still_play_their_measured_moves(name: str) -> None:
    """``policy``, ``hard`` and ``expert`` make the moves they made when docs/strength.md
    measured them: a change meant only to make them faster (issue 14's per-move limits) keeps
    every move, so the arena figures still describe the bots that ship."""
    bot = make_bot(name)
    for row in MEASURED[name]:
        move = bot.choose(replay(row), random.Random(row["seed"])).move
        assert int(move) == row["move"], f"{name} changed its move at {row}"


def test_frozen_bots_are_not_offered_to_players() -> None:
    assert not set(FROZEN) & set(DIFFICULTIES)
    assert all("@" not in name for name in DIFFICULTIES)


@pytest.mark.parametrize("name", ["hard", "expert"])
def test_new_search_with_its_additions_off_is_the_old_one(name: str) -> None:
    """``ismcts`` with the old settings (inference, endgame solver, value network and prior
    all off, their defaults) still plays the old moves."""
    iterations = {"hard": 300, "expert": 1500}[name]
    bot = make_bot("ismcts", iterations=iterations, candidates=3)
    for row in DATA[name][:6]:
        move = bot.choose(replay(row), random.Random(row["seed"])).move
        assert int(move) == row["move"]


def test_the_bots_never_import_the_arena() -> None:
    """The arena measures the bots, so it sits above them: no module of ``seep.bots`` (``train``
    included, which is handed the arena's self-play) imports it, and the frozen search lives in
    the arena (issue 24)."""
    import ast

    bots = Path(__file__).resolve().parent.parent / "src" / "seep" / "bots"
    for path in sorted(bots.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                names = [("." * node.level) + (node.module or "")]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            for name in names:
                assert name not in ("..arena", "seep.arena") and not name.startswith(
                    ("..arena.", "seep.arena.")
                ), f"{path.name} imports {name}"
    assert not (bots / "ismcts_v1.py").exists()
