"""Alembic runs only when a migration is pending: a restart on a current database reads one row
and never imports it (it took longer to import than the rest of start-up, issue 31). On SQLite
the store does not import SQLAlchemy's ORM or asyncio extension either (a tenth of a start)."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

from gameshack.store.sql import MIGRATIONS, head_revision

# A fresh interpreter, so that what start() imports is all that is in sys.modules.
START = """
import asyncio, sys
from gameshack.store import SqlStore

async def main():
    store = SqlStore(sys.argv[1])
    await store.start()
    await store.close()
    print(" ".join(m for m in ("alembic", "sqlalchemy.orm", "sqlalchemy.ext.asyncio")
                   if m in sys.modules))

asyncio.run(main())
"""


def imported(url: str) -> set[str]:
    """Start and close a store on ``url`` in a new process: which of Alembic, the ORM and the
    asyncio extension it imported."""
    out = subprocess.run(
        [sys.executable, "-c", START, url], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    return set(out.stdout.split())


def start(url: str) -> bool:
    """Start and close a store on ``url`` in a new process: whether it imported Alembic."""
    return "alembic" in imported(url)


def version(url: str) -> list[str]:
    from sqlalchemy import create_engine, text
    from sqlalchemy.ext.asyncio import create_async_engine

    if url.startswith("sqlite"):
        sync = create_engine(url.replace("sqlite+aiosqlite:", "sqlite:", 1))
        try:
            with sync.connect() as conn:
                return [r[0] for r in conn.execute(text("SELECT version_num FROM alembic_version"))]
        finally:
            sync.dispose()

    async def read() -> list[str]:
        engine = create_async_engine(url)
        try:
            async with engine.connect() as conn:
                rows = await conn.execute(text("SELECT version_num FROM alembic_version"))
                return [r[0] for r in rows]
        finally:
            await engine.dispose()

    return asyncio.run(read())


def test_head_revision_is_alembics_head() -> None:
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    assert head_revision() == ScriptDirectory.from_config(cfg).get_current_head()


def test_a_new_database_is_migrated_and_a_current_one_is_not(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'g.db'}"
    assert start(url) is True  # new: Alembic creates the schema
    assert version(url) == [head_revision()]
    assert start(url) is False  # current: nothing to do, Alembic not even imported


def test_a_sqlite_store_imports_neither_the_orm_nor_the_asyncio_extension(tmp_path: Path) -> None:
    for url in (f"sqlite:///{tmp_path / 'a.db'}", f"sqlite+aiosqlite:///{tmp_path / 'b.db'}"):
        assert imported(url) == {"alembic"}  # a new database: migrated, and nothing else
        assert imported(url) == set()


def test_a_current_postgresql_database_skips_alembic(database_url: str) -> None:
    if database_url.startswith("sqlite"):
        return  # the case above
    assert version(database_url) == [head_revision()]  # the tests' template is migrated
    assert start(database_url) is False


def test_an_older_revision_is_upgraded(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'g.db'}"
    assert start(url) is True
    from alembic import command
    from alembic.config import Config
    from sqlalchemy import create_engine

    engine = create_engine(url.replace("+aiosqlite", ""))
    with engine.begin() as conn:  # back to the revision before the newest
        cfg = Config()
        cfg.set_main_option("script_location", str(MIGRATIONS))
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "-1")
    engine.dispose()
    assert version(url) != [head_revision()]
    assert start(url) is True
    assert version(url) == [head_revision()]
