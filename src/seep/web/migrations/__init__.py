"""The web store's schema history as Alembic revisions (docs/web.md "Persistence and restarts").

Every change to the tables of :mod:`seep.web.store` is a revision under ``versions/``, and the
store upgrades the database to the newest one when it opens it (SQLite and PostgreSQL alike;
several instances starting together take turns under the store's advisory lock). The first
revisions are the schemas that earlier releases made with ``create_all``; each creates only
what is missing, so a database written before migrations existed is taken over where it
stands and stamped, and loses nothing (tests/web/test_web_migrations.py upgrades databases
written by those releases).

An operator upgrades, inspects and steps back with ``seep db upgrade``, ``seep db current`` and
``seep db downgrade -1`` (:mod:`seep.web.dbcommands`; docs/deploy.md "Upgrading").

A new revision: ``alembic -c src/seep/web/migrations/alembic.ini revision -m "what"``
(``--autogenerate`` compares a database with :data:`seep.web.store.metadata`).
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Connection

__all__ = ["config", "current", "downgrade", "head", "lag", "revisions", "upgrade"]

HERE = Path(__file__).resolve().parent


def config(connection: Connection | None = None) -> Config:
    """Alembic's configuration for this package, on ``connection`` when one is given."""
    cfg = Config()
    cfg.set_main_option("script_location", str(HERE))
    if connection is not None:
        cfg.attributes["connection"] = connection
    return cfg


def head() -> str:
    """The newest revision."""
    newest = ScriptDirectory.from_config(config()).get_current_head()
    assert newest is not None
    return newest


def revisions() -> list[str]:
    """Every revision, oldest first."""
    script = ScriptDirectory.from_config(config())
    return [r.revision for r in reversed(list(script.walk_revisions()))]


def lag(revision: str | None) -> int | None:
    """How many revisions a database at ``revision`` is behind the newest (0: current;
    ``None`` as the revision: nothing yet, every revision to go), or ``None`` when this
    release does not know the revision (a newer release wrote the database)."""
    known = revisions()
    if revision is None:
        return len(known)
    if revision not in known:
        return None
    return len(known) - 1 - known.index(revision)


def current(connection: Connection) -> str | None:
    """The revision the database is at (``None``: none yet, or written before migrations)."""
    return MigrationContext.configure(connection).get_current_revision()


def upgrade(connection: Connection, revision: str = "head") -> None:
    """Upgrade the database to ``revision`` inside the connection's transaction (it commits
    or rolls back with the caller's)."""
    command.upgrade(config(connection), revision)


def downgrade(connection: Connection, revision: str) -> None:
    """Downgrade the database to ``revision`` (``-1``: one step back; ``base``: nothing left)
    inside the connection's transaction."""
    command.downgrade(config(connection), revision)
