"""The organiser's form in the lobby's events panel, in Debian's chromium (docs/web.md
"The event page", "Making an event").

A signed-in organiser makes a Swiss event through the form by keyboard alone: he lands on
the event's page, and the lobby lists it with what he chose. An empty name shows the
server's own refusal next to the form, in a live region, and marks the field. A guest is
asked to sign in. The Hindi lobby's events panel, form and refusal have no English left; on
a phone the form is no wider than the screen. The body the form sends, every field set, is
caught before the server (which decides which kinds and pairings it serves).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from seepkit.browser import (
    ALLOWED,
    PASSWORD,
    desktop_page,
    english,
    phone_page,
    screenshot,
    sign_in,
)

pytestmark = pytest.mark.browser

EVENT = "Saturday Seep club"
NAMES = {"Saturday", "club", "Org", "Asha"}  # the players' words, left as they are in Hindi

# The visible text of an element's subtree (text nodes, and the attributes a reader hears),
# less what is marked lang="en" on purpose.
VISIBLE_TEXT = """(sel) => {
  const root = document.querySelector(sel);
  const seen = (el) => {
    for (let e = el; e; e = e.parentElement) {
      if (e.hidden || getComputedStyle(e).display === 'none') return false;
    }
    const marked = el.closest('[lang]');
    if (marked && marked !== document.documentElement && marked.lang.startsWith('en')) return false;
    return el.getClientRects().length > 0;
  };
  const out = [];
  const walk = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    const text = n.textContent.trim();
    const el = n.parentElement;
    if (text && el && seen(el)) out.push([el.outerHTML.slice(0, 100), text]);
  }
  for (const el of root.querySelectorAll('[aria-label], [title], [placeholder], option')) {
    if (el.tagName !== 'OPTION' && !seen(el)) continue;
    if (el.tagName === 'OPTION') {
      out.push([`option ${el.value}`, el.textContent.trim()]);
      continue;
    }
    for (const a of ['aria-label', 'title', 'placeholder']) {
      const v = el.getAttribute(a);
      if (v) out.push([`${a} of ${el.outerHTML.slice(0, 100)}`, v]);
    }
  }
  return out;
}"""


@pytest.fixture(scope="module")
def form_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server of its own, with no limit on the accounts made from one address."""
    from seepkit.browser import app_server

    with app_server(tmp_path_factory.mktemp("event-form"), SEEP_MAX_SIGNUPS_PER_HOUR="0") as base:
        yield base


def _focused(pg: Any) -> str:
    return str(pg.evaluate("() => document.activeElement.id || document.activeElement.tagName"))


def _tab_to(pg: Any, target: str, most: int = 60) -> None:
    """Press Tab until the element of id ``target`` has the focus."""
    seen = []
    for _ in range(most):
        pg.keyboard.press("Tab")
        seen.append(_focused(pg))
        if seen[-1] == target:
            return
    raise AssertionError(f"#{target} never took the focus by Tab: {seen}")


def _refusal(base: str, body: dict[str, Any]) -> str:
    """The server's message for ``body`` sent as ``POST /api/events`` by a new account."""
    with httpx.Client(base_url=base, timeout=20) as http:
        r = http.post("/api/accounts", json={"name": "Asha", "password": PASSWORD})
        assert r.status_code == 201, r.text
        r = http.post("/api/events", json=body)
        assert r.status_code >= 400, r.text
        return str(r.json()["error"]["message"])


def _no_sideways_scroll(pg: Any) -> None:
    wide = pg.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert wide <= 1, f"the page is {wide} px wider than the phone"


def test_an_organiser_makes_a_swiss_event_by_keyboard(form_server: str, browser: Any) -> None:
    base = form_server
    errors: list[str] = []
    ctx, pg = desktop_page(browser, errors)
    try:
        # A guest is asked to sign in; the form is not offered.
        pg.goto(base + "/")
        pg.wait_for_selector("#event-new-guest:visible")
        assert pg.locator("#event-new-btn").is_hidden()

        sign_in(pg, base, "Org", new=True)
        assert pg.locator("#event-new-guest").is_hidden()
        # Every field has its label.
        unlabelled = pg.evaluate(
            "() => [...document.querySelectorAll('#event-form input, #event-form select')]"
            ".filter((e) => !e.labels || !e.labels.length || !e.labels[0].textContent.trim())"
            ".map((e) => e.id)"
        )
        assert unlabelled == []

        # By keyboard: to the button, open the form (the focus goes to the name).
        pg.focus("#lobby-refresh")
        _tab_to(pg, "event-new-btn")
        pg.keyboard.press("Enter")
        pg.wait_for_selector("#event-form:visible")
        assert pg.get_attribute("#event-new-btn", "aria-expanded") == "true"
        assert _focused(pg) == "event-form-name"

        # An empty name: the server's refusal, word for word, next to the form.
        start = pg.input_value("#event-form-starts")
        starts = pg.evaluate("(v) => new Date(v).getTime() / 1000", start)
        assert starts > time.time()  # the default start is ahead
        pg.keyboard.press("Enter")
        error = pg.locator("#event-form-error")
        error.wait_for(state="visible")
        said = _refusal(base, {"name": "", "starts": starts, "rounds": 3, "deals": 2})
        assert error.inner_text() == said
        assert error.get_attribute("role") == "alert"
        assert pg.get_attribute("#event-form-name", "aria-invalid") == "true"
        assert pg.url.rstrip("/") == base  # still in the lobby

        # The name typed, two rounds instead of the three offered, sent with Enter.
        pg.focus("#event-form-name")
        pg.keyboard.type(EVENT)
        _tab_to(pg, "event-form-rounds", most=20)
        pg.keyboard.press("ControlOrMeta+a")
        pg.keyboard.type("2")
        pg.keyboard.press("Enter")
        pg.wait_for_url("**/events/*")
        event = pg.url.rsplit("/", 1)[1]
        pg.wait_for_function(
            "(n) => document.querySelector('#event-name')?.textContent === n", arg=EVENT
        )

        # Made as the form said: a Swiss event of partnerships, unrated, with bots.
        listed = httpx.get(base + "/api/events", timeout=20).json()["events"]
        made = next(e for e in listed if str(e["id"]) == event)
        assert made["name"] == EVENT and made["kind"] == "swiss" and made["format"] == "four"
        assert made["rounds"] == 2 and not made["rated"]
        assert abs(made["starts"] - starts) < 1

        # The lobby lists it.
        pg.goto(base + "/")
        pg.wait_for_function(
            "(n) => (document.querySelector('#event-list')?.innerText ?? '').includes(n)",
            arg=EVENT,
        )
        row = pg.locator("#event-list li", has_text=EVENT).inner_text()
        assert "Swiss" in row and "Four players" in row and "2 rounds" in row and "Org" in row

        # Escape closes the form and gives the focus back to its button.
        pg.click("#event-new-btn")
        pg.wait_for_selector("#event-form:visible")
        pg.keyboard.press("Escape")
        assert pg.locator("#event-form").is_hidden() and _focused(pg) == "event-new-btn"
    finally:
        ctx.close()
    assert not errors, errors


def test_the_hindi_form_and_its_refusal_have_no_english(form_server: str, browser: Any) -> None:
    base = form_server
    errors: list[str] = []
    ctx, pg = desktop_page(browser, errors, "hi")
    try:
        pg.goto(base + "/")
        pg.wait_for_selector("#event-new-guest:visible")
        left = english(pg.evaluate(VISIBLE_TEXT, "#events-panel"))
        assert [(w, x) for w, x in left if x not in NAMES | ALLOWED] == []

        sign_in(pg, base, "Hindi", new=True)
        pg.click("#event-new-btn")
        pg.wait_for_selector("#event-form:visible")
        pg.select_option("#event-form-kind", "arena")  # the arena's own field shows too
        pg.wait_for_selector("#event-form-minutes:visible")
        pg.select_option("#event-form-kind", "swiss")
        pg.click("#event-form-submit")  # no name
        pg.locator("#event-form-error").wait_for(state="visible")
        text = pg.inner_text("#event-form-error")
        assert "प्रतियोगिता का नाम" in text  # the field it names, by its label
        left = english(pg.evaluate(VISIBLE_TEXT, "#events-panel"))
        assert [(w, x) for w, x in left if x not in NAMES | ALLOWED] == []
    finally:
        ctx.close()
    assert not errors, errors


@pytest.mark.parametrize("lang", ["en", "hi"])
def test_the_form_fits_a_phone(form_server: str, browser: Any, lang: str) -> None:
    ctx, pg, errors = phone_page(browser, lang)
    try:
        sign_in(pg, form_server, f"Phone{lang}", new=True)
        pg.click("#event-new-btn")
        pg.wait_for_selector("#event-form:visible")
        pg.click("#event-form-submit")
        pg.locator("#event-form-error").wait_for(state="visible")
        _no_sideways_scroll(pg)
        widest = pg.evaluate(
            "() => Math.max(...[...document.querySelectorAll('#event-form *')]"
            ".map((e) => e.getBoundingClientRect().right))"
        )
        assert widest <= 390, f"a field of the form reaches {widest} px"
        if lang == "en":
            pg.locator("#event-form").scroll_into_view_if_needed()
            screenshot(pg, "phone-event-form")
    finally:
        ctx.close()
    assert not errors, errors


def test_the_form_sends_what_it_collects(form_server: str, browser: Any) -> None:
    """The body of ``POST /api/events`` as the form fills it (caught before the server, which
    decides what it serves): every field, the start as seconds, an arena's minutes only with
    an arena."""
    errors: list[str] = []
    ctx, pg = desktop_page(browser, errors)
    sent: list[dict[str, Any]] = []

    def catch(route: Any) -> None:
        if route.request.method != "POST":
            route.continue_()
            return
        sent.append(route.request.post_data_json)
        route.fulfill(status=422, json={"error": {"code": "not_allowed", "message": "caught"}})

    try:
        sign_in(pg, form_server, "Collector", new=True)
        pg.route("**/api/events", catch)
        pg.click("#event-new-btn")
        pg.fill("#event-form-name", "Arena night")
        pg.select_option("#event-form-kind", "arena")
        pg.fill("#event-form-minutes", "30")
        pg.select_option("#event-form-format", "two")
        pg.select_option("#event-form-partners", "individual")
        pg.fill("#event-form-starts", "2030-01-02T20:15")
        pg.fill("#event-form-rounds", "5")
        pg.fill("#event-form-deals", "1")
        pg.check("#event-form-rated")
        pg.uncheck("#event-form-bots")
        pg.click("#event-form-submit")
        pg.wait_for_function("() => document.querySelector('#event-form-error').textContent")
        assert pg.inner_text("#event-form-error") == "caught"
        starts = pg.evaluate("() => new Date(2030, 0, 2, 20, 15).getTime() / 1000")
        assert sent[-1] == {
            "name": "Arena night",
            "kind": "arena",
            "minutes": 30,
            "format": "two",
            "partners": "individual",
            "starts": starts,
            "rounds": 5,
            "deals": 1,
            "rated": True,
            "bots": False,
        }
        # A Swiss event sends no arena's length, whatever the hidden field holds.
        pg.select_option("#event-form-kind", "swiss")
        assert pg.locator("#event-form-minutes").is_hidden()
        pg.click("#event-form-submit")
        pg.wait_for_function(
            "(n) => document.querySelector('#event-form-submit').disabled === false"
        )
        assert len(sent) == 2 and "minutes" not in sent[-1] and sent[-1]["kind"] == "swiss"
    finally:
        ctx.close()
    assert not errors, errors
