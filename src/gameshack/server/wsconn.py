"""A game or spectator socket as the service sees it: :class:`WsConn`."""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque

from starlette.websockets import WebSocket

from gameshack.service import Conn

__all__ = ["OUTBOX_LIMIT", "WsConn"]

OUTBOX_LIMIT = 5000  # frames queued for one socket before we give up on it


class WsConn(Conn):
    """A socket seen from the service: frames wait in ``out`` and one sender task, started when
    there is something to send and gone when it is sent, writes them in order. An idle socket
    holds no task and no queue (a resident sender and an ``asyncio.Queue`` were ~4 KB each)."""

    def __init__(self, ws: WebSocket, code: str, seat: int) -> None:
        self.ws = ws
        self.code = code
        self.seat = seat
        self.out: deque[str | None] = deque()
        self.sender: asyncio.Task[None] | None = None
        self.dead = False

    def send(self, text: str) -> None:
        if self.dead:
            return
        if len(self.out) >= OUTBOX_LIMIT:
            # A client this far behind resyncs on reconnect; don't let it eat memory.
            self.close(1013)
            return
        self._put(text)

    def close(self, code: int = 1000) -> None:
        self.dead = True
        self._put(None)

    def _put(self, text: str | None) -> None:
        self.out.append(text)
        if self.sender is None:
            self.sender = asyncio.get_running_loop().create_task(self._drain())

    async def _drain(self) -> None:
        out = self.out
        try:
            while out:
                text = out.popleft()
                if text is None:
                    out.clear()
                    with contextlib.suppress(Exception):
                        await self.ws.close(1013)
                    return
                await self.ws.send_text(text)
        except Exception:
            self.dead = True
            out.clear()
        finally:
            self.sender = None

    async def finish(self) -> None:
        """The socket has ended: stop sending, after what is queued if it goes within 2 s."""
        self.dead = True
        sender = self.sender
        if sender is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(sender), 2)
            sender.cancel()
