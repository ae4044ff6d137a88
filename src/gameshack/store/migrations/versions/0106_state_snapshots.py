"""A private move is stored as its action alone (issue 31).

- ``games.state_v``: the version the stored ``state`` is at. The game is that state with the
  logged actions after it applied; every row stored before this migration has its state at
  its own version.

Revision ID: 0106
Revises: 0105
"""

import sqlalchemy as sa
from alembic import op

revision = "0106"
down_revision = "0105"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("state_v", sa.Integer, nullable=True))
    op.execute("UPDATE games SET state_v = version")


def downgrade() -> None:
    # A row whose state is behind its version cannot go back: the old code would lose the
    # private moves after it. Refused rather than lose them.
    bind = op.get_bind()
    behind = bind.execute(sa.text("SELECT count(*) FROM games WHERE state_v < version")).scalar()
    if behind:
        raise RuntimeError(f"{behind} games have moves stored as actions only; play them on first")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("state_v")
