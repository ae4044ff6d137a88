"""Exact best play for Tile Rummy: the most rack tiles onto the table, every set valid.

:func:`solve` takes the table (a list of sets) and a rack, as faces or notation, and returns a
:class:`Solution`. The objective, in order:

1. the most rack tiles placed;
2. then the most value placed (a joker counts as the tile it stands for; when jokers from the
   table and from the rack both end up on the table, the rack's are credited with the highest
   meanings — jokers are interchangeable);
3. then the fewest table tiles moved out of their set (see :func:`moved_count` for what
   "moved" means), exact by default. Among the best plays, the search tries first those
   that keep table tiles in their role, then a pass rearranges its answer, same tiles and
   value, to keep every old set whole if it can (:mod:`._solver_moved`), else cuts runs
   it merged back apart; unless that play moves nothing, the fewest is then proven:
   first the linear relaxation (:mod:`._solver_lp`), whose bound is most often the
   answer and whose solution most often a play meeting it (where it is not, asked again
   with the rack tiles every best play places fixed); else a search over the best plays
   only, telling apart the runs that continue an old set (:mod:`._solver_kept`), under
   that bound — milliseconds (normal instances: median ~1.4 ms, p99 ~12-13 ms; dense
   ~5 and ~20-25 ms; the most seen ~40 ms); past ~0.1 s of work it races the same search down
   the mirrored instance when jokers earn nothing (:func:`_kept_race`). ``moved_budget``
   caps that proof's work (a count, not the clock) and keeps the best play found by
   then, which is what the bots and hints use; ``exact_moved=False`` skips it (best
   effort, in a half to a quarter of the time: it moves more than the fewest on 45% of
   normal instances and 89% of dense ones). Objectives 1 and 2 are always exact.

With ``initial_meld=True`` only new sets built from the rack count (the table is left alone)
and they must total at least 30 points; the objective is the most value, then the most tiles.

The search is a dynamic program over the numbers 1..13 (:mod:`._solver_dp`), explored depth
first with bounds; it is checked against an integer program in the tests. Plain typed Python,
compiled with mypyc when installed (the pure-Python fallback gives the same answers).
For a full play the sweep up (1..13) races the same sweep over the mirrored instance (down,
13..1), taking turns with a doubling node budget: both are exact, and some instances are
far easier from one end. Which one finishes first is decided by node counts, not the clock,
so the answer is deterministic.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

from gameshack.rules.common import MalformedAction
from gameshack.rules.tiles._solver_dp import (
    Decision,
    DPResult,
    Search,
    group_partition,
    placeable,
    solve_bb,
)
from gameshack.rules.tiles._solver_kept import KeptSearch
from gameshack.rules.tiles._solver_lp import kept_lp
from gameshack.rules.tiles._solver_moved import keep_sets
from gameshack.rules.tiles.sets import check_set
from gameshack.rules.tiles.tiles import JOKER, face_str, parse_face

__all__ = ["INITIAL_MELD_MIN", "Solution", "moved_count", "solve"]

INITIAL_MELD_MIN = 30
_T = TypeVar("_T")

_COUNT_W = 1 << 11  # above any total value, so tiles placed always come first
_VALUE_W = 1
_KEPT_W = 128  # above any count of table tiles (106 in the game)


@dataclass(frozen=True, slots=True)
class Solution:
    """The best play found.

    ``table``: the new table, each set an ordered list of faces (a joker at the position of
    what it stands for); ``placed``: the rack faces put on the table (sorted); ``value``:
    their value, jokers as what they stand for; ``moved``: table tiles no longer in (the
    continuation of) their old set; ``found``: False when nothing can be placed, or — for an
    initial meld — when no meld of 30 or more exists (then ``table`` is the table unchanged);
    ``moved_proven``: ``moved`` is the fewest possible among the best plays (nothing moved,
    or the exact moved search finished).
    """

    table: list[list[int]]
    placed: list[int]
    value: int
    moved: int
    found: bool
    moved_proven: bool = False

    def describe(self) -> str:
        sets = " | ".join(" ".join(face_str(f) for f in s) for s in self.table)
        placed = " ".join(face_str(f) for f in self.placed)
        return f"table: {sets or '(empty)'}\nplaced: {placed or '(nothing)'} (value {self.value})"


def _face(tile: int | str) -> int:
    if isinstance(tile, str):
        return parse_face(tile)
    if isinstance(tile, bool) or not isinstance(tile, int) or not 0 <= tile <= JOKER:
        raise MalformedAction(f"{tile!r} is not a tile face (0..52)", "bad_tile")
    return tile


def _faces(tiles: Iterable[int | str]) -> list[int]:
    return [_face(t) for t in tiles]


def solve(
    table: Sequence[Sequence[int | str]],
    rack: Sequence[int | str],
    *,
    initial_meld: bool = False,
    fewer_moved: bool = True,
    exact_moved: bool = True,
    moved_budget: int | None = None,
) -> Solution:
    """The best play of ``rack`` onto ``table`` (see the module docstring for the objective).

    By default the fewest table tiles moved among the best plays, proven
    (``moved_proven``). With ``moved_budget``, that proof stops after so much work (1–2 µs
    each, compiled; a count, so the same on every machine) and the best play it found by
    then — else the fast answer — stands (``moved_proven`` says whether it is the
    fewest). ``exact_moved=False``: the fast answer, best effort on the moved (see the
    module docstring). ``fewer_moved=False`` (with ``exact_moved=False``) skips the pass
    that rearranges the search's answer to move fewer table tiles (there to measure that
    pass).

    Raises :class:`MalformedAction` for a bad tile, an invalid table set, more copies of a
    tile than the game has (two of each face, two jokers), or a negative ``moved_budget``.
    """
    if moved_budget is not None and moved_budget < 0:
        raise MalformedAction(f"moved_budget {moved_budget} is negative", "bad_budget")
    old = [_faces(s) for s in table]
    hand = _faces(rack)
    runs: list[bool] = []
    for s in old:
        check = check_set(s)
        runs.append(check.kind == "run")
        if not check.valid:
            raise MalformedAction(
                f"table set {' '.join(face_str(f) for f in s)!r} is not valid: {check.reason}",
                "bad_set",
            )
    tcount = [0] * 53
    rcount = [0] * 53
    for s in old:
        for f in s:
            tcount[f] += 1
    for f in hand:
        rcount[f] += 1
    for f in range(53):
        limit = 2
        if tcount[f] + rcount[f] > limit:
            raise MalformedAction(
                f"{face_str(f)} appears {tcount[f] + rcount[f]} times; the game has {limit}",
                "too_many_copies",
            )
    if initial_meld:
        return _initial_meld(old, rcount)
    # The searches build millions of short-lived tuples and lists and keep big memos: the
    # cyclic garbage collector, run every few hundred allocations and over the whole memo
    # at its oldest generation, took half the time of the fewest-moved search and 10% of
    # the tile search. They make no garbage that needs it, so it waits until the end (and
    # stays as the caller had it: another thread's pause is left alone).
    paused = gc.isenabled()
    if paused:
        gc.disable()
    try:
        return _best_play(old, runs, tcount, rcount, fewer_moved, exact_moved, moved_budget)
    finally:
        if paused:
            gc.enable()


def _initial_meld(old: list[list[int]], rcount: list[int]) -> Solution:
    unchanged = [list(s) for s in old]
    if (
        sum(f % 13 + 1 for f in range(52) for _ in range(rcount[f])) + 13 * rcount[JOKER]
        < INITIAL_MELD_MIN
    ):
        return Solution(unchanged, [], 0, 0, False, True)  # even every tile would not make 30
    # value first, then tiles (fewer than 64 of them); a score above the floor is >= 30 points
    res = solve_bb([0] * 52, rcount[:52], 0, rcount[JOKER], 1, 64, [INITIAL_MELD_MIN * 64 - 1])
    if res is None:
        return Solution(unchanged, [], 0, 0, False, True)
    new_sets = _build_sets(res.decisions)
    placed = sorted(f for s in new_sets for f in s)
    return Solution(unchanged + new_sets, placed, res.score // 64, 0, True, True)


def _best_play(
    old: list[list[int]],
    runs: list[bool],
    tcount: list[int],
    rcount: list[int],
    fewer_moved: bool,
    exact_moved: bool,
    moved_budget: int | None = None,
) -> Solution:
    rack = _placeable(tcount, rcount)
    table_jokers = tcount[JOKER]
    table_reals = sum(tcount) - table_jokers
    roles = _roles(old, runs)
    new_sets = None
    # the downward tile search with jokers scoring nothing, built at most once (for the
    # tile race, then for the moved race)
    relaxed_down = _RelaxedDown(tcount, rack, roles)
    down_oracle: Callable[[], Search] | None = None
    tile_down = False  # whether the tile search downward finished first
    if rcount[JOKER] == 0:
        # no joker can earn anything: place jokers only where tiles are missing, the rest after
        floors = _floors(table_reals)
        up = Search(tcount[:52], rack, table_jokers, 0, _COUNT_W, _VALUE_W, floors, True, roles)
        res, mirrored = _race(up, relaxed_down)
        assert res is not None, "keeping the table as it is always works"
        new_sets = _add_jokers(_sets_of(res, mirrored), table_jokers)
        oracle, target = up, res.score
        down_oracle = relaxed_down
        tile_down = mirrored
    if new_sets is None:
        floors = _floors(table_reals + table_jokers)
        up = Search(
            tcount[:52], rack, table_jokers, rcount[JOKER], _COUNT_W, _VALUE_W, floors, False, roles
        )
        res, mirrored = _race(
            up,
            lambda: _DownByJokers(
                _mirror(tcount[:52]),
                _mirror(rack),
                table_jokers,
                rcount[JOKER],
                floors,
                _mirror(roles),
            ),
        )
        assert res is not None, "keeping the table as it is always works"
        new_sets = _sets_of(res, mirrored)
        oracle, target = up, res.score
    used = [0] * 53
    for s in new_sets:
        for f in s:
            used[f] += 1
    placed: list[int] = []
    for f in range(53):
        placed.extend([f] * (used[f] - tcount[f]))
    if not placed:
        return Solution([list(s) for s in old], [], 0, 0, False, True)
    value = _placed_value(new_sets, placed)
    new_sets = _order_like(old, new_sets)
    moved = moved_count(old, new_sets)
    if moved and fewer_moved:
        new_sets, moved = _fewer_moved(old, new_sets, placed, value, moved)
    proven = not moved
    if moved and exact_moved:
        total = sum(map(len, old))
        lp = _KeptLP(old, tcount, rcount, rack, new_sets, placed, value, total - moved)
        done, better = _kept_race(
            old,
            runs,
            tcount,
            rack,
            oracle,
            down_oracle,
            target,
            total - moved,
            moved_budget,
            _KeptOracle(old, runs, tcount, rack, rcount[JOKER], roles),
            tile_down,
            lp,
        )
        if not done and better is None:
            return Solution(new_sets, placed, value, moved, True, False)
        proven = done and (better is None or better[2])
        if better is not None and better[1] is lp.checked:
            # the relaxation's play, checked when it was read (ordered, valid, the same
            # tiles placed, what it keeps measured: :class:`_KeptLP`)
            new_sets, placed, moved = better[1], lp.checked_placed, total - better[0]
        elif better is not None:
            table = _order_like(old, better[1])
            used = [0] * 53
            for s in table:
                for f in s:
                    used[f] += 1
            # the same tiles placed may differ (as long as count and value are the same)
            placed = [f for f in range(53) for _ in range(used[f] - tcount[f])]
            new_sets, moved = table, moved_count(old, table)
            # a play found by a search stopped early may keep more than the pairing of old
            # and new sets it was found with says (the best pairing is measured here)
            claimed = total - better[0]
            if (moved != claimed if proven else moved > claimed) or not all(
                check_set(s).valid for s in table
            ):
                raise AssertionError("the moved search returned a table it did not score")
    return Solution(new_sets, placed, value, moved, True, proven)


class _RelaxedDown:
    """The downward tile search with jokers scoring nothing, built on first call and then
    shared (a class, not a closure: mypyc's closures are reference cycles, and
    :func:`solve` pauses the cyclic collector)."""

    __slots__ = ("made", "rack", "roles", "tcount")

    def __init__(self, tcount: list[int], rack: list[int], roles: list[tuple[int, int]]) -> None:
        self.tcount = tcount
        self.rack = rack
        self.roles = roles
        self.made: Search | None = None

    def __call__(self) -> Search:
        if self.made is None:
            self.made = Search(
                _mirror(self.tcount[:52]),
                _mirror(self.rack),
                self.tcount[JOKER],
                0,
                _COUNT_W,
                _VALUE_W,
                _floors(sum(self.tcount) - self.tcount[JOKER]),
                True,
                _mirror(self.roles),
                _DOWN,
            )
        return self.made


_MOVED_BUDGET = 150  # nodes to try keeping every old set (failing can take very many)


def _fewer_moved(
    old: list[list[int]], new_sets: list[list[int]], placed: list[int], value: int, moved: int
) -> tuple[list[list[int]], int]:
    """The play with fewer table tiles moved, same tiles and value, if the pass finds one:
    first keeping every old set (:mod:`._solver_moved`), else cutting merged runs apart."""
    table = keep_sets(old, [True] * len(old), placed, [_MOVED_BUDGET], new_sets)
    if (
        table is not None
        and all(check_set(s).valid for s in table)
        and _placed_value(table, placed) == value  # jokers may stand for less
    ):
        table = _order_like(old, table)
        fewer = moved_count(old, table)
        if fewer < moved:
            return table, fewer
    return _split_runs(old, new_sets, moved)


def _split_runs(
    old: list[list[int]], new_sets: list[list[int]], moved: int
) -> tuple[list[list[int]], int]:
    """Cut the search's long runs where an old run inside them begins or ends, when both
    pieces are runs and fewer tiles move (a merge of two old runs, say); greedy."""
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
        if len(t) < 6:
            continue
        check = check_set(t)
        if check.kind != "run":
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
    return _order_like(old, out), moved


# the value of a tile swept as number n when the sweep runs 13..1 (a mirrored instance)
_DOWN = [0, *range(13, 0, -1), 0]
_FIRST_BUDGET = 300  # nodes; the median instance needs ~200 going up (tuned: 100..1500)


def _mirror(per_face: list[_T]) -> list[_T]:
    """Per-face data of the mirrored instance (number m becomes 14 - m, colours kept)."""
    return [per_face[c * 13 + 12 - i] for c in range(4) for i in range(13)]


def _unmirror_face(f: int) -> int:
    return f if f == JOKER else f // 13 * 13 + 12 - f % 13


def _sets_of(res: DPResult, mirrored: bool) -> list[list[int]]:
    sets = _build_sets(res.decisions)
    if mirrored:
        # a run read backwards in the mirror is the same run read forwards
        sets = [[_unmirror_face(f) for f in reversed(s)] for s in sets]
    return sets


class _DownByJokers:
    """The downward search with full joker scoring: one :class:`Search` per number of jokers
    placed (all first), each having to beat the best before it — going down, the rack's
    jokers (credited with the highest meanings) are the first met, which needs the count."""

    def __init__(
        self,
        table: list[int],
        rack: list[int],
        table_jokers: int,
        rack_jokers: int,
        floors: list[int],
        roles: list[tuple[int, int]],
    ) -> None:
        self._args = (table, rack, table_jokers, rack_jokers, roles)
        self._floor = floors[-1]
        self._target = table_jokers + rack_jokers
        self.result: DPResult | None = None
        self._cur = self._next()

    def _next(self) -> Search:
        table, rack, tj, rj, roles = self._args
        floor = self._floor if self.result is None else max(self._floor, self.result.score)
        return Search(
            table, rack, tj, rj, _COUNT_W, _VALUE_W, [floor], False, roles, _DOWN, self._target
        )

    def run(self, budget: int | None) -> bool:
        table_jokers = self._args[2]
        while True:
            if not self._cur.run(budget):
                return False
            if self._cur.result is not None:
                self.result = self._cur.result
            self._target -= 1
            if self._target < table_jokers:
                return True
            self._cur = self._next()


class _Runner(Protocol):
    result: DPResult | None

    def run(self, budget: int | None) -> bool: ...


def _race(up: _Runner, make_down: Callable[[], _Runner]) -> tuple[DPResult | None, bool]:
    """Search both ways, taking turns with a doubling node budget; the first to finish wins
    (both are exact). Going up first, with a budget most instances fit in: some instances
    take 100x longer one way than the other (a tangle of jokers near 13, say), and the turns
    cost at most ~3x the faster way."""
    budget = _FIRST_BUDGET
    if up.run(budget):
        return up.result, False
    down = make_down()  # built only when needed
    while True:
        if down.run(budget):
            return down.result, True
        budget *= 2
        if up.run(budget):
            return up.result, False


_KEPT_ALONE = 20000  # work the moved search going up gets alone (~0.1 s) before the race


def _kept_race(
    old: list[list[int]],
    runs: list[bool],
    tcount: list[int],
    rack: list[int],
    up: Search,
    make_down: Callable[[], Search] | None,
    target: int,
    known: int,
    budget: int | None,
    kept_oracle: _KeptOracle,
    down_first: bool = False,
    lp: _KeptLP | None = None,
) -> tuple[bool, tuple[int, list[list[int]], bool] | None]:
    """The fewest-moved search (:class:`KeptSearch`) up and, past :data:`_KEPT_ALONE`, also
    down the mirrored instance, taking turns with a doubling budget of work until one
    finishes or ``budget`` is spent: (finished, its answer or the best found — a table of
    this instance). Both are exact; some instances take ~5x longer one way. Only when jokers
    earn nothing (``make_down``: the downward tile search to ask): with rack jokers the
    downward search needs the count of jokers placed, which optimal plays may not share.
    ``kept_oracle`` builds the bound's tile search going up (:class:`_KeptOracle`)."""
    # First the linear relaxation (:class:`_KeptLP`): its bound is most often the answer,
    # and its solution often a play that meets it (proven then); when it is a little above
    # the best play known, its branch and bound mostly closes the gap (its bound is then
    # the answer); else its bound caps the search's passes, which stop at the first play
    # that meets a proven bound. Not with a budget (bots, hints): their budgeted search
    # already proves 599 of 600 positions from real games (bench/tile_solver.py
    # --game-positions), most in well under a millisecond
    lp_bound: int | None = None
    lp_play: tuple[int, list[list[int]]] | None = None
    if lp is not None and budget is None:
        got = lp()
        if got is not None:
            lp_bound, lp_play = got
            if lp_bound <= known:
                return True, None  # the known play keeps the most
            if lp_play is not None and lp_play[0] <= known:
                lp_play = None  # no better than the known play
            if lp_play is not None and lp_play[0] >= lp_bound:
                return True, (lp_play[0], lp_play[1], True)
    # the kept oracle places jokers anywhere, scoring each as a tile, even when the tile
    # search asked (``up``: jokers earning nothing, when there is a ``make_down``) does not
    joker_w = _COUNT_W * _KEPT_W if make_down is not None else 0
    ups = KeptSearch(
        old,
        tcount,
        rack,
        up,
        target,
        known,
        kept_oracle,
        _KEPT_W,
        joker_w,
        make_without=kept_oracle.without,
        make_split=kept_oracle.split,
    )
    step = _KEPT_ALONE if budget is None else min(budget, _KEPT_ALONE)
    if lp_bound is not None:
        ups.learn(lp_bound, known if lp_play is None else lp_play[0])
        if lp_play is not None and lp_play[0] == lp_bound - 1:
            # one pass decides: a play meeting the bound, or the relaxation's is the best
            # (asking first for plays meeting the bound otherwise too: dense the same, but
            # normal 26 from 30 to 170 ms, where the bound is 4 above the answer)
            ups.deepen = 1
    if make_down is None:
        if ups.run(step):
            return True, _or_play(ups.result, lp_play)
        if ups.run(None if budget is None else budget - step):
            return True, _or_play(ups.result, lp_play)
        return False, ups.best_found()
    mirrored = [
        [_unmirror_face(f) for f in (reversed(s) if is_run else s)]
        for s, is_run in zip(old, runs, strict=True)
    ]
    mtcount = [*_mirror(tcount[:52]), tcount[JOKER]]
    down_oracle = kept_oracle.mirrored()
    downs = KeptSearch(
        mirrored,
        mtcount,
        _mirror(rack),
        make_down(),
        target,
        known,
        down_oracle,
        _KEPT_W,
        joker_w,
        make_without=down_oracle.without,
        make_split=down_oracle.split,
    )
    downs.learn(ups.upper, ups.lower)
    downs.deepen = ups.deepen
    # the way the tile search finished first goes first (alone for ``step``): with the
    # tile search faster down, the moved search is too on 3 instances in 4
    first, second = (downs, ups) if down_first else (ups, downs)
    if first.run(step):
        return True, _or_play(
            _unmirrored(first.result) if first is downs else first.result, lp_play
        )
    spent = step
    while budget is None or spent < budget:
        for search in (second, first):
            give = step if budget is None else min(step, budget - spent)
            if give <= 0:
                break
            spent += give
            if search.run(give):
                if search.result is not None:
                    return True, _unmirrored(search.result) if search is downs else search.result
                # nothing keeps more than the best play either has found
                return True, _kept_by(search.lower, ups, downs, lp_play)
            # Both search the same instance: a pass that failed one way proves the same
            # bound the other way, and a play found one way is a floor for the other
            upper = min(ups.upper, downs.upper)
            lower = max(ups.found(), downs.found())
            ups.learn(upper, lower)
            downs.learn(upper, lower)
        step *= 2
    found = ups.best_found()
    other = _unmirrored(downs.best_found())
    if other is not None and (found is None or other[0] > found[0]):
        found = other
    return False, found


def _or_play(
    result: tuple[int, list[list[int]], bool] | None,
    lp_play: tuple[int, list[list[int]]] | None,
) -> tuple[int, list[list[int]], bool] | None:
    """A search's answer, or when it found nothing better than the linear relaxation's
    play (its floor), that play, proven the most."""
    if result is None and lp_play is not None:
        return lp_play[0], lp_play[1], True
    return result


def _kept_by(
    kept: int,
    ups: KeptSearch,
    downs: KeptSearch,
    lp_play: tuple[int, list[list[int]]] | None = None,
) -> tuple[int, list[list[int]], bool] | None:
    """The play keeping ``kept`` that the race (:func:`_kept_race`) found up or down (or
    the linear relaxation did), proven the most; ``None`` if that is the known play's."""
    for search in (ups, downs):
        play = search.incumbent()
        if play is not None and play[0] == kept:
            if search is downs:
                play = _unmirrored(play)
                assert play is not None
            return kept, play[1], True
    if lp_play is not None and lp_play[0] == kept:
        return kept, lp_play[1], True
    if kept > ups.known:
        raise AssertionError("the moved race proved a bound no play it found meets")
    return None


class _KeptLP:
    """The linear relaxation of the fewest-moved problem (:func:`._solver_lp.kept_lp`),
    asked once, with its branch and bound — and when its bound stands above the best play
    known, once more with the rack faces every play places fixed (:meth:`_must_place`):
    (its bound on the tiles kept, the play read off its solution with the tiles it keeps
    if that play checks out — valid sets, the same tiles placed in count and value), or
    ``None`` if it gave up. A class, not a closure (:func:`solve` pauses the cyclic
    collector)."""

    __slots__ = (
        "checked",
        "checked_placed",
        "known",
        "known_kept",
        "old",
        "placed",
        "rack",
        "rcount",
        "tcount",
        "value",
    )

    def __init__(
        self,
        old: list[list[int]],
        tcount: list[int],
        rcount: list[int],
        rack: list[int],
        known: list[list[int]],
        placed: list[int],
        value: int,
        known_kept: int,
    ) -> None:
        self.old = old
        self.tcount = tcount
        self.rcount = rcount
        self.rack = rack
        self.known = known
        self.placed = placed
        self.value = value
        self.known_kept = known_kept  # the tiles the known play keeps
        # the play last returned, ordered like the table, and its tiles placed
        self.checked: list[list[int]] | None = None
        self.checked_placed: list[int] = []

    def __call__(self) -> tuple[int, tuple[int, list[list[int]]] | None] | None:
        level = _COUNT_W * len(self.placed) + self.value
        res = kept_lp(
            self.old,
            self.tcount,
            self.rack,
            self.rcount[JOKER],
            _COUNT_W,
            level,
            self.known,
            known_kept=self.known_kept,
        )
        if res.bound is None:
            return None
        bound = res.bound
        got = self._read(res.play)
        lower = self.known_kept if got is None or got[0] < self.known_kept else got[0]
        if bound > lower and len(self.placed) < sum(self.rack) + self.rcount[JOKER]:
            # The relaxation places parts of rack tiles to make the level's tiles and value
            # (normal 478: B10 at 0.27, B3 at 0.83): the rack faces every play of the level
            # must place — without one copy, the tile search cannot reach the level — are
            # placed as the table's are, and it is asked again (normal: 18 instances, the
            # bound lower on 10; 221 47 -> 18 ms, the rest ~1-3 ms more)
            tcount = list(self.tcount)
            rack = list(self.rack)
            must = self._must_place()
            for f in must:
                tcount[f] += rack[f]
                level -= rack[f] * (_COUNT_W + f % 13 + 1)
                rack[f] = 0
            if must:
                again = kept_lp(
                    self.old,
                    tcount,
                    rack,
                    self.rcount[JOKER],
                    _COUNT_W,
                    level,
                    self.known,
                    known_kept=lower,
                )
                if again.bound is not None and again.bound < bound:
                    bound = again.bound
                more = self._read(again.play)
                if more is not None and more[0] > lower:
                    got = more
        if got is None:
            return bound, None
        self.checked, self.checked_placed = got[1], got[2]
        return bound, (got[0], got[1])

    def _must_place(self) -> list[int]:
        """The rack faces every play of the level places (all their copies): without one
        copy, the tile search finds no play of the level."""
        tj = self.tcount[JOKER]
        rj = self.rcount[JOKER]
        floor = (sum(self.tcount) + len(self.placed)) * _COUNT_W - 1
        full = solve_bb(self.tcount[:52], self.rack, tj, rj, _COUNT_W, _VALUE_W, [floor])
        # (its score: the tiles on the table, then the value placed and the table's tiles')
        target = floor + 1 + self.value + sum((f % 13 + 1) * self.tcount[f] for f in range(52))
        if full is None or full.score != target:
            raise AssertionError("the tile search scores the level otherwise")
        # a face some play of the level leaves a copy of is not one: first the known play,
        # then each play found with a face's copy taken away
        placed = [0] * 53
        for f in self.placed:
            placed[f] += 1
        free = [placed[f] < self.rack[f] for f in range(52)]
        must: list[int] = []
        for f in range(52):
            if self.rack[f] and not free[f]:
                self.rack[f] -= 1
                res = solve_bb(
                    self.tcount[:52], self.rack, tj, rj, _COUNT_W, _VALUE_W, [target - 1]
                )
                self.rack[f] += 1
                if res is None:
                    must.append(f)
                    continue
                used = [0] * 53
                for s in _build_sets(res.decisions):
                    for g in s:
                        used[g] += 1
                for g in range(52):
                    if used[g] - self.tcount[g] < self.rack[g]:
                        free[g] = True
        return must

    def _read(self, sets: list[list[int]] | None) -> tuple[int, list[list[int]], list[int]] | None:
        """The relaxation's play ``sets`` if it checks out (valid sets, the same tiles
        placed in count and value): the tiles it keeps, it ordered like the table, the
        tiles placed."""
        if sets is None:
            return None
        play = [_raise_jokers(s) for s in sets]
        used = [0] * 53
        for s in play:
            if not check_set(s).valid:
                return None
            for f in s:
                used[f] += 1
        placed: list[int] = []
        for f in range(53):
            extra = used[f] - self.tcount[f]
            if extra < 0 or extra > self.rcount[f]:
                return None
            placed.extend([f] * extra)
        if len(placed) != len(self.placed) or _placed_value(play, placed) != self.value:
            return None
        kept = sum(map(len, self.old)) - moved_count(self.old, play)
        return kept, _order_like(self.old, play), placed


def _raise_jokers(s: list[int]) -> list[int]:
    """The run ``s`` with its jokers that fill no gap at its top end, as far as 13 (they
    stand for the most there); anything else as it is."""
    if JOKER not in s or check_set(s).kind != "run":
        return s
    reals = sorted(f for f in s if f != JOKER)
    jokers = len(s) - len(reals)
    lo, hi = reals[0] % 13 + 1, reals[-1] % 13 + 1
    colour = reals[0] // 13
    have = {f % 13 + 1 for f in reals}
    gaps = hi - lo + 1 - len(reals)
    extra = jokers - gaps
    top = min(extra, 13 - hi)
    first = lo - (extra - top)
    out = [JOKER if n not in have else colour * 13 + n - 1 for n in range(first, hi + top + 1)]
    return out if check_set(out).valid else s


class _KeptOracle:
    """Builds, when first asked, the tile search whose best from a state bounds the table
    tiles the moved search can still keep (:class:`KeptSearch`): scores scaled by
    :data:`_KEPT_W`, each number also scoring at most the table tiles it can keep
    (``Search(old_sets=...)``); jokers placed anywhere and scoring as tiles. A class, not a
    closure (:func:`solve` pauses the cyclic collector)."""

    __slots__ = (
        "down",
        "lasts",
        "old",
        "old_sets",
        "rack",
        "rack_jokers",
        "roles",
        "runs",
        "tcount",
    )

    def __init__(
        self,
        old: list[list[int]],
        runs: list[bool],
        tcount: list[int],
        rack: list[int],
        rack_jokers: int,
        roles: list[tuple[int, int]],
    ) -> None:
        self.tcount = tcount
        self.rack = rack
        self.rack_jokers = rack_jokers
        self.roles = roles
        self.down = False
        self.old = old  # the sets as they are (also in the mirrored twin): for :meth:`without`
        self.runs = runs
        # per number, the real tiles of each old group there and, per colour, the old runs
        # whose first real tile is there
        self.old_sets: list[tuple[list[int], list[int]]] = [([], [0] * 4) for _ in range(15)]
        self.lasts: list[tuple[int, int]] = []  # per old run: its last real tile's number, colour
        for s, is_run in zip(old, runs, strict=True):
            reals = [f for f in s if f != JOKER]
            if is_run:
                self.old_sets[min(reals) % 13 + 1][1][reals[0] // 13] += 1
                self.lasts.append((max(reals) % 13 + 1, reals[0] // 13))
            else:
                self.old_sets[reals[0] % 13 + 1][0].append(len(reals))

    def mirrored(self) -> _KeptOracle:
        """The same for the mirrored instance (13 down to 1: an old run's first real tile
        there is its last here)."""
        twin = _KeptOracle([], [], self.tcount, self.rack, self.rack_jokers, self.roles)
        twin.down = True
        twin.old = self.old
        twin.runs = self.runs
        twin.old_sets = [([], [0] * 4) for _ in range(15)]
        for n in range(1, 14):
            twin.old_sets[14 - n][0].extend(self.old_sets[n][0])
        for n, c in self.lasts:
            twin.old_sets[14 - n][1][c] += 1
        return twin

    def without(self, i: int) -> Search:
        """The same search with old set ``i`` left out: its tiles none to keep."""
        old = self.old[:i] + self.old[i + 1 :]
        runs = self.runs[:i] + self.runs[i + 1 :]
        twin = _KeptOracle(old, runs, self.tcount, self.rack, self.rack_jokers, _roles(old, runs))
        return twin.mirrored()() if self.down else twin()

    def __call__(self) -> Search:
        return self._search(None, None)

    def split(self, plain: Search) -> Search:
        """The same search following the old runs' pairings (``Search(tracked=...)``),
        pruned by the memo of ``plain`` (this one's :meth:`__call__`)."""
        return self._search(self._tracked(), plain)

    def _search(
        self, tracked: list[tuple[int, int, int, int, int]] | None, plain: Search | None
    ) -> Search:
        tcount = self.tcount[:52]
        rack = self.rack
        roles = self.roles
        if self.down:
            tcount, rack, roles = _mirror(tcount), _mirror(rack), _mirror(roles)
        return Search(
            tcount,
            rack,
            self.tcount[JOKER],
            self.rack_jokers,
            _COUNT_W * _KEPT_W,
            _VALUE_W * _KEPT_W,
            [0],
            False,
            roles,
            _DOWN if self.down else None,
            old_sets=self.old_sets,
            tracked=tracked,
            bound_by=plain,
        )

    def _tracked(self) -> list[tuple[int, int, int, int, int]]:
        """The old runs for ``Search(tracked=...)``: (index among the old sets, colour,
        first and last real tile's number, mask of real tiles), as swept."""
        out = []
        for i, (s, is_run) in enumerate(zip(self.old, self.runs, strict=True)):
            if not is_run:
                continue
            nums = [f % 13 + 1 for f in s if f != JOKER]
            colour = next(f for f in s if f != JOKER) // 13
            if self.down:
                nums = [14 - m for m in nums]
            mask = 0
            for m in nums:
                mask |= 1 << m
            out.append((i, colour, min(nums), max(nums), mask))
        return out


def _unmirrored(
    found: tuple[int, list[list[int]], bool] | None,
) -> tuple[int, list[list[int]], bool] | None:
    if found is None:
        return None
    kept, sets, proven = found
    return kept, [[_unmirror_face(f) for f in reversed(s)] for s in sets], proven


def _roles(old: list[list[int]], is_run: list[bool]) -> list[tuple[int, int]]:
    """Per face, table copies now in a group and in a run."""
    groups = [0] * 52
    runs = [0] * 52
    for s, run in zip(old, is_run, strict=True):
        into = runs if run else groups
        for f in s:
            if f != JOKER:
                into[f] += 1
    return list(zip(groups, runs, strict=True))


def _floors(keep: int) -> list[int]:
    """The search looks for plays that beat keeping the table as it is (which always works).

    (Searching first for plays that leave no rack tile behind, then at most 1, 2, ... was
    measured slower: a good play is found on the first dive anyway, and each failed budget
    repeats the proof.)"""
    return [keep * _COUNT_W - 1]


def _add_jokers(sets: list[list[int]], jokers: int) -> list[list[int]] | None:
    """Put the table jokers the search left out at the end of a run or into a group of 3;
    ``None`` if there is no room (then the full search places them)."""
    missing = jokers - sum(s.count(JOKER) for s in sets)
    out = [list(s) for s in sets]
    for _ in range(missing):
        for i, s in enumerate(out):
            done = False
            for cand in ([*s, JOKER], [JOKER, *s]):
                if len(cand) <= 13 and check_set(cand).valid:
                    out[i] = cand
                    done = True
                    break
            if done:
                break
        else:
            return None
    return out


def _placeable(tcount: list[int], rcount: list[int]) -> list[int]:
    """Rack copies per face (0..51) that could be in *some* set (see :func:`placeable`)."""
    return placeable(tcount[:52], rcount[:52], tcount[JOKER] + rcount[JOKER])


def _placed_value(new_sets: list[list[int]], placed: list[int]) -> int:
    """Value of the placed rack tiles; placed jokers take the highest joker meanings."""
    value = sum(f % 13 + 1 for f in placed if f != JOKER)
    k = placed.count(JOKER)
    if k:
        meanings: list[int] = []
        for s in new_sets:
            if JOKER not in s:
                continue
            check = check_set(s)
            meanings.extend(
                m % 13 + 1 for f, m in zip(s, check.meanings, strict=True) if f == JOKER
            )
        meanings.sort(reverse=True)
        value += sum(meanings[:k])
    return value


def _build_sets(decisions: Sequence[Decision]) -> list[list[int]]:
    """Turn the per-number decisions of the search into concrete ordered sets."""
    done: list[list[int]] = []
    open_runs: list[list[list[int]]] = [[], [], [], []]
    for n, dec in enumerate(decisions, start=1):
        if dec.group_jokers or any(dec.groups):
            for colours, jk in group_partition(dec.groups, dec.group_jokers) or ():
                done.append([c * 13 + n - 1 for c in colours] + [JOKER] * jk)
        for c in range(4):
            runs = open_runs[c]
            reals, jokers = dec.runs[c], dec.run_jokers[c]
            if not (runs or reals or jokers):
                continue
            tiles = [c * 13 + n - 1] * reals + [JOKER] * jokers
            short = [r for r in runs if len(r) < 3]
            full = [r for r in runs if len(r) >= 3]
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


def _order_like(old: list[list[int]], new: list[list[int]]) -> list[list[int]]:
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
