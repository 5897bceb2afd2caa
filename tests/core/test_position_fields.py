"""The field list of ``Position`` is written once and every copy of it is in step.

``__slots__`` derives from :class:`seep.engine.Undo` (what a move changes) and
``FIXED_FIELDS`` (what it never changes); ``copy``, ``push``/``pop`` and ``to_dict`` must cover
every one of them, and no module outside the engine writes a field.
"""

from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest

from seep.engine import FIXED_FIELDS, Position, Undo
from seep.format import position_from_dict
from seep.options import Rules

FIELDS = (*Undo._fields, *FIXED_FIELDS)
SRC = Path(__file__).resolve().parents[2] / "src" / "seep"


def _state(pos: Position) -> dict[str, object]:
    return {f: getattr(pos, f) for f in FIELDS}


def _positions(n: int, seed: int) -> list[Position]:
    rng = random.Random(seed)
    out = []
    for rules in (Rules(), Rules(deal_before_bid=True), Rules(add_retention="team")):
        pos = Position.new_deal(rng.randrange(1 << 30), rng.randrange(4), rules)
        while not pos.is_over() and len(out) < n:
            out.append(pos.copy())
            pos.push(rng.choice(pos.legal_codes()))
        out.append(pos.copy())
    return out


def test_slots_are_the_undo_and_fixed_fields() -> None:
    expected = (*Undo._fields, *FIXED_FIELDS, "_stack", "_own")
    # Compiled by mypyc, Position is a native class: its attributes replace __slots__.
    compiled = getattr(Position, "__mypyc_attrs__", None)
    if compiled is not None:
        assert set(compiled) == set(expected)
    else:
        assert Position.__slots__ == expected
    assert len(set(FIELDS)) == len(FIELDS)


@pytest.mark.parametrize("seed", [1, 2])
def test_copy_push_pop_and_to_dict_cover_every_field(seed: int) -> None:
    rng = random.Random(seed)
    for pos in _positions(150, seed):
        before = _state(pos)
        twin = pos.copy()
        assert _state(twin) == before
        for name in ("hands", "hcards", "hcem", "howners", "captured", "sweeps"):
            assert getattr(twin, name) is not getattr(pos, name)  # a copy shares no list
        assert _state(position_from_dict(pos.to_dict())) == before  # to_dict writes them all
        if not pos.is_over():
            pos.push(rng.choice(pos.legal_codes()))
            record = pos.undo_records()[-1]  # push saved every Undo field, in Undo's order
            assert record._asdict() == {f: before[f] for f in Undo._fields}
            pos.pop()
            assert _state(pos) == before


def test_constructor_takes_every_field() -> None:
    for pos in _positions(60, 3):
        built = Position(
            pos.rules,
            pos.dealer,
            phase_id=pos.phase_id,
            bid=pos.bid,
            plays=pos.plays,
            hands=pos.hands,
            stock=pos.stock,
            loose=pos.loose,
            houses=pos.houses(),
            captured=pos.captured,
            sweeps=pos.sweeps,
            last_capture=pos.last_capture,
            match=(pos.match_diff, pos.match_baazis, pos.match_deals),
        )
        assert _state(built) == _state(pos)


def test_no_module_outside_the_engine_writes_a_field() -> None:
    """``x.hands = ...``, ``x.hcards[v] = ...``, ``x.loose |= ...`` on anything but ``self``
    (Position's own methods): only the engine lays out positions."""
    found = []
    for path in sorted(SRC.rglob("*.py")):
        if path.name == "engine.py":
            continue
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            targets: list[ast.expr] = []
            if isinstance(node, ast.Assign):
                targets = list(node.targets)
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
                targets = [node.target]
            for t in targets:
                for el in t.elts if isinstance(t, ast.Tuple) else [t]:
                    while isinstance(el, ast.Subscript):
                        el = el.value
                    if (
                        isinstance(el, ast.Attribute)
                        and el.attr in FIELDS
                        and isinstance(el.value, ast.Name)
                        and el.value.id in ("pos", "position", "p", "shell", "sample")
                    ):
                        found.append(f"{path.relative_to(SRC)}:{node.lineno}")
    assert not found, found


def _snapshot(pos: Position) -> dict[str, object]:
    """The fields by value (list contents copied), to see whether a list changed in place."""
    return {f: (v[:] if isinstance(v, list) else v) for f, v in _state(pos).items()}


@pytest.mark.parametrize("seed", [4, 5])
def test_moves_never_change_a_shared_list(seed: int) -> None:
    """advance changes a list in place only while the position alone refers to it (copy on
    write): a copy, an undo record and the position a pop restores keep what they held."""
    rng = random.Random(seed)
    for rules in (Rules(), Rules(players=2), Rules(deal_before_bid=True)):
        pos = Position.new_deal(rng.randrange(1 << 30), rng.randrange(rules.players), rules)
        start = _snapshot(pos)
        twin = pos.copy()
        held: list[tuple[Position, dict[str, object]]] = []
        while not pos.is_over():
            if rng.random() < 0.3:
                # push, a few advances, pop: back exactly, the record's lists untouched
                before = _snapshot(pos)
                pos.push(rng.choice(pos.legal_codes()))
                record = pos.undo_records()[-1]._asdict()
                for _ in range(rng.randrange(4)):
                    if pos.is_over():
                        break
                    pos.advance(rng.choice(pos.legal_codes()))
                assert {f: record[f] for f in Undo._fields} == {f: before[f] for f in Undo._fields}
                pos.pop()
                assert _snapshot(pos) == before
            pos.advance(rng.choice(pos.legal_codes()))
            if rng.random() < 0.2:
                copy = pos.copy()
                held.append((copy, _snapshot(copy)))
            for copy, seen in held:
                assert _snapshot(copy) == seen  # the position's moves never reach a copy
        assert _snapshot(twin) == start
