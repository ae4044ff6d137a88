"""The bus over Redis: pub/sub for events, a hash per game for presence, an expiring key per
process for liveness (``GAMESHACK_REDIS_URL``).

- Events: channel ``gs:game:{code}``; a message is ``{"from": process, "event": {...}}`` in
  JSON; a process ignores its own. A process subscribes to the games it has sockets on.
- Presence: hash ``gs:online:{code}``, field = process, value = its online seats. A process
  renews ``gs:alive:{process}`` (expiring after ``ALIVE_SECONDS``) while it runs, so the seats
  of a process killed with ``kill -9`` stop counting within that time.
- Lost connection: events published meanwhile are lost (pub/sub keeps nothing), so on
  reconnecting the bus hands every watched game a ``{"type": "resync"}`` event: the service
  reloads it from the database. Publishing while Redis is down logs and drops the event.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import socket
from typing import Any

import orjson
import redis.asyncio as redis

from gameshack.service.bus import Bus, EventHandler

__all__ = ["ALIVE_SECONDS", "RedisBus"]

log = logging.getLogger(__name__)

ALIVE_SECONDS = 10  # a process not heard of for this long is gone (its seats go offline)
_RENEW_EVERY = 3.0


def _channel(code: str) -> str:
    return f"gs:game:{code}"


class RedisBus(Bus):
    def __init__(self, url: str, process: str | None = None) -> None:
        self.url = url
        self.process = process or f"{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(3)}"
        self.redis: redis.Redis = redis.from_url(url)
        self._pubsub: Any = None
        self._watched: set[str] = set()
        self._tasks: list[asyncio.Task[None]] = []
        self._on_event: EventHandler | None = None
        self._subscribed = asyncio.Event()

    async def start(self, on_event: EventHandler) -> None:
        self._on_event = on_event
        await self.redis.ping()  # fail at start-up, with the cause, if Redis is not there
        await self._renew()
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self._listen()), loop.create_task(self._keep_alive())]

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        with contextlib.suppress(Exception):
            async with self.redis.pipeline() as pipe:
                for code in self._watched:
                    pipe.hdel(f"gs:online:{code}", self.process)
                pipe.delete(f"gs:alive:{self.process}")
                await pipe.execute()
        with contextlib.suppress(Exception):
            await self.redis.aclose()

    async def publish(self, code: str, event: dict[str, Any]) -> None:
        try:
            await self.redis.publish(
                _channel(code), orjson.dumps({"from": self.process, "event": event})
            )
        except Exception as exc:  # receivers resync when they reconnect
            log.warning("could not publish %s for %s: %r", event.get("type"), code, exc)

    async def watch(self, code: str) -> None:
        if code in self._watched:
            return
        self._watched.add(code)
        if self._pubsub is not None:
            with contextlib.suppress(Exception):
                await self._pubsub.subscribe(_channel(code))
                self._subscribed.set()

    async def unwatch(self, code: str) -> None:
        if code not in self._watched:
            return
        self._watched.discard(code)
        if self._pubsub is not None:
            with contextlib.suppress(Exception):
                await self._pubsub.unsubscribe(_channel(code))

    async def set_online(self, code: str, seats: set[int]) -> None:
        key = f"gs:online:{code}"
        try:
            if seats:
                await self.redis.hset(key, self.process, orjson.dumps(sorted(seats)))
            else:
                await self.redis.hdel(key, self.process)
        except Exception as exc:
            log.warning("could not record presence in %s: %r", code, exc)

    async def others_online(self, code: str) -> set[int]:
        try:
            entries = await self.redis.hgetall(f"gs:online:{code}")
            others = {k.decode(): v for k, v in entries.items() if k.decode() != self.process}
            if not others:
                return set()
            alive = await self.redis.mget([f"gs:alive:{p}" for p in others])
        except Exception as exc:
            log.warning("could not read presence in %s: %r", code, exc)
            return set()
        seats: set[int] = set()
        for (_process, value), is_alive in zip(others.items(), alive, strict=True):
            if is_alive is not None:
                seats.update(int(s) for s in orjson.loads(value))
        return seats

    async def _renew(self) -> None:
        await self.redis.set(f"gs:alive:{self.process}", b"1", ex=ALIVE_SECONDS)

    async def _keep_alive(self) -> None:
        while True:
            await asyncio.sleep(_RENEW_EVERY)
            try:
                await self._renew()
            except Exception as exc:
                log.warning("could not renew this process's liveness in Redis: %r", exc)

    async def _listen(self) -> None:
        """Deliver other processes' events; on a lost connection, reconnect with back-off and
        ask every watched game to resync (events sent meanwhile are gone)."""
        delay = 0.1
        first = True
        while True:
            try:
                self._pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
                # A pubsub with no channel cannot be listened to: one that nobody publishes on.
                await self._pubsub.subscribe(
                    f"gs:process:{self.process}", *[_channel(c) for c in self._watched]
                )
                if not first:
                    log.warning("reconnected to Redis; resyncing %d games", len(self._watched))
                    for code in list(self._watched):
                        await self._deliver(code, {"type": "resync"})
                first, delay = False, 0.1
                async for message in self._pubsub.listen():
                    if message.get("type") != "message":
                        continue
                    channel = message["channel"].decode()
                    if not channel.startswith("gs:game:"):
                        continue
                    data = orjson.loads(message["data"])
                    if data.get("from") == self.process:
                        continue
                    await self._deliver(channel.removeprefix("gs:game:"), data["event"])
            except asyncio.CancelledError:
                with contextlib.suppress(Exception):
                    await self._pubsub.aclose()
                raise
            except Exception as exc:
                log.warning("Redis listener lost its connection (%r); retrying", exc)
                with contextlib.suppress(Exception):
                    await self._pubsub.aclose()
                self._pubsub = None
                await asyncio.sleep(delay)
                delay = min(delay * 2, 5.0)

    async def _deliver(self, code: str, event: dict[str, Any]) -> None:
        assert self._on_event is not None
        try:
            await self._on_event(code, event)
        except Exception:  # one bad game never stops the listener
            log.exception("handling %s for %s failed", event.get("type"), code)
