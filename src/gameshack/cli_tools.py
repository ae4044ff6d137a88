"""Tool subcommands (``gameshack tiles …``, ``gameshack arena …``), registered into the CLI.

Each tool lives in its own module with a ``register(subparsers)`` function; add it to
:data:`TOOLS` and it appears under ``gameshack``.
"""

from __future__ import annotations

import importlib
from typing import Any

TOOLS: list[str] = ["gameshack.tiles_cli", "gameshack.arena"]


def register(sub: Any) -> None:
    for name in TOOLS:
        module = importlib.import_module(name)
        module.register(sub)


__all__ = ["TOOLS", "register"]
