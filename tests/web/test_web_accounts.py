"""Optional accounts (docs/web.md "Accounts"), tried against a real ``seep serve`` as a player
and as an attacker: sign up, sign in on a second browser, sign out, change the password (the
other sessions end), delete the account (it is gone); names unique as they look; the same
answer and the same work for an unknown name and a wrong password; guessing limited per
address and per account with a 429 and its Retry-After; the session cookie's attributes;
another site's page refused; a seat token is not a session; no password or cookie in the log.

Each test speaks from its own address (``X-Forwarded-For`` from a trusted proxy, 127.0.0.1),
so that the per-address limits of one test do not meet another's.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

pytest.importorskip("argon2")

from argon2 import PasswordHasher

from seep.web import accounts
from seep.web.accounts import AccountError, check_account_name, check_password
from seepkit.accounts import error_code as _error
from seepkit.accounts import rows as _rows
from seepkit.server import Served, serve

_ADDRESSES = (f"10.9.{i // 250}.{i % 250 + 1}" for i in itertools.count())
PASSWORD = "correct horse battery"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    tmp = tmp_path_factory.mktemp("accounts")
    env = {"SEEP_TRUSTED_PROXIES": "127.0.0.1", "SEEP_DATABASE_URL": f"sqlite:///{tmp}/seep.db"}
    with serve(tmp, env=env) as served:
        served.db = tmp / "seep.db"  # type: ignore[attr-defined]
        yield served


def _browser(server: Served, address: str | None = None) -> httpx.Client:
    """A browser at its own address: it keeps its cookies, as a browser does."""
    return httpx.Client(
        base_url=server.base,
        headers={"X-Forwarded-For": address or next(_ADDRESSES)},
        timeout=30,
    )


def _post(b: httpx.Client, path: str, body: dict[str, Any], **headers: str) -> httpx.Response:
    return b.post(path, json=body, headers=headers)


def _name(tag: str) -> str:
    return f"{tag}{next(_ADDRESSES).replace('.', '')[-6:]}"


# --- the rules, without a server ------------------------------------------------------------


def test_account_names_are_cleaned_and_keyed_by_how_they_look() -> None:
    assert check_account_name("  Asha   Rao ") == ("Asha Rao", "asha rao")
    # Case, fullwidth forms, accents and Cyrillic look-alikes: one key, one account.
    keys = {check_account_name(n)[1] for n in ("Asha", "ASHA", "Ａｓｈａ", "Àsha", "Аsha")}
    assert keys == {"asha"}
    assert check_account_name("राम")[0] == "राम"
    for bad, why in [
        ("ab", "3 to 24"),
        ("x" * 25, "3 to 24"),
        ("admin", "server's own words"),
        ("Bot 3", "server's own words"),
        ("Guest", "not available"),
        ("A Former Player", "not available"),
        ("a\u200bb\u200bc", "control or format"),
        (7, "must be a string"),
    ]:
        with pytest.raises(AccountError, match=why) as exc:
            check_account_name(bad)
        assert exc.value.code == "bad_request"


def test_passwords_are_checked_but_never_cleaned() -> None:
    assert check_password("  spaces count  ") == "  spaces count  "
    for bad, why in [("short", "8 to 128"), ("x" * 129, "8 to 128"), (None, "a string")]:
        with pytest.raises(AccountError, match=why):
            check_password(bad)
    with pytest.raises(AccountError, match="not be the account's name"):
        check_password("AshaRao1", "asharao1")


# --- a player's way through -----------------------------------------------------------------


def test_sign_up_sign_in_elsewhere_and_sign_out(server: Served) -> None:
    name = _name("Asha")
    with _browser(server) as phone, _browser(server) as laptop:
        assert _error(phone.get("/api/me")) == "not_signed_in"  # a guest
        r = _post(phone, "/api/accounts", {"name": f"  {name} ", "password": PASSWORD})
        assert r.status_code == 201 and r.json()["name"] == name
        cookie = r.headers["set-cookie"]
        assert "HttpOnly" in cookie and "SameSite=lax" in cookie and "Path=/" in cookie
        assert "Secure" not in cookie  # plain http: a Secure cookie would never come back
        assert r.headers["cache-control"] == "no-store"
        assert phone.get("/api/me").json()["name"] == name
        # The other browser signs in with the name in other letters, and both are signed in.
        r = _post(laptop, "/api/login", {"name": name.upper(), "password": PASSWORD})
        assert r.status_code == 200 and r.json()["name"] == name
        assert laptop.get("/api/me").json()["name"] == name
        # Signing out ends this browser's session only.
        r = laptop.post("/api/logout")
        assert r.status_code == 200 and 'seep_session=""' in r.headers["set-cookie"]
        assert _error(laptop.get("/api/me")) == "not_signed_in"
        assert phone.get("/api/me").json()["name"] == name


def test_the_session_cookie_is_secure_behind_an_https_proxy(server: Served) -> None:
    with _browser(server) as b:
        r = b.post(
            "/api/accounts",
            json={"name": _name("Tls"), "password": PASSWORD},
            headers={"X-Forwarded-Proto": "https"},
        )
        assert r.status_code == 201 and "Secure" in r.headers["set-cookie"]


def test_a_name_is_taken_however_it_is_spelt(server: Served) -> None:
    name = _name("Meera")
    with _browser(server) as b:
        assert _post(b, "/api/accounts", {"name": name, "password": PASSWORD}).status_code == 201
    for spelt in (name.lower(), name.upper(), "М" + name[1:]):  # the last: a Cyrillic M
        with _browser(server) as other:
            r = _post(other, "/api/accounts", {"name": spelt, "password": PASSWORD})
            assert r.status_code == 409 and _error(r) == "name_taken", spelt


def test_bad_bodies_are_named(server: Served) -> None:
    with _browser(server) as b:
        for body, words in [
            ({"name": "Ok Name", "password": "short"}, "8 to 128"),
            ({"name": "admin", "password": PASSWORD}, "server's own words"),
            ({"name": "Ok Name", "password": PASSWORD, "admin": True}, "unknown field 'admin'"),
            ({"name": ["x"], "password": PASSWORD}, "'name' must be a string"),
        ]:
            r = _post(b, "/api/accounts", body)
            assert r.status_code == 400 and words in r.json()["error"]["message"], body
            assert PASSWORD not in r.text


def test_changing_the_password_ends_the_other_sessions(server: Served) -> None:
    name, new = _name("Ravi"), "a new long passphrase"
    with _browser(server) as phone, _browser(server) as laptop:
        _post(phone, "/api/accounts", {"name": name, "password": PASSWORD})
        _post(laptop, "/api/login", {"name": name, "password": PASSWORD})
        wrong = _post(phone, "/api/me/password", {"password": "not it at all", "new_password": new})
        assert wrong.status_code == 401 and _error(wrong) == "bad_login"
        old_cookie = phone.cookies["seep_session"]
        r = _post(phone, "/api/me/password", {"password": PASSWORD, "new_password": new})
        assert r.status_code == 200 and phone.cookies["seep_session"] != old_cookie
        assert phone.get("/api/me").json()["name"] == name  # this browser: a new session
        assert _error(laptop.get("/api/me")) == "not_signed_in"  # the other: ended
        with _browser(server) as third:
            old = _post(third, "/api/login", {"name": name, "password": PASSWORD})
            assert _error(old) == "bad_login"
            assert _post(third, "/api/login", {"name": name, "password": new}).status_code == 200


def test_a_deleted_account_is_gone(server: Served) -> None:
    name = _name("Kiran")
    with _browser(server) as b, _browser(server) as other:
        _post(b, "/api/accounts", {"name": name, "password": PASSWORD})
        _post(other, "/api/login", {"name": name, "password": PASSWORD})
        assert _error(_post(b, "/api/me/delete", {"password": "wrong password!"})) == "bad_login"
        r = _post(b, "/api/me/delete", {"password": PASSWORD})
        assert r.status_code == 200 and r.json() == {"deleted": True}
        assert _error(b.get("/api/me")) == "not_signed_in"
        assert _error(other.get("/api/me")) == "not_signed_in"
    assert _rows(server, "SELECT id FROM accounts WHERE name = ?", name) == []
    orphans = "SELECT count(*) FROM sessions WHERE account NOT IN (SELECT id FROM accounts)"
    assert _rows(server, orphans) == [(0,)]
    with _browser(server) as b:
        assert _error(_post(b, "/api/login", {"name": name, "password": PASSWORD})) == "bad_login"
        # The name is free again.
        assert _post(b, "/api/accounts", {"name": name, "password": PASSWORD}).status_code == 201


# --- an attacker's way ----------------------------------------------------------------------


def test_the_store_keeps_an_argon2id_hash_and_no_cookie(server: Served) -> None:
    name = _name("Store")
    with _browser(server) as b:
        _post(b, "/api/accounts", {"name": name, "password": PASSWORD})
        cookie = b.cookies["seep_session"]
    ((stored,),) = _rows(server, "SELECT password_hash FROM accounts WHERE name = ?", name)
    assert stored.startswith("$argon2id$") and PASSWORD not in stored
    assert PasswordHasher().verify(stored, PASSWORD)
    dump = "\n".join(
        str(r) for t in ("accounts", "sessions") for r in _rows(server, f"SELECT * FROM {t}")
    )
    assert cookie not in dump and PASSWORD not in dump


def test_an_unknown_name_and_a_wrong_password_get_one_answer_after_the_same_work(
    server: Served, monkeypatch: pytest.MonkeyPatch
) -> None:
    name = _name("Same")
    with _browser(server) as b:
        _post(b, "/api/accounts", {"name": name, "password": PASSWORD})
    with _browser(server) as b:
        wrong = _post(b, "/api/login", {"name": name, "password": "not the password"})
        unknown = _post(b, "/api/login", {"name": _name("Nobody"), "password": "not the password"})
    assert wrong.status_code == unknown.status_code == 401
    assert (
        wrong.json()
        == unknown.json()
        == {"error": {"code": "bad_login", "message": "wrong name or password"}}
    )
    # The same work: one argon2 check either way (the unknown name's against a dummy hash).
    checked: list[str] = []
    real = accounts._HASHER

    class Counting:
        def hash(self, password: str) -> str:
            return real.hash(password)

        def verify(self, stored: str, password: str) -> bool:
            checked.append(stored)
            return real.verify(stored, password)

    monkeypatch.setattr(accounts, "_HASHER", Counting())

    class _Store:
        def account_named(self, key: str) -> Any:
            return store_account if key == "known" else None

    store_account = accounts.AccountRow(1, "known", accounts._HASHER.hash("p" * 10), 0.0)
    acc = accounts.Accounts(_Store())  # type: ignore[arg-type]
    for who in ("known", "unknown"):
        with pytest.raises(AccountError, match="wrong name or password"):
            asyncio.run(acc._check_password("1.2.3.4", who, "x" * 10))
    assert len(checked) == 2 and checked[0] == store_account.password_hash
    assert checked[1].startswith("$argon2id$")


def test_password_guessing_is_limited_per_address(server: Served) -> None:
    with _browser(server) as b:
        codes = [
            _post(b, "/api/login", {"name": _name("Guess"), "password": "guess number"}).status_code
            for _ in range(11)
        ]
        assert codes == [401] * 10 + [429]
        r = _post(b, "/api/login", {"name": _name("Guess"), "password": "guess number"})
        assert r.status_code == 429 and _error(r) == "rate_limited"
        assert 1 <= int(r.headers["retry-after"]) <= 60


def test_password_guessing_is_limited_per_account_from_many_addresses(server: Served) -> None:
    name = _name("Target")
    with _browser(server) as b:
        _post(b, "/api/accounts", {"name": name, "password": PASSWORD})
    codes = []
    for _ in range(11):  # a botnet: every guess from another address
        with _browser(server) as bot:
            codes.append(
                _post(bot, "/api/login", {"name": name, "password": "guessing it"}).status_code
            )
    assert codes == [401] * 10 + [429]
    with _browser(server) as owner:  # the owner waits a minute too: no guess gets through
        assert _post(owner, "/api/login", {"name": name, "password": PASSWORD}).status_code == 429


def test_sign_ups_are_limited_per_address(server: Served) -> None:
    with _browser(server) as b:
        codes = [
            _post(b, "/api/accounts", {"name": _name("Many"), "password": PASSWORD}).status_code
            for _ in range(6)
        ]
    assert codes == [201] * 5 + [429]


def test_another_sites_page_cannot_use_the_session(server: Served) -> None:
    name = _name("Csrf")
    with _browser(server) as b:
        _post(b, "/api/accounts", {"name": name, "password": PASSWORD})
        evil = {"Origin": "https://evil.example"}
        for path, body in [
            ("/api/me/delete", {"password": PASSWORD}),
            ("/api/me/password", {"password": PASSWORD, "new_password": "attacker's choice"}),
            ("/api/logout", {}),
            ("/api/login", {"name": name, "password": PASSWORD}),
        ]:
            r = _post(b, path, body, **evil)
            assert r.status_code == 403 and _error(r) == "bad_origin", path
        # A form post (no preflight in a browser) is refused before its body is read.
        r = b.post(
            "/api/me/delete",
            content=f"password={PASSWORD}",
            headers={"Content-Type": "application/x-www-form-urlencoded"},
        )
        assert r.status_code == 415
        r = b.request("DELETE", "/api/me", headers=evil)
        assert r.status_code == 403  # every method that may change something is checked
        assert b.get("/api/me").json()["name"] == name  # still there, still signed in


def test_a_seat_token_is_not_a_session(server: Served) -> None:
    with _browser(server) as b:
        made = _post(b, "/api/tables", {"name": "Guest"}).json()
        b.cookies.set("seep_session", made["token"])
        assert _error(b.get("/api/me")) == "not_signed_in"
        b.cookies.set("seep_session", "x" * 5000)
        assert _error(b.get("/api/me")) == "not_signed_in"


def test_no_password_cookie_or_session_in_the_log(server: Served) -> None:
    name = _name("Logged")
    with _browser(server) as b:
        _post(b, "/api/accounts", {"name": name, "password": PASSWORD})
        cookie = b.cookies["seep_session"]
        b.get("/api/me")
        _post(b, "/api/login", {"name": name, "password": "a wrong password"})
        _post(b, "/api/me/password", {"password": PASSWORD, "new_password": PASSWORD + "!"})
        _post(b, "/api/accounts", {"name": "admin", "password": PASSWORD})
    log = server.log_text()
    assert "bad_request (POST request)" in log  # the refused sign-up is logged, by its code
    assert PASSWORD not in log and cookie not in log and "seep_session" not in log


def test_the_new_routes_answer_in_the_error_format_and_are_bounded(server: Served) -> None:
    with _browser(server) as b:
        r = b.post("/api/login", content=b"{" * 100, headers={"Content-Type": "application/json"})
        assert r.status_code == 400 and "error" in r.json()
        big = {"name": "x", "password": "y" * 70_000}
        r = _post(b, "/api/login", big)
        assert r.status_code == 413 and _error(r) == "too_large"
        r = _post(b, "/api/login", {"name": "x" * 500, "password": "y" * 20})
        assert r.status_code == 401  # a name no account can have: no lookup, the same answer


class _ErasingStore:
    """A store whose checkpoints answer ``answers`` in turn (a bool, or an error raised), then
    ``False`` for ever; it records the calls."""

    def __init__(self, answers: list[Any]) -> None:
        self.answers = answers
        self.calls: list[str] = []

    def delete_account(self, account: int) -> None:
        self.calls.append(f"delete {account}")

    def checkpoint(self, mode: str) -> bool:
        self.calls.append(mode)
        answer = self.answers.pop(0) if self.answers else False
        if isinstance(answer, Exception):
            raise answer
        return bool(answer)


def _delete(monkeypatch: pytest.MonkeyPatch, store: _ErasingStore, account: int) -> int:
    """Accounts.delete of a signed-in account over ``store`` (the session and the password
    check stubbed: what is tested is the log's erasure)."""
    acc = accounts.Accounts(store)  # type: ignore[arg-type]
    row = accounts.AccountRow(account, "gone", "$argon2id$x", 0.0)
    monkeypatch.setattr(acc, "signed_in", lambda token: row)

    async def no_check(*args: Any) -> None:
        return None

    monkeypatch.setattr(acc, "_check_password", no_check)
    return asyncio.run(acc.delete("1.2.3.4", "token", "the password"))


def test_an_erasure_empties_the_sqlite_log_even_when_it_is_busy_at_first(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The deleted account's old pages stay in the write-ahead log until a TRUNCATE checkpoint
    finishes: delete tries again while SQLite answers busy or locked (a reader on an older
    snapshot, the server's own checkpoint at the same moment)."""
    from sqlalchemy.exc import OperationalError

    answers: list[Any] = [False, OperationalError("PRAGMA", {}, Exception("locked")), False, True]
    store = _ErasingStore(answers)
    monkeypatch.setattr(accounts, "ERASE_PAUSE_SECONDS", 0.0)
    assert _delete(monkeypatch, store, 7) == 7
    assert store.calls == ["delete 7", "TRUNCATE", "TRUNCATE", "TRUNCATE", "TRUNCATE"]
    assert not answers


def test_an_erasure_gives_up_on_a_log_that_stays_busy(monkeypatch: pytest.MonkeyPatch) -> None:
    """A log busy for longer than ERASE_SECONDS: the deletion still ends (the server's own
    checkpoints empty the log later), after a few tries."""
    store = _ErasingStore([])
    monkeypatch.setattr(accounts, "ERASE_SECONDS", 0.05)
    monkeypatch.setattr(accounts, "ERASE_PAUSE_SECONDS", 0.01)
    assert _delete(monkeypatch, store, 8) == 8
    tries = store.calls[1:]
    assert 2 <= len(tries) <= 10
