"""The browser client's modules (src/gameshack/web/*.js) as a graph: every import, static or
dynamic, names a module that exists; no module reaches itself through its imports; and none
sets a global on `window` beyond the one view the browser tests read."""

from __future__ import annotations

import re
from pathlib import Path

WEB = Path(__file__).resolve().parents[2] / "src" / "gameshack" / "web"
# `import x from './a.js'`, `import './a.js'`, `export { x } from './a.js'`, `import('./a.js')`.
IMPORT = re.compile(
    r"""^\s*(?:import|export)\b[^'"]*?\bfrom\s*['"]([^'"]+)['"]"""
    r"""|^\s*import\s*['"]([^'"]+)['"]"""
    r"""|\bimport\(\s*['"]([^'"]+)['"]\s*\)""",
    re.MULTILINE,
)
# The browser tests' window on a seat's last view (tests/browser/helpers.py); nothing else.
# And a spectator's last `watching` frame (web/watch.js, tests/browser/test_watch_e2e.py).
ALLOWED_GLOBALS = {"__gsView", "__gsWatch"}


def imports(source: str) -> list[str]:
    return [next(g for g in m.groups() if g) for m in IMPORT.finditer(source)]


def graph() -> dict[str, list[str]]:
    out = {}
    for path in sorted(WEB.glob("*.js")):
        targets = imports(path.read_text(encoding="utf-8"))
        out[path.name] = [Path(t).name for t in targets]
    return out


def find_cycle(edges: dict[str, list[str]]) -> list[str] | None:
    """One import cycle as a path that ends where it starts, or None."""
    state: dict[str, int] = {}  # 1 = on the current path, 2 = done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in edges.get(node, []):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        path.pop()
        state[node] = 2
        return None

    for node in edges:
        if node not in state and (found := visit(node)):
            return found
    return None


def test_the_parser_reads_every_kind_of_import() -> None:
    src = (
        "import { a } from './a.js';\n"
        "import './b.js'; // side effects\n"
        "export { c } from './c.js';\n"
        "import {\n  d,\n  e,\n} from './d.js';\n"
        "const m = cond ? import('./e.js') : import('./f.js');\n"
    )
    assert imports(src) == ["./a.js", "./b.js", "./c.js", "./d.js", "./e.js", "./f.js"]
    assert find_cycle({"a": ["b"], "b": ["c"], "c": ["a"]}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": ["b", "c"], "b": ["c"], "c": []}) is None


def test_every_import_names_a_module_that_exists() -> None:
    edges = graph()
    assert "app.js" in edges
    missing = {(src, dst) for src, dsts in edges.items() for dst in dsts if dst not in edges}
    assert not missing, f"imports of modules that do not exist: {sorted(missing)}"


def test_no_module_imports_itself_through_others() -> None:
    cycle = find_cycle(graph())
    assert cycle is None, f"import cycle: {' -> '.join(cycle or [])}"


def test_no_globals_on_window() -> None:
    found = {
        (path.name, name)
        for path in WEB.glob("*.js")
        for name in re.findall(r"\bwindow\.(\w+)\s*=[^=]", path.read_text(encoding="utf-8"))
        if name not in ALLOWED_GLOBALS
    }
    assert not found, f"globals set on window: {sorted(found)}"
