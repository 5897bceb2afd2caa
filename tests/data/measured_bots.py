"""Regenerate tests/data/measured_bots.json: the moves of the bots whose strength
docs/strength.md measures (``policy``, ``hard``, ``expert``) on a set of positions.

A change that only makes the bots faster must keep these moves, or the arena figures of
docs/strength.md no longer describe the bots that ship (tests/bots/test_frozen_bots.py checks
them). Regenerate only when the bots are meant to play differently, and measure them again
(``python tests/data/measured_bots.py``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from frozen_bots import record

OUT = Path(__file__).with_name("measured_bots.json")
# The bots and how many positions each is checked on (expert's search is the costly one).
BOTS = {"policy": 40, "hard": 30, "expert": 8}


def main() -> int:
    OUT.write_text(json.dumps(record(BOTS, 200, 8000), indent=1) + "\n", encoding="utf-8")
    print(f"wrote {OUT}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
