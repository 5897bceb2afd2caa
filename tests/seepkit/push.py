"""A local push service for the Web Push tests: an HTTP server on loopback that takes what
the server posts, a browser's subscription keys made by the test, and the checks a real push
service and browser make: the VAPID JWT (RFC 8292: audience, expiry, signed by the server's
key) and the message decrypted (RFC 8291, aes128gcm) with the subscription's private key."""

from __future__ import annotations

import base64
import json
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import http_ece
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass
class Received:
    """One message the push service took: where it was posted, its headers and body."""

    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Browser:
    """A browser's push subscription: its P-256 key pair and auth secret (what
    ``PushManager.subscribe`` makes), at ``endpoint``."""

    endpoint: str
    key: ec.EllipticCurvePrivateKey = field(
        default_factory=lambda: ec.generate_private_key(ec.SECP256R1())
    )
    auth: bytes = field(default_factory=lambda: os.urandom(16))

    @property
    def p256dh(self) -> str:
        point = self.key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return b64url(point)

    def subscription(self) -> dict[str, Any]:
        """``PushSubscription.toJSON()``."""
        return {
            "endpoint": self.endpoint,
            "expirationTime": None,
            "keys": {"p256dh": self.p256dh, "auth": b64url(self.auth)},
        }

    def decrypt(self, got: Received) -> dict[str, Any]:
        """The message as the browser reads it (aes128gcm, RFC 8291)."""
        assert got.headers.get("content-encoding") == "aes128gcm", got.headers
        plain = http_ece.decrypt(
            got.body, private_key=self.key, auth_secret=self.auth, version="aes128gcm"
        )
        message: dict[str, Any] = json.loads(plain)
        return message


def check_vapid(got: Received, server_key: str, audience: str) -> dict[str, Any]:
    """The VAPID authorization of ``got`` (``vapid t=JWT, k=key``): signed with the server's
    public key ``server_key`` (base64url point), for ``audience``, not expired. Returns the
    JWT's claims."""
    scheme, _, params = got.headers["authorization"].partition(" ")
    assert scheme == "vapid", got.headers["authorization"]
    parts = dict(p.strip().split("=", 1) for p in params.split(","))
    assert parts["k"] == server_key
    head, claims, signature = parts["t"].split(".")
    assert json.loads(unb64url(head)) == {"typ": "JWT", "alg": "ES256"}
    raw = unb64url(signature)
    assert len(raw) == 64
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64url(server_key))
    public.verify(  # raises InvalidSignature
        encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big")),
        f"{head}.{claims}".encode(),
        ec.ECDSA(hashes.SHA256()),
    )
    found: dict[str, Any] = json.loads(unb64url(claims))
    assert found["aud"] == audience
    assert found["exp"] > time.time()
    assert found["sub"].startswith(("mailto:", "https://"))
    return found


class PushService:
    """The local push service: ``received`` holds what came; a path in ``answers`` gets that
    HTTP status (410: the subscription is gone), every other 201."""

    def __init__(self) -> None:
        self.received: list[Received] = []
        self.answers: dict[str, int] = {}
        self.cond = threading.Condition()
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                size = int(self.headers.get("content-length", "0"))
                body = self.rfile.read(size)
                headers = {k.lower(): v for k, v in self.headers.items()}
                with service.cond:
                    service.received.append(Received(self.path, headers, body))
                    service.cond.notify_all()
                self.send_response(service.answers.get(self.path, 201))
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def browser(self, path: str) -> Browser:
        """A browser subscribed at ``path`` of this service."""
        return Browser(f"{self.origin}{path}")

    def wait(self, count: int, timeout: float = 20.0) -> list[Received]:
        """The first ``count`` messages, once they came."""
        with self.cond:
            assert self.cond.wait_for(lambda: len(self.received) >= count, timeout), (
                f"{len(self.received)} of {count} pushes came"
            )
            return list(self.received[:count])

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@contextmanager
def push_service() -> Iterator[PushService]:
    service = PushService()
    try:
        yield service
    finally:
        service.close()
