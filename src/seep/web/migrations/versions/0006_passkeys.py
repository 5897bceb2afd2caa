"""Passkeys (docs/web.md "Accounts"): each account's WebAuthn credentials, and the challenges
of sign-ins and registrations under way. Nothing already stored is touched: every account
starts with no passkey.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    have = set(sa.inspect(op.get_bind()).get_table_names())
    if "passkeys" not in have:
        op.create_table(
            "passkeys",
            sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
            sa.Column(
                "account",
                sa.Integer,
                sa.ForeignKey("accounts.id", ondelete="CASCADE"),
                nullable=False,
            ),
            sa.Column("credential_id", sa.LargeBinary(1023), nullable=False, unique=True),
            sa.Column("public_key", sa.LargeBinary(2048), nullable=False),
            sa.Column("user_handle", sa.LargeBinary(64), nullable=False),
            sa.Column("sign_count", sa.BigInteger, nullable=False),
            sa.Column("transports", sa.String(200), nullable=False),
            sa.Column("label", sa.String(40), nullable=False),
            sa.Column("created", sa.Float, nullable=False),
            sa.Column("used", sa.Float),
        )
        op.create_index("ix_passkeys_account", "passkeys", ["account"])
    if "passkey_challenges" not in have:
        op.create_table(
            "passkey_challenges",
            sa.Column("handle_hash", sa.String(64), primary_key=True),
            sa.Column("purpose", sa.String(8), nullable=False),
            sa.Column("account", sa.Integer, sa.ForeignKey("accounts.id", ondelete="CASCADE")),
            sa.Column("challenge", sa.LargeBinary(64), nullable=False),
            sa.Column("user_handle", sa.LargeBinary(64)),
            sa.Column("origin", sa.String(200), nullable=False),
            sa.Column("expires", sa.Float, nullable=False),
        )
        op.create_index("ix_passkey_challenges_expires", "passkey_challenges", ["expires"])


def downgrade() -> None:
    op.drop_index("ix_passkey_challenges_expires", "passkey_challenges")
    op.drop_table("passkey_challenges")
    op.drop_index("ix_passkeys_account", "passkeys")
    op.drop_table("passkeys")
