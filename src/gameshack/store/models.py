"""SQLAlchemy 2 models: the schema Alembic migrates (``migrations/versions``)."""

from __future__ import annotations

from sqlalchemy import BigInteger, Boolean, Float, Index, Integer, String, Text, text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

__all__ = ["Action", "Base", "ChatMessage", "Game", "Record", "Seat"]


class Base(DeclarativeBase):
    pass


class Game(Base):
    __tablename__ = "games"
    code: Mapped[str] = mapped_column(String(8), primary_key=True)
    kind: Mapped[str] = mapped_column(String(8))
    status: Mapped[str] = mapped_column(String(10), index=True)
    capacity: Mapped[int] = mapped_column(Integer)
    target: Mapped[int | None] = mapped_column(Integer, nullable=True)
    practice: Mapped[bool] = mapped_column(Boolean)
    difficulty: Mapped[str | None] = mapped_column(String(8), nullable=True)
    seed: Mapped[int] = mapped_column(BigInteger)  # 62-bit
    host: Mapped[int] = mapped_column(Integer)
    state: Mapped[str | None] = mapped_column(Text, nullable=True)  # JSON: engine state_to_dict
    version: Mapped[int] = mapped_column(Integer)
    grace_deadline: Mapped[float | None] = mapped_column(Float, nullable=True)
    grace_seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    ended: Mapped[str | None] = mapped_column(Text, nullable=True)  # JSON
    hands_recorded: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[float] = mapped_column(Float)
    updated_at: Mapped[float] = mapped_column(Float)
    public_at: Mapped[float] = mapped_column(Float, server_default=text("0"))
    due_at: Mapped[float | None] = mapped_column(Float, nullable=True, index=True)
    lease_owner: Mapped[str | None] = mapped_column(String(64), nullable=True)
    lease_until: Mapped[float | None] = mapped_column(Float, nullable=True)
    # issue 33: the spectators' link (None: watching is off), the rematch offer (JSON) and the
    # match it started, the turn timer (JSON: seconds per turn, the running clock)
    watch_token: Mapped[str | None] = mapped_column(String(32), nullable=True)
    rematch: Mapped[str | None] = mapped_column(Text, nullable=True)
    rematch_code: Mapped[str | None] = mapped_column(String(8), nullable=True)
    turn_clock: Mapped[str | None] = mapped_column(Text, nullable=True)
    __table_args__ = (
        Index("ix_games_status_public_at", "status", "public_at"),
        Index("uq_games_watch_token", "watch_token", unique=True),
    )


class Seat(Base):
    __tablename__ = "seats"
    code: Mapped[str] = mapped_column(String(8), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64))
    emoji: Mapped[str] = mapped_column(String(32))
    device: Mapped[str | None] = mapped_column(String(64), nullable=True, index=True)
    bot: Mapped[str | None] = mapped_column(String(8), nullable=True)
    memory: Mapped[str | None] = mapped_column(Text, nullable=True)  # JSON
    chat_read: Mapped[int] = mapped_column(Integer)
    joined_at: Mapped[float] = mapped_column(Float)


class Action(Base):
    """The acknowledged action log (state snapshots live in ``games.state``)."""

    __tablename__ = "actions"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    code: Mapped[str] = mapped_column(String(8))
    v: Mapped[int] = mapped_column(Integer)
    seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    action: Mapped[str] = mapped_column(Text)
    at: Mapped[float] = mapped_column(Float)
    __table_args__ = (Index("uq_actions_code_v", "code", "v", unique=True),)


class ChatMessage(Base):
    __tablename__ = "chat"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    code: Mapped[str] = mapped_column(String(8), index=True)
    seat: Mapped[int] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(String(64))
    emoji: Mapped[str] = mapped_column(String(32))
    text: Mapped[str] = mapped_column(Text)
    at: Mapped[float] = mapped_column(Float)


class Record(Base):
    """A finished hand/round or match, with what the stats pages need."""

    __tablename__ = "records"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    code: Mapped[str] = mapped_column(String(8), index=True)
    kind: Mapped[str] = mapped_column(String(8))
    scope: Mapped[str] = mapped_column(String(8))  # "hand" | "match"
    number: Mapped[int] = mapped_column(Integer)
    names: Mapped[str] = mapped_column(Text)  # JSON list, by seat
    emojis: Mapped[str] = mapped_column(Text)
    bots: Mapped[str] = mapped_column(Text)
    scores: Mapped[str] = mapped_column(Text)
    winners: Mapped[str] = mapped_column(Text)
    reason: Mapped[str] = mapped_column(String(32))
    started_at: Mapped[float] = mapped_column(Float)
    finished_at: Mapped[float] = mapped_column(Float, index=True)
    practice: Mapped[bool] = mapped_column(Boolean, default=False)
