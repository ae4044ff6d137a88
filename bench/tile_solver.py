"""Tile Rummy solver against the integer-programming reference, side by side.

Generates the instance classes from fixed seeds (normal: table 30–60 tiles, dense: 80–92,
initial: an initial meld from a rack of 14–20), runs ``gameshack.rules.tiles.solver.solve``
and the den Hertog & Hulshof ILP (HiGHS) on each instance in the same run, checks they agree
on the objective (tiles placed, value), and prints median / p90 / p99 of both and the ratio.

    .venv/bin/python bench/tile_solver.py [--normal N] [--dense N] [--initial N]
    .venv/bin/python bench/tile_solver.py --write-reference   # refresh the test's answers
    .venv/bin/python bench/tile_solver.py --moved-gap normal:500 --exact 20 [--repeat 3]
    .venv/bin/python bench/tile_solver.py --write-moved normal:500 --time-limit 60
    .venv/bin/python bench/tile_solver.py --game-positions 600 --budgets 1000,3000,10000

``--write-reference`` solves 500 instances per class with the ILP only and writes
``tests/rules/tiles/tile_solver_reference.json``, which the test suite compares against
(the ILP is too slow to run 1500 times in every test run; the test re-solves a sample live).

The side-by-side times the default ``solve`` (exact on all three objectives) and, as
"fast", ``solve(exact_moved=False)``, which proves only the first two (the ILP is asked for
those two).

``--moved-gap CLASS:N`` measures the third objective: per instance, table tiles the fast
answer moves against the fewest possible at the optimal (tiles, value), from the ILP
extended with the moved objective — the answers stored in
``tests/rules/tiles/tile_solver_moved.json`` (``--write-moved``; seconds per normal
instance, tens of seconds dense) or, when fewer are stored, solved live, where
``--time-limit`` stops it (then unresolved unless its best found moves fewer than ours);
the same count for the search alone (``fewer_moved=False``) shows what the moved pass
gains, and ``--exact S`` times the default ``solve``, which is exact, against them
(``--repeat R``: R solves each, the least time reported beside the first — this VM's thread
time takes in the host's pauses, ±10-20% over minutes and spikes of 10-15 ms on single
solves, which set a p99 of 500 instances by chance).

``--game-positions N`` plays a few bot matches, takes N of the positions the bots solved and
measures ``solve(exact_moved=True, moved_budget=B)`` — what the bots and hints run — per
budget: time, how often it proves the fewest moved, table tiles saved.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures import TimeoutError as FuturesTimeout
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "rules" / "tiles"))

import tile_solver_ref as ref  # noqa: E402

from gameshack.rules.tiles import _solver_dp  # noqa: E402
from gameshack.rules.tiles.solver import solve  # noqa: E402

REFERENCE_FILE = ROOT / "tests" / "rules" / "tiles" / "tile_solver_reference.json"
REFERENCE_COUNT = 500
MOVED_FILE = ROOT / "tests" / "rules" / "tiles" / "tile_solver_moved.json"


def _pct(xs: list[float], p: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(p * len(s)))]


def _ours(
    kind: str, table: list[list[int]], rack: list[int], exact_moved: bool = True
) -> tuple[int, int]:
    sol = solve(table, rack, initial_meld=kind == "initial", exact_moved=exact_moved)
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
    print("thread = thread_time, ours only (one thread; HiGHS runs worker threads)")
    print("ours = solve() (exact on all three objectives); fast = solve(exact_moved=False)")
    print(
        f"{'class':8} {'n':>4} {'solver':>6} {'clock':>6} {'median':>8} {'p90':>8} {'p99':>8} {'max':>8}"
    )
    for kind, count in counts.items():
        if count <= 0:
            continue
        insts = ref.instances(kind, count, 1)
        times: dict[tuple[str, str], list[float]] = {}
        # ours on every instance, then the ILP on every instance, then the fast answer:
        # HiGHS's worker threads stay busy for a while after a solve, and interleaved they
        # slowed ours here (2 cores) by 10-25%; an instance just solved leaves the shared
        # caches warm for it, so the fast pass (last) is a little flattered
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
            t0 = time.thread_time()
            fast = _ours(kind, table, rack, exact_moved=False)
            times.setdefault(("fast", "thread"), []).append((time.thread_time() - t0) * 1000)
            for name, got in (("ours", a), ("fast", fast)):
                if got != b:
                    bad += 1
                    print(f"  MISMATCH {kind}: {name} {got} reference {b}: {table} / {rack}")
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


def _exact_moved(
    table: list[list[int]], rack: list[int], repeat: int = 1
) -> tuple[int, float, float]:
    """The moved of the default ``solve`` (exact), its first thread time and the least of
    ``repeat`` (this VM's thread time takes in pauses of the host: a solve of 3 ms
    sometimes measures 15-20; the least of a few is the solver's own time)."""
    times = []
    moved = -1
    for _ in range(repeat):
        t0 = time.thread_time()
        got = solve(table, rack).moved
        times.append(time.thread_time() - t0)
        if moved >= 0 and got != moved:
            raise AssertionError("the exact search answered differently when asked again")
        moved = got
    return moved, times[0], min(times)


def _exact(
    pool: list[ProcessPoolExecutor],
    table: list[list[int]],
    rack: list[int],
    seconds: float,
    repeat: int = 1,
) -> tuple[int | None, float, float]:
    """The default ``solve``'s moved and its thread times (the first, the least of
    ``repeat``) in a worker process, ``None`` past ``seconds`` (compiled code does not stop
    for a signal; the worker is replaced)."""
    future = pool[0].submit(_exact_moved, table, rack, repeat)
    try:
        moved, spent, least = future.result(timeout=seconds * repeat)
    except FuturesTimeout:
        for proc in list(getattr(pool[0], "_processes", {}).values()):
            proc.kill()
        pool[0].shutdown(wait=True, cancel_futures=True)
        pool[0] = ProcessPoolExecutor(1)
        return None, seconds, seconds
    return moved, spent, least


def moved_gaps(
    kind: str, count: int, time_limit: float | None, exact: float | None, repeat: int = 1
) -> None:
    """How often the fast answer moves more table tiles than the fewest possible at the optimal
    (tiles, value), by the ILP with the third objective: the stored answers when there are
    enough (``--write-moved``), else solved live (slow: seconds per instance). With
    ``time_limit``, an instance the ILP does not finish counts as a gap only when its
    best found moves fewer than ours, and as unresolved when only the bound is below ours.
    ``exact``: also the default ``solve`` (exact), at most that many seconds per instance
    (``repeat`` times: the least time is reported too)."""
    gaps: dict[int, int] = {}
    unresolved = 0
    searched_more = searched_total = 0  # the same for the search alone (fewer_moved=False)
    exact_times: list[float] = []
    least_times: list[float] = []
    exact_wrong = exact_stopped = 0
    ilp_time: list[float] = []
    stored = stored_moved(kind)
    use_stored = len(stored) >= count
    pool = [ProcessPoolExecutor(1)]
    print(f"fewest moved: {'stored ILP answers' if use_stored else 'the ILP, live'}")
    t_start = time.perf_counter()
    for i, (table, rack) in enumerate(ref.instances(kind, count, 1)):
        sol = solve(table, rack, exact_moved=False)
        searched = solve(table, rack, exact_moved=False, fewer_moved=False)
        if use_stored:
            fewest, lower = stored[i]
        else:
            t0 = time.process_time()
            r = ref.reference_solve(table, rack, moved=True, time_limit=time_limit)
            ilp_time.append(time.process_time() - t0)
            assert r.moved is not None and r.moved_lower is not None
            assert (len(sol.placed), sol.value) == (r.placed, r.value), "objectives 1-2 differ"
            fewest, lower = r.moved, r.moved_lower
        gap = sol.moved - fewest
        status = "" if fewest == lower else f" (ILP stopped, bound {lower})"
        line = f"  {kind} {i}: fast moves {sol.moved} (search alone {searched.moved}), "
        line += f"fewest {fewest}{status}"
        if exact is not None:
            moved, spent, least = _exact(pool, table, rack, exact, repeat)
            if moved is None:
                exact_stopped += 1
                line += f"; exact: stopped after {exact:g} s"
            else:
                exact_times.append(spent * 1000)
                least_times.append(least * 1000)
                # the ILP's best found when it stopped: exact may move fewer, never more
                wrong = moved != fewest if fewest == lower else not lower <= moved <= fewest
                exact_wrong += wrong
                line += f"; exact {moved} in {spent * 1000:.0f} ms" + (" WRONG" if wrong else "")
        print(line, flush=True)
        if gap <= 0 and lower < sol.moved:
            unresolved += 1  # stopped: neither a better play nor a proof ours is best
            continue
        searched_more += searched.moved > fewest
        searched_total += max(searched.moved - fewest, 0)
        gaps[max(gap, 0)] = gaps.get(max(gap, 0), 0) + 1  # a stopped gap is at least this
    pool[0].shutdown(wait=True)
    if not gaps:
        print(f"{kind}: all {unresolved} instances unresolved")
        return
    done = sum(gaps.values())
    more = done - gaps.get(0, 0)
    worst = max(gaps)
    total = sum(g * n for g, n in gaps.items())
    ilp = f"ILP cpu median {statistics.median(ilp_time):.2f} s; " if ilp_time else ""
    print(
        f"{kind}: {done} resolved instances, the fast answer moves more than the fewest on {more} "
        f"(by {total} tiles in all, at most {worst}; by k tiles: "
        f"{dict(sorted(gaps.items()))}); unresolved {unresolved}; {ilp}"
        f"{time.perf_counter() - t_start:.0f} s wall"
    )
    print(
        f"{kind}: the search alone, without the moved pass, moves more on {searched_more} "
        f"(by {searched_total} tiles in all)"
    )
    if exact is not None:
        xs = exact_times or [0.0]
        print(
            f"{kind}: the default (exact): {len(exact_times)} finished, {exact_wrong} differ from "
            f"the ILP, {exact_stopped} stopped at {exact:g} s; thread ms median "
            f"{statistics.median(xs):.1f} / p90 {_pct(xs, 0.9):.1f} / p99 {_pct(xs, 0.99):.1f} "
            f"/ max {max(xs):.1f} (finished ones)"
        )
        if repeat > 1:
            ys = least_times or [0.0]
            print(
                f"{kind}: the default (exact), the least of {repeat} solves each: thread ms "
                f"median {statistics.median(ys):.1f} / p90 {_pct(ys, 0.9):.1f} / p99 "
                f"{_pct(ys, 0.99):.1f} / max {max(ys):.1f}"
            )


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
    thread time, how many it proves the fewest moved on, and how many table tiles it saves
    against the fast answer (``exact_moved=False``)."""
    import random

    from gameshack.arena import run_arena
    from gameshack.rules.tiles import solver

    seen: list[tuple[list[list[int]], list[int]]] = []
    plain = solver.solve

    def record(table, rack, *, initial_meld=False, **kw):  # type: ignore[no-untyped-def]
        if not initial_meld:
            seen.append(([list(x) for x in table], list(rack)))
        return plain(table, rack, initial_meld=initial_meld, **kw)

    solver.solve = record  # the bots import it when they play
    try:
        run_arena("tiles", "hard", "medium", pairs=2, seed=5, workers=1)
    finally:
        solver.solve = plain
    sample = random.Random(1).sample(seen, min(count, len(seen)))
    sizes = [sum(map(len, t)) for t, _ in sample]
    print(
        f"{len(seen)} positions from 4 matches; a sample of {len(sample)} (table tiles median "
        f"{statistics.median(sizes):.0f}, max {max(sizes)}); ms = thread time"
    )
    base: list[float] = []
    rows: dict[int, list[tuple[float, int, int, bool]]] = {b: [] for b in budgets}
    for table, rack in sample:
        t0 = time.thread_time()
        default = solve(table, rack, exact_moved=False)
        base.append((time.thread_time() - t0) * 1000)
        for b in budgets:
            t0 = time.thread_time()
            sol = solve(table, rack, exact_moved=True, moved_budget=b)
            spent = (time.thread_time() - t0) * 1000
            rows[b].append((spent, default.moved, sol.moved, sol.moved_proven))
    print(
        f"fast answer: median {statistics.median(base):.2f} / p99 {_pct(base, 0.99):.2f}; "
        f"moves a table tile on {sum(1 for x in rows[budgets[0]] if x[1])}"
    )
    for b in budgets:
        xs = rows[b]
        ms = [x[0] for x in xs]
        better = [x for x in xs if x[2] < x[1]]
        print(
            f"moved_budget {b:6}: ms median {statistics.median(ms):.2f} / p90 {_pct(ms, 0.9):.1f}"
            f" / p99 {_pct(ms, 0.99):.1f} / max {max(ms):.1f}; the fewest proven on "
            f"{sum(x[3] for x in xs)}; fewer moved than the fast answer on {len(better)} "
            f"(by {sum(x[1] - x[2] for x in better)} tiles)"
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
    parser.add_argument(
        "--write-moved",
        metavar="CLASS:N",
        help="store the ILP's fewest moved for the first N instances (slow)",
    )
    parser.add_argument("--time-limit", type=float, default=None, help="per moved ILP")
    parser.add_argument(
        "--exact",
        type=float,
        metavar="SECONDS",
        help="--moved-gap: also time the default (exact) solve, stopped after SECONDS",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        metavar="R",
        help="--exact: solve each instance R times and report the least time too",
    )
    parser.add_argument(
        "--game-positions",
        type=int,
        metavar="N",
        help="the moved budget on N positions from real bot games (--budgets)",
    )
    parser.add_argument("--budgets", default="1000,3000,10000", help="--game-positions")
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error(f"--repeat must be at least 1, not {args.repeat}")
    if args.game_positions:
        game_positions(args.game_positions, [int(b) for b in args.budgets.split(",")])
        return
    if args.moved_gap:
        kind, n = args.moved_gap.split(":")
        moved_gaps(kind, int(n), args.time_limit, args.exact, args.repeat)
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
