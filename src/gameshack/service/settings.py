"""Operator settings, read from environment variables (documented in the README)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Settings"]


def _float(name: str, default: float) -> float:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"{name} must be a number of seconds, not {raw!r}") from None
    if value < 0:
        raise ValueError(f"{name} must not be negative")
    return value


def _int(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ValueError(f"{name} must be a whole number, not {raw!r}") from None
    if value < 0:
        raise ValueError(f"{name} must not be negative")
    return value


def _flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")


@dataclass
class Settings:
    data_dir: Path
    database_url: str
    # Redis for several processes: shared rate-limit counts, the bus between processes
    # (events, presence). Empty: one process, everything in memory.
    redis_url: str = ""
    grace_seconds: float = 4.0
    bot_delay: float = 1.0
    allowed_origins: list[str] = field(default_factory=list)  # empty: same host as the request
    allow_seed: bool = False
    secure_cookies: bool = False
    rate_per_sec: float = 20.0  # messages per second per socket, sustained ...
    rate_burst: float = 40.0  # ... with bursts up to this many
    room_idle_seconds: float = 600.0  # a game unused this long leaves memory (0: never)
    # Resource limits (issue 28); each is documented in the README's configuration table.
    games_per_hour: int = 30  # games created per device, and per address, per hour
    waiting_games_per_device: int = 5  # games one device may have waiting for players at once
    waiting_ttl: float = 24 * 3600.0  # a waiting game unchanged this long is deleted
    chat_retention: float = 30 * 24 * 3600.0  # chat of a finished/ended game, kept this long
    lookups_per_minute: int = 60  # game codes looked up (GET, join, socket) per address
    sockets_per_address: int = 64  # open game sockets from one address
    sockets_per_seat: int = 8  # open game sockets for one seat
    connections_per_address: int = 128  # open HTTP/TCP connections from one address
    header_timeout: float = 10.0  # seconds to send a request's headers
    body_timeout: float = 30.0  # seconds to send a request's body
    max_body_bytes: int = 64 * 1024  # largest request body accepted
    shutdown_timeout: float = 10.0  # SIGTERM: at most this long to finish in-flight work
    watchers_per_game: int = 50  # open spectator sockets on one game (issue 33; 0: no cap)
    watchers_per_address: int = 8  # open spectator sockets from one address (0: no cap)

    @classmethod
    def from_env(cls) -> Settings:
        raw_dir = os.environ.get("GAMESHACK_DATA_DIR", "").strip()
        if raw_dir:
            data_dir = Path(raw_dir).expanduser()
        else:
            import platformdirs

            data_dir = Path(platformdirs.user_data_dir("gameshack", appauthor=False))
        url = os.environ.get("GAMESHACK_DATABASE_URL", "").strip()
        if not url:
            try:
                data_dir.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise ValueError(
                    f"the data directory {data_dir} cannot be created ({exc.strerror or exc}); "
                    "set GAMESHACK_DATA_DIR to a writable directory."
                ) from None
            url = f"sqlite:///{data_dir / 'gameshack.db'}"
        origins = [
            o.strip().rstrip("/")
            for o in os.environ.get("GAMESHACK_ALLOWED_ORIGINS", "").split(",")
            if o.strip()
        ]
        for origin in origins:
            scheme, _, host = origin.partition("://")
            if scheme not in ("http", "https") or not host or "/" in host:
                raise ValueError(
                    f"GAMESHACK_ALLOWED_ORIGINS: {origin!r} is not an origin like "
                    "https://games.example.org"
                )
        return cls(
            data_dir=data_dir,
            database_url=url,
            redis_url=os.environ.get("GAMESHACK_REDIS_URL", "").strip(),
            grace_seconds=_float("GAMESHACK_GRACE_SECONDS", 4.0),
            bot_delay=_float("GAMESHACK_BOT_DELAY", 1.0),
            room_idle_seconds=_float("GAMESHACK_ROOM_IDLE_SECONDS", 600.0),
            allowed_origins=origins,
            allow_seed=_flag("GAMESHACK_ALLOW_SEED"),
            secure_cookies=_flag("GAMESHACK_SECURE_COOKIES"),
            games_per_hour=_int("GAMESHACK_GAMES_PER_HOUR", 30),
            waiting_games_per_device=_int("GAMESHACK_WAITING_GAMES_PER_DEVICE", 5),
            waiting_ttl=_float("GAMESHACK_WAITING_TTL", 24 * 3600.0),
            chat_retention=_float("GAMESHACK_CHAT_RETENTION", 30 * 24 * 3600.0),
            lookups_per_minute=_int("GAMESHACK_LOOKUPS_PER_MINUTE", 60),
            sockets_per_address=_int("GAMESHACK_SOCKETS_PER_ADDRESS", 64),
            sockets_per_seat=_int("GAMESHACK_SOCKETS_PER_SEAT", 8),
            connections_per_address=_int("GAMESHACK_CONNECTIONS_PER_ADDRESS", 128),
            header_timeout=_float("GAMESHACK_HEADER_TIMEOUT", 10.0),
            body_timeout=_float("GAMESHACK_BODY_TIMEOUT", 30.0),
            max_body_bytes=_int("GAMESHACK_MAX_BODY_BYTES", 64 * 1024),
            shutdown_timeout=_float("GAMESHACK_SHUTDOWN_TIMEOUT", 10.0),
            watchers_per_game=_int("GAMESHACK_WATCHERS_PER_GAME", 50),
            watchers_per_address=_int("GAMESHACK_WATCHERS_PER_ADDRESS", 8),
        )
