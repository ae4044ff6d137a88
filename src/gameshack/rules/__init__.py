"""Pure rules engines. Standard library only: no I/O, no clock, no global randomness.

Each game package (``rummy``, ``tiles``) answers the same questions with the same names:
``new_match(config, seed)``, ``legal_actions(state, seat)``, ``apply(state, seat, action)``
(or raise :class:`IllegalAction`), ``view(state, seat)``, ``outcome(state)``,
``parse_action(text)`` and ``state_to_dict`` / ``state_from_dict``.

The modules below this package are plain Python that ``pip install`` also compiles with mypyc
(see ``setup.py``) into extension modules beside their sources, which Python imports in
preference to the ``.py`` files. :data:`COMPILED` says whether they are the ones in use;
importing this package does nothing else. Keeping the build in step with the sources is the
build's business: ``make`` reinstalls when a rules file changes, and ``tests/compiled`` fails,
naming the files, when the build's manifest (``_compiled.json``) no longer matches them.
Compiled or not, the rules give the same answers (a test compares them).
"""

from __future__ import annotations

from importlib.machinery import EXTENSION_SUFFIXES

from gameshack.rules import common
from gameshack.rules.common import (
    IllegalAction,
    MalformedAction,
    Outcome,
    Termination,
    derive_rng,
)

__all__ = ["COMPILED", "IllegalAction", "MalformedAction", "Outcome", "Termination", "derive_rng"]

COMPILED: bool = (common.__file__ or "").endswith(tuple(EXTENSION_SUFFIXES))
"""True when the mypyc-compiled rules modules are the ones in use."""
