"""The tables, as SQLAlchemy Core ``Table``s: the schema Alembic migrates
(``migrations/versions``). Core, not ORM classes: the store writes and reads rows as plain
values, and the ORM's import is a tenth of a cold start (docs/decisions.md, 2026-12-05)."""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Float,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    text,
)

__all__ = [
    "ACCOUNTS",
    "ACCOUNT_SEATS",
    "ACTIONS",
    "CHAT",
    "GAMES",
    "METADATA",
    "RECORDS",
    "SEATS",
    "SESSIONS",
    "SIGNIN_CODES",
    "STAT_MATCHES",
    "STAT_SYNC",
]

METADATA = MetaData()

GAMES = Table(
    "games",
    METADATA,
    Column("code", String(8), primary_key=True),
    Column("kind", String(8), nullable=False),
    Column("status", String(10), nullable=False, index=True),
    Column("capacity", Integer, nullable=False),
    Column("target", Integer),
    Column("practice", Boolean, nullable=False),
    Column("difficulty", String(8)),
    Column("seed", BigInteger, nullable=False),  # 62-bit
    Column("host", Integer, nullable=False),
    Column("state", Text),  # JSON: engine state_to_dict
    Column("version", Integer, nullable=False),
    Column("state_v", Integer),  # the version ``state`` is at (NULL: ``version``)
    Column("grace_deadline", Float),
    Column("grace_seat", Integer),
    Column("ended", Text),  # JSON
    Column("hands_recorded", Integer, nullable=False),
    Column("created_at", Float, nullable=False),
    Column("updated_at", Float, nullable=False),
    Column("public_at", Float, nullable=False, server_default=text("0")),
    Column("due_at", Float, index=True),
    Column("lease_owner", String(64)),
    Column("lease_until", Float),
    # issue 33: the spectators' link (None: watching is off), the rematch offer (JSON) and the
    # match it started, the turn timer (JSON: seconds per turn, the running clock)
    Column("watch_token", String(32)),
    Column("rematch", Text),
    Column("rematch_code", String(8)),
    Column("turn_clock", Text),
    Index("ix_games_status_public_at", "status", "public_at"),
    Index("uq_games_watch_token", "watch_token", unique=True),
)

SEATS = Table(
    "seats",
    METADATA,
    Column("code", String(8), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("name", String(64), nullable=False),
    Column("emoji", String(32), nullable=False),
    Column("device", String(64), index=True),
    Column("bot", String(8)),
    Column("memory", Text),  # JSON
    Column("chat_read", Integer, nullable=False),
    Column("joined_at", Float, nullable=False),
)

# The acknowledged action log (state snapshots live in ``games.state``).
ACTIONS = Table(
    "actions",
    METADATA,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("code", String(8), nullable=False),
    Column("v", Integer, nullable=False),
    Column("seat", Integer),
    Column("action", Text, nullable=False),
    Column("at", Float, nullable=False),
    Index("uq_actions_code_v", "code", "v", unique=True),
)

CHAT = Table(
    "chat",
    METADATA,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("code", String(8), nullable=False, index=True),
    Column("seat", Integer, nullable=False),
    Column("name", String(64), nullable=False),
    Column("emoji", String(32), nullable=False),
    Column("text", Text, nullable=False),
    Column("at", Float, nullable=False),
)

# A finished hand/round or match, with what the stats pages need.
RECORDS = Table(
    "records",
    METADATA,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("code", String(8), nullable=False, index=True),
    Column("kind", String(8), nullable=False),
    Column("scope", String(8), nullable=False),  # "hand" | "match"
    Column("number", Integer, nullable=False),
    Column("names", Text, nullable=False),  # JSON list, by seat
    Column("emojis", Text, nullable=False),
    Column("bots", Text, nullable=False),
    Column("scores", Text, nullable=False),
    Column("winners", Text, nullable=False),
    Column("reason", String(32), nullable=False),
    Column("started_at", Float, nullable=False),
    Column("finished_at", Float, nullable=False, index=True),
    Column("practice", Boolean, nullable=False, default=False),
)

# --- sign-in and stats (issue 8; gameshack.store.accounts) ------------------------------------

ACCOUNTS = Table(
    "accounts",
    METADATA,
    Column("id", String(32), primary_key=True),
    Column("email", String(254), nullable=False, unique=True),
    Column("display_name", String(64)),
    Column("created_at", Float, nullable=False),
)

# A live sign-in code; an address may hold a few (revision 0103).
SIGNIN_CODES = Table(
    "signin_codes",
    METADATA,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("email", String(254), nullable=False, index=True),
    Column("code_hash", String(64), nullable=False),
    Column("requester", String(64), nullable=False),
    Column("expires_at", Float, nullable=False),
    Column("tries", Integer, nullable=False),
    Column("own_tries", Integer, nullable=False),
    Column("created_at", Float, nullable=False),
)

SESSIONS = Table(
    "account_sessions",
    METADATA,
    Column("id_hash", String(64), primary_key=True),
    Column("account_id", String(32), nullable=False, index=True),
    Column("device_token", String(128)),
    Column("created_at", Float, nullable=False),
    Column("expires_at", Float, nullable=False),
)

ACCOUNT_SEATS = Table(
    "account_seats",
    METADATA,
    Column("account_id", String(32), primary_key=True),
    Column("code", String(8), primary_key=True),
    Column("seat", Integer, primary_key=True),
)

STAT_INDEX_COLUMNS = (
    "name",
    "finished_at",
    "id",
    "kind",
    "opponent",
    "result",
    "hands",
    "hand_total",
    "best_hand",
)

# One counted match seen from one of its two players.
STAT_MATCHES = Table(
    "stat_matches",
    METADATA,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("record_id", Integer, nullable=False),
    Column("seat", Integer, nullable=False),
    Column("code", String(8), nullable=False),
    Column("kind", String(8), nullable=False),
    Column("name", String(64), nullable=False),
    Column("opponent", String(64), nullable=False),
    Column("my_score", Integer, nullable=False),
    Column("opponent_score", Integer, nullable=False),
    Column("result", String(4), nullable=False),
    Column("hands", Integer, nullable=False),
    Column("hand_total", Integer, nullable=False),
    Column("best_hand", Integer),
    Column("finished_at", Float, nullable=False),
    UniqueConstraint("record_id", "seat", name="uq_stat_matches_record_seat"),
    # Covering: the Stats page of a name reads only this index, newest first.
    Index("ix_stat_matches_name", *STAT_INDEX_COLUMNS),
)

STAT_SYNC = Table(
    "stat_sync",
    METADATA,
    Column("id", Integer, primary_key=True),
    Column("last_record_id", Integer, nullable=False),
)
