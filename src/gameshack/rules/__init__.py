"""Pure rules engines. Standard library only: no I/O, no clock, no global randomness.

Each game package (``rummy``, ``tiles``) answers the same questions with the same names:
``new_match(config, seed)``, ``legal_actions(state, seat)``, ``apply(state, seat, action)``
(or raise :class:`IllegalAction`), ``view(state, seat)``, ``outcome(state)``,
``parse_action(text)`` and ``state_to_dict`` / ``state_from_dict``.

The modules below this package are plain Python that ``pip install`` also compiles with mypyc
(see ``setup.py``). :data:`COMPILED` says which ran: the compiled modules are used only when the
build's manifest matches every source byte for byte; otherwise — no build, an edited source, or
``GAMESHACK_PURE_PYTHON=1`` — every ``gameshack.rules`` module is imported from its ``.py`` file.
Both give the same answers (a test compares them).
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import json
import os
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

_HERE = Path(__file__).resolve().parent


def _build_matches_sources() -> tuple[bool, str]:
    """Whether the compiled build is present and made from exactly these sources."""
    try:
        recorded: dict[str, str] = json.loads((_HERE / "_compiled.json").read_text())["sources"]
    except (OSError, ValueError, KeyError):
        return False, ""
    for name, digest in recorded.items():
        try:
            if hashlib.sha256((_HERE / name).read_bytes()).hexdigest() != digest:
                return False, f"{name} changed since the build"
        except OSError:
            return False, f"{name} was removed since the build"
    return True, ""


class _SourceOnlyFinder(importlib.abc.MetaPathFinder):
    """Finds ``gameshack.rules.*`` modules as ``.py`` files, never as compiled extensions; a
    module that is only compiled (the tile search's C node function) is not found at all, so
    its importer runs its pure-Python counterpart."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if not fullname.startswith(__name__ + ".") or not path:
            return None
        loader = (importlib.machinery.SourceFileLoader, importlib.machinery.SOURCE_SUFFIXES)
        for entry in path:
            spec = importlib.machinery.FileFinder(entry, loader).find_spec(fullname, target)
            if spec is not None:
                return spec
        raise ModuleNotFoundError(f"{fullname} has no pure-Python source", name=fullname)


def _choose() -> bool:
    if os.environ.get("GAMESHACK_PURE_PYTHON") == "1":
        matches = False
    else:
        matches, why = _build_matches_sources()
        if why:
            warnings.warn(
                f"gameshack.rules: {why}; running the pure-Python rules "
                "(`pip install -e .` or `make` rebuilds the compiled ones)",
                stacklevel=3,
            )
    if not matches and not any(isinstance(f, _SourceOnlyFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _SourceOnlyFinder())
    return matches


COMPILED: bool = _choose()
"""True when the mypyc-compiled rules modules are the ones in use."""

from gameshack.rules.common import (  # noqa: E402 (after the choice of modules)
    IllegalAction,
    MalformedAction,
    Outcome,
    Termination,
    derive_rng,
)

__all__ = ["COMPILED", "IllegalAction", "MalformedAction", "Outcome", "Termination", "derive_rng"]
