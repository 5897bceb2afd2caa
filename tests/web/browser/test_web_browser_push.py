"""Web Push in chromium (issue 27 item 4): the table's switch subscribes and the server learns
the seat, the page tells the server when it is hidden, the server's push for the player's turn
reaches the test's push service (VAPID checked, decrypted), and the service worker shows it.

Headless chromium reaches no real push service: ``PushManager.prototype.subscribe`` is
replaced in the page by one answering a subscription at the test's local push service, with
keys the test made; everything else is the page's and the server's own path. The decrypted
message is then handed to the service worker as a push service would
(CDP ``ServiceWorker.deliverPushMessage``), and the notification it shows is read back with
``registration.getNotifications()``."""

from __future__ import annotations

import base64
import json
import random
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pywebpush")

from seepkit.browser import TIMEOUT, app_server, open_seat, play_turn, wait_turn, watch_csp
from seepkit.push import PushService, check_vapid, push_service

# Runs in every page before its scripts: the stubbed push manager, and a page whose
# visibility the test sets (headless chromium's pages are always "visible").
STUB = """(() => {
  if (typeof window === "undefined" || !window.PushManager) return;
  const info = %s;
  const sub = {
    endpoint: info.endpoint,
    expirationTime: null,
    toJSON() { return info; },
    async unsubscribe() { window.__pushSub = null; return true; },
  };
  PushManager.prototype.subscribe = async function (options) {
    window.__pushKey = Array.from(new Uint8Array(options.applicationServerKey));
    window.__pushSub = sub;
    return sub;
  };
  PushManager.prototype.getSubscription = async function () { return window.__pushSub || null; };
  let hidden = false;
  Object.defineProperty(Document.prototype, "hidden", { configurable: true, get: () => hidden });
  Object.defineProperty(Document.prototype, "visibilityState", {
    configurable: true, get: () => (hidden ? "hidden" : "visible") });
  window.__setHidden = (h) => {
    hidden = h;
    document.dispatchEvent(new Event("visibilitychange"));
  };
})();"""


@pytest.fixture(scope="module")
def service() -> Iterator[PushService]:
    with push_service() as s:
        yield s


@pytest.fixture(scope="module")
def push_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    tmp = tmp_path_factory.mktemp("push")
    env = {"SEEP_PUSH_LOOPBACK": "1", "SEEP_PUSH_TURN_SECONDS": "0.3"}
    with app_server(tmp, **env) as base:
        yield base, tmp / "seep.db"


def test_the_page_subscribes_and_the_worker_shows_the_turn(
    browser: Any, service: PushService, push_server: tuple[str, Path]
) -> None:
    base, db = push_server
    ctx = browser.new_context(viewport={"width": 1280, "height": 860})
    ctx.set_default_timeout(TIMEOUT)
    ctx.grant_permissions(["notifications"], origin=base)
    asha = service.browser("/asha")
    ctx.add_init_script(STUB % json.dumps(asha.subscription()))
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    watch_csp(page, errors)
    try:
        page.goto(base + "/")
        code = open_seat(page, base, name="Asha", bots="easy", deals=1)
        page.goto(f"{base}/t/{code}")
        page.wait_for_selector("#start-btn")
        switch = page.locator("#push-btn")
        assert switch.get_attribute("aria-checked") == "false"
        switch.click()
        page.wait_for_selector("#push-btn[aria-checked='true']")
        page.wait_for_selector(".toast.info")
        # The page subscribed with the server's key, and the server keeps the seat for it.
        key = page.evaluate("() => fetch('/api/push/key').then(r => r.json())")["key"]
        raw = base64.urlsafe_b64decode(key + "=" * (-len(key) % 4))
        page.wait_for_function("() => window.__pushKey !== undefined")
        assert page.evaluate("() => window.__pushKey") == list(raw)
        with sqlite3.connect(db) as con:
            seats = con.execute(
                "SELECT code, lang FROM push_seats JOIN push_subscriptions"
                " ON push_seats.subscription = push_subscriptions.id"
            )
            assert (code, "en") in seats.fetchall()
        page.click("#start-btn")
        # My turn, my page in sight: nothing is sent. Then the page is hidden: one push.
        rng = random.Random(7)
        while not wait_turn(page):
            pass
        assert not service.received
        page.evaluate("() => window.__setHidden(true)")
        got = service.wait(1)[0]
        assert got.path == "/asha"
        check_vapid(got, key, service.origin)
        message = asha.decrypt(got)
        assert message["key"] == "turn" and message["code"] == code
        # The push service hands it to the service worker, which shows the notification.
        shown = _deliver(ctx, page, base, message)
        assert shown == [["Seep", f"Your turn at table {code}", f"seep-{code}"]]
        # Back in sight, the player plays on; the switch turns them off and unsubscribes.
        page.evaluate("() => window.__setHidden(false)")
        play_turn(page, rng)
        page.locator("#push-btn").click()
        page.wait_for_selector("#push-btn[aria-checked='false']")
        page.wait_for_function("() => window.__pushSub === null")
        with sqlite3.connect(db) as con:
            assert con.execute("SELECT count(*) FROM push_subscriptions").fetchone() == (0,)
    finally:
        ctx.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


def _deliver(ctx: Any, page: Any, base: str, message: dict[str, Any]) -> list[list[str]]:
    """Hand ``message`` to the page's service worker as its push service would (CDP), and
    return the notifications it then shows: [title, body, tag] each."""
    cdp = ctx.new_cdp_session(page)
    registrations: list[dict[str, Any]] = []
    cdp.on(
        "ServiceWorker.workerRegistrationUpdated",
        lambda e: registrations.extend(e["registrations"]),
    )
    cdp.send("ServiceWorker.enable")
    page.wait_for_function("() => navigator.serviceWorker.ready.then(() => true)")
    for _ in range(200):
        if any(r["scopeURL"] == base + "/" for r in registrations):
            break
        page.wait_for_timeout(50)
    (reg,) = [r for r in registrations if r["scopeURL"] == base + "/" and not r["isDeleted"]]
    cdp.send(
        "ServiceWorker.deliverPushMessage",
        {"origin": base, "registrationId": reg["registrationId"], "data": json.dumps(message)},
    )
    shown: list[list[str]] = []
    for _ in range(400):  # until the worker has shown it
        shown = page.evaluate(
            """() => navigator.serviceWorker.ready
                 .then(r => r.getNotifications())
                 .then(ns => ns.map(n => [n.title, n.body, n.tag]))"""
        )
        if shown:
            break
        page.wait_for_timeout(50)
    return shown


def test_the_notification_is_in_the_pages_language(
    browser: Any, service: PushService, push_server: tuple[str, Path]
) -> None:
    """The Hindi page keeps its words for the worker: a push in Hindi shows them."""
    base, _db = push_server
    ctx = browser.new_context(viewport={"width": 1280, "height": 860})
    ctx.set_default_timeout(TIMEOUT)
    ctx.grant_permissions(["notifications"], origin=base)
    ctx.add_init_script("localStorage.setItem('seep:lang', 'hi')")
    ctx.add_init_script(STUB % json.dumps(service.browser("/ravi").subscription()))
    page = ctx.new_page()
    try:
        page.goto(base + "/")
        code = open_seat(page, base, name="Ravi", bots="easy", deals=1)
        page.goto(f"{base}/t/{code}")
        page.wait_for_selector("#start-btn")
        assert page.locator("#push-btn").inner_text() == "मेरी बारी आने पर सूचना दें"
        page.locator("#push-btn").click()
        page.wait_for_selector("#push-btn[aria-checked='true']")
        page.wait_for_selector(".toast.info")
        message = {"type": "seep", "key": "turn", "lang": "hi", "code": code}
        shown = _deliver(ctx, page, base, message)
        assert shown == [["Seep", f"टेबल {code} पर आपकी बारी", f"seep-{code}"]]
    finally:
        ctx.close()
