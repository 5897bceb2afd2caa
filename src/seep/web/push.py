"""Web Push "your turn" notifications (docs/web.md "Notifications").

A player who allowed notifications and is away (no socket of his seat open with a visible
page) gets one push when a table he sits at starts, when it is his turn and he has not acted
within :attr:`PushSettings.turn_seconds`, and when a rematch is offered at his finished
table: at most one a turn, none for spectators, none while his page is visible.

The rules of *when* are the pure functions :func:`start_targets`, :func:`turn_target` and
:func:`rematch_targets`; :class:`~seep.web.pusher.Pusher` applies them to the live tables (the
keeper calls it at each event, on the loop's thread) and hands the sends to a
:class:`~seep.web.pusher.Sender`, whose worker threads read the subscriptions from the store,
encrypt (RFC 8291, aes128gcm), sign (VAPID, RFC 8292) and post with ``pywebpush``. A send
never delays a move: the loop only queues it, the queue is bounded (a full one drops the push),
and a push service that answers 404 or 410 has lost the subscription, which is then deleted.

Most seats have no subscription, so the loop arms a turn's timer and queues a push only for a
seat its :class:`~seep.web.pusher.PushBook` names: the seats of this instance's tables and the
accounts that have one. The book is filled when a browser subscribes here, when a table is
loaded from the store (at the start, or claimed from another instance) and, for a subscription
made through another instance, by one look in the store when a seat's player goes away (his
page hidden or closed) or a table starts without him: at most one look a seat every
:data:`LOOKUP_SECONDS`, a few at a time.

The payload carries a message key, the page's language and the table's code and link: never
a card or anything else of the game (the service worker words it, ``static/js/sw-push.js``).
"""

from __future__ import annotations

import base64
import binascii
import ipaddress
import json
import logging
import os
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from .settings import env_float, env_int

if TYPE_CHECKING:
    from .store import Store

__all__ = [
    "KNOWN_PUSH_HOSTS",
    "MAX_ENDPOINT_LENGTH",
    "PushSettings",
    "SeatSeen",
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
