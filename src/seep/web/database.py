"""The database under the store: which one (:func:`database_url`, ``./data/seep.db`` by
default), an SQLite file's check (:class:`BadDatabase`) and settings, the schema brought to this
release's revision when it is opened, and the few statements of a move's write compiled once
(:class:`MoveWriter`, the hottest write of the server).
"""

from __future__ import annotations

import contextlib
import operator
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

from sqlalchemy.engine import Connection, Engine, make_url
from sqlalchemy.exc import ArgumentError, OperationalError

from . import migrations
from .schema import StoreConflict, StoreUnavailable

__all__ = [
    "BUSY_TIMEOUT_SECONDS",
    "DEFAULT_URL",
    "MOVES_BUSY_TIMEOUT_SECONDS",
    "UPGRADE_LOCK",
    "WAL_LIMIT_BYTES",
    "BadDatabase",
    "MoveWriter",
    "Timer",
    "check_sqlite_file",
    "database_url",
    "db_reason",
    "open_schema",
    "shown_url",
    "sqlite_pragmas",
    "untimed",
]


DEFAULT_URL = "sqlite:///data/seep.db"
# SQLite truncates its write-ahead log to this size whenever a checkpoint lets it start over.
# Not much smaller: a busy server writes ~15 MB of log a second, and a log cut below what it
# needs between checkpoints must grow again, at the cost of every table's latency (600 tables:
# p99 293 ms with 4 MiB, 90 ms with 64 MiB; bench/server.py --tables 600).
WAL_LIMIT_BYTES = 64 * 1024 * 1024


# PostgreSQL's advisory lock that keeps two schema upgraders apart.
UPGRADE_LOCK = 7331


class BadDatabase(Exception):
    """The database cannot be used: the message is one line naming the file and what is
    wrong with it (``seep serve`` prints it instead of a traceback)."""


_SQLITE_MAGIC = b"SQLite format 3\x00"


def check_sqlite_file(path: Path) -> None:
    """Refuse an existing file that is not an SQLite database. An empty file is refused too:
    SQLite would take it for a new database, and a server started on a truncated file or a
    mistyped path would run empty without a word. A file that does not exist yet is new."""
    try:
        with path.open("rb") as f:
            head = f.read(len(_SQLITE_MAGIC))
    except FileNotFoundError:
        return
    except OSError as exc:
        raise BadDatabase(f"the database {path} cannot be opened: {exc.strerror}") from None
    if not head:
        raise BadDatabase(
            f"the database {path} is an empty file, not a Seep database "
            "(delete it to start a new one)"
        )
    if head != _SQLITE_MAGIC:
        raise BadDatabase(f"the database {path} is not an SQLite database file")


# How long a write waits for another writer's lock before it gives up (SQLite's busy timeout).
# Short: other writes run on the event loop's thread, so every table waits as long as one write
# does (the driver retries a failed move with backoff instead; docs/web.md "Liveness").
BUSY_TIMEOUT_SECONDS = 0.2
# The moves' own when they are written in a thread of their own (seep.web.group_commit), where
# a wait holds up the moves alone, so they wait out a checkpoint rather than fail. Written on
# the event loop's thread, they do not wait at all (MoveWriter.write_all_now).
MOVES_BUSY_TIMEOUT_SECONDS = 1.0


def db_reason(exc: Exception) -> str:
    """The database's own first line about ``exc`` (SQLAlchemy's or the driver's error)."""
    text = str(getattr(exc, "orig", None) or exc)
    return text.splitlines()[0] if text else repr(exc)


class Timer(Protocol):
    """A store's timer of its writes (the app's metrics): ``what`` took ``seconds``, for
    ``times`` writes (a group commit's moves, one transaction)."""

    def __call__(self, what: str, seconds: float, times: int = 1) -> None: ...


def untimed(what: str, seconds: float, times: int = 1) -> None:
    """A store's timer before it is given one (metrics): times nothing."""
    pass


def database_url(url: str | None = None) -> str:
    """The database to use: ``url``, else ``SEEP_DATABASE_URL``, else ./data/seep.db."""
    return url or os.environ.get("SEEP_DATABASE_URL") or DEFAULT_URL


def shown_url(url: str) -> str:
    """``url`` as a message or a log may show it: its password hidden."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return "the database URL given"  # not a URL: it may be anything, a secret included


def open_schema(c: Connection, where: str, upgrade: bool) -> None:
    """Bring the schema to this release's newest revision (``upgrade``), or make sure it is
    there; either way refuse, naming what to do, a database that a newer release wrote."""
    at = migrations.current(c)
    behind = migrations.lag(at)
    if behind is None:
        raise BadDatabase(
            f"the database {where} is at schema revision {at}, which this release of seep does "
            "not know: a newer release wrote it (run that release, or restore a backup)"
        )
    if not behind:
        return
    if not upgrade:
        raise BadDatabase(
            f"the database {where} is {behind} schema revision(s) behind this release "
            f"({at or 'none'}, newest {migrations.head()}): run "
            f"`seep db upgrade --database-url URL` once, then start the servers"
        )
    if c.dialect.name == "postgresql":
        # Several upgraders at once (instances starting together, an operator's `seep db
        # upgrade`): one upgrades, the others wait for its commit and then find nothing to do.
        c.exec_driver_sql(f"SELECT pg_advisory_xact_lock({UPGRADE_LOCK})")
        if not migrations.lag(migrations.current(c)):
            return
    # The schema by its Alembic revisions, in this transaction: a database written before
    # migrations (by create_all) is taken over where it stands.
    migrations.upgrade(c)


def sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    """Set up a new SQLite connection (SQLAlchemy's ``connect`` event)."""
    cur = dbapi_conn.cursor()
    # WAL with synchronous=NORMAL: a commit survives the server process being killed (what a
    # restart needs) without an fsync per move.
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")
    # No checkpoint inside a move's commit (its fsyncs would stall every table on the event
    # loop): Store.checkpoint runs them, in a worker thread.
    cur.execute("PRAGMA wal_autocheckpoint=0")
    # Without a limit the log file keeps the size of its busiest moment forever.
    cur.execute(f"PRAGMA journal_size_limit={WAL_LIMIT_BYTES}")
    # A deleted row's bytes are overwritten, not left in the file's free space: a deleted
    # account's name and password hash must not be read back out of a copy of the file.
    cur.execute("PRAGMA secure_delete=ON")
    cur.close()


#: One write of :meth:`MoveWriter.write_many`: its statements' parameters (one dict each), what it
#: writes (for the error's words) and the check of the last statement's row count.
Write = tuple[tuple[dict[str, Any], ...], str, Callable[[int], None]]


class MoveWriter:
    """:meth:`Store.add_move`'s transaction (the move's row, then the table's version, whose
    row count says whether the lease is held) on the database driver's own connection.

    A move is written once for each move of every table: through SQLAlchemy's execution layer
    its two statements cost about four times what the database itself spends on them
    (bench/server.py, issue 24). So they are compiled once, for this database's dialect, and
    run on the driver's cursor; the server writes many tables' moves at once
    (:class:`seep.web.group_commit.GroupCommit`: :meth:`write_all_now` on the event loop,
    :meth:`write_many` from its thread). A failure
    other than the move's key (another writer stored it first) rolls back and drops the
    connection: the next move takes a fresh one from the pool, as after the database's
    restart.
    """

    def __init__(self, engine: Engine, *statements: Any) -> None:
        self.engine = engine
        dbapi = engine.dialect.loaded_dbapi
        self._integrity: type[Exception] = dbapi.IntegrityError
        self._failure: type[Exception] = dbapi.Error
        self._statements = [self._compile(s) for s in statements]
        self._conn: Any = None  # SQLAlchemy's pooled connection, while it works
        self._raw: Any = None  # its driver connection
        #: The database takes a write without a server's round trip (an SQLite file): a write
        #: that need not wait for a lock may be made on the event loop's thread.
        self.wait_free = engine.dialect.name == "sqlite"
        self._wait_ms = int(MOVES_BUSY_TIMEOUT_SECONDS * 1000)  # SQLite's busy timeout wanted
        self._waits_ms: int | None = None  # and the one set on the driver connection

    def _compile(self, statement: Any) -> tuple[str, Callable[[dict[str, Any]], Any]]:
        compiled = statement.compile(dialect=self.engine.dialect)
        fixed = dict(compiled.params)  # the literals bound in the statement (the owner)
        order = compiled.positiontup
        if order is None:  # named parameters: the driver takes a dict
            return compiled.string, lambda p: {**fixed, **p}
        if len(order) == 1:
            return compiled.string, lambda p: ({**fixed, **p}[order[0]],)
        # Run for every move: one C call picks the values in order.
        pick = operator.itemgetter(*order)
        return compiled.string, lambda p: pick({**fixed, **p})

    def write_many(self, writes: Sequence[Write]) -> list[Exception | None]:
        """Run several writes in one transaction: each its statements' parameters (one dict
        each), what it writes (for the error's words) and the check of the last statement's
        row count (its exception refuses that write). A group commit, far cheaper a write than
        one transaction each. Each
        write's outcome, in order: ``None`` (stored), :class:`StoreConflict` or
        :class:`StoreUnavailable`.

        A write that fails is left out and the others are tried again in a new transaction:
        one table's refused write (its lease lost, a move stored twice) never fails another's.
        A refusal by the database itself (locked, disk full) is tried again once without the
        write it came at; a second refusal is every remaining write's, so a locked database
        costs three busy timeouts (all at once, then one by one twice), not one per write.
        """
        self._wait_ms = int(MOVES_BUSY_TIMEOUT_SECONDS * 1000)
        if len(writes) > 1 and self._all_at_once(writes):
            return [None] * len(writes)
        outcomes: list[Exception | None] = [None] * len(writes)
        left = list(range(len(writes)))
        refused = False
        while left:
            at = 0
            try:
                raw = self._connection()
                while at < len(left):  # ``at``: the write a failure comes at
                    params, _, check = writes[left[at]]
                    check(self.execute(raw, params))
                    at += 1
                at -= 1  # the commit's refusal: the last write's, to leave one out
                raw.commit()
                return outcomes
            except StoreConflict as exc:  # a lease lost: that table's write only
                self._rollback()
                outcomes[left.pop(at)] = exc
            except self._integrity:
                self._rollback()
                i = left.pop(at)
                outcomes[i] = StoreConflict(f"{writes[i][1]} is already stored")
            except (self._failure, StoreUnavailable) as exc:
                self._rollback()
                self.close()
                failure = (
                    exc if isinstance(exc, StoreUnavailable) else StoreUnavailable(db_reason(exc))
                )
                if refused:
                    for i in left:
                        outcomes[i] = failure
                    return outcomes
                refused = True
                outcomes[left.pop(at)] = failure
        return outcomes

    def write_all_now(self, writes: Sequence[Write]) -> bool:
        """Every write in one transaction without waiting for another writer's lock (SQLite's
        busy timeout 0 meanwhile): True when each was stored, False when none was (a lock held,
        a write refused: :meth:`write_many` tells them apart)."""
        self._wait_ms = 0
        return self._all_at_once(writes)

    def _all_at_once(self, writes: Sequence[Write]) -> bool:
        """Every write at once, a statement for all (``executemany``: the database's driver
        lets go of the interpreter a few times a batch, not a few times a write): True when
        each was stored, False (nothing stored) when one must be told apart."""
        try:
            raw = self._connection()
            count = self.execute_all(raw, [params for params, _, _ in writes])
            if count != len(writes):  # a write's check would see no row: told apart
                self._rollback()
                return False
            for _, _, check in writes:
                check(1)
            raw.commit()
            return True
        except Exception:  # told apart, one by one, by the writes that follow
            self._rollback()
            return False

    def execute_all(self, raw: Any, writes: Sequence[tuple[dict[str, Any], ...]]) -> int:
        """Run the statements for every write's parameters at once on the driver connection
        ``raw``; the last statement's row count, all writes together."""
        cur = raw.cursor()
        try:
            for j, (sql, bind) in enumerate(self._statements):
                cur.executemany(sql, [bind(params[j]) for params in writes])
            count: int = cur.rowcount
        finally:
            cur.close()
        return count

    def _connection(self) -> Any:
        """The driver connection the moves are written on, connected at need."""
        if self._raw is None:
            try:
                self._conn = self.engine.connect()
            except OperationalError as exc:
                raise StoreUnavailable(db_reason(exc)) from None
            self._raw = self._conn.connection.dbapi_connection
            self._waits_ms = None
        if self.wait_free and self._waits_ms != self._wait_ms:
            self._raw.execute(f"PRAGMA busy_timeout = {self._wait_ms}")
            self._waits_ms = self._wait_ms
        return self._raw

    def execute(self, raw: Any, params: tuple[dict[str, Any], ...]) -> int:
        """Run the statements on the driver connection ``raw``; the last one's row count."""
        cur = raw.cursor()
        try:
            for (sql, bind), p in zip(self._statements, params, strict=True):
                cur.execute(sql, bind(p))
            count: int = cur.rowcount
        finally:
            cur.close()
        return count

    def _rollback(self) -> None:
        with contextlib.suppress(Exception):  # a lost connection cannot roll back: it is gone
            self._raw.rollback()

    def close(self) -> None:
        """Give the connection up (invalidated: the pool does not hand a broken one out)."""
        if self._conn is not None:
            with contextlib.suppress(Exception):
                self._conn.invalidate()
                self._conn.close()
        self._conn = self._raw = None
