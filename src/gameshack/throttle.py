"""Rate limits for every layer that needs one, on the ``limits`` library.

A :class:`Rate` is "at most ``amount`` events per ``per`` seconds for one key" (a device, an
address, an IP, a game). :class:`Throttle` counts them in a moving window. The counts live in
``limits``' storage: in this process by default (``memory://``); a deployment of several
processes points every process at one Redis (``redis://…``) so they share the counts.

Used by the lobby (games created, codes looked up), the sign-in (codes requested, codes tried,
mails sent) and the server edge (connections and sockets per address).

In one process (``memory://``) ``limits`` is imported on the first count, not at start-up: it
imports every storage backend it has (~30 ms, 6% of a cold start) and a page load counts nothing.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from limits import RateLimitItemPerSecond
    from limits.aio.strategies import MovingWindowRateLimiter

__all__ = ["Limited", "Rate", "Throttle"]


@dataclass(frozen=True, slots=True)
class Rate:
    amount: int
    per: int  # seconds

    def __str__(self) -> str:
        return f"{self.amount} per {self.per} s"


class Limited(Exception):
    """Over a limit: ``retry_after`` whole seconds until one more event is allowed."""

    def __init__(self, bucket: str, retry_after: int) -> None:
        super().__init__(f"{bucket}: retry after {retry_after} s")
        self.bucket = bucket
        self.retry_after = retry_after


class Throttle:
    def __init__(self, storage_uri: str = "memory://") -> None:
        self._uri = storage_uri
        self._made: MovingWindowRateLimiter | None = None
        if storage_uri != "memory://":
            self._make()  # a shared storage's URL is checked at start-up

    def _make(self) -> MovingWindowRateLimiter:
        from limits.aio.storage import MemoryStorage, Storage
        from limits.aio.strategies import MovingWindowRateLimiter
        from limits.storage import storage_from_string

        storage: Storage = (
            MemoryStorage()
            if self._uri == "memory://"
            # redis-py (already a dependency), not limits' default async client (coredis)
            else storage_from_string(
                self._uri.replace("redis://", "async+redis://", 1), implementation="redispy"
            )
        )
        self._made = MovingWindowRateLimiter(storage)
        return self._made

    @property
    def _limiter(self) -> MovingWindowRateLimiter:
        return self._make() if self._made is None else self._made

    @staticmethod
    def _item(rate: Rate) -> RateLimitItemPerSecond:
        from limits import RateLimitItemPerSecond

        return RateLimitItemPerSecond(rate.amount, rate.per, namespace="gameshack")

    async def hit(self, bucket: str, key: str, rate: Rate, cost: int = 1) -> None:
        """Count one event; raise :class:`Limited` (counting nothing) when over the rate."""
        item = self._item(rate)
        if not await self._limiter.hit(item, bucket, key, cost=cost):
            raise Limited(bucket, await self.retry_after(bucket, key, rate))

    async def check(self, bucket: str, key: str, rate: Rate, cost: int = 1) -> None:
        """Raise :class:`Limited` if ``cost`` more events would be over the rate; count none."""
        if not await self._limiter.test(self._item(rate), bucket, key, cost=cost):
            raise Limited(bucket, await self.retry_after(bucket, key, rate))

    async def retry_after(self, bucket: str, key: str, rate: Rate) -> int:
        stats = await self._limiter.get_window_stats(self._item(rate), bucket, key)
        if stats.remaining > 0:
            return 0
        return max(1, int(stats.reset_time - time.time()) + 1)

    async def clear(self, bucket: str, key: str, rate: Rate) -> None:
        await self._limiter.clear(self._item(rate), bucket, key)
