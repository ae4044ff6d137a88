"""uvicorn's HTTP protocol with the two edge limits it lacks (issue 28, point 3).

uvicorn has a keep-alive timeout but none on a request's *headers*: a client sending one header
byte every few seconds holds a connection (and a file descriptor) forever, and 1,007 such
"slowloris" connections locked everyone out at the usual 1,024 file limit. Nor does it cap the
connections one address may hold. :func:`edge_http_protocol` returns uvicorn's own protocol class
(httptools, which ``uvicorn[standard]`` picks) with:

- **a header deadline**: a connection that has not completed a request's headers within
  ``header_timeout`` seconds of starting to wait for them (the connection opening, or the
  previous response finishing on a kept-alive connection) is answered ``408`` and closed. Data
  trickling in does not reset it (it does reset uvicorn's keep-alive timer).
- **connections per address**: at most ``per_address`` open connections from one peer address;
  one more is answered ``429`` and closed at once. A connection upgraded to a WebSocket keeps
  counting until it closes.

Both work on the TCP peer. Behind a reverse proxy (``--proxy-headers``) the peer is the proxy:
its connections are exempt from the per-address cap (it carries everyone), the header deadline
still applies, and the per-client limits move to the ASGI level (:mod:`gameshack.server.edge`
and the WebSocket cap in ``app.py``) where the client address is the forwarded one. The proxy
itself should then cap connections per client (nginx ``limit_conn``) and time out slow headers
(nginx ``client_header_timeout``), since it absorbs them before we see a byte.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

__all__ = ["ConnectionLimits", "edge_http_protocol"]


def _response(status: str, code: str, message: str, extra: str = "") -> bytes:
    body = f'{{"error":{{"code":"{code}","message":"{message}"}}}}'.encode()
    head = (
        f"HTTP/1.1 {status}\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\n{extra}connection: close\r\n\r\n"
    )
    return head.encode("ascii") + body


TIMED_OUT = _response("408 Request Timeout", "timeout", "The request headers took too long.")
TOO_MANY = _response(
    "429 Too Many Requests",
    "too_many_connections",
    "Too many open connections from your address.",
    "retry-after: 5\r\n",
)


class ConnectionLimits:
    """The open-connection counts and the limits every connection of one server shares."""

    def __init__(
        self,
        per_address: int,
        header_timeout: float,
        exempt: Callable[[str], bool] = lambda _address: False,
    ) -> None:
        self.per_address = per_address  # 0: no cap
        self.header_timeout = header_timeout  # 0: no deadline
        self.exempt = exempt
        self.open: dict[str, int] = {}
        self.refused = 0  # connections refused over the cap (figures for the log and tests)
        self.timed_out = 0  # connections closed at the header deadline

    def acquire(self, address: str) -> bool:
        """Count one more connection from ``address``; False (counting nothing) over the cap."""
        over = self.per_address and self.open.get(address, 0) >= self.per_address
        if over and not self.exempt(address):
            self.refused += 1
            return False
        self.open[address] = self.open.get(address, 0) + 1
        return True

    def release(self, address: str) -> None:
        left = self.open.get(address, 0) - 1
        if left > 0:
            self.open[address] = left
        else:
            self.open.pop(address, None)


def _peer(transport: asyncio.BaseTransport) -> str:
    peer = transport.get_extra_info("peername")
    if isinstance(peer, tuple | list) and peer:
        return str(peer[0])
    return "local"  # a Unix socket: one local peer


def edge_http_protocol(limits: ConnectionLimits) -> type[asyncio.Protocol]:
    """uvicorn's httptools protocol bound to ``limits``: pass it as ``uvicorn.Config(http=...)``."""

    class EdgeHttpToolsProtocol(HttpToolsProtocol):
        edge = limits

        _address: str | None = None  # set while this connection is counted
        _header_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            address = _peer(transport)
            if not self.edge.acquire(address):
                transport.write(TOO_MANY)
                transport.close()
                return
            self._address = address
            self._arm_header_deadline()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm_header_deadline()
            self._release()
            super().connection_lost(exc)

        def _release(self) -> None:
            if self._address is not None:
                self.edge.release(self._address)
                self._address = None

        # -------------------------------------------------------------- the header deadline

        def _arm_header_deadline(self) -> None:
            self._disarm_header_deadline()
            if self.edge.header_timeout > 0:
                self._header_timer = self.loop.call_later(
                    self.edge.header_timeout, self._header_deadline
                )

        def _disarm_header_deadline(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None

        def _header_deadline(self) -> None:
            self._header_timer = None
            if self.transport.is_closing():
                return
            self.edge.timed_out += 1
            if self.cycle is None or self.cycle.response_complete:
                self.transport.write(TIMED_OUT)
            self.transport.close()

        def on_headers_complete(self) -> None:
            self._disarm_header_deadline()
            super().on_headers_complete()

        def on_response_complete(self) -> None:
            pipelined = bool(self.pipeline)
            super().on_response_complete()
            # Waiting for the next request's headers now (a pipelined one already has them).
            if not pipelined and not self.transport.is_closing():
                self._arm_header_deadline()

        # -------------------------------------------------------------- WebSocket upgrade

        def handle_websocket_upgrade(self) -> None:
            address, self._address = self._address, None
            super().handle_websocket_upgrade()
            if address is None:
                return
            # The transport now belongs to the WebSocket protocol, and it is the one told
            # when the connection closes: the count goes with it.
            ws: Any = self.transport.get_protocol()
            lost = ws.connection_lost
            edge = self.edge

            def connection_lost(exc: Exception | None) -> None:
                try:
                    lost(exc)
                finally:
                    edge.release(address)

            ws.connection_lost = connection_lost

    return EdgeHttpToolsProtocol
