"""Fewer table tiles moved, tiles placed and value unchanged: rearranging a play.

The search (:mod:`.search`) is exact on tiles placed and value and only estimates the tiles
kept, so its play may move more than it must. Given the play's placed tiles,
:func:`keep_sets` rebuilds the table keeping chosen old sets intact — each may grow at its
ends (runs) or take a fourth colour (groups of 3) — and partitions every other tile (the
placed ones and those of the old sets not kept) into new valid sets, by a small depth-first
search with a node budget. :func:`fewer_moved` cuts merged runs apart, then tries every old
set kept whole, then one more old set kept whole at a time, while its budget lasts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from gameshack.rules.tiles.sets import check_set
from gameshack.rules.tiles_solver.moved import moved_count
from gameshack.rules.tiles_solver.setrules import JOKER

__all__ = ["fewer_moved", "keep_sets", "order_like", "placed_value"]


def keep_sets(
    old: list[list[int]],
    keep: list[bool],
    placed: list[int],
    budget: list[int],
    hint: list[list[int]] | None = None,
) -> list[list[int]] | None:
    """A table holding every old set with ``keep`` intact (possibly extended by real tiles),
    the other old sets' tiles and ``placed`` in new sets; ``None`` if none is found within
    ``budget[0]`` nodes (decreased in place). ``hint``, a table (the search's answer), is
    tried first: how far each kept run grows at either end there."""
    cnt = [0] * 53
    for f in placed:
        cnt[f] += 1
    kept: list[list[int]] = []
    for s, k in zip(old, keep, strict=True):
        if k:
            kept.append(list(s))
        else:
            for f in s:
                cnt[f] += 1
    want = [_grown(s, hint or []) for s in kept]
    shape: list[tuple[bool, int, int]] = []  # per kept set: a run?, first and last meaning
    for s in kept:
        check = check_set(s)
        shape.append((check.kind == "run", check.meanings[0], check.meanings[-1]))
    if _hopeless(cnt, shape, kept):
        return None
    out: list[list[int]] = []
    if _extend(0, kept, shape, want, cnt, out, budget):
        return kept + out
    return None


def _grown(s: list[int], table: list[list[int]]) -> tuple[int, int]:
    """How many numbers a run ``s`` grows at its low and high end in the first run of
    ``table`` holding it ((0, 0) if none does, or ``s`` is a group)."""
    check = check_set(s)
    if check.kind != "run":
        return (0, 0)
    need = [f for f in s if f != JOKER]
    for t in table:
        if len(t) > len(s) and all(f in t for f in need):
            other = check_set(t)
            if other.kind == "run":
                lo, hi = other.meanings[0], other.meanings[-1]
                a, b = check.meanings[0], check.meanings[-1]
                if lo <= a and b <= hi and lo // 13 == a // 13:
                    return (a - lo, hi - b)
    return (0, 0)


def _hopeless(cnt: list[int], shape: list[tuple[bool, int, int]], kept: list[list[int]]) -> bool:
    """Whether some tile to place fits in no set of the tiles to place and at no kept set
    (next to a run's end, tiles to place filling the gap, or as a group's 4th colour)."""
    for f in range(52):
        if cnt[f] == 0 or not _stranded(cnt, f, f + 1):
            continue
        c, n = divmod(f, 13)
        fits = False
        for (run, first, last), s in zip(shape, kept, strict=True):
            if run:
                if first // 13 != c:
                    continue
                gap = range(f, first) if f < first else range(last + 1, f + 1)
                fits = (f < first or f > last) and all(cnt[g] > 0 for g in gap)
            elif len(s) == 3 and first % 13 == n:
                fits = all(g // 13 != c for g in s if g != JOKER) and JOKER not in s
            if fits:
                break
        if not fits:
            return True
    return False


def _extend(
    k: int,
    kept: list[list[int]],
    shape: list[tuple[bool, int, int]],
    want: list[tuple[int, int]],
    cnt: list[int],
    out: list[list[int]],
    budget: list[int],
) -> bool:
    """Try the extensions of kept set ``k`` (largest first), then the sets after it."""
    if k == len(kept):
        return _partition(cnt, out, kept, budget)
    budget[0] -= 1
    if budget[0] < 0:
        return False
    s = kept[k]
    run, first, last = shape[k]
    if run:
        left: list[int] = []
        f = first - 1
        while f >= first // 13 * 13 and cnt[f] > 0:
            left.append(f)
            f -= 1
        right: list[int] = []
        f = last + 1
        while f < first // 13 * 13 + 13 and cnt[f] > 0:
            right.append(f)
            f += 1
        first_try = (min(want[k][0], len(left)), min(want[k][1], len(right)))
        options = [first_try]
        for total in range(len(left) + len(right), -1, -1):
            for nl in range(min(total, len(left)), max(0, total - len(right)) - 1, -1):
                if (nl, total - nl) != first_try:
                    options.append((nl, total - nl))
        for nl, nr in options:
            add_l = left[:nl]
            add_r = right[:nr]
            for f in add_l + add_r:
                cnt[f] -= 1
            kept[k] = [*reversed(add_l), *s, *add_r]
            ok = _extend(k + 1, kept, shape, want, cnt, out, budget)
            for f in add_l + add_r:
                cnt[f] += 1
            if ok:
                return True
            if budget[0] < 0:
                kept[k] = s
                return False
        kept[k] = s
        return False
    if len(s) == 3:
        n = first % 13
        taken = {m // 13 for m in check_set(s).meanings}
        for c in range(4):
            f = c * 13 + n
            if c not in taken and cnt[f] > 0:
                cnt[f] -= 1
                kept[k] = [*s, f]
                ok = _extend(k + 1, kept, shape, want, cnt, out, budget)
                cnt[f] += 1
                if ok:
                    return True
                kept[k] = s
    return _extend(k + 1, kept, shape, want, cnt, out, budget)


def _partition(
    cnt: list[int], out: list[list[int]], kept: list[list[int]], budget: list[int]
) -> bool:
    """Split the tiles counted in ``cnt`` into valid new sets (appended to ``out``)."""
    budget[0] -= 1
    if budget[0] < 0:
        return False
    f = next((g for g in range(52) if cnt[g] > 0), -1)
    jokers = cnt[JOKER]
    if f >= 0 and _stranded(cnt, f, 52):
        return False
    if f < 0:
        return jokers == 0 or _place_jokers(jokers, out, kept)
    # f is the lowest face left: the tiles below it in its run, and the colours before it in
    # its group, can only be jokers
    cnt[f] -= 1
    ok = _sets_through(f, cnt, out, kept, budget)
    cnt[f] += 1
    return ok


def _sets_through(
    f: int, cnt: list[int], out: list[list[int]], kept: list[list[int]], budget: list[int]
) -> bool:
    """:func:`_partition` once the lowest face ``f`` (taken out of ``cnt``) is given a set:
    a run starting at it (jokers before it allowed) or a group of its number."""
    c, n = divmod(f, 13)
    jokers = cnt[JOKER]
    for lj in range(min(jokers, n) + 1):
        # a run of colour c through f, with lj jokers before it, grown to the right
        cnt[JOKER] -= lj
        run = [JOKER] * lj + [f]
        used: list[int] = []
        m = n + 1
        while True:
            if len(run) >= 3:
                out.append(list(run))
                ok = _partition(cnt, out, kept, budget)
                if ok:
                    break
                out.pop()
                if budget[0] < 0:
                    break
            if m > 12:
                ok = False
                break
            g = c * 13 + m
            if cnt[g] > 0:
                cnt[g] -= 1
                used.append(g)
                run.append(g)
            elif cnt[JOKER] > 0:
                cnt[JOKER] -= 1
                used.append(JOKER)
                run.append(JOKER)
            else:
                ok = False
                break
            m += 1
        for g in used:
            cnt[g] += 1
        cnt[JOKER] += lj
        if ok or budget[0] < 0:
            return ok
    # a group of f's number: f, colours after c, jokers for the rest
    others = [d * 13 + n for d in range(c + 1, 4) if cnt[d * 13 + n] > 0]
    for mask in range((1 << len(others)) - 1, -1, -1):
        pick = [others[i] for i in range(len(others)) if mask >> i & 1]
        for jk in range(min(jokers, 4 - 1 - len(pick)) + 1):
            if 1 + len(pick) + jk < 3:
                continue
            for g in pick:
                cnt[g] -= 1
            cnt[JOKER] -= jk
            out.append([f, *pick, *[JOKER] * jk])
            ok = _partition(cnt, out, kept, budget)
            if not ok:
                out.pop()
            for g in pick:
                cnt[g] += 1
            cnt[JOKER] += jk
            if ok or budget[0] < 0:
                return ok
    return False


def _stranded(cnt: list[int], first: int, stop: int) -> bool:
    """Whether some tile left (faces ``first`` to ``stop - 1``) can be in no set of the tiles
    left: no 3 consecutive numbers of its colour and no 3 colours of its number, jokers
    filling."""
    jokers = cnt[JOKER]
    for f in range(first, stop):
        if cnt[f] == 0:
            continue
        c, n = divmod(f, 13)
        if sum(cnt[d * 13 + n] > 0 for d in range(4)) + jokers >= 3:
            continue
        for lo in range(max(0, n - 2), min(n, 10) + 1):
            missing = sum(cnt[c * 13 + m] == 0 for m in range(lo, lo + 3))
            if missing <= jokers:
                break
        else:
            return True
    return False


def _place_jokers(jokers: int, out: list[list[int]], kept: list[list[int]]) -> bool:
    """Put the jokers left over at the end of some set, each where it stands for the highest
    number (a placed joker's value is what it stands for); greedy."""
    added: list[tuple[list[list[int]], int, list[int]]] = []
    for _ in range(jokers):
        best: tuple[int, list[list[int]], int, list[int]] | None = None
        for sets in (out, kept):
            for i, s in enumerate(sets):
                for cand, at in (([*s, JOKER], len(s)), ([JOKER, *s], 0)):
                    if len(cand) > 13:
                        continue
                    check = check_set(cand)
                    if check.valid and (best is None or check.meanings[at] % 13 > best[0]):
                        best = (check.meanings[at] % 13, sets, i, cand)
        if best is None:
            for sets, i, s in reversed(added):
                sets[i] = s
            return False
        _, sets, i, cand = best
        added.append((sets, i, sets[i]))
        sets[i] = cand
    return True


_TRY: Final = 150  # nodes for one rearrangement (failing can take very many)


def fewer_moved(
    old: list[list[int]], table: list[list[int]], placed: list[int], value: int, budget: int
) -> tuple[list[list[int]], int]:
    """``table`` rearranged to move fewer table tiles, the same tiles placed and value, within
    ``budget`` nodes of :func:`keep_sets` (a count, so the answer is the same on every
    machine): merged runs cut apart, then every old set kept whole, else greedily one more
    old set kept whole at a time (the largest first) while that moves fewer. Returns the
    table, ordered like the old one, and the tiles it moves."""
    table = order_like(old, table)
    moved = moved_count(old, table)
    if moved:
        table, moved = _split_runs(old, table, moved)
    left = [budget]
    tries = [[True] * len(old), *_one_more(old, table)]
    while moved and left[0] > 0:
        for keep in tries:
            got = _kept(old, keep, placed, value, left, table)
            if got is not None and got[1] < moved:
                table, moved = got
                break
            if left[0] <= 0:
                break
        else:
            break  # nothing kept whole moves fewer
        tries = _one_more(old, table)
    return table, moved


def _one_more(old: list[list[int]], table: list[list[int]]) -> list[list[bool]]:
    """The old sets ``table`` holds whole, and one more, for each other (the largest first)."""
    held = [any(_holds(t, s) for t in table) for s in old]
    order = sorted(range(len(old)), key=lambda i: -len(old[i]))
    return [[*held[:i], True, *held[i + 1 :]] for i in order if not held[i]]


def _kept(
    old: list[list[int]],
    keep: list[bool],
    placed: list[int],
    value: int,
    left: list[int],
    hint: list[list[int]],
) -> tuple[list[list[int]], int] | None:
    """:func:`keep_sets` with at most :data:`_TRY` of the nodes ``left`` (spent in place):
    the table ordered like the old one and what it moves, if it is a play of ``value``."""
    budget = [min(_TRY, left[0])]
    given = budget[0]
    table = keep_sets(old, keep, placed, budget, hint)
    left[0] -= given - max(budget[0], 0)
    if (
        table is None
        or not all(check_set(s).valid for s in table)
        or placed_value(table, placed) != value  # jokers may stand for less
    ):
        return None
    table = order_like(old, table)
    return table, moved_count(old, table)


def _holds(big: Sequence[int], small: Sequence[int]) -> bool:
    """Whether set ``big`` holds every tile of ``small`` (as often)."""
    rest = list(big)
    for f in small:
        if f not in rest:
            return False
        rest.remove(f)
    return True


def _split_runs(
    old: list[list[int]], new_sets: list[list[int]], moved: int
) -> tuple[list[list[int]], int]:
    """Cut long runs where an old run inside them begins or ends, when both pieces are runs
    and fewer tiles move (a merge of two old runs, say); greedy."""
    starts: set[int] = set()  # faces an old run starts at / ends at (as what they stand for)
    ends: set[int] = set()
    for s in old:
        check = check_set(s)
        if check.kind == "run":
            starts.add(check.meanings[0])
            ends.add(check.meanings[-1])
    out = [list(s) for s in new_sets]
    i = 0
    while i < len(out):
        t = out[i]
        i += 1
        check = check_set(t)
        if len(t) < 6 or check.kind != "run":
            continue
        for cut in range(3, len(t) - 2):
            if check.meanings[cut] not in starts and check.meanings[cut - 1] not in ends:
                continue
            a, b = t[:cut], t[cut:]
            if not (check_set(a).valid and check_set(b).valid):
                continue
            trial = [*out[: i - 1], a, b, *out[i:]]
            fewer = moved_count(old, trial)
            if fewer < moved:
                out, moved = trial, fewer
                break  # a is done (shorter than t); b is looked at next
    return order_like(old, out), moved


def order_like(old: list[list[int]], new: list[list[int]]) -> list[list[int]]:
    """Sets that survive keep their old place; the rest follow, sorted for a stable answer."""
    remaining = sorted(new, key=lambda s: (len(s), s))
    where: dict[tuple[int, ...], list[int]] = {}  # tiles -> places in remaining, in order
    for i, t in enumerate(remaining):
        where.setdefault(tuple(sorted(t)), []).append(i)
    out: list[list[int]] = []
    taken = [False] * len(remaining)
    for s in old:
        places = where.get(tuple(sorted(s)))
        if places:
            i = places.pop(0)
            taken[i] = True
            out.append(remaining[i])
    rest = [t for i, t in enumerate(remaining) if not taken[i]]
    return out + sorted(rest, key=lambda s: (min(s), s))


def placed_value(table: list[list[int]], placed: list[int]) -> int:
    """Value of the placed rack tiles; placed jokers take the highest joker meanings on the
    table (jokers are interchangeable)."""
    value = sum(f % 13 + 1 for f in placed if f != JOKER)
    k = placed.count(JOKER)
    if k:
        meanings: list[int] = []
        for s in table:
            if JOKER in s:
                check = check_set(s)
                meanings.extend(
                    m % 13 + 1 for f, m in zip(s, check.meanings, strict=True) if f == JOKER
                )
        meanings.sort(reverse=True)
        value += sum(meanings[:k])
    return value
