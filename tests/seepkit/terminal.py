"""``seep play`` in a pseudo-terminal (pexpect) for the terminal tests (tests/cli): the prompts
it shows, its environment, starting it and waiting for its end."""

from __future__ import annotations

import os
import sys
from typing import Any

import pytest

pexpect = pytest.importorskip("pexpect")

TIMEOUT = 30
# Prompts of seep play (regular expressions).
CARD = r"card number or name \(\? hint, h help\)> "
CHOOSE = r"Choose a number \(b: back, h: help\)> "
BID = r"Your bid \(([^:]*): [^\r\n]*\? hint, h help\)> "
# The echo of your move; a card with one use and a bid are played without a list.
PLAYED = r"S \(you\)(:| plays) [^\r\n]+"
NEXT_DEAL = r"Press Enter for the next deal "
SAVE_TO = r"Save to which file\? \[[^\]]*\] "


def terminal_env() -> dict[str, str]:
    """This environment with no colour, unbuffered output and an xterm (a "dumb" terminal
    would pin rich to 80 columns)."""
    return dict(os.environ, NO_COLOR="1", PYTHONUNBUFFERED="1", TERM="xterm")


def spawn(*args: str, rows: int = 50, cols: int = 160) -> Any:
    """``python -m seep ARGS`` in a pseudo-terminal of ``rows`` x ``cols``."""
    return pexpect.spawn(
        sys.executable,
        ["-m", "seep", *args],
        env=terminal_env(),
        encoding="utf-8",
        timeout=TIMEOUT,
        dimensions=(rows, cols),
    )


def play_args(seed: int, *extra: str) -> list[str]:
    """``seep play`` on deal ``seed`` against easy bots that do not wait."""
    return ["play", "--seed", str(seed), "--bots", "easy", "--delay", "0", *extra]


def finish(child: Any) -> int:
    """Wait for the process to end; its exit status."""
    child.expect(pexpect.EOF)
    child.close()
    assert "Traceback" not in (child.before or "")
    return int(child.exitstatus if child.exitstatus is not None else -1)
