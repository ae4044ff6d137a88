"""Whether the compiled rules were built from the sources beside them (``_compiled.json``).

``setup.py`` records a SHA-256 for every source it compiled: each rules module but the package's
own ``__init__.py``, and the C files. A build matches when the same files exist with the same
hashes; the Makefile's ``RULES_SRC`` (every ``.py`` and ``.c`` under the rules) reinstalls on the
same changes.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

MANIFEST = "_compiled.json"
REBUILD = "rebuild with `make` (or `pip install -e .`)"


def sources(rules: Path) -> dict[str, str]:
    """Every compiled source under ``rules`` and its hash, keyed as the manifest keys them."""
    out = {}
    for path in sorted([*rules.rglob("*.py"), *rules.rglob("*.c")]):
        name = path.relative_to(rules).as_posix()
        if name != "__init__.py":
            out[name] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def stale(rules: Path) -> list[str]:
    """What differs between the build's manifest and the sources, one phrase each."""
    try:
        recorded: dict[str, str] = json.loads((rules / MANIFEST).read_text())["sources"]
    except (OSError, ValueError, KeyError):
        return [f"no build manifest ({MANIFEST})"]
    now = sources(rules)
    changed = [
        f"{n} changed" for n in sorted(now.keys() & recorded.keys()) if now[n] != recorded[n]
    ]
    new = [f"{n} is new" for n in sorted(now.keys() - recorded.keys())]
    gone = [f"{n} was removed" for n in sorted(recorded.keys() - now.keys())]
    return changed + new + gone
