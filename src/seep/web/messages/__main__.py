"""``python -m seep.web.messages [path]``: write the protocol's JSON Schema file
(docs/web-protocol.schema.json by default)."""

from __future__ import annotations

import sys
from pathlib import Path

from .schema import SCHEMA_PATH, schema_text

if __name__ == "__main__":
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else SCHEMA_PATH
    out.write_text(schema_text(), encoding="utf-8")
    print(f"wrote {out}")
