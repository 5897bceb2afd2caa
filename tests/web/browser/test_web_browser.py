"""The page in a real browser: Playwright drives Debian's chromium against a real server.

A uvicorn subprocess serves the app on a free port with a temporary SQLite file and fast bots.
The tests create a table in the lobby and play a whole deal by clicking (with a reload in the
middle), seat two friends at one table from two browser contexts, and check a phone-sized
screen. With ``SEEP_SCREENSHOTS=1`` they save docs/screenshots/{start,middeal,summary,phone}.png.

Select them with ``pytest -m browser`` (or leave them out with ``-m "not browser"``).
"""

from __future__ import annotations

import random
import time
from typing import Any

import pytest

from seepkit.browser import (
    TIMEOUT,
    choose_move,
    confirm_and_wait,
    create_table,
    hand,
    open_seat,
    play_turn,
    plays,
    screenshot,
    show_choices,
    start,
    wait_turn,
    watch_csp,
)

pytestmark = pytest.mark.browser


# --- the tests ------------------------------------------------------------------------------


def test_play_a_whole_deal_by_clicking_with_a_reload(server: str, page: Any) -> None:
    rng = random.Random(4)
    code = create_table(page, server, "Asha", deals=2)
    assert page.locator(".seat-list li").count() == 4
    start(page)
    page.wait_for_selector(".seat .name")
    screenshot(page, "start")

    reloaded = shot_mid = hinted = False
    my_moves = 0
    while wait_turn(page):
        n = plays(page)
        if not hinted and n > 0:
            # The hint: the bots' suggestion with its reason, selected for a confirm.
            page.click("#hint-btn")
            page.wait_for_selector("#hint-box .reason")
            assert page.inner_text("#hint-box .reason").strip()
            page.click("[data-act=use-hint]")
            page.wait_for_selector("#confirm-btn")
            confirm_and_wait(page)
            hinted = True
            my_moves += 1
            continue
        if not shot_mid and n >= 17:
            show_choices(page)  # a card with several uses chosen: the move panel on show
            screenshot(page, "middeal")
            page.click("[data-act=clear]")
            shot_mid = True
        if not reloaded and n >= 25:
            cards = hand(page)
            page.reload()
            page.wait_for_selector(".hand .card")
            assert wait_turn(page)
            assert hand(page) == cards  # the token brought us back to our seat and cards
            assert plays(page) == n
            # A dropped connection: the socket comes back by itself and the state is redrawn.
            page.evaluate("() => window.seepTable.socket.ws.close()")
            page.wait_for_selector("#conn.closed, #conn.connecting")
            page.wait_for_selector("#conn.open")
            assert wait_turn(page)
            assert hand(page) == cards
            reloaded = True
        play_turn(page, rng)
        my_moves += 1
    assert reloaded and hinted and shot_mid
    assert my_moves >= 12  # 12 plays (and the bid when we were the bidder)

    page.wait_for_selector("#summary .sum-table")
    assert page.locator("#summary .sum-table tbody tr").count() == 2
    assert "Deal 1 is over" in page.inner_text("#summary h2")
    screenshot(page, "summary")
    axe_check(page, "the deal summary")

    # The finished deal replays in the browser, position by position, forwards and back.
    replay = page.context.new_page()
    replay.set_default_timeout(TIMEOUT)
    replay.goto(f"{server}/replay/{code}")
    replay.wait_for_selector("#replay-next")
    for _ in range(3):
        replay.click("#replay-next")
    replay.wait_for_selector(".replay-move")
    at = "n => document.querySelector('#replay-pos').textContent.includes(`move ${n} of`)"
    replay.wait_for_function(at, arg=3)
    replay.click("#replay-prev")
    replay.wait_for_function(at, arg=2)
    # Always true two moves in (the floor may be empty, after an opening sweep): four hands
    # with cards in them, and the floor's counters.
    assert replay.locator(".replay-hand").count() == 4
    assert replay.locator(".replay-hand .card").count() > 0
    assert "Plays" in replay.locator(".replay-floor .floor-info").inner_text()
    # Teams by name; the seats around the floor as in play (seat 1 at the bottom, its
    # partner at the top); autoplay moves on by itself at the chosen speed.
    assert "Asha" in replay.inner_text("#replay-teams")
    assert replay.get_attribute(".replay-board .me-area .seat", "data-seat") == "0"
    assert replay.get_attribute(".replay-board .seat-slot.top .seat", "data-seat") == "2"
    assert replay.get_attribute(".replay-board .seat-slot.right .seat", "data-seat") == "1"
    replay.select_option("#replay-speed", "4")
    replay.click("#replay-play")
    replay.wait_for_function(at, arg=6)
    replay.click("#replay-play")  # pause
    assert replay.evaluate("() => document.body.dataset.autoplay") == "false"
    axe_check(replay, "the replay")
    # The deal's end: the result with the teams' names, the leftover cards and their taker.
    replay.click("[data-act=last]")
    replay.wait_for_selector("#replay-result")
    assert "Asha" in replay.inner_text("#replay-result")
    left = replay.inner_text("#replay-leftover")
    assert "taken by" in left or "No cards were left" in left, left
    replay.close()

    page.click("#next-btn")
    # Deal 2 starts: the summary goes, the history lists deal 1, the hands are dealt again.
    page.wait_for_selector("#summary", state="detached")
    page.wait_for_selector(".hist-table tbody tr")
    assert page.locator(".hist-table tbody tr").count() == 1


def test_two_friends_at_one_table(server: str, browser: Any) -> None:
    rng = random.Random(7)
    ctx_a = browser.new_context(viewport={"width": 1200, "height": 820})
    ctx_b = browser.new_context(viewport={"width": 1200, "height": 820})
    try:
        a, b = ctx_a.new_page(), ctx_b.new_page()
        a.set_default_timeout(TIMEOUT)
        b.set_default_timeout(TIMEOUT)
        code = create_table(a, server, "Asha", bots="easy", deals=1)

        # An unknown room code is refused with a message in the lobby.
        b.goto(server + "/")
        b.fill("#join-code", "ZZZZ")
        b.fill("#join-code-form input[name=name]", "Ravi")
        b.click("#join-code-btn")
        b.wait_for_selector(".toast")

        # The share link: Ravi opens it, picks the partner's seat (seat 3, index 2) and sits.
        b.goto(f"{server}/t/{code}")
        b.fill("#join-name", "Ravi")
        b.select_option("#join-seat", "2")
        b.click("#join-btn")
        b.wait_for_selector(".seat-list")
        a.wait_for_function(
            "() => (document.querySelector('.seat-list')?.innerText ?? '').includes('Ravi')"
        )
        assert b.locator("#start-btn").count() == 0  # only the host starts
        a.click("#start-btn")
        for pg in (a, b):
            pg.wait_for_function("() => document.body.dataset.status === 'playing'")
        # Each sees the other by name, as partner at the top.
        a.wait_for_selector("#seat-top .name:has-text('Ravi')")
        b.wait_for_selector("#seat-top .name:has-text('Asha')")

        # The whole deal, each playing his own turns; the match (one deal) then ends.
        moves = {"a": 0, "b": 0}
        pages = {"a": a, "b": b}
        deadline = time.monotonic() + 240
        checked = False
        while time.monotonic() < deadline:
            if all(pg.locator("#summary").count() for pg in pages.values()):
                break
            for key, pg in pages.items():
                if pg.evaluate("() => document.body.dataset.myturn") == "true":
                    play_turn(pg, rng)
                    moves[key] += 1
            if not checked and min(moves.values()) >= 2:
                assert hand(a) and hand(b) and not set(hand(a)) & set(hand(b))
                checked = True
            a.wait_for_timeout(30)
        assert checked and min(moves.values()) >= 12, moves
        # The results screen: both see the final score; it can be closed and opened again.
        for pg in (a, b):
            pg.wait_for_selector("#summary .sum-table")
            title = pg.inner_text("#summary h2")
            assert "match" in title, title
            assert pg.locator("#summary .baazi-count").count() == 1
            # The winner is named (on baazis, else on the lead in the unfinished baazi).
            winner = pg.inner_text("#match-winner")
            assert "wins the match" in winner or "win the match" in winner or "draw" in winner
        a.click("[data-act=close-summary]")
        a.wait_for_selector("#summary", state="detached")
        # After the match the last deal stays on show with each seat's last move.
        a.wait_for_function("() => document.body.dataset.status === 'finished'")
        assert a.locator(".seat .last:not(.none)").count() == 4
        a.click("#results-btn")
        a.wait_for_selector("#summary")
    finally:
        ctx_a.close()
        ctx_b.close()


def test_the_host_takes_a_stranger_off_the_table(server: str, browser: Any) -> None:
    ctx_a = browser.new_context(viewport={"width": 1200, "height": 820})
    ctx_b = browser.new_context(viewport={"width": 1200, "height": 820})
    errors: list[str] = []
    try:
        a, b = ctx_a.new_page(), ctx_b.new_page()
        for pg in (a, b):
            pg.set_default_timeout(TIMEOUT)
            watch_csp(pg, errors)
        code = create_table(a, server, "Asha", bots="easy", deals=1)
        b.goto(f"{server}/t/{code}")
        b.fill("#join-name", "Stranger")
        b.click("#join-btn")
        b.wait_for_selector(".seat-list")
        # The host sees who joined, and only the host is offered to remove him.
        a.wait_for_selector(".seat-list [data-act=kick]")
        assert "Stranger" in a.inner_text(".seat-list")
        assert b.locator("[data-act=kick]").count() == 0
        a.click(".seat-list [data-act=kick]")
        b.wait_for_selector(".toast:has-text('took you off')")
        b.wait_for_selector(".spectator")  # he watches now; his token is gone
        a.wait_for_function(
            "() => !(document.querySelector('.seat-list')?.innerText ?? '').includes('Stranger')"
        )
        assert b.evaluate(f"() => localStorage.getItem('seep:token:{code}')") is None
    finally:
        ctx_a.close()
        ctx_b.close()
    assert not errors, errors


def test_phone_size_practice_with_undo(server: str, browser: Any) -> None:
    rng = random.Random(2)
    ctx = browser.new_context(
        viewport={"width": 390, "height": 844},
        device_scale_factor=2,
        is_mobile=True,
        has_touch=True,
    )
    try:
        page = ctx.new_page()
        page.set_default_timeout(TIMEOUT)
        page.goto(server + "/how-to-play")
        page.wait_for_selector("#break .house .card")
        width = page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= 390, f"How to play is {width}px wide on a 390px screen"
        page.goto(server + "/")
        width = page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= 390, f"the lobby is {width}px wide on a 390px screen"
        create_table(page, server, "Meera", practice=True)
        start(page)
        # Our first turn after the bid: play a move, then take it back.
        while True:
            assert wait_turn(page)
            if page.locator("[data-act=play-now]").count() == 0 and plays(page) > 0:
                break
            play_turn(page, rng)
        cards = hand(page)
        n = plays(page)
        play_turn(page, rng)
        page.wait_for_function("() => document.body.dataset.myturn === 'true'")
        assert len(hand(page)) == len(cards) - 1
        page.click("#undo-btn")
        page.wait_for_function("n => Number(document.body.dataset.plays) === n", arg=n)
        assert hand(page) == cards

        choose_move(page, rng)
        width = page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= 390, f"the table is {width}px wide on a 390px screen"
        for sel in ("#confirm-btn", ".hand .card.selected", "#floor"):
            box = page.locator(sel).first.bounding_box()
            assert box and box["x"] >= 0 and box["x"] + box["width"] <= 390, f"{sel}: {box}"
        screenshot(page, "phone")
        # Taken: the play count moves on (the bots may answer before a check of the turn).
        n = plays(page)
        page.click("#confirm-btn")
        page.wait_for_function(
            "n => document.body.dataset.myturn !== 'true'"
            " || Number(document.body.dataset.plays) !== n",
            arg=n,
        )
    finally:
        ctx.close()


def test_how_to_play_and_replay_pages(server: str, page: Any) -> None:
    page.goto(server + "/how-to-play")
    page.wait_for_selector("#cement .house.cemented .card")
    for section in ("cards", "deal", "capture", "houses", "cement", "break", "sweep", "baazi"):
        assert page.locator(f"section#{section} h2").count() == 1
    code = create_table(page, server, "Asha", practice=True)
    start(page)
    rng = random.Random(1)
    while plays(page) < 2:
        page.wait_for_function(
            "() => document.body.dataset.myturn === 'true'"
            " || Number(document.body.dataset.plays) >= 2"
        )
        if page.evaluate("() => document.body.dataset.myturn") == "true":
            play_turn(page, rng)
    # A deal still being played is not replayed: its record would show every hand.
    page.goto(f"{server}/replay/{code}")
    page.wait_for_selector("h2:has-text('Nothing to replay yet')")


# --- issue 13: the table comes alive, the polish list, replay, keyboard, axe, Hindi ---------


SERIOUS = ("serious", "critical")


def axe_check(page: Any, where: str) -> None:
    """No serious or critical axe-core violation on the page as it is now."""
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page)
    bad = [
        f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes'][:3]]}"
        for v in results.response["violations"]
        if v.get("impact") in SERIOUS
    ]
    assert not bad, f"axe on {where}: {bad}"


def contrast(fg: str, bg: str) -> float:
    """The WCAG contrast ratio of two computed colours ("rgb(1, 2, 3)" / "rgba(...)")."""

    def lum(c: str) -> float:
        parts = [float(x) for x in c[c.index("(") + 1 : c.index(")")].split(",")[:3]]
        ch = [p / 255 for p in parts]
        lin = [x / 12.92 if x <= 0.03928 else ((x + 0.055) / 1.055) ** 2.4 for x in ch]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    a, b = sorted((lum(fg), lum(bg)), reverse=True)
    return (a + 0.05) / (b + 0.05)


def patched_state(page: Any, js: str) -> None:
    """Redraw the table from the server's latest state changed by ``js`` (a function body
    over ``s``, the state copy): to show what a rare position looks like."""
    page.evaluate(
        "() => { const s = JSON.parse(JSON.stringify(window.seepTable.state));"
        f" {js} window.seepTable.setState(s); }}"
    )


def test_the_table_comes_alive_and_the_polish_list(server: str, page: Any) -> None:
    code = create_table(page, server, "Asha", practice=True)
    axe_check(page, "the waiting room")
    start(page)
    page.click("#mute-btn")  # a click: sound is allowed from now on; and the mute switch
    assert page.inner_text("#mute-btn") == "Sound off"
    page.click("#mute-btn")
    assert page.inner_text("#mute-btn") == "Sound on"
    assert page.evaluate("() => localStorage.getItem('seep:mute')") == "0"
    rng = random.Random(3)
    while plays(page) < 6 or not wait_turn(page):
        if wait_turn(page):
            play_turn(page, rng)
    # In a background tab the title flashes "Your turn" until the turn is played.
    page.evaluate("() => { document.hasFocus = () => false; }")
    play_turn(page, rng)
    assert wait_turn(page)
    page.wait_for_function("() => document.title.includes('Your turn')")
    # Bot moves glided into place; our turn came with its tone.
    assert page.evaluate("() => window.seepAnimated || 0") > 0
    assert page.evaluate("() => window.seepTones || 0") >= 1
    axe_check(page, "a table mid-deal")

    # The Play button: its words (house numbers included) readable on the yellow.
    page.evaluate(
        "() => { const b = document.createElement('button'); b.className = 'btn primary big';"
        " b.id = 'probe'; b.innerHTML = 'Play: <span class=\"hv\">house 11</span>';"
        " document.querySelector('#actions').appendChild(b); }"
    )
    colors = page.evaluate(
        "() => { const b = document.querySelector('#probe'), h = b.querySelector('.hv');"
        " return [getComputedStyle(b).color, getComputedStyle(h).color,"
        " getComputedStyle(b).backgroundColor]; }"
    )
    for fg in colors[:2]:
        assert contrast(fg, colors[2]) >= 4.5, colors
    page.evaluate("() => document.querySelector('#probe').remove()")

    # A cemented house drawn set by set (8+4, 7+3+2 = 12), a sweep with its banner, and a
    # dead card saying why (the reason is the server's, from seep.verify.check).
    patched_state(
        page,
        "const me = s.seat; const c = s.view.hands[me][0];"
        "s.view.houses = [{value: 12, cards: ['2C', '3H', '4S', '7C', '8D'], cemented: true,"
        " owners: [me]}];"
        "s.legal = s.legal.filter(m => m.card !== c);"
        "s.dead = {[c]: 'play 1 is bound to the bid 12 (R16)'};",
    )
    sets = page.eval_on_selector_all(
        ".house.cemented .house-set",
        "els => els.map(e => [...e.querySelectorAll('.card')].map(c => c.dataset.card))",
    )
    assert sorted(sorted(s) for s in sets) == [["2C", "3H", "7C"], ["4S", "8D"]], sets
    label = page.get_attribute(".house.cemented", "aria-label") or ""
    assert "12" in label and "8" in label, label
    dead = page.evaluate("() => window.seepTable.state.view.hands[window.seepTable.state.seat][0]")
    page.evaluate("() => document.querySelectorAll('.toast').forEach(t => t.remove())")
    page.click(f".hand .card[data-c='{dead}']")
    page.wait_for_selector(".toast:has-text('R16')")
    assert "no legal use" not in page.inner_text(".toast")
    page.evaluate("() => document.querySelectorAll('.toast').forEach(t => t.remove())")
    patched_state(
        page,
        "const h = s.view.history; s.view.plays += 1; s.view.loose = []; s.view.houses = [];"
        "s.view.sweeps[1] += 50; s.legal = [];"
        "h.push({action: 'capture', card: 'KS', loose: ['KH'], houses: [], seat: 1});"
        "s.history_sweeps = [...(s.history_sweeps || []), 50];"
        "s.view.to_move = 2; s.last_moves[1] = h[h.length - 1];",
    )
    page.wait_for_selector("#sweep-banner:has-text('+50')")
    # The picture once the captured cards have reached the pile and the banner stands.
    page.wait_for_function(
        "() => { const b = document.querySelector('#sweep-banner');"
        " return !document.querySelector('.ghost-card')"
        " && (!b || b.getAnimations().every(a => a.currentTime > 600)); }"
    )
    page.evaluate("() => window.scrollTo(0, 0)")  # the table, not the chat below it
    screenshot(page, "sweep")
    page.reload()  # back to the server's own state
    page.wait_for_selector(".hand .card")
    assert page.inner_text("#mute-btn") == "Sound on"
    assert code


def test_reduced_motion_and_the_clock_notice(server: str, browser: Any) -> None:
    ctx = browser.new_context(viewport={"width": 1200, "height": 820}, reduced_motion="reduce")
    ctx.set_default_timeout(TIMEOUT)
    try:
        page = ctx.new_page()
        page.goto(server + "/")
        open_seat(page, server, name="Slow", bots="easy", turn_seconds=5)
        code = page.evaluate(
            "() => Object.keys(localStorage).find(k => k.startsWith('seep:token:')).slice(11)"
        )
        page.goto(f"{server}/t/{code}")
        page.click("#start-btn")
        page.wait_for_selector(".hand .card, [data-act=play-now]")
        # Nobody moves: the clock plays for us and the page says so.
        page.wait_for_selector(".toast:has-text('The clock played for you')", timeout=TIMEOUT)
        assert page.evaluate("() => document.body.dataset.reducedMotion") == "true"
        assert page.evaluate("() => window.seepAnimated || 0") == 0
    finally:
        ctx.close()


def test_phone_spectator_sees_four_seats_long_names_and_scores(server: str, browser: Any) -> None:
    host = browser.new_context(viewport={"width": 1200, "height": 820})
    phone = browser.new_context(
        viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True
    )
    long_name = "Bhagyalakshmi Ramaswamy"
    try:
        a, b = host.new_page(), phone.new_page()
        for pg in (a, b):
            pg.set_default_timeout(TIMEOUT)
        code = create_table(a, server, long_name, deals=1)
        start(a)
        b.goto(f"{server}/t/{code}")
        b.click("[data-act=watch]")
        b.wait_for_selector(".me-area .seat")
        # A spectator sees all four seats, seat 1 at the bottom.
        seats = b.eval_on_selector_all("#board .seat", "els => els.map(e => e.dataset.seat)")
        assert sorted(seats) == ["0", "1", "2", "3"], seats
        assert b.get_attribute(".me-area .seat", "data-seat") == "0"
        # The long name: shortened on one line, whole on hover, nothing pushed out.
        name = b.locator(".me-area .seat .name")
        assert name.get_attribute("title") == long_name
        members = b.locator(".scores .members").first
        assert long_name in (members.get_attribute("title") or "")
        assert b.evaluate("() => document.documentElement.scrollWidth") <= 390
        # Measured in one go in the page: a state redraws the table, and a cell measured
        # between two redraws would be a detached one.
        outside = b.evaluate(
            "() => { const p = document.querySelector('.scores').getBoundingClientRect();"
            " return [...document.querySelectorAll('.score-table td, .score-table th')]"
            ".map(c => c.getBoundingClientRect())"
            ".filter(r => r.width > 0 && r.right > p.right + 1).length; }"
        )
        assert outside == 0, f"{outside} score cells stick out of their panel"
        # The scores in sight without scrolling (the top bar's line), and the full table
        # when scrolled to: not under the sticky toolbar.
        for sel in ("#scoreline", ".score-table"):
            # Scrolled and measured in one go: a redraw in between would detach the element.
            hit = b.evaluate(
                "(sel) => { const e = document.querySelector(sel);"
                " e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect();"
                " const h = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);"
                " return !!h && e.contains(h); }",
                sel,
            )
            assert hit, f"{sel} is hidden on a phone"
        screenshot(b, "phone-spectator")
        axe_check(b, "a spectator's phone")
    finally:
        host.close()
        phone.close()


def test_keyboard_play_and_hindi(server: str, page: Any) -> None:
    page.goto(server + "/")
    axe_check(page, "the lobby")
    screenshot(page, "lobby")
    page.click(".lang-switch")
    page.wait_for_selector("#create-btn:has-text('मेज़')")
    assert page.evaluate("() => document.documentElement.lang") == "hi"
    page.reload()  # remembered
    page.wait_for_selector("#create-btn:has-text('मेज़')")
    page.goto(server + "/how-to-play")
    page.wait_for_selector("h1:has-text('सीप')")
    axe_check(page, "How to play (Hindi)")
    page.click(".lang-switch")
    page.wait_for_selector("h1:has-text('How to play')")
    axe_check(page, "How to play")

    # A whole turn by keyboard: Tab to a card, Enter, Tab to the move, Enter.
    create_table(page, server, "Kavya", practice=True)
    # The social panel follows the language too (issue 13 item 7): chat, coach, transfer.
    page.evaluate("() => localStorage.setItem('seep:lang', 'hi')")
    page.reload()
    page.wait_for_selector("#start-btn")
    assert page.get_attribute("#chat-input", "placeholder") == "कुछ कहें"
    assert (page.text_content("#coach-label") or "").strip() == "कोच"
    assert "दूसरे डिवाइस" in (page.text_content("#transfer-btn") or "")
    assert page.text_content("#chat-toggle") == "चैट छिपाएँ"
    page.evaluate("() => localStorage.setItem('seep:lang', 'en')")
    page.reload()
    page.wait_for_selector("#start-btn")
    assert page.get_attribute("#chat-input", "placeholder") == "Say something"
    page.focus("#start-btn")
    page.keyboard.press("Enter")
    page.wait_for_selector(".hand .card")
    state = "() => [document.body.dataset.plays, document.body.dataset.phase].join()"
    for _ in range(3):  # three turns (the bid counts as one)
        assert wait_turn(page)
        before = page.evaluate(state)
        for _ in range(150):
            if page.evaluate(state) != before or not page.evaluate(
                "() => document.body.dataset.myturn === 'true'"
            ):
                break
            # Enter on a playable card (none chosen yet), a move or the bid; else Tab on.
            press = page.evaluate(
                "() => { const a = document.activeElement;"
                " if (a.closest('#confirm-btn, [data-act=choose], [data-act=play-now]'))"
                " return true;"
                " return !!a.closest('.hand .card.playable')"
                " && !document.querySelector('.hand .card.selected'); }"
            )
            page.keyboard.press("Enter" if press else "Tab")
        page.wait_for_function(
            "b => [document.body.dataset.plays, document.body.dataset.phase].join() !== b"
            " || document.body.dataset.myturn !== 'true'",
            arg=before,
        )


def test_a_two_player_table_in_the_browser(server: str, page: Any) -> None:
    """Seep for two (docs/rules.md §12): two seats drawn, you at the bottom, one bot opposite;
    a whole deal by clicking, its summary and its replay."""
    rng = random.Random(12)
    code = create_table(page, server, "Asha", preset="two_player")
    start(page)
    assert page.locator("#board .seat").count() == 2
    assert page.get_attribute(".me-area .seat", "data-seat") == "0"
    while wait_turn(page):
        play_turn(page, rng)
    # The deal (the whole one-deal match) is over: the summary names a player, not a team.
    title = page.inner_text("#summary-title")
    assert "opponents" not in title.lower(), title
    # A one-deal match can end level (R7: level in baazis and in D is a drawn match).
    assert title in (
        "You win the match!",
        "Bot wins the match",
        "The match is over",
        "A draw: the match is over",
    ), title
    assert page.locator(".sum-table tbody tr").count() == 2
    # The replay draws two seats and names the two players.
    page.goto(f"{server}/replay/{code}")
    page.wait_for_selector(".replay-move")
    assert page.locator(".replay-board .seat").count() == 2
    teams = page.inner_text("#replay-teams")
    assert "Asha" in teams and "Bot" in teams and "Team" not in teams, teams
