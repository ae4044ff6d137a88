"""Accounts and stats (issue 8): sign-in codes, accounts, sessions, account seats, stat matches.

Revision ID: 0101
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0101"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "accounts",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("email", sa.String(254), nullable=False, unique=True),
        sa.Column("display_name", sa.String(64), nullable=True),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    op.create_table(
        "login_codes",
        sa.Column("email", sa.String(254), primary_key=True),
        sa.Column("code_hash", sa.String(64), nullable=False),
        sa.Column("expires_at", sa.Float, nullable=False),
        sa.Column("tries", sa.Integer, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    op.create_table(
        "account_sessions",
        sa.Column("id_hash", sa.String(64), primary_key=True),
        sa.Column("account_id", sa.String(32), nullable=False),
        sa.Column("device_token", sa.String(128), nullable=True),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("expires_at", sa.Float, nullable=False),
    )
    op.create_index("ix_account_sessions_account_id", "account_sessions", ["account_id"])
    op.create_table(
        "account_seats",
        sa.Column("account_id", sa.String(32), primary_key=True),
        sa.Column("code", sa.String(8), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
    )
    op.create_table(
        "stat_matches",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("record_id", sa.Integer, nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("code", sa.String(8), nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("opponent", sa.String(64), nullable=False),
        sa.Column("my_score", sa.Integer, nullable=False),
        sa.Column("opponent_score", sa.Integer, nullable=False),
        sa.Column("result", sa.String(4), nullable=False),
        sa.Column("hands", sa.Integer, nullable=False),
        sa.Column("hand_total", sa.Integer, nullable=False),
        sa.Column("best_hand", sa.Integer, nullable=True),
        sa.Column("finished_at", sa.Float, nullable=False),
        sa.UniqueConstraint("record_id", "seat", name="uq_stat_matches_record_seat"),
    )
    # Covering index: a name's Stats page reads only the index, newest first.
    op.create_index(
        "ix_stat_matches_name",
        "stat_matches",
        [
            "name",
            "finished_at",
            "id",
            "kind",
            "opponent",
            "result",
            "hands",
            "hand_total",
            "best_hand",
        ],
    )
    op.create_table(
        "stat_sync",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("last_record_id", sa.Integer, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("stat_sync")
    op.drop_index("ix_stat_matches_name", "stat_matches")
    op.drop_table("stat_matches")
    op.drop_table("account_seats")
    op.drop_index("ix_account_sessions_account_id", "account_sessions")
    op.drop_table("account_sessions")
    op.drop_table("login_codes")
    op.drop_table("accounts")
