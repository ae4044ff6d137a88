"""The solver of two builds, interleaved on the same instances.

This VM's speed drifts by ±10% over minutes (and by 2–4× between sessions), so a change to the
solver is measured against the build before it in one run: the instances go in chunks, each
chunk solved by one build and then the other (which goes first alternates), every solve in
the build's own process, timed by thread time. Prints per build median / p90 / p99 / max and
sum, the instances where the two move a different number of table tiles, the
geometric mean of the per-instance ratios and, per class of jokers (on the table, in the
rack), the sums and that mean.

    git worktree add /tmp/base HEAD && make -C /tmp/base .venv/.installed
    .venv/bin/python bench/tile_solver_ab.py --base /tmp/base --class normal:500
    .venv/bin/python bench/tile_solver_ab.py --base /tmp/base --class dense:118 --chunk 20

Each checkout runs ``solve(table, rack)`` from its own ``.venv`` (its compiled rules
when they match its sources — make sure both are built); the instances are
``tests/rules/tiles/tile_solver_ref.py``'s, from this checkout. Know the noise before reading
a few percent: two builds of the same code (session 10) differed by x0.87 and x1.10 on 100
normal instances, by ±3–7% on all 500 — a change is real when it shows across runs and in
the joker classes it should touch, not in the others.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "rules" / "tiles"))

import tile_solver_ref as ref  # noqa: E402

Times = dict[int, tuple[float, int]]  # instance -> (thread ms, tiles moved)


def worker(kind: str, count: int, ids: list[int]) -> None:
    """Solve ``ids`` of the first ``count`` instances of ``kind`` with the ``gameshack`` this
    interpreter imports; print {id: [ms, moved]} as JSON."""
    import gameshack.rules
    from gameshack.rules.tiles_solver import solve

    if not gameshack.rules.COMPILED:
        print("warning: this build runs the pure-Python rules", file=sys.stderr)
    insts = ref.instances(kind, count, 1)
    out: Times = {}
    for i in ids:
        table, rack = insts[i]
        t0 = time.thread_time()
        sol = solve(table, rack)
        out[i] = ((time.thread_time() - t0) * 1000, sol.moved)
    print(json.dumps(out))


def _run(root: Path, kind: str, count: int, ids: list[int]) -> Times:
    python = root / ".venv" / "bin" / "python"
    args = [str(python), __file__, "--worker", f"{kind}:{count}", ",".join(map(str, ids))]
    done = subprocess.run(args, capture_output=True, text=True, cwd=root, check=False)
    if done.returncode:
        sys.exit(f"{root}: {done.stderr.strip()}")
    if done.stderr:
        print(f"{root}: {done.stderr.strip()}", file=sys.stderr)
    return {int(k): (v[0], v[1]) for k, v in json.loads(done.stdout).items()}


def _line(name: str, d: Times) -> str:
    from tile_solver import _pct  # the bench's own percentiles (imports the solver: not here)

    xs = [v[0] for v in d.values()]
    return (
        f"{name}: sum {sum(xs):.0f} ms, median {statistics.median(xs):.2f} / "
        f"p90 {_pct(xs, 0.9):.1f} / p99 {_pct(xs, 0.99):.1f} / max {max(xs):.1f}"
    )


def _geo(a: Times, b: Times, ids: list[int]) -> float:
    return math.exp(sum(math.log(b[i][0] / a[i][0]) for i in ids) / len(ids))


def compare(base: Path, kind: str, count: int, chunk: int) -> int:
    a: Times = {}
    b: Times = {}
    for k, start in enumerate(range(0, count, chunk)):
        ids = list(range(start, min(count, start + chunk)))
        order = [(base, a), (ROOT, b)]
        for root, into in order if k % 2 == 0 else order[::-1]:
            into.update(_run(root, kind, count, ids))
    print(f"{kind}, {count} instances, A = {base}, B = {ROOT}")
    print(_line("A", a))
    print(_line("B", b))
    differ = [i for i in a if a[i][1] != b[i][1]]
    print(f"answers differ: {len(differ)} {differ[:10]}")
    ids = sorted(a)
    ratio = sum(b[i][0] for i in ids) / sum(a[i][0] for i in ids)
    print(f"B/A: sum x{ratio:.3f}, geometric mean of the ratios x{_geo(a, b, ids):.3f}")
    classes: dict[tuple[int, int], list[int]] = {}
    for i, (table, rack) in enumerate(ref.instances(kind, count, 1)):
        jokers = (sum(s.count(ref.JOKER) for s in table), rack.count(ref.JOKER))
        classes.setdefault(jokers, []).append(i)
    for jokers, members in sorted(classes.items()):
        sa = sum(a[i][0] for i in members)
        sb = sum(b[i][0] for i in members)
        print(
            f"  jokers {jokers}: {len(members)} instances, A {sa:.0f} ms, B {sb:.0f} ms, "
            f"geometric mean x{_geo(a, b, members):.3f}"
        )
    slowest = sorted(ids, key=lambda i: -max(a[i][0], b[i][0]))[:10]
    print("slowest (id, A ms, B ms):", [(i, round(a[i][0]), round(b[i][0])) for i in slowest])
    return 1 if differ else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, help="the other checkout (A), built")
    parser.add_argument("--class", dest="klass", default="normal:500", metavar="CLASS:N")
    parser.add_argument("--chunk", type=int, default=50, help="instances per turn")
    parser.add_argument("--worker", metavar="CLASS:N", help=argparse.SUPPRESS)
    parser.add_argument("ids", nargs="?", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        kind, n = args.worker.split(":")
        worker(kind, int(n), [int(x) for x in args.ids.split(",")])
        return
    if args.base is None:
        parser.error("--base is required")
    kind, n = args.klass.split(":")
    sys.exit(compare(args.base.resolve(), kind, int(n), args.chunk))


if __name__ == "__main__":
    main()
