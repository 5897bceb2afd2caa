"""Moderation in a :class:`~seep.web.store.Store` (docs/deploy.md "Moderation"): players'
reports, the operator's bans, mutes and requests to close a table, and the audit log.

Each operator's action (``seep admin``, :mod:`seep.web.admincommands`) is one transaction that
also writes its audit row, so that no action happens unrecorded and no row records an action
that did not happen. The servers read the active sanctions in one query every few seconds
(:class:`seep.web.moderation.Moderation`), never per request.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import delete, insert, or_, select, update
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError, OperationalError

from .schema import StoreUnavailable, audit_t, reports_t, sanctions_t, sessions_t, tables_t

__all__ = ["KINDS", "TARGETS", "StoreModeration"]

KINDS = ("ban", "mute", "close")
TARGETS = ("address", "account", "table")


def _audit(c: Connection, by: str, action: str, target: str, reason: str, now: float) -> None:
    c.execute(
        insert(audit_t).values(
            at=now, by=by[:64], action=action, target=target[:100], reason=reason[:200]
        )
    )


class StoreModeration:
    """The store's reports, sanctions and audit log; ``engine`` is the store's."""

    engine: Engine

    # --- players' reports -------------------------------------------------------------------

    def add_report(self, report: Mapping[str, Any]) -> bool:
        """Keep a player's report (the columns of ``reports``, ``dedupe`` among them); False
        when the same reporter reported the same line or player already (kept once)."""
        try:
            with self.engine.begin() as c:
                c.execute(insert(reports_t).values(created=time.time(), open=True, **report))
        except IntegrityError:
            return False
        except OperationalError as exc:  # locked or full: the player may send it again
            raise StoreUnavailable(f"a report: {exc.orig or exc}") from None
        return True

    def reports(self, only_open: bool, limit: int) -> Sequence[Any]:
        """The newest ``limit`` reports (``only_open``: those not closed), newest first."""
        query = select(reports_t).order_by(reports_t.c.id.desc()).limit(limit)
        if only_open:
            query = query.where(reports_t.c.open.is_(True))
        with self.engine.connect() as c:
            return c.execute(query).all()

    def close_report(self, report: int, by: str, reason: str = "") -> bool:
        """Close an open report (audited); False when there is no open report of this id."""
        now = time.time()
        with self.engine.begin() as c:
            done = c.execute(
                update(reports_t)
                .where(reports_t.c.id == report, reports_t.c.open.is_(True))
                .values(open=False, closed=now, closed_by=by[:64])
            )
            if done.rowcount != 1:
                return False
            _audit(c, by, "close-report", f"report {report}", reason, now)
        return True

    # --- sanctions ----------------------------------------------------------------------------

    def active_sanctions(self, now: float | None = None) -> Sequence[Any]:
        """Every ban, mute and close request in force (its index: ``ix_sanctions_active``)."""
        now = time.time() if now is None else now
        query = select(
            sanctions_t.c.kind, sanctions_t.c.target_kind, sanctions_t.c.target, sanctions_t.c.until
        ).where(
            sanctions_t.c.lifted.is_(None),
            or_(sanctions_t.c.until.is_(None), sanctions_t.c.until > now),
        )
        with self.engine.connect() as c:
            return c.execute(query).all()

    def add_sanction(
        self,
        kind: str,
        target_kind: str,
        target: str,
        until: float | None,
        reason: str,
        by: str,
        label: str = "",
    ) -> int:
        """A ban, a mute or a request to close a table (audited, the target as ``label`` says
        it, else as stored); a ban of an account also ends its sessions, in the same
        transaction. Returns the new sanction's id."""
        assert kind in KINDS and target_kind in TARGETS
        now = time.time()
        with self.engine.begin() as c:
            made = c.execute(
                insert(sanctions_t).values(
                    kind=kind,
                    target_kind=target_kind,
                    target=target,
                    created=now,
                    until=until,
                    reason=reason[:200],
                    by=by[:64],
                )
            )
            key = made.inserted_primary_key
            assert key is not None
            if kind == "ban" and target_kind == "account":
                c.execute(delete(sessions_t).where(sessions_t.c.account == int(target)))
            action = "close-table" if kind == "close" else f"{kind}-{target_kind}"
            if kind == "close":
                until_words = ""
            elif until is None:
                until_words = " forever"
            else:
                until_words = time.strftime(" until %Y-%m-%d %H:%M:%S UTC", time.gmtime(until))
            _audit(c, by, action, f"{label or target}{until_words}", reason, now)
        return int(key[0])

    def lift_sanction(
        self, kind: str, target_kind: str, target: str, by: str, reason: str, label: str = ""
    ) -> int:
        """Lift every active ``kind`` of ``target`` (unban, unmute; audited when one was, the
        target as ``label`` says it); returns how many were lifted."""
        now = time.time()
        with self.engine.begin() as c:
            done = c.execute(
                update(sanctions_t)
                .where(
                    sanctions_t.c.kind == kind,
                    sanctions_t.c.target_kind == target_kind,
                    sanctions_t.c.target == target,
                    sanctions_t.c.lifted.is_(None),
                    or_(sanctions_t.c.until.is_(None), sanctions_t.c.until > now),
                )
                .values(lifted=now)
            )
            if done.rowcount:
                _audit(c, by, f"un{kind}-{target_kind}", label or target, reason, now)
        return int(done.rowcount)

    def table_closed(self, code: str) -> None:
        """A server has closed the table ``code`` at the operator's request: the request is
        done (the operator's action is audited already)."""
        with self.engine.begin() as c:
            c.execute(
                update(sanctions_t)
                .where(
                    sanctions_t.c.kind == "close",
                    sanctions_t.c.target == code,
                    sanctions_t.c.lifted.is_(None),
                )
                .values(lifted=time.time())
            )

    def table_status(self, code: str) -> str | None:
        """A stored table's status, or None when no table has this code."""
        with self.engine.connect() as c:
            found = c.execute(select(tables_t.c.status).where(tables_t.c.code == code)).scalar()
        return None if found is None else str(found)

    def audit(self, limit: int) -> Sequence[Any]:
        """The newest ``limit`` rows of the audit log, newest first."""
        with self.engine.connect() as c:
            return c.execute(select(audit_t).order_by(audit_t.c.id.desc()).limit(limit)).all()
