"""The mypyc build of ``gameshack.rules`` (setup.py): in use, equal to pure Python, never stale.

``pip install -e .`` compiles the rules next to their sources and records each source's hash in
``_compiled.json``. These tests run real interpreters in subprocesses: one with the compiled
modules, one with ``GAMESHACK_PURE_PYTHON=1``, and one on a copy of the package with an edited
source, which must fall back to pure Python rather than run stale machine code.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import gameshack.rules

HERE = Path(__file__).resolve().parent
RULES = Path(gameshack.rules.__file__).resolve().parent
PURE_REQUESTED = os.environ.get("GAMESHACK_PURE_PYTHON") == "1"


def run(*args: str, pure: bool = False, pythonpath: Path | None = None) -> str:
    env = {k: v for k, v in os.environ.items() if k != "GAMESHACK_PURE_PYTHON"}
    if pure:
        env["GAMESHACK_PURE_PYTHON"] = "1"
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)
    done = subprocess.run(
        [sys.executable, *args], env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    return done.stdout + done.stderr


@pytest.mark.skipif(PURE_REQUESTED, reason="GAMESHACK_PURE_PYTHON=1 asks for the pure rules")
def test_the_compiled_rules_are_in_use() -> None:
    assert gameshack.rules.COMPILED, (
        "the rules run as pure Python: the mypyc build is missing or older than the sources — "
        "`make test` rebuilds it (pip install -e .); set GAMESHACK_PURE_PYTHON=1 to test pure"
    )
    from gameshack.rules.tiles_solver import search

    assert not search.__file__.endswith(".py"), search.__file__
    assert search._dp_engine is not None, "the tile search's C node function is not built"


@pytest.mark.slow
@pytest.mark.skipif(PURE_REQUESTED, reason="GAMESHACK_PURE_PYTHON=1 asks for the pure rules")
def test_pure_python_gives_the_same_answers_as_the_compiled_rules() -> None:
    script = str(HERE / "answers.py")
    counts = ("40", "60", "20")  # solver instances per class, Rummy hands, Tile Rummy rounds
    compiled = json.loads(run(script, *counts).splitlines()[-1])
    pure = json.loads(run(script, *counts, pure=True).splitlines()[-1])
    assert pure["compiled"] is False
    assert compiled["compiled"] is gameshack.rules.COMPILED
    for part in ("solver", "rummy", "tiles"):
        assert len(pure["answers"][part]) == len(compiled["answers"][part]) > 0
        for n, (a, b) in enumerate(
            zip(compiled["answers"][part], pure["answers"][part], strict=True)
        ):
            assert a == b, f"{part} #{n}: compiled and pure Python differ"


@pytest.mark.skipif(not gameshack.rules.COMPILED, reason="needs the compiled rules")
def test_an_edited_source_falls_back_to_pure_python(tmp_path: Path) -> None:
    copy = tmp_path / "src" / "gameshack"
    shutil.copytree(RULES.parent, copy, ignore=shutil.ignore_patterns("__pycache__"))
    for lib in RULES.parent.parent.glob("gameshack_rules__mypyc*"):  # the build's shared library
        shutil.copy(lib, tmp_path / "src")
    probe = "import gameshack.rules as r, gameshack.rules.tiles.sets as m; print(r.COMPILED, m.__file__)"
    assert run("-c", probe, pythonpath=tmp_path / "src").split()[:1] == ["True"]

    sets = copy / "rules" / "tiles" / "sets.py"
    sets.write_text(sets.read_text() + "\n# edited after the build\n")
    out = run("-W", "always", "-c", probe, pythonpath=tmp_path / "src")
    compiled, module_file = out.split()[:2]
    assert compiled == "False" and module_file.endswith("sets.py"), out
    assert "tiles/sets.py changed since the build" in out


@pytest.mark.skipif(not gameshack.rules.COMPILED, reason="needs the compiled rules")
def test_an_edited_c_engine_falls_back_to_pure_python(tmp_path: Path) -> None:
    copy = tmp_path / "src" / "gameshack"
    shutil.copytree(RULES.parent, copy, ignore=shutil.ignore_patterns("__pycache__"))
    for lib in RULES.parent.parent.glob("gameshack_rules__mypyc*"):
        shutil.copy(lib, tmp_path / "src")
    probe = (
        "import gameshack.rules as r, gameshack.rules.tiles_solver.search as d; "
        "print(r.COMPILED, d._dp_engine is not None)"
    )
    assert run("-c", probe, pythonpath=tmp_path / "src").split()[:2] == ["True", "True"]

    engine = copy / "rules" / "tiles_solver" / "_dp_engine.c"
    engine.write_text(engine.read_text() + "\n/* edited after the build */\n")
    out = run("-W", "always", "-c", probe, pythonpath=tmp_path / "src")
    assert out.split()[:2] == ["False", "False"], out
    assert "tiles_solver/_dp_engine.c changed since the build" in out
