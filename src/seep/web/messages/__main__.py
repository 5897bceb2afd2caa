"""``python -m seep.web.messages [path]``: write the protocol's JSON Schema file
(docs/web-protocol.schema.json by default)."""

from __future__ import annotations

import argparse
from pathlib import Path

from .schema import SCHEMA_PATH, schema_text

if __name__ == "__main__":
    # argparse, so that `--help` (or any option) is answered rather than taken for a file name.
    parser = argparse.ArgumentParser(
        prog="python -m seep.web.messages",
        description="Write the web protocol's JSON Schema (the messages' pydantic models).",
    )
    parser.add_argument("path", nargs="?", type=Path, default=SCHEMA_PATH, help="where to write")
    out: Path = parser.parse_args().path
    out.write_text(schema_text(), encoding="utf-8")
    print(f"wrote {out}")
