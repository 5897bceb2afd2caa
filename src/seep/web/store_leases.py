"""The leases of a :class:`~seep.web.store.Store` (several instances on one database, docs/web.md
"Several instances: table ownership"): which instance holds a running table, taken, renewed
by the heartbeat, asked for and given up, each in one statement that two instances cannot both
win."""

from __future__ import annotations

import time
from typing import Any

from sqlalchemy import bindparam, delete, exists, insert, select, update
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError

from .schema import Lease, StoreConflict, leases_t, tables_t

__all__ = ["StoreLeases"]


class StoreLeases:
    """The store's leases; ``engine`` and ``owner`` (this instance's id, ``None``: one
    instance alone, no leases) are the store's."""

    engine: Engine
    owner: str | None

    def _held(self, code: Any) -> Any:
        """SQL: this instance holds the lease of table ``code``."""
        return exists().where(leases_t.c.code == code, leases_t.c.owner == self.owner)

    def _if_held(self) -> list[Any]:
        return [] if self.owner is None else [self._held(tables_t.c.code)]

    def _check_held(self, rowcount: int, code: str) -> None:
        if self.owner is not None and rowcount != 1:
            raise StoreConflict(f"table {code}: another instance holds it")

    def take_lease(self, code: str, ttl: float, now: float | None = None) -> Lease:
        """Take or renew this instance's lease of table ``code`` for ``ttl`` seconds: granted
        when nobody holds it, this instance does, or the holder's lease has expired. When
        another instance holds it, it is asked to hand the table over (see
        :meth:`renew_leases`) and the answer names it."""
        assert self.owner is not None, "leases need an owner (the instance id)"
        now = time.time() if now is None else now
        me, until = self.owner, now + ttl
        with self.engine.begin() as c:
            # One conditional UPDATE: of two instances taking an expired lease, one wins.
            done = c.execute(
                update(leases_t)
                .where(
                    leases_t.c.code == code,
                    (leases_t.c.owner == me) | (leases_t.c.expires < now),
                )
                .values(owner=me, expires=until, wanted=None)
            )
        if done.rowcount == 1:
            return Lease(True, me, until)
        try:
            with self.engine.begin() as c:
                c.execute(insert(leases_t).values(code=code, owner=me, expires=until))
            return Lease(True, me, until)
        except IntegrityError:
            pass  # held by another instance (the primary key turned the second taker away)
        with self.engine.begin() as c:
            c.execute(
                update(leases_t)
                .where(leases_t.c.code == code, leases_t.c.owner != me)
                .values(wanted=me)
            )
            row = c.execute(
                select(leases_t.c.owner, leases_t.c.expires).where(leases_t.c.code == code)
            ).first()
        if row is None:  # released meanwhile: the next attempt takes it
            return Lease(False, "", now)
        return Lease(row.owner == me, row.owner, row.expires)

    def lease_holder(self, code: str) -> str | None:
        """The instance whose lease of table ``code`` is stored (expired or not), or None."""
        with self.engine.connect() as c:
            owner = c.execute(select(leases_t.c.owner).where(leases_t.c.code == code)).scalar()
        return None if owner is None else str(owner)

    def renew_leases(
        self, codes: list[str], ttl: float, now: float | None = None
    ) -> tuple[set[str], set[str]]:
        """The heartbeat: extend this instance's leases of ``codes``. Returns the codes it
        still holds and, among them, those another instance has asked for."""
        assert self.owner is not None, "leases need an owner (the instance id)"
        now = time.time() if now is None else now
        held: set[str] = set()
        wanted: set[str] = set()
        in_codes: Any = bindparam("codes", expanding=True)
        with self.engine.begin() as c:
            for i in range(0, len(codes), 500):
                chunk = codes[i : i + 500]
                c.execute(
                    update(leases_t)
                    .where(leases_t.c.owner == self.owner, leases_t.c.code.in_(in_codes))
                    .values(expires=now + ttl),
                    {"codes": chunk},
                )
                rows = c.execute(
                    select(leases_t.c.code, leases_t.c.wanted).where(
                        leases_t.c.owner == self.owner, leases_t.c.code.in_(in_codes)
                    ),
                    {"codes": chunk},
                ).all()
                for row in rows:
                    held.add(row.code)
                    if row.wanted is not None and row.wanted != self.owner:
                        wanted.add(row.code)
        return held, wanted

    def release_lease(self, code: str | None = None) -> None:
        """Give up this instance's lease of table ``code`` (``None``: of every table)."""
        if self.owner is None:
            return
        cond = [leases_t.c.owner == self.owner]
        if code is not None:
            cond.append(leases_t.c.code == code)
        with self.engine.begin() as c:
            c.execute(delete(leases_t).where(*cond))
