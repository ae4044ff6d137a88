"""The Redis bus between processes, on a real Redis: events reach the other processes watching a
game (never the sender), presence is the union of live processes, and a lost connection ends in
a resync of every watched game."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis.asyncio as redis

import redisconf
from gameshack.store.redis_bus import RedisBus


@pytest.fixture
async def buses() -> AsyncIterator[list[tuple[RedisBus, list[tuple[str, dict[str, Any]]]]]]:
    problem = redisconf.redis_problem()
    if problem:
        pytest.skip(problem)
    out = []
    for _ in range(3):
        heard: list[tuple[str, dict[str, Any]]] = []
        bus = RedisBus(redisconf.REDIS_URL)

        async def on_event(code: str, event: dict[str, Any], heard: Any = heard) -> None:
            heard.append((code, event))

        await bus.start(on_event)
        out.append((bus, heard))
    yield out
    for bus, _ in out:
        await bus.close()


async def _until(check: Any, timeout: float = 5.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not check():
        assert asyncio.get_running_loop().time() < deadline, "timed out"
        await asyncio.sleep(0.01)


async def test_events_reach_the_other_watchers_only(buses: Any) -> None:
    (a, heard_a), (b, heard_b), (_c, heard_c) = buses
    code = secrets.token_hex(3).upper()
    for bus in (a, b):
        await bus.watch(code)
    await asyncio.sleep(0.2)  # the listeners subscribe
    await a.publish(code, {"type": "changed", "version": 7})
    await _until(lambda: heard_b)
    await asyncio.sleep(0.1)
    assert heard_b == [(code, {"type": "changed", "version": 7})]
    assert heard_a == [] and heard_c == []  # not the sender, not a process not watching
    await b.unwatch(code)
    await asyncio.sleep(0.1)
    await a.publish(code, {"type": "changed", "version": 8})
    await asyncio.sleep(0.2)
    assert len(heard_b) == 1


async def test_presence_is_the_union_of_live_processes(buses: Any) -> None:
    (a, _), (b, _), (c, _) = buses
    code = secrets.token_hex(3).upper()
    await a.set_online(code, {0})
    await b.set_online(code, {1, 2})
    assert await c.others_online(code) == {0, 1, 2}
    assert await a.others_online(code) == {1, 2}
    await b.set_online(code, set())
    assert await c.others_online(code) == {0}
    # a process killed with kill -9 stops renewing: once its liveness key is gone, its seats
    # are offline (here the key is removed rather than waited out)
    await a.redis.delete(f"gs:alive:{a.process}")
    assert await c.others_online(code) == set()


async def test_a_lost_connection_ends_in_a_resync_of_every_watched_game(buses: Any) -> None:
    (a, heard_a), (b, _), _ = buses
    codes = [secrets.token_hex(3).upper() for _ in range(2)]
    for code in codes:
        await a.watch(code)
    await asyncio.sleep(0.2)
    admin = redis.from_url(redisconf.REDIS_URL)
    try:
        await admin.client_kill_filter(_type="pubsub", skipme=True)
    finally:
        await admin.aclose()
    await _until(lambda: len(heard_a) >= 2)
    assert sorted(heard_a) == sorted((code, {"type": "resync"}) for code in codes)
    # and it hears events again afterwards
    await asyncio.sleep(0.2)
    await b.publish(codes[0], {"type": "changed", "version": 1})
    await _until(lambda: len(heard_a) >= 3)
