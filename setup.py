"""Compiles the pure rules engines (``gameshack.rules``) with mypyc when it can.

Everything else about the package lives in ``pyproject.toml``. The rules are plain, strictly
typed Python; mypyc turns them into C extension modules that sit next to the sources, which
makes the engines and the Tile Rummy solver two to three times faster. The build is optional:
if mypyc or a C compiler is missing, or ``GAMESHACK_PURE_PYTHON=1`` is set, the package installs
as pure Python and gives the same answers (a pure build removes the last build's modules from
beside the sources, since Python prefers them to the ``.py`` files). After a successful build,
``_compiled.json`` records the hash of every compiled source, so that ``tests/compiled`` can tell
a build older than its sources (``make`` reinstalls when a rules file changes).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).resolve().parent
RULES = Path("src", "gameshack", "rules")
MANIFEST = "_compiled.json"
# mypyc compiles every rules module but the package's own __init__, which holds no rules (it
# only says whether the compiled modules are in use).
PURE = {RULES / "__init__.py"}


# the tile search's node function in C, beside the mypyc build (it gives the same answers as
# the Python one it stands in for: gameshack/rules/tiles_solver/search.py)
ENGINE = RULES / "tiles_solver" / "_dp_engine.c"


def _sources() -> list[Path]:
    return sorted(p for p in RULES.rglob("*.py") if p not in PURE)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


COMPILED_SOURCES: dict[str, str] = {}


def _warn(message: str) -> None:
    print(f"gameshack: {message}; the rules run as pure Python", file=sys.stderr)


def _forget_build(everything: bool = True) -> None:
    """Remove the last build's compiled rules and manifest from beside the sources (or, not
    ``everything``, only the modules whose source is gone): Python would import a stale
    extension module before its ``.py``."""
    (HERE / RULES / MANIFEST).unlink(missing_ok=True)
    built = [*(HERE / RULES).rglob("*"), *(HERE / RULES).parent.parent.glob("gameshack_rules__*")]
    for path in built:
        if not path.name.endswith(tuple(EXTENSION_SUFFIXES)):
            continue
        stem = path.name.split(".", 1)[0]
        orphan = path.parent != HERE / RULES.parent.parent and not any(
            path.with_name(stem + suffix).exists() for suffix in (".py", ".c")
        )
        if everything or orphan:
            path.unlink()


class OptionalBuildExt(build_ext):
    """Builds the compiled rules, or leaves the package pure Python if the build fails."""

    def run(self) -> None:
        manifest = Path(os.path.dirname(self.get_ext_fullpath("gameshack.rules.common")), MANIFEST)
        manifest.unlink(missing_ok=True)
        try:
            super().run()
        except Exception as error:  # a compiler error, a missing compiler, ...
            _warn(f"compiling the rules failed ({error})")
            _forget_build()
            return
        if not COMPILED_SOURCES or not self.extensions:
            return
        manifest.parent.mkdir(parents=True, exist_ok=True)
        manifest.write_text(
            json.dumps({"sources": COMPILED_SOURCES}, indent=1, sort_keys=True) + "\n"
        )


# setup.py also runs for metadata only (egg_info, dist_info); mypyc type-checks for ~10 s.
BUILDS = {"build", "build_ext", "bdist_wheel", "editable_wheel", "develop", "install"}


def _ext_modules() -> list[object]:
    if os.environ.get("GAMESHACK_PURE_PYTHON") == "1" or not BUILDS & set(sys.argv[1:]):
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        _warn("mypyc is not available")
        return []
    os.chdir(HERE)
    sources = _sources()
    # The hashes of what mypyc reads now: a file edited while gcc runs must count as changed.
    COMPILED_SOURCES.update(
        {p.relative_to(RULES).as_posix(): _digest(p) for p in [*sources, ENGINE]}
    )
    try:
        return [
            *mypycify(
                [str(p) for p in sources],
                group_name="gameshack_rules",
                multi_file=True,
            ),
            Extension(
                "gameshack.rules.tiles_solver._dp_engine",
                [str(ENGINE)],
                extra_compile_args=["-O2"],
            ),
        ]
    except BaseException as error:  # mypyc reports type errors by raising SystemExit
        _warn(f"mypyc refused the rules ({error!r})")
        COMPILED_SOURCES.clear()
        return []


EXT_MODULES = _ext_modules()
if BUILDS & set(sys.argv[1:]):
    # A pure build (asked for, or no mypyc) must run the sources; a compiled one must leave
    # no module behind whose source is gone.
    _forget_build(everything=not EXT_MODULES)
setup(ext_modules=EXT_MODULES, cmdclass={"build_ext": OptionalBuildExt})
