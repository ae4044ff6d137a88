"""games.public_at: the last change every seat could see (issue 28, no private-turn side channel).

Lists show ``public_at``; ``updated_at`` moves with private turns too and stays server-only.
Existing games take their ``updated_at``. The index serves the purge of abandoned waiting games.
On PostgreSQL ``games.seed`` becomes BIGINT (seeds are 62-bit).

Revision ID: 0102
Revises: 0101
"""

import sqlalchemy as sa
from alembic import op

revision = "0102"
down_revision = "0101"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # A plain ADD COLUMN with a constant default: SQLite and PostgreSQL both do it in place
    # (no table copy), so a big games table migrates in an instant.
    op.add_column(
        "games",
        sa.Column("public_at", sa.Float, nullable=False, server_default=sa.text("0")),
    )
    op.execute("UPDATE games SET public_at = updated_at")
    op.create_index("ix_games_status_public_at", "games", ["status", "public_at"])
    # Seeds are 62-bit: SQLite's INTEGER holds them, PostgreSQL's does not (every insert failed).
    if op.get_bind().dialect.name != "sqlite":
        op.alter_column("games", "seed", type_=sa.BigInteger, existing_nullable=False)


def downgrade() -> None:
    if op.get_bind().dialect.name != "sqlite":
        op.alter_column("games", "seed", type_=sa.Integer, existing_nullable=False)
    op.drop_index("ix_games_status_public_at", table_name="games")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("public_at")
