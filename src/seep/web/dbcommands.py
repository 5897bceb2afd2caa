"""``seep db``: the operator's commands on the web app's database (docs/deploy.md "Upgrading"
and "Backups").

- ``seep db current``: the schema revision the database is at, and how far behind it is;
- ``seep db upgrade``: to this release's newest revision (PostgreSQL: under the advisory lock
  that keeps two upgraders apart, so instances or a second operator starting at the same moment
  wait and then find nothing to do);
- ``seep db downgrade -1``: one revision back (or to a named revision), before running an
  older release on the database;
- ``seep db backup FILE``: a consistent copy while the server runs (SQLite's online backup; for
  PostgreSQL ``pg_dump``);
- ``seep db restore FILE``: that copy back as the database, the database it replaces kept
  beside it (the server stopped first).

Each prints what it did in one or two lines and exits 0, or prints what is wrong (never a
traceback, never a password) and exits 1; a wrong command line exits 2.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.exc import SQLAlchemyError

from . import migrations
from .database import UPGRADE_LOCK, BadDatabase, database_url, shown_url

__all__ = ["COMMANDS", "run_db"]


class DbCommandError(Exception):
    """What went wrong, in words an operator acts on."""


def run_db(args: argparse.Namespace) -> int:
    """Run the ``seep db`` command that ``args`` names."""
    url = database_url(args.database_url)
    try:
        return int(COMMANDS[args.db_command](url, args))
    except (DbCommandError, BadDatabase) as exc:
        print(f"seep db {args.db_command}: {exc}", file=sys.stderr)
        return 1
    except SQLAlchemyError as exc:
        reason = str(getattr(exc, "orig", None) or exc).splitlines()[0]
        print(f"seep db {args.db_command}: {shown_url(url)}: {reason}", file=sys.stderr)
        return 1


def _engine(url: str) -> Any:
    if url.startswith("sqlite:///") and ":memory:" not in url:
        path = _sqlite_path(url)
        if not path.is_file():
            raise DbCommandError(f"there is no database at {path}")
    return create_engine(url)


def _describe(c: Connection) -> str:
    at = migrations.current(c)
    behind = migrations.lag(at)
    if behind is None:
        return f"{at}: unknown to this release (a newer release wrote it)"
    if behind == 0:
        return f"{at} (the newest)"
    return (
        f"{at or 'none'}: {behind} revision(s) behind {migrations.head()} (run `seep db upgrade`)"
    )


def _current(url: str, args: argparse.Namespace) -> int:
    engine = _engine(url)
    try:
        with engine.connect() as c:
            print(f"{shown_url(url)}: {_describe(c)}")
    finally:
        engine.dispose()
    return 0


def _history(url: str, args: argparse.Namespace) -> int:
    for revision in migrations.revisions():
        print(revision)
    return 0


def _upgrade(url: str, args: argparse.Namespace) -> int:
    if url.startswith("sqlite:///") and ":memory:" not in url:
        _sqlite_path(url).parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(url)
    try:
        with engine.begin() as c:
            if c.dialect.name == "postgresql":
                c.exec_driver_sql(f"SELECT pg_advisory_xact_lock({UPGRADE_LOCK})")
            before = migrations.current(c)
            if migrations.lag(before) is None:
                raise DbCommandError(
                    f"{shown_url(url)} is at revision {before}, which this release does not "
                    "know: a newer release wrote it"
                )
            migrations.upgrade(c, args.to)
            after = migrations.current(c)
    finally:
        engine.dispose()
    if before == after:
        print(f"{shown_url(url)}: already at {after}")
    else:
        print(f"{shown_url(url)}: upgraded from {before or 'none'} to {after}")
    return 0


def _downgrade(url: str, args: argparse.Namespace) -> int:
    engine = _engine(url)
    try:
        with engine.begin() as c:
            if c.dialect.name == "postgresql":
                c.exec_driver_sql(f"SELECT pg_advisory_xact_lock({UPGRADE_LOCK})")
            before = migrations.current(c)
            if before is None:
                raise DbCommandError(f"{shown_url(url)} has no schema revision to step back from")
            if migrations.lag(before) is None:
                raise DbCommandError(
                    f"{shown_url(url)} is at revision {before}, unknown to this release: "
                    "downgrade it with the release that wrote it"
                )
            try:
                migrations.downgrade(c, args.to)
            except Exception as exc:  # alembic's own errors name a revision it cannot reach
                if isinstance(exc, SQLAlchemyError):
                    raise
                raise DbCommandError(f"cannot downgrade to {args.to!r}: {exc}") from None
            after = migrations.current(c)
    finally:
        engine.dispose()
    print(f"{shown_url(url)}: downgraded from {before} to {after or 'base (no tables)'}")
    return 0


# --- backups --------------------------------------------------------------------------------


def _sqlite_path(url: str) -> Path:
    return Path(url.removeprefix("sqlite:///"))


def _is_postgres(url: str) -> bool:
    return url.startswith("postgresql")


def _pg_env(url: str) -> dict[str, str]:
    """libpq's environment for ``url``: the password goes to the child in PGPASSWORD, never
    on its command line, where every user of the machine could read it."""
    u = make_url(url)
    env = dict(os.environ)
    for key, value in (
        ("PGHOST", u.host),
        ("PGPORT", u.port),
        ("PGUSER", u.username),
        ("PGPASSWORD", u.password),
        ("PGDATABASE", u.database),
    ):
        if value is not None:
            env[key] = str(value)
    return env


def _pg_program(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        raise DbCommandError(
            f"{name} is missing: install PostgreSQL's client programs (Debian: postgresql-client),"
            f' or run {name} yourself as docs/deploy.md "Backups" shows'
        )
    return found


def _pg_run(url: str, program: str, *args: str) -> None:
    """Run one of PostgreSQL's client programs on ``url``'s database."""
    done = subprocess.run(
        [_pg_program(program), *args], env=_pg_env(url), capture_output=True, text=True
    )
    if done.returncode != 0:
        raise DbCommandError(f"{program} failed: {done.stderr.strip()}")


def _check_backup(path: Path) -> str:
    """A readable, whole seep database at ``path``: its schema revision (``None`` is refused)."""
    try:
        with path.open("rb") as f:
            magic = f.read(16)
    except OSError as exc:
        raise DbCommandError(f"cannot read {path}: {exc.strerror}") from None
    if magic != b"SQLite format 3\x00":
        raise DbCommandError(f"{path} is not an SQLite database written by `seep db backup`")
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        problem = con.execute("PRAGMA quick_check").fetchone()[0]
        if problem != "ok":
            raise DbCommandError(f"{path} is damaged ({problem})")
        try:
            row = con.execute("SELECT version_num FROM alembic_version").fetchone()
        except sqlite3.DatabaseError:
            row = None
    finally:
        con.close()
    if row is None:
        raise DbCommandError(f"{path} holds no seep schema revision: not a seep database backup")
    revision = str(row[0])
    if migrations.lag(revision) is None:
        raise DbCommandError(f"{path} was written by a newer release (revision {revision})")
    return revision


def _copy_sqlite(source: Path, target: Path) -> None:
    """SQLite's online backup from ``source`` to ``target``: one consistent moment of the
    source, taken under a read transaction, so a server writing meanwhile is neither stopped
    nor copied half-way (its write-ahead log included)."""
    src = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    dst = sqlite3.connect(target)
    try:
        src.backup(dst)
    finally:
        dst.close()
        src.close()


def _backup(url: str, args: argparse.Namespace) -> int:
    out: Path = args.file
    if out.exists():
        raise DbCommandError(f"{out} exists: name a new file (a backup never overwrites)")
    if _is_postgres(url):
        _pg_run(url, "pg_dump", "--format=custom", "--no-owner", f"--file={out}")
        print(f"{shown_url(url)}: backed up to {out} ({out.stat().st_size:,} bytes, pg_dump)")
        return 0
    if not url.startswith("sqlite:///") or ":memory:" in url:
        raise DbCommandError(f"{shown_url(url)}: backups are for SQLite files and PostgreSQL")
    source = _sqlite_path(url)
    if not source.is_file():
        raise DbCommandError(f"there is no database at {source}")
    out.parent.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    try:
        _copy_sqlite(source, out)
        revision = _check_backup(out)
    except (DbCommandError, sqlite3.Error) as exc:
        out.unlink(missing_ok=True)
        raise DbCommandError(f"the backup of {source} failed: {exc}") from None
    took = time.monotonic() - started
    print(
        f"{source}: backed up to {out} ({out.stat().st_size:,} bytes, revision {revision}, "
        f"{took:.2f} s)"
    )
    return 0


def _restore(url: str, args: argparse.Namespace) -> int:
    backup: Path = args.file
    if not backup.is_file():
        raise DbCommandError(f"there is no backup at {backup}")
    if _is_postgres(url):
        _pg_run(
            url,
            *("pg_restore", "--clean", "--if-exists", "--no-owner", "--single-transaction"),
            *("--dbname", make_url(url).database or "", str(backup)),
        )
        print(f"{shown_url(url)}: restored from {backup} (pg_restore)")
        return 0
    if not url.startswith("sqlite:///") or ":memory:" in url:
        raise DbCommandError(f"{shown_url(url)}: restores are for SQLite files and PostgreSQL")
    revision = _check_backup(backup)
    target = _sqlite_path(url)
    kept = None
    if target.exists():
        # Nothing is lost: the database the backup replaces stays beside it, copied whole.
        kept = target.with_name(f"{target.name}.before-restore-{time.strftime('%Y%m%d-%H%M%S')}")
        _copy_sqlite(target, kept)
    target.parent.mkdir(parents=True, exist_ok=True)
    _copy_sqlite(backup, target)
    print(f"{target}: restored from {backup} (revision {revision})")
    if kept is not None:
        print(f"the database it replaced is kept as {kept}")
    return 0


COMMANDS = {
    "current": _current,
    "history": _history,
    "upgrade": _upgrade,
    "downgrade": _downgrade,
    "backup": _backup,
    "restore": _restore,
}
