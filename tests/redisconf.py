"""The Redis the multi-process tests use (``GAMESHACK_TEST_REDIS``, default the local one):
skipped with a sentence when it does not answer."""

from __future__ import annotations

import asyncio
import os
import threading

REDIS_URL = os.environ.get("GAMESHACK_TEST_REDIS", "redis://127.0.0.1:6379/0").strip()
_state: dict[str, str | None] = {}


def redis_problem() -> str | None:
    if "problem" not in _state:
        errors: list[BaseException] = []

        def probe() -> None:
            async def ping() -> None:
                import redis.asyncio as redis

                client = redis.from_url(REDIS_URL, socket_connect_timeout=3)
                try:
                    await client.ping()
                finally:
                    await client.aclose()

            try:
                asyncio.run(ping())
            except BaseException as exc:
                errors.append(exc)

        t = threading.Thread(target=probe)
        t.start()
        t.join()
        _state["problem"] = (
            f"Redis is not answering at {REDIS_URL} ({errors[0]!r}); start it (redis-server "
            "--daemonize yes …) or set GAMESHACK_TEST_REDIS"
            if errors
            else None
        )
    return _state["problem"]
