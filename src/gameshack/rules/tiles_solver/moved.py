"""How many table tiles a play moves: the measure the solver makes as small as it can.

Each old set is paired with at most one new set (its continuation) and keeps the tiles the
two share (faces; a joker is shared when both hold one, as often as both do); the pairs are
chosen to keep the most (a maximum-weight matching). Moved = old tiles - kept.
"""

from __future__ import annotations

from collections.abc import Sequence

from gameshack.rules.tiles_solver.setrules import JOKER

__all__ = ["moved_count"]


def moved_count(old: Sequence[Sequence[int]], new: Sequence[Sequence[int]]) -> int:
    """Table tiles moved out of their set: old tiles minus those kept when each old set is
    paired with at most one new set (its continuation), pairs chosen to keep the most.
    """
    total = 0
    for s in old:
        total += len(s)
    # each set as its real faces (a bit each) and its jokers: what two sets share is the
    # faces of both and the fewer jokers (a valid set holds a real face at most once)
    okeys = [_set_key(s) for s in old]
    nkeys = [_set_key(s) for s in new]
    if -1 in okeys or -1 in nkeys:
        return _moved_count_multisets(old, new)
    kept = 0
    # An old set that reappears unchanged is paired with its copy: that never loses (for
    # S = s, any S' keeps at least |S' & s| + |S & s'| - |S| of s', so swapping is no worse).
    unchanged: dict[int, list[int]] = {}
    for ni, key in enumerate(nkeys):
        unchanged.setdefault(key, []).append(ni)
    used_new = [False] * len(new)
    rest_old: list[int] = []
    for oi, key in enumerate(okeys):
        same = unchanged.get(key)
        if same:
            used_new[same.pop()] = True
            kept += len(old[oi])
        else:
            rest_old.append(oi)
    if rest_old:
        free = [nkeys[ni] for ni in range(len(new)) if not used_new[ni]]
        weights = []
        for oi in rest_old:
            key = okeys[oi]
            reals = key & _REALS
            jokers = key >> 53
            row = []
            for other in free:
                both = jokers if jokers < other >> 53 else other >> 53
                row.append((reals & other).bit_count() + both)
            weights.append(row)
        kept += _max_assignment(weights)
    return total - kept


_REALS = (1 << 52) - 1


def _set_key(s: Sequence[int]) -> int:
    """A set's real faces as a bit mask, its jokers above (bit 53 on); -1 when a real face
    is there twice (not a valid set: :func:`moved_count` then counts copies)."""
    mask = 0
    jokers = 0
    for f in s:
        if f == JOKER:
            jokers += 1
        else:
            bit = 1 << f
            if mask & bit:
                return -1
            mask |= bit
    return mask | jokers << 53


def _moved_count_multisets(old: Sequence[Sequence[int]], new: Sequence[Sequence[int]]) -> int:
    """:func:`moved_count` for sets that may hold a face twice (only invalid ones do)."""
    total = sum(len(s) for s in old)
    kept = 0
    unchanged: dict[tuple[int, ...], list[int]] = {}
    for ni, s in enumerate(new):
        unchanged.setdefault(tuple(sorted(s)), []).append(ni)
    used_new: set[int] = set()
    rest_old: list[int] = []
    for oi, s in enumerate(old):
        same = unchanged.get(tuple(sorted(s)))
        if same:
            used_new.add(same.pop())
            kept += len(s)
        else:
            rest_old.append(oi)
    if rest_old:
        free_new = [ni for ni in range(len(new)) if ni not in used_new]
        where: dict[int, list[int]] = {}  # face -> positions in free_new holding it
        for col, ni in enumerate(free_new):
            for f in set(new[ni]):
                where.setdefault(f, []).append(col)
        weights = []
        for oi in rest_old:
            row = [0] * len(free_new)
            counts = _counts(old[oi])
            for f, k in counts.items():
                for col in where.get(f, ()):
                    row[col] += min(k, new[free_new[col]].count(f)) if f == JOKER else 1
            weights.append(row)
        kept += _max_assignment(weights)
    return total - kept


def _max_assignment(w: list[list[int]]) -> int:
    """Maximum-weight matching of rows to columns, each used at most once."""
    rows = [r for r in w if any(r)]
    if not rows:
        return 0
    # columns no row gains from play no part
    cols = [j for j in range(len(rows[0])) if any(r[j] for r in rows)]
    rows = [[r[j] for j in cols] for r in rows]
    # the common case: each row's best column is its own, so the row maxima are reached
    best = [r.index(max(r)) for r in rows]
    if len(set(best)) == len(best):
        return sum(max(r) for r in rows)
    return _hungarian(rows)


def _counts(s: Sequence[int]) -> dict[int, int]:
    d: dict[int, int] = {}
    for f in s:
        d[f] = d.get(f, 0) + 1
    return d


def _hungarian(rows: list[list[int]]) -> int:
    """Maximum-weight matching of rows to columns, each used at most once (Hungarian
    method, rectangular: no more rows than columns — else on the transpose —, minimising
    the negated weights; integers in flat lists, which the compiled code reads fastest)."""
    n, m = len(rows), len(rows[0])
    if n > m:
        rows = [[rows[i][j] for i in range(n)] for j in range(m)]
        n, m = m, n
    w = m + 1
    cost = [0] * ((n + 1) * w)  # 1-based: row i, column j at i * w + j
    for i in range(n):
        r = rows[i]
        base = (i + 1) * w
        for j in range(m):
            cost[base + j + 1] = -r[j]
    inf = 1 << 40
    u = [0] * (n + 1)
    v = [0] * w
    match = [0] * w  # match[col] = row (1-based), 0 = free
    way = [0] * w
    minv = [0] * w
    used = [False] * w
    for i in range(1, n + 1):
        match[0] = i
        j0 = 0
        for j in range(w):
            minv[j] = inf
            used[j] = False
        while True:
            used[j0] = True
            i0 = match[j0]
            base = i0 * w
            ui = u[i0]
            delta = inf
            j1 = 0
            for j in range(1, w):
                if not used[j]:
                    cur = cost[base + j] - ui - v[j]
                    if cur < minv[j]:
                        minv[j] = cur
                        way[j] = j0
                    if minv[j] < delta:
                        delta = minv[j]
                        j1 = j
            for j in range(w):
                if used[j]:
                    u[match[j]] += delta
                    v[j] -= delta
                else:
                    minv[j] -= delta
            j0 = j1
            if match[j0] == 0:
                break
        while True:
            j1 = way[j0]
            match[j0] = match[j1]
            j0 = j1
            if j0 == 0:
                break
    return -sum(cost[match[j] * w + j] for j in range(1, w) if match[j])
