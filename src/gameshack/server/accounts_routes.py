"""HTTP edge of the optional sign-in and of the stats pages (issue 8).

Endpoints (documented in docs/protocol.md, "Accounts and stats"):

- ``GET  /api/account``               who is signed in on this browser
- ``POST /api/account/request-code``  email a one-time code
- ``POST /api/account/verify``        exchange the code for a session cookie
- ``POST /api/account/name``          choose/change the account's display name
- ``POST /api/account/sign-out``      revoke the session
- ``GET  /api/stats?name=&game=``     overall + By Opponent
- ``GET  /api/stats/history?name=&game=&page=``  finished matches, newest first

The session cookie is HttpOnly, SameSite=Lax, ``Secure`` and ``__Host-``-prefixed when the
request came over HTTPS (or ``GAMESHACK_SECURE_COOKIES`` is on), and holds 256 random bits.

The accounts runtime (service, stores, mailer) is built on first use from what the game server
put in ``app.state``; tests may put their own ``AccountsRuntime`` there first.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.websockets import WebSocket

from gameshack.accounts import (
    AccountError,
    AccountsConfig,
    AccountService,
    InMemoryAccountStore,
    SeatRef,
    mailer_from_env,
    normalize_email,
)
from gameshack.accounts.stats import (
    MatchHistoryPage,
    RecordsStatsSource,
    StatsSource,
)
from gameshack.server.responses import OrjsonResponse, body_of, query_int
from gameshack.throttle import Throttle

__all__ = [
    "SESSION_COOKIE",
    "SESSION_COOKIE_SECURE",
    "AccountsRuntime",
    "GameSeats",
    "account_games",
    "accounts_runtime",
    "device_for_game",
    "routes",
    "session_token",
]

log = logging.getLogger("gameshack.accounts")

SESSION_COOKIE = "gs_session"
SESSION_COOKIE_SECURE = "__Host-gs_session"
DEVICE_COOKIE = "gs_device"
HISTORY_PAGE = 20


# Account answers are personal (an email address) and stats change: never cache them.
NO_STORE = {"Cache-Control": "no-store"}


def _json(content: Any) -> OrjsonResponse:
    return OrjsonResponse(content, headers=NO_STORE)


# ----------------------------------------------------------------------------- runtime wiring


def _device_hash(token: str) -> str:
    from gameshack.service import device_hash

    return device_hash(token)


class GameSeats:
    """The accounts service's view of the game store: which seats devices hold."""

    def __init__(self, store: Any) -> None:
        self.store = store

    async def seats_of_devices(self, device_hashes: Any) -> list[SeatRef]:
        out: list[SeatRef] = []
        for dh in device_hashes:
            for game in await self.store.games_for_device(dh):
                out.extend(SeatRef(game.code, s.seat) for s in game.seats if s.device == dh)
        return out


@dataclass
class AccountsRuntime:
    service: AccountService
    stats: StatsSource
    secure_cookies: bool = False
    warmup: asyncio.Task[None] | None = None


def _secret(data_dir: Path | None) -> bytes:
    """The key for hashing codes: ``GAMESHACK_SECRET_KEY``, else a file kept in the data
    directory (made once, mode 0600), else — no data directory — a key for this process."""
    env = os.environ.get("GAMESHACK_SECRET_KEY", "").strip()
    if env:
        return env.encode()
    if data_dir is not None:
        path = data_dir / "secret.key"
        try:
            if path.exists():
                return path.read_bytes().strip()
            data_dir.mkdir(parents=True, exist_ok=True)
            key = secrets.token_hex(32).encode()
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as f:
                f.write(key)
            return key
        except OSError as exc:
            log.warning("no secret key file in %s (%s); using one for this process", data_dir, exc)
    return secrets.token_bytes(32)


def build_runtime(app: Any) -> AccountsRuntime:
    state = app.state
    game_store = getattr(getattr(state, "service", None), "store", None)
    settings = getattr(state, "settings", None)
    data_dir = getattr(settings, "data_dir", None)
    secure = bool(getattr(settings, "secure_cookies", False))
    config = AccountsConfig.from_env(_secret(data_dir))
    seats = GameSeats(game_store) if game_store is not None else None
    engine = getattr(game_store, "engine", None)
    if engine is not None:
        from gameshack.store.accounts import SqlAccountStore, SqlStatsSource

        store: Any = SqlAccountStore.on(game_store)
        stats: StatsSource = SqlStatsSource.on(game_store)
    else:
        store = InMemoryAccountStore()
        stats = RecordsStatsSource(game_store)
    # The server's throttle when it has one (shared by every limit, and through Redis by every
    # process when so configured); else one for the sign-in alone.
    throttle = getattr(state, "throttle", None)
    if not isinstance(throttle, Throttle):
        throttle = None
    service = AccountService(store, mailer_from_env(), config, seats=seats, throttle=throttle)
    rt = AccountsRuntime(service=service, stats=stats, secure_cookies=secure)
    sync = getattr(stats, "sync", None)
    if sync is not None:
        # Built on the first accounts request (the lobby asks who is signed in): copy the
        # backlog of match records now, so the first Stats page doesn't wait for it.
        with contextlib.suppress(RuntimeError):  # no running loop: nothing to warm up
            rt.warmup = asyncio.get_running_loop().create_task(_warm(sync))
    return rt


async def _warm(sync: Any) -> None:
    try:
        await sync()
    except Exception:
        log.exception("stats sync failed; it is retried on the next stats request")


def accounts_runtime(app: Any) -> AccountsRuntime:
    rt: AccountsRuntime | None = getattr(app.state, "accounts", None)
    if rt is None:
        rt = build_runtime(app)
        app.state.accounts = rt
    return rt


# ----------------------------------------------------------------------------- cookies


def _is_https(request: Request) -> bool:
    return request.url.scheme in ("https", "wss")


def session_token(request: Any) -> str | None:
    """The session cookie of a request or WebSocket (None when signed out)."""
    cookies = request.cookies
    return cookies.get(SESSION_COOKIE_SECURE) or cookies.get(SESSION_COOKIE) or None


def _set_session(response: Response, request: Request, token: str, max_age: int) -> None:
    secure = _is_https(request) or accounts_runtime(request.app).secure_cookies
    # __Host- needs Secure, Path=/ and no Domain; on plain http (a local install) it can't be
    # used, and the cookie is the ordinary name.
    name = SESSION_COOKIE_SECURE if secure else SESSION_COOKIE
    response.set_cookie(
        name, token, max_age=max_age, path="/", httponly=True, samesite="lax", secure=secure
    )


def _clear_session(response: Response, request: Request) -> None:
    for name in (SESSION_COOKIE, SESSION_COOKIE_SECURE):
        if name in request.cookies:
            secure = name == SESSION_COOKIE_SECURE
            response.delete_cookie(name, path="/", httponly=True, samesite="lax", secure=secure)


def _device(request: Request | WebSocket) -> str | None:
    """The device hash the game server binds seats to (its middleware sets it on HTTP)."""
    device = getattr(request.state, "device", None)
    if device:
        return str(device)
    token = request.cookies.get(DEVICE_COOKIE)
    return _device_hash(token) if token else None


def _ip(request: Request) -> str:
    return request.client.host if request.client else "unknown"


def _error(exc: AccountError) -> OrjsonResponse:
    headers = dict(NO_STORE)
    if exc.retry_after:
        headers["Retry-After"] = str(exc.retry_after)
    return OrjsonResponse(
        {"error": {"code": exc.code, "message": exc.message}}, exc.status, headers=headers
    )


def _account_dict(account: Any) -> dict[str, Any]:
    if account is None:
        return {"signed_in": False, "email": None, "name": None, "needs_name": False}
    return {
        "signed_in": True,
        "email": account.email,
        "name": account.display_name,
        "needs_name": not account.display_name,
    }


# ----------------------------------------------------------------------------- sign-in


class EmailIn(BaseModel):
    email: str = Field(max_length=320)


class VerifyIn(BaseModel):
    email: str = Field(max_length=320)
    code: str = Field(max_length=32)


class NameIn(BaseModel):
    name: str = Field(max_length=200)


async def get_account(request: Request) -> Response:
    rt = accounts_runtime(request.app)
    return _json(_account_dict(await rt.service.account_for(session_token(request))))


async def request_code(request: Request) -> Response:
    body = await body_of(request, EmailIn)
    rt = accounts_runtime(request.app)
    try:
        await rt.service.request_code(body.email, _ip(request), device_token=_device(request))
    except AccountError as exc:
        return _error(exc)
    email = normalize_email(body.email)
    return _json(
        {
            "ok": True,
            "email": email,
            "message": f"Enter the code emailed to {email}.",
            "digits": rt.service.config.code_digits,
            "expires_in": int(rt.service.config.code_ttl),
        }
    )


async def verify(request: Request) -> Response:
    body = await body_of(request, VerifyIn)
    rt = accounts_runtime(request.app)
    try:
        sign_in = await rt.service.verify_code(
            body.email,
            body.code,
            _ip(request),
            device_token=_device(request),
            previous_session=session_token(request),
        )
    except AccountError as exc:
        return _error(exc)
    response = _json(_account_dict(sign_in.account))
    _set_session(response, request, sign_in.session_token, int(rt.service.config.session_ttl))
    return response


async def choose_name(request: Request) -> Response:
    body = await body_of(request, NameIn)
    rt = accounts_runtime(request.app)
    try:
        account = await rt.service.choose_name(session_token(request), body.name)
    except AccountError as exc:
        return _error(exc)
    return _json(_account_dict(account))


async def sign_out(request: Request) -> Response:
    rt = accounts_runtime(request.app)
    await rt.service.sign_out(session_token(request))
    response = _json({"ok": True, **_account_dict(None)})
    _clear_session(response, request)
    return response


# ----------------------------------------------------------------------------- stats


def _stats_args(name: str, game: str | None) -> tuple[str, str | None]:
    name = " ".join(name.split())
    if not name or len(name) > 64:
        raise AccountError("bad_name", "Give the display name to look up.")
    if game in (None, "", "all"):
        return name, None
    if game not in ("rummy", "tiles"):
        raise AccountError("bad_game", "game is rummy, tiles or all.")
    return name, game


async def stats(request: Request) -> Response:
    query = request.query_params
    try:
        name, kind = _stats_args(query.get("name", ""), query.get("game"))
    except AccountError as exc:
        return _error(exc)
    rt = accounts_runtime(request.app)
    return _json((await rt.stats.report(name, kind)).to_dict())


async def history(request: Request) -> Response:
    query = request.query_params
    try:
        name, kind = _stats_args(query.get("name", ""), query.get("game"))
    except AccountError as exc:
        return _error(exc)
    page = max(1, min(query_int(request, "page", 1), 100_000))
    rt = accounts_runtime(request.app)
    total, matches = await rt.stats.history(name, kind, (page - 1) * HISTORY_PAGE, HISTORY_PAGE)
    return _json(MatchHistoryPage(name, kind, page, HISTORY_PAGE, total, matches).to_dict())


routes = [
    Route("/api/account", get_account, methods=["GET"]),
    Route("/api/account/request-code", request_code, methods=["POST"]),
    Route("/api/account/verify", verify, methods=["POST"]),
    Route("/api/account/name", choose_name, methods=["POST"]),
    Route("/api/account/sign-out", sign_out, methods=["POST"]),
    Route("/api/stats", stats, methods=["GET"]),
    Route("/api/stats/history", history, methods=["GET"]),
]


# ----------------------------------------------------------------------------- games on every device
# The game server binds each seat to the device that took it. A browser signed in to an account
# may also open the account's seats held by its other devices: for such a game it acts as the
# device holding the seat. These two functions are the only places that decide it; app.py calls
# them where it resolves the device (Your Active Games, the WebSocket, look and leave).


async def device_for_game(conn: Request | WebSocket, service: Any, code: str, device: str) -> str:
    """The device hash to act as in game ``code``: this device's own, unless it holds no seat
    there and the signed-in account owns a seat there that another device holds."""
    token = session_token(conn)
    if not token:
        return device
    try:
        room = await service.room(code)
    except Exception:  # unknown game: let the caller report it as usual
        return device
    seats_of_game = room.row.seats
    if any(s.device == device for s in seats_of_game):
        return device
    rt = accounts_runtime(conn.app)
    for ref in await rt.service.seats_for_session(token):
        if ref.game_id == room.row.code:
            holder = next((s.device for s in seats_of_game if s.seat == ref.seat), None)
            if holder:
                return str(holder)
    return device


async def account_games(
    request: Request, service: Any, games: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """``games`` (this device's active games) plus the signed-in account's games held by its
    other devices, in the same shape, newest activity first."""
    token = session_token(request)
    if not token:
        return games
    rt = accounts_runtime(request.app)
    seats = await rt.service.seats_for_session(token)
    have = {g["code"] for g in games}
    wanted = {ref.game_id: ref.seat for ref in seats if ref.game_id not in have}
    if not wanted:
        return games
    by_holder: dict[str, list[dict[str, Any]]] = {}
    extra: list[dict[str, Any]] = []
    for code, seat in sorted(wanted.items()):
        try:
            room = await service.room(code)
        except Exception:
            continue
        holder = next((s.device for s in room.row.seats if s.seat == seat), None)
        if not holder:
            continue
        if holder not in by_holder:
            by_holder[holder] = await service.my_games(holder)
        extra.extend(g for g in by_holder[holder] if g["code"] == room.row.code)
    out = games + extra
    out.sort(key=lambda g: g.get("public_at", ""), reverse=True)
    return out
