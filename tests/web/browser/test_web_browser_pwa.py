"""The installable app in Debian's chromium (issue 27 items 1 and 5): the service worker installs
and controls the page, chromium finds the app installable, the shell loads from the cache with
the network gone, and a new version waits for the end of the deal before the page reloads; the
lobby and the table at phone sizes with no sideways scroll, touch targets of 44 px, the hand
whole in landscape.

The new version mid-game: the server of that test reads ``SEEP_SHELL_VERSION_FILE``, a file
whose contents join the shell's version (seep.web.pwa); the test writes it anew mid-deal and
asks the registration to look for an update, as the page does every 15 minutes and at each
load. With ``SEEP_SCREENSHOTS=1`` the phone tests save docs/screenshots/phone-*.png.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from seepkit.browser import (
    TAP_SPOT,
    TIMEOUT,
    app_server,
    create_table,
    hand,
    play_turn,
    screenshot,
    start,
    wait_turn,
    watch_csp,
)

pytestmark = [pytest.mark.browser, pytest.mark.filterwarnings("ignore::DeprecationWarning")]

CONTROLLED = "() => !!navigator.serviceWorker.controller"


def new_page(chromium: Any, width: int, height: int, errors: list[str]) -> tuple[Any, Any]:
    """A context of its own at ``width`` x ``height`` and its page, collecting its errors."""
    ctx = chromium.new_context(viewport={"width": width, "height": height})
    ctx.set_default_timeout(TIMEOUT)
    pg = ctx.new_page()
    pg.on("pageerror", lambda e: errors.append(str(e)))
    watch_csp(pg, errors)
    return ctx, pg


def test_the_app_installs_and_its_shell_works_offline(
    server: str, browser: Any, tmp_path: Path
) -> None:
    """A profile on disk (chromium finds nothing installable in an incognito context, which
    every new_context is): the worker controls the page, chromium's installability checks
    (CDP ``Page.getInstallabilityErrors``, those of the install prompt) find no error, and with
    the context offline the lobby, How to play and a table's page load from the cache."""
    from seepkit.browser import CHROMIUM, CHROMIUM_ARGS

    errors: list[str] = []
    ctx = browser.browser_type.launch_persistent_context(
        str(tmp_path / "profile"),
        executable_path=CHROMIUM,
        headless=True,
        args=CHROMIUM_ARGS,
        viewport={"width": 390, "height": 844},
    )
    ctx.set_default_timeout(TIMEOUT)
    pg = ctx.pages[0] if ctx.pages else ctx.new_page()
    pg.on("pageerror", lambda e: errors.append(str(e)))
    watch_csp(pg, errors)
    try:
        pg.goto(server + "/")
        pg.wait_for_function(CONTROLLED)
        cdp = ctx.new_cdp_session(pg)
        manifest = cdp.send("Page.getAppManifest")
        assert manifest["errors"] == [], manifest["errors"]
        assert manifest["url"].endswith("/manifest.webmanifest")
        installable = cdp.send("Page.getInstallabilityErrors")
        assert installable["installabilityErrors"] == [], installable
        cached = pg.evaluate(
            "async () => { const k = await caches.keys(); const c = await caches.open(k[0]);"
            " return [k, (await c.keys()).map(r => new URL(r.url).pathname)]; }"
        )
        assert len(cached[0]) == 1 and cached[0][0].startswith("seep-shell-")
        assert {"/", "/how-to-play", "/static/js/app.js", "/static/seep.css"} <= set(cached[1])
        assert not [p for p in cached[1] if p.startswith(("/api/", "/ws/", "/metrics", "/readyz"))]

        ctx.set_offline(True)
        pg.reload()
        pg.wait_for_selector("#create-form")
        assert pg.evaluate(CONTROLLED)
        pg.goto(server + "/how-to-play")
        pg.wait_for_selector("main.doc h1")
        pg.goto(server + "/t/ABCDEF")  # any page route: the cached index.html
        pg.wait_for_selector("#table-view:not([hidden])")
        ctx.set_offline(False)
    finally:
        ctx.close()
    # Offline, the lobby's list and the table's socket fail: the page says so, it does not throw.
    assert not errors, errors


@pytest.fixture
def release(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A server of its own whose shell version also covers the file it yields with its URL."""
    version_file = tmp_path / "release"
    version_file.write_text("1\n")
    with app_server(tmp_path, SEEP_SHELL_VERSION_FILE=str(version_file)) as base:
        yield base, version_file


def worker_version(pg: Any) -> str:
    """The version of the worker that controls the page (it answers a "version" message)."""
    return str(
        pg.evaluate(
            """() => new Promise((resolve) => {
              navigator.serviceWorker.addEventListener('message', (e) => resolve(e.data.version),
                {once: true});
              navigator.serviceWorker.controller.postMessage({type: 'version'});
            })"""
        )
    )


def served_version(base: str) -> str:
    """The version of the worker the server serves now."""
    import httpx

    return httpx.get(base + "/sw.js").text.split('const VERSION = "', 1)[1][:16]


def test_a_new_version_waits_for_the_end_of_the_deal(
    browser: Any, release: tuple[str, Path]
) -> None:
    """Mid-deal a new version only shows its banner; the page reloads into it once the first
    deal of two is over (its summary opened in the old page, and shows again in the new one),
    and the old cache is gone. The match's last summary offers "Update now" instead of
    reloading, and so does the lobby with a field in use; the button loads the new version."""
    base, version_file = release
    errors: list[str] = []
    ctx, pg = new_page(browser, 390, 844, errors)
    try:
        pg.goto(base + "/")
        pg.wait_for_function(CONTROLLED)
        first = worker_version(pg)
        create_table(pg, base, "Asha", bots="easy", deals=2)
        start(pg)
        rng = random.Random(27)
        assert wait_turn(pg)
        play_turn(pg, rng)
        # Marks of this page: a reload loses the first; sessionStorage keeps the second.
        pg.evaluate(
            """() => { window.samePage = true;
              document.addEventListener('seep:summary',
                () => sessionStorage.setItem('test:summary-before-reload', 'yes')); }"""
        )
        version_file.write_text("2\n")  # a new release
        second = served_version(base)
        assert second != first
        pg.evaluate("async () => (await navigator.serviceWorker.getRegistration()).update()")
        pg.wait_for_selector("#update-banner[data-state=busy]")
        text = pg.inner_text("#update-banner")
        assert "end of the deal" in text and not pg.locator("#update-now").count()
        screenshot(pg, "phone-update")
        while wait_turn(pg):
            assert pg.evaluate("() => window.samePage === true"), (
                "reloaded mid-deal",
                pg.evaluate(
                    "() => [location.href, {...document.body.dataset}, "
                    "sessionStorage.getItem('test:summary-before-reload'), performance.now()]"
                ),
            )
            play_turn(pg, rng)
        # The deal is over: the page lets the new worker in and reloads into it.
        pg.wait_for_function("() => window.samePage === undefined", timeout=TIMEOUT)
        pg.wait_for_function(CONTROLLED)
        assert pg.evaluate("() => sessionStorage.getItem('test:summary-before-reload')") == "yes"
        assert worker_version(pg) == second
        keys = pg.evaluate("() => caches.keys()")
        assert keys == [f"seep-shell-{second}"]
        # The summary between the two deals, drawn again from the server's state.
        pg.wait_for_selector("#summary")
        assert not pg.locator("#update-banner").count()

        # The last deal: a version out mid-deal waits; the match's last summary (which a
        # reload would not show again) offers "Update now" and does not reload by itself.
        pg.click("#next-btn")
        pg.wait_for_selector("#summary", state="detached")
        pg.evaluate("() => { window.samePage = true; }")
        version_file.write_text("3\n")
        pg.evaluate("async () => (await navigator.serviceWorker.getRegistration()).update()")
        pg.wait_for_selector("#update-banner[data-state=busy]")
        while wait_turn(pg):
            play_turn(pg, rng)
        pg.wait_for_selector("#update-banner[data-state=ready] #update-now")
        assert pg.evaluate("() => window.samePage === true"), "the match's summary reloaded"
        assert pg.locator("#summary").count()
        third = served_version(base)
        pg.click("#update-now")
        pg.wait_for_function("() => window.samePage === undefined", timeout=TIMEOUT)
        pg.wait_for_function(CONTROLLED)
        assert worker_version(pg) == third

        # In the lobby, a player typing his name is not interrupted: he is offered the update.
        pg.goto(base + "/")
        pg.wait_for_function(CONTROLLED)
        pg.focus("#create-name")
        pg.evaluate("() => { window.samePage = true; }")
        version_file.write_text("4\n")
        fourth = served_version(base)
        pg.evaluate("async () => (await navigator.serviceWorker.getRegistration()).update()")
        pg.wait_for_selector("#update-banner[data-state=ready] #update-now")
        assert pg.evaluate("() => window.samePage === true")
        pg.click("#update-now")
        pg.wait_for_function("() => window.samePage === undefined", timeout=TIMEOUT)
        pg.wait_for_function(CONTROLLED)
        assert worker_version(pg) == fourth
    finally:
        ctx.close()
    assert not errors, errors


# The page's interactive elements, each with the box a finger must hit (a checkbox's or a
# radio's label), those smaller than 44 x 44 CSS px, and the page's sideways overflow.
FIT = """() => {
  const small = [];
  const sel = "button, a[href], input, select, summary, [data-act], [role=button],"
    + " .card.playable, .loose-card.pickable, .house.pickable";
  for (const el of document.querySelectorAll(sel)) {
    const tick = el.matches("input[type=checkbox], input[type=radio]");
    const box = tick ? el.closest("label") || el : el;
    const r = box.getBoundingClientRect();
    if (!r.width || !r.height || getComputedStyle(box).visibility === "hidden") continue;
    if (r.width < 44 || r.height < 44) {
      const name = el.id ? "#" + el.id : [...el.classList].join(".");
      const text = (el.textContent || "").trim().slice(0, 24);
      small.push(`${el.tagName.toLowerCase()} ${name} "${text}"`
        + ` ${Math.round(r.width)}x${Math.round(r.height)}`);
    }
  }
  return {scroll: document.documentElement.scrollWidth, width: innerWidth, small};
}"""

# Each card of the hand: in the viewport, and its corner index (rank and suit) on top at its
# centre, not under the next card.
HAND = """() => [...document.querySelectorAll('.hand .card')].map((c) => {
  const r = c.getBoundingClientRect();
  const i = c.querySelector('.idx').getBoundingClientRect();
  const hit = document.elementFromPoint(i.left + i.width / 2, i.top + i.height / 2);
  return {card: c.dataset.c, inside: r.left >= 0 && r.top >= 0 && r.right <= innerWidth
    && r.bottom <= innerHeight, readable: !!hit && c.contains(hit)};
})"""


# No card of the hand in flight (dealt in, or the one just played leaving).
HAND_STILL = """() => !document.querySelector('.ghost-card') && document.getAnimations().every(
  (a) => a.playState !== 'running' || a.effect.getTiming().iterations === Infinity
    || !(a.effect.target instanceof Element && a.effect.target.closest('.hand')))"""


def targets(pg: Any, where: str) -> None:
    """Every hand card has a 44 x 44 px part on top (a neighbour covers no more: one row
    where that leaves room, else two), and a tap at its centre selects that card."""
    cards = pg.locator(".hand .card")
    pg.mouse.move(1, 1)  # no card lifted by the pointer's hover
    pg.wait_for_function(HAND_STILL)
    # The rows from the layout (offsetTop): a card dealt in may still be in flight.
    tops = set(pg.eval_on_selector_all(".hand .card", "els => els.map(e => e.offsetTop)"))
    for i in range(cards.count()):
        card = cards.nth(i)
        card.scroll_into_view_if_needed()
        pg.mouse.move(1, 1)
        pg.wait_for_function(HAND_STILL)  # the card picked before settled back too
        spot = card.evaluate(TAP_SPOT)
        assert spot, f"{where}: hand card {i + 1} of {cards.count()} has no 44 px target"
        if "playable" in (card.get_attribute("class") or ""):
            pg.mouse.click(spot["x"], spot["y"])  # where the finger lands, whatever is there
            pg.wait_for_selector("[data-act=clear]")
            assert "selected" in (cards.nth(i).get_attribute("class") or ""), where
            pg.click("[data-act=clear]")
            pg.wait_for_selector("[data-act=clear]", state="detached")
    # At 360 and 390 px upright a hand of 10 or more takes two rows; on its side, one.
    assert len(tops) == (1 if where.endswith("x390") else 2), f"{where}: rows at {tops}"


def fits(pg: Any, where: str) -> None:
    """No sideways scroll and no interactive element under 44 x 44 px."""
    got = pg.evaluate(FIT)
    assert got["scroll"] <= got["width"], f"{where}: scrolls sideways ({got})"
    assert not got["small"], f"{where}: touch targets under 44 px: {got['small']}"


@pytest.mark.parametrize(("width", "height"), [(360, 640), (390, 844), (844, 390)])
def test_phone_sizes_fit_with_big_targets(
    server: str, browser: Any, width: int, height: int
) -> None:
    """The lobby, a table's waiting room, my turn, a card picked with its uses listed and (at
    360 x 640) the deal's summary: no sideways scroll, every target 44 px or more; on a phone
    held sideways the whole hand is on the screen, each card's index readable."""
    errors: list[str] = []
    ctx, pg = new_page(browser, width, height, errors)
    size = f"{width}x{height}"
    try:
        pg.goto(server + "/")
        pg.wait_for_selector("#create-form")
        fits(pg, f"lobby {size}")
        if width == 360:
            screenshot(pg, "phone-lobby-360")
        create_table(pg, server, "Asha", bots="easy")
        fits(pg, f"waiting room {size}")
        start(pg)
        rng = random.Random(width)
        assert wait_turn(pg)
        fits(pg, f"my turn {size}")
        # My bid first; then a full hand (the bidder opens with 4 cards and gets the rest).
        while not pg.locator(".hand .card.playable").count() or len(hand(pg)) < 10:
            play_turn(pg, rng)
            assert wait_turn(pg)
        targets(pg, size)
        pg.evaluate("() => document.querySelector('.hand .card.playable').click()")
        pg.wait_for_selector("[data-act=clear]")
        fits(pg, f"a card picked {size}")
        if height < width:
            pg.evaluate("() => window.scrollTo(0, 0)")
            cards = pg.evaluate(HAND)
            assert len(cards) >= 10
            assert all(c["inside"] for c in cards), f"hand off the screen: {cards}"
            assert all(c["readable"] for c in cards), f"hidden card corners: {cards}"
            screenshot(pg, "phone-landscape")
        else:
            pg.locator(".hand").scroll_into_view_if_needed()
            cards = pg.evaluate(HAND)
            assert all(c["readable"] for c in cards), f"hidden card corners: {cards}"
            if width == 360:
                screenshot(pg, "phone-table-360")
        if width == 360:
            pg.click("[data-act=clear]")
            while wait_turn(pg):
                fits(pg, f"mid-deal {size}")
                play_turn(pg, rng)
            fits(pg, f"summary {size}")
    finally:
        ctx.close()
    assert not errors, errors
