"""The SQL store: SQLAlchemy 2 Core, SQLite (WAL) by default, migrated by Alembic at start-up."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import queue
import re
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import orjson
from sqlalchemy import (
    bindparam,
    create_engine,
    delete,
    event,
    insert,
    inspect,
    make_url,
    select,
    text,
    update,
)
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import (
    ArgumentError,
    DataError,
    DBAPIError,
    IntegrityError,
    NoSuchModuleError,
    ProgrammingError,
)

from gameshack.metrics import COMMIT_SECONDS, WRITE_FAILURES
from gameshack.service.ports import (
    ActionRow,
    ChatRow,
    CodeTaken,
    GameRow,
    RecordRow,
    SeatRow,
    Store,
    VersionConflict,
    WriteUnconfirmed,
)
from gameshack.store.models import ACCOUNT_SEATS, ACTIONS, CHAT, GAMES, RECORDS, SEATS

if TYPE_CHECKING:
    from sqlalchemy.ext.asyncio import AsyncEngine

__all__ = ["SqlStore", "StoreClosed", "StoreUnavailable", "migrate_sync"]

MIGRATIONS = Path(__file__).with_name("migrations")
T = TypeVar("T")
log = logging.getLogger(__name__)

# games_for_device answers at most this many games, the newest first: one device holding
# thousands of waiting games must not make the lobby read (and send) all of them.
DEVICE_GAMES = 100


class StoreUnavailable(Exception):
    """The database cannot be used; ``str(exc)`` is one sentence for the operator."""


class StoreClosed(Exception):
    """A write came after :meth:`SqlStore.close`, or was still unconfirmed when it ran out."""


def _dumps(value: Any) -> str | None:
    # Non-string keys become strings, as the standard json module wrote them before.
    return None if value is None else orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


def _loads(text: str | None) -> Any:
    return None if text is None else orjson.loads(text)


# Several processes starting at once on one PostgreSQL database migrate one at a time: the
# first upgrades, the others wait for this lock and then find nothing to do.
MIGRATION_LOCK = 0x6761_6D65  # "game"


REVISION = re.compile(r"""^(down_)?revision\s*=\s*['"]([^'"]+)['"]""", re.MULTILINE)


def head_revision() -> str | None:
    """The newest revision in ``migrations/versions``, read from the files' text (importing
    Alembic takes longer than the rest of start-up); None when there is not exactly one."""
    revisions, parents = set(), set()
    for path in (MIGRATIONS / "versions").glob("*.py"):
        for down, rev in REVISION.findall(path.read_text(encoding="utf-8")):
            (parents if down else revisions).add(rev)
    heads = revisions - parents
    return heads.pop() if len(heads) == 1 else None


def migrate_sync(connection: Connection) -> None:
    """Upgrade the schema to the newest revision on an open connection.

    Alembic is imported and run only when the database is not at the newest revision already
    (a restart, the usual case, reads one row)."""
    head = head_revision()
    if head is not None and inspect(connection).has_table("alembic_version"):
        current = connection.execute(text("SELECT version_num FROM alembic_version")).all()
        if [row[0] for row in current] == [head]:
            return
    if connection.dialect.name == "postgresql":
        connection.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": MIGRATION_LOCK})
    from alembic import command
    from alembic.config import Config as AlembicConfig

    cfg = AlembicConfig()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.attributes["connection"] = connection
    command.upgrade(cfg, "head")


def _game_values(g: GameRow, *, state: bool = True) -> dict[str, Any]:
    """The game's columns; with ``state`` False, without the stored state and its version
    (a private move leaves them as they are: its action is enough)."""
    values: dict[str, Any] = {
        "code": g.code,
        "kind": g.kind,
        "status": g.status,
        "capacity": g.capacity,
        "target": g.target,
        "practice": g.practice,
        "difficulty": g.difficulty,
        "seed": g.seed,
        "host": g.host,
        "version": g.version,
        "grace_deadline": g.grace_deadline,
        "grace_seat": g.grace_seat,
        "ended": _dumps(g.ended),
        "hands_recorded": g.hands_recorded,
        "created_at": g.created_at,
        "updated_at": g.updated_at,
        "public_at": g.public_at,
        "due_at": g.due_at,
        "turn_clock": _dumps(g.turn_clock),
        # Each commit frees a timer's lease (``claim_overdue``): the committing process holds
        # the game's timer from then on, and others take it over only once it is overdue.
        "lease_owner": None,
        "lease_until": None,
        "rematch": _dumps(g.rematch),
        "rematch_code": g.rematch_code,
    }
    if state:
        values["state"] = _dumps(g.state)
        values["state_v"] = g.state_v
    return values


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


_Job = tuple[Callable[..., Any], tuple[Any, ...], "asyncio.Future[Any]"]


def _settle(fut: asyncio.Future[Any], ok: bool, value: Any) -> None:
    """Give a caller its one outcome (a caller that gave up waiting has none to get)."""
    if fut.done():
        return
    if ok:
        fut.set_result(value)
    else:
        fut.set_exception(value)


def _fail_all(jobs: list[_Job], exc: BaseException) -> None:
    for _fn, _args, fut in jobs:
        _settle(fut, False, exc)


class _Threads:
    """Daemon threads serving one queue of jobs, each answered on the event loop.

    Not a ``ThreadPoolExecutor``: its threads are joined at interpreter exit, so one job stuck
    in the database (a full disk, a lock) would hold the process after SIGTERM forever.
    """

    def __init__(self, count: int, name: str) -> None:
        self._jobs: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._stopped = False
        for n in range(count):
            threading.Thread(target=self._serve, name=f"{name}-{n}", daemon=True).start()
        self._count = count

    def run(self, fn: Callable[..., T], *args: Any) -> asyncio.Future[T]:
        if self._stopped:
            raise StoreClosed("the store is closed")
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[T] = loop.create_future()
        self._jobs.put((fn, args, loop, fut))
        return fut

    def stop(self) -> None:
        """Let the threads end after their current job (nobody waits for them)."""
        self._stopped = True
        for _ in range(self._count):
            self._jobs.put(None)

    def _serve(self) -> None:
        while (job := self._jobs.get()) is not None:
            fn, args, loop, fut = job
            try:
                ok, value = True, fn(*args)
            except Exception as exc:
                ok, value = False, exc
            except BaseException as exc:  # never hand a SystemExit to the loop's task
                ok, value = False, RuntimeError(f"database thread interrupted: {exc!r}")
            with contextlib.suppress(RuntimeError):  # the loop is closed: nobody to tell
                loop.call_soon_threadsafe(_settle, fut, ok, value)


def _sync_url(url: str) -> str:
    """The URL of the standard-library driver: ``sqlite://`` and ``sqlite+aiosqlite://`` (the
    default before 2026-12-05, still in deployments' settings) both mean the file, through
    ``sqlite3``."""
    return url.replace("sqlite+aiosqlite:", "sqlite:", 1)


def _sqlite_engine(url: str, *, pool_size: int = 5) -> Engine:
    engine = create_engine(
        _sync_url(url), connect_args={"check_same_thread": False}, pool_size=pool_size
    )
    event.listen(engine, "connect", _sqlite_pragmas)
    return engine


def _read(engine: Engine, fn: Callable[..., T], args: tuple[Any, ...]) -> T:
    with engine.connect() as conn:
        return fn(conn, *args)


class SqlStore(Store):
    """Every operation is one synchronous function over a SQLAlchemy connection.

    With SQLite, writes go to one writer thread with a synchronous engine and are group-committed
    (:meth:`_commit_loop`); reads run on two reader threads (WAL readers never wait for the
    writer), so neither a slow disk nor a big read ever stalls the event loop. An async driver
    would hop threads once per statement (~15 ms a move on a busy 2-core machine), so SQLite
    has no async engine at all (and start-up imports neither it nor the ORM under it). Other
    databases (PostgreSQL via asyncpg) run the same functions through the async engine's
    ``run_sync``. The accounts store runs its functions the same way, through :meth:`run`.

    Faults: every write is answered once — with its result after its transaction committed,
    else with the exception. :meth:`health` says why writes fail from the first failed commit
    to the next good one; while failing, a probe write every ``probe_every`` seconds finds the
    recovery when no player writes. :meth:`close` waits at most ``close_timeout`` seconds for
    queued writes, then fails the rest, and never waits for a stuck database thread.
    """

    def __init__(
        self,
        url: str,
        *,
        readers: int = 2,
        probe_every: float = 5.0,
        close_timeout: float = 3.0,
    ) -> None:
        self.url = url
        self._sqlite = url.startswith("sqlite")
        self._unusable: str | None = None  # a URL that cannot work: start() says why
        # SQLite: synchronous engines, read on the readers (connections cross threads) and
        # written on the writer thread through a connection of its own, whose page cache then
        # stays valid from one commit to the next: a pooled connection that another one's commit
        # had made stale re-read every page a move touched (14 reads a move, 0.5 since).
        # Other databases: an async engine.
        self._sync: Engine | None = None
        self._writes: Engine | None = None
        self.engine: AsyncEngine | None = None
        try:
            if self._sqlite:
                self._sync = _sqlite_engine(url)
                self._writes = _sqlite_engine(url, pool_size=1)
            else:
                from sqlalchemy.ext.asyncio import create_async_engine

                self.engine = create_async_engine(url)
        except Exception as exc:
            self._unusable = _url_problem(url, exc)
            self._sqlite, self._sync, self._writes = False, None, None
        # SQLite has one writer at a time; queueing writers here beats "database is locked".
        self._write = asyncio.Lock()
        self._tasks: list[asyncio.Task[None]] = []
        self._committer: asyncio.Task[None] | None = None
        self._pending: list[_Job] = []
        self._wake = asyncio.Event()
        self._n_readers = readers
        self._writer: _Threads | None = None
        self._readers: _Threads | None = None
        self._folder: _Threads | None = None  # WAL checkpoints
        self._probe_every = probe_every
        self._close_timeout = close_timeout
        self._closing = False
        self._failure: str | None = None  # why the last commit failed, until one succeeds
        self._failed = 0  # failed commits since the last good one
        self._logged_at = 0.0
        self._tried_at = 0.0  # monotonic time of the last commit attempt

    async def run(self, fn: Callable[..., T], *args: Any, write: bool = True) -> T:
        """``fn(connection, *args)`` off the event loop: in a transaction that has committed
        when this returns (``write``), or on a read connection. The accounts store's way in:
        on SQLite its writes join the game's writes on the one writer."""
        return await self._run(fn, *args, write=write)

    async def _run(self, fn: Callable[..., T], *args: Any, write: bool = True) -> T:
        if write and self._closing:
            raise StoreClosed("the store is closed")
        if self._sync is not None:
            if not write:
                if self._readers is None:  # before start()
                    return _read(self._sync, fn, args)
                return await self._readers.run(_read, self._sync, fn, args)
            if self._committer is None:  # before start(): migrations, nothing else running
                async with self._write:
                    with self._sync.begin() as conn:
                        return fn(conn, *args)
            if self._committer.done():  # cannot happen (the loop catches all); never queue in vain
                raise StoreClosed("the database writer has stopped")
            fut: asyncio.Future[T] = asyncio.get_running_loop().create_future()
            self._pending.append((fn, args, fut))
            self._wake.set()
            with COMMIT_SECONDS.time():
                return await fut
        assert self.engine is not None
        if write:
            try:
                with COMMIT_SECONDS.time():
                    async with self._write, self.engine.begin() as aconn:
                        result = await aconn.run_sync(fn, *args)
            except Exception as exc:
                self._note(exc)
                raise
            self._note(None)
            return result
        async with self.engine.connect() as aconn:
            return await aconn.run_sync(fn, *args)

    async def _commit_loop(self) -> None:
        """Group commit: every write queued while a commit runs goes into the next transaction.

        The commit runs on one writer thread, so a slow disk never stalls the event loop, and
        under load one thread hop and one commit serve many moves. Each caller is answered only
        once its write is committed, or with the error that stopped it. Nothing ends this loop
        but :meth:`close`: an unexpected error fails the writes of that batch and it goes on.
        """
        assert self._writer is not None
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self._pending:
                batch, self._pending = self._pending, []
                try:
                    async with self._write:
                        results = await self._writer.run(self._commit_batch, batch)
                    if len(results) != len(batch):
                        raise RuntimeError(f"{len(results)} outcomes for {len(batch)} writes")
                except asyncio.CancelledError:
                    # close() ran out of time with this batch on the thread; it may yet commit.
                    _fail_all(
                        batch,
                        WriteUnconfirmed("the server stopped before this write was confirmed"),
                    )
                    raise
                except Exception as exc:
                    log.exception("database writer: %d writes failed", len(batch))
                    _fail_all(batch, exc)
                    continue
                for (_fn, _args, fut), (ok, value) in zip(batch, results, strict=True):
                    _settle(fut, ok, value)

    def _commit_batch(self, batch: list[_Job]) -> list[tuple[bool, Any]]:
        """One outcome per write, in order; ``(True, value)`` only once that write committed."""
        assert self._writes is not None
        try:
            results: list[tuple[bool, Any]] = []
            with self._writes.begin() as conn:
                for fn, args, _fut in batch:
                    try:
                        results.append((True, fn(conn, *args)))
                    except (CodeTaken, VersionConflict) as exc:  # raised before writing anything
                        results.append((False, exc))
        except Exception as exc:
            if len(batch) == 1:
                self._note(exc)
                return [(False, exc)]
        else:
            self._note(None)
            return results  # the commit returned: every write in it is saved
        # One transaction per write, so one bad write cannot take the others down. Each write
        # function is safe to run again: it changes nothing but the database.
        out: list[tuple[bool, Any]] = []
        for fn, args, _fut in batch:
            try:
                with self._writes.begin() as conn:
                    value = fn(conn, *args)
            except Exception as exc:
                self._note(exc)
                out.append((False, exc))
            else:
                self._note(None)
                out.append((True, value))
        return out

    def _note(self, exc: BaseException | None) -> None:
        """Track the outcome of one commit (a write's own error, e.g. a code clash, is not the
        database failing and changes nothing). Logs the first failure, then one line every 10 s
        while failing, then the recovery."""
        self._tried_at = time.monotonic()
        if exc is None:
            if self._failure is not None:
                log.warning("database writes succeed again (after %d failed)", self._failed)
                self._failure, self._failed = None, 0
            return
        reason = _db_failure(exc)
        if reason is None:
            return
        WRITE_FAILURES.inc()
        self._failed += 1
        now = time.monotonic()
        if self._failure is None:
            log.error("database write failed: %s", reason, exc_info=exc)
            self._logged_at = now
        elif now - self._logged_at >= 10.0:
            log.error("database writes still failing (%d so far): %s", self._failed, reason)
            self._logged_at = now
        self._failure = f"database writes are failing: {reason}"

    async def health(self) -> str | None:
        if self._committer is not None and self._committer.done() and not self._closing:
            return "the database writer has stopped"
        return self._failure

    async def _probe(self) -> None:
        """While writes fail and none has been tried for ``probe_every`` seconds, try a tiny
        write: with no player writing, this is what notices the disk has room again (and
        health() turns good). It only ever follows a quiet spell, so a failure stays reported
        for at least ``probe_every`` seconds."""
        while True:
            await asyncio.sleep(self._probe_every / 4)
            quiet = time.monotonic() - self._tried_at >= self._probe_every
            if self._failure is not None and quiet and not self._pending:
                with contextlib.suppress(Exception):
                    await self._run(_probe_write)

    async def start(self) -> None:
        if self._unusable is not None:
            raise StoreUnavailable(self._unusable)
        if self._sync is not None:
            _check_sqlite_file(self._sync.url.database)
        try:
            if self._sync is None:  # a server: first see that it answers, within a bound
                await asyncio.wait_for(self._ping(), timeout=15.0)
            await self._run(migrate_sync)
        except StoreUnavailable:
            raise
        except Exception as exc:
            raise StoreUnavailable(_start_problem(self.url, exc)) from exc
        loop = asyncio.get_running_loop()
        if self._sync is not None:
            self._writer = _Threads(1, "gameshack-db-write")
            self._readers = _Threads(self._n_readers, "gameshack-db-read")
            self._folder = _Threads(1, "gameshack-db-checkpoint")
            self._wake = asyncio.Event()
            self._committer = loop.create_task(self._commit_loop())
            self._tasks += [self._committer, loop.create_task(self._checkpoints())]
        self._tasks.append(loop.create_task(self._probe()))

    async def _ping(self) -> None:
        assert self.engine is not None
        async with self.engine.connect() as aconn:
            await aconn.execute(text("SELECT 1"))

    async def _checkpoints(self) -> None:
        """Fold the WAL into the database file off the event loop, once a second.

        Commits on the writer never fsync (WAL, synchronous=NORMAL); a checkpoint does, and on a
        busy disk that can take hundreds of milliseconds — so auto-checkpointing is off and
        this thread does it instead.
        """
        assert self._sync is not None and self._folder is not None
        path = self._sync.url.database
        while True:
            await asyncio.sleep(1.0)
            with contextlib.suppress(Exception):  # busy or full: try again next second
                await self._folder.run(_checkpoint, path)

    async def close(self) -> None:
        """Let queued writes land for at most ``close_timeout`` seconds, fail what is left, and
        stop — never waiting on a database thread that is stuck."""
        if self._closing:
            return
        self._closing = True
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self._close_timeout
        while (self._pending or self._write.locked()) and loop.time() < deadline:
            await asyncio.sleep(0.01)
        for task in self._tasks:
            task.cancel()
        if self._tasks:
            await asyncio.wait(self._tasks, timeout=1.0)
        left, self._pending = self._pending, []
        _fail_all(left, StoreClosed("the server stopped before this write was saved"))
        for threads in (self._writer, self._readers, self._folder):
            if threads is not None:
                threads.stop()
        for sync in (self._sync, self._writes):
            if sync is not None:
                sync.dispose()
        if self.engine is not None:
            try:
                await asyncio.wait_for(self.engine.dispose(), timeout=2.0)
            except Exception as exc:  # a connection stuck in the driver: the process exits anyway
                log.warning("database connections not closed: %r", exc)

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
        expect_version: int | None = None,
        state: bool = True,
    ) -> None:
        # Serialised here, on the loop, so the thread never reads a row that is changing.
        values = _game_values(game, state=state)
        seat_values = {
            n: _seat_values(game.code, game.seats[n]) for n in (*(seats or ()), *(new_seats or ()))
        }
        await self._run(
            _save_game,
            values,
            seat_values,
            list(new_seats or ()),
            action,
            list(records or ()),
            expect_version,
        )

    async def create_rematch(
        self, old: GameRow, new: GameRow, *, action: ActionRow | None, expect_version: int
    ) -> None:
        await self._run(_create_rematch, _game_values(old), expect_version, new, action)

    async def claim_overdue(
        self, *, due_before: float, now: float, owner: str, until: float, limit: int = 100
    ) -> list[str]:
        return await self._run(_claim_overdue, due_before, now, owner, until, limit)

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

    async def actions(self, code: str, after: int = 0) -> list[ActionRow]:
        return await self._run(_actions, code, after, write=False)

    async def records(self, code: str | None = None) -> list[RecordRow]:
        return await self._run(_records, code, write=False)

    async def purge(self, *, waiting_before: float, chat_before: float) -> tuple[int, int]:
        return await self._run(_purge, waiting_before, chat_before)

    # Issue 33: the watch link (a column no save_game writes; see Store.watch_token).

    async def watch_token(self, code: str) -> str | None:
        return await self._run(_watch_token, code, write=False)

    async def set_watch_token(self, code: str, token: str | None) -> None:
        await self._run(_set_watch_token, code, token)

    async def watched_game(self, token: str) -> str | None:
        return await self._run(_watched_game, token, write=False)


# --- faults, said in one sentence ------------------------------------------------------------


def _driver_message(exc: BaseException) -> str:
    orig = getattr(exc, "orig", None) or exc
    if isinstance(orig, OSError) and orig.strerror:
        return orig.strerror
    return str(orig).strip().splitlines()[0] if str(orig).strip() else type(orig).__name__


def _db_failure(exc: BaseException) -> str | None:
    """The database's own failure (disk full, I/O error, lock, connection lost), said short;
    ``None`` for a write's own fault (a constraint, a bad value, a code clash, a bug)."""
    if isinstance(exc, (IntegrityError, ProgrammingError, DataError)):
        return None
    if isinstance(exc, (DBAPIError, OSError, sqlite3.Error, TimeoutError)):
        return _driver_message(exc)
    return None


def _safe_url(url: str) -> str:
    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:
        return "(unparsable)"


def _url_problem(url: str, exc: BaseException) -> str:
    scheme = url.split(":", 1)[0] if ":" in url else url
    if isinstance(exc, NoSuchModuleError):
        return (
            f"GAMESHACK_DATABASE_URL has an unknown scheme {scheme!r}; use "
            "sqlite:///path/to/file.db or postgresql+asyncpg://user:pass@host/db."
        )
    if isinstance(exc, ArgumentError):
        return f"GAMESHACK_DATABASE_URL {url!r} is not a database URL."
    if isinstance(exc, ImportError):
        return (
            f"the database driver for {scheme!r} is not installed ({exc.name or exc}); use "
            "sqlite:///path/to/file.db or postgresql+asyncpg://user:pass@host/db."
        )
    return (
        f"GAMESHACK_DATABASE_URL {_safe_url(url)} cannot be used ({_driver_message(exc)}); "
        "use sqlite:///path/to/file.db or postgresql+asyncpg://user:pass@host/db."
    )


def _check_sqlite_file(path: str | None) -> None:
    """Say plainly what is wrong with a SQLite file's place before SQLite says it obscurely."""
    if not path or path == ":memory:" or path.startswith("file:"):
        return
    file = Path(path)
    folder = file.parent
    if not folder.is_dir():
        what = "is not a directory" if folder.exists() else "does not exist"
        raise StoreUnavailable(f"the data directory {folder} {what}.")
    # SQLite in WAL mode writes the -wal and -shm files beside the database: the folder too.
    if not os.access(folder, os.W_OK | os.X_OK):
        raise StoreUnavailable(f"the data directory {folder} is read-only (cannot write there).")
    if file.exists() and not file.is_file():
        raise StoreUnavailable(f"the database path {file} is not a file.")
    if file.exists() and not os.access(file, os.R_OK | os.W_OK):
        raise StoreUnavailable(f"the database file {file} is not readable and writable.")


def _start_problem(url: str, exc: BaseException) -> str:
    message = _driver_message(exc)
    if url.startswith("sqlite"):
        path = make_url(url).database
        if "not a database" in message or "malformed" in message:
            return f"the file {path} is not a usable SQLite database ({message})."
        if "readonly" in message or "read-only" in message:
            return f"the database {path} is read-only ({message})."
        return f"cannot open the SQLite database {path} ({message})."
    if isinstance(exc, TimeoutError):
        message = "no answer within 15 seconds"
    return f"cannot use the database at {_safe_url(url)} ({message})."


# --- statements --------------------------------------------------------------------------------

_UPDATE_GAME = update(GAMES).where(GAMES.c.code == bindparam("b_code"))
_UPDATE_GAME_AT = update(GAMES).where(
    GAMES.c.code == bindparam("b_code"), GAMES.c.version == bindparam("b_expect")
)
_UPDATE_SEAT = update(SEATS).where(
    SEATS.c.code == bindparam("b_code"), SEATS.c.seat == bindparam("b_seat")
)
_INSERT_SEAT = insert(SEATS)
_INSERT_ACTION = insert(ACTIONS)
_ON_DRIVER: dict[tuple[int, tuple[str, ...]], tuple[str, list[str]]] = {}


def _execute(conn: Connection, stmt: Any, params: dict[str, Any]) -> int:
    """Run one of the statements above with ``params``; the number of rows it changed.

    On SQLite the statement is compiled once (for its set of keys) and run on the driver's
    connection: ``Connection.execute`` spends ~50 µs of Python on each statement (its cache
    lookup, parameter processing, result set-up) with the GIL held — three times SQLite's own
    work, and on every move. The values are already what SQLite stores (text, numbers, None;
    ``bool`` is an ``int`` to sqlite3), so SQLAlchemy's bind processors have nothing to do.
    Other databases go through ``Connection.execute``."""
    if conn.dialect.name != "sqlite":
        return int(conn.execute(stmt, params).rowcount)
    key = (id(stmt), tuple(params))
    compiled = _ON_DRIVER.get(key)
    if compiled is None:
        c = stmt.compile(dialect=conn.dialect, column_keys=[k for k in params if k[:2] != "b_"])
        compiled = _ON_DRIVER[key] = (str(c), list(c.positiontup or ()))
    sql, order = compiled
    values = [params[k] for k in order]
    try:
        return int(conn.connection.driver_connection.execute(sql, values).rowcount)
    except sqlite3.Error as exc:  # as SQLAlchemy would raise it (IntegrityError, …)
        raise DBAPIError.instance(sql, values, exc, sqlite3.Error) from exc


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
        state_v=row["version"] if row["state_v"] is None else row["state_v"],
        grace_deadline=row["grace_deadline"],
        grace_seat=row["grace_seat"],
        ended=_loads(row["ended"]),
        hands_recorded=row["hands_recorded"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        public_at=row["public_at"],
        due_at=row["due_at"],
        rematch=_loads(row["rematch"]),
        rematch_code=row["rematch_code"],
        turn_clock=_loads(row["turn_clock"]),
    )


def _create_game(conn: Connection, game: GameRow, action: ActionRow | None) -> None:
    if conn.scalar(select(GAMES.c.code).where(GAMES.c.code == game.code)) is not None:
        raise CodeTaken(game.code)
    conn.execute(insert(GAMES).values(**_game_values(game)))
    if game.seats:
        conn.execute(insert(SEATS), [_seat_values(game.code, s) for s in game.seats])
    if action is not None:
        conn.execute(_INSERT_ACTION, _action_values(action))


def _create_rematch(
    conn: Connection,
    old_values: dict[str, Any],
    expect_version: int,
    new: GameRow,
    action: ActionRow | None,
) -> None:
    """The old game's row (its ``rematch_code`` set) by compare-and-set, and the new game: both
    refusals are raised before anything is written (a code clash is looked up first, and a lost
    compare-and-set updates no row), so the group commit may go on with the rest of its batch."""
    code = old_values["code"]
    if conn.scalar(select(GAMES.c.code).where(GAMES.c.code == new.code)) is not None:
        raise CodeTaken(new.code)
    params = {**{k: v for k, v in old_values.items() if k != "code"}, "b_code": code}
    if conn.execute(_UPDATE_GAME_AT, {**params, "b_expect": expect_version}).rowcount != 1:
        raise VersionConflict(code)
    _create_game(conn, new, action)


def _seats_of(conn: Connection, code: str) -> Any:
    return (
        conn.execute(select(SEATS).where(SEATS.c.code == code).order_by(SEATS.c.seat))
        .mappings()
        .all()
    )


def _load_game(conn: Connection, code: str) -> GameRow | None:
    row = conn.execute(select(GAMES).where(GAMES.c.code == code)).mappings().first()
    return None if row is None else _to_game(row, _seats_of(conn, code))


def _save_game(
    conn: Connection,
    values: dict[str, Any],
    seat_values: dict[int, dict[str, Any]],
    new_seats: list[int],
    action: ActionRow | None,
    records: list[RecordRow],
    expect_version: int | None = None,
) -> None:
    # Statements with bound parameters on Core tables, compiled once and cached: building a
    # statement with literal values (ORM-enabled) costs ten times the SQLite commit itself.
    # Never change the arguments: after a failed group commit this runs again on the same ones.
    code = values["code"]
    params = {**{k: v for k, v in values.items() if k != "code"}, "b_code": code}
    if expect_version is None:
        _execute(conn, _UPDATE_GAME, params)
    elif _execute(conn, _UPDATE_GAME_AT, {**params, "b_expect": expect_version}) != 1:
        # The first statement: nothing of this write has happened.
        raise VersionConflict(code)
    for n, sv in seat_values.items():
        if n in new_seats:
            _execute(conn, _INSERT_SEAT, sv)
        else:
            rest = {k: v for k, v in sv.items() if k not in ("code", "seat")}
            _execute(conn, _UPDATE_SEAT, {**rest, "b_code": code, "b_seat": n})
    if action is not None:
        _execute(conn, _INSERT_ACTION, _action_values(action))
    if records:
        conn.execute(
            insert(RECORDS),
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


def _with_seats(conn: Connection, rows: Any) -> list[GameRow]:
    """The games of ``rows`` with their seats, read in one query per 500 games (not one each)."""
    seats: dict[str, list[Any]] = {}
    codes = [row["code"] for row in rows]
    for i in range(0, len(codes), 500):
        chunk = codes[i : i + 500]
        query = select(SEATS).where(SEATS.c.code.in_(chunk)).order_by(SEATS.c.code, SEATS.c.seat)
        for s in conn.execute(query).mappings():
            seats.setdefault(s["code"], []).append(s)
    return [_to_game(row, seats.get(row["code"], ())) for row in rows]


def _games_for_device(conn: Connection, device: str) -> list[GameRow]:
    codes = select(SEATS.c.code).where(SEATS.c.device == device)
    rows = (
        conn.execute(
            select(GAMES)
            .where(GAMES.c.code.in_(codes), GAMES.c.status.in_(("waiting", "active")))
            .order_by(GAMES.c.public_at.desc(), GAMES.c.code)
            .limit(DEVICE_GAMES)
        )
        .mappings()
        .all()
    )
    return _with_seats(conn, rows)


def _live_games(conn: Connection) -> list[GameRow]:
    rows = conn.execute(select(GAMES).where(GAMES.c.status == "active")).mappings().all()
    return _with_seats(conn, rows)


def _probe_write(conn: Connection) -> None:
    # A real write transaction that changes nothing: it commits only if the database can write.
    conn.execute(text("UPDATE alembic_version SET version_num = version_num"))


def _add_chat(
    conn: Connection, code: str, seat: int, name: str, emoji: str, text: str, at: float
) -> int:
    result = conn.execute(
        insert(CHAT).values(code=code, seat=seat, name=name, emoji=emoji, text=text, at=at)
    )
    return int(result.inserted_primary_key[0])  # type: ignore[index]


def _chat_history(conn: Connection, code: str, limit: int) -> list[ChatRow]:
    rows = (
        conn.execute(
            select(CHAT).where(CHAT.c.code == code).order_by(CHAT.c.id.desc()).limit(limit)
        )
        .mappings()
        .all()
    )
    return [
        ChatRow(r["id"], r["code"], r["seat"], r["name"], r["emoji"], r["text"], r["at"])
        for r in reversed(rows)
    ]


def _actions(conn: Connection, code: str, after: int = 0) -> list[ActionRow]:
    rows = (
        conn.execute(
            select(ACTIONS).where(ACTIONS.c.code == code, ACTIONS.c.v > after).order_by(ACTIONS.c.v)
        )
        .mappings()
        .all()
    )
    return [ActionRow(r["code"], r["v"], r["seat"], r["action"], r["at"]) for r in rows]


# Bounded work per call: a purge is one transaction, and the writer (one thread, every game's
# moves queued behind it) must never hold it long. The caller runs it again until it finds less.
PURGE_BATCH = 500


def _purge(conn: Connection, waiting_before: float, chat_before: float) -> tuple[int, int]:
    codes = list(
        conn.scalars(
            select(GAMES.c.code)
            .where(GAMES.c.status == "waiting", GAMES.c.public_at < waiting_before)
            .order_by(GAMES.c.public_at)
            .limit(PURGE_BATCH)
        )
    )
    if codes:
        for tbl in (SEATS, CHAT, ACTIONS):
            conn.execute(delete(tbl).where(tbl.c.code.in_(codes)))
        # Claimed seats go too: a purged game's code, drawn again later, must never hand
        # someone's claim over to a stranger's game.
        conn.execute(delete(ACCOUNT_SEATS).where(ACCOUNT_SEATS.c.code.in_(codes)))
        conn.execute(delete(GAMES).where(GAMES.c.code.in_(codes)))
    old = select(GAMES.c.code).where(
        GAMES.c.status.in_(("finished", "ended")), GAMES.c.public_at < chat_before
    )
    ids = select(CHAT.c.id).where(CHAT.c.code.in_(old)).limit(PURGE_BATCH * 20)
    chats = conn.execute(delete(CHAT).where(CHAT.c.id.in_(ids))).rowcount
    return len(codes), int(chats or 0)


def _records(conn: Connection, code: str | None) -> list[RecordRow]:
    stmt = select(RECORDS).order_by(RECORDS.c.id)
    if code is not None:
        stmt = stmt.where(RECORDS.c.code == code)
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


def _claim_overdue(
    conn: Connection, due_before: float, now: float, owner: str, until: float, limit: int
) -> list[str]:
    """Lease overdue timers: on PostgreSQL the candidates are locked ``FOR UPDATE SKIP LOCKED``,
    so two processes claiming at once take different games; SQLite has one writer anyway."""
    free = (GAMES.c.lease_until.is_(None)) | (GAMES.c.lease_until < now)
    pick = (
        select(GAMES.c.code)
        .where(
            GAMES.c.status == "active",
            GAMES.c.due_at.is_not(None),
            GAMES.c.due_at < due_before,
            free,
        )
        .order_by(GAMES.c.due_at)
        .limit(limit)
    )
    if conn.dialect.name == "postgresql":
        pick = pick.with_for_update(skip_locked=True)
    codes = list(conn.scalars(pick))
    if codes:
        conn.execute(
            update(GAMES)
            .where(GAMES.c.code.in_(codes))
            .values(lease_owner=owner, lease_until=until)
        )
    return codes


# --- issue 33: the watch link ---------------------------------------------------------------


def _watch_token(conn: Connection, code: str) -> str | None:
    return conn.scalar(select(GAMES.c.watch_token).where(GAMES.c.code == code))  # type: ignore[no-any-return]


def _set_watch_token(conn: Connection, code: str, token: str | None) -> None:
    conn.execute(update(GAMES).where(GAMES.c.code == code).values(watch_token=token))


def _watched_game(conn: Connection, token: str) -> str | None:
    return conn.scalar(select(GAMES.c.code).where(GAMES.c.watch_token == token))  # type: ignore[no-any-return]
