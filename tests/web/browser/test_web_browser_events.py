"""The lobby's list of events in Debian's chromium (docs/web.md "Events"): an event a player
made shows with its name as text, its kind, format and start, in English and in Hindi."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest

# The whole module is skipped where chromium or Playwright is missing, as its neighbours are.
pytest.importorskip("seepkit.browser")

pytestmark = pytest.mark.browser

NAME = "Friday <b>Seep</b>"


def _make_event(server: str) -> None:
    with httpx.Client(base_url=server, timeout=10) as http:
        r = http.post("/api/accounts", json={"name": "Organiser", "password": "a long password"})
        assert r.status_code == 201, r.text
        body = {"name": NAME, "format": "two", "rounds": 3, "starts": time.time() + 3600}
        r = http.post("/api/events", json=body)
        assert r.status_code == 201, r.text


def test_the_lobby_lists_the_events(server: str, page: Any) -> None:
    _make_event(server)
    page.goto(server + "/")
    page.wait_for_function(
        "(n) => (document.querySelector('#event-list')?.innerText ?? '').includes(n)", arg=NAME
    )
    row = page.locator("#event-list li").first.inner_text()
    assert "Swiss" in row and "Two players" in row and "3 rounds" in row and "Organiser" in row
    assert page.locator("#event-list b").count() == 0  # the name is text, not markup
    page.evaluate("() => localStorage.setItem('seep:lang', 'hi')")
    page.reload()
    page.wait_for_function(
        "(n) => (document.querySelector('#event-list')?.innerText ?? '').includes(n)", arg=NAME
    )
    row = page.locator("#event-list li").first.inner_text()
    assert "स्विस" in row and "दो खिलाड़ी" in row and "3 दौर" in row
    assert "Swiss" not in row and "rounds" not in row
