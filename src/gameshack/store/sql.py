"""The SQL store: SQLAlchemy 2 async, SQLite (WAL) by default, migrated by Alembic at start-up."""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config as AlembicConfig
from sqlalchemy import event, insert, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from gameshack.service.ports import (
    ActionRow,
    ChatRow,
    CodeTaken,
    GameRow,
    RecordRow,
    SeatRow,
    Store,
)
from gameshack.store.models import Action, ChatMessage, Game, Record, Seat

__all__ = ["SqlStore", "migrate_sync"]

MIGRATIONS = Path(__file__).with_name("migrations")


def _dumps(value: Any) -> str | None:
    return None if value is None else json.dumps(value, separators=(",", ":"))


def _loads(text: str | None) -> Any:
    return None if text is None else json.loads(text)


def migrate_sync(connection: Connection) -> None:
    """Upgrade the schema to the newest revision on an open connection."""
    cfg = AlembicConfig()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.attributes["connection"] = connection
    command.upgrade(cfg, "head")


def _game_values(g: GameRow) -> dict[str, Any]:
    return {
        "code": g.code,
        "kind": g.kind,
        "status": g.status,
        "capacity": g.capacity,
        "target": g.target,
        "practice": g.practice,
        "difficulty": g.difficulty,
        "seed": g.seed,
        "host": g.host,
        "state": _dumps(g.state),
        "version": g.version,
        "grace_deadline": g.grace_deadline,
        "grace_seat": g.grace_seat,
        "ended": _dumps(g.ended),
        "hands_recorded": g.hands_recorded,
        "created_at": g.created_at,
        "updated_at": g.updated_at,
    }


def _seat_values(code: str, s: SeatRow) -> dict[str, Any]:
    return {
        "code": code,
        "seat": s.seat,
        "name": s.name,
        "emoji": s.emoji,
        "device": s.device,
        "bot": s.bot,
        "memory": _dumps(s.memory),
        "chat_read": s.chat_read,
        "joined_at": s.joined_at,
    }


class SqlStore(Store):
    def __init__(self, url: str) -> None:
        self.url = url
        self._sqlite = url.startswith("sqlite")
        self.engine: AsyncEngine = create_async_engine(url)
        # SQLite has one writer at a time; queueing writers here beats "database is locked".
        self._write = asyncio.Lock()
        if self._sqlite:

            @event.listens_for(self.engine.sync_engine, "connect")
            def _pragmas(dbapi_conn: Any, _record: Any) -> None:
                cur = dbapi_conn.cursor()
                # WAL + synchronous=NORMAL: a committed transaction survives a process kill
                # (kill -9); only an OS crash/power loss can lose the last few.
                cur.execute("PRAGMA journal_mode=WAL")
                cur.execute("PRAGMA synchronous=NORMAL")
                cur.execute("PRAGMA busy_timeout=10000")
                cur.execute("PRAGMA foreign_keys=ON")
                cur.close()

    async def start(self) -> None:
        async with self.engine.begin() as conn:
            await conn.run_sync(migrate_sync)

    async def close(self) -> None:
        await self.engine.dispose()

    @contextlib.asynccontextmanager
    async def _tx(self):  # type: ignore[no-untyped-def]
        async with self._write, self.engine.begin() as conn:
            yield conn

    async def create_game(self, game: GameRow) -> None:
        async with self._tx() as conn:
            exists = await conn.scalar(select(Game.code).where(Game.code == game.code))
            if exists is not None:
                raise CodeTaken(game.code)
            await conn.execute(insert(Game).values(**_game_values(game)))
            if game.seats:
                await conn.execute(insert(Seat), [_seat_values(game.code, s) for s in game.seats])

    async def load_game(self, code: str) -> GameRow | None:
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(Game).where(Game.code == code))).mappings().first()
            if row is None:
                return None
            seats = (
                (await conn.execute(select(Seat).where(Seat.code == code).order_by(Seat.seat)))
                .mappings()
                .all()
            )
        return self._to_game(row, seats)

    @staticmethod
    def _to_game(row: Any, seats: Any) -> GameRow:
        return GameRow(
            code=row["code"],
            kind=row["kind"],
            status=row["status"],
            capacity=row["capacity"],
            target=row["target"],
            practice=bool(row["practice"]),
            difficulty=row["difficulty"],
            seed=row["seed"],
            host=row["host"],
            seats=[
                SeatRow(
                    seat=s["seat"],
                    name=s["name"],
                    emoji=s["emoji"],
                    device=s["device"],
                    bot=s["bot"],
                    memory=_loads(s["memory"]),
                    chat_read=s["chat_read"],
                    joined_at=s["joined_at"],
                )
                for s in seats
            ],
            state=_loads(row["state"]),
            version=row["version"],
            grace_deadline=row["grace_deadline"],
            grace_seat=row["grace_seat"],
            ended=_loads(row["ended"]),
            hands_recorded=row["hands_recorded"],
            created_at=row["created_at"],
            updated_at=row["updated_at"],
        )

    async def save_game(
        self,
        game: GameRow,
        *,
        seats: list[int] | None = None,
        new_seats: list[int] | None = None,
        action: ActionRow | None = None,
        records: list[RecordRow] | None = None,
    ) -> None:
        values = _game_values(game)
        del values["code"]
        async with self._tx() as conn:
            await conn.execute(update(Game).where(Game.code == game.code).values(**values))
            for n in new_seats or ():
                await conn.execute(insert(Seat).values(**_seat_values(game.code, game.seats[n])))
            for n in seats or ():
                sv = _seat_values(game.code, game.seats[n])
                del sv["code"], sv["seat"]
                await conn.execute(
                    update(Seat).where(Seat.code == game.code, Seat.seat == n).values(**sv)
                )
            if action is not None:
                await conn.execute(
                    insert(Action).values(
                        code=action.code,
                        v=action.v,
                        seat=action.seat,
                        action=action.action,
                        at=action.at,
                    )
                )
            if records:
                await conn.execute(
                    insert(Record),
                    [
                        {
                            "code": r.code,
                            "kind": r.kind,
                            "scope": r.scope,
                            "number": r.number,
                            "names": _dumps(r.names),
                            "emojis": _dumps(r.emojis),
                            "bots": _dumps(r.bots),
                            "scores": _dumps(r.scores),
                            "winners": _dumps(r.winners),
                            "reason": r.reason,
                            "started_at": r.started_at,
                            "finished_at": r.finished_at,
                            "practice": r.practice,
                        }
                        for r in records
                    ],
                )

    async def _games_where(self, *where: Any) -> list[GameRow]:
        async with self.engine.connect() as conn:
            rows = (await conn.execute(select(Game).where(*where))).mappings().all()
            out = []
            for row in rows:
                seats = (
                    (
                        await conn.execute(
                            select(Seat).where(Seat.code == row["code"]).order_by(Seat.seat)
                        )
                    )
                    .mappings()
                    .all()
                )
                out.append(self._to_game(row, seats))
        return out

    async def games_for_device(self, device: str) -> list[GameRow]:
        codes = select(Seat.code).where(Seat.device == device)
        return await self._games_where(Game.code.in_(codes), Game.status.in_(("waiting", "active")))

    async def live_games(self) -> list[GameRow]:
        return await self._games_where(Game.status == "active")

    async def add_chat(
        self, code: str, seat: int, name: str, emoji: str, text: str, at: float
    ) -> ChatRow:
        async with self._tx() as conn:
            result = await conn.execute(
                insert(ChatMessage).values(
                    code=code, seat=seat, name=name, emoji=emoji, text=text, at=at
                )
            )
            (new_id,) = result.inserted_primary_key  # type: ignore[misc]
        return ChatRow(int(new_id), code, seat, name, emoji, text, at)

    async def chat_history(self, code: str, limit: int = 200) -> list[ChatRow]:
        async with self.engine.connect() as conn:
            rows = (
                (
                    await conn.execute(
                        select(ChatMessage)
                        .where(ChatMessage.code == code)
                        .order_by(ChatMessage.id.desc())
                        .limit(limit)
                    )
                )
                .mappings()
                .all()
            )
        return [
            ChatRow(r["id"], r["code"], r["seat"], r["name"], r["emoji"], r["text"], r["at"])
            for r in reversed(rows)
        ]

    async def actions(self, code: str) -> list[ActionRow]:
        async with self.engine.connect() as conn:
            rows = (
                (await conn.execute(select(Action).where(Action.code == code).order_by(Action.v)))
                .mappings()
                .all()
            )
        return [ActionRow(r["code"], r["v"], r["seat"], r["action"], r["at"]) for r in rows]

    async def records(self, code: str | None = None) -> list[RecordRow]:
        stmt = select(Record).order_by(Record.id)
        if code is not None:
            stmt = stmt.where(Record.code == code)
        async with self.engine.connect() as conn:
            rows = (await conn.execute(stmt)).mappings().all()
        return [
            RecordRow(
                code=r["code"],
                kind=r["kind"],
                scope=r["scope"],
                number=r["number"],
                names=_loads(r["names"]),
                emojis=_loads(r["emojis"]),
                bots=_loads(r["bots"]),
                scores=_loads(r["scores"]),
                winners=_loads(r["winners"]),
                reason=r["reason"],
                started_at=r["started_at"],
                finished_at=r["finished_at"],
                practice=bool(r["practice"]),
            )
            for r in rows
        ]
