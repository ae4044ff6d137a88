"""One writer per game across processes, and timers that outlive the process that set them
(issue 30).

- ``actions (code, v)`` becomes unique: two processes can never both log version v of a game
  (the game row's version compare-and-set is the first guard, this is the second).
- ``games.due_at``: when the server must act on the game by itself (a grace window's end, a
  bot's step), so any process can find overdue games; ``lease_owner`` / ``lease_until``: which
  process has claimed an overdue game's timer, until when.

Revision ID: 0104
Revises: 0103
"""

import sqlalchemy as sa
from alembic import op

revision = "0104"
down_revision = "0103"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.drop_index("ix_actions_code_v", table_name="actions")
    op.create_index("uq_actions_code_v", "actions", ["code", "v"], unique=True)
    op.add_column("games", sa.Column("due_at", sa.Float, nullable=True))
    op.add_column("games", sa.Column("lease_owner", sa.String(64), nullable=True))
    op.add_column("games", sa.Column("lease_until", sa.Float, nullable=True))
    op.create_index("ix_games_due_at", "games", ["due_at"])


def downgrade() -> None:
    op.drop_index("ix_games_due_at", table_name="games")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("lease_until")
        batch.drop_column("lease_owner")
        batch.drop_column("due_at")
    op.drop_index("uq_actions_code_v", table_name="actions")
    op.create_index("ix_actions_code_v", "actions", ["code", "v"])
