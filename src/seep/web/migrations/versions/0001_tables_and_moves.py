"""The tables and their moves: the schema of the releases before several instances (ded8d30).

A database written by those releases (by ``create_all``, before migrations) already holds
both tables: they are kept as they are.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    have = set(sa.inspect(op.get_bind()).get_table_names())
    if "tables" not in have:
        op.create_table(
            "tables",
            sa.Column("code", sa.String(8), primary_key=True),
            sa.Column("settings", sa.Text, nullable=False),
            sa.Column("seed", sa.String(24), nullable=False),
            sa.Column("status", sa.String(12), nullable=False),
            sa.Column("host", sa.Integer, nullable=False),
            sa.Column("seats", sa.Text, nullable=False),
            sa.Column("version", sa.Integer, nullable=False),
            sa.Column("created", sa.Float, nullable=False),
            sa.Column("record", sa.Text),
        )
    if "moves" not in have:
        op.create_table(
            "moves",
            sa.Column("code", sa.String(8), sa.ForeignKey("tables.code"), primary_key=True),
            sa.Column("seq", sa.Integer, primary_key=True),
            sa.Column("move", sa.Text, nullable=False),
        )


def downgrade() -> None:
    op.drop_table("moves")
    op.drop_table("tables")
