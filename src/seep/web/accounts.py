"""Optional accounts (docs/web.md "Accounts"): what a name and a password must be, how a
password is kept (argon2id), sign-in sessions and the limits on guessing. No web framework:
the routes (:mod:`seep.web.routes.accounts`) turn cookies and bodies into these calls.

A guest needs no account and plays exactly as before. An account's name is unique as it
*looks* (:func:`seep.web.names.skeleton`: case, compatibility forms, accents and look-alike
letters folded), so nobody can sign up as a well-known player spelt with a Cyrillic "а".

An attacker learns nothing from a refusal: a wrong password and an unknown name get the same
answer after the same work (a hash is checked either way), and guesses are limited per address
and per account name. A session is a random cookie; the store keeps only its SHA-256.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy.exc import DatabaseError, OperationalError

from .limits import RateLimiter
from .names import check_name, skeleton
from .ratings import FORMATS, Rating
from .schema import StoreConflict, StoreUnavailable
from .store import Store
from .store_accounts import AccountRow

__all__ = [
    "MAX_PASSWORD",
    "MIN_PASSWORD",
    "SESSION_COOKIE",
    "SESSION_IDLE_SECONDS",
    "AccountError",
    "Accounts",
    "SignedIn",
    "check_account_name",
    "check_password",
    "stored",
]

MIN_NAME, MAX_NAME = 3, 24
MIN_PASSWORD, MAX_PASSWORD = 8, 128  # characters; NIST SP 800-63B asks for 8 at least
# Words an account may not be called (besides seep.web.names' reserved ones), as they look.
_RESERVED_ACCOUNTS = frozenset(
    {"guest", "guests", "a former player", "former player", "anonymous", "system", "root",
     "seep", "support", "staff", "mod", "administrator", "null", "none", "undefined"}
)  # fmt: skip
SESSION_COOKIE = "seep_session"  # HttpOnly: no script of the page reads it
SESSION_IDLE_SECONDS = 30 * 24 * 3600.0  # a session unused this long ends (the cookie's age)
SESSION_TOUCH_SECONDS = 3600.0  # its last use is written at most this often
SESSIONS_PER_ACCOUNT = 20  # a new sign-in beyond them ends the least recently used
# A deleted account's old pages leave SQLite's write-ahead log with a TRUNCATE checkpoint, tried
# again this far apart while it finds the log busy, for at most ERASE_SECONDS (Accounts.delete;
# each try may wait out the store's busy timeout too).
ERASE_SECONDS = 2.0
ERASE_PAUSE_SECONDS = 0.1
# OWASP's argon2id setting (19 MiB, two passes, one lane): about 80 ms on this project's 2-core
# VM. At most HASHING at once, off the event loop, and at most QUEUED waiting: a flood of
# sign-ins costs the server bounded memory and two cores at worst, never the tables' loop.
_HASHER = PasswordHasher(time_cost=2, memory_cost=19456, parallelism=1)
HASHING, QUEUED = 2, 32

T = TypeVar("T")


class AccountError(Exception):
    """A refused account request: ``code`` (docs/web.md's error codes), a message for the
    player, and for ``rate_limited`` the seconds until a try is allowed again."""

    def __init__(self, code: str, message: str, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.retry_after = retry_after


@dataclass(frozen=True)
class SignedIn:
    """An account and the session cookie just made for it (sent once, never stored)."""

    account: AccountRow
    token: str


def check_account_name(value: Any) -> tuple[str, str]:
    """An account name cleaned (as :func:`seep.web.names.check_name` cleans a player's name),
    and its key (how it looks); :class:`AccountError` ``bad_request`` says what is wrong."""
    if not isinstance(value, str):
        raise AccountError("bad_request", "'name' must be a string")
    try:
        name = check_name(value)
    except ValueError as exc:
        raise AccountError("bad_request", f"'name': {exc}") from None
    if not MIN_NAME <= len(name) <= MAX_NAME:
        raise AccountError(
            "bad_request", f"'name': an account name has {MIN_NAME} to {MAX_NAME} characters"
        )
    key = skeleton(name)
    if key in _RESERVED_ACCOUNTS:
        raise AccountError("bad_request", f"'name': {name!r} is not available: choose another")
    return name, key


def check_password(value: Any, name: str = "", field: str = "password") -> str:
    """A password as given (never cleaned: every character counts); :class:`AccountError`
    ``bad_request`` when it is not a string of :data:`MIN_PASSWORD` to :data:`MAX_PASSWORD`
    characters, or is the account's name."""
    if not isinstance(value, str):
        raise AccountError("bad_request", f"'{field}' must be a string")
    if not MIN_PASSWORD <= len(value) <= MAX_PASSWORD:
        raise AccountError(
            "bad_request",
            f"'{field}': a password has {MIN_PASSWORD} to {MAX_PASSWORD} characters",
        )
    if name and skeleton(value) == skeleton(name):
        raise AccountError("bad_request", f"'{field}': a password may not be the account's name")
    return value


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def stored(write: Callable[..., T], *args: Any) -> T:
    """A store call whose refusal by the database is :class:`StoreUnavailable` (the app
    answers it with a 503 the client may retry)."""
    try:
        return write(*args)
    except OperationalError as exc:
        raise StoreUnavailable(str(exc.orig or exc).splitlines()[0]) from None


class Accounts:
    """Sign-up, sign-in and sessions over ``store``. ``logins_per_minute`` limits password
    tries per address and per account name (counted over ``login_window`` seconds: a minute,
    shorter in tests that watch the limit lift), ``signups_per_hour`` new accounts per address
    (0: no limit)."""

    def __init__(
        self,
        store: Store,
        *,
        logins_per_minute: int = 10,
        signups_per_hour: int = 5,
        login_window: float = 60.0,
    ) -> None:
        self.store = store
        self.tries = RateLimiter(logins_per_minute, login_window)  # per address
        self.tries_on = RateLimiter(logins_per_minute, login_window)  # per account name
        self.signups = RateLimiter(signups_per_hour, window=3600.0)
        self._hashing = asyncio.Semaphore(HASHING)
        self._queued = 0
        self._dummy = _HASHER.hash(secrets.token_urlsafe(16))  # what an unknown name costs
        # Told the kind of each refusal by a limit ("logins", "signups"): the app counts them.
        self.refused: Callable[[str], None] = lambda kind: None

    # --- the password's work, off the loop ---------------------------------------------------

    async def _off_loop(self, work: Callable[..., T], *args: Any) -> T:
        if self._queued >= QUEUED:
            raise AccountError("busy", "the server is busy signing players in: try again soon")
        self._queued += 1
        try:
            async with self._hashing:
                return await asyncio.to_thread(work, *args)
        finally:
            self._queued -= 1

    async def _verify(self, password_hash: str, password: str) -> bool:
        def verify() -> bool:
            try:
                return _HASHER.verify(password_hash, password)
            except (VerificationError, InvalidHashError):
                return False

        return await self._off_loop(verify)

    # --- limits ------------------------------------------------------------------------------

    def limit(self, limiter: RateLimiter, key: str, what: str) -> None:
        """Count an event of ``key``; ``rate_limited`` (with its wait) when over ``limiter``."""
        if limiter.over(key):
            self.refused("signups" if limiter is self.signups else "logins")
            wait = max(1, round(limiter.wait(key)))
            raise AccountError("rate_limited", f"too many {what}: try again in {wait} s", wait)
        limiter.add(key)

    async def _check_password(self, client: str, name_key: str, password: str) -> AccountRow:
        """The account ``name_key`` if ``password`` is its own, counted as a try from
        ``client`` and on that name; one refusal, ``bad_login``, for a wrong password and an
        unknown name alike, after the same work."""
        self.limit(self.tries, client, "sign-in tries from your address")
        self.limit(self.tries_on, name_key, "sign-in tries for this account")
        account = stored(self.store.account_named, name_key)
        ok = await self._verify(self._dummy if account is None else account.password_hash, password)
        if account is None or not ok:
            raise AccountError("bad_login", "wrong name or password")
        return account

    def new_session(self, account: AccountRow) -> SignedIn:
        """A new sign-in session of ``account`` (a password's, or a passkey's)."""
        token = secrets.token_urlsafe(32)
        stored(self.store.add_session, account.id, _token_hash(token), SESSIONS_PER_ACCOUNT)
        return SignedIn(account, token)

    # --- what the routes call ----------------------------------------------------------------

    async def sign_up(self, client: str, name: Any, password: Any) -> SignedIn:
        """A new account, signed in; ``name_taken`` when its name looks like another's."""
        clean, key = check_account_name(name)
        check_password(password, clean)
        self.limit(self.signups, client, "new accounts from your address")
        password_hash = await self._off_loop(_HASHER.hash, password)
        try:
            account = stored(self.store.create_account, clean, key, password_hash)
        except StoreConflict:
            taken = f"the name {clean!r} is taken: choose another"
            raise AccountError("name_taken", taken) from None
        return self.new_session(account)

    async def sign_in(self, client: str, name: Any, password: Any) -> SignedIn:
        """A new session for the account whose name and password these are."""
        if not isinstance(name, str) or not isinstance(password, str):
            raise AccountError("bad_request", "'name' and 'password' must be strings")
        if len(name) > 4 * MAX_NAME or len(password) > MAX_PASSWORD:
            raise AccountError("bad_login", "wrong name or password")
        account = await self._check_password(client, skeleton(name), password)
        return self.new_session(account)

    def account_of(self, token: str | None) -> AccountRow | None:
        """The account a session cookie signs in, or None (no cookie, unknown or ended)."""
        if not token or len(token) > 100:
            return None
        return stored(
            self.store.session_account,
            _token_hash(token),
            SESSION_IDLE_SECONDS,
            SESSION_TOUCH_SECONDS,
        )

    def sign_out(self, token: str | None) -> None:
        """End the session of this cookie (nothing when it has none)."""
        if token and len(token) <= 100:
            stored(self.store.end_session, _token_hash(token))

    def signed_in(self, token: str | None) -> AccountRow:
        """The account of this session cookie; :class:`AccountError` ``not_signed_in``."""
        account = self.account_of(token)
        if account is None:
            raise AccountError("not_signed_in", "sign in first")
        return account

    async def change_password(
        self, client: str, token: str | None, password: Any, new_password: Any
    ) -> SignedIn:
        """A new password for the signed-in account, given its current one: every other
        session ends, and this browser gets a new one."""
        account = self.signed_in(token)
        if not isinstance(password, str):
            raise AccountError("bad_request", "'password' must be a string")
        check_password(new_password, account.name, "new_password")
        await self._check_password(client, skeleton(account.name), password)
        password_hash = await self._off_loop(_HASHER.hash, new_password)
        fresh = secrets.token_urlsafe(32)
        stored(self.store.set_password, account.id, password_hash, _token_hash(fresh))
        return SignedIn(account, fresh)

    async def delete(self, client: str, token: str | None, password: Any) -> int:
        """Delete the signed-in account, given its password: its name, password hash and
        sessions are gone (the name is free again), its seats at stored tables are "a former
        player"'s. Returns its id."""
        account = self.signed_in(token)
        if not isinstance(password, str):
            raise AccountError("bad_request", "'password' must be a string")
        await self._check_password(client, skeleton(account.name), password)
        stored(self.store.delete_account, account.id)
        # The rows are zeros in the database file now (secure_delete), but SQLite's
        # write-ahead log keeps the pages as they were until it is emptied: empty it now, off
        # the loop. It can be busy for a moment (a reader on an older snapshot, the server's
        # own checkpoint at the same time): then again, for up to ERASE_SECONDS; after that
        # the server's regular checkpoints empty it.
        give_up = time.monotonic() + ERASE_SECONDS
        while True:
            with contextlib.suppress(DatabaseError):
                if await asyncio.to_thread(self.store.checkpoint, "TRUNCATE"):
                    break
            if time.monotonic() >= give_up:
                break
            await asyncio.sleep(ERASE_PAUSE_SECONDS)
        return account.id

    def ratings(self, account: int) -> dict[str, dict[str, Any]]:
        """The account's rating in every format (``four``, ``two``), a new player's where it
        has played no rated match (docs/web.md "Ratings")."""
        held = stored(self.store.ratings_of, account)
        return {f: held.get(f, Rating()).to_dict(f) for f in FORMATS}

    def abandons(self, account: int) -> int:
        """The rated matches the account forfeited by leaving them (docs/web.md "Fair play")."""
        return int(stored(self.store.forfeits_of, account))

    def matches(self, account: int, offset: int, limit: int) -> list[Any]:
        """The account's stored games, newest first (:meth:`StoreAccounts.matches_of`)."""
        return list(stored(self.store.matches_of, account, offset, limit))
