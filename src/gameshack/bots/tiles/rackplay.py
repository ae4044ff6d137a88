"""New sets built only from one rack (the Easy tile bot's whole repertoire, and a check on the
solver's initial meld): the most tiles (or the most points) in disjoint valid sets.

The search branches on the lowest face still on the rack: leave one copy of it, or put it in a
group or run containing it (jokers fill gaps). Memoised on the remaining multiset.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gameshack.rules.tiles.sets import check_set
from gameshack.rules.tiles.tiles import JOKER, face_of

__all__ = ["RackPlay", "best_rack_sets", "lay_off"]


@dataclass(frozen=True, slots=True)
class RackPlay:
    sets: tuple[tuple[int, ...], ...]  # tile ids, each set in table order
    tiles: int
    value: int


Shape = tuple[tuple[int, ...], int]  # faces in table order (JOKER for a joker), value


def _shapes_with(face: int, counts: Sequence[int], jokers: int) -> list[Shape]:
    """Every group and run containing ``face`` that the multiset (counts, jokers) can make."""
    colour, number = face // 13, face % 13 + 1
    out: list[Shape] = []
    # Groups: the face plus other colours of its number, jokers for the rest.
    others = [c for c in range(4) if c != colour and counts[c * 13 + number - 1] > 0]
    n_others = len(others)
    for mask in range(1 << n_others):
        chosen = [others[i] for i in range(n_others) if mask >> i & 1]
        for j in range(jokers + 1):
            size = 1 + len(chosen) + j
            if 3 <= size <= 4 and j < size:
                faces = tuple(c * 13 + number - 1 for c in [colour, *chosen]) + (JOKER,) * j
                out.append((faces, number * size))
    # Runs: windows [a, b] of this colour containing the number.
    for a in range(max(1, number - 12), number + 1):
        need_j = 0
        for b in range(a, 14):
            if b < number:
                f = colour * 13 + b - 1
                if counts[f] == 0:
                    need_j += 1
                continue
            if b > number:
                f = colour * 13 + b - 1
                if counts[f] == 0:
                    need_j += 1
            if need_j > jokers:
                break
            if b - a + 1 >= 3:
                faces = tuple(
                    colour * 13 + x - 1 if x == number or counts[colour * 13 + x - 1] > 0 else JOKER
                    for x in range(a, b + 1)
                )
                out.append((faces, sum(range(a, b + 1))))
        # windows starting above the number are not windows containing it
    return out


def best_rack_sets(rack: Sequence[int], *, by_value: bool = False) -> RackPlay:
    """Disjoint valid sets from ``rack`` (tile ids): most tiles then most value, or (with
    ``by_value``, the initial-meld objective) most value then most tiles."""
    counts = [0] * 52
    jokers = 0
    for t in rack:
        f = face_of(t)
        if f == JOKER:
            jokers += 1
        else:
            counts[f] += 1
    memo: dict[tuple[tuple[int, ...], int], tuple[int, int, tuple[Shape, ...]]] = {}

    def key(n: int, v: int) -> tuple[int, int]:
        return (v, n) if by_value else (n, v)

    def search(cs: list[int], js: int) -> tuple[int, int, tuple[Shape, ...]]:
        k = (tuple(cs), js)
        hit = memo.get(k)
        if hit is not None:
            return hit
        low = next((f for f in range(52) if cs[f]), -1)
        if low < 0:
            memo[k] = (0, 0, ())
            return memo[k]
        cs[low] -= 1
        best = search(cs, js)
        cs[low] += 1
        for faces, value in _shapes_with(low, cs, js):
            used_j = sum(1 for f in faces if f == JOKER)
            for f in faces:
                if f != JOKER:
                    cs[f] -= 1
            if all(c >= 0 for c in cs):
                n, v, shapes = search(cs, js - used_j)
                cand = (n + len(faces), v + value, ((faces, value), *shapes))
                if key(cand[0], cand[1]) > key(best[0], best[1]):
                    best = cand
            for f in faces:
                if f != JOKER:
                    cs[f] += 1
        memo[k] = best
        return best

    n, v, shapes = search(counts, jokers)
    # Faces -> tile ids from the rack.
    free: dict[int, list[int]] = {}
    for t in rack:
        free.setdefault(face_of(t), []).append(t)
    sets = tuple(tuple(free[f].pop() for f in faces) for faces, _ in shapes)
    return RackPlay(sets, n, v)


def lay_off(
    table: Sequence[Sequence[int]], rack: Sequence[int]
) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]:
    """Rack tiles added to the ends of sets already down, without moving a table tile: a run
    extended at either end, a 4th colour added to a group. Jokers are kept back unless one
    is the last tile of the rack. Returns the new table (same sets, same order, each possibly
    longer) and the rack tiles placed."""
    sets = [tuple(s) for s in table]
    faces = [[face_of(t) for t in s] for s in sets]
    left = sorted(rack, key=lambda t: (face_of(t) == JOKER, face_of(t), t))
    placed: list[int] = []
    changed = True
    while changed and left:
        changed = False
        for t in list(left):
            f = face_of(t)
            if f == JOKER and len(left) > 1:
                continue
            for i, fs in enumerate(faces):
                for front in (False, True):
                    cand = [f, *fs] if front else [*fs, f]
                    if check_set(cand).valid:
                        faces[i] = cand
                        sets[i] = (t, *sets[i]) if front else (*sets[i], t)
                        left.remove(t)
                        placed.append(t)
                        changed = True
                        break
                if changed:
                    break
            if changed:
                break
    return tuple(sets), tuple(sorted(placed))
