"""The passkeys of a :class:`~seep.web.store.Store`'s accounts and the WebAuthn ceremonies under
way (docs/web.md "Accounts"): each write one transaction; a ceremony is found by the hash of
its handle and taken at most once."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError

from .schema import StoreConflict, passkey_challenges_t, passkeys_t

__all__ = ["Ceremony", "PasskeyRow", "StorePasskeys", "forget_passkeys"]


@dataclass(frozen=True)
class PasskeyRow:
    """A passkey as stored."""

    id: int
    account: int
    credential_id: bytes
    public_key: bytes
    user_handle: bytes
    sign_count: int
    transports: list[str]
    label: str
    created: float
    used: float | None


@dataclass(frozen=True)
class Ceremony:
    """A registration's or a sign-in's challenge, as its options answer left it."""

    purpose: str
    account: int | None
    challenge: bytes
    user_handle: bytes | None
    origin: str


def forget_passkeys(c: Connection, account: int) -> None:
    """Delete the account's passkeys and ceremonies inside the caller's transaction (an
    account's deletion: SQLite does not enforce the foreign keys' cascade by itself)."""
    c.execute(delete(passkeys_t).where(passkeys_t.c.account == account))
    c.execute(delete(passkey_challenges_t).where(passkey_challenges_t.c.account == account))


def _passkey(row: Any) -> PasskeyRow:
    return PasskeyRow(
        row.id,
        row.account,
        bytes(row.credential_id),
        bytes(row.public_key),
        bytes(row.user_handle),
        int(row.sign_count),
        list(json.loads(row.transports)),
        row.label,
        row.created,
        row.used,
    )


class StorePasskeys:
    """The store's passkeys and ceremonies; ``engine`` is the store's."""

    engine: Engine

    # --- ceremonies ---------------------------------------------------------------------------

    def start_ceremony(self, handle_hash: str, ceremony: Ceremony, expires: float) -> int:
        """Keep a ceremony until ``expires``; the expired ones go first. Returns how many are
        pending now (the caller refuses new ones over its cap)."""
        now = time.time()
        with self.engine.begin() as c:
            c.execute(delete(passkey_challenges_t).where(passkey_challenges_t.c.expires < now))
            c.execute(
                insert(passkey_challenges_t).values(
                    handle_hash=handle_hash,
                    purpose=ceremony.purpose,
                    account=ceremony.account,
                    challenge=ceremony.challenge,
                    user_handle=ceremony.user_handle,
                    origin=ceremony.origin,
                    expires=expires,
                )
            )
            n = c.execute(select(func.count()).select_from(passkey_challenges_t)).scalar_one()
        return int(n)

    def drop_ceremony(self, handle_hash: str) -> None:
        """Forget a ceremony (one refused over the cap)."""
        with self.engine.begin() as c:
            c.execute(
                delete(passkey_challenges_t).where(
                    passkey_challenges_t.c.handle_hash == handle_hash
                )
            )

    def take_ceremony(self, handle_hash: str) -> Ceremony | None:
        """The unexpired ceremony of ``handle_hash``, deleted as it is read: of two finishes
        with one handle (even on two instances) only the one whose delete counts gets it."""
        now = time.time()
        t = passkey_challenges_t
        with self.engine.begin() as c:
            row = c.execute(select(t).where(t.c.handle_hash == handle_hash)).first()
            if row is None:
                return None
            gone = c.execute(delete(t).where(t.c.handle_hash == handle_hash)).rowcount
        if gone != 1 or row.expires < now:
            return None
        handle = None if row.user_handle is None else bytes(row.user_handle)
        return Ceremony(row.purpose, row.account, bytes(row.challenge), handle, row.origin)

    # --- passkeys -----------------------------------------------------------------------------

    def add_passkey(
        self,
        account: int,
        credential_id: bytes,
        public_key: bytes,
        user_handle: bytes,
        sign_count: int,
        transports: list[str],
        label: str,
    ) -> PasskeyRow:
        """A new passkey of ``account``; :class:`StoreConflict` when its credential id is
        stored already."""
        now = time.time()
        try:
            with self.engine.begin() as c:
                made = c.execute(
                    insert(passkeys_t).values(
                        account=account,
                        credential_id=credential_id,
                        public_key=public_key,
                        user_handle=user_handle,
                        sign_count=sign_count,
                        transports=json.dumps(transports),
                        label=label,
                        created=now,
                        used=None,
                    )
                )
                key = made.inserted_primary_key
                assert key is not None
        except IntegrityError:
            raise StoreConflict("this passkey is registered already") from None
        return PasskeyRow(
            int(key[0]),
            account,
            credential_id,
            public_key,
            user_handle,
            sign_count,
            transports,
            label,
            now,
            None,
        )

    def passkeys_of(self, account: int) -> list[PasskeyRow]:
        """The account's passkeys, oldest first."""
        query = (
            select(passkeys_t)
            .where(passkeys_t.c.account == account)
            .order_by(passkeys_t.c.created, passkeys_t.c.id)
        )
        with self.engine.connect() as c:
            return [_passkey(r) for r in c.execute(query)]

    def passkey_by_credential(self, credential_id: bytes) -> PasskeyRow | None:
        """The passkey of a credential id, if any."""
        query = select(passkeys_t).where(passkeys_t.c.credential_id == credential_id)
        with self.engine.connect() as c:
            row = c.execute(query).first()
        return None if row is None else _passkey(row)

    def passkey_used(self, passkey: int, old_count: int, new_count: int) -> bool:
        """Record a sign-in with a passkey: its new counter, if the counter is still
        ``old_count`` (another sign-in with a cloned key in between loses). Whether it was."""
        with self.engine.begin() as c:
            done = c.execute(
                update(passkeys_t)
                .where(passkeys_t.c.id == passkey, passkeys_t.c.sign_count == old_count)
                .values(sign_count=new_count, used=time.time())
            ).rowcount
        return bool(done == 1)

    def delete_passkey(self, account: int, passkey: int) -> bool:
        """Remove one of ``account``'s passkeys; False when it has none of that id (another
        account's is not touched)."""
        with self.engine.begin() as c:
            gone = c.execute(
                delete(passkeys_t).where(
                    passkeys_t.c.id == passkey, passkeys_t.c.account == account
                )
            ).rowcount
        return bool(gone == 1)
