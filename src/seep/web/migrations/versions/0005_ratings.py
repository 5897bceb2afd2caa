"""Team ratings (docs/web.md "Ratings"): each account's rating per format, the rated matches
(each once) and what each did to every seat's rating. Nothing already stored is touched: a
database from before has no rated match, and every account starts unrated.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    have = set(sa.inspect(op.get_bind()).get_table_names())
    if "ratings" not in have:
        op.create_table(
            "ratings",
            sa.Column("account", sa.Integer, sa.ForeignKey("accounts.id"), primary_key=True),
            sa.Column("format", sa.String(8), primary_key=True),
            sa.Column("mu", sa.Float, nullable=False),
            sa.Column("sigma", sa.Float, nullable=False),
            sa.Column("games", sa.Integer, nullable=False),
            sa.Column("last", sa.Float, nullable=False),
        )
        op.create_index("ix_ratings_board", "ratings", ["format", "mu"])
    if "rated_matches" not in have:
        op.create_table(
            "rated_matches",
            sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
            sa.Column(
                "code", sa.String(8), sa.ForeignKey("tables.code"), nullable=False, unique=True
            ),
            sa.Column("format", sa.String(8), nullable=False),
            sa.Column("winner", sa.Integer),
            sa.Column("ended", sa.Float, nullable=False),
        )
    if "rating_changes" not in have:
        op.create_table(
            "rating_changes",
            sa.Column("match", sa.Integer, sa.ForeignKey("rated_matches.id"), primary_key=True),
            sa.Column("seat", sa.Integer, primary_key=True),
            sa.Column("account", sa.Integer, sa.ForeignKey("accounts.id")),
            sa.Column("result", sa.String(4), nullable=False),
            sa.Column("forfeited", sa.Boolean, nullable=False, server_default=sa.false()),
            sa.Column("deals", sa.Integer, nullable=False, server_default="0"),
            sa.Column("baazis", sa.Integer, nullable=False, server_default="0"),
            sa.Column("points", sa.Integer, nullable=False, server_default="0"),
            sa.Column("sweep_points", sa.Integer, nullable=False, server_default="0"),
            sa.Column("mu_before", sa.Float, nullable=False),
            sa.Column("sigma_before", sa.Float, nullable=False),
            sa.Column("mu_after", sa.Float, nullable=False),
            sa.Column("sigma_after", sa.Float, nullable=False),
        )
        op.create_index("ix_rating_changes_account", "rating_changes", ["account", "match"])


def downgrade() -> None:
    op.drop_index("ix_rating_changes_account", "rating_changes")
    op.drop_table("rating_changes")
    op.drop_table("rated_matches")
    op.drop_index("ix_ratings_board", "ratings")
    op.drop_table("ratings")
