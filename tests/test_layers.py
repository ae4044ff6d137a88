"""The fences between layers hold: the table in docs/architecture.md, as import-linter contracts.

``pyproject.toml`` has one contract per row of "Who may import whom" (``[tool.importlinter]``);
these tests run them, check that the rows and the contracts name the same modules and cover every
module of the package, and check what the contracts cannot say: the rules use the standard
library only, and importing them pulls in no I/O framework.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import grimp

import gameshack

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = Path(gameshack.__file__).resolve().parent
FORBIDDEN = ["asyncio", "sqlalchemy", "fastapi", "starlette", "uvicorn", "pydantic", "redis"]


def contracts() -> list[dict[str, object]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    return list(config["contracts"])


def contract_modules(contract: dict[str, object]) -> frozenset[str]:
    names = contract.get("source_modules") or contract.get("protected_modules")
    assert isinstance(names, list), contract
    return frozenset(n.removeprefix("gameshack.") for n in names)


def table_rows() -> list[frozenset[str]]:
    """The modules named in each row of the architecture's import table (its first column)."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    table = text.split("## Who may import whom", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in table.splitlines() if line.startswith("| `")]
    return [frozenset(re.findall(r"`([a-z_]+)`", row.split("|")[1])) for row in rows]


def top_level_modules() -> set[str]:
    modules = {p.stem for p in PACKAGE.glob("*.py") if p.name != "__init__.py"}
    return modules | {p.parent.name for p in PACKAGE.glob("*/__init__.py")}


def test_the_import_contracts_hold() -> None:
    lint = Path(sys.executable).with_name("lint-imports")
    done = subprocess.run(
        [str(lint), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]


def test_every_row_has_a_contract_and_every_module_a_row() -> None:
    ours = top_level_modules()
    rows = [r for r in table_rows() if r & ours]  # `web` has no Python
    covered = [contract_modules(c) for c in contracts()]
    assert sorted(map(sorted, rows)) == sorted(map(sorted, covered)), (
        "the rows of docs/architecture.md's import table and the contracts in pyproject.toml "
        "should name the same modules"
    )
    assert set().union(*rows) == ours, f"modules without a row: {ours - set().union(*rows)}"


def test_the_rules_and_bots_use_only_the_standard_library() -> None:
    graph = grimp.build_graph("gameshack", include_external_packages=True)
    allowed = {"rules": {"gameshack"}, "bots": {"gameshack"}}
    for layer, ours in allowed.items():
        for module in graph.find_descendants(f"gameshack.{layer}"):
            for imported in graph.find_modules_directly_imported_by(module):
                top = imported.split(".")[0]
                if top in ours:
                    continue
                assert top in sys.stdlib_module_names, f"{module} imports {imported}"


def test_rules_import_pulls_in_no_io_framework() -> None:
    code = (
        "import sys, gameshack.rules, gameshack.rules.rummy, gameshack.rules.tiles\n"
        f"bad = [m for m in {FORBIDDEN!r} if m in sys.modules]\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"gameshack.rules imported {out.stdout.strip()}"
