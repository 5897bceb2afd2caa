"""Play offline in Debian's chromium (issue 27 item 2): the app (its lobby) is loaded once from
a real server, then the server stops and the browser goes offline (``context.set_offline(True)``)
and plays a whole deal against the bots by clicking, with the rules and the bots in Python in
the worker (Pyodide served by our server, kept by the app's service worker); a reload mid-deal
resumes it from IndexedDB, and the finished game is listed, replays and downloads as a
docs/format.md record, still offline."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from seep.web.offline_assets import pyodide_version
from seepkit.browser import TIMEOUT, app_server, play_turn, plays, wait_turn

pytestmark = [pytest.mark.browser, pytest.mark.filterwarnings("ignore::DeprecationWarning")]

if pyodide_version() is None:
    pytest.skip("Pyodide is not installed (make pyodide)", allow_module_level=True)


def _load_the_app_once(page: Any, base: str) -> None:
    """Open the lobby online, as a player who has never seen the offline table, and wait until
    the app's service worker has installed (every file kept, the offline table's too)."""
    page.add_init_script("localStorage.setItem('seep:offline-bot-delay', '20')")
    page.goto(base + "/")
    page.wait_for_function("() => !!navigator.serviceWorker.controller", timeout=TIMEOUT)


def _start(page: Any) -> None:
    page.select_option("#offline-players", "4")
    page.select_option("#offline-bots", "easy")
    page.select_option("#offline-length", "deal")
    page.click("#offline-start")
    page.wait_for_url("**/offline?game=*")
    page.wait_for_selector(".hand .card", timeout=TIMEOUT)


def test_offline_deal_with_a_reload(page: Any, tmp_path: Path) -> None:
    rng = random.Random(27)
    (tmp_path / "server").mkdir()
    with app_server(tmp_path / "server") as base:
        _load_the_app_once(page, base)
    # The server is gone, and the browser is offline too.
    page.context.set_offline(True)
    assert page.evaluate("() => fetch('/api/lobby').then(() => 'online', () => 'offline')") == (
        "offline"
    )
    page.reload()  # offline from here on: the pages come from the service worker
    page.click("#offline-link")
    page.wait_for_selector("#offline-form")
    page.wait_for_selector("#offline-ready:not([hidden])")
    _start(page)
    reloaded = False
    turns = 0
    while wait_turn(page):
        play_turn(page, rng)
        turns += 1
        if not reloaded and turns == 3:
            # Mid-deal: the tab reloads (offline), the deal comes back from IndexedDB.
            n = plays(page)
            page.wait_for_function(
                "(n) => Number(document.body.dataset.offlineSaved || 0) >= n", arg=n
            )
            page.reload()
            page.wait_for_selector(".hand .card", timeout=TIMEOUT)
            page.wait_for_function("(n) => Number(document.body.dataset.plays) >= n", arg=n)
            reloaded = True
    assert reloaded, "the deal ended before the reload"
    page.wait_for_selector("#match-winner")
    # The game is kept as finished (its record with it) before the summary leads on.
    page.wait_for_function("() => document.body.dataset.offlineStatus === 'finished'")
    # Nothing of the server's own features is shown offline.
    assert not page.locator("[data-act=share]").is_visible()
    assert not page.locator("#chat-box").is_visible()
    assert not page.locator("#record-btn").is_visible()

    page.click("#summary .dialog-buttons a[href='/offline']")
    page.wait_for_selector("#offline-games .offline-game")
    with page.expect_download() as got:
        page.click("#offline-games [data-download]")
    path = tmp_path / "record.json"
    got.value.save_as(path)
    record = json.loads(path.read_text())
    assert record["format"] == "seep/1" and len(record["deals"]) == 1
    assert "result" in record["deals"][0] and isinstance(record["seed"], int)

    page.click("#offline-games a[href^='/offline?replay=']")
    page.wait_for_selector("#replay-range", timeout=TIMEOUT)
    steps = int(page.get_attribute("#replay-range", "max") or 0)
    assert steps == len(record["deals"][0]["moves"])
    page.click("#replay-next")
    page.wait_for_selector("#replay-body .floor, #replay-body .card")
