"""The index of table statuses (start-up reads only live tables) and the leases of several
instances on one database: the schema of c610f1b. What a database already has is kept.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    found = sa.inspect(op.get_bind())
    if "ix_tables_status" not in {ix["name"] for ix in found.get_indexes("tables")}:
        op.create_index("ix_tables_status", "tables", ["status"])
    if "leases" not in found.get_table_names():
        op.create_table(
            "leases",
            sa.Column("code", sa.String(8), primary_key=True),
            sa.Column("owner", sa.String(64), nullable=False),
            sa.Column("expires", sa.Float, nullable=False),
            sa.Column("wanted", sa.String(64)),
        )


def downgrade() -> None:
    op.drop_table("leases")
    op.drop_index("ix_tables_status", "tables")
