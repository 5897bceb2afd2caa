"""The accounts of a :class:`~seep.web.store.Store` and their sign-in sessions (docs/web.md
"Accounts"): each write one transaction; a session is found by the hash of its cookie."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError

from .schema import (
    LIVE,
    StoreConflict,
    TableRow,
    accounts_t,
    seat_accounts_t,
    sessions_t,
    tables_t,
)
from .store_events import forget_events
from .store_passkeys import forget_passkeys
from .store_push import forget_push
from .store_ratings import forget_ratings

__all__ = ["FORMER_PLAYER", "AccountRow", "StoreAccounts"]

FORMER_PLAYER = "a former player"  # a deleted account's name at the tables it sat at


@dataclass(frozen=True)
class AccountRow:
    """An account as stored: its id, its name as spelt, its password hash, when it was made."""

    id: int
    name: str
    password_hash: str
    created: float


def _account(row: Any) -> AccountRow:
    return AccountRow(row.id, row.name, row.password_hash, row.created)


class StoreAccounts:
    """The store's accounts and sessions; ``engine`` is the store's."""

    engine: Engine

    def create_account(self, name: str, name_key: str, password_hash: str) -> AccountRow:
        """A new account; :class:`StoreConflict` when ``name_key`` is another account's."""
        now = time.time()
        try:
            with self.engine.begin() as c:
                made = c.execute(
                    insert(accounts_t).values(
                        name=name, name_key=name_key, password_hash=password_hash, created=now
                    )
                )
                key = made.inserted_primary_key
                assert key is not None
                account_id = int(key[0])
        except IntegrityError:
            raise StoreConflict(f"the name {name!r} is taken") from None
        return AccountRow(account_id, name, password_hash, now)

    def account_named(self, name_key: str) -> AccountRow | None:
        """The account whose name looks like ``name_key``, if any."""
        with self.engine.connect() as c:
            row = c.execute(select(accounts_t).where(accounts_t.c.name_key == name_key)).first()
        return None if row is None else _account(row)

    def account_by_id(self, account: int) -> AccountRow | None:
        """The account of this id, if it still exists."""
        with self.engine.connect() as c:
            row = c.execute(select(accounts_t).where(accounts_t.c.id == account)).first()
        return None if row is None else _account(row)

    def add_session(self, account: int, token_hash: str, keep: int) -> None:
        """A new session of ``account``; its oldest ones beyond ``keep`` end."""
        now = time.time()
        with self.engine.begin() as c:
            c.execute(
                insert(sessions_t).values(
                    token_hash=token_hash, account=account, created=now, seen=now
                )
            )
            old = (
                select(sessions_t.c.token_hash)
                .where(sessions_t.c.account == account)
                .order_by(sessions_t.c.seen.desc(), sessions_t.c.created.desc())
                .offset(keep)
            )
            c.execute(delete(sessions_t).where(sessions_t.c.token_hash.in_(old)))

    def session_account(self, token_hash: str, idle: float, touch: float) -> AccountRow | None:
        """The account of a session seen within ``idle`` seconds (an older one ends); its
        last sight is written when older than ``touch`` seconds (not at every request)."""
        now = time.time()
        query = (
            select(accounts_t, sessions_t.c.seen)
            .join(sessions_t, sessions_t.c.account == accounts_t.c.id)
            .where(sessions_t.c.token_hash == token_hash)
        )
        with self.engine.connect() as c:
            row = c.execute(query).first()
        if row is None:
            return None
        if now - row.seen > idle:
            self.end_session(token_hash)
            return None
        if now - row.seen > touch:
            with self.engine.begin() as c:
                c.execute(
                    update(sessions_t).where(sessions_t.c.token_hash == token_hash).values(seen=now)
                )
        return _account(row)

    def end_session(self, token_hash: str) -> None:
        """Sign one session out."""
        with self.engine.begin() as c:
            c.execute(delete(sessions_t).where(sessions_t.c.token_hash == token_hash))

    def sessions_of(self, account: int) -> int:
        """How many sessions ``account`` has."""
        with self.engine.connect() as c:
            n = c.execute(
                select(func.count()).select_from(sessions_t).where(sessions_t.c.account == account)
            ).scalar_one()
        return int(n)

    def set_password(self, account: int, password_hash: str, token_hash: str) -> None:
        """A new password hash; every session of the account ends, and ``token_hash`` (the
        browser that changed it) starts, in one transaction."""
        now = time.time()
        with self.engine.begin() as c:
            c.execute(
                update(accounts_t)
                .where(accounts_t.c.id == account)
                .values(password_hash=password_hash)
            )
            c.execute(delete(sessions_t).where(sessions_t.c.account == account))
            c.execute(
                insert(sessions_t).values(
                    token_hash=token_hash, account=account, created=now, seen=now
                )
            )

    # --- the seats an account holds ------------------------------------------------------------

    @staticmethod
    def _seat_accounts(c: Connection, table: TableRow) -> None:
        """Write which account sits where at ``table`` (inside the caller's transaction)."""
        c.execute(delete(seat_accounts_t).where(seat_accounts_t.c.code == table.code))
        rows = [
            {"code": table.code, "seat": i, "account": seat.account}
            for i, seat in enumerate(table.seats)
            if seat.account is not None
        ]
        if rows:
            c.execute(insert(seat_accounts_t), rows)

    def link_stored_seat(self, code: str, token_hash: str, account: int) -> int | None:
        """Give a stored table's guest seat held by ``token_hash`` to ``account`` (a table no
        instance holds in memory: finished, closed); the seat, or None when there is none to
        give (no such table or seat, or the seat is an account's already)."""
        with self.engine.begin() as c:
            row = c.execute(
                select(tables_t.c.seats, tables_t.c.status).where(tables_t.c.code == code)
            ).first()
            if row is None or row.status in LIVE:
                return None
            seats = json.loads(row.seats)
            mine = [
                i
                for i, s in enumerate(seats)
                if s.get("token_hash") == token_hash and s.get("account") is None
            ]
            if not mine:
                return None
            seats[mine[0]]["account"] = account
            c.execute(
                update(tables_t).where(tables_t.c.code == code).values(seats=json.dumps(seats))
            )
            c.execute(insert(seat_accounts_t).values(code=code, seat=mine[0], account=account))
        return mine[0]

    def matches_of(self, account: int, offset: int, limit: int) -> Sequence[Any]:
        """The account's stored games (finished, or closed with finished deals), newest
        first: rows of ``code``, ``seat``, ``status``, ``created``, ``seats`` and ``record``."""
        query = (
            select(
                tables_t.c.code,
                seat_accounts_t.c.seat,
                tables_t.c.status,
                tables_t.c.created,
                tables_t.c.seats,
                tables_t.c.record,
            )
            .join(seat_accounts_t, seat_accounts_t.c.code == tables_t.c.code)
            .where(seat_accounts_t.c.account == account, tables_t.c.record.is_not(None))
            .order_by(tables_t.c.created.desc(), tables_t.c.code)
            .offset(offset)
            .limit(limit)
        )
        with self.engine.connect() as c:
            return c.execute(query).all()

    def delete_account(self, account: int) -> None:
        """The account, its sessions and its passkeys, gone, in one transaction; at every
        table it sat at, its seats' names become :data:`FORMER_PLAYER` (the games stay, for
        the others)."""
        with self.engine.begin() as c:
            codes = c.execute(
                select(seat_accounts_t.c.code).where(seat_accounts_t.c.account == account)
            ).scalars()
            for code in sorted(set(codes)):
                raw = c.execute(select(tables_t.c.seats).where(tables_t.c.code == code)).scalar()
                seats = json.loads(raw) if raw else []
                for seat in seats:
                    if seat.get("account") == account:
                        seat.update(name=FORMER_PLAYER, account=None)
                c.execute(
                    update(tables_t).where(tables_t.c.code == code).values(seats=json.dumps(seats))
                )
            c.execute(delete(seat_accounts_t).where(seat_accounts_t.c.account == account))
            forget_ratings(c, account)
            forget_passkeys(c, account)
            forget_push(c, account)
            forget_events(c, account, FORMER_PLAYER)
            c.execute(delete(sessions_t).where(sessions_t.c.account == account))
            c.execute(delete(accounts_t).where(accounts_t.c.id == account))
