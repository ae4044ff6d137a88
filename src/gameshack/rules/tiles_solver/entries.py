"""The ways to use one number's tiles: the search's moves, built once and shared.

An *entry* says, for one number, how many real tiles of each colour go to groups and to runs
and how many jokers go into groups. Entries depend only on the copies of that number's faces
(table and rack), so they are cached across numbers and calls. They are listed most real
tiles first (the search tries the best first and stops early), then most table tiles keeping
their role (a group tile in a group, a run tile in a run: plays that move less are met
first), then fewest jokers.

An entry is one int: per colour, real tiles to runs (3 bits each, from bit 0), jokers in
groups (bit 12), real tiles placed (bit 15), per colour real tiles in groups (2 bits each,
from bit 20). The low 15 bits are its *shape*: entries of one shape lead to the same state.
A *usable* entry — one a state can afford — is an int too: per colour, tiles to runs with
the jokers the unfinished runs need (3 bits each), jokers used (bit 12), real tiles placed
(bit 15), per colour the jokers put in runs (3 bits each, from bit 20), and from bit 32 the
entry's index in its list. Flat ints keep the caches small and out of the garbage
collector's way.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache, lru_cache
from typing import Final

from gameshack.rules.tiles_solver.setrules import COLOURS, GROUP_MAX, GROUP_MIN, JOKERS, RUN_MIN

__all__ = ["Cands", "entries", "group_partition", "placeable"]

_SHAPE: Final = (1 << 15) - 1


@cache
def group_partition(
    counts: tuple[int, int, int, int], jokers: int
) -> tuple[tuple[tuple[int, ...], int], ...] | None:
    """Split real tiles (per colour) and jokers of one number into groups, or ``None``.

    Returns groups as (colours, jokers): each of :data:`GROUP_MIN` to :data:`GROUP_MAX`
    tiles, distinct colours, at least one real tile.
    """
    if sum(counts) == 0:
        return () if jokers == 0 else None
    first = next(c for c in range(COLOURS) if counts[c])
    # the first colour that still has tiles must be in the next group (order doesn't matter)
    others = [c for c in range(first + 1, COLOURS) if counts[c]]
    for size in range(len(others) + 1, -1, -1):
        for extra in _subsets(others, size):
            colours = (first, *extra)
            for jk in range(min(jokers, GROUP_MAX - len(colours)) + 1):
                if len(colours) + jk < GROUP_MIN:
                    continue
                rest = list(counts)
                for c in colours:
                    rest[c] -= 1
                sub = group_partition((rest[0], rest[1], rest[2], rest[3]), jokers - jk)
                if sub is not None:
                    return ((colours, jk), *sub)
    return None


def _subsets(items: list[int], size: int) -> list[tuple[int, ...]]:
    if size == 0:
        return [()]
    if size > len(items):
        return []
    out: list[tuple[int, ...]] = []
    for i, x in enumerate(items):
        for rest in _subsets(items[i + 1 :], size - 1):
            out.append((x, *rest))
    return out


def placeable(table: Sequence[int], rack: Sequence[int], jokers: int) -> list[int]:
    """Rack copies per face (0..51) that could be in *some* set with the other tiles present
    (``table`` and ``rack``: copies per face) and ``jokers`` jokers.

    A tile with no possible group partners and no possible run neighbours can never be
    placed; dropping it (repeatedly, as dropping one can strand another) shrinks the search.
    """
    rack = list(rack[:52])
    present = [table[f] + rack[f] > 0 for f in range(52)]
    changed = True
    while changed:
        changed = False
        for f in range(52):
            if not rack[f]:
                continue
            i = f % 13
            base = f - i
            partners = present[i] + present[13 + i] + present[26 + i] + present[39 + i]
            if partners + jokers >= GROUP_MIN:
                continue
            ok = False
            for start in range(max(0, i - RUN_MIN + 1), min(i, 13 - RUN_MIN) + 1):
                missing = 0
                for m in range(start, start + RUN_MIN):
                    if m != i and not present[base + m]:
                        missing += 1
                if missing <= jokers:
                    ok = True
                    break
            if not ok:
                rack[f] = 0
                present[f] = table[f] > 0
                changed = True
    return rack


@lru_cache(maxsize=16384)  # a tuple of ints each: the cache stays small
def entries(ekey: int) -> tuple[int, ...]:
    """The ways to use the real tiles of one number in groups (with jokers) and runs, most
    real tiles first, then most table tiles keeping their role, then fewest jokers; one per
    shape. ``ekey``: per colour (8 bits each) the table and rack copies and the table copies
    now in a group and in a run (2 bits each), then the jokers (bit 32).

    The entries themselves depend only on the copies (cached separately, as building them is
    the slow part); the roles only reorder them, which is cheap."""
    roles = ekey & 0xF0F0F0F0
    # built for every joker count the game allows, kept to those that fit: more hits
    jokers = ekey >> 32 & 7
    most = jokers if jokers > JOKERS else JOKERS
    base = _base_entries(ekey & ~0x7F0F0F0F0 | most << 32)
    if jokers < most:
        base = tuple(e for e in base if (e >> 12 & 7) <= jokers)
    if not roles:
        return _first_per_shape(base)
    kt0 = _KEEP[ekey >> 4 & 15]
    kt1 = _KEEP[ekey >> 12 & 15]
    kt2 = _KEEP[ekey >> 20 & 15]
    kt3 = _KEEP[ekey >> 28 & 15]
    keyed: list[int] = []
    for i, e in enumerate(base):
        keep = (
            kt0[(e >> 17 & 24) | (e & 7)]
            + kt1[(e >> 19 & 24) | (e >> 3 & 7)]
            + kt2[(e >> 21 & 24) | (e >> 6 & 7)]
            + kt3[(e >> 23 & 24) | (e >> 9 & 7)]
        )
        # most real tiles, most kept, fewest jokers, then the base order, packed in one int
        keyed.append((31 - (e >> 15 & 31)) << 44 | (15 - keep) << 40 | (e >> 12 & 7) << 36 | i)
    keyed.sort()
    return _first_per_shape([base[k & 0xFFFFFFFFF] for k in keyed])


# _KEEP[g | r << 2][gg << 3 | rr]: of a colour's table copies, g now in a group and r in a
# run, how many keep their role when gg of its tiles go to groups and rr to runs
_KEEP: Final = [
    [min(gg, g) + min(rr, r) for gg in range(4) for rr in range(8)]
    for r in range(4)
    for g in range(4)
]


def _first_per_shape(entries: Sequence[int]) -> tuple[int, ...]:
    """The first entry of each shape: entries of one shape lead to the same state with the
    same gain (see :func:`_base_entries`), so only the first, in the search's order, can ever
    be chosen."""
    seen: set[int] = set()
    out: list[int] = []
    for e in entries:
        shape = e & _SHAPE
        if shape not in seen:
            seen.add(shape)
            out.append(e)
    return tuple(out)


@lru_cache(maxsize=4096)  # holds them all: 6 ** 4 copies per colour
def _base_entries(akey: int) -> tuple[int, ...]:
    """:func:`entries` without the role order (most real tiles, then fewest jokers, then
    tiles to groups and to runs in increasing lexicographic order); ``akey`` as there,
    without the roles.

    Entries of one shape (tiles to runs per colour, jokers in groups) lead to the same state
    and differ only in how many real tiles go to groups: all but those with the most are
    beaten by them (same future, fewer tiles now), so per shape only the most are listed."""
    a0 = akey & 3
    a1 = akey >> 8 & 3
    a2 = akey >> 16 & 3
    a3 = akey >> 24 & 3
    t0 = a0 + (akey >> 2 & 3)
    t1 = a1 + (akey >> 10 & 3)
    t2 = a2 + (akey >> 18 & 3)
    t3 = a3 + (akey >> 26 & 3)
    jokers = akey >> 32 & 7
    keyed: list[int] = []
    for r0 in range(t0 + 1):
        for r1 in range(t1 + 1):
            for r2 in range(t2 + 1):
                for r3 in range(t3 + 1):
                    # per colour, tiles to groups from lo (every table copy used) to hi
                    box = (
                        (a0 - r0 if a0 > r0 else 0) | (t0 - r0) << 2
                        | (a1 - r1 if a1 > r1 else 0) << 4 | (t1 - r1) << 6
                        | (a2 - r2 if a2 > r2 else 0) << 8 | (t2 - r2) << 10
                        | (a3 - r3 if a3 > r3 else 0) << 12 | (t3 - r3) << 14
                    )  # fmt: skip
                    rbits = r0 | r1 << 3 | r2 << 6 | r3 << 9
                    rlex = r0 << 6 | r1 << 4 | r2 << 2 | r3
                    rsum = r0 + r1 + r2 + r3
                    for gj in range(jokers + 1):
                        best = _box_best(box | gj << 16)
                        if not best:
                            continue
                        reals = (best[0] >> 8) + rsum
                        for g in best:
                            gbits = (g & 3) << 26 | (g >> 2 & 3) << 24 | (g >> 4 & 3) << 22
                            gbits |= (g >> 6 & 3) << 20
                            e = rbits | gj << 12 | reals << 15 | gbits
                            # sort key: most real tiles, fewest jokers, groups, runs (lex)
                            k = (31 - reals) << 3 | gj
                            keyed.append(((k << 8 | (g & 255)) << 8 | rlex) << 28 | e)
    keyed.sort()
    return tuple(k & 0xFFFFFFF for k in keyed)


def _box_best(key: int) -> tuple[int, ...]:
    """The ways to put real tiles of one number in groups, per colour between ``lo`` and
    ``hi`` (``key``: 2 bits each per colour, then the jokers in the groups), with the most
    tiles; each as ``gsum << 8`` and the counts, the first colour's in the highest 2 bits
    (so they sort lexicographically), in increasing order. Cached."""
    found = _BOX.get(key)
    if found is not None:
        return found
    jokers = key >> 16
    feasible = _GROUPS.get(jokers)
    if feasible is None:
        feasible = _GROUPS[jokers] = _group_row(jokers)
    out: list[int] = []
    most = -1
    for g0 in range(key & 3, (key >> 2 & 3) + 1):
        for g1 in range(key >> 4 & 3, (key >> 6 & 3) + 1):
            for g2 in range(key >> 8 & 3, (key >> 10 & 3) + 1):
                for g3 in range(key >> 12 & 3, (key >> 14 & 3) + 1):
                    gsum = g0 + g1 + g2 + g3
                    if gsum < most:
                        continue
                    g = g0 << 6 | g1 << 4 | g2 << 2 | g3
                    if not feasible[g]:
                        continue
                    if gsum > most:
                        most = gsum
                        out = []
                    out.append(gsum << 8 | g)
    found = tuple(out)
    _BOX[key] = found
    return found


_BOX: Final[dict[int, tuple[int, ...]]] = {}


def _group_row(jokers: int) -> list[bool]:
    """``_GROUPS[jokers][g]``: whether real tiles of one number, ``g`` holding each colour's
    count in 2 bits (the first colour highest), and that many jokers split into groups (no
    tiles at all: only with no joker)."""
    row = []
    for g in range(256):
        counts = (g >> 6 & 3, g >> 4 & 3, g >> 2 & 3, g & 3)
        if max(counts) > 2:
            row.append(False)
        elif sum(counts) == 0:
            row.append(jokers == 0)
        else:
            row.append(group_partition(counts, jokers) is not None)
    return row


_GROUPS: Final[dict[int, list[bool]]] = {}

# the affordable entries by entry table and state (see :class:`Cands`), shared between
# searches: two generations, the older dropped whole when the newer fills up
_USABLE: dict[int, tuple[tuple[int, ...], int]] = {}
_USABLE_OLD: dict[int, tuple[tuple[int, ...], int]] = {}
_USABLE_MAX: Final = 4000
_NO_USABLE: Final[tuple[tuple[int, ...], int]] = ((), 0)


class Cands:
    """The affordable entries of a number for a state (its unfinished runs and free jokers
    packed in ``pkey``), listed at least while they use more than ``least`` real tiles
    (lazily: most nodes stop after a few entries, so the rest is never looked at). The C
    node function lists them itself, as it goes."""

    __slots__ = ("ekeys", "ent", "usable")

    def __init__(self, ekeys: list[int], ent: list[tuple[int, ...]]) -> None:
        self.ekeys = ekeys
        self.ent = ent
        self.usable: dict[int, tuple[tuple[int, ...], int]] = {}

    def __call__(self, n: int, pkey: int, least: int) -> tuple[tuple[int, ...], int]:
        cands = self.usable.get(pkey)
        if cands is None:
            gk = self.ekeys[n] | (pkey & 16383) << 36
            cands = _USABLE.get(gk)
            if cands is None:
                cands = _USABLE_OLD.get(gk, _NO_USABLE)
                if cands[1]:
                    _remember(gk, cands)
            self.usable[pkey] = cands
        ents = self.ent[n]
        pos = cands[1]
        if pos < len(ents) and (ents[pos] >> 15 & 31) > least:
            out = list(cands[0])
            pos = _usable(ents, pos, least, out, pkey)
            cands = (tuple(out), pos)
            self.usable[pkey] = cands
            _remember(self.ekeys[n] | (pkey & 16383) << 36, cands)
        return cands


def _usable(ents: tuple[int, ...], pos: int, least: int, out: list[int], pkey: int) -> int:
    """Append to ``out`` the entries from ``pos`` on, while they use more than ``least`` real
    tiles, that a state can afford: each colour's unfinished runs (``pkey``: 3 bits per
    colour, then the free jokers) take a tile, a joker where the entry gives them too few
    real tiles; at most the free jokers. Returns where the scan stopped."""
    end = len(ents)
    m0 = pkey & 7
    m1 = pkey >> 3 & 7
    m2 = pkey >> 6 & 7
    m3 = pkey >> 9 & 7
    free = pkey >> 12 & 3
    while pos < end:
        e = ents[pos]
        reals = e >> 15 & 31
        if reals <= least:
            break
        r0 = e & 7
        r1 = e >> 3 & 7
        r2 = e >> 6 & 7
        r3 = e >> 9 & 7
        x0 = m0 - r0 if m0 > r0 else 0
        x1 = m1 - r1 if m1 > r1 else 0
        x2 = m2 - r2 if m2 > r2 else 0
        x3 = m3 - r3 if m3 > r3 else 0
        used = (e >> 12 & 7) + x0 + x1 + x2 + x3
        if used <= free:
            out.append(
                (r0 + x0)
                | (r1 + x1) << 3
                | (r2 + x2) << 6
                | (r3 + x3) << 9
                | used << 12
                | reals << 15
                | (x0 | x1 << 3 | x2 << 6 | x3 << 9) << 20
                | pos << 32
            )
        pos += 1
    return pos


def _remember(key: int, cands: tuple[tuple[int, ...], int]) -> None:
    global _USABLE, _USABLE_OLD
    if len(_USABLE) >= _USABLE_MAX and key not in _USABLE:
        _USABLE_OLD = _USABLE
        _USABLE = {}
    _USABLE[key] = cands  # replaced whole: never torn
