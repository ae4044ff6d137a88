"""The bus port: what the processes serving one site tell each other, and its one-process
default.

Each process renders views only for its own sockets, from committed state. When it commits a
change to a game it publishes an *event* (``{"type": "changed", "version": v}``, a chat message,
a presence change) on that game's channel; every other process that has sockets on the game
hears it and refreshes them from the database. No event carries a view or anything hidden: the
state stays in the database, and each process reads it there.

:class:`LocalBus` is the single-process default: there is nobody to tell. The Redis bus
(:mod:`gameshack.store.redis_bus`) is the multi-process one.
"""

from __future__ import annotations

import abc
from collections.abc import Awaitable, Callable
from typing import Any

__all__ = ["Bus", "EventHandler", "LocalBus"]

# (game code, event) -> awaitable; an event is a JSON-ready dict with a "type".
EventHandler = Callable[[str, dict[str, Any]], Awaitable[None]]


class Bus(abc.ABC):
    #: A name for this process, unique among the live ones (logs, presence, timer leases).
    process: str

    async def start(self, on_event: EventHandler) -> None:  # noqa: B027 - optional hook
        """Begin delivering other processes' events of the watched games to ``on_event``."""

    async def close(self) -> None:  # noqa: B027 - optional hook
        """Stop listening; forget this process's presence."""

    @abc.abstractmethod
    async def publish(self, code: str, event: dict[str, Any]) -> None:
        """Tell every other process watching ``code``; never raises (a lost event is repaired
        by the receivers' resync, see :meth:`start`)."""

    @abc.abstractmethod
    async def watch(self, code: str) -> None:
        """Hear ``code``'s events from now on (this process has a socket on it)."""

    @abc.abstractmethod
    async def unwatch(self, code: str) -> None: ...

    @abc.abstractmethod
    async def set_online(self, code: str, seats: set[int]) -> None:
        """The seats with a socket on this process (an empty set when none is left)."""

    @abc.abstractmethod
    async def others_online(self, code: str) -> set[int]:
        """The seats with a socket on any other live process."""


class LocalBus(Bus):
    """One process: no other process to tell or to hear."""

    def __init__(self) -> None:
        self.process = "local"

    async def publish(self, code: str, event: dict[str, Any]) -> None:
        return None

    async def watch(self, code: str) -> None:
        return None

    async def unwatch(self, code: str) -> None:
        return None

    async def set_online(self, code: str, seats: set[int]) -> None:
        return None

    async def others_online(self, code: str) -> set[int]:
        return set()
