"""Web Push "your turn" notifications (docs/web.md "Notifications").

A player who allowed notifications and is away (no socket of his seat open with a visible
page) gets one push when a table he sits at starts, when it is his turn and he has not acted
within :attr:`PushSettings.turn_seconds`, and when a rematch is offered at his finished
table: at most one a turn, none for spectators, none while his page is visible.

The rules of *when* are the pure functions :func:`start_targets`, :func:`turn_target` and
:func:`rematch_targets`; :class:`Pusher` applies them to the live tables (the keeper calls it
at each event, on the loop's thread) and hands the sends to a :class:`Sender`, whose worker
threads read the subscriptions from the store, encrypt (RFC 8291, aes128gcm), sign (VAPID,
RFC 8292) and post with ``pywebpush``. A send never delays a move: the loop only queues it,
the queue is bounded (a full one drops the push), and a push service that answers 404 or 410
has lost the subscription, which is then deleted.

Most seats have no subscription, so the loop arms a turn's timer and queues a push only for a
seat its :class:`PushBook` names: the seats of this instance's tables and the accounts that
have one. The book is filled when a browser subscribes here, when a table is loaded from the
store (at the start, or claimed from another instance) and, for a subscription made through
another instance, by one look in the store when a seat's player goes away (his page hidden
or closed) or a table starts without him: at most one look a seat every
:data:`LOOKUP_SECONDS`, a few at a time.

The payload carries a message key, the page's language and the table's code and link: never
a card or anything else of the game (the service worker words it, ``static/js/sw-push.js``).
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import functools
import ipaddress
import json
import logging
import os
import threading
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from .settings import env_float, env_int

if TYPE_CHECKING:
    from .hub import Hub
    from .store import Store
    from .table import Table

__all__ = [
    "KNOWN_PUSH_HOSTS",
    "MAX_ENDPOINT_LENGTH",
    "PushBook",
    "PushSettings",
    "Pusher",
    "SeatSeen",
    "Sender",
    "VapidKeys",
    "check_endpoint",
    "check_keys",
    "payload",
    "rematch_targets",
    "start_targets",
    "turn_target",
]

log = logging.getLogger("seep.web")

MAX_ENDPOINT_LENGTH = 1024  # the browsers' push services use a few hundred characters
# The push services of the browsers players use (Chrome and Edge's FCM, Firefox's autopush,
# Windows', Apple's): a subscription's endpoint must be one of them (or a subdomain), so the
# server never posts to an address a client chose (SEEP_PUSH_HOSTS changes the list).
KNOWN_PUSH_HOSTS = (
    "fcm.googleapis.com",
    "push.services.mozilla.com",
    "notify.windows.com",
    "push.apple.com",
)
LANGS = ("en", "hi")
# How long a push service keeps a notification for a phone that is offline: a turn's is
# stale soon, a table's start or a rematch a little later.
TTL_SECONDS = {"turn": 120, "start": 600, "rematch": 600}
# A seat the book does not name is looked for in the store at most this often (a page that
# hides and shows again and again costs no more than this), and this many looks at once.
LOOKUP_SECONDS = 5.0
LOOKUPS = 8


# --- settings ------------------------------------------------------------------------------


@dataclass(frozen=True)
class PushSettings:
    """Web Push's settings (docs/web.md "Notifications"), from the environment."""

    enabled: bool = True
    turn_seconds: float = 10.0  # SEEP_PUSH_TURN_SECONDS: his turn, this long without a move
    subject: str = "mailto:operator@localhost"  # SEEP_PUSH_SUBJECT: VAPID's contact
    hosts: tuple[str, ...] = KNOWN_PUSH_HOSTS  # SEEP_PUSH_HOSTS
    # SEEP_PUSH_LOOPBACK=1 (tests only): endpoints on this machine too, http allowed.
    loopback: bool = False
    per_client: int = 20  # SEEP_MAX_PUSH_PER_CLIENT: subscriptions one address keeps
    per_account: int = 10  # SEEP_MAX_PUSH_PER_ACCOUNT: an account's browsers (oldest go)
    per_subscription: int = 20  # the seats one subscription is for (the oldest go)
    posts_per_minute: int = 10  # SEEP_MAX_PUSH_POSTS_PER_MINUTE per address
    workers: int = 2  # threads that send
    queue: int = 200  # pushes waiting to be sent, at most (more are dropped)
    timeout: float = 5.0  # seconds a push service may take to answer

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ) -> PushSettings:
        """The settings from ``SEEP_PUSH*`` and ``SEEP_MAX_PUSH_*``; SystemExit with a plain
        sentence for a bad value."""
        hosts = tuple(
            h.strip().lower().rstrip(".")
            for h in environ.get("SEEP_PUSH_HOSTS", "").replace(",", " ").split()
        )
        subject = environ.get("SEEP_PUSH_SUBJECT", cls.subject)
        if not subject.startswith(("mailto:", "https://")):
            raise SystemExit(f"SEEP_PUSH_SUBJECT must be a mailto: or https: URL, got {subject!r}")
        settings = cls(
            enabled=environ.get("SEEP_PUSH", "1") != "0",
            turn_seconds=env_float("SEEP_PUSH_TURN_SECONDS", cls.turn_seconds, environ),
            subject=subject,
            hosts=hosts or KNOWN_PUSH_HOSTS,
            loopback=environ.get("SEEP_PUSH_LOOPBACK", "") == "1",
            per_client=env_int("SEEP_MAX_PUSH_PER_CLIENT", cls.per_client, environ),
            per_account=env_int("SEEP_MAX_PUSH_PER_ACCOUNT", cls.per_account, environ),
            posts_per_minute=env_int(
                "SEEP_MAX_PUSH_POSTS_PER_MINUTE", cls.posts_per_minute, environ
            ),
        )
        if settings.turn_seconds < 0:
            raise SystemExit("SEEP_PUSH_TURN_SECONDS must not be negative")
        return settings


# --- what a browser sends ------------------------------------------------------------------


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_endpoint(url: str, settings: PushSettings) -> str:
    """A subscription's endpoint, checked (ValueError naming what is wrong): an https URL of
    a known push service (:attr:`PushSettings.hosts`), on its default port, no user or
    fragment; with :attr:`PushSettings.loopback`, also http or https on this machine."""
    if len(url) > MAX_ENDPOINT_LENGTH:
        raise ValueError(f"an endpoint is at most {MAX_ENDPOINT_LENGTH} characters")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise ValueError("the endpoint is not a URL") from None
    host = (parts.hostname or "").lower()
    if not host or parts.username is not None or parts.password is not None or parts.fragment:
        raise ValueError("the endpoint is not a push service's URL")
    if settings.loopback and _loopback(host) and parts.scheme in ("http", "https"):
        return url
    if parts.scheme != "https":
        raise ValueError("the endpoint must be an https URL")
    if port not in (None, 443):
        raise ValueError("the endpoint must be on the push service's usual port")
    if not any(host == h or host.endswith("." + h) for h in settings.hosts):
        raise ValueError(f"{host} is not a push service this server sends to")
    return url


def _b64url(data: str) -> bytes:
    try:
        return base64.urlsafe_b64decode(data + "=" * (-len(data) % 4))
    except (binascii.Error, ValueError):
        raise ValueError("not base64url") from None


def check_keys(p256dh: str, auth: str) -> None:
    """A subscription's keys, checked (ValueError): ``p256dh`` a P-256 public point
    (uncompressed, 65 bytes), ``auth`` a 16-byte secret, both base64url."""
    point = _b64url(p256dh)
    if len(point) != 65 or point[0] != 4:
        raise ValueError("p256dh must be an uncompressed P-256 point")
    try:
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    except ValueError:
        raise ValueError("p256dh is not a point of P-256") from None
    if len(_b64url(auth)) != 16:
        raise ValueError("auth must be 16 bytes")


# --- the server's keys ----------------------------------------------------------------------


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


@dataclass(frozen=True)
class VapidKeys:
    """The server's VAPID key pair (P-256), kept in the database (``server_keys``, "vapid").
    ``public`` is what a browser's ``applicationServerKey`` takes: the uncompressed point,
    base64url."""

    private_pem: bytes
    public: str

    @staticmethod
    def _make() -> str:
        key = ec.generate_private_key(ec.SECP256R1())
        pem = key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
        point = key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return json.dumps({"private": pem.decode(), "public": _b64(point)})

    @classmethod
    def of(cls, store: Store) -> VapidKeys:
        """The stored key pair, made and stored first when there is none (insert if absent,
        then read: two instances starting at once use the same one)."""
        value = json.loads(store.server_key("vapid", cls._make))
        return cls(value["private"].encode(), value["public"])

    def signer(self) -> Any:
        """A ``py_vapid`` signer of this key (RFC 8292's ``vapid t=..., k=...`` header)."""
        from py_vapid import Vapid02  # type: ignore[import-untyped]

        key = serialization.load_pem_private_key(self.private_pem, password=None)
        return Vapid02(key)


# --- when: the rules, pure ------------------------------------------------------------------


@dataclass(frozen=True)
class SeatSeen:
    """What the rules need of a seat: a human's (a bot's or an empty seat's is never
    notified), whether a bot plays for him now, and whether he is away (no socket with a
    visible page)."""

    human: bool
    by_bot: bool
    away: bool


def start_targets(seats: Sequence[SeatSeen]) -> list[int]:
    """The table started: every human seat whose player is away."""
    return [i for i, s in enumerate(seats) if s.human and s.away]


def turn_target(
    seats: Sequence[SeatSeen], to_move: int | None, turn: tuple[int, int], pushed: tuple[int, int]
) -> int | None:
    """His turn (``turn``: the game version and seat it began at) has waited the setting's
    seconds: the seat to notify, or None (not a human's turn, a bot plays for him, he is
    here, or this turn was notified already: ``pushed``)."""
    if to_move is None or turn[1] != to_move or turn == pushed:
        return None
    s = seats[to_move]
    return to_move if s.human and not s.by_bot and s.away else None


def rematch_targets(
    seats: Sequence[SeatSeen], accepted: Collection[int], told: Collection[int]
) -> list[int]:
    """A player asked for a rematch: the human seats away who have not accepted, each told
    once."""
    return [
        i for i, s in enumerate(seats) if s.human and s.away and i not in accepted and i not in told
    ]


def payload(kind: str, code: str, lang: str) -> dict[str, str]:
    """What a push carries: the message's key, the page's language, the table's code and
    link. Nothing of the game."""
    return {
        "type": "seep",
        "key": kind,
        "lang": lang if lang in LANGS else "en",
        "code": code,
        "url": f"/t/{code}",
        "tag": f"seep-{code}",
    }


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
