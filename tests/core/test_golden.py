"""Golden data: perft counts, recorded games and playthroughs (tests/data, see generate.py).

The perft counts are also checked, to a smaller depth, against the independent brute-force
enumerator, so the stored numbers do not rest on the engine alone.
"""

from __future__ import annotations

import difflib
import json
import random
from pathlib import Path
from typing import Any

import pytest

from seep import protocol
from seep.engine import Position, perft
from seep.format import position_from_dict
from seep.moves import Move
from seep.notation import format_position
from seep.session import Session, replay_record
from seep.verify import verify_move
from seepkit.bruteforce import brute_legal, move_key

DATA = Path(__file__).resolve().parents[1] / "data"
PERFT = json.loads((DATA / "perft.json").read_text())


def brute_perft(position: dict[str, Any], depth: int) -> int:
    """Perft with the brute-force enumerator choosing the moves and the protocol applying them;
    at every node the engine's legal list must equal the enumerator's set."""
    if depth == 0 or position["phase"] == "over":
        return 1
    engine_moves = protocol.legal(position, limit=1_000_000)
    keys = brute_legal(position)
    assert {move_key(m) for m in engine_moves} == keys
    if depth == 1:
        return len(keys)
    return sum(brute_perft(protocol.apply(position, m), depth - 1) for m in engine_moves)


@pytest.mark.parametrize("case", PERFT, ids=lambda c: f"plays{c['position']['plays']}")
def test_perft_counts(case: dict[str, Any]) -> None:
    pos = position_from_dict(case["position"])
    got = [perft(pos, d) for d in range(1, len(case["counts"]) + 1)]
    assert got == case["counts"]
    assert pos.to_dict() == position_from_dict(case["position"]).to_dict()  # push/pop restored


@pytest.mark.parametrize("case", PERFT, ids=lambda c: f"plays{c['position']['plays']}")
def test_perft_against_bruteforce(case: dict[str, Any]) -> None:
    depth = min(3 if case["counts"][-1] < 20000 else 2, len(case["counts"]))
    assert brute_perft(case["position"], depth) == case["counts"][depth - 1]


RECORDS = sorted((DATA / "records").glob("*.json"))


@pytest.mark.parametrize("path", RECORDS, ids=lambda p: p.stem)
def test_recorded_games_replay(path: Path) -> None:
    """Every move of a stored record is legal, and the results and next deals agree."""
    record = json.loads(path.read_text())
    steps = list(replay_record(record))
    assert sum(1 for mv, _ in steps if mv is not None) == sum(
        len(d["moves"]) for d in record["deals"]
    )
    # Independently through the protocol: apply each move, score, and derive the next deal.
    for i, deal in enumerate(record["deals"]):
        pos = deal["start"]
        for mv in deal["moves"]:
            pos = protocol.apply(pos, {k: v for k, v in mv.items() if k != "seat"})
        if "result" in deal:
            got = protocol.score(pos)
            for key in ("points", "sweeps", "score"):
                assert got[key] == deal["result"][key]
        if i + 1 < len(record["deals"]):
            nxt = record["deals"][i + 1]["start"]
            assert nxt["match"] == protocol.next_deal(pos, 0)["match"]
            assert nxt["dealer"] == protocol.next_deal(pos, 0)["dealer"]


@pytest.mark.parametrize("path", RECORDS, ids=lambda p: p.stem)
def test_record_round_trip(path: Path) -> None:
    record = json.loads(path.read_text())
    again = Session.from_record(record).to_record()
    assert again["deals"] == record["deals"]


def test_tampered_record_is_rejected() -> None:
    record = json.loads(RECORDS[0].read_text())
    record["deals"][0]["moves"][5]["card"] = record["deals"][0]["moves"][6].get("card", "AS")
    with pytest.raises(ValueError, match="deal 1, move 6"):
        list(replay_record(record))
    record = json.loads(RECORDS[0].read_text())
    record["deals"][0]["result"]["score"] = [0, 0]
    with pytest.raises(ValueError, match="recorded score"):
        list(replay_record(record))


PLAYTHROUGHS = sorted((DATA / "playthroughs").glob("*.txt"))


def regenerate(lines: list[str]) -> list[str]:
    """Replay a playthrough's moves from its first position, writing what the engine sees."""
    from seep.notation import parse_move, parse_position

    out = [lines[0], lines[1]]
    pos = parse_position(lines[1])
    for line in lines[2:]:
        if line.startswith("legal "):
            out.append(f"legal {len(pos.legal_codes())}")
        elif line.startswith("move "):
            m = parse_move(line[5:])
            verify_move(pos, m)
            pos.push(m)
            out.append(f"move {Move(m)}")
            out.append(format_position(pos))
    return out


@pytest.mark.parametrize("path", PLAYTHROUGHS, ids=lambda p: p.stem)
def test_playthrough(path: Path) -> None:
    lines = path.read_text().splitlines()
    got = regenerate(lines)
    if got != lines:
        diff = "\n".join(difflib.unified_diff(lines, got, "stored", "engine", lineterm=""))
        pytest.fail(f"playthrough {path.name} differs:\n{diff[:4000]}")


def test_random_moves_seeded_reproducible() -> None:
    a = Position.new_deal(9)
    b = Position.new_deal(9)
    ra, rb = random.Random(3), random.Random(3)
    while not a.is_over():
        a.push(ra.choice(a.legal_codes()))
        b.push(rb.choice(b.legal_codes()))
    assert a.to_dict() == b.to_dict()
