"""Storage faults (issue 28, point 1): a full disk, a stuck database, an unusable start-up.

Each fault runs twice: on a real SQLite file on a tiny tmpfs filled to the last byte, and with
the same error raised by the driver's commit (where mounting is refused, the first skips and
the second still tests the logic). A write that fails must be reported failed and not saved;
each write has exactly one outcome; the writer keeps serving; health() says why while writes
fail and turns good once one commits; close() returns in bounded time.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, event

from gameshack.service.ports import GameRow, SeatRow, WriteUnconfirmed
from gameshack.store import SqlStore, StoreClosed, StoreUnavailable
from gameshack.store.sql import DEVICE_GAMES, _sqlite_pragmas

from .tinyfs import Filler, FullDiskConnection, tiny_tmpfs

BIG = 600_000  # a state bigger than all the WAL holds after start-up: it needs new disk


def _game(code: str, device: str = "dev-a", at: float = 1.0) -> GameRow:
    return GameRow(
        code=code,
        kind="rummy",
        status="waiting",
        capacity=2,
        target=100,
        practice=False,
        difficulty=None,
        seed=7,
        seats=[SeatRow(0, "Ana", "🦊", device, joined_at=at)],
        created_at=at,
        updated_at=at,
        public_at=at,
    )


def _moved(game: GameRow, version: int) -> GameRow:
    game.version = version
    game.state = {"pad": "x" * BIG, "v": version}
    return game


class Disk:
    """A store on a disk that can be filled and freed (really, or at the driver)."""

    def __init__(self, store: SqlStore, fill: Callable[[], None], free: Callable[[], None]):
        self.store, self.fill, self.free = store, fill, free


def _store(path: Path, **kw: Any) -> SqlStore:
    return SqlStore(f"sqlite+aiosqlite:///{path}", **kw)


@pytest.fixture(params=["tmpfs", "driver"])
async def disk(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Disk]:
    kw = {"probe_every": 0.4, "close_timeout": 0.5}
    if request.param == "tmpfs":
        with tiny_tmpfs(tmp_path / "tiny", "16m") as mnt:
            store = _store(mnt / "g.db", **kw)
            filler = Filler(mnt)
            await store.start()
            yield Disk(store, filler.fill, filler.free)
            filler.free()
            await store.close()
        return
    store = _store(tmp_path / "g.db", **kw)
    # The same writer's engine the store makes, on a connection whose commit fails while "full".
    assert store._writes is not None
    store._writes.dispose()
    store._writes = create_engine(
        f"sqlite:///{tmp_path / 'g.db'}",
        connect_args={"check_same_thread": False, "factory": FullDiskConnection},
        pool_size=1,
    )
    event.listen(store._writes, "connect", _sqlite_pragmas)

    def fill() -> None:
        FullDiskConnection.full = True

    def free() -> None:
        FullDiskConnection.full = False

    await store.start()
    try:
        yield Disk(store, fill, free)
    finally:
        free()
        await store.close()


async def _bounded(aw: Any, seconds: float = 10.0) -> Any:
    """A hang is a failure here, not a stuck test run."""
    return await asyncio.wait_for(aw, seconds)


async def test_a_write_on_a_full_disk_fails_is_not_saved_and_health_says_why(disk: Disk) -> None:
    store = disk.store
    await store.create_game(_game("AAAAA"))
    assert await store.health() is None
    disk.fill()
    with pytest.raises(Exception, match="disk is full"):
        await _bounded(store.save_game(_moved(_game("AAAAA"), 1)))
    reason = await store.health()
    assert reason is not None and "disk is full" in reason and "\n" not in reason
    loaded = await store.load_game("AAAAA")
    assert loaded is not None and loaded.version == 0  # not acknowledged, and not saved
    disk.free()
    await _bounded(store.save_game(_moved(_game("AAAAA"), 1)))  # the writer still serves
    loaded = await store.load_game("AAAAA")
    assert loaded is not None and loaded.version == 1
    assert await store.health() is None


async def test_each_write_of_a_failed_group_gets_one_outcome_and_the_writer_goes_on(
    disk: Disk,
) -> None:
    store = disk.store
    codes = ["G1AAA", "G2AAA"]
    for code in codes:
        await store.create_game(_game(code))
    disk.fill()
    # Queued together, one write of each kind: one group transaction, then one transaction
    # each; every commit fails. (Once, a retry was recorded saved, then failed: two outcomes.)
    outcomes = await _bounded(
        asyncio.gather(
            *(store.save_game(_moved(_game(c), 1)) for c in codes),
            store.create_game(_moved(_game("NEWGM"), 0)),
            store.add_chat("G1AAA", 0, "Ana", "🦊", "x" * BIG, 5.0),
            return_exceptions=True,
        )
    )
    assert all(isinstance(o, Exception) and "disk is full" in str(o) for o in outcomes), outcomes
    assert {(await store.load_game(c)).version for c in codes} == {0}  # type: ignore[union-attr]
    assert await store.load_game("NEWGM") is None
    assert await store.chat_history("G1AAA") == []
    disk.free()
    outcomes = await _bounded(
        asyncio.gather(
            *(store.save_game(_moved(_game(c), 2)) for c in codes),
            store.add_chat("G1AAA", 0, "Ana", "🦊", "back", 6.0),
        )
    )
    assert outcomes[:2] == [None, None] and outcomes[2].text == "back"
    assert {(await store.load_game(c)).version for c in codes} == {2}  # type: ignore[union-attr]


async def test_health_turns_good_by_a_probe_when_nobody_writes(disk: Disk) -> None:
    store = disk.store
    await store.create_game(_game("PROBE"))
    disk.fill()
    with pytest.raises(Exception, match="disk is full"):
        await _bounded(store.save_game(_moved(_game("PROBE"), 1)))
    await asyncio.sleep(0.1)  # under probe_every: the failure stays reported
    assert await store.health() is not None
    disk.free()
    deadline = time.monotonic() + 5
    while await store.health() is not None:
        assert time.monotonic() < deadline, "the probe never found the disk writable again"
        await asyncio.sleep(0.05)


async def test_close_is_bounded_while_writes_fail(disk: Disk) -> None:
    store = disk.store
    codes = [f"C{n:02d}AA" for n in range(20)]
    for code in codes:
        await store.create_game(_game(code))
    disk.fill()
    writes = [asyncio.ensure_future(store.save_game(_moved(_game(c), 1))) for c in codes]
    await asyncio.sleep(0)
    start = time.monotonic()
    await _bounded(store.close())
    assert time.monotonic() - start < 3.0
    done, pending = await asyncio.wait(writes, timeout=1.0)
    assert not pending  # nobody is left waiting forever
    assert all(w.exception() is not None for w in done)
    with pytest.raises(StoreClosed):
        await store.save_game(_game("C00AA"))


async def test_a_retried_save_commits(tmp_path: Path) -> None:
    """A group fails on one bad write; the save queued beside it is retried alone and commits
    (it raised KeyError('code') when the first try had changed its arguments)."""
    store = _store(tmp_path / "g.db")
    await store.start()
    try:
        await store.create_game(_game("GOOD1"))
        await store.create_game(_game("CLASH"))
        bad = _game("CLASH")  # seat 0 exists: inserting it again breaks the primary key
        outcomes = await _bounded(
            asyncio.gather(
                store.save_game(_moved(_game("GOOD1"), 1)),  # runs first in the group
                store.save_game(bad, new_seats=[0]),
                return_exceptions=True,
            )
        )
        assert outcomes[0] is None and "UNIQUE constraint failed" in str(outcomes[1])
        loaded = await store.load_game("GOOD1")
        assert loaded is not None and loaded.version == 1
        assert await store.health() is None  # a write's own error is not the database failing
    finally:
        await store.close()


async def test_the_writer_outlives_an_unexpected_error(tmp_path: Path) -> None:
    store = _store(tmp_path / "g.db")
    await store.start()
    try:

        def explode(_conn: Any) -> None:
            raise SystemExit("not an Exception: escapes the write's own handling")

        with pytest.raises(RuntimeError, match="interrupted"):
            await _bounded(store._run(explode))
        await _bounded(store.create_game(_game("AFTER")))
        assert await store.load_game("AFTER") is not None
    finally:
        await store.close()


async def test_close_never_waits_for_a_stuck_writer(tmp_path: Path) -> None:
    """Another process holds the write lock: the writer thread waits (busy_timeout, 10 s); close
    answers the write after its own bound — unconfirmed, neither saved nor failed, as it may
    still commit — and returns."""
    path = tmp_path / "g.db"
    store = _store(path, close_timeout=0.3)
    await store.start()
    await store.create_game(_game("STUCK"))
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    try:
        write = asyncio.ensure_future(store.save_game(_game("STUCK")))
        await asyncio.sleep(0.2)
        assert not write.done()
        start = time.monotonic()
        await _bounded(store.close())
        assert time.monotonic() - start < 2.0
        with pytest.raises(WriteUnconfirmed):
            await _bounded(write, 1.0)
    finally:
        other.execute("ROLLBACK")
        other.close()


async def test_reads_run_on_reader_threads_and_device_games_are_bounded(tmp_path: Path) -> None:
    store = _store(tmp_path / "g.db")
    threads: list[str] = []
    selects: list[str] = []
    assert store._sync is not None

    @event.listens_for(store._sync, "before_cursor_execute")
    def _seen(_c: Any, _cur: Any, statement: str, *_a: Any) -> None:
        if statement.lstrip().upper().startswith("SELECT"):
            threads.append(threading.current_thread().name)
            selects.append(statement)

    await store.start()
    try:
        for n in range(DEVICE_GAMES + 30):
            await store.create_game(_game(f"D{n:04d}", "dev-many", at=float(n)))
        await store.create_game(_game("OTHER", "dev-other", at=9999.0))
        threads.clear()
        selects.clear()
        games = await store.games_for_device("dev-many")
        assert len(games) == DEVICE_GAMES
        assert [g.public_at for g in games] == sorted((g.public_at for g in games), reverse=True)
        assert games[0].code == f"D{DEVICE_GAMES + 29:04d}"  # the newest first
        assert all(len(g.seats) == 1 and g.seats[0].device == "dev-many" for g in games)
        assert len(selects) == 2, selects  # the games, then all their seats: not one per game
        assert threads and all(t.startswith("gameshack-db-read") for t in threads), threads
    finally:
        await store.close()


# --- start-up on an unusable database: one sentence, no traceback ---------------------------


async def _start_error(url: str) -> str:
    store = SqlStore(url)
    with pytest.raises(StoreUnavailable) as info:
        await _bounded(store.start(), 30)
    await store.close()
    message = str(info.value)
    assert message and "\n" not in message and "Traceback" not in message
    return message


async def test_start_on_a_missing_data_directory(tmp_path: Path) -> None:
    msg = await _start_error(f"sqlite+aiosqlite:///{tmp_path / 'nope' / 'g.db'}")
    assert "does not exist" in msg and str(tmp_path / "nope") in msg


async def test_start_on_a_read_only_data_directory(tmp_path: Path) -> None:
    with tiny_tmpfs(tmp_path / "ro", "1m") as mnt:
        import subprocess

        subprocess.run(["mount", "-o", "remount,ro", str(mnt)], check=True)
        msg = await _start_error(f"sqlite+aiosqlite:///{mnt / 'g.db'}")
    assert "read-only" in msg and str(mnt) in msg


async def test_start_on_a_file_that_is_not_a_database(tmp_path: Path) -> None:
    path = tmp_path / "g.db"
    path.write_bytes(b"this is a text file, not SQLite\n" * 200)
    msg = await _start_error(f"sqlite+aiosqlite:///{path}")
    assert "not a usable SQLite database" in msg and str(path) in msg


async def test_start_with_an_unknown_scheme_or_a_sync_driver(tmp_path: Path) -> None:
    msg = await _start_error("mongodb://localhost/games")
    assert "unknown scheme 'mongodb'" in msg
    msg = await _start_error("postgresql+psycopg2://localhost/games")  # no async driver
    assert "postgresql+asyncpg" in msg
    # SQLite is always run on the standard library's driver: both spellings are the file.
    for url in (f"sqlite:///{tmp_path / 'a.db'}", f"sqlite+aiosqlite:///{tmp_path / 'b.db'}"):
        store = SqlStore(url)
        await store.start()
        await store.close()
    assert (tmp_path / "a.db").exists() and (tmp_path / "b.db").exists()


async def test_start_on_an_unreachable_postgresql() -> None:
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    msg = await _start_error(f"postgresql+asyncpg://u:secret@127.0.0.1:{port}/games")
    assert "cannot use the database at postgresql+asyncpg://u:***@127.0.0.1" in msg
    assert "secret" not in msg
