"""A Hindi page shows no English: every screen a player reads, in a real browser.

With the language set to Hindi, the test visits the lobby (with an open table's row), the join
page a friend opens from a link, a table in the bid phase and in the play phase (with a dead
card's reason and a refused move's error, worded from the server's rule and arguments), the
end-of-deal summary, the replay and How to play. On each it collects every visible text node
and the aria-label, title and placeholder of the visible elements, and fails on any run of
ASCII letters that is not an allowed token: card codes (TH), the names the test typed, the
table's code, "Seep", rule numbers (R21f(b)), compass and team letters (N, A), the language
switch (marked lang="en"), and the game's notation (docs/notation.md), which is the same in every
language. The static check (tests/web/test_web_i18n.py) finds strings marked for translation
without Hindi; this one finds the strings never marked.
"""

from __future__ import annotations

import json
import random
import re
import time
import urllib.request
from typing import Any

import pytest

from seepkit import browser as wb
from seepkit.browser import FRIEND, NAME, english

pytestmark = pytest.mark.browser

# Every visible text node and the visible elements' aria-label, title and placeholder.
COLLECT = """() => {
  const seen = (el) => {
    for (let e = el; e; e = e.parentElement) {
      if (e.hidden || getComputedStyle(e).display === 'none' ||
          getComputedStyle(e).visibility === 'hidden') return false;
    }
    // An element marked as English (the switch to English) is English on purpose.
    const marked = el.closest('[lang]');
    if (marked && marked !== document.documentElement && marked.lang.startsWith('en')) return false;
    return el.getClientRects().length > 0;
  };
  const out = [];
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    const text = n.textContent.trim();
    const el = n.parentElement;
    if (text && el && !['SCRIPT', 'STYLE'].includes(el.tagName) && seen(el)) {
      out.push([el.outerHTML.slice(0, 120), text]);
    }
  }
  for (const el of document.body.querySelectorAll('[aria-label], [title], [placeholder]')) {
    if (!seen(el)) continue;
    for (const a of ['aria-label', 'title', 'placeholder']) {
      const v = el.getAttribute(a);
      if (v) out.push([`${a} of ${el.outerHTML.slice(0, 120)}`, v]);
    }
  }
  out.push(['document.title', document.title]);
  return out;
}"""


def check_hindi(page: Any, screen: str, found: list[str], code: str = "") -> None:
    """Note the English words of ``screen`` in ``found`` (each test asserts at its end, so
    one run names every screen's words)."""
    bad = english(page.evaluate(COLLECT), code)
    words = sorted({w for _, w in bad})
    if bad:
        found.append(f"{screen}: {words} (first in {bad[0][0]})")


def hindi_page(browser: Any, width: int = 1280, height: int = 860) -> tuple[Any, list[str]]:
    ctx = browser.new_context(viewport={"width": width, "height": height})
    ctx.set_default_timeout(wb.TIMEOUT)
    ctx.add_init_script("localStorage.setItem('seep:lang', 'hi')")
    pg = ctx.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    return pg, errors


def post(base: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    req = urllib.request.Request(
        base + path, json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(req, timeout=10) as r:
        answer: dict[str, Any] = json.loads(r.read())
    return answer


def test_the_lobby_and_the_join_page_speak_hindi(server: str, browser: Any) -> None:
    from websockets.sync.client import connect

    open_table = post(server, "/api/tables", {"name": NAME, "bots": "easy", "public": True})
    code = open_table["code"]
    # The lobby lists a table while its host is connected (docs/web.md "Lobby and social").
    found: list[str] = []
    page, errors = hindi_page(browser)
    with connect(server.replace("http", "ws", 1) + f"/ws/{code}") as host:
        host.send(json.dumps({"type": "hello", "token": open_table["token"]}))
        while json.loads(host.recv(timeout=10)).get("seat") != 0:
            pass
        page.goto(server + "/")
        page.wait_for_selector("#lobby-list li a")  # the open table's row
        check_hindi(page, "lobby", found, code)
    # The host gone, the friend's waiting room says so (and offers Start), in Hindi too.
    # A friend opens the link: the join page.
    page.goto(f"{server}/t/{code}")
    page.wait_for_selector("#join-form")
    check_hindi(page, "join page", found, code)
    page.fill("#join-name", FRIEND)
    page.click("#join-btn")
    page.wait_for_selector(".seat-list")
    check_hindi(page, "waiting room", found, code)
    # A table that does not exist.
    page.goto(f"{server}/t/ZZZZZZ")
    page.wait_for_selector(".center-msg h2")
    check_hindi(page, "page of a missing table", found, "ZZZZZZ")
    page.goto(server + "/how-to-play")
    page.wait_for_selector(".house.demo .house-head")
    check_hindi(page, "How to play", found)
    # The offline lobby (issue 27), its notes and choices.
    page.goto(server + "/offline")
    page.wait_for_selector("#offline-form")
    check_hindi(page, "offline lobby", found)
    page.context.close()
    assert not errors, errors
    assert not found, "English on the Hindi pages:\n" + "\n".join(found)


def turn_of(pages: list[Any]) -> Any | None:
    """The page whose turn it is, once one's is (None: the deal's summary shows on all)."""
    deadline = time.monotonic() + wb.TIMEOUT / 1000
    while time.monotonic() < deadline:
        for pg in pages:
            if pg.evaluate("() => document.body.dataset.myturn") == "true":
                return pg
        if all(pg.locator("#summary").count() for pg in pages):
            return None
        time.sleep(0.05)
    raise AssertionError("no page's turn and no summary")


def test_a_deal_its_summary_and_replay_speak_hindi(server: str, browser: Any) -> None:
    # Two players, both people: one bids and the other reads that he bids (the bid waits for
    # the bidder, so both screens hold still to be read).
    rng = random.Random(7)
    found: list[str] = []
    host, host_errors = hindi_page(browser)
    code = wb.create_table(host, server, NAME, preset="two_player", deals=1)
    friend, friend_errors = hindi_page(browser)
    friend.goto(f"{server}/t/{code}")
    friend.fill("#join-name", FRIEND)
    friend.click("#join-btn")
    friend.wait_for_selector(".seat-list")
    host.wait_for_function("n => document.body.innerText.includes(n)", arg=FRIEND)
    check_hindi(host, "host's waiting room", found, code)
    check_hindi(friend, "guest's waiting room", found, code)
    host.click("#start-btn")
    pages = [host, friend]
    for pg in pages:
        pg.wait_for_function("() => document.body.dataset.phase === 'bid'")
    bidder = turn_of(pages)
    assert bidder is not None
    other = friend if bidder is host else host
    other.wait_for_selector(".floor-note")
    check_hindi(bidder, "bidder's table in the bid phase", found, code)
    check_hindi(other, "table in the bid phase, the other bidding", found, code)
    screens: set[str] = set()
    while (pg := turn_of(pages)) is not None:
        if pg.evaluate("() => document.body.dataset.phase") != "play":
            wb.play_turn(pg, rng)  # the bid, or a redeal
            continue
        if "play" not in screens:
            check_hindi(pg, "table in the play phase", found, code)
            screens.add("play")
            # Someone else opens the link mid-deal: every seat taken, he watches.
            watcher, watcher_errors = hindi_page(browser)
            watcher.goto(f"{server}/t/{code}")
            watcher.wait_for_selector("[data-act=watch]")
            check_hindi(watcher, "join page of a full table", found, code)
            watcher.click("[data-act=watch]")
            watcher.wait_for_selector(".spectator")
            check_hindi(watcher, "spectator's table", found, code)
            watcher.context.close()
            assert not watcher_errors, watcher_errors
        dead = pg.locator(".hand .card.dim")
        if dead.count() and "dead" not in screens:
            # A card with no legal use: its reason, worded from the rule and its arguments.
            pg.evaluate("() => document.querySelectorAll('.toast').forEach(t => t.remove())")
            dead.first.click()
            pg.wait_for_selector(".toast")
            check_hindi(pg, "reason of a dead card", found, code)
            pg.evaluate("() => document.querySelectorAll('.toast').forEach(t => t.remove())")
            screens.add("dead")
        refused = pg.evaluate(
            "() => { const st = window.seepTable.state;"
            " const hand = st.view.hands[st.seat];"
            " return hand.find(c => !st.legal.some(m => m.action === 'throw' && m.card === c)); }"
        )
        if refused and "refusal" not in screens:
            # A throw the rules refuse (a card that can capture, R22; play 1 off the bid,
            # R16 ...): the server's error, worded in Hindi from its rule and arguments.
            pg.evaluate(
                "c => window.seepTable.send({type: 'move', move: {action: 'throw', card: c},"
                " version: window.seepTable.state.version})",
                refused,
            )
            pg.wait_for_selector(".toast.error")
            text = pg.inner_text(".toast.error")
            assert re.search(r"\([RA]\d", text), text  # the rule is cited
            check_hindi(pg, "refusal of a move", found, code)
            pg.evaluate("() => document.querySelectorAll('.toast').forEach(t => t.remove())")
            screens.add("refusal")
        wb.play_turn(pg, rng)
    # A dead card is not certain (play 1 off the bid usually makes one, R16).
    assert {"play", "refusal"} <= screens, screens
    for pg in pages:
        pg.wait_for_selector("#summary #match-winner")
        check_hindi(pg, "summary", found, code)
    replay = host.context.new_page()
    replay.goto(f"{server}/replay/{code}")
    replay.wait_for_selector("#replay-next")
    check_hindi(replay, "replay", found, code)
    replay.click("[data-act=last]")
    replay.wait_for_selector("#replay-result")
    check_hindi(replay, "replay's end", found, code)
    for pg in pages:
        pg.context.close()
    assert not host_errors + friend_errors, host_errors + friend_errors
    assert not found, "English on the Hindi pages:\n" + "\n".join(found)


def test_a_four_player_table_with_bots_speaks_hindi(server: str, browser: Any) -> None:
    found: list[str] = []
    page, errors = hindi_page(browser)
    code = wb.create_table(page, server, NAME, bots="easy")
    check_hindi(page, "waiting room with bots to come", found, code)
    wb.start(page)
    assert wb.wait_turn(page)
    check_hindi(page, "four-player table on this seat's turn", found, code)
    wb.play_turn(page, random.Random(3))
    check_hindi(page, "four-player table after a move", found, code)
    # On a phone the settings sit in a menu: open, it is read too.
    page.set_viewport_size({"width": 390, "height": 844})
    page.click("#menu-btn")
    page.wait_for_selector("#settings-menu.open")
    check_hindi(page, "phone's settings menu", found, code)
    page.context.close()
    assert not errors, errors
    assert not found, "English on the Hindi pages:\n" + "\n".join(found)
