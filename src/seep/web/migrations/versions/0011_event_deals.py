"""Duplicate, arena and individual events (docs/web.md "Events"): an event's table names the
deal of its round it plays (0 first; a duplicate round has a table per pair and deal) and,
partners drawn each round, each side's second player; an arena event its window in minutes.
The tables already stored are deal 0 with no drawn partners, which is what a Swiss round's one
table per pair is; the events already stored have no window (they are Swiss).
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
    inspector = sa.inspect(op.get_bind())
    have = {c["name"] for c in inspector.get_columns("event_tables")}
    if "deal" not in have:
        with op.batch_alter_table("event_tables") as batch:
            batch.add_column(sa.Column("deal", sa.Integer, nullable=False, server_default="0"))
            batch.add_column(sa.Column("team_a2", sa.Integer))
            batch.add_column(sa.Column("team_b2", sa.Integer))
    if "minutes" not in {c["name"] for c in inspector.get_columns("events")}:
        with op.batch_alter_table("events") as batch:
            batch.add_column(sa.Column("minutes", sa.Integer))


def downgrade() -> None:
    with op.batch_alter_table("event_tables") as batch:
        batch.drop_column("team_b2")
        batch.drop_column("team_a2")
        batch.drop_column("deal")
    with op.batch_alter_table("events") as batch:
        batch.drop_column("minutes")
