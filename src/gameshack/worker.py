"""What a worker process of the service runs: bot decisions and hints, from plain data.

The service thinks for its bots and hints in a pool of worker processes
(:mod:`gameshack.service.compute`: the solver's compiled code holds the interpreter's lock, so a
thread would stall the server all the same). What crosses to a worker is plain data: the game's
saved state (the engine's ``state_to_dict``), a seat, the bot's memory and a seed. Here that
seat's ``view`` is built and handed to :func:`~gameshack.bots.decide` or
:func:`~gameshack.bots.hint`, which see nothing else; the action goes back in notation. A
failure goes back as :class:`WorkerError` with the original's type and message (an engine's
exception may not survive the trip as itself).

A worker lives only as long as the server process that started it (:func:`start`), however that
one ends — a kill included, when nobody is left to tell the pool to stop.

This module is its own layer (docs/architecture.md): it imports the bots and the rules, and
the worker process imports nothing else of ours.
"""

from __future__ import annotations

import gzip
import json
import multiprocessing
import os
import random
import threading
from typing import Any

from gameshack.bots import decide, hint
from gameshack.rules.common import MalformedAction, SeatView
from gameshack.rules.engine import ENGINES

__all__ = [
    "WorkerError",
    "decide_from_state",
    "hint_from_state",
    "replay_from_log",
    "start",
]


class WorkerError(Exception):
    """A bot or a hint raised in the worker: ``"TypeName: message"``."""


def start() -> None:
    """The pool's initializer: end this worker as soon as the process that started it is gone."""
    parent = multiprocessing.parent_process()
    if parent is None:  # pragma: no cover - not in a worker
        return

    def watch() -> None:
        parent.join()  # returns when the parent's end of the start-up pipe closes: it died
        os._exit(0)

    threading.Thread(target=watch, name="watch-parent", daemon=True).start()


def _view(game: str, state: dict[str, Any], seat: int) -> SeatView:
    engine = ENGINES[game]
    return engine.view(engine.state_from_dict(state), seat)


def decide_from_state(
    game: str,
    difficulty: str,
    state: dict[str, Any],
    seat: int,
    memory: dict[str, Any] | None,
    seed: int,
) -> tuple[str, dict[str, Any]]:
    """The bot's action in notation for ``seat``'s view of ``state``, and its new memory."""
    try:
        view = _view(game, state, seat)
        action, memory = decide(game, difficulty, view, memory, random.Random(seed))
    except Exception as exc:
        raise WorkerError(f"{type(exc).__name__}: {exc}") from None
    return str(action), memory


def hint_from_state(game: str, state: dict[str, Any], seat: int) -> dict[str, Any]:
    """The hint for ``seat``'s view of ``state`` (shapes in :mod:`gameshack.bots`)."""
    try:
        return hint(game, _view(game, state, seat))
    except Exception as exc:
        raise WorkerError(f"{type(exc).__name__}: {exc}") from None


# Rows of the action log that are the lobby's, not the engine's (service/lobby.py): a seat
# joining, the match starting, a player leaving or cancelling. A replay skips them.
LOBBY_ROWS = frozenset({"join", "start", "left", "cancelled"})


def replay_from_log(
    game: str,
    seats: int,
    target: int | None,
    seed: int,
    log: list[tuple[int | None, str]],
    chunk: int,
) -> dict[str, Any]:
    """A stored match replayed from its seed and its action log (``(seat, action)`` in order).

    ``steps``: each engine action, as logged; ``count``: how many views (the deal before the
    first action, then one after each); ``public`` and ``full``: those views in pages of
    ``chunk``, each page a gzip-compressed JSON array (consecutive views differ little: a page
    shrinks some forty times, and the work of encoding stays out here too). The log's rows
    before the match's ``start``, the lobby's own rows, rows that are no action of the game and
    rows after the match's end are skipped. ``started`` False: the
    match never began."""
    pages: dict[str, list[bytes]] = {"public": [], "full": []}
    views: dict[str, list[str]] = {"public": [], "full": []}

    def add(state: Any) -> None:
        for name, fn in (("public", engine.public_view), ("full", engine.full_view)):
            views[name].append(json.dumps(fn(state), separators=(",", ":"), ensure_ascii=False))
            if len(views[name]) == chunk:
                flush(name)

    def flush(name: str) -> None:
        if views[name]:
            body = ("[" + ",".join(views[name]) + "]").encode()
            pages[name].append(gzip.compress(body, compresslevel=6, mtime=0))
            views[name] = []

    try:
        engine = ENGINES[game]
        state = engine.new_match(engine.config(seats, target), seed)
        steps: list[dict[str, Any]] = []
        add(state)
        started = False
        for seat, notation in log:
            if not started:
                started = seat is None and notation == "start"
                continue
            if seat is None or notation in LOBBY_ROWS or engine.match_outcome(state) is not None:
                continue  # the lobby's rows, and whatever a finished match logs after its end
            try:
                action = engine.parse_action(notation)
            except MalformedAction:
                continue  # a row of the server's own that is no action of the game
            state = engine.apply(state, seat, action)
            steps.append({"seat": seat, "action": notation})
            add(state)
        flush("public")
        flush("full")
    except Exception as exc:
        raise WorkerError(f"{type(exc).__name__}: {exc}") from None
    return {"started": started, "steps": steps, "count": len(steps) + 1, **pages}
