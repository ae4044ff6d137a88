"""The Starlette application: pages, the lobby API and the game WebSocket. Thin: the service
decides.

``gameshack serve`` builds it with :func:`create_app` and runs it on uvicorn with the edge's HTTP
protocol (:mod:`gameshack.server.protocol_http`); ``uvicorn --factory
gameshack.server.app:create_app`` works too, without the connection limits of that protocol.
Every request first passes :class:`gameshack.server.edge.Edge` (origin, body size and time).
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import secrets
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.base import BaseHTTPMiddleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route
from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState

from gameshack import metrics
from gameshack.protocol import ProtocolError, error_frame, parse_client
from gameshack.server import accounts_routes, collector, replay_routes, watch_routes
from gameshack.server.accounts_routes import account_games, device_for_game
from gameshack.server.edge import Edge, origin_allowed
from gameshack.server.responses import BadRequest, OrjsonResponse, body_of, methods
from gameshack.server.static import StaticSite
from gameshack.server.wsconn import WsConn
from gameshack.service import GameService, ServiceError, Settings, Store, device_hash
from gameshack.service.fanout import LocalFanOut
from gameshack.store import SqlStore, StoreUnavailable
from gameshack.throttle import Limited, Rate, Throttle

__all__ = ["COOKIE", "create_app"]

log = logging.getLogger("gameshack.server")

COOKIE = "gs_device"
WEB_DIR = Path(__file__).resolve().parent.parent / "web"
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'self'; "
    "form-action 'self'; frame-ancestors 'none'"
)
HEALTH_TIMEOUT = 2.0  # seconds /healthz waits for the store before calling it unhealthy
# The client's files, root ones included (server/static.py): no device cookie is set on them.
NO_COOKIE = ("/static/", "/sw.js", "/manifest.webmanifest")
HTTP_ERRORS = {404: ("not_found", "Not found."), 405: ("method_not_allowed", "Not allowed.")}
# WebSocket close codes (a browser sees close codes, not HTTP statuses): docs/protocol.md.
CLOSE_FORBIDDEN = 4403
CLOSE_NOT_FOUND = 4404
CLOSE_TOO_MANY = 4429


class CreateBody(BaseModel):
    model_config = ConfigDict(extra="ignore")
    game: Literal["rummy", "tiles"]
    seats: int = Field(default=2, ge=2, le=4)
    target: int | None = None
    practice: bool = False
    difficulty: Literal["easy", "medium", "hard"] | None = None
    name: str = Field(min_length=1, max_length=64)
    emoji: str = Field(default="🙂", max_length=32)
    seed: int | None = Field(default=None, ge=0, lt=2**62)
    turn_seconds: int | None = None  # the turn timer: None (off), 30, 60 or 120


class JoinBody(BaseModel):
    model_config = ConfigDict(extra="ignore")
    name: str = Field(min_length=1, max_length=64)
    emoji: str = Field(default="🙂", max_length=32)


def _error(code: str, message: str, status: int, retry_after: int = 0) -> OrjsonResponse:
    metrics.ERRORS.labels(code).inc()
    headers = {"Retry-After": str(retry_after)} if retry_after > 0 else None
    return OrjsonResponse(
        {"error": {"code": code, "message": message}}, status_code=status, headers=headers
    )


def _origin_ok(ws: WebSocket, settings: Settings) -> bool:
    origin = ws.headers.get("origin")
    if origin is None:
        # Browsers always send Origin on a WebSocket; a client without one is not a browser
        # page that could be abused for cross-site hijacking.
        return True
    return origin_allowed(origin, ws.headers.get("host", ""), settings)


def _address(conn: Request | WebSocket) -> str:
    """The client's address: the TCP peer, or the forwarded client with ``--proxy-headers``."""
    return conn.client.host if conn.client else "unknown"


class StartupError(Exception):
    """Start-up cannot go on; the message is one sentence for the operator."""


def _startup_sentence(exc: BaseException) -> str | None:
    """One sentence for an operator's mistake at start-up (None: a bug, keep the traceback)."""
    if isinstance(exc, StartupError | StoreUnavailable):
        return str(exc)
    if isinstance(exc, OSError):
        return f"cannot start: {exc.strerror or exc} ({exc.filename or 'no file'})."
    return None


def create_app(
    settings: Settings | None = None,
    store: Store | None = None,
    *,
    freeze_gc: bool = True,
) -> Starlette:
    settings = settings or Settings.from_env()
    # Rate-limit counts: in this process, or in Redis when several processes share the site.
    throttle = Throttle(settings.redis_url or "memory://")
    lookups = Rate(settings.lookups_per_minute, 60)
    sockets_open: dict[str, int] = {}  # open game sockets per client address
    create_takes_address = "address" in inspect.signature(GameService.create_game).parameters

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        the_store: Store | None = None
        try:
            the_store = store or SqlStore(settings.database_url)
            await the_store.start()
            # One throttle for the edge and the service (games created per device/address).
            # Several processes: commits, chat and presence travel between them over Redis.
            bus = None
            if settings.redis_url:
                from gameshack.store.redis_bus import RedisBus  # only then: redis is slow to import

                bus = RedisBus(settings.redis_url)
            service = GameService(the_store, settings, throttle=throttle, bus=bus)
            await service.start()
        except Exception as exc:
            sentence = _startup_sentence(exc)
            if sentence is None:
                raise
            # Reported as this one sentence (server/edge.py, cli.py), not as a traceback.
            app.state.startup_error = sentence
            if the_store is not None:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(the_store.close(), max(settings.shutdown_timeout, 1.0))
            raise StartupError(sentence) from None
        app.state.service = service
        fanout = service.fanout
        metrics.sample(
            lambda: len(service.rooms),
            lambda: fanout.count() if isinstance(fanout, LocalFanOut) else float("nan"),
        )
        if freeze_gc:
            # Once start-up settles: freeze what it made, tune and time the collector.
            asyncio.get_running_loop().call_later(collector.SETTLE_SECONDS, collector.settle)
        try:
            yield
        finally:
            # SIGTERM stops the process within a bounded time even if the database hangs:
            # uvicorn gives connections ``shutdown_timeout``, and closing gets as long again.
            limit = max(settings.shutdown_timeout, 1.0)
            assert the_store is not None
            for what, closing in (("games", service.close), ("database", the_store.close)):
                try:
                    await asyncio.wait_for(closing(), limit)
                except TimeoutError:
                    log.error("closing the %s took over %s s; stopping anyway", what, limit)
                except Exception:
                    log.exception("closing the %s failed; stopping anyway", what)

    def service_of(request: Request | WebSocket) -> GameService:
        return request.app.state.service  # type: ignore[no-any-return]

    async def lookup(address: str, find: Any) -> Any:
        """``await find()`` for a game named by its code, within the address's lookup rate.

        Only failed lookups (no such game) count: a code prober fails almost every time, a
        player almost never. Once over the rate every lookup from the address is refused, found
        or not, so the answer reveals nothing about the code."""
        if not settings.lookups_per_minute:
            return await find()
        try:
            await throttle.check("lookup", address, lookups)
        except Limited as exc:
            raise ServiceError(
                "too_many_lookups",
                f"Too many game codes looked up; try again in {exc.retry_after} s.",
                429,
                exc.retry_after,
            ) from None
        try:
            return await find()
        except ServiceError as exc:
            if exc.status == 404:
                with contextlib.suppress(Limited):
                    await throttle.hit("lookup", address, lookups)
            raise

    async def device_and_headers(request: Request, call_next: Any) -> Response:
        token = request.cookies.get(COOKIE)
        fresh = None
        if not token or len(token) > 100:
            token = fresh = secrets.token_urlsafe(32)
        request.state.device = device_hash(token)
        response: Response = await call_next(request)
        # Not on the client's files: a shared cache keeping one for a year would hand the
        # cookie (a device's seats) to everyone behind it.
        if fresh is not None and not request.url.path.startswith(NO_COOKIE):
            response.set_cookie(
                COOKIE,
                fresh,
                max_age=10 * 365 * 24 * 3600,
                httponly=True,
                samesite="lax",
                # Over HTTPS (uvicorn sets the scheme from X-Forwarded-Proto with proxy headers).
                secure=settings.secure_cookies or request.url.scheme == "https",
                path="/",
            )
        response.headers["Content-Security-Policy"] = CSP
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "same-origin"
        return response

    async def service_error(_request: Request, exc: Exception) -> Response:
        assert isinstance(exc, ServiceError)
        return _error(exc.code, exc.message, exc.status, exc.retry_after)

    async def validation_error(_request: Request, exc: Exception) -> Response:
        return _error("bad_request", "That request is not valid.", 422)

    async def bad_request(_request: Request, exc: Exception) -> Response:
        return _error("bad_request", str(exc), 422)

    async def http_error(_request: Request, exc: Exception) -> Response:
        # Starlette's own refusals (no route: 404; not that method: 405, with ``Allow``) in the
        # JSON every other error has.
        assert isinstance(exc, HTTPException)
        code, message = HTTP_ERRORS.get(exc.status_code, ("bad_request", str(exc.detail)))
        answer = _error(code, message, exc.status_code)
        answer.headers.update(exc.headers or {})
        return answer

    # ------------------------------------------------------------------ API

    async def me(request: Request) -> Response:
        svc = service_of(request)
        games = await account_games(request, svc, await svc.my_games(request.state.device))
        return OrjsonResponse({"device": request.state.device[:8], "games": games})

    async def my_games(request: Request) -> Response:
        svc = service_of(request)
        games = await account_games(request, svc, await svc.my_games(request.state.device))
        return OrjsonResponse({"games": games})

    async def create(request: Request) -> Response:
        body = await body_of(request, CreateBody)
        # The service limits games created per device and per address (issue 28).
        where = {"address": _address(request)} if create_takes_address else {}
        row = await service_of(request).create_game(
            request.state.device,
            game=body.game,
            seats=body.seats,
            target=body.target,
            practice=body.practice,
            difficulty=body.difficulty,
            name=body.name,
            emoji=body.emoji,
            seed=body.seed,
            turn_seconds=body.turn_seconds,
            **where,
        )
        made = {"code": row.code, "game": row.kind, "seat": 0, "status": row.status}
        return OrjsonResponse({**made, "url": f"/g/{row.code}"}, status_code=201)

    async def look(request: Request) -> Response:
        code, svc = request.path_params["code"], service_of(request)
        room = await lookup(_address(request), lambda: svc.room(code))
        device = await device_for_game(request, svc, code, request.state.device)
        return OrjsonResponse(svc.summary(room, device))

    async def join(request: Request) -> Response:
        code, svc = request.path_params["code"], service_of(request)
        body = await body_of(request, JoinBody)
        row, seat = await lookup(
            _address(request),
            lambda: svc.join_game(code, request.state.device, body.name, body.emoji),
        )
        joined = {"code": row.code, "game": row.kind, "seat": seat, "status": row.status}
        return OrjsonResponse({**joined, "url": f"/g/{row.code}"})

    async def leave(request: Request) -> Response:
        code, svc = request.path_params["code"], service_of(request)
        await svc.leave(code, await device_for_game(request, svc, code, request.state.device))
        return OrjsonResponse({"ok": True})

    async def prometheus(_request: Request) -> Response:
        """This process's figures in the Prometheus text format (gameshack/metrics.py)."""
        return Response(metrics.exposition(), media_type=metrics.CONTENT_TYPE_LATEST)

    async def health(request: Request) -> Response:
        """200 ``{"ok": true}`` while the database takes writes; else 503 with the reason."""
        try:
            reason = await asyncio.wait_for(service_of(request).store.health(), HEALTH_TIMEOUT)
        except TimeoutError:
            reason = f"The database did not answer within {HEALTH_TIMEOUT:g} s."
        headers = {"Cache-Control": "no-store"}
        if reason:
            return OrjsonResponse({"ok": False, "reason": reason}, 503, headers=headers)
        return OrjsonResponse({"ok": True}, headers=headers)

    # ------------------------------------------------------------------ WebSocket

    async def raw_game_socket(scope: dict[str, Any], receive: Any, send: Any, code: str) -> None:
        """``/ws/{code}``, called by the :class:`Edge` directly (see there)."""
        scope["app"] = app  # as Starlette's router would: ``service_of`` reads the app's state
        await game_socket(WebSocket(scope, receive, send), code)

    async def game_socket(ws: WebSocket, code: str) -> None:
        svc = service_of(ws)
        # Accept first, then close with a 44xx code: a browser sees close codes, not HTTP statuses.
        await ws.accept()
        token = ws.cookies.get(COOKIE)
        if not _origin_ok(ws, settings) or not token:
            await ws.close(CLOSE_FORBIDDEN)
            return
        address = _address(ws)
        cap = settings.sockets_per_address
        if cap and sockets_open.get(address, 0) >= cap:
            await ws.close(CLOSE_TOO_MANY, "too many connections")
            return
        sockets_open[address] = sockets_open.get(address, 0) + 1
        try:
            await _game_socket(ws, svc, code, token, address)
        finally:
            left = sockets_open[address] - 1
            if left:
                sockets_open[address] = left
            else:
                del sockets_open[address]

    async def _game_socket(
        ws: WebSocket, svc: GameService, code: str, token: str, address: str
    ) -> None:
        try:
            device = await device_for_game(ws, svc, code, device_hash(token))
            room, conn = await lookup(
                address, lambda: svc.connect(code, device, lambda c, s: WsConn(ws, c, s))
            )
        except ServiceError as exc:
            if exc.status == 404:
                await ws.close(CLOSE_NOT_FOUND)
            elif exc.status == 429:  # too many sockets for the seat, too many lookups
                await ws.close(CLOSE_TOO_MANY, exc.message[:120])
            else:
                await ws.close(CLOSE_FORBIDDEN)
            return
        assert isinstance(conn, WsConn)
        rate, burst = settings.rate_per_sec, settings.rate_burst
        tokens, last = burst, time.monotonic()
        warned = 0.0
        try:
            while not conn.dead:
                message = await ws.receive()
                if message["type"] == "websocket.disconnect":
                    break
                raw = message.get("text")
                if raw is None:
                    raw = message.get("bytes") or b""
                now = time.monotonic()
                tokens = min(burst, tokens + (now - last) * rate)
                last = now
                if tokens < 1:
                    if now - warned > 1.0:  # one warning a second, not one per dropped frame
                        warned = now
                        conn.send(
                            error_frame("rate_limited", "Too many messages; slow down.").encode()
                        )
                    continue
                tokens -= 1
                try:
                    msg = parse_client(raw)
                except ProtocolError as exc:
                    frame = error_frame(exc.code, exc.message, exc.msg_id)
                    svc.frames.send(room, conn, frame.encode())
                    continue
                await svc.handle(room, conn, msg)
        except WebSocketDisconnect:
            pass
        except Exception:
            log.exception("socket for %s failed", code)
        finally:
            await svc.disconnect(room, conn)
            await conn.finish()
            if ws.application_state != WebSocketState.DISCONNECTED:
                with contextlib.suppress(Exception):
                    await ws.close()

    # ------------------------------------------------------------------ pages

    # The client's files from memory, compressed and versioned (server/static.py).
    site = StaticSite(WEB_DIR)

    async def index(request: Request) -> Response:
        return await site.page_response(request.headers)

    async def static(request: Request) -> Response:
        found = await site.file_response(request.path_params["path"], request.headers)
        return found if found is not None else _error("not_found", "Not found.", 404)

    async def service_worker(request: Request) -> Response:
        return await site.worker_response(request.headers)

    async def web_manifest(request: Request) -> Response:
        return await site.manifest_response(request.headers)

    async def client_route(request: Request) -> Response:
        # Client-side routes (/rummy, /tiles, /rules, /settings, /stats, …) are the one page.
        page = request.path_params["page"]
        if "." in page or page in ("api", "ws", "static"):
            return _error("not_found", "Not found.", 404)
        return await index(request)

    # A GET route answers HEAD too (Starlette adds it).
    routes: list[BaseRoute] = [
        Route("/api/me", me, methods=["GET"]),
        methods("/api/games", get=my_games, post=create),
        Route("/api/my-games", my_games, methods=["GET"]),
        Route("/api/games/{code}", look, methods=["GET"]),
        Route("/api/games/{code}/join", join, methods=["POST"]),
        Route("/api/games/{code}/leave", leave, methods=["POST"]),
        Route("/metrics", prometheus, methods=["GET"]),
        Route("/healthz", health, methods=["GET"]),
        Route("/api/health", health, methods=["GET"]),
        *accounts_routes.routes,  # issue 8: sign-in, stats
        *watch_routes.routes,  # issue 33: spectators
        *replay_routes.routes,  # issue 33: replays
        Route("/static/{path:path}", static, methods=["GET"]),
        # Installable: the service worker at the root (its scope is the whole site) and the
        # web app manifest; before the client routes below, which 404 any name with a dot.
        Route("/sw.js", service_worker, methods=["GET"]),
        Route("/manifest.webmanifest", web_manifest, methods=["GET"]),
        Route("/", index, methods=["GET"]),
        Route("/g/{code}", index, methods=["GET"]),
        Route("/g/{code}/replay", index, methods=["GET"]),  # issue 33: web/replay.js
        Route("/{page}", client_route, methods=["GET"]),
    ]
    app = Starlette(
        routes=routes,
        middleware=[
            # Outermost of the app's middleware: origin, body size and time, before any other
            # work (``app`` is bound below, before the first request reaches the Edge).
            Middleware(Edge, settings=settings, game_socket=raw_game_socket),
            Middleware(BaseHTTPMiddleware, dispatch=device_and_headers),
        ],
        exception_handlers={
            ServiceError: service_error,
            ValidationError: validation_error,
            BadRequest: bad_request,
            HTTPException: http_error,
        },
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.throttle = throttle
    app.state.site = site  # the watch page serves it too (server/watch_routes.py)
    return app
