"""Accounts and their sign-in sessions (docs/web.md "Accounts"). Tables and moves are untouched;
a database that has them already (made by ``create_all``) keeps them as they are.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    have = set(sa.inspect(op.get_bind()).get_table_names())
    if "accounts" not in have:
        op.create_table(
            "accounts",
            sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
            sa.Column("name", sa.String(24), nullable=False),
            sa.Column("name_key", sa.String(96), nullable=False, unique=True),
            sa.Column("password_hash", sa.String(200), nullable=False),
            sa.Column("created", sa.Float, nullable=False),
        )
    if "sessions" not in have:
        op.create_table(
            "sessions",
            sa.Column("token_hash", sa.String(64), primary_key=True),
            sa.Column("account", sa.Integer, sa.ForeignKey("accounts.id"), nullable=False),
            sa.Column("created", sa.Float, nullable=False),
            sa.Column("seen", sa.Float, nullable=False),
        )
        op.create_index("ix_sessions_account", "sessions", ["account"])


def downgrade() -> None:
    op.drop_index("ix_sessions_account", "sessions")
    op.drop_table("sessions")
    op.drop_table("accounts")
