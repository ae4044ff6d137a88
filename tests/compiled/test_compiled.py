"""The mypyc build of ``gameshack.rules`` (setup.py): in use, up to date, equal to pure Python.

``pip install -e .`` compiles the rules next to their sources and records each source's hash in
``_compiled.json``. Python imports a compiled module before its ``.py``, whatever the ``.py``
now says: so a build older than its sources is reported here, by name, with what to run. The
answers are compared in real interpreters: one with the compiled modules, one on a copy of the
sources without them.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import pytest

import gameshack.rules
from compiled.build import REBUILD, stale

HERE = Path(__file__).resolve().parent
RULES = Path(gameshack.rules.__file__).resolve().parent
PURE_REQUESTED = os.environ.get("GAMESHACK_PURE_PYTHON") == "1"
needs_build = pytest.mark.skipif(
    PURE_REQUESTED, reason="GAMESHACK_PURE_PYTHON=1: the rules were installed pure"
)


def run(*args: str, pythonpath: Path | None = None) -> str:
    env = dict(os.environ)
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)
    done = subprocess.run(
        [sys.executable, *args], env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    return done.stdout + done.stderr


def copy_of_the_package(tmp_path: Path, *, compiled: bool) -> Path:
    """``gameshack`` copied under ``tmp_path/src`` (with or without the compiled modules); put
    that on PYTHONPATH and it is imported before the installed one."""
    built = [f"*{suffix}" for suffix in EXTENSION_SUFFIXES] + ["_compiled.json"]
    ignore = ["__pycache__"] + ([] if compiled else built)
    shutil.copytree(
        RULES.parent, tmp_path / "src" / "gameshack", ignore=shutil.ignore_patterns(*ignore)
    )
    if compiled:
        for lib in RULES.parent.parent.glob("gameshack_rules__*"):  # the build's shared library
            shutil.copy(lib, tmp_path / "src")
    return tmp_path / "src"


def test_the_rules_are_built_as_asked() -> None:
    if PURE_REQUESTED:
        assert not gameshack.rules.COMPILED, (
            "GAMESHACK_PURE_PYTHON=1 but the compiled rules are in use: "
            "`GAMESHACK_PURE_PYTHON=1 pip install -e .` installs them pure"
        )
        return
    assert gameshack.rules.COMPILED, (
        "the rules run as pure Python: the mypyc build is missing — "
        f"{REBUILD}; or set GAMESHACK_PURE_PYTHON=1 to install and test them pure"
    )
    from gameshack.rules.tiles_solver import search

    assert not search.__file__.endswith(".py"), search.__file__
    assert search._dp_engine is not None, "the tile search's C node function is not built"


@needs_build
def test_the_build_matches_the_sources() -> None:
    differences = stale(RULES)
    assert not differences, (
        "the compiled rules are older than their sources, and Python runs the compiled ones: "
        f"{'; '.join(differences)} — {REBUILD}"
    )


@needs_build
def test_an_edited_source_is_reported(tmp_path: Path) -> None:
    rules = copy_of_the_package(tmp_path, compiled=True) / "gameshack" / "rules"
    assert stale(rules) == []
    sets = rules / "tiles" / "sets.py"
    sets.write_text(sets.read_text() + "\n# edited after the build\n")
    (rules / "tiles" / "extra.py").write_text("")
    for engine in rules.rglob("*.c"):
        engine.write_text(engine.read_text() + "\n/* edited after the build */\n")
    expected = ["tiles/sets.py changed", "tiles/extra.py is new"]
    expected += [f"{p.relative_to(rules).as_posix()} changed" for p in rules.rglob("*.c")]
    assert sorted(stale(rules)) == sorted(expected)


def test_importing_the_rules_changes_nothing_global() -> None:
    code = (
        "import sys, gc\n"
        "finders, hooks = list(sys.meta_path), list(sys.path_hooks)\n"
        "import gameshack.rules, gameshack.rules.rummy, gameshack.rules.tiles\n"
        "assert sys.meta_path == finders and sys.path_hooks == hooks\n"
        "assert gc.isenabled()\n"
    )
    run("-W", "error", "-c", code)


@pytest.mark.slow
@needs_build
def test_pure_python_gives_the_same_answers_as_the_compiled_rules(tmp_path: Path) -> None:
    script = str(HERE / "answers.py")
    counts = ("40", "60", "20")  # solver instances per class, Rummy hands, Tile Rummy rounds
    compiled = json.loads(run(script, *counts).splitlines()[-1])
    pure_src = copy_of_the_package(tmp_path, compiled=False)
    pure = json.loads(run(script, *counts, pythonpath=pure_src).splitlines()[-1])
    assert pure["compiled"] is False
    assert compiled["compiled"] is gameshack.rules.COMPILED is True
    for part in ("solver", "rummy", "tiles"):
        assert len(pure["answers"][part]) == len(compiled["answers"][part]) > 0
        for n, (a, b) in enumerate(
            zip(compiled["answers"][part], pure["answers"][part], strict=True)
        ):
            assert a == b, f"{part} #{n}: compiled and pure Python differ"
