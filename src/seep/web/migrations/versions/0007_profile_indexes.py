"""Indexes for the profile and leaderboard reads at scale (issue 25 item 8, bench/accounts.py).

The leaderboard's index holds, in its order (a format's ratings best first, ties by account),
every column the leaderboard filters on: its page and its count read the index alone, and
stop at the page's end. The profile's index holds every column of a player's statistics after
(account, match): his match list reads it newest first, his statistics and abandons read it
alone. Each replaces the narrower index of revision 0005; no row is touched.

Its down revision is 0005's: revision 0006 is being written beside it (to be chained in).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0005"
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
PROFILE = ["account", "match", "result", "forfeited", "deals", "baazis", "points", "sweep_points"]


def upgrade() -> None:
    op.create_index("ix_ratings_leaderboard", "ratings", BOARD)
    op.drop_index("ix_ratings_board", "ratings")
    op.create_index("ix_rating_changes_profile", "rating_changes", PROFILE)
    op.drop_index("ix_rating_changes_account", "rating_changes")


def downgrade() -> None:
    op.create_index("ix_rating_changes_account", "rating_changes", ["account", "match"])
    op.drop_index("ix_rating_changes_profile", "rating_changes")
    op.create_index("ix_ratings_board", "ratings", ["format", "mu"])
    op.drop_index("ix_ratings_leaderboard", "ratings")
