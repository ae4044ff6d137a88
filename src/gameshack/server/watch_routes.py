"""Spectators (issue 33), the HTTP and WebSocket side; the service decides (service/watch.py).

- ``GET/POST/DELETE /api/games/{code}/watch``: the host reads, turns on, or revokes the game's
  watch link (anyone else: 403);
- ``GET /w/{token}``: the watch page (the one page; the client sees the path and watches);
- ``/ws/watch/{token}``: a spectator's socket. It is sent ``watching`` frames, the chat, and
  ``watch_closed`` when the link is revoked; it may only ping. A link that does not work
  closes it with 4404; over a cap (per game, per address) with 4429.
"""

from __future__ import annotations

import contextlib
import inspect
import time
from collections.abc import Awaitable
from typing import Any, TypeVar

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState

from gameshack.protocol import Ping, ProtocolError, error_frame, parse_client
from gameshack.protocol.outbound import PongFrame
from gameshack.server.accounts_routes import device_for_game
from gameshack.server.edge import origin_allowed
from gameshack.server.responses import OrjsonResponse, methods
from gameshack.server.wsconn import WsConn
from gameshack.service import GameService, ServiceError
from gameshack.throttle import Limited, Rate

__all__ = ["routes"]

T = TypeVar("T")


def _service(conn: Request | WebSocket) -> GameService:
    return conn.app.state.service  # type: ignore[no-any-return]


def _link(token: str | None) -> dict[str, Any]:
    return {"on": token is not None, "url": None if token is None else f"/w/{token}"}


async def _device(request: Request, code: str) -> str:
    return await device_for_game(request, _service(request), code, request.state.device)


async def _counted(conn: Request | WebSocket, find: Awaitable[T]) -> T:
    """``await find`` within the address's lookup rate, as the server's other lookups: only a
    failed one (404) counts, and past the rate every lookup is refused, found or not."""
    settings = conn.app.state.settings
    if not settings.lookups_per_minute:
        return await find
    throttle = conn.app.state.throttle
    lookups = Rate(settings.lookups_per_minute, 60)
    address = conn.client.host if conn.client else "unknown"
    try:
        await throttle.check("lookup", address, lookups)
    except Limited as exc:
        if inspect.iscoroutine(find):
            find.close()
        raise ServiceError(
            "too_many_lookups",
            f"Too many game codes or links looked up; try again in {exc.retry_after} s.",
            429,
            exc.retry_after,
        ) from None
    try:
        return await find
    except ServiceError as exc:
        if exc.status == 404:
            with contextlib.suppress(Limited):
                await throttle.hit("lookup", address, lookups)
        raise


async def watch_link(request: Request) -> Response:
    code, watch = request.path_params["code"], _service(request).watch
    link = await _counted(request, watch.link(code, await _device(request, code)))
    return OrjsonResponse(_link(link))


async def watch_on(request: Request) -> Response:
    code, watch = request.path_params["code"], _service(request).watch
    link = await _counted(request, watch.enable(code, await _device(request, code)))
    return OrjsonResponse(_link(link))


async def watch_off(request: Request) -> Response:
    code, watch = request.path_params["code"], _service(request).watch
    await _counted(request, watch.revoke(code, await _device(request, code)))
    return OrjsonResponse(_link(None))


async def watch_page(request: Request) -> Response:
    site = request.app.state.site
    return await site.page_response(request.headers)  # type: ignore[no-any-return]


CLOSE_FORBIDDEN, CLOSE_NOT_FOUND, CLOSE_TOO_MANY = 4403, 4404, 4429


async def watch_socket(ws: WebSocket) -> None:
    token: str = ws.path_params["token"]
    svc = _service(ws)
    settings = ws.app.state.settings
    await ws.accept()
    origin = ws.headers.get("origin")
    if origin is not None and not origin_allowed(origin, ws.headers.get("host", ""), settings):
        await ws.close(CLOSE_FORBIDDEN)
        return
    address = ws.client.host if ws.client else "unknown"
    try:
        # Failed links count against the address's lookups, as failed game codes do.
        room, conn = await _counted(
            ws, svc.watch.attach(token, address, lambda c, s: WsConn(ws, c, s))
        )
    except ServiceError as exc:
        close = {404: CLOSE_NOT_FOUND, 429: CLOSE_TOO_MANY}.get(exc.status, CLOSE_FORBIDDEN)
        await ws.close(close, exc.message[:120])
        return
    assert isinstance(conn, WsConn)
    rate, burst = settings.rate_per_sec, settings.rate_burst
    tokens, last = burst, time.monotonic()
    try:
        while not conn.dead:
            message = await ws.receive()
            if message["type"] == "websocket.disconnect":
                break
            now = time.monotonic()
            tokens = min(burst, tokens + (now - last) * rate)
            last = now
            if tokens < 1:
                continue  # a spectator over the rate is not answered
            tokens -= 1
            raw = message.get("text") or message.get("bytes") or b""
            try:
                msg = parse_client(raw)
            except ProtocolError as exc:
                svc.watch.send(room, conn, error_frame(exc.code, exc.message, exc.msg_id).encode())
                continue
            if isinstance(msg, Ping):
                frame = PongFrame(msg.id, int(svc.clock() * 1000)).encode()
            else:
                frame = error_frame("watching", "Spectators can only watch.", msg.id).encode()
            svc.watch.send(room, conn, frame)
    except WebSocketDisconnect:
        pass
    finally:
        await svc.watch.detach(room, conn)
        await conn.finish()
        if ws.application_state != WebSocketState.DISCONNECTED:
            with contextlib.suppress(Exception):
                await ws.close()


routes = [
    methods("/api/games/{code}/watch", get=watch_link, post=watch_on, delete=watch_off),
    Route("/w/{token}", watch_page, methods=["GET"]),
    WebSocketRoute("/ws/watch/{token}", watch_socket),
]
