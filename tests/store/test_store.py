"""The store port: the SQL store (real SQLite file, migrated by Alembic) and its in-memory twin
answer the same questions the same way."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

import databases
from gameshack.service.ports import (
    ActionRow,
    CodeTaken,
    GameRow,
    RecordRow,
    SeatRow,
    Store,
    VersionConflict,
)
from gameshack.store import MemoryStore, SqlStore


@pytest.fixture(params=["sqlite", "postgresql", "memory"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
    with databases.url_for(request.param, tmp_path) as url:
        s: Store = MemoryStore() if url is None else SqlStore(url)
        await s.start()
        yield s
        await s.close()


def _game(code: str = "ABCDE", device: str = "dev-a") -> GameRow:
    return GameRow(
        code=code,
        kind="rummy",
        status="waiting",
        capacity=2,
        target=100,
        practice=False,
        difficulty=None,
        seed=2**61 + 5,
        seats=[SeatRow(0, "Ana", "🦊", device, joined_at=1.0)],
        created_at=1.0,
        updated_at=1.0,
    )


async def test_create_load_save_round_trip(store: Store) -> None:
    g = _game()
    await store.create_game(g)
    with pytest.raises(CodeTaken):
        await store.create_game(_game())
    g.seats.append(
        SeatRow(1, "Bot", "🤖", None, bot="hard", memory={"seen": [1, 2]}, joined_at=2.0)
    )
    g.status, g.version, g.state = "active", 1, {"phase": "deal_draw", "hands": [[1, 2], [3]]}
    g.grace_deadline, g.grace_seat = 123.5, 1
    rec = RecordRow(
        "ABCDE",
        "rummy",
        "hand",
        1,
        ["Ana", "Bot"],
        ["🦊", "🤖"],
        [False, True],
        [40, -5],
        [0],
        "went_out",
        1.0,
        9.0,
        False,
    )
    await store.save_game(
        g, new_seats=[1], action=ActionRow("ABCDE", 1, None, "start", 2.0), records=[rec]
    )
    got = await store.load_game("ABCDE")
    assert got == g
    assert got is not g and got.state == g.state
    g.seats[1].memory = {"seen": [1, 2, 3]}
    g.version = 2
    await store.save_game(g, seats=[1], action=ActionRow("ABCDE", 2, 1, "deal", 3.0))
    again = await store.load_game("ABCDE")
    assert again is not None and again.seats[1].memory == {"seen": [1, 2, 3]} and again.version == 2
    assert [(a.v, a.action) for a in await store.actions("ABCDE")] == [(1, "start"), (2, "deal")]
    assert await store.records("ABCDE") == [rec]
    assert await store.records("ZZZZZ") == []
    assert await store.load_game("NOPE1") is None


async def test_device_games_live_games_and_chat(store: Store) -> None:
    await store.create_game(_game("AAAAA", "dev-a"))
    b = _game("BBBBB", "dev-b")
    await store.create_game(b)
    b.status = "active"
    await store.save_game(b)
    f = _game("CCCCC", "dev-a")
    await store.create_game(f)
    f.status = "finished"
    await store.save_game(f)
    assert [g.code for g in await store.games_for_device("dev-a")] == ["AAAAA"]
    assert [g.code for g in await store.live_games()] == ["BBBBB"]
    c1 = await store.add_chat("AAAAA", 0, "Ana", "🦊", "<b>hi</b>", 5.0)
    c2 = await store.add_chat("AAAAA", 0, "Ana", "🦊", "again", 6.0)
    await store.add_chat("BBBBB", 0, "Ana", "🦊", "elsewhere", 7.0)
    assert c2.id > c1.id
    assert [c.text for c in await store.chat_history("AAAAA")] == ["<b>hi</b>", "again"]
    assert [c.text for c in await store.chat_history("AAAAA", limit=1)] == ["again"]


async def test_sqlite_runs_in_wal_mode_and_migrates_once(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'g.db'}"
    for _ in range(2):  # the second start finds the schema current and changes nothing
        s = SqlStore(url)
        await s.start()
        await s.create_game(_game(f"W{_}WWW"))
        await s.close()
    db = sqlite3.connect(tmp_path / "g.db")
    assert db.execute("pragma journal_mode").fetchone()[0] == "wal"
    assert db.execute("select version_num from alembic_version").fetchone()[0]
    assert db.execute("select count(*) from games").fetchone()[0] == 2


async def test_sqlite_writes_go_through_one_connection_between_reads(tmp_path: Path) -> None:
    """The writer's connection is its own: reads in between never hand it another one, whose
    page cache a commit elsewhere has made stale (each move would re-read its pages)."""
    s = SqlStore(f"sqlite:///{tmp_path / 'g.db'}")
    await s.start()

    def driver(conn: Any) -> int:
        return id(conn.connection.driver_connection)

    writers = set()
    try:
        await s.create_game(_game())
        for _ in range(6):
            writers.add(await s.run(driver))
            await asyncio.gather(*(s.load_game("ABCDE") for _ in range(4)))  # the readers
    finally:
        await s.close()
    assert len(writers) == 1


async def test_create_game_with_its_action_and_public_at(store: Store) -> None:
    g = _game("PPPPP")
    g.status, g.version, g.public_at = "active", 1, 4.5
    await store.create_game(g, action=ActionRow("PPPPP", 1, None, "start", 4.5))
    got = await store.load_game("PPPPP")
    assert got == g and got.public_at == 4.5
    assert [(a.v, a.action) for a in await store.actions("PPPPP")] == [(1, "start")]
    with pytest.raises(CodeTaken):  # a clash writes nothing: not the action either
        await store.create_game(_game("PPPPP"), action=ActionRow("PPPPP", 1, 0, "x", 5.0))
    assert [(a.v, a.action) for a in await store.actions("PPPPP")] == [(1, "start")]


async def test_purge_drops_abandoned_waiting_games_and_old_chat(store: Store) -> None:
    # old waiting (goes, with its seats, chat, actions); fresh waiting; old finished (chat goes,
    # the game and its records stay); fresh finished; old active (nothing goes).
    for code, status, at in [
        ("OLDWT", "waiting", 10.0),
        ("NEWWT", "waiting", 100.0),
        ("OLDFN", "finished", 10.0),
        ("NEWFN", "ended", 100.0),
        ("OLDAC", "active", 10.0),
    ]:
        g = _game(code)
        g.status, g.public_at = status, at
        await store.create_game(g, action=ActionRow(code, 1, 0, "a", at))
        await store.add_chat(code, 0, "Ana", "🦊", f"hi {code}", at)
    assert await store.purge(waiting_before=50.0, chat_before=50.0) == (1, 1)
    assert await store.load_game("OLDWT") is None
    assert await store.actions("OLDWT") == [] and await store.chat_history("OLDWT") == []
    assert await store.games_for_device("dev-a") != []  # NEWWT and OLDAC
    for code in ("NEWWT", "OLDFN", "NEWFN", "OLDAC"):
        assert await store.load_game(code) is not None
        assert len(await store.actions(code)) == 1
    assert await store.chat_history("OLDFN") == []
    for code in ("NEWWT", "NEWFN", "OLDAC"):
        assert len(await store.chat_history(code)) == 1
    assert await store.purge(waiting_before=50.0, chat_before=50.0) == (0, 0)
    again = await store.add_chat("NEWWT", 0, "Ana", "🦊", "later", 200.0)
    assert again.id > max(c.id for c in await store.chat_history("NEWFN"))  # ids never reused


def _database_at(path: Path, revision: str, game_sql: str) -> None:
    """A SQLite database as migration ``revision`` left it, with the game ``game_sql`` inserts."""
    from alembic import command
    from alembic.config import Config
    from sqlalchemy import create_engine

    from gameshack.store.sql import MIGRATIONS

    engine = create_engine(f"sqlite:///{path}")
    with engine.begin() as conn:
        cfg = Config()
        cfg.set_main_option("script_location", str(MIGRATIONS))
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, revision)
        conn.exec_driver_sql(game_sql)
    engine.dispose()


async def test_migration_backfills_public_at_from_updated_at(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    _database_at(
        path,
        "0101",
        "insert into games (code, kind, status, capacity, practice, seed, host, version,"
        " hands_recorded, created_at, updated_at) values"
        " ('OLD01', 'rummy', 'waiting', 2, 0, 1, 0, 0, 0, 1.0, 77.5)",
    )
    s = SqlStore(f"sqlite+aiosqlite:///{path}")
    await s.start()
    try:
        got = await s.load_game("OLD01")
        assert got is not None and got.public_at == 77.5
    finally:
        await s.close()


async def test_a_save_without_the_state_leaves_the_stored_one(store: Store) -> None:
    """A private move is saved with ``state=False``: the stored state and the version it is at
    stay, and the actions after that version are what a load replays on it."""
    g = _game()
    await store.create_game(g)
    g.status, g.version, g.state, g.state_v = "active", 1, {"at": 1}, 1
    await store.save_game(g, action=ActionRow(g.code, 1, None, "start", 2.0))
    for v in (2, 3):
        g.version, g.state = v, {"at": v}  # what the row holds is not written
        await store.save_game(
            g, action=ActionRow(g.code, v, 0, "draw", 2.0), expect_version=v - 1, state=False
        )
    got = await store.load_game(g.code)
    assert got is not None
    assert (got.version, got.state, got.state_v) == (3, {"at": 1}, 1)
    assert [a.v for a in await store.actions(g.code, after=got.state_v)] == [2, 3]
    assert [a.v for a in await store.actions(g.code)] == [1, 2, 3]
    g.version, g.state, g.state_v = 4, {"at": 4}, 4
    await store.save_game(g, expect_version=3)
    got = await store.load_game(g.code)
    assert got is not None and (got.state, got.state_v) == ({"at": 4}, 4)


async def test_migration_puts_every_stored_state_at_its_version(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    _database_at(  # a game in play, its state at version 7
        path,
        "0105",
        "insert into games (code, kind, status, capacity, practice, seed, host, state,"
        " version, hands_recorded, created_at, updated_at) values"
        " ('OLD01', 'rummy', 'active', 2, 0, 1, 0, '{\"at\": 7}', 7, 0, 1.0, 2.0)",
    )
    s = SqlStore(f"sqlite:///{path}")
    await s.start()
    try:
        got = await s.load_game("OLD01")
        assert got is not None and (got.version, got.state, got.state_v) == (7, {"at": 7}, 7)
    finally:
        await s.close()
    with sqlite3.connect(path) as db:
        assert db.execute("select state_v from games").fetchall() == [(7,)]


async def test_a_save_expecting_a_version_commits_only_if_the_game_is_still_there(
    store: Store,
) -> None:
    g = _game()
    await store.create_game(g)
    g.version, g.status = 1, "active"
    await store.save_game(g, expect_version=0, action=ActionRow(g.code, 1, 0, "start", 2.0))
    g.version = 2
    with pytest.raises(VersionConflict):  # another writer's copy: still at 0 for it
        await store.save_game(g, expect_version=0, action=ActionRow(g.code, 2, 0, "draw", 3.0))
    loaded = await store.load_game(g.code)
    assert loaded is not None and loaded.version == 1
    assert [a.v for a in await store.actions(g.code)] == [1]


async def test_overdue_timers_are_claimed_once_until_the_lease_runs_out(store: Store) -> None:
    for code, due in (("AAAAA", 10.0), ("BBBBB", 20.0), ("CCCCC", None), ("DDDDD", 5.0)):
        g = _game(code)
        g.status, g.due_at = "active", due
        await store.create_game(g)
    assert await store.claim_overdue(due_before=15.0, now=15.0, owner="p1", until=20.0) == [
        "DDDDD",
        "AAAAA",
    ]
    # Held by p1 until 20: nobody else gets them; BBBBB is now overdue and free.
    assert await store.claim_overdue(due_before=25.0, now=19.0, owner="p2", until=24.0) == ["BBBBB"]
    # p1 died: its leases ran out at 20.
    assert await store.claim_overdue(due_before=25.0, now=21.0, owner="p2", until=26.0) == [
        "DDDDD",
        "AAAAA",
    ]


async def test_two_processes_on_one_database_never_both_commit_a_version(
    tmp_path: Path,
) -> None:
    """Two stores on one PostgreSQL database (two server processes): for each version, many
    concurrent writers that loaded it, exactly one commits; the log has each version once."""
    with databases.url_for("postgresql", tmp_path) as url:
        assert url is not None
        a, b = SqlStore(url), SqlStore(url)
        await a.start()
        await b.start()
        try:
            g = _game()
            g.status = "active"
            await a.create_game(g)
            for v in range(1, 21):

                async def attempt(s: SqlStore, n: int, v: int = v) -> bool:
                    row = await s.load_game(g.code)
                    assert row is not None
                    if row.version != v - 1:
                        return False  # already moved on: this writer would answer stale
                    row.version = v
                    row.state = {"by": n}
                    try:
                        await s.save_game(
                            row,
                            expect_version=v - 1,
                            action=ActionRow(g.code, v, 0, f"move {n}", float(v)),
                        )
                        return True
                    except VersionConflict:
                        return False

                wins = await asyncio.gather(*(attempt((a, b)[n % 2], n) for n in range(6)))
                assert sum(wins) == 1, (v, wins)
            actions = await a.actions(g.code)
            assert [x.v for x in actions] == list(range(1, 21))
            final = await b.load_game(g.code)
            assert final is not None and final.version == 20
        finally:
            await a.close()
            await b.close()


async def test_several_processes_starting_at_once_migrate_one_database(tmp_path: Path) -> None:
    problem = databases.postgres_problem()
    if problem:
        pytest.skip(problem)
    for url in databases.postgres_url(migrated=False):
        stores = [SqlStore(url) for _ in range(4)]
        await asyncio.gather(*(s.start() for s in stores))  # no error: one migrates at a time
        await stores[0].create_game(_game())
        assert await stores[3].load_game("ABCDE") is not None
        for s in stores:
            await s.close()
