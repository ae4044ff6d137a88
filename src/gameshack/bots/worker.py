"""Bot decisions and hints from plain data, for a worker process.

The service thinks for its bots and hints in a pool of worker processes (the solver's compiled
code holds the interpreter's lock, so a thread would stall the server all the same). What
crosses to a worker is plain data: the game's saved state (the engine's ``state_to_dict``), a
seat, the bot's memory and a seed. Here that seat's ``view`` is built and handed to
:func:`~gameshack.bots.decide` or :func:`~gameshack.bots.hint`, which see nothing else; the
action goes back in notation. A failure goes back as :class:`WorkerError` with the original's
type and message (an engine's exception may not survive the trip as itself).
"""

from __future__ import annotations

import random
from types import ModuleType
from typing import Any

from gameshack.bots import decide, hint
from gameshack.rules import rummy, tiles

__all__ = ["WorkerError", "decide_from_state", "hint_from_state"]

ENGINES: dict[str, ModuleType] = {"rummy": rummy, "tiles": tiles}


class WorkerError(Exception):
    """A bot or a hint raised in the worker: ``"TypeName: message"``."""


def _view(game: str, state: dict[str, Any], seat: int) -> Any:
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
        action, memory = decide(
            game, difficulty, _view(game, state, seat), memory, random.Random(seed)
        )
    except Exception as exc:
        raise WorkerError(f"{type(exc).__name__}: {exc}") from None
    return str(action), memory


def hint_from_state(game: str, state: dict[str, Any], seat: int) -> dict[str, Any]:
    """The hint for ``seat``'s view of ``state`` (shapes in :mod:`gameshack.bots`)."""
    try:
        return hint(game, _view(game, state, seat))
    except Exception as exc:
        raise WorkerError(f"{type(exc).__name__}: {exc}") from None
