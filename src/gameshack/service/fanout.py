"""The fan-out port and its in-process default.

A :class:`Conn` is one open socket seen from the service: it knows its game and seat and can be
handed a text frame without waiting (the server queues it). The fan-out knows which connections
watch which game. A multi-process deployment would implement :class:`FanOut` over Redis pub/sub
(each process delivering to its own sockets); the service only calls these methods.
"""

from __future__ import annotations

import abc
from collections.abc import Iterable

__all__ = ["Conn", "FanOut", "LocalFanOut"]


class Conn(abc.ABC):
    code: str
    seat: int

    @abc.abstractmethod
    def send(self, text: str) -> None:
        """Queue one frame for this socket; never blocks, never raises."""

    def close(self, code: int = 1000) -> None:  # noqa: B027 - optional
        """Ask the socket to close (used when a client cannot keep up)."""


class FanOut(abc.ABC):
    @abc.abstractmethod
    def add(self, conn: Conn) -> None: ...

    @abc.abstractmethod
    def remove(self, conn: Conn) -> None: ...

    @abc.abstractmethod
    def conns(self, code: str) -> Iterable[Conn]: ...

    def online(self, code: str) -> set[int]:
        return {c.seat for c in self.conns(code)}


class LocalFanOut(FanOut):
    def __init__(self) -> None:
        self._by_game: dict[str, set[Conn]] = {}

    def add(self, conn: Conn) -> None:
        self._by_game.setdefault(conn.code, set()).add(conn)

    def remove(self, conn: Conn) -> None:
        conns = self._by_game.get(conn.code)
        if conns is not None:
            conns.discard(conn)
            if not conns:
                del self._by_game[conn.code]

    def conns(self, code: str) -> Iterable[Conn]:
        return tuple(self._by_game.get(code, ()))

    def count(self) -> int:
        """Open sockets, all games together (for /metrics)."""
        return sum(len(conns) for conns in self._by_game.values())
