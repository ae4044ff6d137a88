"""Tile Rummy solver against the integer-programming reference, side by side.

Generates the instance classes from fixed seeds (normal: table 30–60 tiles, dense: 80–92,
initial: an initial meld from a rack of 14–20), runs ``gameshack.rules.tiles.solver.solve``
and the den Hertog & Hulshof ILP (HiGHS) on each instance in the same run, checks they agree
on the objective (tiles placed, value), and prints median / p90 / p99 of both and the ratio.

    .venv/bin/python bench/tile_solver.py [--count N]
    .venv/bin/python bench/tile_solver.py --write-reference   # refresh the test's answers

``--write-reference`` solves 500 instances per class with the ILP only and writes
``tests/rules/tiles/tile_solver_reference.json``, which the test suite compares against
(the ILP is too slow to run 1500 times in every test run; the test re-solves a sample live).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "rules" / "tiles"))

import tile_solver_ref as ref  # noqa: E402

from gameshack.rules.tiles.solver import solve  # noqa: E402

REFERENCE_FILE = ROOT / "tests" / "rules" / "tiles" / "tile_solver_reference.json"
REFERENCE_COUNT = 500


def _pct(xs: list[float], p: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(p * len(s)))]


def _ours(kind: str, table: list[list[int]], rack: list[int]) -> tuple[int, int]:
    sol = solve(table, rack, initial_meld=kind == "initial")
    if not sol.found:
        return (0, 0)
    return (len(sol.placed), sol.value)


def _theirs(kind: str, table: list[list[int]], rack: list[int]) -> tuple[int, int]:
    r = ref.reference_solve(table, rack, initial_meld=kind == "initial")
    if kind == "initial" and r.value < 30:
        return (0, 0)
    if r.placed == 0:
        return (0, 0)
    return (r.placed, r.value)


def compare(count: int) -> int:
    bad = 0
    print(f"{count} instances per class, seed 1; times in ms (wall clock, this machine)")
    header = f"{'class':8} {'solver':>6} {'median':>8} {'p90':>8} {'p99':>8} {'max':>8}"
    print(header)
    for kind in ("normal", "dense", "initial"):
        insts = ref.instances(kind, count, 1)
        ours: list[float] = []
        theirs: list[float] = []
        for table, rack in insts:
            t0 = time.perf_counter()
            a = _ours(kind, table, rack)
            t1 = time.perf_counter()
            b = _theirs(kind, table, rack)
            t2 = time.perf_counter()
            ours.append((t1 - t0) * 1000)
            theirs.append((t2 - t1) * 1000)
            if a != b:
                bad += 1
                print(f"  MISMATCH {kind}: ours {a} reference {b}: {table} / {rack}")
        for name, xs in (("ours", ours), ("ILP", theirs)):
            print(
                f"{kind:8} {name:>6} {statistics.median(xs):8.2f} {_pct(xs, 0.9):8.2f} "
                f"{_pct(xs, 0.99):8.2f} {max(xs):8.2f}"
            )
        ratio = statistics.median(theirs) / statistics.median(ours)
        ratio99 = _pct(theirs, 0.99) / _pct(ours, 0.99)
        print(f"{kind:8} ILP/ours: median x{ratio:.1f}, p99 x{ratio99:.1f}")
    print(f"objective mismatches: {bad}")
    return bad


def write_reference() -> None:
    out: dict[str, object] = {"seed": 1, "count": REFERENCE_COUNT, "classes": {}}
    classes: dict[str, object] = {}
    for kind in ("normal", "dense", "initial"):
        insts = ref.instances(kind, REFERENCE_COUNT, 1)
        answers = []
        t0 = time.perf_counter()
        for table, rack in insts:
            answers.append(list(_theirs(kind, table, rack)))
        classes[kind] = {"digest": ref.digest(insts), "answers": answers}
        print(f"{kind}: {time.perf_counter() - t0:.1f} s", flush=True)
    out["classes"] = classes
    REFERENCE_FILE.write_text(json.dumps(out, separators=(",", ":")) + "\n")
    print(f"wrote {REFERENCE_FILE}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=150, help="instances per class")
    parser.add_argument("--write-reference", action="store_true")
    args = parser.parse_args()
    if args.write_reference:
        write_reference()
        return
    sys.exit(1 if compare(args.count) else 0)


if __name__ == "__main__":
    main()
