"""Rematch, spectators and the turn timer (issue 33).

- ``games.watch_token``: the game's watch link (None: watching is off); unique, so a token
  names one game.
- ``games.rematch``: the rematch offer at the end of a match (JSON: who accepted, who
  declined), ``games.rematch_code``: the match it started, linked from the old one.
- ``games.turn_clock``: the turn timer (JSON: seconds per turn and the running clock); None
  when the game has no timer.

Revision ID: 0105
Revises: 0104
"""

import sqlalchemy as sa
from alembic import op

revision = "0105"
down_revision = "0104"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("watch_token", sa.String(32), nullable=True))
        batch.add_column(sa.Column("rematch", sa.Text, nullable=True))
        batch.add_column(sa.Column("rematch_code", sa.String(8), nullable=True))
        batch.add_column(sa.Column("turn_clock", sa.Text, nullable=True))
    op.create_index("uq_games_watch_token", "games", ["watch_token"], unique=True)


def downgrade() -> None:
    op.drop_index("uq_games_watch_token", table_name="games")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("turn_clock")
        batch.drop_column("rematch_code")
        batch.drop_column("rematch")
        batch.drop_column("watch_token")
