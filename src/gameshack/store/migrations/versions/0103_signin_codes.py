"""signin_codes: a few live sign-in codes per address, tries counted per code (issue 28).

``login_codes`` held one code per address, so a stranger's request voided the owner's code.
``signin_codes`` holds each code in its own row; ``requester`` (a keyed hash of the browser that
asked) and ``own_tries`` let the asking browser keep its tries whatever strangers guess. Live
codes are copied over as codes nobody in particular asked for.

Revision ID: 0103
Revises: 0102
"""

import sqlalchemy as sa
from alembic import op

revision = "0103"
down_revision = "0102"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "signin_codes",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("email", sa.String(254), nullable=False),
        sa.Column("code_hash", sa.String(64), nullable=False),
        sa.Column("requester", sa.String(64), nullable=False),
        sa.Column("expires_at", sa.Float, nullable=False),
        sa.Column("tries", sa.Integer, nullable=False),
        sa.Column("own_tries", sa.Integer, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    op.create_index("ix_signin_codes_email", "signin_codes", ["email"])
    op.execute(
        "INSERT INTO signin_codes"
        " (email, code_hash, requester, expires_at, tries, own_tries, created_at)"
        " SELECT email, code_hash, '', expires_at, tries, 0, created_at FROM login_codes"
    )
    op.drop_table("login_codes")


def downgrade() -> None:
    op.create_table(
        "login_codes",
        sa.Column("email", sa.String(254), primary_key=True),
        sa.Column("code_hash", sa.String(64), nullable=False),
        sa.Column("expires_at", sa.Float, nullable=False),
        sa.Column("tries", sa.Integer, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    # One code per address there: the newest.
    op.execute(
        "INSERT INTO login_codes (email, code_hash, expires_at, tries, created_at)"
        " SELECT email, code_hash, expires_at, tries, created_at FROM signin_codes s"
        " WHERE s.id = (SELECT MAX(id) FROM signin_codes t WHERE t.email = s.email)"
    )
    op.drop_index("ix_signin_codes_email", "signin_codes")
    op.drop_table("signin_codes")
