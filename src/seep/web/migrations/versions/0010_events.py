"""Events (docs/web.md "Events"): the events organisers make, their teams, their rounds and the
tables each round opened. Nothing already stored is touched.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    have = set(sa.inspect(op.get_bind()).get_table_names())
    if "events" not in have:
        op.create_table(
            "events",
            sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
            sa.Column("name", sa.String(60), nullable=False),
            sa.Column("organiser", sa.Integer),
            sa.Column("organiser_name", sa.String(24), nullable=False),
            sa.Column("kind", sa.String(10), nullable=False),
            sa.Column("format", sa.String(4), nullable=False),
            sa.Column("rated", sa.Boolean, nullable=False),
            sa.Column("partners", sa.String(10), nullable=False),
            sa.Column("bots", sa.Boolean, nullable=False),
            sa.Column("starts", sa.Float, nullable=False),
            sa.Column("rounds", sa.Integer, nullable=False),
            sa.Column("deals", sa.Integer, nullable=False),
            sa.Column("status", sa.String(10), nullable=False),
            sa.Column("round", sa.Integer, nullable=False),
            sa.Column("seed", sa.String(24), nullable=False),
            sa.Column("created", sa.Float, nullable=False),
            sa.Column("ended", sa.Float),
            sa.Index("ix_events_status", "status", "starts"),
            sa.Index("ix_events_organiser", "organiser"),
        )
    if "event_teams" not in have:
        op.create_table(
            "event_teams",
            sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
            sa.Column(
                "event",
                sa.Integer,
                sa.ForeignKey("events.id", ondelete="CASCADE"),
                nullable=False,
            ),
            sa.Column("player1", sa.Integer),
            sa.Column("name1", sa.String(24), nullable=False),
            sa.Column("player2", sa.Integer),
            sa.Column("name2", sa.String(24)),
            sa.Column("accepted", sa.Boolean, nullable=False),
            sa.Column("checked_in", sa.Boolean, nullable=False),
            sa.Column("withdrawn", sa.Boolean, nullable=False),
            sa.Column("created", sa.Float, nullable=False),
            sa.Index("ix_event_teams_event", "event"),
            sa.Index("ix_event_teams_player1", "player1"),
            sa.Index("ix_event_teams_player2", "player2"),
        )
    if "event_rounds" not in have:
        op.create_table(
            "event_rounds",
            sa.Column(
                "event",
                sa.Integer,
                sa.ForeignKey("events.id", ondelete="CASCADE"),
                primary_key=True,
            ),
            sa.Column("number", sa.Integer, primary_key=True),
            sa.Column("status", sa.String(10), nullable=False),
            sa.Column("bye", sa.Integer),
            sa.Column("seed", sa.String(24), nullable=False),
            sa.Column("started", sa.Float, nullable=False),
            sa.Column("ended", sa.Float),
        )
    if "event_tables" not in have:
        op.create_table(
            "event_tables",
            sa.Column("code", sa.String(8), primary_key=True),
            sa.Column(
                "event",
                sa.Integer,
                sa.ForeignKey("events.id", ondelete="CASCADE"),
                nullable=False,
            ),
            sa.Column("round", sa.Integer, nullable=False),
            sa.Column("board", sa.Integer, nullable=False),
            sa.Column("team_a", sa.Integer, nullable=False),
            sa.Column("team_b", sa.Integer, nullable=False),
            sa.Column("swapped", sa.Boolean, nullable=False),
            sa.Column("result", sa.Text),
            sa.Index("ix_event_tables_round", "event", "round"),
        )


def downgrade() -> None:
    op.drop_table("event_tables")
    op.drop_table("event_rounds")
    op.drop_table("event_teams")
    op.drop_table("events")
