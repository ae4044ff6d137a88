"""What an operator sees of one process, in the Prometheus format (``GET /metrics``).

One registry per process (the Prometheus convention: each process is scraped on its own and
the server sums them), on ``prometheus-client``. Layers record into it without knowing who
reads it: the store times its commits, the service counts actions, errors and timer lag, the
server samples live games and open sockets when scraped.
"""

from __future__ import annotations

from collections.abc import Callable

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)

__all__ = [
    "ACTIONS",
    "COMMIT_SECONDS",
    "CONTENT_TYPE_LATEST",
    "ERRORS",
    "GC_PAUSE_SECONDS",
    "REGISTRY",
    "TIMER_LAG_SECONDS",
    "WRITE_FAILURES",
    "exposition",
    "sample",
]

REGISTRY = CollectorRegistry(auto_describe=True)

ACTIONS = Counter(
    "gameshack_actions",
    "Game actions committed (players, bots and the server's own, e.g. a grace window's end).",
    ["game"],
    registry=REGISTRY,
)
ERRORS = Counter(
    "gameshack_errors",
    "Errors answered to clients, by code (HTTP and WebSocket).",
    ["code"],
    registry=REGISTRY,
)
COMMIT_SECONDS = Histogram(
    "gameshack_commit_seconds",
    "Time from a write being queued to its commit (or failure) answered.",
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0),
    registry=REGISTRY,
)
WRITE_FAILURES = Counter(
    "gameshack_write_failures",
    "Database writes that did not commit (disk full, database gone, ...).",
    registry=REGISTRY,
)
TIMER_LAG_SECONDS = Histogram(
    "gameshack_timer_lag_seconds",
    "How late a timer (grace window end, bot step) fired after its due time.",
    buckets=(0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1.0, 5.0, 30.0),
    registry=REGISTRY,
)
GC_PAUSE_SECONDS = Histogram(
    "gameshack_gc_pause_seconds",
    "Garbage collections: how long each stopped the process, by generation (2 = full).",
    ["generation"],
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0),
    registry=REGISTRY,
)
_LIVE_GAMES = Gauge("gameshack_live_games", "Games loaded in this process.", registry=REGISTRY)
_OPEN_SOCKETS = Gauge("gameshack_open_sockets", "Open game sockets.", registry=REGISTRY)


def sample(live_games: Callable[[], float], open_sockets: Callable[[], float]) -> None:
    """Read the two gauges from the running server each time they are scraped."""
    _LIVE_GAMES.set_function(live_games)
    _OPEN_SOCKETS.set_function(open_sockets)


def exposition() -> bytes:
    return generate_latest(REGISTRY)
