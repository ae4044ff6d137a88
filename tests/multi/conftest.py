"""Several servers on one PostgreSQL database and one Redis (issue 30).

Each :class:`~server.wsclient.LiveServer` here is a whole server (its own event loop, service,
store connections and Redis bus) that shares nothing with the others but the two databases, as
separate processes do; the tests that must kill a process use real ones (``ServerProcess``).
Skipped, with the reason, when PostgreSQL or Redis is not running.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import databases
import redisconf
from gameshack.server.app import COOKIE
from server.wsclient import LiveServer, Player, settings_for

# Redis database for these tests (pub/sub channels are global, keys are per database): emptied
# before each test, so shared rate-limit counts start from zero.
REDIS_DB = 7


def _redis_url() -> str:
    base = redisconf.REDIS_URL.rsplit("/", 1)[0]
    return f"{base}/{REDIS_DB}"


def _flush(url: str) -> None:
    async def flush() -> None:
        import redis.asyncio as redis

        client = redis.from_url(url)
        try:
            await client.flushdb()
        finally:
            await client.aclose()

    asyncio.run(flush())


@pytest.fixture
def shared() -> Iterator[tuple[str, str]]:
    """(database URL, Redis URL): a fresh migrated PostgreSQL database and an empty Redis db."""
    problem = databases.postgres_problem() or redisconf.redis_problem()
    if problem:
        pytest.skip(problem)
    redis_url = _redis_url()
    _flush(redis_url)
    with databases.url_for("postgresql", Path()) as url:
        assert url is not None
        yield url, redis_url


def cluster_settings(tmp: Path, db: str, redis_url: str, **over: Any) -> Any:
    return settings_for(tmp, database_url=db, redis_url=redis_url, **over)


@pytest.fixture
def pair(tmp_path: Path, shared: tuple[str, str]) -> Iterator[tuple[LiveServer, LiveServer]]:
    """Two servers serving one site."""
    db, redis_url = shared
    with (
        LiveServer(cluster_settings(tmp_path / "a", db, redis_url, grace_seconds=0.4)) as a,
        LiveServer(cluster_settings(tmp_path / "b", db, redis_url, grace_seconds=0.4)) as b,
    ):
        yield a, b


def token() -> str:
    return secrets.token_urlsafe(32)


def same_device(player: Player, server: LiveServer) -> Player:
    """The same browser (its device cookie) talking to another server of the site."""
    other = server.player(player.name, player.emoji)
    other.http.cookies.clear()
    other.http.cookies.set(COOKIE, player.token)
    other.token = player.token
    return other
