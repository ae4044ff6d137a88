"""The SQL store: SQLAlchemy 2 async, SQLite (WAL) by default, migrated by Alembic at start-up."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from alembic import command
from alembic.config import Config as AlembicConfig
from sqlalchemy import (
    bindparam,
    column,
    create_engine,
    delete,
    event,
    insert,
    select,
    table,
    update,
)
from sqlalchemy.engine import Connection, Engine
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
T = TypeVar("T")


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
        "public_at": g.public_at,
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
    """Every operation is one synchronous function over a SQLAlchemy connection.

    With SQLite, writes go to one writer thread with a synchronous engine and are group-committed
    (:meth:`_commit_loop`); reads run on the loop (WAL readers never wait). The async driver
    would hop threads once per statement (~15 ms a move on a busy 2-core machine), and commits
    on the loop stalled it for up to hundreds of milliseconds on a busy disk. Other databases
    (PostgreSQL via asyncpg) run the same functions through the async engine's ``run_sync``.
    ``engine`` (async) and ``_write`` (the SQLite writer lock) are shared with the accounts store.
    """

    def __init__(self, url: str) -> None:
        self.url = url
        self._sqlite = url.startswith("sqlite")
        self.engine: AsyncEngine = create_async_engine(url)
        # SQLite has one writer at a time; queueing writers here beats "database is locked".
        self._write = asyncio.Lock()
        self._sync: Engine | None = None
        self._checkpointer: asyncio.Task[None] | None = None
        self._committer: asyncio.Task[None] | None = None
        self._pending: list[tuple[Callable[..., Any], tuple[Any, ...], asyncio.Future[Any]]] = []
        self._wake = asyncio.Event()
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="gameshack-db")
        if self._sqlite:
            # Written on the writer thread, read on the loop: connections cross threads.
            self._sync = create_engine(
                url.replace("+aiosqlite", "", 1), connect_args={"check_same_thread": False}
            )
            for eng in (self.engine.sync_engine, self._sync):
                event.listen(eng, "connect", _sqlite_pragmas)

    async def _run(self, fn: Callable[..., T], *args: Any, write: bool = True) -> T:
        if self._sync is not None:
            if not write:
                # WAL readers never wait for the writer: read right here.
                with self._sync.connect() as conn:
                    return fn(conn, *args)
            if self._committer is None:  # before start(): migrations, nothing else running
                async with self._write:
                    with self._sync.begin() as conn:
                        return fn(conn, *args)
            fut: asyncio.Future[T] = asyncio.get_running_loop().create_future()
            self._pending.append((fn, args, fut))
            self._wake.set()
            return await fut
        if write:
            async with self._write, self.engine.begin() as aconn:
                return await aconn.run_sync(fn, *args)
        async with self.engine.connect() as aconn:
            return await aconn.run_sync(fn, *args)

    async def _commit_loop(self) -> None:
        """Group commit: every write queued while a commit runs goes into the next transaction.

        The commit runs on one writer thread, so a slow disk never stalls the event loop, and
        under load one thread hop and one commit serve many moves. Each caller is answered only
        once its write is committed.
        """
        loop = asyncio.get_running_loop()
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self._pending:
                batch, self._pending = self._pending, []
                async with self._write:
                    results = await loop.run_in_executor(self._executor, self._commit_batch, batch)
                for (_fn, _args, fut), (ok, value) in zip(batch, results, strict=True):
                    if fut.done():
                        continue
                    if ok:
                        fut.set_result(value)
                    else:
                        fut.set_exception(value)

    def _commit_batch(
        self, batch: list[tuple[Callable[..., Any], tuple[Any, ...], Any]]
    ) -> list[tuple[bool, Any]]:
        assert self._sync is not None
        try:
            results: list[tuple[bool, Any]] = []
            with self._sync.begin() as conn:
                for fn, args, _fut in batch:
                    try:
                        results.append((True, fn(conn, *args)))
                    except CodeTaken as exc:  # raised before writing anything
                        results.append((False, exc))
            return results
        except Exception:
            # One transaction per write, so one bad write cannot take the others down.
            out: list[tuple[bool, Any]] = []
            for fn, args, _fut in batch:
                try:
                    with self._sync.begin() as conn:
                        out.append((True, fn(conn, *args)))
                except Exception as exc:
                    out.append((False, exc))
            return out

    async def start(self) -> None:
        await self._run(migrate_sync)
        if self._sync is not None:
            loop = asyncio.get_running_loop()
            self._wake = asyncio.Event()
            self._committer = loop.create_task(self._commit_loop())
            self._checkpointer = loop.create_task(self._checkpoints())

    async def _checkpoints(self) -> None:
        """Fold the WAL into the database file off the event loop, once a second.

        Commits on the loop never fsync (WAL, synchronous=NORMAL); a checkpoint does, and on a
        busy disk that can take hundreds of milliseconds — so the loop's connections have
        auto-checkpointing off and this thread does it instead.
        """
        assert self._sync is not None
        path = self._sync.url.database
        while True:
            await asyncio.sleep(1.0)
            try:
                await asyncio.to_thread(_checkpoint, path)
            except Exception:  # a busy database retries next second
                continue

    async def close(self) -> None:
        for _ in range(500):  # let queued writes land (at most ~5 s)
            if not self._pending and not self._write.locked():
                break
            await asyncio.sleep(0.01)
        for task in (self._committer, self._checkpointer):
            if task is not None:
                task.cancel()
        self._executor.shutdown(wait=True)
        if self._sync is not None:
            self._sync.dispose()
        await self.engine.dispose()

    async def create_game(self, game: GameRow, *, action: ActionRow | None = None) -> None:
        await self._run(_create_game, game, action)

    async def load_game(self, code: str) -> GameRow | None:
        return await self._run(_load_game, code, write=False)

    async def save_game(
        self,
        game: GameRow,
        *,
        seats: list[int] | None = None,
        new_seats: list[int] | None = None,
        action: ActionRow | None = None,
        records: list[RecordRow] | None = None,
    ) -> None:
        # Serialised here, on the loop, so the thread never reads a row that is changing.
        values = _game_values(game)
        seat_values = {
            n: _seat_values(game.code, game.seats[n]) for n in (*(seats or ()), *(new_seats or ()))
        }
        await self._run(
            _save_game, values, seat_values, list(new_seats or ()), action, list(records or ())
        )

    async def games_for_device(self, device: str) -> list[GameRow]:
        return await self._run(_games_for_device, device, write=False)

    async def live_games(self) -> list[GameRow]:
        return await self._run(_live_games, write=False)

    async def add_chat(
        self, code: str, seat: int, name: str, emoji: str, text: str, at: float
    ) -> ChatRow:
        new_id = await self._run(_add_chat, code, seat, name, emoji, text, at)
        return ChatRow(new_id, code, seat, name, emoji, text, at)

    async def chat_history(self, code: str, limit: int = 200) -> list[ChatRow]:
        return await self._run(_chat_history, code, limit, write=False)

    async def actions(self, code: str) -> list[ActionRow]:
        return await self._run(_actions, code, write=False)

    async def records(self, code: str | None = None) -> list[RecordRow]:
        return await self._run(_records, code, write=False)

    async def purge(self, *, waiting_before: float, chat_before: float) -> tuple[int, int]:
        return await self._run(_purge, waiting_before, chat_before)


_UPDATE_GAME = update(Game).where(Game.code == bindparam("b_code"))
_UPDATE_SEAT = update(Seat).where(
    Seat.code == bindparam("b_code"), Seat.seat == bindparam("b_seat")
)
_INSERT_SEAT = insert(Seat)
_INSERT_ACTION = insert(Action)


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cur = dbapi_conn.cursor()
    # WAL + synchronous=NORMAL: a committed transaction survives a process kill (kill -9);
    # only an OS crash or power loss can lose the last few.
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute("PRAGMA busy_timeout=10000")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.execute("PRAGMA wal_autocheckpoint=0")  # see SqlStore._checkpoints
    cur.close()


def _checkpoint(path: str | None) -> None:
    if not path or path == ":memory:":
        return
    conn = sqlite3.connect(path, timeout=5)
    try:
        conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
    finally:
        conn.close()


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
        public_at=row["public_at"],
    )


def _create_game(conn: Connection, game: GameRow, action: ActionRow | None) -> None:
    if conn.scalar(select(Game.code).where(Game.code == game.code)) is not None:
        raise CodeTaken(game.code)
    conn.execute(insert(Game).values(**_game_values(game)))
    if game.seats:
        conn.execute(insert(Seat), [_seat_values(game.code, s) for s in game.seats])
    if action is not None:
        conn.execute(_INSERT_ACTION, _action_values(action))


def _seats_of(conn: Connection, code: str) -> Any:
    return conn.execute(select(Seat).where(Seat.code == code).order_by(Seat.seat)).mappings().all()


def _load_game(conn: Connection, code: str) -> GameRow | None:
    row = conn.execute(select(Game).where(Game.code == code)).mappings().first()
    return None if row is None else _to_game(row, _seats_of(conn, code))


def _save_game(
    conn: Connection,
    values: dict[str, Any],
    seat_values: dict[int, dict[str, Any]],
    new_seats: list[int],
    action: ActionRow | None,
    records: list[RecordRow],
) -> None:
    # Statements with bound parameters on Core tables, compiled once and cached: building a
    # statement with literal values (ORM-enabled) costs ten times the SQLite commit itself.
    code = values.pop("code")
    conn.execute(_UPDATE_GAME, {**values, "b_code": code})
    for n, sv in seat_values.items():
        if n in new_seats:
            conn.execute(_INSERT_SEAT, sv)
        else:
            rest = {k: v for k, v in sv.items() if k not in ("code", "seat")}
            conn.execute(_UPDATE_SEAT, {**rest, "b_code": code, "b_seat": n})
    if action is not None:
        conn.execute(_INSERT_ACTION, _action_values(action))
    if records:
        conn.execute(
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


def _action_values(action: ActionRow) -> dict[str, Any]:
    return {
        "code": action.code,
        "v": action.v,
        "seat": action.seat,
        "action": action.action,
        "at": action.at,
    }


def _games_where(conn: Connection, *where: Any) -> list[GameRow]:
    rows = conn.execute(select(Game).where(*where)).mappings().all()
    return [_to_game(row, _seats_of(conn, row["code"])) for row in rows]


def _games_for_device(conn: Connection, device: str) -> list[GameRow]:
    codes = select(Seat.code).where(Seat.device == device)
    return _games_where(conn, Game.code.in_(codes), Game.status.in_(("waiting", "active")))


def _live_games(conn: Connection) -> list[GameRow]:
    return _games_where(conn, Game.status == "active")


def _add_chat(
    conn: Connection, code: str, seat: int, name: str, emoji: str, text: str, at: float
) -> int:
    result = conn.execute(
        insert(ChatMessage).values(code=code, seat=seat, name=name, emoji=emoji, text=text, at=at)
    )
    return int(result.inserted_primary_key[0])  # type: ignore[index]


def _chat_history(conn: Connection, code: str, limit: int) -> list[ChatRow]:
    rows = (
        conn.execute(
            select(ChatMessage)
            .where(ChatMessage.code == code)
            .order_by(ChatMessage.id.desc())
            .limit(limit)
        )
        .mappings()
        .all()
    )
    return [
        ChatRow(r["id"], r["code"], r["seat"], r["name"], r["emoji"], r["text"], r["at"])
        for r in reversed(rows)
    ]


def _actions(conn: Connection, code: str) -> list[ActionRow]:
    rows = (
        conn.execute(select(Action).where(Action.code == code).order_by(Action.v)).mappings().all()
    )
    return [ActionRow(r["code"], r["v"], r["seat"], r["action"], r["at"]) for r in rows]


# Bounded work per call: a purge is one transaction, and the writer (one thread, every game's
# moves queued behind it) must never hold it long. The caller runs it again until it finds less.
PURGE_BATCH = 500
# The accounts store's table of claimed seats (gameshack.store.accounts), named here so a purged
# game's code, drawn again later, never hands someone's claim over to a stranger's game.
_ACCOUNT_SEATS = table("account_seats", column("code"))


def _purge(conn: Connection, waiting_before: float, chat_before: float) -> tuple[int, int]:
    codes = list(
        conn.scalars(
            select(Game.code)
            .where(Game.status == "waiting", Game.public_at < waiting_before)
            .order_by(Game.public_at)
            .limit(PURGE_BATCH)
        )
    )
    if codes:
        for tbl in (Seat, ChatMessage, Action):
            conn.execute(delete(tbl).where(tbl.code.in_(codes)))
        conn.execute(delete(_ACCOUNT_SEATS).where(_ACCOUNT_SEATS.c.code.in_(codes)))
        conn.execute(delete(Game).where(Game.code.in_(codes)))
    old = select(Game.code).where(
        Game.status.in_(("finished", "ended")), Game.public_at < chat_before
    )
    ids = select(ChatMessage.id).where(ChatMessage.code.in_(old)).limit(PURGE_BATCH * 20)
    chats = conn.execute(delete(ChatMessage).where(ChatMessage.id.in_(ids))).rowcount
    return len(codes), int(chats or 0)


def _records(conn: Connection, code: str | None) -> list[RecordRow]:
    stmt = select(Record).order_by(Record.id)
    if code is not None:
        stmt = stmt.where(Record.code == code)
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
        for r in conn.execute(stmt).mappings().all()
    ]
