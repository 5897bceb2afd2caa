"""Events whose rounds are baazis (docs/web.md "Events"): a Swiss or arena event may play
each round (each game) as a number of baazis instead of a number of deals. The events already
stored have none: their rounds are deals, as before.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Only what is missing (as the earlier revisions): a database made whole by create_all
    # has the column already.
    if "baazis" not in {c["name"] for c in sa.inspect(op.get_bind()).get_columns("events")}:
        with op.batch_alter_table("events") as batch:
            batch.add_column(sa.Column("baazis", sa.Integer))


def downgrade() -> None:
    with op.batch_alter_table("events") as batch:
        batch.drop_column("baazis")
