"""One JSON object per log line, for operators who ship logs to a collector
(``gameshack serve --log-format json`` or ``GAMESHACK_LOG_FORMAT=json``)."""

from __future__ import annotations

import logging
from typing import Any

import orjson

__all__ = ["JsonFormatter", "log_config"]


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
