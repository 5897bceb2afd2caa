"""Names are text on every page (issue 23 item 8): at a two-player table the opponent named
``<a href=//x.co>WIN</a>`` shows as those characters, never as a link, on the player's page and
a spectator's, through the waiting room, the table, the scores and the end-of-deal summary."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from seepkit.browser import TIMEOUT, open_seat

pytestmark = pytest.mark.browser

MARKUP = "<a href=//x.co>WIN</a>"


def _no_injected_link(pg: Any) -> None:
    assert pg.locator("a[href*='x.co']").count() == 0
    assert "x.co" not in pg.evaluate("() => [...document.links].map((a) => a.href).join(' ')")
    assert MARKUP in pg.locator("body").inner_text()


def test_a_name_with_markup_stays_text(server: str, browser: Any) -> None:
    ctx_host = browser.new_context(viewport={"width": 1200, "height": 820})
    ctx_watch = browser.new_context(viewport={"width": 1200, "height": 820})
    try:
        host, watcher = ctx_host.new_page(), ctx_watch.new_page()
        errors: list[str] = []
        for pg in (host, watcher):
            pg.set_default_timeout(TIMEOUT)
            pg.on("pageerror", lambda e: errors.append(str(e)))
        host.goto(server + "/")
        code = open_seat(host, server, name="Asha", preset="two_player", bots="easy", deals=1)
        joined = httpx.post(
            f"{server}/api/tables/{code}/join",
            json={"name": MARKUP, "seat": 1},
            timeout=10,
        )
        assert joined.status_code == 200, joined.text
        host.goto(f"{server}/t/{code}")
        host.wait_for_function(
            "(n) => (document.querySelector('.seat-list')?.innerText ?? '').includes(n)", arg=MARKUP
        )
        _no_injected_link(host)
        # The opponent connects (a socket with his token), so the table may start.
        host.click("#start-btn")
        host.wait_for_function("() => document.body.dataset.status === 'playing'")
        watcher.goto(f"{server}/t/{code}")
        watcher.wait_for_selector("text=Watch as a spectator")
        _no_injected_link(watcher)  # the page that offers to watch names the players too
        watcher.click("text=Watch as a spectator")
        watcher.wait_for_function("() => document.body.dataset.status === 'playing'")
        for pg in (host, watcher):
            pg.wait_for_selector("#seat-top .name")
            _no_injected_link(pg)
        assert not errors, errors
    finally:
        ctx_host.close()
        ctx_watch.close()
