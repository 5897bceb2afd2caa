"""Web Push (docs/web.md "Notifications"): the server's own keys (the VAPID key pair, made at
first start), the browsers' push subscriptions and the seats each one is for. Nothing already
stored is touched.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    have = set(sa.inspect(op.get_bind()).get_table_names())
    if "server_keys" not in have:
        op.create_table(
            "server_keys",
            sa.Column("name", sa.String(32), primary_key=True),
            sa.Column("value", sa.Text, nullable=False),
            sa.Column("created", sa.Float, nullable=False),
        )
    if "push_subscriptions" not in have:
        op.create_table(
            "push_subscriptions",
            sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
            sa.Column("endpoint_hash", sa.String(64), nullable=False, unique=True),
            sa.Column("endpoint", sa.Text, nullable=False),
            sa.Column("p256dh", sa.String(100), nullable=False),
            sa.Column("auth", sa.String(50), nullable=False),
            sa.Column("lang", sa.String(8), nullable=False),
            sa.Column(
                "account",
                sa.Integer,
                sa.ForeignKey("accounts.id", ondelete="CASCADE"),
                index=True,
            ),
            sa.Column("client", sa.String(64), nullable=False, index=True),
            sa.Column("created", sa.Float, nullable=False),
        )
    if "push_seats" not in have:
        op.create_table(
            "push_seats",
            sa.Column(
                "subscription",
                sa.Integer,
                sa.ForeignKey("push_subscriptions.id", ondelete="CASCADE"),
                primary_key=True,
            ),
            sa.Column("code", sa.String(8), primary_key=True),
            sa.Column("token_hash", sa.String(64), nullable=False),
            sa.Column("created", sa.Float, nullable=False),
            sa.Index("ix_push_seats_seat", "code", "token_hash"),
        )


def downgrade() -> None:
    op.drop_table("push_seats")
    op.drop_table("push_subscriptions")
    op.drop_table("server_keys")
