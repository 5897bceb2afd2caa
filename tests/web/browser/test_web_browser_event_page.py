"""An event's page in Debian's chromium (docs/web.md "Events", "The event page").

The walk-through (issue 30's Done-when): a player signs up in the lobby, opens a Swiss event
of four players from the lobby's list, registers with his partner by keyboard alone (the
partner accepts over HTTP), checks in; the organiser, on his own page, starts the event; the
player's page follows by itself, sends him to his seat, he plays the round's deal at the table
(the others' seats played by bots once their grace period is over) and reads the standings,
his result and its replay on the event page. Then the same page in Hindi shows no English,
and on a phone nothing is wider than the screen.

A duplicate event's deal-by-deal comparison is drawn from a recorded answer of
``GET /api/events/{id}`` (Playwright's ``page.route``), in English and Hindi.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from seepkit.browser import (
    ALLOWED,
    account,
    desktop_page,
    english,
    phone_page,
    play_turn,
    screenshot,
    sign_in,
    wait_turn,
)

pytestmark = pytest.mark.browser

EVENT = "Diwali Seep"
# The accounts' names, and the event's: the players' words, left as they are in Hindi.
NAMES = {"Asha", "Ravi", "Mina", "Dev", "Org", "Diwali", "Kiran", "Om", "Lata", "Jai"}
NAMES |= {"Two", "tables"}  # the duplicate event's name
NAMES |= {f"Du{i}" for i in range(8)} | {"Duplicate", "night"}  # the recorded one's
DATA = Path(__file__).parent / "data"

# Every visible text node and the visible elements' aria-label, title and placeholder (as in
# test_web_i18n_pages.py), less what is marked lang="en" on purpose (the language switch).
VISIBLE_TEXT = """() => {
  const seen = (el) => {
    for (let e = el; e; e = e.parentElement) {
      if (e.hidden || getComputedStyle(e).display === 'none') return false;
    }
    const marked = el.closest('[lang]');
    if (marked && marked !== document.documentElement && marked.lang.startsWith('en')) return false;
    return el.getClientRects().length > 0;
  };
  const out = [];
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    const text = n.textContent.trim();
    const el = n.parentElement;
    if (text && el && seen(el) && !['SCRIPT', 'STYLE'].includes(el.tagName)) {
      out.push([el.outerHTML.slice(0, 100), text]);
    }
  }
  for (const el of document.body.querySelectorAll('[aria-label], [title], [placeholder]')) {
    if (!seen(el)) continue;
    for (const a of ['aria-label', 'title', 'placeholder']) {
      const v = el.getAttribute(a);
      if (v) out.push([`${a} of ${el.outerHTML.slice(0, 100)}`, v]);
    }
  }
  out.push(['document.title', document.title]);
  return out;
}"""


def _english_left(page: Any) -> list[tuple[str, str]]:
    found = english(page.evaluate(VISIBLE_TEXT))
    return [(where, w) for where, w in found if w not in NAMES and w not in ALLOWED]


@pytest.fixture(scope="module")
def event_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server of its own: a player gone a second is played for by a bot (the others of the
    player's table are HTTP accounts that never connect), no message budget per address, no
    limit on the accounts made from it."""
    from seepkit.browser import app_server

    tmp = tmp_path_factory.mktemp("event-page")
    env = {"SEEP_GRACE_SECONDS": "1", "SEEP_MESSAGE_BUDGET": "0", "SEEP_MAX_SIGNUPS_PER_HOUR": "0"}
    with app_server(tmp, **env) as base:
        yield base


def _tab_to(pg: Any, target: str, most: int = 40) -> list[str]:
    """Press Tab until ``target`` (a CSS selector) has the focus; the focused elements seen on
    the way (id, else tag and text)."""
    seen: list[str] = []
    for _ in range(most):
        pg.keyboard.press("Tab")
        seen.append(
            pg.evaluate(
                "() => { const e = document.activeElement;"
                " return e.id || `${e.tagName.toLowerCase()}:${e.textContent.trim()}`; }"
            )
        )
        if pg.evaluate("(s) => document.activeElement.matches(s)", target):
            return seen
    raise AssertionError(f"{target} never took the focus by Tab: {seen}")


# What an element is, for the keyboard's order: its id, else its tag and text.
DESCRIBE = "(e) => e.id || `${e.tagName.toLowerCase()}:${e.textContent.trim()}`"


def _keyboard_order_is_reading_order(pg: Any) -> None:
    """Tab visits every visible link, button and field of the page once, in the order they
    are read (no tabindex reorders them, none is left out)."""
    read = pg.evaluate(
        f"() => [...document.querySelectorAll('a[href], button, input, select')]"
        f".filter(e => e.getClientRects().length && !e.closest('[hidden]')).map({DESCRIBE})"
    )
    pg.evaluate("() => document.activeElement && document.activeElement.blur()")
    tabbed = []
    for _ in read:
        pg.keyboard.press("Tab")
        tabbed.append(pg.evaluate(f"() => ({DESCRIBE})(document.activeElement)"))
    assert tabbed == read


def _no_sideways_scroll(pg: Any) -> None:
    wide = pg.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert wide <= 1, f"the page is {wide} px wider than the phone"


def test_a_player_registers_plays_a_round_and_reads_the_standings(
    event_server: str, browser: Any
) -> None:
    base = event_server
    org = account(base, "Org")
    ravi = account(base, "Ravi")
    mina = account(base, "Mina")
    dev = account(base, "Dev")
    body = {"name": EVENT, "format": "four", "rounds": 1, "deals": 1, "starts": time.time() + 3600}
    r = org.post("/api/events", json=body)
    assert r.status_code == 201, r.text
    event = r.json()["id"]
    assert mina.post(f"/api/events/{event}/register", json={"partner": "Dev"}).status_code == 201
    assert dev.post(f"/api/events/{event}/accept").status_code == 200
    assert mina.post(f"/api/events/{event}/checkin").status_code == 200

    errors: list[str] = []
    ctx, pg = desktop_page(browser, errors)
    octx, opg = desktop_page(browser, errors, "hi")  # the organiser reads Hindi
    try:
        # The player signs up in the lobby and opens the event from its list.
        sign_in(pg, base, "Asha", new=True)
        pg.click(f"#event-list a[href='/events/{event}']")
        pg.wait_for_url(f"**/events/{event}")
        pg.wait_for_selector("#event-register")
        assert pg.inner_text("#event-name") == EVENT
        facts = pg.inner_text("#event-facts")
        assert "Swiss" in facts and "Four players" in facts and "1 round" in facts
        assert "Taking registrations" in pg.inner_text("#event-status")
        assert pg.get_attribute("#event-status", "role") == "status"
        assert pg.locator("#event-organiser").is_hidden()  # not his event

        # Keyboard only: Tab reaches the partner's box after the language switch and the
        # lobby link, then the button; Enter registers.
        order = _tab_to(pg, "#event-partner")
        assert order[-3:] == ["button:हिन्दी", "a:Lobby", "event-partner"], order
        pg.keyboard.type("Ravi")
        assert _tab_to(pg, "#event-register-btn") == ["event-register-btn"]
        pg.keyboard.press("Enter")
        pg.wait_for_selector("text=Waiting for Ravi to accept.")
        assert ravi.post(f"/api/events/{event}/accept").status_code == 200
        pg.reload()
        pg.click("#event-checkin")
        pg.wait_for_selector("text=Checked in: the first round starts")
        assert "Asha & Ravi · checked in" in pg.inner_text("#event-teams")

        # The organiser starts it from his page (in Hindi), by keyboard.
        sign_in(opg, base, "Org", new=False)
        opg.goto(f"{base}/events/{event}")
        opg.wait_for_selector("#event-org-start")
        assert opg.inner_text("#event-organiser-title") == "आयोजक"
        left = _english_left(opg)  # before the start: his controls, the register form, teams
        assert not left, left
        assert opg.get_attribute("#event-team-select", "id")  # withdraw-a-team is offered
        _tab_to(opg, "#event-org-start")
        opg.keyboard.press("Enter")
        opg.wait_for_selector("#event-org-start", state="detached")  # running: no start
        assert opg.is_visible("#event-org-pause") and opg.is_visible("#event-org-end")

        # The player's page follows by itself (no reload) and sends him to his seat.
        pg.wait_for_selector("#event-seat")
        assert "Round 1 of 1" in pg.inner_text("#event-status")
        pg.click("#event-seat")
        pg.wait_for_url("**/t/*")
        code = pg.url.rsplit("/", 1)[1]
        assert code not in json.dumps(pg.evaluate("() => location.search"))
        pg.wait_for_selector(".hand .card")
        rng = random.Random(30)
        while wait_turn(pg):
            play_turn(pg, rng)
        pg.wait_for_selector("#summary")

        # Back on the event page: the round done, the standings the server's.
        pg.goto(f"{base}/events/{event}")
        pg.wait_for_selector("#standings-table")
        pg.wait_for_function(
            "() => document.querySelector('#event-status').innerText.includes('Finished')"
        )
        answer = httpx.get(f"{base}/api/events/{event}").json()
        rows = pg.eval_on_selector_all(
            "#standings-table tbody tr",
            "trs => trs.map(tr => [...tr.children].map(c => c.innerText.trim()))",
        )
        head = pg.eval_on_selector_all(
            "#standings-table thead th", "ths => ths.map(t => t.innerText)"
        )
        assert head == ["Rank", "Team", "Points", "Buchholz", "Points difference"]
        assert len(rows) == 2
        for row, s in zip(rows, answer["standings"], strict=True):
            assert row[0] == str(s["rank"]) and row[1].startswith(s["name"])
            assert row[2] == str(s["points"]) and row[3] == str(s["buchholz"])
            assert row[4] == (f"+{s['diff']}" if s["diff"] > 0 else str(s["diff"]))
        mine = pg.inner_text("#standings-table tr.mine")
        assert "Asha & Ravi" in mine and "your team" in mine
        replay = pg.locator(f"#event-rounds a[href='/replay/{code}']")
        assert replay.count() == 1
        result = pg.inner_text("#event-rounds tbody tr")
        assert "–" in result and ("won" in result or "drawn" in result or "nothing" in result)
        assert pg.locator("#event-you button").count() == 0  # over: nothing left to do
        facts = pg.inner_text("#event-facts")  # over: the numbers planned come with its answer
        assert "1 round ·" in facts and "1 deal a round" in facts, facts
        screenshot(pg, "event", full_page=True)

        # The same page in Hindi: no English left.
        pg.evaluate("() => localStorage.setItem('seep:lang', 'hi')")
        pg.reload()
        pg.wait_for_selector("#standings-table")
        assert pg.inner_text("#event-standings-title") == "तालिका"
        left = _english_left(pg)
        assert not left, left
    finally:
        for c in (org, ravi, mina, dev):
            c.close()
        octx.close()
        ctx.close()
    assert not errors, errors

    # On a phone: nothing wider than the screen, the tables scroll inside their box.
    for lang in ("en", "hi"):
        pctx, ppg, perrors = phone_page(browser, lang)
        try:
            ppg.goto(f"{base}/events/{event}")
            ppg.wait_for_selector("#standings-table")
            _no_sideways_scroll(ppg)
            assert ppg.locator("#event-you").is_hidden()  # a guest, the event over
            assert ppg.locator("#event-rounds a").first.is_visible()
            if lang == "en":
                screenshot(ppg, "phone-event", full_page=True)
        finally:
            pctx.close()
        assert not perrors, perrors


def _duplicate_answer() -> dict[str, Any]:
    """A duplicate event of four teams at two tables (A-B, and C-D swapped: A and D hold the
    same cards), round 1 played and round 2 being played, as ``GET /api/events/7`` answers
    Asha (team 1), its deals as the server lists them (not in order)."""
    return json.loads((DATA / "event-duplicate.json").read_text())


def _route(pg: Any, answer: dict[str, Any], me: str = "Asha") -> None:
    pg.route(
        f"**/api/events/{answer['id']}",
        lambda route: route.fulfill(
            status=200, content_type="application/json", body=json.dumps(answer)
        ),
    )
    # The lobby's list has the numbers planned, which the event's answer names for its lists.
    listed = {k: answer[k] for k in ("id", "name", "kind", "format", "rated", "starts", "status")}
    listed.update(rounds=2, deals=2, round=answer["round"], organiser=answer["organiser"])
    pg.route(
        "**/api/events",
        lambda route: route.fulfill(
            status=200, content_type="application/json", body=json.dumps({"events": [listed]})
        ),
    )
    pg.route(
        "**/api/me",
        lambda route: route.fulfill(
            status=200,
            content_type="application/json",
            body=json.dumps({"name": me, "created": 0, "ratings": {}, "abandons": 0}),
        ),
    )


def test_a_duplicate_events_deal_by_deal_comparison(event_server: str, browser: Any) -> None:
    answer = _duplicate_answer()
    errors: list[str] = []
    ctx, pg = desktop_page(browser, errors)
    try:
        _route(pg, answer)
        pg.goto(f"{event_server}/events/7")
        pg.wait_for_selector("#event-deals:not([hidden]) table")
        facts = pg.inner_text("#event-facts")
        assert "Duplicate · Four players · Not rated · 2 rounds · 2 deals a round" in facts
        assert pg.inner_text("#event-status") == "Running: Round 2 of 2"
        heads = pg.eval_on_selector_all("#event-deals h3", "hs => hs.map(h => h.innerText)")
        assert heads == ["Round 1, deal 1", "Round 1, deal 2"]
        lines = pg.eval_on_selector_all("#event-deals .deal-line", "ps => ps.map(p => p.innerText)")
        assert lines == [
            "On this deal your team took 61, the field averaged 35.",
            "On this deal your team took -12, the field averaged 19.",
        ]
        first = pg.eval_on_selector_all(
            "#event-deals table >> nth=0 >> tbody tr",
            "trs => trs.map(tr => [...tr.children].map(c => c.innerText.trim()))",
        )
        assert first[0] == ["Asha & Ravi your team", "61", "35", "2", "100 %"]
        assert len(first) == 4 and first[1] == ["Kiran & Dev", "-61", "-35", "0", "0 %"]
        cols = pg.eval_on_selector_all(
            "#event-deals table >> nth=0 >> thead th", "ths => ths.map(t => t.innerText)"
        )
        assert cols == ["Team", "Score on the deal", "Field average", "Matchpoints", "Percent"]
        # Standings by percent; a duplicate round's tables are not watched while it plays.
        head = pg.eval_on_selector_all(
            "#standings-table thead th", "ths => ths.map(t => t.innerText)"
        )
        assert head == ["Rank", "Team", "Matchpoints", "Percent"]
        assert pg.inner_text("#standings-table tbody tr >> nth=0").endswith("2 / 4\t50 %")
        # Round 1's tables deal by deal; the second sat its first team (Mina & Om) on side 1:
        # the score read as the teams are listed.
        rows = pg.eval_on_selector_all(
            "#round-1 ~ .scroll-x tbody tr",
            "trs => trs.map(tr => [...tr.children].map(c => c.innerText.trim()))",
        )
        assert [r[:2] for r in rows] == [["1", "1"], ["1", "2"], ["2", "1"], ["2", "2"]]
        assert rows[1][2:5] == ["Mina & Om", "Lata & Jai", "30 – 65 · Lata & Jai won"]
        assert pg.locator("#event-rounds a[href='/replay/DUPB1Y']").count() == 1
        # Round 2's deal 1 is not open to anyone: no code, so no link but the player's seat.
        assert pg.locator("#round-2 ~ .scroll-x a").count() == 0
        assert pg.inner_text("#round-2 ~ .scroll-x thead tr").startswith("Deal")
        assert pg.locator("#event-rounds a[href^='/t/']").count() == 0
        assert pg.locator("#event-rounds button[data-act=seat]").count() == 1  # his own seat
        assert pg.is_visible("#event-seat")
        box = pg.locator("#event-deals").bounding_box()
        screenshot(pg, "event-duplicate", full_page=True, clip=box)

        _keyboard_order_is_reading_order(pg)

        pg.evaluate("() => localStorage.setItem('seep:lang', 'hi')")
        pg.reload()
        pg.wait_for_selector("#event-deals:not([hidden]) table")
        line = pg.inner_text("#event-deals .deal-line >> nth=0")
        assert line == "इस बाँट में आपकी टीम ने 61 लिए, सबका औसत 35 रहा।"
        left = _english_left(pg)
        assert not left, left
    finally:
        ctx.close()
    assert not errors, errors

    # On a phone the deals' tables scroll inside their panel; the page does not.
    pctx, ppg, perrors = phone_page(browser, "hi")
    try:
        _route(ppg, answer)
        ppg.goto(f"{event_server}/events/7")
        ppg.wait_for_selector("#event-deals:not([hidden]) table")
        _no_sideways_scroll(ppg)
        assert ppg.is_visible("#event-seat")
    finally:
        pctx.close()
    assert not perrors, perrors


def _num(x: float) -> str:
    """A number as the English page writes it (at most one decimal)."""
    return str(int(x)) if x == int(x) else f"{x:.1f}"


def test_a_finished_duplicate_event_as_the_server_answered_it(
    event_server: str, browser: Any
) -> None:
    """``GET /api/events/{id}`` of a duplicate event of four teams, two rounds of two deals,
    recorded from the server (tests/web/test_web_events_duplicate.py's Done-when event, as
    its first player reads it): every number on the page is the answer's."""
    answer = json.loads((DATA / "event-duplicate-finished.json").read_text())
    mine = answer["me"]["team"]
    errors: list[str] = []
    ctx, pg = desktop_page(browser, errors)
    try:
        _route(pg, answer, me="Du0")
        pg.goto(f"{event_server}/events/{answer['id']}")
        pg.wait_for_selector("#event-deals:not([hidden]) table")
        assert pg.inner_text("#event-status") == "Finished"
        assert "2 rounds played" in pg.inner_text("#event-facts")
        assert pg.locator("#event-you button").count() == 0
        heads = pg.eval_on_selector_all("#event-deals h3", "hs => hs.map(h => h.innerText)")
        assert heads == [f"Round {r}, deal {d}" for r in (1, 2) for d in (1, 2)]
        lines = pg.eval_on_selector_all("#event-deals .deal-line", "ps => ps.map(p => p.innerText)")
        own = [next(x for x in d["results"] if x["team"] == mine) for d in answer["deals"]]
        assert lines == [
            f"On this deal your team took {_num(x['score'])}, the field averaged "
            f"{_num(x['field_average'])}."
            for x in own
        ]
        rows = pg.eval_on_selector_all(
            "#standings-table tbody tr",
            "trs => trs.map(tr => [...tr.children].map(c => c.innerText.trim()))",
        )
        assert [r[0] for r in rows] == [str(s["rank"]) for s in answer["standings"]]
        assert [r[2:] for r in rows] == [
            [f"{s['matchpoints']} / {s['top']}", f"{_num(s['percent'])} %"]
            for s in answer["standings"]
        ]
        for r in answer["rounds"]:
            cells = pg.eval_on_selector_all(
                f"#round-{r['number']} ~ .scroll-x tbody tr",
                "trs => trs.map(tr => [...tr.children].map(c => c.innerText.trim()))",
            )
            tables = sorted(r["tables"], key=lambda x: (x["deal"], x["board"]))
            assert len(cells) == len(tables)
            for row, x in zip(cells, tables, strict=True):
                first = 1 if x["swapped"] else 0
                score = x["result"]["score"]
                assert row[4].startswith(f"{score[first]} – {score[1 - first]}")
                link = pg.locator(f"#event-rounds a[href='/replay/{x['code']}']")
                assert link.count() == 1

        pg.evaluate("() => localStorage.setItem('seep:lang', 'hi')")
        pg.reload()
        pg.wait_for_selector("#event-deals:not([hidden]) table")
        left = _english_left(pg)
        assert not left, left
    finally:
        ctx.close()
    assert not errors, errors


def test_the_organiser_pauses_withdraws_a_team_and_ends_the_event(
    event_server: str, browser: Any
) -> None:
    base = event_server
    host = account(base, "Host")
    kiran = account(base, "Kiran")
    lata = account(base, "Lata")
    body = {"name": "Club night", "format": "two", "rounds": 2, "starts": time.time() + 600}
    event = host.post("/api/events", json=body).json()["id"]
    for c in (kiran, lata):
        assert c.post(f"/api/events/{event}/register", json={}).status_code == 201
    errors: list[str] = []
    ctx, pg = desktop_page(browser, errors)
    try:
        pg.goto(f"{base}/events/{event}")  # a guest: asked to sign in, no controls
        pg.wait_for_selector("#event-sign-in")
        assert pg.locator("#event-organiser").is_hidden()
        pg.goto(f"{base}/events/999999")
        pg.wait_for_selector("text=No such event")

        sign_in(pg, base, "Host", new=False)
        pg.goto(f"{base}/events/{event}")
        pg.wait_for_selector("#event-org-pause")
        assert [b.inner_text() for b in pg.locator("#event-organiser button").all()] == [
            "Start now",
            "Pause",
            "End the event",
            "Withdraw the team",
        ]
        pg.click("#event-org-pause")
        pg.wait_for_selector("#event-org-resume")
        assert pg.inner_text("#event-status") == "Paused"
        pg.select_option("#event-team-select", label="Lata")
        pg.click("#event-withdraw-team-btn")  # the confirmation is accepted (_page)
        pg.wait_for_selector("#event-teams li:has-text('Lata · withdrawn')")
        assert [o.inner_text() for o in pg.locator("#event-team-select option").all()] == ["Kiran"]
        pg.click("#event-org-end")
        pg.wait_for_function(
            "() => document.querySelector('#event-status').innerText === 'Finished'"
        )
        assert pg.locator("#event-organiser").is_hidden()  # nothing left to organise
    finally:
        for c in (host, kiran, lata):
            c.close()
        ctx.close()
    assert not errors, errors
