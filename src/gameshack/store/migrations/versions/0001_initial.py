"""Initial schema: games, seats, actions, chat, records.

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "games",
        sa.Column("code", sa.String(8), primary_key=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("capacity", sa.Integer, nullable=False),
        sa.Column("target", sa.Integer, nullable=True),
        sa.Column("practice", sa.Boolean, nullable=False),
        sa.Column("difficulty", sa.String(8), nullable=True),
        sa.Column("seed", sa.Integer, nullable=False),
        sa.Column("host", sa.Integer, nullable=False),
        sa.Column("state", sa.Text, nullable=True),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("grace_deadline", sa.Float, nullable=True),
        sa.Column("grace_seat", sa.Integer, nullable=True),
        sa.Column("ended", sa.Text, nullable=True),
        sa.Column("hands_recorded", sa.Integer, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("updated_at", sa.Float, nullable=False),
    )
    op.create_index("ix_games_status", "games", ["status"])
    op.create_table(
        "seats",
        sa.Column("code", sa.String(8), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("emoji", sa.String(32), nullable=False),
        sa.Column("device", sa.String(64), nullable=True),
        sa.Column("bot", sa.String(8), nullable=True),
        sa.Column("memory", sa.Text, nullable=True),
        sa.Column("chat_read", sa.Integer, nullable=False),
        sa.Column("joined_at", sa.Float, nullable=False),
    )
    op.create_index("ix_seats_device", "seats", ["device"])
    op.create_table(
        "actions",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("code", sa.String(8), nullable=False),
        sa.Column("v", sa.Integer, nullable=False),
        sa.Column("seat", sa.Integer, nullable=True),
        sa.Column("action", sa.Text, nullable=False),
        sa.Column("at", sa.Float, nullable=False),
    )
    op.create_index("ix_actions_code_v", "actions", ["code", "v"])
    op.create_table(
        "chat",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("code", sa.String(8), nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("emoji", sa.String(32), nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("at", sa.Float, nullable=False),
    )
    op.create_index("ix_chat_code", "chat", ["code"])
    op.create_table(
        "records",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("code", sa.String(8), nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("scope", sa.String(8), nullable=False),
        sa.Column("number", sa.Integer, nullable=False),
        sa.Column("names", sa.Text, nullable=False),
        sa.Column("emojis", sa.Text, nullable=False),
        sa.Column("bots", sa.Text, nullable=False),
        sa.Column("scores", sa.Text, nullable=False),
        sa.Column("winners", sa.Text, nullable=False),
        sa.Column("reason", sa.String(32), nullable=False),
        sa.Column("started_at", sa.Float, nullable=False),
        sa.Column("finished_at", sa.Float, nullable=False),
        sa.Column("practice", sa.Boolean, nullable=False, server_default=sa.false()),
    )
    op.create_index("ix_records_code", "records", ["code"])
    op.create_index("ix_records_finished_at", "records", ["finished_at"])


def downgrade() -> None:
    for table in ("records", "chat", "actions", "seats", "games"):
        op.drop_table(table)
