"""The solver's public call: the best play of a rack onto a table.

:func:`solve` takes the table (a list of sets) and a rack, as faces or notation, and returns a
:class:`Solution`. The objective, in order:

1. the most rack tiles placed;
2. then the most value placed (a joker counts as the tile it stands for; when jokers from the
   table and from the rack both end up on the table, the rack's are credited with the highest
   meanings — jokers are interchangeable);
3. then as few table tiles moved out of their set as a bounded amount of work finds
   (:func:`.moved.moved_count` says what "moved" means).

1 and 2 are exact: one search (:mod:`.search`) scores tiles, then value, then its estimate of
the table tiles each play keeps, so among the best plays it returns one that keeps much of
the table. A rearranging pass (:mod:`.rearrange`) then moves fewer where it can, within
``moved_budget`` nodes — a count, so the same play on every machine. The fewest moved is not
proven: the tests and the bench compare it with an integer program (HiGHS) instead.

With ``initial_meld=True`` only new sets built from the rack count (the table is left alone)
and they must total at least 30 points; the objective is the most value, then the most tiles.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from gameshack.rules.common import MalformedAction
from gameshack.rules.tiles.config import INITIAL_MELD
from gameshack.rules.tiles.sets import check_set
from gameshack.rules.tiles.tiles import face_str, parse_face
from gameshack.rules.tiles_solver.entries import group_partition, placeable
from gameshack.rules.tiles_solver.rearrange import fewer_moved, placed_value
from gameshack.rules.tiles_solver.search import Decision, Search
from gameshack.rules.tiles_solver.setrules import (
    COLOURS,
    COPIES,
    JOKER,
    JOKERS,
    NUMBERS,
    RUN_MIN,
)

__all__ = ["INITIAL_MELD_MIN", "MOVED_BUDGET", "Solution", "solve"]

INITIAL_MELD_MIN: Final = INITIAL_MELD
# nodes the rearranging pass may spend on moving fewer table tiles (see :func:`solve`)
MOVED_BUDGET: Final = 3000

_COUNT_W: Final = 1 << 11  # above any total value, so tiles placed always come first
_KEPT_W: Final = 128  # above any count of table tiles kept, so value comes before them


@dataclass(frozen=True, slots=True)
class Solution:
    """The best play found.

    ``table``: the new table, each set an ordered list of faces (a joker at the position of
    what it stands for); ``placed``: the rack faces put on the table (sorted); ``value``:
    their value, jokers as what they stand for; ``moved``: table tiles no longer in (the
    continuation of) their old set; ``found``: False when nothing can be placed, or — for an
    initial meld — when no meld of 30 or more exists (then ``table`` is the table unchanged).
    """

    table: list[list[int]]
    placed: list[int]
    value: int
    moved: int
    found: bool

    def describe(self) -> str:
        sets = " | ".join(" ".join(face_str(f) for f in s) for s in self.table)
        placed = " ".join(face_str(f) for f in self.placed)
        return f"table: {sets or '(empty)'}\nplaced: {placed or '(nothing)'} (value {self.value})"


def solve(
    table: Sequence[Sequence[int | str]],
    rack: Sequence[int | str],
    *,
    initial_meld: bool = False,
    moved_budget: int = MOVED_BUDGET,
) -> Solution:
    """The best play of ``rack`` onto ``table`` (see the module docstring for the objective).

    ``moved_budget``: the work the rearranging pass may spend on moving fewer table tiles
    (0: the search's own play).

    Raises :class:`MalformedAction` for a bad tile, an invalid table set, more copies of a
    tile than the game has (two of each face, two jokers), or a negative ``moved_budget``.
    """
    if moved_budget < 0:
        raise MalformedAction(f"moved_budget {moved_budget} is negative", "bad_budget")
    old = [_faces(s) for s in table]
    hand = _faces(rack)
    runs: list[bool] = []
    for s in old:
        check = check_set(s)
        if not check.valid:
            raise MalformedAction(
                f"table set {' '.join(face_str(f) for f in s)!r} is not valid: {check.reason}",
                "bad_set",
            )
        runs.append(check.kind == "run")
    tcount = [0] * 53
    rcount = [0] * 53
    for s in old:
        for f in s:
            tcount[f] += 1
    for f in hand:
        rcount[f] += 1
    for f in range(53):
        limit = JOKERS if f == JOKER else COPIES
        if tcount[f] + rcount[f] > limit:
            raise MalformedAction(
                f"{face_str(f)} appears {tcount[f] + rcount[f]} times; the game has {limit}",
                "too_many_copies",
            )
    if initial_meld:
        return _initial_meld(old, rcount)
    return _best_play(old, runs, tcount, rcount, moved_budget)


def _face(tile: int | str) -> int:
    if isinstance(tile, str):
        return parse_face(tile)
    if isinstance(tile, bool) or not isinstance(tile, int) or not 0 <= tile <= JOKER:
        raise MalformedAction(f"{tile!r} is not a tile face (0..52)", "bad_tile")
    return tile


def _faces(tiles: Iterable[int | str]) -> list[int]:
    return [_face(t) for t in tiles]


def _initial_meld(old: list[list[int]], rcount: list[int]) -> Solution:
    unchanged = [list(s) for s in old]
    if sum((f % 13 + 1) * rcount[f] for f in range(52)) + 13 * rcount[JOKER] < INITIAL_MELD_MIN:
        return Solution(unchanged, [], 0, 0, False)  # even every tile would not make 30
    # value first, then tiles (fewer than 64 of them); a score above the floor is >= 30 points
    search = Search([0] * 52, rcount[:52], 0, rcount[JOKER], 1, 64, INITIAL_MELD_MIN * 64 - 1)
    res = search.run()
    if res is None:
        return Solution(unchanged, [], 0, 0, False)
    new_sets = _build_sets(res.decisions)
    placed = sorted(f for s in new_sets for f in s)
    return Solution(unchanged + new_sets, placed, res.score // 64, 0, True)


def _best_play(
    old: list[list[int]], runs: list[bool], tcount: list[int], rcount: list[int], budget: int
) -> Solution:
    rack = placeable(tcount[:52], rcount[:52], tcount[JOKER] + rcount[JOKER])
    search = Search(
        tcount[:52],
        rack,
        tcount[JOKER],
        rcount[JOKER],
        _COUNT_W * _KEPT_W,
        _KEPT_W,
        sum(tcount) * _COUNT_W * _KEPT_W - 1,  # every play holds the table's tiles
        _roles(old, runs),
        _old_sets(old, runs),
    )
    res = search.run()
    assert res is not None, "keeping the table as it is always works"
    new_sets = _build_sets(res.decisions)
    used = [0] * 53
    for s in new_sets:
        for f in s:
            used[f] += 1
    placed = [f for f in range(53) for _ in range(used[f] - tcount[f])]
    if not placed:
        return Solution([list(s) for s in old], [], 0, 0, False)
    value = placed_value(new_sets, placed)
    new_sets, moved = fewer_moved(old, new_sets, placed, value, budget)
    return Solution(new_sets, placed, value, moved, True)


def _roles(old: list[list[int]], runs: list[bool]) -> list[tuple[int, int]]:
    """Per face, table copies now in a group and in a run."""
    groups = [0] * 52
    in_runs = [0] * 52
    for s, run in zip(old, runs, strict=True):
        into = in_runs if run else groups
        for f in s:
            if f != JOKER:
                into[f] += 1
    return list(zip(groups, in_runs, strict=True))


def _old_sets(old: list[list[int]], runs: list[bool]) -> list[tuple[list[int], list[int]]]:
    """Per number, the real tiles of each old group there and, per colour, the old runs
    whose first real tile is there (what the search's kept estimate reads)."""
    out: list[tuple[list[int], list[int]]] = [([], [0] * COLOURS) for _ in range(NUMBERS + 2)]
    for s, run in zip(old, runs, strict=True):
        reals = [f for f in s if f != JOKER]
        if run:
            out[min(reals) % 13 + 1][1][reals[0] // 13] += 1
        else:
            out[reals[0] % 13 + 1][0].append(len(reals))
    return out


def _build_sets(decisions: Sequence[Decision]) -> list[list[int]]:
    """Turn the per-number decisions of the search into concrete ordered sets."""
    done: list[list[int]] = []
    open_runs: list[list[list[int]]] = [[] for _ in range(COLOURS)]
    for n, dec in enumerate(decisions, start=1):
        if dec.group_jokers or any(dec.groups):
            for colours, jk in group_partition(dec.groups, dec.group_jokers) or ():
                done.append([c * 13 + n - 1 for c in colours] + [JOKER] * jk)
        for c in range(COLOURS):
            runs = open_runs[c]
            reals, jokers = dec.runs[c], dec.run_jokers[c]
            if not (runs or reals or jokers):
                continue
            tiles = [c * 13 + n - 1] * reals + [JOKER] * jokers
            # every unfinished run goes on; complete runs go on while there are tiles
            short = [r for r in runs if len(r) < RUN_MIN]
            full = [r for r in runs if len(r) >= RUN_MIN]
            keep = len(tiles) - len(short)
            assert keep >= 0, "search decision leaves a short run"
            cont = short + full[:keep]
            done.extend(full[keep:])
            nxt = []
            for i, tile in enumerate(tiles):
                if i < len(cont):
                    cont[i].append(tile)
                    nxt.append(cont[i])
                else:
                    nxt.append([tile])
            open_runs[c] = nxt
    for runs in open_runs:
        done.extend(runs)
    return done
