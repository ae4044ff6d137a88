"""Sliding-window rate limits, kept in memory.

Each limit is "at most ``limit`` events per ``window`` seconds for one key" (an address or an IP).
The counts live in this process: a restart forgets them, and several processes would each keep
their own — both only loosen the limit by a small factor, which the code's length already covers
(see docs/decisions.md). Keys are dropped once their window is empty, so memory stays bounded by
the traffic of the last window.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["Limit", "RateLimiter"]


@dataclass(frozen=True, slots=True)
class Limit:
    limit: int
    window: float  # seconds


class RateLimiter:
    def __init__(self, clock: Callable[[], float]) -> None:
        self._clock = clock
        self._events: dict[tuple[str, str], deque[float]] = {}

    def _recent(self, bucket: str, key: str, window: float) -> deque[float]:
        now = self._clock()
        events = self._events.get((bucket, key))
        if events is None:
            events = deque()
            self._events[(bucket, key)] = events
        while events and events[0] <= now - window:
            events.popleft()
        return events

    def retry_after(self, bucket: str, key: str, limit: Limit) -> float:
        """Seconds until one more event is allowed (0 when it is allowed now)."""
        events = self._recent(bucket, key, limit.window)
        if len(events) < limit.limit:
            if not events:
                self._events.pop((bucket, key), None)
            return 0.0
        return max(0.0, events[len(events) - limit.limit] + limit.window - self._clock())

    def hit(self, bucket: str, key: str, limit: Limit) -> None:
        self._recent(bucket, key, limit.window).append(self._clock())
        if len(self._events) > 10_000:
            self._sweep(limit.window)

    def _sweep(self, window: float) -> None:
        now = self._clock()
        for k in [k for k, ev in self._events.items() if not ev or ev[-1] <= now - window]:
            del self._events[k]
