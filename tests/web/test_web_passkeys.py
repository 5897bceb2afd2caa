"""Passkeys (docs/web.md "Accounts"), tried against a real ``seep serve`` with a software
authenticator written here (a P-256 key, attestation "none", assertions signed with the key):
add a passkey and sign in with it; and as an attacker: a replayed challenge, another site's
origin, another relying party, a cloned key whose counter goes back, another account's passkey,
a flood of sign-in options (429 with Retry-After), a deleted account's passkeys, and no
challenge or credential secret in a URL or the log.

Each test speaks from its own address (``X-Forwarded-For`` from a trusted proxy, 127.0.0.1) and
as the page at ``http://localhost:PORT`` (its ``Host`` and ``Origin``), as a browser would.
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
import secrets
import struct
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

pytest.importorskip("webauthn")

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from webauthn.helpers import encode_cbor

from seepkit.accounts import error_code as _error
from seepkit.accounts import rows as _rows
from seepkit.server import Served, serve

_ADDRESSES = (f"10.8.{i // 250}.{i % 250 + 1}" for i in itertools.count())
PASSWORD = "correct horse battery"


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Authenticator:
    """A software passkey: one P-256 key for one relying party, its counter and user handle."""

    def __init__(self, rp_id: str = "localhost") -> None:
        self.rp_id = rp_id
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.credential_id = secrets.token_bytes(16)
        self.count = 0
        self.user_handle = b""

    def _auth_data(self, flags: int, extra: bytes = b"") -> bytes:
        rp_hash = hashlib.sha256(self.rp_id.encode()).digest()
        return rp_hash + bytes([flags]) + struct.pack(">I", self.count) + extra

    @staticmethod
    def _client_data(kind: str, challenge: str, origin: str) -> bytes:
        data = {"type": kind, "challenge": challenge, "origin": origin, "crossOrigin": False}
        return json.dumps(data).encode()

    def create(self, options: dict[str, Any], origin: str) -> dict[str, Any]:
        """navigator.credentials.create()'s answer, in WebAuthn's JSON form."""
        self.user_handle = unb64(options["user"]["id"])
        numbers = self.key.public_key().public_numbers()
        cose = encode_cbor(
            {
                1: 2,
                3: -7,
                -1: 1,
                -2: numbers.x.to_bytes(32, "big"),
                -3: numbers.y.to_bytes(32, "big"),
            }
        )
        attested = bytes(16) + struct.pack(">H", len(self.credential_id)) + self.credential_id
        auth_data = self._auth_data(0x01 | 0x04 | 0x40, attested + cose)  # UP, UV, AT
        attestation = encode_cbor({"fmt": "none", "attStmt": {}, "authData": auth_data})
        client_data = self._client_data("webauthn.create", options["challenge"], origin)
        return {
            "id": b64(self.credential_id),
            "rawId": b64(self.credential_id),
            "type": "public-key",
            "response": {
                "clientDataJSON": b64(client_data),
                "attestationObject": b64(attestation),
                "transports": ["internal"],
            },
            "clientExtensionResults": {},
        }

    def get(self, options: dict[str, Any], origin: str, *, step: int = 1) -> dict[str, Any]:
        """navigator.credentials.get()'s answer: the counter moves by ``step`` first."""
        self.count += step
        auth_data = self._auth_data(0x01 | 0x04)
        client_data = self._client_data("webauthn.get", options["challenge"], origin)
        signed = auth_data + hashlib.sha256(client_data).digest()
        signature = self.key.sign(signed, ec.ECDSA(hashes.SHA256()))
        return {
            "id": b64(self.credential_id),
            "rawId": b64(self.credential_id),
            "type": "public-key",
            "response": {
                "clientDataJSON": b64(client_data),
                "authenticatorData": b64(auth_data),
                "signature": b64(signature),
                "userHandle": b64(self.user_handle),
            },
            "clientExtensionResults": {},
        }


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    tmp = tmp_path_factory.mktemp("passkeys")
    env = {"SEEP_TRUSTED_PROXIES": "127.0.0.1", "SEEP_DATABASE_URL": f"sqlite:///{tmp}/seep.db"}
    with serve(tmp, env=env) as served:
        served.db = tmp / "seep.db"  # type: ignore[attr-defined]
        yield served


def _origin(server: Served) -> str:
    return f"http://localhost:{server.port}"


def _browser(server: Served, address: str | None = None) -> httpx.Client:
    """A browser at its own address on the page http://localhost:PORT (it keeps cookies)."""
    return httpx.Client(
        base_url=server.base,
        headers={
            "X-Forwarded-For": address or next(_ADDRESSES),
            "Host": f"localhost:{server.port}",
            "Origin": _origin(server),
        },
        timeout=30,
    )


def _name(tag: str) -> str:
    return f"{tag}{next(_ADDRESSES).replace('.', '')[-6:]}"


def _signed_up(server: Served, b: httpx.Client, tag: str = "Key") -> str:
    name = _name(tag)
    r = b.post("/api/accounts", json={"name": name, "password": PASSWORD})
    assert r.status_code == 201, r.text
    return name


def _register(server: Served, b: httpx.Client, key: Authenticator, label: str = "") -> Any:
    r = b.post("/api/passkeys/register/options", json={})
    assert r.status_code == 200, r.text
    started = r.json()
    credential = key.create(started["options"], _origin(server))
    body = {"handle": started["handle"], "credential": credential, "label": label}
    return b.post("/api/passkeys/register", json=body)


def _login(
    server: Served, b: httpx.Client, key: Authenticator, **how: Any
) -> tuple[httpx.Response, dict[str, Any]]:
    r = b.post("/api/passkeys/login/options", json={})
    assert r.status_code == 200, r.text
    started = r.json()
    origin = how.pop("origin", _origin(server))
    body = {"handle": started["handle"], "credential": key.get(started["options"], origin, **how)}
    return b.post("/api/passkeys/login", json=body), body


# --- a player's way through -----------------------------------------------------------------


def test_add_a_passkey_and_sign_in_with_it(server: Served) -> None:
    key = Authenticator()
    with _browser(server) as laptop, _browser(server) as phone:
        name = _signed_up(server, laptop)
        r = laptop.post("/api/passkeys/register/options", json={})
        options = r.json()["options"]
        assert r.headers["cache-control"] == "no-store"
        assert options["rp"] == {"name": "Seep", "id": "localhost"}
        assert options["authenticatorSelection"]["residentKey"] == "preferred"
        assert options["authenticatorSelection"]["userVerification"] == "preferred"
        assert options["excludeCredentials"] == []
        account_id = _rows(server, "SELECT id FROM accounts WHERE name = ?", name)[0][0]
        assert unb64(options["user"]["id"]) not in (str(account_id).encode(), name.encode())
        r = _register(server, laptop, key, "My laptop")
        assert r.status_code == 201, r.text
        assert r.json()["label"] == "My laptop" and r.json()["used"] is None
        listed = laptop.get("/api/me/passkeys").json()["passkeys"]
        assert [(k["label"], k["used"]) for k in listed] == [("My laptop", None)]
        # A second registration excludes the passkey already there, and has its user id.
        again = laptop.post("/api/passkeys/register/options", json={}).json()["options"]
        assert [c["id"] for c in again["excludeCredentials"]] == [b64(key.credential_id)]
        assert unb64(again["user"]["id"]) == key.user_handle
        # The other browser, a guest, signs in with the passkey: a session cookie as a
        # password's sign-in gives.
        r = phone.post("/api/passkeys/login/options", json={})
        login = r.json()["options"]
        assert login["allowCredentials"] == [] and login["rpId"] == "localhost"
        r, _ = _login(server, phone, key)
        assert r.status_code == 200, r.text
        assert r.json()["name"] == name
        cookie = r.headers["set-cookie"]
        assert "seep_session=" in cookie and "HttpOnly" in cookie and "SameSite=lax" in cookie
        assert phone.get("/api/me").json()["name"] == name
        used = phone.get("/api/me/passkeys").json()["passkeys"][0]
        assert used["used"] is not None
        assert _rows(
            server, "SELECT sign_count FROM passkeys WHERE credential_id = ?", key.credential_id
        ) == [(1,)]


def test_a_guests_seats_become_the_accounts_on_a_passkey_sign_in(server: Served) -> None:
    key = Authenticator()
    with _browser(server) as b:
        name = _signed_up(server, b, "Seat")
        assert _register(server, b, key).status_code == 201
        b.post("/api/logout")
    with _browser(server) as guest:
        made = guest.post("/api/tables", json={"name": "Guest", "bots": "easy"}).json()
        r = guest.post("/api/passkeys/login/options", json={})
        started = r.json()
        body = {
            "handle": started["handle"],
            "credential": key.get(started["options"], _origin(server)),
            "seats": [{"code": made["code"], "token": made["token"]}],
        }
        r = guest.post("/api/passkeys/login", json=body)
        assert r.status_code == 200 and r.json()["name"] == name
    account = _rows(server, "SELECT id FROM accounts WHERE name = ?", name)[0][0]
    assert _rows(server, "SELECT account FROM seat_accounts WHERE code = ?", made["code"]) == [
        (account,)
    ]


def test_a_passkey_is_removed_and_no_longer_signs_in(server: Served) -> None:
    key = Authenticator()
    with _browser(server) as b:
        _signed_up(server, b, "Gone")
        assert _register(server, b, key).status_code == 201
        (listed,) = b.get("/api/me/passkeys").json()["passkeys"]
        r = b.post("/api/me/passkeys/delete", json={"id": listed["id"]})
        assert r.status_code == 200 and r.json() == {"deleted": True, "passkeys": []}
        r = b.post("/api/me/passkeys/delete", json={"id": listed["id"]})
        assert r.status_code == 404 and _error(r) == "unknown_passkey"
    with _browser(server) as other:
        r, _ = _login(server, other, key)
        assert r.status_code == 401 and _error(r) == "bad_login"


# --- as an attacker --------------------------------------------------------------------------


def test_a_replayed_challenge_is_refused(server: Served) -> None:
    key = Authenticator()
    with _browser(server) as b:
        _signed_up(server, b, "Replay")
        r = b.post("/api/passkeys/register/options", json={})
        started = r.json()
        body = {
            "handle": started["handle"],
            "credential": key.create(started["options"], _origin(server)),
        }
        assert b.post("/api/passkeys/register", json=body).status_code == 201
        r = b.post("/api/passkeys/register", json=body)  # the same answer again
        assert r.status_code == 400 and _error(r) == "bad_challenge"
        assert "expired or was used already" in r.json()["error"]["message"]
    with _browser(server) as thief:
        r, body = _login(server, thief, key)
        assert r.status_code == 200
        thief.cookies.clear()
        r = thief.post("/api/passkeys/login", json=body)  # a captured sign-in, replayed
        assert r.status_code == 400 and _error(r) == "bad_challenge"
        assert "seep_session" not in r.headers.get("set-cookie", "")


def test_a_registration_handle_is_bound_to_its_account(server: Served) -> None:
    key = Authenticator()
    with _browser(server) as a, _browser(server) as b:
        _signed_up(server, a, "Own")
        _signed_up(server, b, "Other")
        started = a.post("/api/passkeys/register/options", json={}).json()
        body = {
            "handle": started["handle"],
            "credential": key.create(started["options"], _origin(server)),
        }
        r = b.post("/api/passkeys/register", json=body)
        assert r.status_code == 400 and _error(r) == "bad_challenge"
        assert b.get("/api/me/passkeys").json()["passkeys"] == []


def test_another_sites_origin_is_refused(server: Served) -> None:
    key = Authenticator()
    with _browser(server) as b:
        _signed_up(server, b, "Phish")
        started = b.post("/api/passkeys/register/options", json={}).json()
        # A phishing page relays our options to the victim: the browser signs its own origin.
        credential = key.create(started["options"], "https://seep.evil.example")
        r = b.post(
            "/api/passkeys/register", json={"handle": started["handle"], "credential": credential}
        )
        assert r.status_code == 400 and _error(r) == "bad_passkey"
        assert "origin" in r.json()["error"]["message"].lower()
        assert _register(server, b, key).status_code == 201
    with _browser(server) as other:
        r, _ = _login(server, other, key, origin="https://seep.evil.example")
        assert r.status_code == 400 and _error(r) == "bad_passkey"
        assert "origin" in r.json()["error"]["message"].lower()
        assert _error(other.get("/api/me")) == "not_signed_in"
        # And another site's page cannot even ask (the Origin check).
        r = other.post(
            "/api/passkeys/login/options", json={}, headers={"Origin": "https://evil.example"}
        )
        assert r.status_code == 403 and _error(r) == "bad_origin"


def test_another_relying_party_is_refused(server: Served) -> None:
    key = Authenticator(rp_id="evil.example")  # a passkey of another site
    with _browser(server) as b:
        _signed_up(server, b, "Rp")
        r = _register(server, b, key)
        assert r.status_code == 400 and _error(r) == "bad_passkey"
        assert "rp id" in r.json()["error"]["message"].lower()
        good = Authenticator()
        assert _register(server, b, good).status_code == 201
    good.rp_id = "evil.example"  # the same key signing for another relying party
    with _browser(server) as other:
        r, _ = _login(server, other, good)
        assert r.status_code == 400 and _error(r) == "bad_passkey"
        assert "rp id" in r.json()["error"]["message"].lower()


def test_a_sign_count_going_backwards_is_refused(server: Served) -> None:
    key = Authenticator()
    with _browser(server) as b:
        _signed_up(server, b, "Clone")
        assert _register(server, b, key).status_code == 201
    with _browser(server) as b:
        r, _ = _login(server, b, key, step=5)
        assert r.status_code == 200
    with _browser(server) as clone:  # a copy of the key, its counter behind
        r, _ = _login(server, clone, key, step=-2)
        assert r.status_code == 400 and _error(r) == "bad_passkey"
        assert "sign count" in r.json()["error"]["message"]
        assert _error(clone.get("/api/me")) == "not_signed_in"
    assert _rows(
        server, "SELECT sign_count FROM passkeys WHERE credential_id = ?", key.credential_id
    ) == [(5,)]


def test_another_accounts_passkey_cannot_be_deleted(server: Served) -> None:
    key = Authenticator()
    with _browser(server) as owner, _browser(server) as other:
        _signed_up(server, owner, "Keep")
        _signed_up(server, other, "Take")
        assert _register(server, owner, key).status_code == 201
        (listed,) = owner.get("/api/me/passkeys").json()["passkeys"]
        r = other.post("/api/me/passkeys/delete", json={"id": listed["id"]})
        assert r.status_code == 404 and _error(r) == "unknown_passkey"
        assert len(owner.get("/api/me/passkeys").json()["passkeys"]) == 1
        owner.post("/api/logout")
        r = owner.post("/api/me/passkeys/delete", json={"id": listed["id"]})
        assert r.status_code == 401 and _error(r) == "not_signed_in"
        r = owner.post("/api/passkeys/register/options", json={})
        assert r.status_code == 401 and _error(r) == "not_signed_in"


def test_sign_in_options_are_limited_per_address(server: Served) -> None:
    with _browser(server) as b:
        codes = [b.post("/api/passkeys/login/options", json={}).status_code for _ in range(11)]
        assert codes == [200] * 10 + [429]
        r = b.post("/api/passkeys/login/options", json={})
        assert r.status_code == 429 and _error(r) == "rate_limited"
        assert 1 <= int(r.headers["retry-after"]) <= 60
    with _browser(server) as elsewhere:  # another address is not held back
        assert elsewhere.post("/api/passkeys/login/options", json={}).status_code == 200


def test_passkey_sign_ins_count_with_password_tries_per_address(server: Served) -> None:
    address = next(_ADDRESSES)
    with _browser(server, address) as b:
        for _ in range(10):
            b.post("/api/login", json={"name": _name("Guess"), "password": "guess number"})
        r = b.post("/api/passkeys/login", json={"handle": "x", "credential": {}})
        assert r.status_code == 429 and _error(r) == "rate_limited"


def test_deleting_the_account_deletes_its_passkeys(server: Served) -> None:
    key = Authenticator()
    with _browser(server) as b:
        name = _signed_up(server, b, "Leave")
        assert _register(server, b, key).status_code == 201
        b.post("/api/passkeys/register/options", json={})  # a ceremony left pending
        account = _rows(server, "SELECT id FROM accounts WHERE name = ?", name)[0][0]
        assert len(_rows(server, "SELECT id FROM passkeys WHERE account = ?", account)) == 1
        r = b.post("/api/me/delete", json={"password": PASSWORD})
        assert r.status_code == 200
    assert _rows(server, "SELECT id FROM passkeys WHERE account = ?", account) == []
    assert (
        _rows(server, "SELECT handle_hash FROM passkey_challenges WHERE account = ?", account) == []
    )
    with _browser(server) as other:
        r, _ = _login(server, other, key)
        assert r.status_code == 401 and _error(r) == "bad_login"


def test_bad_bodies_are_named(server: Served) -> None:
    with _browser(server) as b:
        _signed_up(server, b, "Body")
        r = b.post("/api/passkeys/register", json={"handle": 5, "credential": {}})
        assert r.status_code == 400 and "'handle'" in r.json()["error"]["message"]
        started = b.post("/api/passkeys/register/options", json={}).json()
        r = b.post("/api/passkeys/register", json={"handle": started["handle"], "credential": "x"})
        assert r.status_code == 400 and "'credential'" in r.json()["error"]["message"]
        started = b.post("/api/passkeys/register/options", json={}).json()
        r = b.post(
            "/api/passkeys/register",
            json={"handle": started["handle"], "credential": {"id": "x"}},
        )
        assert r.status_code == 400 and _error(r) == "bad_passkey"
        r = b.post("/api/passkeys/register/options", json={"extra": 1})
        assert r.status_code == 400 and "unknown field 'extra'" in r.json()["error"]["message"]
        r = b.post("/api/me/passkeys/delete", json={"id": "one"})
        assert r.status_code == 400 and "'id'" in r.json()["error"]["message"]
        r = b.post("/api/passkeys/login", json={"handle": "y" * 10_000, "credential": {}})
        assert r.status_code == 400
        r = b.post("/api/passkeys/login", json={"credential": {"x": "y" * 70_000}})
        assert r.status_code == 413 and _error(r) == "too_large"
        r = b.post("/api/passkeys/login", json={"handle": "nothing", "credential": {}})
        assert r.status_code == 400 and _error(r) == "bad_challenge"


def test_no_challenge_or_credential_secret_in_a_url_or_the_log(server: Served) -> None:
    key = Authenticator()
    seen: list[str] = []
    secrets_sent: list[str] = []

    def record(request: httpx.Request) -> None:
        seen.append(str(request.url))

    with _browser(server) as b:
        b.event_hooks["request"] = [record]
        _signed_up(server, b, "Quiet")
        started = b.post("/api/passkeys/register/options", json={}).json()
        secrets_sent += [started["handle"], started["options"]["challenge"]]
        credential = key.create(started["options"], _origin(server))
        r = b.post(
            "/api/passkeys/register", json={"handle": started["handle"], "credential": credential}
        )
        assert r.status_code == 201
        b.post("/api/logout")
        r, body = _login(server, b, key)
        assert r.status_code == 200
        secrets_sent += [body["handle"], body["credential"]["response"]["signature"]]
        b.post("/api/passkeys/login", json=body)  # refused: logged by its code at most
        cookie = b.cookies["seep_session"]
    log = server.log_text()
    for secret in [*secrets_sent, cookie, b64(key.credential_id)]:
        assert secret not in log
        assert not any(secret in url for url in seen)
    # The store keeps a handle's hash, never the handle.
    stored = {h for (h,) in _rows(server, "SELECT handle_hash FROM passkey_challenges")}
    assert not stored & set(secrets_sent)


def test_a_ceremony_started_on_one_instance_finishes_on_another(tmp_path: Any) -> None:
    """Two apps on one database, as behind HAProxy: the options from one, the answer to the
    other (the challenge is in the store, not in an instance's memory)."""
    from fastapi.testclient import TestClient

    from seep.web.app import create_app

    url = f"sqlite:///{tmp_path / 'seep.db'}"
    page = {"Host": "localhost", "Origin": "http://localhost"}
    key = Authenticator()
    with (
        TestClient(create_app(url), headers=page) as one,
        TestClient(create_app(url), headers=page) as two,
    ):
        r = one.post("/api/accounts", json={"name": "Twice", "password": PASSWORD})
        assert r.status_code == 201
        two.cookies.update(one.cookies)
        started = one.post("/api/passkeys/register/options", json={}).json()
        body = {
            "handle": started["handle"],
            "credential": key.create(started["options"], "http://localhost"),
        }
        assert two.post("/api/passkeys/register", json=body).status_code == 201
        assert one.post("/api/passkeys/register", json=body).status_code == 400  # taken once
        one.cookies.clear()
        two.cookies.clear()
        started = two.post("/api/passkeys/login/options", json={}).json()
        body = {
            "handle": started["handle"],
            "credential": key.get(started["options"], "http://localhost"),
        }
        r = one.post("/api/passkeys/login", json=body)
        assert r.status_code == 200 and r.json()["name"] == "Twice"
