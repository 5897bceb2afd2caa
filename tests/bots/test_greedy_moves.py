"""The greedy bot's choices and reasons, pinned: a digest of every decision (move code and
reason) the bot makes in whole deals it plays against itself, taken before its scoring loop
was made leaner. Its moves are the web's ``easy`` bot's and the arena's, so they must not
change with its speed; a change to its play changes the digest on purpose."""

from __future__ import annotations

import hashlib
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from seep.bots.greedy import GreedyBot
from seep.engine import Position
from seep.options import Rules
from seep.view import View

# sha256 of "code reason\n" over 40 deals under each rule set (seeds 0-39), one digest each.
PINNED = {
    "standard": "794c8733633c11011a87799fb26ac2991715f45c21ca50abca51f3377c953085",
    "family": "9302ada40af11e59efd9dcac48c3e72451687dbe37900557cb6e301ea5ad85db",
    "two_houses": "5543abb4c5fbb067bbfccb069bf949985f89a48c66cfa53b4ae5ea2b1cbdb577",
    "two_player": "b3ef09b28459936be8005d4e3fce5173ba64a0631c3b6d164e7dec7e855d8519",
}


def decisions_digest(rules_name: str, deals: int = 40) -> str:
    rules = Rules.parse(rules_name)
    bot = GreedyBot()
    digest = hashlib.sha256()
    for seed in range(deals):
        pos = Position.new_deal(seed, seed % rules.players, rules)
        rngs = [random.Random(f"{seed}:{s}") for s in range(rules.players)]
        history: list[tuple[int, int]] = []
        while not pos.is_over():
            seat = pos.to_move
            assert seat is not None
            d = bot.choose(View.from_position(pos, seat, history), rngs[seat])
            code = int(d.move)
            digest.update(f"{code:x} {d.reason}\n".encode())
            history.append((seat, code))
            pos.push(code)
    return digest.hexdigest()


@pytest.mark.parametrize("rules_name", sorted(PINNED))
def test_greedy_plays_as_pinned(rules_name: str) -> None:
    assert decisions_digest(rules_name) == PINNED[rules_name]


def test_the_warmth_bench_runs() -> None:
    """bench/bot_warmth.py (docs/web.md "Broadcast cost") runs and prints its figures."""
    bench = Path(__file__).resolve().parents[2] / "bench" / "bot_warmth.py"
    args = ["--deals", "2", "--sweep-mb", "1", "--batches", "3", "--json"]
    done = subprocess.run(
        [sys.executable, str(bench), *args], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout)
    assert set(figures["us"]) == {"warm", "cold", "batches of 3"}
    assert figures["decisions"] > 50 and all(v["choose"] > 0 for v in figures["us"].values())
