"""Duplicate events' deals (docs/web.md "Events"): an event's table names the deal of its round
it plays (0 first; a duplicate round has a table per pair and deal). The tables already stored
are deal 0, which is what a Swiss round's one table per pair is.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Only what is missing (as the earlier revisions): a database made whole by create_all
    # has the column already.
    columns = {c["name"] for c in sa.inspect(op.get_bind()).get_columns("event_tables")}
    if "deal" not in columns:
        with op.batch_alter_table("event_tables") as batch:
            batch.add_column(sa.Column("deal", sa.Integer, nullable=False, server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("event_tables") as batch:
        batch.drop_column("deal")
