"""Indexes for the profile and leaderboard reads at scale (issue 25 item 8, bench/accounts.py).

The leaderboard's index holds, in its order (a format's ratings best first, ties by account),
every column the leaderboard filters on: its page and its count read the index alone, and
stop at the page's end. The profile's index holds every column of a player's statistics after
(account, match): his match list reads it newest first, his statistics and abandons read it
alone. Each replaces the narrower index of revision 0005; no row is touched.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

BOARD: list[str | sa.TextClause] = [
    "format",
    sa.text("mu DESC"),
    "account",
    "sigma",
    "games",
    "last",
]
PROFILE: list[str | sa.TextClause] = [
    "account",
    "match",
    "result",
    "forfeited",
    "deals",
    "baazis",
    "points",
    "sweep_points",
]


def upgrade() -> None:
    # Only what is missing (as the earlier revisions): a database made whole by create_all
    # (a test's, or one written before migrations) has the new indexes and not the old.
    inspector = sa.inspect(op.get_bind())
    for table, made, old, columns in [
        ("ratings", "ix_ratings_leaderboard", "ix_ratings_board", BOARD),
        ("rating_changes", "ix_rating_changes_profile", "ix_rating_changes_account", PROFILE),
    ]:
        have = {i["name"] for i in inspector.get_indexes(table)}
        if made not in have:
            op.create_index(made, table, columns)
        if old in have:
            op.drop_index(old, table)


def downgrade() -> None:
    op.create_index("ix_rating_changes_account", "rating_changes", ["account", "match"])
    op.drop_index("ix_rating_changes_profile", "rating_changes")
    op.create_index("ix_ratings_board", "ratings", ["format", "mu"])
    op.drop_index("ix_ratings_leaderboard", "ratings")
