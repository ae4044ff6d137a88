"""The rate limiter every layer uses: a moving window per key, counted in this process or, for
several processes, in one Redis that they all share."""

from __future__ import annotations

import secrets

import pytest

import redisconf
from gameshack.throttle import Limited, Rate, Throttle


async def _hits(throttles: list[Throttle], key: str, rate: Rate, n: int) -> list[int]:
    out = []
    for i in range(n):
        try:
            await throttles[i % len(throttles)].hit("test", key, rate)
            out.append(0)
        except Limited as exc:
            out.append(exc.retry_after)
    return out


async def test_memory_counts_per_process() -> None:
    a, b = Throttle(), Throttle()
    assert await _hits([a], "k", Rate(3, 60), 5) == [0, 0, 0, 60, 60]
    assert await _hits([b], "k", Rate(3, 60), 1) == [0]  # another process counts its own


async def test_redis_counts_are_shared_by_every_process() -> None:
    problem = redisconf.redis_problem()
    if problem:
        pytest.skip(problem)
    a, b = Throttle(redisconf.REDIS_URL), Throttle(redisconf.REDIS_URL)
    key = secrets.token_hex(4)
    got = await _hits([a, b], key, Rate(3, 60), 5)
    assert got[:3] == [0, 0, 0] and all(55 <= r <= 61 for r in got[3:]), got


def test_limits_is_imported_on_the_first_count_not_at_start_up() -> None:
    import subprocess
    import sys

    code = (
        "import asyncio, sys\n"
        "import gameshack.server.app\n"
        "from gameshack.throttle import Rate, Throttle\n"
        "t = Throttle()\n"
        "before = 'limits' in sys.modules\n"
        "asyncio.run(t.hit('b', 'k', Rate(1, 60)))\n"
        "print(before, 'limits' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "True"]
