"""Tile Rummy solver against the integer-programming reference, side by side.

Generates the instance classes from fixed seeds (normal: table 30–60 tiles, dense: 80–92,
initial: an initial meld from a rack of 14–20), runs ``gameshack.rules.tiles.solver.solve``
and the den Hertog & Hulshof ILP (HiGHS) on each instance in the same run, checks they agree
on the objective (tiles placed, value), and prints median / p90 / p99 of both and the ratio.

    .venv/bin/python bench/tile_solver.py [--normal N] [--dense N] [--initial N]
    .venv/bin/python bench/tile_solver.py --write-reference   # refresh the test's answers
    .venv/bin/python bench/tile_solver.py --moved-gap normal:500 --time-limit 4

``--write-reference`` solves 500 instances per class with the ILP only and writes
``tests/rules/tiles/tile_solver_reference.json``, which the test suite compares against
(the ILP is too slow to run 1500 times in every test run; the test re-solves a sample live).

``--moved-gap CLASS:N`` measures the third objective, which the solver does not prove: per
instance, table tiles ours moves against the fewest possible at the optimal (tiles, value),
from the ILP extended with the moved objective (seconds per normal instance; dense instances
mostly hit any practical ``--time-limit``, and then count as unresolved unless the ILP's
best found already moves fewer than ours); the same count for the search alone
(``fewer_moved=False``) shows what the moved pass gains.
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

from gameshack.rules.tiles import _solver_dp  # noqa: E402
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


def warm_up(count: int) -> None:
    """Solve other instances first (seed 2), as a running server would have: the solver
    caches the ways to use one number's tiles, keyed by which tiles are there."""
    for kind in ("normal", "dense", "initial"):
        for table, rack in ref.instances(kind, count, 2):
            _ours(kind, table, rack)


def backend() -> str:
    """Which solver core runs: the mypyc-compiled module or the pure-Python one."""
    path = _solver_dp.__file__ or ""
    return f"pure Python ({path})" if path.endswith(".py") else f"compiled ({path})"


def compare(counts: dict[str, int]) -> int:
    bad = 0
    print(f"solver backend: {backend()}")
    print("seed 1; times in ms; wall = perf_counter, cpu = process_time (the machine is shared)")
    print(
        "thread = thread_time, ours only: process_time also counts HiGHS's worker threads, "
        "still busy after an ILP solve, while ours runs (ours is one thread)"
    )
    print(
        f"{'class':8} {'n':>4} {'solver':>6} {'clock':>6} {'median':>8} {'p90':>8} {'p99':>8} {'max':>8}"
    )
    for kind, count in counts.items():
        insts = ref.instances(kind, count, 1)
        times: dict[tuple[str, str], list[float]] = {}
        for table, rack in insts:
            w0, c0, t0 = time.perf_counter(), time.process_time(), time.thread_time()
            a = _ours(kind, table, rack)
            w1, c1, t1 = time.perf_counter(), time.process_time(), time.thread_time()
            b = _theirs(kind, table, rack)
            w2, c2 = time.perf_counter(), time.process_time()
            times.setdefault(("ours", "wall"), []).append((w1 - w0) * 1000)
            times.setdefault(("ours", "cpu"), []).append((c1 - c0) * 1000)
            times.setdefault(("ours", "thread"), []).append((t1 - t0) * 1000)
            times.setdefault(("ILP", "wall"), []).append((w2 - w1) * 1000)
            times.setdefault(("ILP", "cpu"), []).append((c2 - c1) * 1000)
            if a != b:
                bad += 1
                print(f"  MISMATCH {kind}: ours {a} reference {b}: {table} / {rack}")
        for (name, clock), xs in times.items():
            print(
                f"{kind:8} {count:4} {name:>6} {clock:>6} {statistics.median(xs):8.2f} "
                f"{_pct(xs, 0.9):8.2f} {_pct(xs, 0.99):8.2f} {max(xs):8.2f}"
            )
        for clock in ("wall", "cpu"):
            ours, theirs = times[("ours", clock)], times[("ILP", clock)]
            ratio = statistics.median(theirs) / statistics.median(ours)
            ratio99 = _pct(theirs, 0.99) / _pct(ours, 0.99)
            print(f"{kind:8} ILP/ours ({clock}): median x{ratio:.1f}, p99 x{ratio99:.1f}")
    print(f"objective mismatches: {bad}")
    return bad


def moved_gaps(kind: str, count: int, time_limit: float | None) -> None:
    """How often ours moves more table tiles than the fewest possible at the optimal
    (tiles, value), by the ILP with the third objective (slow: seconds per instance).
    With ``time_limit``, an instance the ILP does not finish counts as a gap only when its
    best found moves fewer than ours, and as unresolved when only the bound is below ours."""
    gaps: dict[int, int] = {}
    unresolved = 0
    searched_more = searched_total = 0  # the same for the search alone (fewer_moved=False)
    ilp_time: list[float] = []
    t_start = time.perf_counter()
    for i, (table, rack) in enumerate(ref.instances(kind, count, 1)):
        sol = solve(table, rack)
        searched = solve(table, rack, fewer_moved=False)
        t0 = time.process_time()
        r = ref.reference_solve(table, rack, moved=True, time_limit=time_limit)
        ilp_time.append(time.process_time() - t0)
        assert r.moved is not None and r.moved_lower is not None
        assert (len(sol.placed), sol.value) == (r.placed, r.value), "objectives 1-2 differ"
        gap = sol.moved - r.moved
        status = "" if r.moved == r.moved_lower else f" (ILP stopped, bound {r.moved_lower})"
        print(
            f"  {kind} {i}: ours moves {sol.moved} (search alone {searched.moved}), "
            f"fewest {r.moved}{status}",
            flush=True,
        )
        if gap <= 0 and r.moved_lower < sol.moved:
            unresolved += 1  # stopped: neither a better play nor a proof ours is best
            continue
        searched_more += searched.moved > r.moved
        searched_total += max(searched.moved - r.moved, 0)
        gaps[max(gap, 0)] = gaps.get(max(gap, 0), 0) + 1  # a stopped gap is at least this
    if not gaps:
        print(f"{kind}: all {unresolved} instances unresolved")
        return
    done = sum(gaps.values())
    more = done - gaps.get(0, 0)
    worst = max(gaps)
    total = sum(g * n for g, n in gaps.items())
    print(
        f"{kind}: {done} resolved instances, ours moves more than the fewest on {more} "
        f"(by {total} tiles in all, at most {worst}; by k tiles: "
        f"{dict(sorted(gaps.items()))}); unresolved {unresolved}; ILP cpu median "
        f"{statistics.median(ilp_time):.2f} s; {time.perf_counter() - t_start:.0f} s wall"
    )
    print(
        f"{kind}: the search alone, without the moved pass, moves more on {searched_more} "
        f"(by {searched_total} tiles in all)"
    )


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
    parser.add_argument("--normal", type=int, default=100, help="normal instances")
    parser.add_argument("--dense", type=int, default=30, help="dense instances (the ILP is slow)")
    parser.add_argument("--initial", type=int, default=150, help="initial-meld instances")
    parser.add_argument("--warmup", type=int, default=100, help="untimed solves first (0: cold)")
    parser.add_argument("--write-reference", action="store_true")
    parser.add_argument(
        "--moved-gap",
        metavar="CLASS:N",
        help="count plays moving more table tiles than the fewest (ILP, seconds each)",
    )
    parser.add_argument("--time-limit", type=float, default=None, help="per ILP, --moved-gap")
    args = parser.parse_args()
    if args.moved_gap:
        kind, n = args.moved_gap.split(":")
        moved_gaps(kind, int(n), args.time_limit)
        return
    if args.write_reference:
        write_reference()
        return
    counts = {"normal": args.normal, "dense": args.dense, "initial": args.initial}
    if args.warmup:
        print(f"warm-up: {args.warmup} solves per class from seed 2 (not timed)")
        warm_up(args.warmup)
    sys.exit(1 if compare(counts) else 0)


if __name__ == "__main__":
    main()
