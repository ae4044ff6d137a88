"""Tile Rummy solver against the integer-programming reference, side by side.

Generates the instance classes from fixed seeds (normal: table 30–60 tiles, dense: 80–92,
initial: an initial meld from a rack of 14–20), runs ``gameshack.rules.tiles_solver.solve``
(the default: what the bots and hints run) and the den Hertog & Hulshof ILP (HiGHS) on each
instance in the same run, checks they agree on the objective (tiles placed, value), and
prints median / p90 / p99 of both and the ratio. For the normal and dense classes it also
counts how often ``solve`` moves exactly the fewest table tiles the ILP proved possible (the
stored answers of ``--write-moved``), and by how many tiles it moves more in all.

    .venv/bin/python bench/tile_solver.py [--normal N] [--dense N] [--initial N]
    .venv/bin/python bench/tile_solver.py --write-reference   # refresh the test's answers
    .venv/bin/python bench/tile_solver.py --write-moved normal:500 --time-limit 60
    .venv/bin/python bench/tile_solver.py --game-positions 600 --budgets 0,1000,3000,10000

``--write-reference`` solves 500 instances per class with the ILP only and writes
``tests/rules/tiles/tile_solver_reference.json``, which the test suite compares against
(the ILP is too slow to run 1500 times in every test run; the test re-solves a sample live).
``--write-moved`` stores the ILP's fewest moved (``tile_solver_moved.json``; seconds per
normal instance, tens of seconds dense): the exact fewest-moved answer, for analysis only.

``--game-positions N`` plays a few bot matches, takes N of the positions the bots solved and
measures ``solve(moved_budget=B)`` per budget: time and table tiles moved.
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

from gameshack.rules.tiles_solver import search, solve  # noqa: E402

REFERENCE_FILE = ROOT / "tests" / "rules" / "tiles" / "tile_solver_reference.json"
REFERENCE_COUNT = 500
MOVED_FILE = ROOT / "tests" / "rules" / "tiles" / "tile_solver_moved.json"


def _pct(xs: list[float], p: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(p * len(s)))]


def _ours(kind: str, table: list[list[int]], rack: list[int]) -> tuple[int, int, int]:
    sol = solve(table, rack, initial_meld=kind == "initial")
    if not sol.found:
        return (0, 0, 0)
    return (len(sol.placed), sol.value, sol.moved)


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
    path = search.__file__ or ""
    return f"pure Python ({path})" if path.endswith(".py") else f"compiled ({path})"


def compare(counts: dict[str, int]) -> int:
    bad = 0
    print(f"solver backend: {backend()}")
    print("seed 1; times in ms; wall = perf_counter, cpu = process_time (the machine is shared)")
    print("thread = thread_time, ours only (one thread; HiGHS runs worker threads)")
    print(
        f"{'class':8} {'n':>4} {'solver':>6} {'clock':>6} {'median':>8} {'p90':>8} {'p99':>8} {'max':>8}"
    )
    for kind, count in counts.items():
        if count <= 0:
            continue
        insts = ref.instances(kind, count, 1)
        times: dict[tuple[str, str], list[float]] = {}
        # ours on every instance, then the ILP on every instance: HiGHS's worker threads
        # stay busy for a while after a solve, and interleaved they slowed ours here
        mine = []
        for table, rack in insts:
            w0, c0, t0 = time.perf_counter(), time.process_time(), time.thread_time()
            mine.append(_ours(kind, table, rack))
            w1, c1, t1 = time.perf_counter(), time.process_time(), time.thread_time()
            times.setdefault(("ours", "wall"), []).append((w1 - w0) * 1000)
            times.setdefault(("ours", "cpu"), []).append((c1 - c0) * 1000)
            times.setdefault(("ours", "thread"), []).append((t1 - t0) * 1000)
        answers = []
        for table, rack in insts:
            w1, c1 = time.perf_counter(), time.process_time()
            answers.append(_theirs(kind, table, rack))
            w2, c2 = time.perf_counter(), time.process_time()
            times.setdefault(("ILP", "wall"), []).append((w2 - w1) * 1000)
            times.setdefault(("ILP", "cpu"), []).append((c2 - c1) * 1000)
        for (table, rack), a, b in zip(insts, mine, answers, strict=True):
            if a[:2] != b:
                bad += 1
                print(f"  MISMATCH {kind}: ours {a[:2]} reference {b}: {table} / {rack}")
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
        stored = stored_moved(kind)[:count]
        pairs = zip(mine, stored, strict=False)  # fewer stored than asked: those only
        proven = [(m[2], fewest) for m, (fewest, lower) in pairs if fewest == lower]
        if proven:
            same = sum(1 for ours, fewest in proven if ours == fewest)
            more = sum(ours - fewest for ours, fewest in proven)
            print(
                f"{kind:8} moved: the ILP's proven fewest on {same} of {len(proven)}; "
                f"{more} table tiles more in all"
            )
    print(f"objective mismatches: {bad}")
    return bad


def stored_moved(kind: str) -> list[list[int]]:
    """The ILP's fewest moved ([moved, proven lower bound]) stored for ``kind``, in the
    order of ``ref.instances(kind, N, 1)``; [] if none are stored."""
    if not MOVED_FILE.exists():
        return []
    entry = json.loads(MOVED_FILE.read_text())["classes"].get(kind)
    if entry is None:
        return []
    answers: list[list[int]] = entry["answers"]
    insts = ref.instances(kind, len(answers), 1)
    assert ref.digest(insts) == entry["digest"], "generator changed: --write-moved again"
    return answers


def write_moved(kind: str, count: int, time_limit: float | None) -> None:
    """Solve the ILP with the third objective on the first ``count`` instances of ``kind``
    and store [fewest moved, proven lower bound] (equal unless ``time_limit`` stopped it)."""
    data = json.loads(MOVED_FILE.read_text()) if MOVED_FILE.exists() else {"classes": {}}
    insts = ref.instances(kind, count, 1)
    answers = []
    t0 = time.perf_counter()
    for table, rack in insts:
        r = ref.reference_solve(table, rack, moved=True, time_limit=time_limit)
        assert r.moved is not None and r.moved_lower is not None
        answers.append([r.moved, r.moved_lower])
    data["seed"] = 1
    data["classes"][kind] = {
        "digest": ref.digest(insts),
        "time_limit": time_limit,
        "answers": answers,
    }
    MOVED_FILE.write_text(json.dumps(data, separators=(",", ":")) + "\n")
    print(f"{kind}: {count} instances in {time.perf_counter() - t0:.0f} s; wrote {MOVED_FILE}")


def game_positions(count: int, budgets: list[int]) -> None:
    """The moved budget on positions from real bot games (Hard against Medium, seed 5):
    every full-play position the bots solved, a sample of ``count``; per budget the
    thread time and the table tiles moved."""
    import random

    from gameshack.arena import run_arena
    from gameshack.rules import tiles_solver

    seen: list[tuple[list[list[int]], list[int]]] = []
    plain = tiles_solver.solve

    def record(table, rack, *, initial_meld=False, **kw):  # type: ignore[no-untyped-def]
        if not initial_meld:
            seen.append(([list(x) for x in table], list(rack)))
        return plain(table, rack, initial_meld=initial_meld, **kw)

    tiles_solver.solve = record  # the bots import it when they play
    try:
        run_arena("tiles", "hard", "medium", pairs=2, seed=5, workers=1)
    finally:
        tiles_solver.solve = plain
    sample = random.Random(1).sample(seen, min(count, len(seen)))
    sizes = [sum(map(len, t)) for t, _ in sample]
    print(
        f"{len(seen)} positions from 4 matches; a sample of {len(sample)} (table tiles median "
        f"{statistics.median(sizes):.0f}, max {max(sizes)}); ms = thread time"
    )
    for b in budgets:
        ms = []
        moved = 0
        for table, rack in sample:
            t0 = time.thread_time()
            moved += solve(table, rack, moved_budget=b).moved
            ms.append((time.thread_time() - t0) * 1000)
        print(
            f"moved_budget {b:6}: ms median {statistics.median(ms):.2f} / p90 {_pct(ms, 0.9):.1f}"
            f" / p99 {_pct(ms, 0.99):.1f} / max {max(ms):.1f}; {moved} table tiles moved in all"
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
        "--write-moved",
        metavar="CLASS:N",
        help="store the ILP's fewest moved for the first N instances (slow)",
    )
    parser.add_argument("--time-limit", type=float, default=None, help="per moved ILP")
    parser.add_argument(
        "--game-positions",
        type=int,
        metavar="N",
        help="the moved budget on N positions from real bot games (--budgets)",
    )
    parser.add_argument("--budgets", default="0,1000,3000,10000", help="--game-positions")
    args = parser.parse_args()
    if args.game_positions:
        game_positions(args.game_positions, [int(b) for b in args.budgets.split(",")])
        return
    if args.write_moved:
        kind, n = args.write_moved.split(":")
        write_moved(kind, int(n), args.time_limit)
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
