"""Test-only helpers for the Tile Rummy solver: random instances and an independent reference.

The reference is the integer program of den Hertog & Hulshof (2006): one integer variable per
possible set (how many copies of it go on the table), one tile-balance row per face (table
copies + rack copies placed = copies in the chosen sets), solved with HiGHS. It shares no code
with the solver's dynamic program; it only uses the tile encoding. Used by the tests and by
``bench/tile_solver.py``.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
from collections.abc import Callable
from dataclasses import dataclass

import highspy
import numpy as np

JOKER = 52
COUNT_W = 2048  # same lexicographic weighting as the solver: tiles first, then value


@dataclass(frozen=True)
class Candidate:
    faces: tuple[int, ...]  # real faces (each at most once)
    jokers: tuple[int, ...]  # the number each joker stands for
    value: int


def _candidates(longest_run: int = 5) -> list[Candidate]:
    out: dict[tuple[tuple[int, ...], tuple[int, ...]], Candidate] = {}

    def add(reals: list[int], jokers: list[int]) -> None:
        if not reals:
            return
        key = (tuple(sorted(reals)), tuple(sorted(jokers)))
        value = sum(f % 13 + 1 for f in reals) + sum(jokers)
        if key not in out or out[key].value < value:
            out[key] = Candidate(key[0], key[1], value)

    # runs of length 3..5 (longer runs split into these), up to two positions jokers
    for c in range(4):
        for length in range(3, longest_run + 1):
            for start in range(1, 15 - length):
                nums = list(range(start, start + length))
                for mask in range(1 << length):
                    jk = [nums[i] for i in range(length) if mask >> i & 1]
                    if len(jk) > 2:
                        continue
                    reals = [c * 13 + nums[i] - 1 for i in range(length) if not mask >> i & 1]
                    add(reals, jk)
    # groups of 3 or 4 distinct colours, jokers standing for missing colours
    for n in range(1, 14):
        for mask in range(1, 16):
            reals = [c * 13 + n - 1 for c in range(4) if mask >> c & 1]
            for jk in range(3):
                if 3 <= len(reals) + jk <= 4:
                    add(reals, [n] * jk)
    return list(out.values())


CANDIDATES = _candidates()
# for the moved count a long run is one set, not the runs of 3..5 it splits into
ALL_CANDIDATES = _candidates(13)


@dataclass(frozen=True)
class RefResult:
    placed: int  # rack tiles placed
    value: int  # their value (jokers credited with the highest meanings)
    sets: list[Candidate]
    moved: int | None = None  # fewest table tiles moved, when asked for (or best found)
    moved_lower: int | None = None  # proven lower bound on it (= moved unless stopped early)


def reference_solve(
    table: list[list[int]],
    rack: list[int],
    *,
    initial_meld: bool = False,
    moved: bool = False,
    time_limit: float | None = None,
) -> RefResult:
    """Optimal (tiles placed, value) by integer programming. ``initial_meld``: rack only,
    value first (then tiles); the caller checks the 30 threshold.

    ``moved``: also the third objective, the fewest table tiles moved out of their set, as
    the solver defines it (``solver.moved_count``): each old set is paired with at most one
    new set, its continuation, and keeps the tiles the two share; moved = table tiles minus
    the most kept. A second integer program fixes (tiles, value) at the first one's optimum
    and maximises the tiles kept; in it every run length is a candidate set (a run of 8
    kept whole is one set) and a variable pairs an old set with a candidate it shares tiles
    with. ``time_limit`` (seconds, second program only): stop early; ``moved`` is then the
    best found and ``moved_lower`` what the bound proves.
    """
    if moved:
        if initial_meld:
            raise ValueError("an initial meld moves nothing")
        first = reference_solve(table, rack)
        return _solve(table, rack, False, first.placed * COUNT_W + first.value, time_limit)
    return _solve(table, rack, initial_meld, None, None)


def _solve(
    table: list[list[int]],
    rack: list[int],
    initial_meld: bool,
    level: int | None,
    time_limit: float | None,
) -> RefResult:
    moved = level is not None
    tcount = [0] * 53
    rcount = [0] * 53
    if not initial_meld:
        for s in table:
            for f in s:
                tcount[f] += 1
    for f in rack:
        rcount[f] += 1
    avail = [tcount[f] + rcount[f] for f in range(53)]
    cands = [
        c
        for c in (ALL_CANDIDATES if moved else CANDIDATES)
        if all(avail[f] for f in c.faces) and len(c.jokers) <= avail[JOKER]
    ]
    if initial_meld:
        w_count, w_value = 1, 64
    else:
        w_count, w_value = COUNT_W, 1
    faces = sorted({f for c in cands for f in c.faces} | {f for f in range(52) if tcount[f]})
    row_of = {f: i for i, f in enumerate(faces)}
    jrow = len(faces)
    crow = jrow + 1
    cols_start: list[int] = [0]
    index: list[int] = []
    vals: list[float] = []
    cost: list[float] = []
    lower: list[float] = []
    upper: list[float] = []

    def col(entries: list[tuple[int, float]], c: float, ub: float) -> int:
        for r, v in entries:
            index.append(r)
            vals.append(v)
        cols_start.append(len(index))
        cost.append(c)
        lower.append(0.0)
        upper.append(ub)
        return len(cost) - 1

    # set variables, and for each joker slot a "credited to the rack" variable
    credit_rows: list[tuple[int, int]] = []
    set_cols: list[tuple[int, Candidate]] = []
    for c in cands:
        ub = min(
            [avail[f] for f in c.faces] + ([avail[JOKER] // len(c.jokers)] if c.jokers else [])
        )
        if ub <= 0:
            continue
        entries = [(row_of[f], 1.0) for f in c.faces]
        if c.jokers:
            entries.append((jrow, float(len(c.jokers))))
        xi = col(entries, 0.0, float(ub))
        set_cols.append((xi, c))
        if c.jokers and rcount[JOKER]:
            for m in c.jokers:
                wi = col([(crow, 1.0)], float(w_value * m), float(ub))
                credit_rows.append((wi, xi))
    # placed rack tiles
    for f in faces:
        if rcount[f]:
            col([(row_of[f], -1.0)], float(w_count + w_value * (f % 13 + 1)), float(rcount[f]))
    yj = col([(jrow, -1.0), (crow, -1.0)], float(w_count), float(rcount[JOKER]))
    del yj
    pair_rows: list[tuple[list[int], list[float]]] = []
    first_pair = len(cost)  # the pairing columns come last
    if moved:
        pair_rows = _pairing(table, set_cols, col)
        # (tiles, value) becomes a constraint at its optimum; the objective, the tiles kept
        level_idx = [j for j in range(first_pair) if cost[j]]
        level_coef = [cost[j] for j in level_idx]
        for j in level_idx:
            cost[j] = 0.0
    nrows = crow + 1
    row_lower = [float(tcount[f]) for f in faces] + [float(tcount[JOKER]), -np.inf]
    row_upper = [float(tcount[f]) for f in faces] + [float(tcount[JOKER]), 0.0]
    # w <= x rows
    extra_rows: list[tuple[int, int]] = []
    for wi, xi in credit_rows:
        extra_rows.append((wi, xi))
    h = highspy.Highs()
    h.silent()
    lp = highspy.HighsLp()
    ncols = len(cost)
    lp.num_col_ = ncols
    lp.num_row_ = nrows
    lp.col_cost_ = np.array(cost)
    lp.col_lower_ = np.array(lower)
    lp.col_upper_ = np.array(upper)
    lp.row_lower_ = np.array(row_lower)
    lp.row_upper_ = np.array(row_upper)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = np.array(cols_start, dtype=np.int32)
    lp.a_matrix_.index_ = np.array(index, dtype=np.int32)
    lp.a_matrix_.value_ = np.array(vals)
    lp.sense_ = highspy.ObjSense.kMaximize
    # with the sets fixed, pairing is a bipartite b-matching, whose polytope is integral: the
    # pairing variables need no integrality
    lp.integrality_ = [highspy.HighsVarType.kInteger] * first_pair + [
        highspy.HighsVarType.kContinuous
    ] * (ncols - first_pair)
    h.passModel(lp)
    for wi, xi in extra_rows:
        h.addRow(-np.inf, 0.0, 2, np.array([wi, xi], dtype=np.int32), np.array([1.0, -1.0]))
    for idx, coef in pair_rows:
        h.addRow(
            -np.inf,
            0.0 if coef[0] < 0 else 1.0,
            len(idx),
            np.array(idx, dtype=np.int32),
            np.array(coef),
        )
    if moved:
        lvl = float(level)
        h.addRow(
            lvl, lvl, len(level_idx), np.array(level_idx, dtype=np.int32), np.array(level_coef)
        )
        if time_limit is not None:
            h.setOptionValue("time_limit", float(time_limit))
    h.setOptionValue("presolve", "off")  # faster on these small models (see bench)
    h.setOptionValue("mip_rel_gap", 0.0)
    h.setOptionValue("mip_abs_gap", 0.0)
    h.run()
    status = h.getModelStatus()
    stopped = moved and status == highspy.HighsModelStatus.kTimeLimit
    assert status == highspy.HighsModelStatus.kOptimal or stopped, status
    sol = list(h.getSolution().col_value)
    found = math.isfinite(h.getInfo().objective_function_value)
    obj = round(h.getInfo().objective_function_value) if found else 0
    if not found:  # stopped early with no solution: no sets, every tile counted as moved
        sol = [0.0] * len(sol)
    sets: list[Candidate] = []
    for xi, c in set_cols:
        sets.extend([c] * round(sol[xi]))
    if initial_meld:
        return RefResult(obj % w_value, obj // w_value, sets)
    if moved:
        assert level is not None
        total = sum(map(len, table))
        bound = obj  # the most tiles kept, proven
        if stopped:
            dual = h.getInfo().mip_dual_bound
            # (a bound below the best found means HiGHS stopped before it had one)
            known = math.isfinite(dual) and dual >= obj - 0.5
            bound = min(total, math.floor(dual + 1e-6)) if known else total
        return RefResult(level // w_count, level % w_count, sets, total - obj, total - bound)
    return RefResult(obj // w_count, obj % w_count, sets)


def _kept(old: list[int], c: Candidate) -> int:
    """Tiles of old set ``old`` that stay in it when candidate ``c`` is its continuation."""
    reals = set(c.faces)
    return sum(1 for f in old if f != JOKER and f in reals) + min(old.count(JOKER), len(c.jokers))


def _pairing(
    table: list[list[int]],
    set_cols: list[tuple[int, Candidate]],
    col: Callable[[list[tuple[int, float]], float, float], int],
) -> list[tuple[list[int], list[float]]]:
    """Pairing variables z(old set, candidate) in {0, 1}, worth the tiles they keep; rows:
    each old set paired at most once (<= 1), each candidate at most as often as it is on
    the table (sum z - x <= 0)."""
    per_cand: dict[int, list[int]] = {}
    rows: list[tuple[list[int], list[float]]] = []
    for old in table:
        zs = []
        for xi, c in set_cols:
            k = _kept(old, c)
            if k:
                zi = col([], float(k), 1.0)
                zs.append(zi)
                per_cand.setdefault(xi, []).append(zi)
        if zs:
            rows.append((zs, [1.0] * len(zs)))
    for xi, zs in per_cand.items():
        rows.append(([xi, *zs], [-1.0] + [1.0] * len(zs)))
    return rows


# ---------------------------------------------------------------- random instances


def _take(pool: list[int], faces: list[int]) -> bool:
    need: dict[int, int] = {}
    for f in faces:
        need[f] = need.get(f, 0) + 1
    if any(pool[f] < k for f, k in need.items()):
        return False
    for f, k in need.items():
        pool[f] -= k
    return True


def _random_set(rng: random.Random) -> list[int]:
    if rng.random() < 0.55:
        c = rng.randrange(4)
        length = rng.choice((3, 3, 4, 4, 5, 6))
        start = rng.randint(1, 14 - length)
        return [c * 13 + start + i - 1 for i in range(length)]
    n = rng.randint(1, 13)
    colours = rng.sample(range(4), rng.choice((3, 3, 4)))
    return [c * 13 + n - 1 for c in colours]


def random_instance(
    rng: random.Random, table_size: tuple[int, int], rack_size: tuple[int, int]
) -> tuple[list[list[int]], list[int]]:
    """A table of valid sets whose size is in ``table_size`` and a rack drawn from the rest.

    Each of the two jokers is on the table, on the rack or in the pool with the chances a
    real deal gives (proportional to their sizes); a table joker replaces a random tile of a
    random set (which stays valid), and that tile goes back to the pool.
    """
    lo, hi = table_size
    while True:
        target = rng.randint(lo, hi)
        pool = [2] * 52 + [0]
        table: list[list[int]] = []
        size = 0
        fails = 0
        while size < target and fails < 400:
            s = _random_set(rng)
            if size + len(s) > hi or not _take(pool, s):
                fails += 1
                continue
            table.append(s)
            size += len(s)
        if size >= lo:
            break
    rsize = rng.randint(*rack_size)
    rack_jokers = 0
    for _ in range(2):
        u = rng.random() * 106
        if u < size and table:
            s = rng.choice(table)
            i = rng.randrange(len(s))
            if s[i] != JOKER and s.count(JOKER) == 0:
                pool[s[i]] += 1
                s[i] = JOKER
                continue
            pool[JOKER] += 1
        elif u < size + rsize:
            rack_jokers += 1
        else:
            pool[JOKER] += 1
    bag = [f for f in range(52) for _ in range(pool[f])]
    rng.shuffle(bag)
    rack = bag[: rsize - rack_jokers] + [JOKER] * rack_jokers
    return table, rack


CLASSES: dict[str, tuple[tuple[int, int], tuple[int, int]]] = {
    "normal": ((30, 60), (14, 20)),
    "dense": ((80, 92), (14, 20)),
    "initial": ((0, 0), (14, 20)),
}


def instances(kind: str, count: int, seed: int) -> list[tuple[list[list[int]], list[int]]]:
    rng = random.Random(f"{kind}:{seed}")
    tsize, rsize = CLASSES[kind]
    return [random_instance(rng, tsize, rsize) for _ in range(count)]


def digest(insts: list[tuple[list[list[int]], list[int]]]) -> str:
    """A fingerprint of generated instances, so stored answers notice a changed generator."""
    return hashlib.sha256(json.dumps(insts).encode()).hexdigest()[:16]
