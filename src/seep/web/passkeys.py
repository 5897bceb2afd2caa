"""Passkeys (docs/web.md "Accounts"): an account may add WebAuthn credentials and sign in with
one instead of its password. The routes (:mod:`seep.web.routes.passkeys`) turn bodies into
these calls; the ``webauthn`` package checks the browser's answers.

Each ceremony (a registration, a sign-in) has two steps: its options, with a fresh challenge,
then the authenticator's signed answer. The challenge is kept in the store under the SHA-256
of a random handle that only the options' answer carries, for :data:`CEREMONY_SECONDS`, and is
taken once: a replayed answer finds nothing. It also records the page's origin, which the
answer must come from again, and for a registration the account that asked.

The relying party is the page's host (its ``Origin``, which the Origin check has matched with
the request's ``Host``): a passkey works on the host name it was made on and no other.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from typing import Any
from urllib.parse import urlsplit

from webauthn import (
    generate_authentication_options,
    generate_registration_options,
    verify_authentication_response,
    verify_registration_response,
)
from webauthn.helpers import (
    options_to_json_dict,
    parse_authentication_credential_json,
    parse_registration_credential_json,
)
from webauthn.helpers.exceptions import WebAuthnException
from webauthn.helpers.structs import (
    AttestationConveyancePreference,
    AuthenticatorSelectionCriteria,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from .accounts import AccountError, Accounts, SignedIn, stored
from .limits import RateLimiter
from .names import check_name
from .schema import StoreConflict
from .store_accounts import AccountRow
from .store_passkeys import Ceremony, PasskeyRow

__all__ = [
    "CEREMONY_SECONDS",
    "MAX_LABEL",
    "PASSKEYS_PER_ACCOUNT",
    "Passkeys",
    "relying_party",
]

CEREMONY_SECONDS = 300.0  # a challenge unanswered this long is refused
TIMEOUT_MS = 120_000  # what the browser is told to wait for the authenticator (under the above)
MAX_LABEL = 40
PASSKEYS_PER_ACCOUNT = 20
# Ceremonies pending at once, on the server: each options answer stores one, so a flood of
# options from many addresses costs bounded rows (each address is limited besides).
MAX_CEREMONIES = 10_000
RP_NAME = "Seep"


def relying_party(origin: str) -> str:
    """The WebAuthn relying party id of the page at ``origin``: its host name, no port."""
    host = urlsplit(origin).hostname
    if not host:
        raise AccountError("bad_origin", "the page's origin names no host")
    return host


def _hash(handle: str) -> str:
    return hashlib.sha256(handle.encode()).hexdigest()


def _view(key: PasskeyRow) -> dict[str, Any]:
    return {
        "id": key.id,
        "label": key.label,
        "created": round(key.created),
        "used": None if key.used is None else round(key.used),
    }


def _label(value: Any, count: int) -> str:
    """The label a player gave a new passkey (cleaned as a name is), or a numbered one."""
    if value is None or value == "":
        return f"Passkey {count + 1}"
    if not isinstance(value, str):
        raise AccountError("bad_request", "'label' must be a string")
    try:
        label = check_name(value)
    except ValueError as exc:
        raise AccountError("bad_request", f"'label': {exc}") from None
    if len(label) > MAX_LABEL:
        raise AccountError("bad_request", f"'label': at most {MAX_LABEL} characters")
    return label


class Passkeys:
    """Registration, sign-in, the list and removal of passkeys, over ``accounts`` (its store,
    its sessions and its per-address limit on sign-in tries). ``options_per_minute`` limits
    the options asked per address (sign-in) and per account (registration)."""

    def __init__(self, accounts: Accounts, *, options_per_minute: int = 10) -> None:
        self.accounts = accounts
        self.store = accounts.store
        self.login_options_from = RateLimiter(options_per_minute)  # per address
        self.register_options_of = RateLimiter(options_per_minute)  # per account

    # --- ceremonies ---------------------------------------------------------------------------

    def _start(self, ceremony: Ceremony) -> str:
        handle = secrets.token_urlsafe(32)
        pending = stored(
            self.store.start_ceremony, _hash(handle), ceremony, time.time() + CEREMONY_SECONDS
        )
        if pending > MAX_CEREMONIES:
            stored(self.store.drop_ceremony, _hash(handle))
            raise AccountError("busy", "too many passkey requests under way: try again soon")
        return handle

    def _take(self, handle: Any, purpose: str, origin: str) -> Ceremony:
        if not isinstance(handle, str) or not 0 < len(handle) <= 100:
            raise AccountError("bad_request", "'handle' must be the string its options gave")
        ceremony = stored(self.store.take_ceremony, _hash(handle))
        if ceremony is None or ceremony.purpose != purpose:
            raise AccountError(
                "bad_challenge", "this passkey request expired or was used already: start again"
            )
        if ceremony.origin != origin:
            raise AccountError("bad_challenge", "this passkey request was started on another page")
        return ceremony

    # --- registration -------------------------------------------------------------------------

    def register_options(self, account: AccountRow, origin: str) -> dict[str, Any]:
        """The options for ``navigator.credentials.create`` (as JSON) and their ``handle``."""
        limiter = self.register_options_of
        key = str(account.id)
        if limiter.over(key):
            wait = max(1, round(limiter.wait(key)))
            raise AccountError(
                "rate_limited", f"too many new passkeys: try again in {wait} s", wait
            )
        limiter.add(key)
        keys = stored(self.store.passkeys_of, account.id)
        if len(keys) >= PASSKEYS_PER_ACCOUNT:
            raise AccountError(
                "too_many_passkeys",
                f"an account has at most {PASSKEYS_PER_ACCOUNT} passkeys: remove one first",
            )
        # One random user id per account (its passkeys share it): never the database's id.
        user_handle = keys[0].user_handle if keys else secrets.token_bytes(32)
        options = generate_registration_options(
            rp_id=relying_party(origin),
            rp_name=RP_NAME,
            user_id=user_handle,
            user_name=account.name,
            user_display_name=account.name,
            timeout=TIMEOUT_MS,
            attestation=AttestationConveyancePreference.NONE,
            authenticator_selection=AuthenticatorSelectionCriteria(
                resident_key=ResidentKeyRequirement.PREFERRED,
                user_verification=UserVerificationRequirement.PREFERRED,
            ),
            exclude_credentials=[PublicKeyCredentialDescriptor(id=k.credential_id) for k in keys],
        )
        ceremony = Ceremony("register", account.id, options.challenge, user_handle, origin)
        return {"handle": self._start(ceremony), "options": options_to_json_dict(options)}

    def register(
        self, account: AccountRow, origin: str, handle: Any, credential: Any, label: Any
    ) -> dict[str, Any]:
        """Check the authenticator's answer to :meth:`register_options` and keep the passkey."""
        if not isinstance(credential, dict):
            raise AccountError("bad_request", "'credential' must be the browser's credential")
        keys = stored(self.store.passkeys_of, account.id)
        name = _label(label, len(keys))
        if len(keys) >= PASSKEYS_PER_ACCOUNT:
            raise AccountError(
                "too_many_passkeys", f"an account has at most {PASSKEYS_PER_ACCOUNT} passkeys"
            )
        ceremony = self._take(handle, "register", origin)
        if ceremony.account != account.id or ceremony.user_handle is None:
            raise AccountError("bad_challenge", "this passkey request was another account's")
        try:
            parsed = parse_registration_credential_json(credential)
            made = verify_registration_response(
                credential=parsed,
                expected_challenge=ceremony.challenge,
                expected_rp_id=relying_party(origin),
                expected_origin=origin,
            )
        except (WebAuthnException, ValueError, TypeError, KeyError) as exc:
            raise AccountError("bad_passkey", f"the passkey was refused: {exc}") from None
        transports = [t.value for t in parsed.response.transports or []][:8]
        try:
            row = stored(
                self.store.add_passkey,
                account.id,
                made.credential_id,
                made.credential_public_key,
                ceremony.user_handle,
                made.sign_count,
                transports,
                name,
            )
        except StoreConflict:
            raise AccountError("passkey_taken", "this passkey is registered already") from None
        return _view(row)

    # --- sign-in ------------------------------------------------------------------------------

    def login_options(self, client: str, origin: str) -> dict[str, Any]:
        """The options for ``navigator.credentials.get`` (as JSON) and their ``handle``: no
        allowed credentials listed, so the browser offers the passkeys it holds for this site
        (and the server says nothing of which accounts have one)."""
        self.accounts.limit(self.login_options_from, client, "passkey sign-ins from your address")
        options = generate_authentication_options(
            rp_id=relying_party(origin),
            timeout=TIMEOUT_MS,
            user_verification=UserVerificationRequirement.PREFERRED,
        )
        ceremony = Ceremony("login", None, options.challenge, None, origin)
        return {"handle": self._start(ceremony), "options": options_to_json_dict(options)}

    def login(self, client: str, origin: str, handle: Any, credential: Any) -> SignedIn:
        """A new session for the account of the passkey that signed :meth:`login_options`'
        challenge; its signature counter must have gone up (else the key was cloned)."""
        self.accounts.limit(self.accounts.tries, client, "sign-in tries from your address")
        if not isinstance(credential, dict):
            raise AccountError("bad_request", "'credential' must be the browser's credential")
        ceremony = self._take(handle, "login", origin)
        try:
            parsed = parse_authentication_credential_json(credential)
        except (WebAuthnException, ValueError, TypeError, KeyError) as exc:
            raise AccountError("bad_passkey", f"the passkey was refused: {exc}") from None
        if len(parsed.raw_id) > 1023:
            raise AccountError("bad_passkey", "the passkey was refused: its id is too long")
        key = stored(self.store.passkey_by_credential, parsed.raw_id)
        if key is None:
            raise AccountError(
                "bad_login", "this passkey is not one of this site's (removed, or never added)"
            )
        user_handle = parsed.response.user_handle
        if user_handle is not None and user_handle != key.user_handle:
            raise AccountError("bad_passkey", "the passkey was refused: it names another user")
        try:
            checked = verify_authentication_response(
                credential=parsed,
                expected_challenge=ceremony.challenge,
                expected_rp_id=relying_party(origin),
                expected_origin=origin,
                credential_public_key=key.public_key,
                credential_current_sign_count=key.sign_count,
            )
        except (WebAuthnException, ValueError, TypeError, KeyError) as exc:
            raise AccountError("bad_passkey", f"the passkey was refused: {exc}") from None
        if not stored(self.store.passkey_used, key.id, key.sign_count, checked.new_sign_count):
            raise AccountError("bad_passkey", "the passkey was refused: it was used meanwhile")
        account = stored(self.store.account_by_id, key.account)
        if account is None:  # deleted between the two reads
            raise AccountError("bad_login", "this passkey's account is gone")
        return self.accounts.new_session(account)

    # --- the account's list -------------------------------------------------------------------

    def of(self, account: AccountRow) -> list[dict[str, Any]]:
        """The account's passkeys: id, label, when added and last used."""
        return [_view(k) for k in stored(self.store.passkeys_of, account.id)]

    def delete(self, account: AccountRow, passkey: Any) -> None:
        """Remove one of the account's passkeys (``unknown_passkey``: it has none of that id)."""
        if not isinstance(passkey, int) or isinstance(passkey, bool) or passkey < 1:
            raise AccountError("bad_request", "'id' must be a passkey's id (a whole number)")
        if not stored(self.store.delete_passkey, account.id, passkey):
            raise AccountError("unknown_passkey", f"you have no passkey {passkey}")
