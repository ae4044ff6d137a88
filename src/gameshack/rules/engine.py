"""Every game's engine by name: :data:`ENGINES`.

The interface is :class:`~gameshack.rules.common.GameEngine` (defined with the other shared
pieces so that each game can name it); each game package exports its implementation as
``ENGINE``. Code that serves any game holds an engine from here and never asks which game it
is: what differs between games is the engine's to say.
"""

from __future__ import annotations

from typing import Final

from gameshack.rules import rummy, tiles
from gameshack.rules.common import AnyEngine, GameEngine

__all__ = ["ENGINES", "AnyEngine", "GameEngine", "engine"]

ENGINES: Final[dict[str, AnyEngine]] = {e.name: e for e in (rummy.ENGINE, tiles.ENGINE)}
"""``"rummy"`` and ``"tiles"``: the names stored with each game."""


def engine(name: str) -> AnyEngine:
    """The engine of the game called ``name``; ValueError for a game there is not."""
    try:
        return ENGINES[name]
    except KeyError:
        raise ValueError(f"unknown game {name!r} ({' or '.join(ENGINES)})") from None
