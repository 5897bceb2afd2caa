"""Web Push's sending side (docs/web.md "Notifications"): :class:`Pusher` applies the rules of
*when* (:mod:`seep.web.push`) to the live tables, on the loop's thread, for the seats its
:class:`PushBook` names, and hands the sends to a :class:`Sender`, whose worker threads read the
subscriptions from the store, encrypt, sign and post them, off the loop.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import threading
import time
from collections.abc import Callable, Collection, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from .hub import Hub
    from .store import Store
    from .table import Table

from .push import (
    LOOKUP_SECONDS,
    LOOKUPS,
    TTL_SECONDS,
    PushSettings,
    SeatSeen,
    VapidKeys,
    payload,
    rematch_targets,
    start_targets,
    turn_target,
)

__all__ = ["PushBook", "Pusher", "Sender"]

log = logging.getLogger("seep.web")


# --- sending --------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Job:
    kind: str
    code: str
    token_hash: str | None
    account: int | None


class Sender:
    """Sends pushes in worker threads, off the event loop: at most ``settings.queue`` wait
    (more are dropped, counted in ``dropped``). ``sent``, ``gone`` (deleted on 404/410) and
    ``failed`` count the outcomes."""

    def __init__(self, store: Store, keys: VapidKeys, settings: PushSettings) -> None:
        self.store = store
        self.keys = keys
        self.settings = settings
        self._pool = ThreadPoolExecutor(max(1, settings.workers), thread_name_prefix="seep-push")
        self._lock = threading.Condition()
        self._pending = 0
        self._local = threading.local()
        self._signer: Any = None
        self.sent = self.gone = self.failed = self.dropped = 0

    def submit(self, kind: str, code: str, token_hash: str | None, account: int | None) -> bool:
        """Queue a push to a seat's subscriptions; False when the queue is full."""
        with self._lock:
            if self._pending >= self.settings.queue:
                self.dropped += 1
                return False
            self._pending += 1
        try:
            self._pool.submit(self._run, _Job(kind, code, token_hash, account))
        except RuntimeError:  # the server is stopping: its pool takes no more
            with self._lock:
                self._pending -= 1
            return False
        return True

    def flush(self, timeout: float = 10.0) -> bool:
        """Wait until every queued push is sent (tests); False when ``timeout`` ran out."""
        with self._lock:
            return self._lock.wait_for(lambda: self._pending == 0, timeout)

    def close(self) -> None:
        """Stop taking pushes; those under way finish (each bounded by the timeout)."""
        self._pool.shutdown(wait=False, cancel_futures=True)

    def _run(self, job: _Job) -> None:
        try:
            for target in self.store.push_targets(job.code, job.token_hash, job.account):
                self._send(job, target)
        except Exception as exc:  # a worker's failure must not be lost silently, nor spread
            log.warning("push for table %s not sent: %s", job.code, type(exc).__name__)
        finally:
            with self._lock:
                self._pending -= 1
                self._lock.notify_all()

    def _session(self) -> Any:
        import requests

        session = getattr(self._local, "session", None)
        if session is None:
            session = requests.Session()
            session.max_redirects = 0  # a push service answers; it never sends us elsewhere
            self._local.session = session
        return session

    def _send(self, job: _Job, target: Any) -> None:
        from pywebpush import WebPusher  # type: ignore[import-untyped]

        if self._signer is None:
            self._signer = self.keys.signer()
        parts = urlsplit(target.endpoint)
        claims = {
            "aud": f"{parts.scheme}://{parts.netloc}",
            "sub": self.settings.subject,
            "exp": int(time.time()) + 12 * 3600,
        }
        headers = dict(self._signer.sign(claims))
        headers["Urgency"] = "high" if job.kind == "turn" else "normal"
        headers["Topic"] = f"seep-{job.code}"[:32]  # a newer push of the table replaces it
        data = json.dumps(payload(job.kind, job.code, target.lang))
        info = {"endpoint": target.endpoint, "keys": {"p256dh": target.p256dh, "auth": target.auth}}
        try:
            answer = WebPusher(info, requests_session=self._session()).send(
                data, headers, ttl=TTL_SECONDS.get(job.kind, 600), timeout=self.settings.timeout
            )
        except Exception as exc:  # unreachable, slow, redirected: this one is lost
            self.failed += 1
            log.info("push to %s failed: %s", parts.hostname, type(exc).__name__)
            return
        status = int(answer.status_code)
        if status in (404, 410):
            self.store.delete_push(target.id)  # the browser unsubscribed, or it expired
            self.gone += 1
        elif status >= 300:
            self.failed += 1
            log.info("push to %s refused: HTTP %d", parts.hostname, status)
        else:
            self.sent += 1


# --- the live tables -------------------------------------------------------------------------


class PushBook:
    """The seats this instance knows to have a subscription: (table code, token hash) pairs
    of its live tables, and the accounts that have one. It may name a seat whose
    subscription is gone (that costs one push that finds nobody); a seat it does not name
    gets no timer and no push until a look in the store finds his subscription."""

    def __init__(self) -> None:
        self._seats: dict[str, set[str]] = {}
        self.accounts: set[int] = set()

    def has(self, code: str, token_hash: str | None, account: int | None) -> bool:
        """True when the seat (its table, token hash and account) may have a subscription."""
        if account is not None and account in self.accounts:
            return True
        return token_hash is not None and token_hash in self._seats.get(code, ())

    def add(self, code: str, token_hash: str) -> None:
        """The seat of ``token_hash`` at table ``code`` has a subscription."""
        self._seats.setdefault(code, set()).add(token_hash)

    def forget(self, code: str) -> None:
        """Table ``code`` left memory: its seats are read again if it comes back."""
        self._seats.pop(code, None)


class Pusher:
    """Applies the rules to the live tables. The keeper calls it at each event (on the loop's
    thread); it keeps, per table, the turn it waits on and the turn and rematch offers it
    notified, and forgets them when the table leaves memory (:meth:`forget`)."""

    def __init__(self, sender: Sender | None, settings: PushSettings, hub: Hub) -> None:
        self.sender = sender
        self.settings = settings
        self.hub = hub
        self.book = PushBook()
        if sender is not None:
            self.book.accounts = sender.store.push_accounts()
        self._looked: dict[str, dict[int, float]] = {}  # code -> seat -> when last looked for
        self._looking = 0
        self._timers: dict[str, tuple[tuple[int, int], asyncio.TimerHandle]] = {}
        self._pushed: dict[str, tuple[int, int]] = {}
        self._rematch_told: dict[str, set[int]] = {}
        # Called with (kind, code, seat) for each push queued (tests).
        self.queued: Callable[[str, str, int], None] | None = None

    def away(self, code: str, seat: int) -> bool:
        """No socket of ``seat`` at table ``code`` shows a visible page."""
        return not any(c.seat == seat and c.visible for c in self.hub.of(code))

    def _seen(self, table: Table) -> list[SeatSeen]:
        return [
            SeatSeen(s.kind == "human", table.by_bot(i), self.away(table.code, i))
            for i, s in enumerate(table.seats)
        ]

    def _known(self, table: Table, seat: int) -> bool:
        s = table.seats[seat]
        return self.book.has(table.code, s.token_hash, s.account)

    def loaded(self, table: Table) -> None:
        """``table`` came into memory from the store: the book learns its subscribed seats
        (a read of the store, as the loading is)."""
        if self.sender is None:
            return
        tokens = self.sender.store.push_seat_tokens(table.code)
        for s in table.seats:
            if s.token_hash is not None and s.token_hash in tokens:
                self.book.add(table.code, s.token_hash)

    def subscribed(
        self, seats: Collection[tuple[str, str]], account: int | None, tables: Mapping[str, Table]
    ) -> None:
        """A browser subscribed through this instance for ``seats`` (code, token hash) and,
        signed in, for ``account``: the book names those seats of the tables held here (the
        others are learnt where they are held)."""
        if account is not None:
            self.book.accounts.add(account)
        for code, token_hash in seats:
            table = tables.get(code)
            if table is not None and any(s.token_hash == token_hash for s in table.seats):
                self.book.add(code, token_hash)

    def _look_up(self, table: Table, seat: int, then: Callable[[], None]) -> None:
        """Look in the store (off the loop) for a subscription of a seat the book does not
        name, and call ``then`` if one is found: another instance may have kept it."""
        s = table.seats[seat]
        if self.sender is None or (s.token_hash is None and s.account is None):
            return
        looked = self._looked.setdefault(table.code, {})
        now = time.monotonic()
        if self._looking >= LOOKUPS or now - looked.get(seat, -LOOKUP_SECONDS) < LOOKUP_SECONDS:
            return
        looked[seat] = now
        self._looking += 1
        code, token_hash, account = table.code, s.token_hash, s.account
        found = asyncio.get_running_loop().run_in_executor(
            None, self.sender.store.push_targets, code, token_hash, account
        )

        def done(f: asyncio.Future[list[Any]]) -> None:
            self._looking -= 1
            if f.cancelled() or f.exception() is not None or not f.result():
                return
            if token_hash is not None:
                self.book.add(code, token_hash)
            if account is not None:
                self.book.accounts.add(account)
            if code in self._looked:  # the table is still here
                then()

        found.add_done_callback(done)

    def _push(self, kind: str, table: Table, seat: int) -> None:
        s = table.seats[seat]
        if self.queued is not None:
            self.queued(kind, table.code, seat)
        if self.sender is not None:
            self.sender.submit(kind, table.code, s.token_hash, s.account)

    def started(self, table: Table) -> None:
        """``table`` has started: its players who are away hear of it."""
        for seat in start_targets(self._seen(table)):
            if self._known(table, seat):
                self._push("start", table, seat)
            else:
                self._look_up(table, seat, functools.partial(self._push, "start", table, seat))

    def changed(self, table: Table) -> None:
        """The game moved on: a human's new turn is watched for
        :attr:`PushSettings.turn_seconds`."""
        seat = table.to_move
        if seat is None or table.status != "playing":
            self._cancel(table.code)
            return
        turn = (table.game_version, seat)
        held = self._timers.get(table.code)
        if held is not None and held[0] == turn:
            return
        self._cancel(table.code)
        if table.seats[seat].kind == "human" and self._known(table, seat):
            self._arm(table, turn)

    def hidden(self, table: Table, seat: int) -> None:
        """A socket of ``seat`` went out of sight (hidden, or closed): if it is his turn and
        not yet notified, the wait begins again from now (he may have been looking until
        now)."""
        if table.status != "playing" or table.to_move != seat:
            return
        turn = (table.game_version, seat)
        if self._pushed.get(table.code) == turn:
            return
        if not self._known(table, seat):
            self._look_up(table, seat, lambda: self.hidden(table, seat))
            return
        self._cancel(table.code)
        self._arm(table, turn)

    def _arm(self, table: Table, turn: tuple[int, int]) -> None:
        handle = asyncio.get_running_loop().call_later(
            self.settings.turn_seconds, self._turn_over, table, turn
        )
        self._timers[table.code] = (turn, handle)

    def _cancel(self, code: str) -> None:
        held = self._timers.pop(code, None)
        if held is not None:
            held[1].cancel()

    def _turn_over(self, table: Table, turn: tuple[int, int]) -> None:
        held = self._timers.get(table.code)
        if held is not None and held[0] == turn:
            del self._timers[table.code]
        if table.status != "playing" or table.game_version != turn[0]:
            return
        seat = turn_target(
            self._seen(table), table.to_move, turn, self._pushed.get(table.code, (-1, -1))
        )
        if seat is not None:
            self._pushed[table.code] = turn
            self._push("turn", table, seat)

    def rematch_offered(self, table: Table) -> None:
        """A player of the finished ``table`` asked for a rematch: the others away hear of
        it, once each."""
        told = self._rematch_told.setdefault(table.code, set())
        for seat in rematch_targets(self._seen(table), table.rematch, told):
            told.add(seat)
            if self._known(table, seat):
                self._push("rematch", table, seat)
            else:
                self._look_up(table, seat, functools.partial(self._push, "rematch", table, seat))

    def close(self) -> None:
        """The server stops: no timer fires, no new push is sent."""
        for _, handle in self._timers.values():
            handle.cancel()
        self._timers.clear()
        if self.sender is not None:
            self.sender.close()

    def forget(self, code: str) -> None:
        """Table ``code`` left memory."""
        self._cancel(code)
        self._pushed.pop(code, None)
        self._rematch_told.pop(code, None)
        self._looked.pop(code, None)
        self.book.forget(code)
