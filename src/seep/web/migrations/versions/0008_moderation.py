"""Moderation (docs/deploy.md "Moderation"): players' reports, the operator's bans, mutes and
requests to close a table, and the audit log of his actions. Nothing already stored is
touched.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    have = set(sa.inspect(op.get_bind()).get_table_names())
    if "reports" not in have:
        op.create_table(
            "reports",
            sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
            sa.Column("created", sa.Float, nullable=False),
            sa.Column("open", sa.Boolean, nullable=False),
            sa.Column("code", sa.String(8)),
            sa.Column("line", sa.Integer),
            sa.Column("seat", sa.Integer),
            sa.Column("name", sa.String(24), nullable=False),
            sa.Column("account", sa.Integer),
            sa.Column("client", sa.String(64)),
            sa.Column("text", sa.Text),
            sa.Column("reason", sa.String(16), nullable=False),
            sa.Column("note", sa.String(200), nullable=False),
            sa.Column("reporter_account", sa.Integer),
            sa.Column("reporter_client", sa.String(64), nullable=False),
            sa.Column("dedupe", sa.String(200), nullable=False, unique=True),
            sa.Column("closed", sa.Float),
            sa.Column("closed_by", sa.String(64)),
        )
        op.create_index("ix_reports_open", "reports", ["open", "id"])
    if "sanctions" not in have:
        op.create_table(
            "sanctions",
            sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
            sa.Column("kind", sa.String(8), nullable=False),
            sa.Column("target_kind", sa.String(8), nullable=False),
            sa.Column("target", sa.String(64), nullable=False),
            sa.Column("created", sa.Float, nullable=False),
            sa.Column("until", sa.Float),
            sa.Column("reason", sa.String(200), nullable=False),
            sa.Column("by", sa.String(64), nullable=False),
            sa.Column("lifted", sa.Float),
        )
        op.create_index("ix_sanctions_active", "sanctions", ["lifted", "until"])
        op.create_index("ix_sanctions_target", "sanctions", ["kind", "target_kind", "target"])
    if "audit" not in have:
        op.create_table(
            "audit",
            sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
            sa.Column("at", sa.Float, nullable=False),
            sa.Column("by", sa.String(64), nullable=False),
            sa.Column("action", sa.String(24), nullable=False),
            sa.Column("target", sa.String(100), nullable=False),
            sa.Column("reason", sa.String(200), nullable=False),
        )


def downgrade() -> None:
    op.drop_table("audit")
    op.drop_index("ix_sanctions_target", "sanctions")
    op.drop_index("ix_sanctions_active", "sanctions")
    op.drop_table("sanctions")
    op.drop_index("ix_reports_open", "reports")
    op.drop_table("reports")
