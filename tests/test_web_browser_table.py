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
from typing import Any

import pytest

from test_web_browser import (  # noqa: F401 - fixtures
    TIMEOUT,
    browser,
    create_table,
    page,
    screenshot,
    server,
    start,
    watch_csp,
)

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
    """Wait until this page may play a card (the bots have bid and opened)."""
    pg.wait_for_function(
        "() => document.body.dataset.myturn === 'true' && document.body.dataset.phase === 'play'",
        timeout=TIMEOUT,
    )


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


def test_the_summary_gives_social_js_a_hook(server: str, page: Any) -> None:  # noqa: F811
    """#summary-extra inside the summary dialog, a "seep:summary" event when it opens, and
    what social.js puts there survives the dialog's redraws."""
    create_table(page, server, "Asha")
    start(page)
    pause_socket(page)
    page.evaluate(
        "() => { window.summaryEvents = [];"
        " document.addEventListener('seep:summary', (e) => {"
        " window.summaryEvents.push(e.detail.deal);"
        " e.detail.extra.innerHTML = '<p id=review-here>review</p>'; }); }"
    )
    st = state_of(page)
    st["summary"] = copy.deepcopy(SUMMARY)
    feed(page, st)
    page.wait_for_selector("#summary #summary-extra #review-here")
    st["version"] += 1
    feed(page, st)  # the same summary drawn again: no second event, the review stays
    assert page.locator("#summary #summary-extra #review-here").count() == 1
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
