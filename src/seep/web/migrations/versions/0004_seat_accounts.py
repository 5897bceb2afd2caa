"""Which account sat where (docs/web.md "Accounts"): an index from an account to its tables.
Guests' seats have no row; the tables, seats and moves already stored are untouched.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if "seat_accounts" not in set(sa.inspect(op.get_bind()).get_table_names()):
        op.create_table(
            "seat_accounts",
            sa.Column("code", sa.String(8), sa.ForeignKey("tables.code"), primary_key=True),
            sa.Column("seat", sa.Integer, primary_key=True),
            sa.Column("account", sa.Integer, sa.ForeignKey("accounts.id"), nullable=False),
        )
        op.create_index("ix_seat_accounts_account", "seat_accounts", ["account"])


def downgrade() -> None:
    op.drop_index("ix_seat_accounts_account", "seat_accounts")
    op.drop_table("seat_accounts")
