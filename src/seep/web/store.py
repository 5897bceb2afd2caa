"""Persistence with SQLAlchemy 2.x (Core): tables, seats and every move as it is made.

SQLite at ``./data/seep.db`` by default (the folder is created on demand);
``SEEP_DATABASE_URL`` or an explicit URL chooses another database (PostgreSQL works the same).
A running table is stored as its settings, seed, seats (token hashes only) and moves; a restart
replays the moves through the engine. A finished table keeps its docs/format.md game record; so
does a closed one (abandoned, or never started), with its finished deals.

Only *live* tables (``waiting`` or ``playing``) are read at start-up, through an index on
``status``: a database full of finished and closed tables starts as fast as an empty one.

Several server instances may share one database (docs/deploy.md): each running table then has
one owner at a time, recorded in ``leases`` (owner instance id, expiry, and who else wants it),
and the primary key (table, move number) of ``moves`` turns a second writer of a move away.

The tables it keeps, the records its writes take and its refusals are in :mod:`seep.web.schema`;
its queries in :mod:`seep.web.store_reads`.
"""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import (
    bindparam,
    create_engine,
    delete,
    event,
    insert,
    update,
)
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DatabaseError, IntegrityError, OperationalError

from . import migrations
from .database import (
    BUSY_TIMEOUT_SECONDS,
    BadDatabase,
    MoveWriter,
    Timer,
    Write,
    check_sqlite_file,
    database_url,
    db_reason,
    open_schema,
    shown_url,
    sqlite_pragmas,
    untimed,
)
from .ratings import RatedMatch
from .schema import (
    LIVE,
    Lease,
    SeatRow,
    StoreConflict,
    StoreUnavailable,
    TableRow,
    leases_t,
    metadata,
    moves_t,
    tables_t,
)
from .store_accounts import StoreAccounts
from .store_event_rounds import StoreEventRounds
from .store_events import StoreEvents
from .store_leases import StoreLeases
from .store_moderation import StoreModeration
from .store_passkeys import StorePasskeys
from .store_push import StorePush
from .store_ratings import StoreRatings
from .store_reads import StoreReads

__all__ = [
    "LIVE",
    "Lease",
    "SeatRow",
    "Store",
    "StoreConflict",
    "StoreUnavailable",
    "StoredMove",
    "TableRow",
    "leases_t",
    "metadata",
    "moves_t",
    "tables_t",
]

W = TypeVar("W", bound=Callable[..., Any])
#: A move to store: (table code, move number, the move as a docs/format.md dict with its
#: ``seat``, or that dict's JSON text, the state version it was made in).
StoredMove = tuple[str, int, dict[str, Any] | str, int]
PROBE_CODE = "~ready~"  # the leases row the readiness probe writes and deletes at once


def _write(method: W) -> W:
    """A write whose refusal by the database (locked, disk full) is a
    :class:`StoreUnavailable`, for the caller to try again."""

    @functools.wraps(method)
    def wrapper(self: Store, *args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return method(self, *args, **kwargs)
        except OperationalError as exc:
            raise StoreUnavailable(db_reason(exc)) from None
        finally:
            self.timed("table", time.perf_counter() - start)

    return wrapper  # type: ignore[return-value]


class Store(
    StoreReads,
    StoreLeases,
    StoreAccounts,
    StoreRatings,
    StorePasskeys,
    StoreModeration,
    StorePush,
    StoreEvents,
    StoreEventRounds,
):
    """The server's database. Every write is its own transaction, committed on return.

    ``owner`` is this server instance's id when several instances share the database: writes to
    a table then need its lease (:meth:`take_lease`) and raise :class:`StoreConflict` without.

    ``upgrade``: bring the schema to this release's newest revision on opening (the default);
    without it a database whose schema is behind is refused with :class:`BadDatabase`, which
    names ``seep db upgrade`` (``seep serve`` upgrades SQLite itself and leaves a shared
    PostgreSQL to the operator: docs/deploy.md "Upgrading").
    """

    def __init__(
        self,
        url: str | None = None,
        *,
        owner: str | None = None,
        busy_timeout: float = BUSY_TIMEOUT_SECONDS,
        upgrade: bool = True,
    ) -> None:
        self.url = database_url(url)
        # The last checkpoint's failure (None: it went well), for readiness (/readyz).
        self.checkpoint_problem: str | None = None
        where = shown_url(self.url)
        if self.url.startswith("sqlite:///") and ":memory:" not in self.url:
            path = Path(self.url.removeprefix("sqlite:///"))
            path.parent.mkdir(parents=True, exist_ok=True)
            check_sqlite_file(path)
            where = str(path)
        sqlite = self.url.startswith("sqlite")
        self.engine: Engine = create_engine(
            self.url, connect_args={"timeout": busy_timeout} if sqlite else {}
        )
        if self.engine.dialect.name == "sqlite":
            event.listen(self.engine, "connect", sqlite_pragmas)
        try:
            with self.engine.begin() as c:
                open_schema(c, where, upgrade)
                # A damaged file is refused here, with its name, rather than by a traceback
                # half-way through loading the tables.
                damage = self._damage(c) if self.engine.dialect.name == "sqlite" else None
        except DatabaseError as exc:
            self.engine.dispose()
            reason = str(exc.orig).splitlines()[0] if exc.orig is not None else str(exc)
            raise BadDatabase(f"the database {where} cannot be used: {reason}") from None
        if damage is not None:
            self.engine.dispose()
            raise BadDatabase(f"the database {where} is damaged ({damage}): restore a backup")
        # With an owner (several instances on one database), every write to a table is made
        # only while this instance holds its lease: a writer that lost it is turned away.
        self.owner = owner
        # Told how long each write took, by what it wrote (the app's metrics; a refused
        # write's time counts too: a locked database is what the figure must show).
        self.timed: Timer = untimed
        set_version = (
            update(tables_t)
            .where(tables_t.c.code == bindparam("the_code"))
            .values(version=bindparam("the_version"))
        )
        if owner is not None:
            set_version = set_version.where(self._held(tables_t.c.code))
        self._moves = MoveWriter(
            self.engine,
            insert(moves_t).values(
                code=bindparam("code"), seq=bindparam("seq"), move=bindparam("move")
            ),
            set_version,
        )

    @staticmethod
    def _damage(c: Any) -> str | None:
        # quick_check reads every page once without the index cross-checks of integrity_check
        # (about a second per GB): a start-up cost worth a clear refusal of a damaged file.
        problem = c.exec_driver_sql("PRAGMA quick_check(1)").scalar()
        if problem == "ok":
            return None
        lines = str(problem).splitlines()  # "*** in database main ***" heads the detail
        return "; ".join(line for line in lines if not line.startswith("***")) or lines[0]

    def close(self) -> None:
        """Release the connections."""
        self._moves.close()
        self.engine.dispose()

    def checkpoint(self, mode: str = "PASSIVE") -> bool:
        """Copy SQLite's write-ahead log into the database file (call it from a worker thread
        every few seconds; other databases need nothing). ``PASSIVE`` never waits for the
        server's writes, but while they go on the log never starts over; ``RESTART`` (what the
        server runs) then has the next write start it over; ``TRUNCATE`` empties the file.
        ``False`` when SQLite could not finish it (busy: a reader on an older snapshot, or
        another checkpoint at the same moment); try again later."""
        if mode not in ("PASSIVE", "RESTART", "TRUNCATE"):
            raise ValueError(f"checkpoint mode is PASSIVE, RESTART or TRUNCATE, not {mode!r}")
        if self.engine.dialect.name == "sqlite":
            try:
                with self.engine.connect() as c:
                    if mode != "PASSIVE":
                        # RESTART and TRUNCATE hold back the server's writes while they copy
                        # (a move's write gives up after BUSY_TIMEOUT_SECONDS, and every table
                        # waits on the loop meanwhile): a PASSIVE one first copies all but the
                        # frames written since, without stopping them.
                        c.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)")
                    # Its row: (busy, frames in the log, frames copied); busy 1 is no error.
                    row = c.exec_driver_sql(f"PRAGMA wal_checkpoint({mode})").first()
            except DatabaseError as exc:
                self.checkpoint_problem = db_reason(exc)
                raise
            self.checkpoint_problem = None
            return row is None or not row[0]
        return True

    def problem(self) -> str | None:
        """Why the database cannot serve this release now, or ``None`` when it can (call it
        from a worker thread): a probe write (a row written and deleted in one committed
        transaction: a locked database or a full disk refuses it) with a look at the schema's
        revision, and after a failed checkpoint, a checkpoint again."""
        try:
            with self.engine.begin() as c:
                c.execute(insert(leases_t).values(code=PROBE_CODE, owner="", expires=0.0))
                c.execute(delete(leases_t).where(leases_t.c.code == PROBE_CODE))
                at = migrations.current(c)
        except DatabaseError as exc:
            return f"the database cannot be written: {db_reason(exc)}"
        if migrations.lag(at):
            # Behind (it can only have been downgraded under the running server): a newer
            # schema is fine, since a revision keeps the release before it working (a rolling
            # upgrade: docs/deploy.md "Upgrading").
            return f"the schema is behind this release (at {at}): run `seep db upgrade`"
        if self.checkpoint_problem is not None:
            try:
                self.checkpoint()
            except DatabaseError:
                return f"the last checkpoint failed: {self.checkpoint_problem}"
        return None

    # --- writes -----------------------------------------------------------------------------

    @staticmethod
    def _seats(table: TableRow) -> str:
        return json.dumps(
            [
                {
                    "name": s.name,
                    "kind": s.kind,
                    "token_hash": s.token_hash,
                    "account": s.account,
                    "forfeited": s.forfeited,
                }
                for s in table.seats
            ]
        )

    @_write
    def create_table(self, table: TableRow) -> None:
        """Store a new table; :class:`StoreConflict` when its code is taken (by another
        instance at the same moment: codes are unique by the database)."""
        try:
            self._create_table(table)
        except IntegrityError:
            raise StoreConflict(f"table code {table.code} is taken") from None

    def _create_table(self, table: TableRow) -> None:
        with self.engine.begin() as c:
            c.execute(
                insert(tables_t).values(
                    code=table.code,
                    settings=json.dumps(table.settings),
                    seed=str(table.seed),
                    status=table.status,
                    host=table.host,
                    seats=self._seats(table),
                    version=table.version,
                    created=time.time(),
                )
            )
            self._seat_accounts(c, table)

    @_write
    def save_table(self, table: TableRow) -> None:
        """Store a table's seats, host and status."""
        with self.engine.begin() as c:
            done = c.execute(
                update(tables_t)
                .where(tables_t.c.code == table.code, *self._if_held())
                .values(
                    status=table.status,
                    host=table.host,
                    seats=self._seats(table),
                    version=table.version,
                )
            )
            self._check_held(done.rowcount, table.code)
            self._seat_accounts(c, table)

    def add_move(self, table: TableRow, seq: int, move: dict[str, Any] | str, version: int) -> None:
        """Store move number ``seq`` (from 0) of a table, made in state ``version``;
        :class:`StoreConflict` when that move number is stored already or, with an owner,
        another instance holds the table; :class:`StoreUnavailable` when the database refuses
        the write."""
        start = time.perf_counter()
        try:
            [outcome] = self.write_moves([(table.code, seq, move, version)])
        finally:
            self.timed("move", time.perf_counter() - start)
        if outcome is not None:
            raise outcome

    def write_moves(self, moves: Sequence[StoredMove]) -> list[Exception | None]:
        """Store several tables' moves, each ``(code, seq, move, version)`` as :meth:`add_move`
        takes them, in one transaction (a group commit: :class:`seep.web.group_commit.GroupCommit`
        calls it from its thread), waiting for the database as long as a move may. Each move's
        outcome, in order: ``None`` (stored), or the :class:`StoreConflict` or
        :class:`StoreUnavailable` that :meth:`add_move` would raise; one move's refusal is its
        own (:meth:`MoveWriter.write_many`). Not timed here: the caller tells :attr:`timed` on
        the loop's thread."""
        return self._moves.write_many(self._move_writes(moves))

    def write_moves_now(self, moves: Sequence[StoredMove]) -> bool:
        """Store these moves in one transaction if the database takes them at once, on the
        caller's thread (the event loop's): True when every one is stored, False when none is
        (a lock held, a move that :meth:`write_moves` must tell apart, or a database that is
        not an SQLite file: a server's round trip is a wait). Never waits for a lock."""
        if not self._moves.wait_free:
            return False
        return self._moves.write_all_now(self._move_writes(moves))

    def _move_writes(self, moves: Sequence[StoredMove]) -> list[Write]:
        return [
            (
                (
                    {
                        "code": code,
                        "seq": seq,
                        "move": move if isinstance(move, str) else json.dumps(move),
                    },
                    {"the_code": code, "the_version": version},
                ),
                f"table {code}: move {seq}",
                functools.partial(self._check_held, code=code),
            )
            for code, seq, move, version in moves
        ]

    @_write
    def delete_moves(self, code: str, first: int) -> None:
        """Forget the moves from number ``first`` on (practice undo)."""
        with self.engine.begin() as c:
            c.execute(delete(moves_t).where(moves_t.c.code == code, moves_t.c.seq >= first))

    def finish(
        self, table: TableRow, record: dict[str, Any], rated: RatedMatch | None = None
    ) -> None:
        """Mark a table finished, keeping its game record; a rated match's ratings change in
        the same transaction, once (:meth:`StoreRatings._rate`)."""
        self._end(table, "finished", record, rated)

    def close_table(
        self, table: TableRow, record: dict[str, Any] | None, rated: RatedMatch | None = None
    ) -> None:
        """Mark a table closed (abandoned, or never started), keeping its finished deals as a
        game record; its moves stay too. A rated match left by all its players is rated as
        forfeited by them, in the same transaction."""
        self._end(table, "closed", record, rated)

    @_write
    def _end(
        self,
        table: TableRow,
        status: str,
        record: dict[str, Any] | None,
        rated: RatedMatch | None = None,
    ) -> None:
        with self.engine.begin() as c:
            done = c.execute(
                update(tables_t)
                .where(tables_t.c.code == table.code, *self._if_held())
                .values(
                    status=status,
                    seats=self._seats(table),
                    version=table.version,
                    record=json.dumps(record) if record is not None else None,
                )
            )
            self._check_held(done.rowcount, table.code)
            self._seat_accounts(c, table)
            if rated is not None:
                self._rate(c, table.code, rated)
