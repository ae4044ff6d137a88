"""The HTTP edge: what every request passes before the app sees it (issue 28, points 3, 4, 8).

:class:`Edge` is a pure ASGI middleware, the outermost of the app's own (uvicorn's proxy-headers
middleware, when on, runs before it, so ``scope["client"]`` is the real client):

- **Origin**: a state-changing request (POST, PUT, PATCH, DELETE — every route, the accounts
  routes included) from another site is refused ``403 cross_site`` before any work is done.
  See :func:`cross_site` for the rule.
- **Request bodies**: at most ``max_body_bytes``. A ``Content-Length`` over it is refused ``413``
  without reading a byte; a chunked body is counted as it arrives and refused ``413`` the moment
  it passes the limit; a body not fully sent within ``body_timeout`` seconds gets ``408``. Each
  refusal closes the connection (``connection: close``), so the rest of a huge upload is never
  read. The body is read here, whole, before the app runs — it is at most ``max_body_bytes``,
  which the app would hold anyway to parse it — and handed on unchanged.
- **Requests per address in flight**: at most ``connections_per_address`` requests of one client
  address being answered at once (``429``). Without a proxy the TCP cap of
  :mod:`gameshack.server.protocol_http` binds first; behind one it is the per-client limit.
- **Game sockets**: a WebSocket on ``/ws/{code}`` goes straight to ``game_socket`` (given by
  the app), past Starlette's routing and exception middleware: those layers' frames, exit stacks
  and handlers would live as long as the socket does (~6 KB each), and a socket needs none of
  them. Every other WebSocket path goes through the app.
- **Start-up errors**: a lifespan failure that the app turned into one sentence
  (``app.state.startup_error``) is reported as that sentence, not as a traceback.
"""

from __future__ import annotations

import asyncio
from typing import Any
from urllib.parse import urlsplit

import orjson

from gameshack.service import Settings

__all__ = ["UNSAFE_METHODS", "Edge", "cross_site", "origin_allowed"]

UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
# Sec-Fetch-Site values of a request this site's own pages (or the user, typing a URL) made.
OWN_FETCH_SITES = frozenset({"same-origin", "none"})

Scope = dict[str, Any]
Message = dict[str, Any]


def origin_allowed(origin: str, host: str, settings: Settings) -> bool:
    """Whether a browser's ``Origin`` is this site: one of ``GAMESHACK_ALLOWED_ORIGINS`` when
    set, else the host the request was sent to (``Host``)."""
    origin = origin.strip().rstrip("/")
    if settings.allowed_origins:
        return origin in settings.allowed_origins
    if origin == "null":  # sandboxed frames, some redirects: never this site's own page
        return False
    return bool(host) and urlsplit(origin).netloc.lower() == host.strip().lower()


def cross_site(headers: dict[str, str], settings: Settings) -> bool:
    """Whether a state-changing request comes from another site's page.

    ``Origin`` decides when present (browsers send it on every POST). Without it,
    ``Sec-Fetch-Site`` decides: only ``same-origin`` and ``none`` (the user's own navigation) are
    this site — ``same-site`` is refused too, since a sibling subdomain is another site here.
    With neither header the request is not from a browser page (a script, ``curl``): a page
    cannot make a browser drop both, so it cannot be forged this way, and it is allowed — the
    same rule as the WebSocket's.
    """
    origin = headers.get("origin")
    if origin is not None:
        return not origin_allowed(origin, headers.get("host", ""), settings)
    fetch_site = headers.get("sec-fetch-site")
    if fetch_site is not None:
        return fetch_site.strip().lower() not in OWN_FETCH_SITES
    return False


def _headers(scope: Scope) -> dict[str, str]:
    return {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}


async def _reply(
    send: Any, status: int, code: str, message: str, *, close: bool = False, retry_after: int = 0
) -> None:
    body = orjson.dumps({"error": {"code": code, "message": message}})
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"cache-control", b"no-store"),
    ]
    if close:
        headers.append((b"connection", b"close"))
    if retry_after:
        headers.append((b"retry-after", str(retry_after).encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body, "more_body": False})


class _Refused(Exception):
    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


class Edge:
    def __init__(self, app: Any, settings: Settings, game_socket: Any = None) -> None:
        self.app = app
        self.settings = settings
        self.game_socket = game_socket
        self.in_flight: dict[str, int] = {}

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await self.app(scope, receive, self._lifespan_send(scope, send))
            return
        if scope["type"] != "http":
            code = scope["path"][4:] if scope["path"].startswith("/ws/") else ""
            if self.game_socket is not None and code and "/" not in code:
                await self.game_socket(scope, receive, send, code)
            else:
                await self.app(scope, receive, send)
            return
        settings = self.settings
        headers = _headers(scope)
        if scope["method"] in UNSAFE_METHODS and cross_site(headers, settings):
            await _reply(send, 403, "cross_site", "Requests from other sites are not accepted.")
            return
        client = scope.get("client")
        address = str(client[0]) if client else "unknown"
        cap = settings.connections_per_address
        if cap and self.in_flight.get(address, 0) >= cap:
            await _reply(
                send,
                429,
                "too_many_connections",
                "Too many requests from your address at once.",
                retry_after=1,
            )
            return
        self.in_flight[address] = self.in_flight.get(address, 0) + 1
        try:
            if "content-length" in headers or "transfer-encoding" in headers:
                try:
                    receive = await self._read_body(headers, receive)
                except _Refused as exc:
                    await _reply(send, exc.status, exc.code, exc.message, close=True)
                    return
                if receive is None:  # the client left while sending
                    return
            await self.app(scope, receive, send)
        finally:
            left = self.in_flight[address] - 1
            if left:
                self.in_flight[address] = left
            else:
                del self.in_flight[address]

    async def _read_body(self, headers: dict[str, str], receive: Any) -> Any:
        """Read the whole body within the limits; a ``receive`` replaying it (None if the client
        disconnected), or raise :class:`_Refused`."""
        limit = self.settings.max_body_bytes
        too_large = _Refused(413, "too_large", f"The request body is larger than {limit:,} bytes.")
        declared = headers.get("content-length", "").strip()
        if declared:
            if not declared.isdigit():
                raise _Refused(400, "bad_request", "Content-Length is not a number.")
            if limit and int(declared) > limit:
                raise too_large
        chunks: list[bytes] = []
        size = 0
        timeout = self.settings.body_timeout or None
        try:
            async with asyncio.timeout(timeout):
                while True:
                    message = await receive()
                    if message["type"] == "http.disconnect":
                        return None
                    chunk = message.get("body", b"")
                    size += len(chunk)
                    if limit and size > limit:
                        raise too_large
                    if chunk:
                        chunks.append(chunk)
                    if not message.get("more_body", False):
                        break
        except TimeoutError:
            raise _Refused(
                408, "timeout", f"The request body took longer than {timeout:g} s to arrive."
            ) from None
        body = b"".join(chunks)
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()  # type: ignore[no-any-return]

        return replay

    @staticmethod
    def _lifespan_send(scope: Scope, send: Any) -> Any:
        async def lifespan_send(message: Message) -> None:
            if message["type"] == "lifespan.startup.failed":
                app = scope.get("app")
                sentence = getattr(getattr(app, "state", None), "startup_error", None)
                if sentence:
                    message = {**message, "message": sentence}
            await send(message)

        return lifespan_send
