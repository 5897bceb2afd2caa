"""Alembic's environment: migrations run on the connection the caller hands over
(``config.attributes["connection"]``, see :func:`seep.web.migrations.upgrade`), or on the
database of ``SEEP_DATABASE_URL`` when the ``alembic`` command runs them."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

from seep.web.database import database_url
from seep.web.store import metadata

connection = context.config.attributes.get("connection")
if connection is None:
    with create_engine(database_url(None)).begin() as own:
        context.configure(connection=own, target_metadata=metadata, render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()
else:
    context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()
