"""Driving the page in Debian's chromium (Playwright) for the browser tests (tests/web/browser,
whose conftest.py gives the ``server``, ``browser`` and ``page`` fixtures): the server they
drive, the clicks a player makes, screenshots, and the English words left on a Hindi page.

Importing it skips the importing test module where chromium or Playwright is missing."""

from __future__ import annotations

import os
import random
import re
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from seepkit.server import UVICORN, serve

sync_api = pytest.importorskip("playwright.sync_api")

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "docs" / "screenshots"
TIMEOUT = 60_000  # ms: the longest wait for the server or the bots (the machine may be busy)

if not os.path.exists(CHROMIUM):
    pytest.skip(
        f"{CHROMIUM} is missing (make test installs it: apt-get install chromium)",
        allow_module_level=True,
    )


@contextmanager
def app_server(tmp: Path, **env: str) -> Iterator[str]:
    """A real server: uvicorn in a subprocess, a fresh SQLite file, bots with a tiny delay, a
    60 s grace period (``env`` adds or changes settings); yields its URL."""
    env = {
        "SEEP_DATABASE_URL": f"sqlite:///{tmp / 'seep.db'}",
        "SEEP_BOT_DELAY": "0.02",
        "SEEP_GRACE_SECONDS": "60",
        **env,
    }
    args = ["--host", "127.0.0.1", "--log-level", "warning"]
    with serve(
        tmp,
        *args,
        env=env,
        command=UVICORN,
        ready="GET /",
        stop=signal.SIGTERM,
        cwd=tmp,
        log_name="server.log",
    ) as served:
        yield served.base


# --- driving the page ---------------------------------------------------------------------


def screenshot(page: Any, name: str, **kw: Any) -> None:
    """Save docs/screenshots/<name>.png when SEEP_SCREENSHOTS=1."""
    if os.environ.get("SEEP_SCREENSHOTS") == "1":
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.mouse.move(1, 1)  # no hover effect in the picture
        # No card in mid-flight (the sweep banner and the endless "thinking" dots may run).
        page.wait_for_function(
            "() => !document.querySelector('.ghost-card') && document.getAnimations().every("
            "a => a.playState !== 'running' || a.effect.getTiming().iterations === Infinity"
            " || (a.effect.target && a.effect.target.id === 'sweep-banner'))"
        )
        page.screenshot(path=str(SHOTS / f"{name}.png"), **kw)


def watch_csp(pg: Any, errors: list[str]) -> None:
    """Collect the page's Content-Security-Policy violations (chromium logs each one)."""
    pg.on(
        "console",
        lambda m: errors.append(m.text) if "Content Security Policy" in m.text else None,
    )


def phone_page(browser: Any, lang: str = "en") -> tuple[Any, Any, list[str]]:
    """A new context the size of a phone, in ``lang``, and its page: (context, page, the
    errors the page raised and the CSP violations it logged)."""
    ctx = browser.new_context(viewport={"width": 390, "height": 844})
    ctx.set_default_timeout(TIMEOUT)
    if lang != "en":
        ctx.add_init_script(f"localStorage.setItem('seep:lang', '{lang}')")
    pg = ctx.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    watch_csp(pg, errors)
    return ctx, pg, errors


def create_table(page: Any, base: str, name: str, **opts: Any) -> str:
    """Create a table in the lobby; returns its code, on the waiting page."""
    page.goto(base + "/")
    page.fill("#create-name", name)
    page.select_option("#create-bots", opts.get("bots", "easy"))
    page.select_option("#create-preset", opts.get("preset", "standard"))
    page.fill("#create-count", str(opts.get("deals", 1)))
    if opts.get("practice"):
        page.check("#create-practice")
    page.click("#create-btn")
    page.wait_for_url("**/t/*")
    page.wait_for_selector("#start-btn")
    return str(page.url.rsplit("/", 1)[1])


def start(page: Any) -> None:
    """The host starts (alone with bots: the hand shows once the bots have bid and opened)."""
    page.click("#start-btn")
    page.wait_for_selector(".hand .card")


def wait_turn(page: Any) -> bool:
    """Wait until it is this page's turn (True) or a deal summary shows (False), read in one
    look: a page that reloads at the summary (a new version, issue 27) has none for a moment."""
    for _ in range(3):
        try:
            seen = page.wait_for_function(
                "() => document.body.dataset.myturn === 'true' ? 'turn'"
                " : (document.querySelector('#summary') ? 'summary' : false)",
                timeout=TIMEOUT,
            )
            return bool(seen.json_value() == "turn")
        except sync_api.Error as exc:
            # The page reloaded under the wait (its context gone): look again in the new one.
            if "context was destroyed" not in str(exc) and "navigat" not in str(exc):
                raise
    raise AssertionError("the page kept reloading")


def plays(page: Any) -> int:
    return int(page.evaluate("() => Number(document.body.dataset.plays || 0)"))


def hand(page: Any) -> list[str]:
    return list(page.eval_on_selector_all(".hand .card", "els => els.map(e => e.dataset.c)"))


# A 44 x 44 CSS px square of an element that is on top (document.elementFromPoint on a 2 px
# grid inside its box): its centre {x, y} in the viewport and {dx, dy} from the box's top left,
# or null; the first such square from the top left, near a card's corner index. A finger's
# target (issue 27 item 5).
TAP_SPOT = """(el) => {
  const r = el.getBoundingClientRect(), step = 2, side = 22;  // 22 steps of 2 px: 44 px
  const xs = [], ys = [];
  for (let x = r.left + 1; x < r.right - 1; x += step) xs.push(x);
  for (let y = r.top + 1; y < r.bottom - 1; y += step) ys.push(y);
  const top = ys.map((y) => xs.map((x) => {
    const hit = document.elementFromPoint(x, y);
    return !!hit && el.contains(hit);
  }));
  for (let j = 0; j + side < ys.length; j++) {
    for (let i = 0; i + side < xs.length; i++) {
      let all = true;
      for (let b = j; all && b <= j + side; b++) {
        for (let a = i; all && a <= i + side; a++) all = top[b][a];
      }
      if (all) {
        const x = xs[i] + side, y = ys[j] + side;
        return {x, y, dx: x - r.left, dy: y - r.top};
      }
    }
  }
  return null;
}"""


def tap(locator: Any) -> None:
    """Click an element at the centre of a 44 x 44 px part of it that is on top (as a finger
    does: on a narrow phone a hand card's neighbour covers part of it), or at its left edge
    where it has no such part."""
    edge = {"x": 8, "y": 24}
    # A trial click: in view and still (a card dealt in may be in flight, the hand redrawn).
    locator.click(position=edge, trial=True)
    spot = locator.evaluate(TAP_SPOT)
    locator.click(position={"x": spot["dx"], "y": spot["dy"]} if spot else edge)


def choose_move(page: Any, rng: random.Random) -> None:
    """Pick a card and narrow its uses by clicking until the confirm button shows."""
    bids = page.locator("[data-act=play-now]")
    if bids.count():
        return
    cards = page.locator(".hand .card.playable")
    tap(cards.nth(rng.randrange(cards.count())))
    confirm = page.locator("#confirm-btn")
    for _ in range(6):
        if confirm.count():
            return
        floor = page.locator(".floor .pickable")
        if floor.count() and rng.random() < 0.6:
            floor.nth(rng.randrange(floor.count())).click()
            continue
        actions = page.locator("[data-act=action]:not([disabled])")
        if actions.count() > 1 and rng.random() < 0.5:
            actions.nth(rng.randrange(actions.count())).click()
            continue
        page.locator("[data-act=choose]").first.click()
    assert confirm.count(), "narrowing never came down to one move"


def show_choices(page: Any) -> None:
    """Select the hand card with the most uses (for the mid-deal screenshot)."""
    best, most = 0, -1
    cards = page.locator(".hand .card.playable")
    for i in range(cards.count()):
        cards.nth(i).click()
        n = page.locator("[data-act=choose]").count()
        if n > most:
            best, most = i, n
        page.click("[data-act=clear]")
    cards.nth(best).click()


def play_turn(page: Any, rng: random.Random) -> None:
    """Make one move on this page's turn and wait until the server has taken it."""
    bids = page.locator("[data-act=play-now]")
    if bids.count():
        confirm_and_wait(page, "[data-act=play-now]")
    else:
        choose_move(page, rng)
        confirm_and_wait(page)


def confirm_and_wait(page: Any, button: str = "#confirm-btn") -> None:
    """Click the button that plays the move and wait until the server has taken it."""
    # The move is taken when the turn, the play count, the phase or the hand changes (a
    # redeal keeps the bidder in the bid phase with a new hand), or a summary shows.
    before = [plays(page), page.evaluate("() => document.body.dataset.phase"), hand(page)]
    page.evaluate("() => document.querySelectorAll('.toast').forEach(t => t.remove())")
    page.locator(button).first.click()
    page.wait_for_function(
        "([n, ph, h]) => document.body.dataset.myturn !== 'true'"
        " || Number(document.body.dataset.plays) !== n || document.body.dataset.phase !== ph"
        " || [...document.querySelectorAll('.hand .card')].map(e => e.dataset.c).join()"
        " !== h.join()"
        " || !!document.querySelector('#summary') || !!document.querySelector('.toast.error')",
        arg=before,
    )
    toast = page.locator(".toast.error")
    assert not toast.count(), f"the server refused the move: {toast.first.inner_text()}"


def open_seat(page: Any, base: str, **body: Any) -> str:
    """Create a table by the API from the page (options the lobby does not offer, such as a
    5 s clock) and keep its seat token as the lobby would; returns the code."""
    res = page.evaluate(
        """async (body) => {
          const r = await fetch('/api/tables', {method: 'POST',
            headers: {'Content-Type': 'application/json'}, body: JSON.stringify(body)});
          const d = await r.json();
          const seat = JSON.stringify({token: d.token, seat: d.seat});
          localStorage.setItem('seep:token:' + d.code, seat);
          return d;
        }""",
        body,
    )
    return str(res["code"])


# --- English words on a Hindi page ----------------------------------------------------------

NAME = "Asha"
FRIEND = "Ravi"
CARD = r"(?:[A2-9TJQK]|10)[SHDC]"
# The notation of docs/notation.md: a move's code, read the same in every language.
NOTATION = re.compile(rf"^(?:bid \d+|redeal|{CARD}(?: (?:x|=\d+|\+\d+|\^\d+=\d+|H\d+|{CARD}))*)$")
# "K7PX2M": the sample room code in the lobby's join box.
ALLOWED = {"Seep", NAME, FRIEND, "K7PX2M"}
RULE = re.compile(r"\b[RA]\d+[a-z]?(?:\([a-z]\))?")


def english(texts: list[list[str]], code: str = "") -> list[tuple[str, str]]:
    """The (where, word) of each English word in the collected ``texts``."""
    found = []
    for where, text in texts:
        if NOTATION.match(text):
            continue
        bare = RULE.sub(" ", text.replace(code, " ") if code else text)
        for word in re.findall(r"[A-Za-z0-9]*[A-Za-z][A-Za-z0-9]*", bare):
            if word in ALLOWED or re.fullmatch(CARD, word):
                continue
            if re.fullmatch(r"[A-Z]", word):  # a compass letter, team A or B, a rank (K×2)
                continue
            found.append((where, word))
    return found


#: The password of the browser tests' accounts.
PASSWORD = "a long family password"


def account(base: str, name: str) -> Any:
    """A new account ``name`` on the server at ``base``, signed in: an ``httpx.Client`` with
    its session cookie (for what the test does over HTTP beside the browser)."""
    import httpx

    http = httpx.Client(base_url=base, timeout=20)
    r = http.post("/api/accounts", json={"name": name, "password": PASSWORD})
    assert r.status_code == 201, r.text
    return http


def desktop_page(browser: Any, errors: list[str], lang: str = "en") -> tuple[Any, Any]:
    """A desktop-sized page in ``lang`` (its context, the page) whose script errors and CSP
    reports land in ``errors``, and whose confirmation dialogs are accepted."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 860})
    ctx.set_default_timeout(TIMEOUT)
    if lang != "en":
        ctx.add_init_script(f"localStorage.setItem('seep:lang', '{lang}')")
    pg = ctx.new_page()
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.on("dialog", lambda d: d.accept())
    watch_csp(pg, errors)
    return ctx, pg


def sign_in(pg: Any, base: str, name: str, new: bool) -> None:
    """Sign ``name`` up (``new``) or in through the lobby's account panel."""
    pg.goto(base + "/")
    pg.wait_for_selector("#account[data-signed-in=no]")
    pg.fill("#account-name", name)
    pg.fill("#account-password", PASSWORD)
    pg.click("#sign-up-btn" if new else "#sign-in-btn")
    pg.wait_for_selector("#account[data-signed-in=yes]")
