"""``python -m seep protocol``: JSON lines in, one response line per request, never dying."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from seep import protocol
from seep.protocol_server import MAX_LINE, handle_line, serve

SRC = str(Path(__file__).resolve().parents[2] / "src")


def run_server(lines: list[str]) -> list[dict[str, Any]]:
    env = {**os.environ, "PYTHONPATH": SRC}
    proc = subprocess.run(
        [sys.executable, "-m", "seep", "protocol"],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    return [json.loads(x) for x in proc.stdout.splitlines()]


def test_a_whole_deal_through_the_process() -> None:
    """new_deal, then legal/apply to the end, then score and next_deal, all over JSON lines."""
    pos = protocol.new_deal(5)
    requests = [json.dumps({"id": 0, "cmd": "new_deal", "seed": 5})]
    out = run_server(requests)
    assert out == [{"id": 0, "result": pos}]
    # Drive a deal one request at a time is slow in a subprocess; batch: compute locally, then
    # send every legal/apply pair and check the answers agree.
    batch = []
    expected = []
    i = 1
    while pos["phase"] != "over":
        moves = protocol.legal(pos)
        batch.append(json.dumps({"id": i, "cmd": "legal", "position": pos}))
        expected.append({"id": i, "result": moves})
        i += 1
        move = moves[len(moves) // 2]
        batch.append(json.dumps({"id": i, "cmd": "apply", "position": pos, "move": move}))
        pos = protocol.apply(pos, move)
        expected.append({"id": i, "result": pos})
        i += 1
    batch.append(json.dumps({"id": "s", "cmd": "score", "position": pos}))
    expected.append({"id": "s", "result": protocol.score(pos)})
    batch.append(json.dumps({"id": "n", "cmd": "next_deal", "position": pos, "seed": 3}))
    expected.append({"id": "n", "result": protocol.next_deal(pos, 3)})
    assert run_server(batch) == expected


def test_bad_input_gets_error_lines_and_the_process_goes_on() -> None:
    pos = protocol.new_deal(1)
    bad_pos = dict(pos, to_move=3)
    dup = json.loads(json.dumps(pos))
    dup["loose"][0] = dup["hands"][1][0]
    lines = [
        "this is not json",
        "[1, 2, 3]",
        json.dumps({"id": 1}),
        json.dumps({"id": 2, "cmd": "fly"}),
        json.dumps({"id": 3, "cmd": "legal"}),
        json.dumps({"id": 4, "cmd": "legal", "position": bad_pos}),
        json.dumps({"id": 5, "cmd": "legal", "position": dup}),
        json.dumps({"id": 6, "cmd": "apply", "position": pos, "move": {"action": "redeal"}}),
        json.dumps({"id": 7, "cmd": "apply", "position": pos, "move": {"action": "jump"}}),
        json.dumps({"id": 8, "cmd": "new_deal", "seed": 1, "rules": {"sweep_value": "x"}}),
        json.dumps({"id": 9, "cmd": "score", "position": pos}),
        json.dumps({"id": 10, "cmd": "legal", "position": pos, "extra": 1}),
        "",
        json.dumps({"id": 11, "cmd": "legal", "position": pos}),
    ]
    out = run_server(lines)
    codes = [r.get("error", {}).get("code") for r in out]
    assert codes == [
        "bad_json",
        "bad_request",
        "bad_request",
        "unknown_command",
        "bad_request",
        "invalid_position",
        "invalid_position",
        "illegal_move",
        "malformed_move",
        "bad_request",  # the request's own field 'rules' (not a position)
        "illegal_move",
        "bad_request",
        None,
    ]
    assert [r["id"] for r in out[2:]] == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]
    assert "to_move" in out[5]["error"]["message"]
    assert "twice" in out[6]["error"]["message"]
    assert "sweep_value" in out[9]["error"]["message"]
    assert out[-1]["result"] == protocol.legal(pos)


def test_oversized_line() -> None:
    big = json.dumps({"id": 1, "cmd": "legal", "position": {"x": "y" * (MAX_LINE + 10)}})
    out = io.StringIO()
    serve(io.StringIO(big + "\n" + json.dumps({"id": 2, "cmd": "new_deal", "seed": 1}) + "\n"), out)
    answers = [json.loads(x) for x in out.getvalue().splitlines()]
    assert answers[0]["error"]["code"] == "too_large"
    assert answers[1]["id"] == 2 and "result" in answers[1]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda kids: (
        st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=6), kids, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from(["legal", "apply", "score", "next_deal", "new_deal", "view", "bot", "nope"]),
    st.dictionaries(
        st.sampled_from(["position", "move", "seed", "dealer", "rules", "seat", "view", "bot"]),
        json_values,
        max_size=4,
    ),
)
def test_fuzzed_requests_always_get_one_answer(cmd: str, fields: dict[str, Any]) -> None:
    answer = handle_line(json.dumps({"id": 1, "cmd": cmd, **fields}))
    assert answer["id"] == 1
    assert ("result" in answer) != ("error" in answer)
    if "error" in answer:
        assert answer["error"]["code"] != "internal_error", answer


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_fuzzed_positions_never_crash(data: st.DataObject) -> None:
    """Mutating one field of a real position gives a result or a named error, never a crash."""
    pos = protocol.new_deal(data.draw(st.integers(0, 50)))
    pos = protocol.apply(pos, protocol.legal(pos)[0])
    key = data.draw(st.sampled_from(sorted(pos)))
    pos[key] = data.draw(json_values)
    answer = handle_line(json.dumps({"id": 1, "cmd": "legal", "position": pos}))
    if "error" in answer:
        assert answer["error"]["code"] in ("invalid_position", "bad_request"), answer


def test_view_and_bot_commands() -> None:
    """A program outside the project asks for a seat's view, then for a bot's move."""
    pos = protocol.new_deal(1)
    pos = protocol.apply(pos, protocol.legal(pos)[0])
    seat = pos["to_move"]
    view = protocol.view(pos, seat)
    out = run_server(
        [
            json.dumps({"id": 1, "cmd": "view", "position": pos, "seat": seat}),
            json.dumps({"id": 2, "cmd": "bot", "bot": "random", "view": view, "seed": 5}),
            json.dumps({"id": 3, "cmd": "bot", "bot": "nope", "view": view, "seed": 5}),
            json.dumps({"id": 4, "cmd": "view", "position": pos, "seat": 9}),
            json.dumps({"id": 5, "cmd": "bot", "bot": "random", "view": {"seat": 0}, "seed": 1}),
            json.dumps(
                {
                    "id": 6,
                    "cmd": "bot",
                    "bot": "random",
                    "view": protocol.view(pos, seat ^ 1),
                    "seed": 1,
                }
            ),
        ]
    )
    assert out[0] == {"id": 1, "result": view}
    assert isinstance(out[0]["result"]["hands"][seat ^ 1], int)  # no other seat's cards
    move = out[1]["result"]["move"]
    assert move in protocol.legal(pos) and out[1]["result"]["reason"]
    assert out[2]["error"]["code"] == "unknown_bot"
    assert out[3]["error"]["code"] == "bad_request"  # 'seat' 9: a bad field of the request
    assert out[4]["error"]["code"] == "invalid_position"  # the view itself is broken
    assert out[5]["error"]["code"] == "illegal_move" and "turn" in out[5]["error"]["message"]


def test_bad_request_fields_are_bad_requests() -> None:
    """A bad seed, dealer, rules, seat or bot name is the request's fault, not a position's."""
    pos = protocol.new_deal(1)
    lines = [
        json.dumps({"id": 1, "cmd": "new_deal", "seed": "x"}),
        json.dumps({"id": 2, "cmd": "new_deal", "seed": 1, "dealer": 7}),
        json.dumps({"id": 3, "cmd": "new_deal", "seed": 1, "rules": "nope"}),
        json.dumps({"id": 4, "cmd": "view", "position": pos, "seat": "N"}),
        json.dumps({"id": 5, "cmd": "next_deal", "position": pos, "seed": 1.5}),
        json.dumps({"id": 6, "cmd": "bot", "bot": 3, "view": {}, "seed": 1}),
        json.dumps({"id": 7, "cmd": "bot", "bot": "random", "view": {}, "seed": None}),
    ]
    for answer in run_server(lines):
        assert answer["error"]["code"] == "bad_request", answer
