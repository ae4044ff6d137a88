"""The databases the store, service, accounts and stats tests run against: a SQLite file, and
a scratch PostgreSQL database when a server answers on ``GAMESHACK_TEST_POSTGRES`` (default
``postgresql://postgres@127.0.0.1:5432/test``). Without PostgreSQL those cases are skipped with
a sentence that says so; CI machines here always have it.

Each test gets its own PostgreSQL database, cloned from a template that is migrated once per
session (``CREATE DATABASE … TEMPLATE``: tens of milliseconds, not a migration per test).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
from collections.abc import Iterator
from pathlib import Path

from sqlalchemy.engine import make_url

ADMIN_URL = os.environ.get(
    "GAMESHACK_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test"
).strip()
_TEMPLATE = f"gs_template_{os.getpid()}"
_state: dict[str, str | None] = {}


def postgres_problem() -> str | None:
    """None when a PostgreSQL server answers; else why not (the skip reason)."""
    if "problem" not in _state:
        try:
            import asyncpg

            async def probe() -> None:

                conn = await asyncpg.connect(_asyncpg_dsn(ADMIN_URL), timeout=3)
                await conn.close()

            _run(probe())
            _state["problem"] = None
        except Exception as exc:
            _state["problem"] = (
                f"PostgreSQL is not answering at {ADMIN_URL} ({type(exc).__name__}: {exc}); "
                "start it (pg_ctlcluster … main start) or set GAMESHACK_TEST_POSTGRES"
            )
    return _state["problem"]


def _asyncpg_dsn(url: str) -> str:
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


def _sa_url(url: str, database: str) -> str:
    u = make_url(url).set(drivername="postgresql+asyncpg", database=database)
    return u.render_as_string(hide_password=False)


async def _execute(*statements: str) -> None:
    import asyncpg

    conn = await asyncpg.connect(_asyncpg_dsn(ADMIN_URL), timeout=10)
    try:
        for statement in statements:
            await conn.execute(statement)
    finally:
        await conn.close()


def _run(coro: object) -> None:
    """Run admin SQL from sync or async test code alike (on a thread of its own loop)."""
    import threading

    errors: list[BaseException] = []

    def target() -> None:
        try:
            asyncio.run(coro)  # type: ignore[arg-type]
        except BaseException as exc:
            errors.append(exc)

    t = threading.Thread(target=target)
    t.start()
    t.join()
    if errors:
        raise errors[0]


def _template() -> str:
    """A database migrated to head once per session, to clone per test."""
    if "template" not in _state:
        from gameshack.store import SqlStore

        _run(_execute(f'DROP DATABASE IF EXISTS "{_TEMPLATE}"', f'CREATE DATABASE "{_TEMPLATE}"'))

        async def migrate() -> None:
            store = SqlStore(_sa_url(ADMIN_URL, _TEMPLATE))
            await store.start()
            await store.close()

        _run(migrate())
        _state["template"] = _TEMPLATE
    return _TEMPLATE


def postgres_url(*, migrated: bool = True) -> Iterator[str]:
    """A fresh scratch database's SQLAlchemy URL (migrated, or empty); dropped afterwards."""
    name = f"gs_test_{secrets.token_hex(6)}"
    template = f' TEMPLATE "{_template()}"' if migrated else ""
    _run(_execute(f'CREATE DATABASE "{name}"{template}'))
    try:
        yield _sa_url(ADMIN_URL, name)
    finally:
        _run(_execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


def drop_template() -> None:
    if _state.get("template"):
        _run(_execute(f'DROP DATABASE IF EXISTS "{_TEMPLATE}" WITH (FORCE)'))


def sqlite_url(tmp: Path) -> str:
    return f"sqlite+aiosqlite:///{tmp / 'gameshack.db'}"


@contextlib.contextmanager
def url_for(kind: str, tmp: Path) -> Iterator[str | None]:
    """The URL of a fresh database of ``kind`` ("sqlite", "postgresql"; anything else: None,
    for an in-memory twin); skips the test when PostgreSQL is asked for and absent."""
    if kind == "sqlite":
        yield sqlite_url(tmp)
    elif kind == "postgresql":
        problem = postgres_problem()
        if problem:
            import pytest

            pytest.skip(problem)
        yield from postgres_url()
    else:
        yield None
