"""Events over the app's HTTP API for the tests (docs/web.md "Events"): make one, wait for a
round's tables, wait for anything the runner does."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


def until(check: Callable[[], T], seconds: float = 120.0) -> T:
    """``check()``'s first true answer, asked every 20 ms (the runner works on its own clock);
    fails after ``seconds``."""
    deadline = time.monotonic() + seconds
    while True:
        found = check()
        if found:
            return found
        assert time.monotonic() < deadline, "it never happened"
        time.sleep(0.02)


def make_event(org: Any, **body: Any) -> int:
    """``org`` (a signed-in client) makes an event of ``body`` (by default named "Friday Seep",
    starting in an hour); its id."""
    r = org.post("/api/events", json={"name": "Friday Seep", "starts": time.time() + 3600, **body})
    assert r.status_code == 201, r.text
    made: int = r.json()["id"]
    return made


def round_open(store: Any, event: int, number: int) -> bool:
    """Round ``number`` of ``event`` is recorded and its tables are open."""
    rows = store.event_tables(event, number)
    return (
        store.event(event)["round"] == number
        and bool(rows)
        and all(r["table_status"] for r in rows)
    )
