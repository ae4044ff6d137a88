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


def _flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")


@dataclass
class Settings:
    data_dir: Path
    database_url: str
    grace_seconds: float = 4.0
    bot_delay: float = 1.0
    allowed_origins: list[str] = field(default_factory=list)  # empty: same host as the request
    allow_seed: bool = False
    secure_cookies: bool = False
    rate_per_sec: float = 20.0  # messages per second per socket, sustained ...
    rate_burst: float = 40.0  # ... with bursts up to this many
    room_idle_seconds: float = 600.0  # a game unused this long leaves memory (0: never)

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
            data_dir.mkdir(parents=True, exist_ok=True)
            url = f"sqlite+aiosqlite:///{data_dir / 'gameshack.db'}"
        origins = [
            o.strip().rstrip("/")
            for o in os.environ.get("GAMESHACK_ALLOWED_ORIGINS", "").split(",")
            if o.strip()
        ]
        return cls(
            data_dir=data_dir,
            database_url=url,
            grace_seconds=_float("GAMESHACK_GRACE_SECONDS", 4.0),
            bot_delay=_float("GAMESHACK_BOT_DELAY", 1.0),
            room_idle_seconds=_float("GAMESHACK_ROOM_IDLE_SECONDS", 600.0),
            allowed_origins=origins,
            allow_seed=_flag("GAMESHACK_ALLOW_SEED"),
            secure_cookies=_flag("GAMESHACK_SECURE_COOKIES"),
        )
