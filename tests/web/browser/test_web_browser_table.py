"""The table page in Debian's chromium (issue 22 items 2, 3, 7): the move log, the settings
menu on a phone, the hand kept in view as the floor grows, one seat naming scheme, Enter on the
narrowed move, the four-colour deck and the smaller items (Undo, Record and Replay, the clock's
notice, the favicon, plurals), and the summary's hook for social.js.

Some tests feed the page a state of their own making (``window.seepTable.setState``): a state
the server sends, changed to hold three houses or a sweep, so a layout or a log line is checked
without waiting for a deal to come round to it. With ``SEEP_SCREENSHOTS=1`` they save
docs/screenshots/{movelog,phone-menu}.png.
"""

from __future__ import annotations

import copy
import random
import urllib.request
from typing import Any

import pytest

from seepkit.browser import TIMEOUT, create_table, screenshot, start, watch_csp

pytestmark = [pytest.mark.browser, pytest.mark.filterwarnings("ignore::DeprecationWarning")]


def new_page(chromium: Any, width: int, height: int, errors: list[str]) -> Any:
    """A page in a context of its own at ``width`` x ``height``, collecting its errors."""
    ctx = chromium.new_context(viewport={"width": width, "height": height})
    ctx.set_default_timeout(TIMEOUT)
    pg = ctx.new_page()
    pg.on("pageerror", lambda e: errors.append(str(e)))
    watch_csp(pg, errors)
    return pg


def state_of(pg: Any) -> dict[str, Any]:
    """The state the page drew last, as the server sent it."""
    return dict(pg.evaluate("() => JSON.parse(JSON.stringify(window.seepTable.state))"))


def feed(pg: Any, state: dict[str, Any]) -> None:
    """Draw ``state`` as if the server had sent it (the socket's next state replaces it)."""
    pg.evaluate("(st) => window.seepTable.setState(st)", state)


def pause_socket(pg: Any) -> None:
    """Stop drawing the server's states, so a fed state stays on show."""
    pg.evaluate("() => { window.seepTable.onMessage = () => {}; }")


def wait_my_play_turn(pg: Any) -> None:
    """Wait until this page may play a card (bidding first when the bid is ours)."""
    while True:
        pg.wait_for_function("() => document.body.dataset.myturn === 'true'", timeout=TIMEOUT)
        if pg.evaluate("() => document.body.dataset.phase") == "play":
            return
        version = pg.evaluate("() => window.seepTable.state.version")
        pg.evaluate(
            "() => { const L = window.seepTable.state.legal;"
            " window.seepTable.play(L.find(m => m.action === 'bid') || L[0]); }"
        )
        pg.wait_for_function("(v) => window.seepTable.state.version !== v", arg=version)


SUMMARY = {
    "deal": 1,
    "result": {"points": [60, 40], "bonus": [0, 0], "sweeps": [50, 0], "score": [110, 40]},
    "captured": [["AS", "2S"], ["3H"]],
    "baazi_over": False,
    "baazi_winner": None,
    "diff": 70,
    "baazis": [0, 0],
    "match_over": False,
    "ready": [],
}


def test_the_summary_gives_social_js_a_hook(server: str, page: Any) -> None:
    """#summary-extra inside the summary dialog, a "seep:summary" event when it opens, and
    the node social.js fills (rematch, review) survives the dialog's redraws."""
    create_table(page, server, "Asha")
    start(page)
    pause_socket(page)
    page.evaluate(
        "() => { window.summaryEvents = [];"
        " document.addEventListener('seep:summary', (e) => {"
        " window.summaryEvents.push(e.detail.deal); window.extraNode = e.detail.extra; }); }"
    )
    st = state_of(page)
    st["summary"] = copy.deepcopy(SUMMARY)
    feed(page, st)
    page.wait_for_selector("#summary #summary-extra", state="attached")
    st["version"] += 1
    feed(page, st)  # the same summary drawn again: no second event, the same node
    assert page.evaluate(
        "() => document.querySelector('#summary #summary-extra') === window.extraNode"
    )
    assert page.evaluate("() => window.summaryEvents") == [1]


def test_the_state_names_each_moves_sweep_points() -> None:
    """history_sweeps lines up with view.history and adds up to the view's sweep points
    (the move log's "sweep +50" comes from it, not from the page working out a sweep)."""
    from seep.web.messages import State
    from seep.web.tables import Table, parse_settings

    for seed in range(200):
        table = Table("SWEEPS", parse_settings({"bots": "easy"}), seed)
        table.start(0)
        rng = random.Random(seed)
        while table.position is not None and not table.position.is_over():
            table.apply(rng.choice(table.position.legal_codes()))
            state = table.state(0)
            sweeps = state["history_sweeps"]
            assert len(sweeps) == len(state["view"]["history"])
            assert sum(sweeps) == sum(state["view"]["sweeps"])
            if any(sweeps):
                State.model_validate(state)  # the published schema holds the field
                return
    raise AssertionError("no sweep in 200 random deals")


# --- the move log ---------------------------------------------------------------------------


def test_the_move_log_words_the_deal(server: str, page: Any) -> None:
    """The deal's moves in words, newest last, from the state's history; the plays since my
    last move marked; a sweep's points shown; a live region reads new moves out."""
    page.set_viewport_size({"width": 1280, "height": 720})
    create_table(page, server, "Asha")
    start(page)
    wait_my_play_turn(page)
    # Play on until the bots have moved after one move of mine.
    while page.evaluate(
        "() => { const h = window.seepTable.state.view.history;"
        " const mine = h.map(m => m.seat).lastIndexOf(0);"
        " return mine < 0 || mine === h.length - 1; }"
    ):
        page.evaluate(
            "() => { const L = window.seepTable.state.legal;"
            " window.seepTable.play(L.find(m => m.action !== 'bid') || L[0]); }"
        )
        page.wait_for_function("() => document.body.dataset.myturn !== 'true'")
        wait_my_play_turn(page)
    st = state_of(page)
    history = st["view"]["history"]
    lines = page.locator("#movelog-list li.log-move")
    assert lines.count() == len(history)
    names = {0: "You", 1: "Bot W", 2: "Bot S", 3: "Bot E"}
    for i, m in enumerate(history):
        text = lines.nth(i).inner_text()
        assert names[m["seat"]] in text and "NWSE"[m["seat"]] in text, text
        if m.get("card"):
            assert m["card"][0].replace("T", "10") in text, (m, text)
    mine = max(i for i, m in enumerate(history) if m["seat"] == 0)
    since = page.eval_on_selector_all("#movelog-list li.since", "els => els.map(e => +e.dataset.i)")
    assert since == [i for i in range(mine + 1, len(history)) if history[i]["seat"] != 0]
    assert page.get_attribute("#movelog-live", "aria-live") == "polite"
    assert page.get_attribute("#movelog-list", "tabindex") == "0"
    assert page.locator("#movelog-box[open]").count() == 1  # open on a desktop
    screenshot(page, "movelog")

    # A capture that swept: the log says so, from the server's history_sweeps.
    pause_socket(page)
    st["history_sweeps"] = [0] * len(history)
    st["view"]["history"].append(
        {"action": "capture", "card": "KH", "loose": ["9C", "4D"], "seat": 1}
    )
    st["history_sweeps"].append(50)
    st["legal"] = []
    st["version"] += 1
    feed(page, st)
    last = page.locator("#movelog-list li.log-move").last
    assert "Bot W" in last.inner_text() and "took" in last.inner_text()
    assert last.locator(".log-sweep").inner_text() == "sweep +50"
    live = page.inner_text("#movelog-live")
    assert "Bot W" in live and "king of hearts" in live and "sweep +50" in live, live


def test_the_phone_settings_menu(server: str, browser: Any) -> None:
    """At 390 px the settings sit behind one button: aria-expanded, opened and closed by
    keyboard (Escape gives the focus back), Sound, language, four colours and How to play."""
    errors: list[str] = []
    pg = new_page(browser, 390, 844, errors)
    try:
        create_table(pg, server, "Meera")
        start(pg)
        assert pg.is_visible("#menu-btn") and not pg.is_visible("#mute-btn")
        assert pg.get_attribute("#menu-btn", "aria-expanded") == "false"
        assert pg.locator("#movelog-box[open]").count() == 0  # a strip on a phone
        assert pg.is_visible("#movelog-summary")
        pg.focus("#menu-btn")
        pg.keyboard.press("Enter")
        assert pg.get_attribute("#menu-btn", "aria-expanded") == "true"
        for sel in ("#mute-btn", ".lang-switch", "#four-colour-btn", ".howto-link"):
            assert pg.is_visible(f"#settings-menu {sel}"), sel
            box = pg.locator(f"#settings-menu {sel}").bounding_box()
            assert box and box["x"] >= 0 and box["x"] + box["width"] <= 390, (sel, box)
        assert pg.evaluate("() => document.activeElement.id") == "mute-btn"
        screenshot(pg, "phone-menu")
        pg.keyboard.press("Enter")  # Sound off, from the menu
        assert pg.inner_text("#mute-btn") == "Sound off"
        pg.keyboard.press("Escape")
        assert not pg.is_visible("#mute-btn")
        assert pg.get_attribute("#menu-btn", "aria-expanded") == "false"
        assert pg.evaluate("() => document.activeElement.id") == "menu-btn"
        # The four-colour deck: clubs green, remembered.
        pg.click("#menu-btn")
        pg.click("#four-colour-btn")
        assert pg.get_attribute("#four-colour-btn", "aria-pressed") == "true"
        pg.reload()
        pg.wait_for_selector(".seat .name")
        assert pg.evaluate("() => document.documentElement.classList.contains('four-colour')")
        assert not errors, errors
    finally:
        pg.context.close()


def test_four_colours_in_the_hand_the_floor_and_the_chips(server: str, page: Any) -> None:
    create_table(page, server, "Asha")
    start(page)
    wait_my_play_turn(page)
    pause_socket(page)
    st = state_of(page)
    st["view"]["hands"][0] = ["2C", "3S", "4D", "5H"]
    st["view"]["loose"] = ["6C", "7S"]
    st["view"]["history"] = [{"action": "throw", "card": "9C", "seat": 1}]
    st["history_sweeps"] = [0]
    st["legal"] = [{"action": "throw", "card": c} for c in st["view"]["hands"][0]]
    st["version"] += 1
    feed(page, st)
    colour = "(sel) => getComputedStyle(document.querySelector(sel)).color"
    assert page.evaluate(colour, ".hand .card[data-c='2C']") == page.evaluate(
        colour, ".hand .card[data-c='3S']"
    )  # two colours: clubs and spades alike
    page.click("#four-colour-btn")
    green, blue = "rgb(23, 128, 58)", "rgb(31, 95, 191)"
    assert page.evaluate(colour, ".hand .card[data-c='2C']") == green
    assert page.evaluate(colour, ".hand .card[data-c='4D']") == blue
    assert page.evaluate(colour, ".floor .card[data-c='6C']") == green
    assert page.evaluate(colour, "#movelog-list .chip.suit-C") == green
    assert page.evaluate(colour, ".hand .card[data-c='3S']") != green


# --- the layout -----------------------------------------------------------------------------


def _house(value: int, cards: list[str], owner: int, cemented: bool = False) -> dict[str, Any]:
    return {"value": value, "cards": cards, "owners": [owner], "cemented": cemented}


@pytest.mark.parametrize("size", [(1280, 720), (390, 844)])
def test_the_hand_stays_in_view_as_the_floor_grows(
    server: str,
    browser: Any,
    size: tuple[int, int],
) -> None:
    """The hand inside the screen and its top still (within 2 px) from an empty floor to three
    houses and eight loose cards, and while the move buttons come and go."""
    width, height = size
    errors: list[str] = []
    pg = new_page(browser, width, height, errors)
    try:
        create_table(pg, server, "Asha")
        start(pg)
        wait_my_play_turn(pg)
        pause_socket(pg)
        base = state_of(pg)
        hand = ["AS", "2H", "3D", "4C", "5S", "6H", "7D", "8C", "9S", "TH", "JD", "QC"]
        floors: list[tuple[list[str], list[dict[str, Any]]]] = [
            ([], []),
            (["KS", "KH"], []),
            (["KS", "KH", "KD", "KC"], [_house(9, ["4S", "5H"], 0)]),
            (
                ["KS", "KH", "KD", "KC", "QS", "QH", "JS", "JH"],
                [
                    _house(9, ["4S", "5H"], 0),
                    _house(11, ["AH", "TD", "6S", "5D"], 1, True),
                    _house(13, ["9D", "4H", "8S", "5C"], 2, True),
                ],
            ),
        ]
        tops = []
        for i, (loose, houses) in enumerate(floors):
            st = copy.deepcopy(base)
            st["view"]["hands"][0] = hand[: 12 - i]
            st["view"]["loose"] = loose
            st["view"]["houses"] = houses
            st["legal"] = [{"action": "throw", "card": c} for c in hand[: 12 - i]]
            st["version"] += i + 1
            feed(pg, st)
            # A card's moves show above the hand (clicked from the script: nothing scrolls).
            pg.evaluate(
                "() => { window.scrollTo(0, 0); document.querySelector('.hand .card').click(); }"
            )
            box = pg.locator("#hand").bounding_box()
            assert box, "no hand"
            cards = pg.locator("#hand .card").last.bounding_box()
            assert cards and cards["y"] + cards["height"] <= height, (size, i, cards)
            assert cards["x"] + cards["width"] <= width, (size, i, cards)
            assert box["y"] >= 0 and box["y"] + box["height"] <= height, (size, i, box)
            bar = pg.locator(".sidebar .tools").bounding_box()
            if width <= 640 and bar:  # the phone's Hint bar, fixed at the bottom
                assert cards["y"] + cards["height"] <= bar["y"], (size, i, cards, bar)
            tops.append(box["y"])
        assert max(tops) - min(tops) <= 2, f"the hand moved: {tops}"
        assert pg.locator(".floor .house").count() == 3
        assert not errors, errors
    finally:
        pg.context.close()


# --- seats, keys and the smaller items -------------------------------------------------------


def test_one_seat_naming_scheme(server: str, page: Any) -> None:
    """The compass names in the waiting room, the seat heads and the teams, Hindi too."""
    create_table(page, server, "Asha")
    rows = page.eval_on_selector_all(".seat-list .compass-name", "els => els.map(e => e.innerText)")
    assert rows == ["North", "West", "South", "East"]
    assert "Seat 1" not in page.inner_text(".waiting")
    assert "North & South play against West & East" in page.inner_text(".waiting")
    assert (
        page.evaluate(
            "async () => { const c = await import('/static/js/cards.js');"
            " return [0, 1, 2, 3].map(s => c.seatLetter(s, 4)).join('')"
            " + c.seatLetter(1, 2) + c.seatCompass(1, 2); }"
        )
        == "NWSESSouth"
    )
    start(page)
    heads = page.eval_on_selector_all(".seat .compass-word", "els => els.map(e => e.innerText)")
    assert sorted(h.upper() for h in heads) == ["EAST", "NORTH", "SOUTH", "WEST"]
    assert "North–South" in page.inner_text("#score-team0")
    page.evaluate("() => localStorage.setItem('seep:lang', 'hi')")
    page.reload()
    page.wait_for_selector(".seat .compass-word")
    heads = page.eval_on_selector_all(".seat .compass-word", "els => els.map(e => e.innerText)")
    assert sorted(heads) == sorted(["उत्तर", "पश्चिम", "दक्षिण", "पूर्व"])
    page.evaluate("() => localStorage.setItem('seep:lang', 'en')")


def test_enter_plays_the_narrowed_move(server: str, page: Any) -> None:
    """A click narrows the move to one Play button; Enter plays it (it used to un-pick)."""
    create_table(page, server, "Asha")
    start(page)
    wait_my_play_turn(page)
    pause_socket(page)
    st = state_of(page)
    st["view"]["hands"][0] = ["9C", "3H"]
    st["view"]["loose"] = ["4S", "5D"]
    st["view"]["houses"] = []
    st["legal"] = [
        {"action": "capture", "card": "9C", "loose": ["4S", "5D"], "houses": []},
        {"action": "throw", "card": "9C"},
        {"action": "throw", "card": "3H"},
    ]
    st["version"] += 1
    feed(page, st)
    page.evaluate(
        "() => { window.sent = [];"
        " window.seepTable.send = (m) => { window.sent.push(m); return true; }; }"
    )
    page.click(".hand .card[data-c='9C']")
    page.click(".floor .card[data-c='4S']")  # narrowed: only the capture takes the 4♠
    page.wait_for_selector("#confirm-btn")
    assert page.evaluate("() => document.activeElement.dataset.c") == "4S"
    page.keyboard.press("Enter")
    sent = page.evaluate("() => window.sent")
    assert [m["move"]["action"] for m in sent] == ["capture"], sent


def test_the_smaller_items(server: str, page: Any) -> None:
    """Undo only once I have moved; Record and Replay only once a deal is over; the clock's
    notice in words; "1 card"; a favicon."""
    with urllib.request.urlopen(server + "/favicon.ico") as r:
        assert r.status == 200 and r.headers["Content-Type"].startswith("image/svg+xml")
    page.goto(server + "/how-to-play")
    assert page.get_attribute("link[rel=icon]", "href") == "/favicon.ico"
    create_table(page, server, "Asha", practice=True)
    assert page.get_attribute("link[rel=icon]", "href") == "/favicon.ico"
    start(page)
    wait_my_play_turn(page)
    pause_socket(page)
    st = state_of(page)
    st["view"]["history"] = [m for m in st["view"]["history"] if m["seat"] != 0]
    st["history_sweeps"] = [0] * len(st["view"]["history"])
    st["version"] += 1
    feed(page, st)
    assert page.locator("#hint-btn").count() == 1
    assert page.locator("#undo-btn").count() == 0, "Undo before any move of mine"
    assert page.locator("#record-btn, #replay-btn").count() == 0, "Record before a deal is over"
    # The clock plays for me: the notice words the move.
    page.evaluate("() => document.querySelectorAll('.toast').forEach(t => t.remove())")
    played = copy.deepcopy(st)
    played["view"]["history"].append(
        {"action": "build", "card": "2D", "loose": ["TH"], "value": 12, "seat": 0}
    )
    played["history_sweeps"].append(0)
    played["view"]["hands"][1] = 1
    played["legal"] = []
    played["version"] += 1
    feed(page, played)
    page.wait_for_selector(".toast")
    assert page.inner_text(".toast") == (
        "The clock played for you: 2♦ built a house of 12 with 10♥."
    )
    assert page.locator("#undo-btn").count() == 1, "Undo once I have moved"
    backs = page.get_attribute(".seat[data-seat='1'] .backs", "title")
    assert backs == "1 card"
    done = copy.deepcopy(played)
    done["match"]["deals"] = 1
    done["version"] += 1
    feed(page, done)
    assert page.locator("#record-btn").count() == 1 and page.locator("#replay-btn").count() == 1
