"""Log formats: one JSON object per line for operators who ship logs to a collector
(``gameshack serve --log-format json`` or ``GAMESHACK_LOG_FORMAT=json``), and a console a person
can read (:class:`QuietConsole`)."""

from __future__ import annotations

import logging
from typing import Any

import orjson

__all__ = ["JsonFormatter", "QuietConsole", "log_config"]


class JsonFormatter(logging.Formatter):
    """``{"ts": …, "level": …, "logger": …, "msg": …}`` plus ``exc`` for a traceback and the
    process id, so the lines of several processes can be told apart."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "ts": round(record.created, 3),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
            "pid": record.process,
        }
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return orjson.dumps(out).decode()


def log_config(fmt: str, level: str) -> dict[str, Any] | None:
    """A ``logging.config.dictConfig`` for uvicorn's ``log_config``: None keeps uvicorn's own
    text format; "json" sends every logger (ours, uvicorn's, its access log) through
    :class:`JsonFormatter` on standard error."""
    if fmt != "json":
        return None
    handler = {"class": "logging.StreamHandler", "formatter": "json", "stream": "ext://sys.stderr"}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": JsonFormatter}},
        "handlers": {"default": handler},
        "root": {"handlers": ["default"], "level": level.upper()},
        "loggers": {
            name: {"handlers": ["default"], "level": level.upper(), "propagate": False}
            for name in ("uvicorn", "uvicorn.error", "uvicorn.access")
        },
    }


class QuietConsole(logging.Filter):
    """The text console at the default level: no line per poll. Drops the access-log lines of
    reads that went well (GET/HEAD answered below 400: the lobby's games list every few seconds,
    pages, scripts, health checks) and the WebSocket library's "connection open"/"closed"
    lines; keeps every other request (creating, joining, signing in), every error and the
    ``"WebSocket /ws/…" [accepted]`` line. ``--log-level debug`` and JSON logs keep it all."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.name == "uvicorn.access":
            args = record.args
            if isinstance(args, tuple) and len(args) == 5:
                method, status = args[1], args[4]
                return not (method in ("GET", "HEAD") and isinstance(status, int) and status < 400)
            return True
        if record.levelno != logging.INFO or not isinstance(record.msg, str):
            return True
        # uvicorn's "Uvicorn running on http://0.0.0.0:…": the start-up line says it better.
        return record.msg not in _SOCKET_CHATTER and not record.msg.startswith("Uvicorn running")


_SOCKET_CHATTER = ("connection open", "connection closed")
