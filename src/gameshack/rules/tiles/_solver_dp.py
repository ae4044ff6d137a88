"""The exact search behind :mod:`gameshack.rules.tiles.solver`: numbers 1..13, in order.

Every valid table is a set of runs and groups. Sweep the numbers 1..13 in order; at number
``n`` every tile of number ``n`` that ends up on the table is either in a group (of number
``n``) or in a run, where it continues a run of its colour that is still open or starts a new
one. So the only thing the past hands on to the future is, per colour, how many runs are
open and how long they are so far (1, 2, or "3 or more", which is all validity needs), plus
how many jokers are already used. That is the state. :func:`solve_bb` searches it depth
first with memoisation (a dynamic program explored lazily) and branch and bound.

Canonical choices keep the state space small without losing any optimum:

* an open run that is already complete (3+) and can take the tile is continued rather than a
  new run being started beside it (same tiles, and "3+" can do everything "1" can); complete
  runs beyond what the next number's tiles could continue are dropped (they may always end);
* a state whose unfinished runs cannot be continued with the next two numbers' tiles and the
  jokers left is dropped at once;
* a joker stands for a tile of the number being swept, so jokers are met in increasing order
  of what they stand for — which lets the score credit placed rack jokers with the highest
  meanings on the table (the first ``table_jokers`` jokers met are the table's).

The score is one integer: ``count_weight * tiles + value_weight * value`` (lexicographic
weights chosen by the caller). Upper bound: every tile still ahead placed, at its value (a
rack tile with no possible partners left out); once a search outlives its first node budget,
the exact best from the state with every run complete — which can do all any state can —
computed from 13 down.

Written for mypyc (``pip install`` compiles it; the same file runs as plain Python): the
search state is one native class, and the memo, the entries and the shared caches are flat
ints, so the hot loop does integer arithmetic and the garbage collector has little to see.
The node function itself runs in C where the build has it (``_dp_engine.c``, the same steps
over flat arrays, ~5x faster); :meth:`_Core.f_py` is it in Python, the fallback.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from itertools import product
from typing import Final

try:  # the node function in C (setup.py builds it next to the compiled rules)
    from gameshack.rules.tiles import _dp_engine
except ImportError:  # pure Python (gameshack.rules decides: see its docstring)
    _dp_engine = None  # type: ignore[assignment]

__all__ = ["DPResult", "Decision", "OutOfBudget", "Search", "group_partition", "solve_bb"]

JOKER: Final = 52
_MAX_JOKERS: Final = 2  # in the game
_MAXR: Final = 4  # most runs of one colour open at once: 2 copies + 2 jokers
_NEG: Final = -(1 << 40)


def _encode(n1: int, n2: int, n3: int) -> int:
    return n1 + 5 * n2 + 25 * n3


def _build_trans() -> list[list[int]]:
    """``trans[code][t]``: a colour's run code after ``t`` tiles of this number go to its runs."""
    table: list[list[int]] = []
    for code in range(125):
        n1, n2, n3 = code % 5, code // 5 % 5, code // 25
        row = []
        for t in range(7):
            must = n1 + n2
            if t < must:
                row.append(-1)
                continue
            k3 = min(n3, t - must)
            new = t - must - k3
            n3n = n2 + k3
            row.append(-1 if new > _MAXR or n3n > _MAXR else _encode(new, n1, n3n))
        table.append(row)
    return table


TRANS: Final = _build_trans()


def _build_trans_capped() -> list[list[list[int]]]:
    """``TRANS_CAP[cap]``: :data:`TRANS` with complete runs beyond ``cap`` dropped. A
    complete run may always end, so when at most ``cap`` tiles of the colour can follow at
    the next number, runs beyond that many are as good as closed — merging states."""
    out = []
    for cap in range(_MAXR + 1):
        rows = []
        for row in TRANS:
            new = []
            for code in row:
                if code >= 0:
                    n1, n2, n3 = code % 5, code // 5 % 5, code // 25
                    code = _encode(n1, n2, min(n3, cap))
                new.append(code)
            rows.append(new)
        out.append(rows)
    return out


TRANS_CAP: Final = _build_trans_capped()


@cache
def group_partition(
    counts: tuple[int, int, int, int], jokers: int, tight: bool = False
) -> tuple[tuple[tuple[int, ...], int], ...] | None:
    """Split real tiles (per colour) and jokers of one number into groups, or ``None``.

    Returns groups as (colours, jokers). Each group has 3 or 4 tiles, distinct colours, at
    least one real tile. ``tight``: a group holds jokers only to make up 3 tiles.
    """
    if sum(counts) == 0:
        return () if jokers == 0 else None
    first = next(c for c in range(4) if counts[c])
    # the first colour that still has tiles must be in the next group (order doesn't matter)
    others = [c for c in range(first + 1, 4) if counts[c]]
    for size in range(len(others) + 1, -1, -1):
        for extra in _subsets(others, size):
            colours = (first, *extra)
            for jk in range(min(jokers, 4 - len(colours)) + 1):
                if len(colours) + jk < 3 or (tight and jk and len(colours) + jk > 3):
                    continue
                rest = list(counts)
                for c in colours:
                    rest[c] -= 1
                sub = group_partition((rest[0], rest[1], rest[2], rest[3]), jokers - jk, tight)
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


@dataclass(frozen=True, slots=True)
class Decision:
    """What happens at one number: per colour, real tiles to groups and to runs, jokers."""

    groups: tuple[int, int, int, int]  # real tiles of each colour put in groups
    group_jokers: int
    runs: tuple[int, int, int, int]  # real tiles of each colour put in runs
    run_jokers: tuple[int, int, int, int]  # jokers put in runs of each colour


@dataclass(frozen=True, slots=True)
class DPResult:
    score: int  # best score; the caller subtracts its constant
    decisions: tuple[Decision, ...]  # index n-1 for number n


def _build_deficits() -> list[list[list[int]]]:
    """``DEFICIT[a1][a2][code]``: jokers a colour's runs need at least when the next number
    has ``a1`` real tiles of that colour and the one after ``a2`` (3: that number is past 13).
    Each unfinished run needs a tile at the next number; a run of one also the one after."""
    out = []
    for a1 in range(4):
        rows = []
        for a2 in range(4):
            row = []
            for code in range(125):
                n1, n2 = code % 5, code // 5 % 5
                if (n1 + n2 and a1 == 3) or (n1 and a2 == 3):
                    row.append(99)
                else:
                    row.append(max(0, n1 + n2 - a1) + max(0, n1 - a2))
            rows.append(row)
        out.append(rows)
    return out


DEFICIT: Final = _build_deficits()


class OutOfBudget(Exception):
    """A :class:`Search` ran out of the nodes it was given (it can be resumed)."""


def solve_bb(
    table: Sequence[int],
    rack: Sequence[int],
    table_jokers: int,
    rack_jokers: int,
    count_weight: int,
    value_weight: int,
    floors: Sequence[int],
    relaxed: bool = False,
    roles: Sequence[tuple[int, int]] | None = None,
) -> DPResult | None:
    """The best play (see :class:`Search`), searched to the end."""
    search = Search(
        table, rack, table_jokers, rack_jokers, count_weight, value_weight, floors, relaxed, roles
    )
    search.run(None)
    return search.result


class Search:
    """The best play, searched depth first with bounds over the numbers 1..13.

    ``f(n, state, need)`` — the best score still to come from a state before number ``n`` —
    is explored most-tiles-first, pruned when even placing every tile ahead could not beat
    ``need`` or what is already found, and when a colour's unfinished runs could not be
    continued with the tiles and jokers left; results are memoised, exactly when the search
    proved them, as "at most" when it was cut off. ``floors`` are tried in turn (highest
    first, sharing the memo): the first one some play beats gives the optimum, as long as
    the optimum is above it. ``None`` if no play beats the last floor.

    ``relaxed`` (only when no joker is credited to the rack, so jokers earn nothing): jokers
    score nothing and go only where tiles are missing — a group of 3, a gap or end of a run
    that must go on, a complete run bridged to later tiles, a run started by a joker only at
    11 (``JK R12 R13``; lower, the joker could as well end the run) — and need not all be
    used; the caller adds the rest to the sets afterwards.

    ``roles[face]``: how many table copies of the face are in a group and in a run now.
    Among ways to use a number's tiles with equal gain, those keeping more table tiles in
    their role (a group tile in a group, a run tile in a run) are tried first, so the play
    returned — the first of the best found — tends to move fewer table tiles. (This orders
    the search; it does not prove the fewest moves.)

    ``values[n]``: the value of a tile swept as number ``n`` (default ``n``). The caller may
    sweep a mirrored instance (number ``m`` as ``14 - m``: the rules are symmetric) with
    ``values[n] = 14 - n``; some instances are far easier from one end.
    ``joker_target``: all of exactly this many jokers must be placed (instead of at least the
    table's), and the rack is credited with the first ``joker_target - table_jokers`` jokers
    met — the highest meanings when the sweep runs downwards (mirrored); the caller tries
    each possible count.

    :meth:`run` searches with a node budget; when it runs out the search can be resumed
    (the memo holds only proven facts, so nothing is lost but the path back). A resumed
    search first tightens its bounds (``tighten=False``: never), which the hard instances
    repay many times over and the easy ones never need. ``nodes``: nodes searched so far.

    ``native=False``: the Python node function even where the C one is built (which
    searches the same nodes with the same results; the tests compare them).

    ``tracked`` (with ``old_sets``, for the moved search's second bound): the old runs, as
    (id, colour, first and last real tile's number, mask of the numbers with a real tile).
    Per colour one at a time is followed — the first met, to its last real tile — and its
    pairing is part of the state: not paired yet, paired with a new run now of length 1,
    2 or 3+, done. Its real tile at a number is scored as kept only while the run it is
    paired with goes on, so an old run split to take a tile is kept by one part only
    (:meth:`_Core.f_split`). The states of the followed runs are 3 bits per colour from
    bit 40 of the key. ``bound_by``: the same search without ``tracked`` (it scores at
    least as much from every state), whose memo prunes this one. Such a search answers
    :meth:`best_from` only (it keeps no choices to rebuild a play).
    """

    def __init__(
        self,
        table: Sequence[int],
        rack: Sequence[int],
        table_jokers: int,
        rack_jokers: int,
        count_weight: int,
        value_weight: int,
        floors: Sequence[int],
        relaxed: bool = False,
        roles: Sequence[tuple[int, int]] | None = None,
        values: Sequence[int] | None = None,
        joker_target: int | None = None,
        tighten: bool = True,
        old_sets: Sequence[tuple[Sequence[int], Sequence[int]]] | None = None,
        native: bool = True,
        tracked: Sequence[tuple[int, int, int, int, int]] | None = None,
        bound_by: Search | None = None,
    ) -> None:
        self.result: DPResult | None = None
        self.done = False
        self.nodes = 0
        self._core: _Core = _Core(
            table,
            rack,
            table_jokers,
            rack_jokers,
            count_weight,
            value_weight,
            floors,
            relaxed,
            roles,
            values or list(range(15)),
            joker_target,
            tighten,
            old_sets,
            native,
            tracked,
            bound_by._core if bound_by is not None else None,
        )

    def run(self, budget: int | None) -> bool:
        """Search on for at most ``budget`` more nodes (``None``: to the end); True when done."""
        if not self.done:
            core = self._core
            core.run(budget)
            self.result = core.result
            self.done = core.done
            self.nodes = core.node_count()
        return self.done

    def best_from(self, n: int, key: int, need: int) -> int:
        """The best score still to come from the state ``key`` (per colour its runs' code,
        7 bits each, then the jokers used from bit 28) before number ``n`` if above
        ``need``; else a bound at most ``need``. Searches on as far as it takes."""
        core = self._core
        core.set_budget(0)
        return core.f(n, key, need)

    @property
    def split(self) -> bool:
        """Whether this search follows old runs' pairings (``tracked``)."""
        return self._core.split

    def tracked_at(self, n: int) -> list[int]:
        """Per colour, the id of the old run whose pairing the search follows at number
        ``n`` (-1: none); see ``tracked``."""
        return [self._core.track[c][n] for c in range(4)]

    def nodes_searched(self) -> int:
        """Nodes searched so far, :meth:`best_from`'s included."""
        return self._core.node_count()

    def deficits(self, n: int) -> list[list[int]]:
        """Per colour, indexed by its runs' code after number ``n``: the jokers its
        unfinished runs need at least from the next two numbers (too many: none can do)."""
        return self._core.dfc[n]

    def scoring(self) -> tuple[list[int], list[int], int, int, int, int]:
        """How this search scores: per number a real tile's and a credited joker's worth,
        a placed joker's, the jokers credited (from, to, in the order met), jokers in all."""
        c = self._core
        return c.per_real, c.vn, c.joker_w, c.credit_from, c.credit_to, c.jokers


class _Core:
    """The state of one :class:`Search`: the per-number tables, the memo, the node budget.

    ``memo[key | n << 30]``: ``2 * score + exact`` — ``exact``: the best score still to come
    from that state before number ``n``; otherwise an upper bound on it. ``choice`` holds,
    for exact entries, how the best was reached: the next state's key, the jokers put in
    runs per colour (3 bits each) and the entry's index in ``ent[n]``.
    """

    def __init__(
        self,
        table: Sequence[int],
        rack: Sequence[int],
        table_jokers: int,
        rack_jokers: int,
        count_weight: int,
        value_weight: int,
        floors: Sequence[int],
        relaxed: bool,
        roles: Sequence[tuple[int, int]] | None,
        values: Sequence[int],
        joker_target: int | None,
        tighten: bool,
        old_sets: Sequence[tuple[Sequence[int], Sequence[int]]] | None,
        native: bool,
        tracked: Sequence[tuple[int, int, int, int, int]] | None = None,
        bound_by: _Core | None = None,
    ) -> None:
        self.result: DPResult | None = None
        self.done = False
        self.floors = list(floors)
        # a search of the same instance without ``tracked`` whose memo bounds this one's
        self.plain = bound_by
        self.floor_at = 0
        jokers = table_jokers + rack_jokers
        credit_from, credit_to = table_jokers, jokers
        need_jokers = 0 if relaxed else table_jokers
        if joker_target is not None:
            jokers = need_jokers = joker_target
            credit_from, credit_to = 0, joker_target - table_jokers
        self.jokers = jokers
        self.need_jokers = need_jokers
        self.credit_from = credit_from
        self.credit_to = credit_to
        self.relaxed = relaxed
        self.joker_w = 0 if relaxed else count_weight
        self.credit13 = value_weight * 13
        self.vn = [value_weight * values[n] for n in range(15)]
        self.per_real = [count_weight + value_weight * values[n] for n in range(15)]
        ent: list[tuple[int, ...]] = [()]
        ekeys = [0]
        dfc: list[list[list[int]]] = [[]]
        trans: list[list[list[list[int]]]] = [[]]
        # copies (table + rack) per colour and number, with two numbers past 13 marked 3
        have = [
            [table[c * 13 + i] + rack[c * 13 + i] for i in range(13)] + [3, 3] for c in range(4)
        ]
        cap_j = jokers if jokers < _MAXR else _MAXR
        # for the engine: per number and colour, which TRANS_CAP and DEFICIT rows
        idx = [0] * (15 * 4 * 3)
        for n in range(1, 14):
            # the entry table's key: per colour table and rack copies, and table copies in a
            # group and in a run now (2 bits each), then the jokers and ``relaxed``
            ekey = jokers << 32 | (1 << 35 if relaxed else 0)
            for c in range(4):
                f = c * 13 + n - 1
                g, r = roles[f] if roles else (0, 0)
                ekey |= (table[f] | rack[f] << 2 | g << 4 | r << 6) << 8 * c
            ent.append(_entries(ekey))
            ekeys.append(ekey)
            rows: list[list[int]] = []
            caps: list[list[list[int]]] = []
            for c, h in enumerate(have):
                a1 = h[n]
                rows.append(DEFICIT[a1][h[n + 1]])
                cap = min(_MAXR, (a1 if a1 < 3 else 0) + cap_j)
                caps.append(TRANS_CAP[cap])
                at = (n * 4 + c) * 3
                idx[at] = cap
                idx[at + 1] = a1
                idx[at + 2] = h[n + 1]
            dfc.append(rows)
            trans.append(caps)
        self.ent = ent
        self.ekeys = ekeys
        # With ``old_sets`` (per number, the real tiles of each old group there and, per
        # colour, how many old runs have their first real tile there) every entry also
        # scores at most the table tiles it can keep in their set (see :func:`_keep_bound`),
        # one point each below the weights of tiles and value: then the best score from a
        # state is the best tiles-and-value times 1 plus at most the most table tiles any
        # such play keeps from there.
        self.with_kept = old_sets is not None
        # the node function in C when built and asked for (the same steps, nodes and answers
        # as :meth:`f_py`; it lists the affordable entries and scores the entries' kept
        # tiles itself)
        use_engine = (
            native
            and _dp_engine is not None
            and jokers <= _dp_engine.MAX_JOKERS
            and (not tracked or (jokers <= 3 and (bound_by is None or bound_by.engine is not None)))
        )
        kept_at: list[list[int]] = [[] for _ in range(15)]  # empty without ``old_sets``
        # the same for the engine: per number, what :func:`_keep_bound` reads
        kept_params: list[tuple[list[int], list[int], list[int], list[int]] | None] = [None] * 15
        kept_max = [0] * 15
        if old_sets is not None:
            if roles is None:
                raise ValueError("old_sets needs roles (the table copies in groups and runs)")
            for n in range(1, 14):
                og = [roles[c * 13 + n - 1][0] for c in range(4)]
                orr = [roles[c * 13 + n - 1][1] for c in range(4)]
                groups, starts = old_sets[n]
                gp = _group_keep(groups, sum(og))
                if use_engine:
                    kept_params[n] = (og, orr, list(starts), gp)
                else:
                    kept_at[n] = [_keep_bound(e, og, orr, list(starts), gp) for e in ent[n]]
                kept_max[n] = sum(og) + sum(orr)
        self.kept_at = kept_at
        self.kept_max = kept_max
        # ``tracked``: per colour and number the id of the old run followed there (-1:
        # none) and whether it has a real tile there; per number the kept scores' inputs
        # (:func:`_keep_bound`) and, for the Python node function, its rows by the colours
        # whose followed run's tile no run keeps (see :class:`Search`)
        if tracked and (old_sets is None or relaxed):
            raise ValueError("tracked needs old_sets and jokers that score")
        self.split = bool(tracked)
        self.track = [[-1] * 16 for _ in range(4)]
        self.track_real = [[0] * 16 for _ in range(4)]
        self.kept_masked: list[dict[int, list[int]]] = [{} for _ in range(15)]
        self.kept_params = kept_params
        if tracked and old_sets is not None and roles is not None:
            for tid, c, first, last, mask in sorted(tracked, key=lambda t: (t[2], -t[3])):
                row = self.track[c]
                if any(row[m] >= 0 for m in range(first, last + 1)):
                    continue
                for m in range(first, last + 1):
                    row[m] = tid
                    self.track_real[c][m] = mask >> m & 1
            for n in range(1, 14):
                og = [roles[c * 13 + n - 1][0] for c in range(4)]
                orr = [roles[c * 13 + n - 1][1] for c in range(4)]
                groups, starts = old_sets[n]
                self.kept_params[n] = (og, orr, list(starts), _group_keep(groups, sum(og)))
                self.kept_masked[n][0] = kept_at[n]
        self.dfc = dfc
        self.trans = trans
        # optimistic score of all real tiles from number n on
        ahead = [0] * 15
        for n in range(13, 0, -1):
            i = n - 1
            ahead[n] = ahead[n + 1] + (have[0][i] + have[1][i] + have[2][i] + have[3][i]) * (
                count_weight + value_weight * values[n]
            )
        # the table tiles from number n on, each kept at most once
        kept_ahead = [0] * 15
        for n in range(13, 0, -1):
            kept_ahead[n] = kept_ahead[n + 1] + kept_max[n]
        for n in range(1, 14):
            ahead[n] += kept_ahead[n]
        # bound[k][n]: the same from number n on with only k jokers left: a rack tile at
        # n + 2 or later that has no group partners nor run neighbours enough for k jokers
        # cannot be placed (a joker already used stands at a number before n, so none of
        # the 3-tile windows around such a tile can hold it)
        bound: list[list[int]] = []
        for k in range(jokers + 1):
            if k == jokers:
                bound.append(ahead)
                continue
            fit = placeable(table, rack, k)
            row = [0] * 15
            for n in range(13, 0, -1):
                i = n - 1
                tiles = sum(table[c * 13 + i] + fit[c * 13 + i] for c in range(4))
                row[n] = row[n + 1] + tiles * (count_weight + value_weight * values[n])
                row[n] += kept_max[n]
            bound.append(
                [ahead[n] - ahead[min(n + 2, 14)] + row[min(n + 2, 14)] for n in range(15)]
            )
        self.bound = bound
        # upper[n][j]: at least the best still to come from any state before number n with
        # j jokers used; rest[n][j]: the same for what a node at n earns after its real
        # tiles (its jokers at n and everything after n)
        self.upper: list[list[int]] = [[_NEG] * (jokers + 1) for _ in range(15)]
        self.rest: list[list[int]] = [[_NEG] * (jokers + 1) for _ in range(15)]
        for jj in range(jokers + 1):
            self.upper[14][jj] = 0 if jj >= need_jokers else _NEG
            free = jokers - jj
            creditable = credit_to - (jj if jj > credit_from else credit_from)
            if creditable < 0:
                creditable = 0
            for n in range(1, 14):
                self.upper[n][jj] = (
                    bound[free][n] + free * self.joker_w + creditable * self.credit13
                )
        for n in range(1, 14):
            self._set_rest(n)
        # the bound is tightened from the end (see :meth:`tighten`): the state before
        # number n with every run complete, as many as can go on, can do all any other
        # state can; next to tighten: number tight_n, jokers tight_j
        self.smax = [0] * 15
        for n in range(2, 14):
            code = 0
            for c in range(4):
                a = have[c][n - 1]
                code |= _encode(0, 0, min(_MAXR, a + cap_j)) << 7 * c
            self.smax[n] = code
        self.tight_n = 13
        self.tight_j = 0
        self.tighten_after = 1 if tighten else 1 << 30  # runs before tightening
        self.budget = 0  # nodes left before giving up; 0: no limit
        self.nodes = 0  # nodes searched so far (a measure of work for benchmarks)
        self.memo: dict[int, int] = {}
        self.choice: dict[int, int] = {}
        self.lister = _Cands(ekeys, ent)
        self.engine: _dp_engine.Engine | None = None
        if use_engine:
            assert _dp_engine is not None
            self.engine = _dp_engine.Engine(
                (
                    jokers,
                    need_jokers,
                    credit_from,
                    credit_to,
                    int(relaxed),
                    int(self.with_kept),
                    self.joker_w,
                ),
                self.vn,
                self.per_real,
                kept_max,
                idx,
                [*ent, ()],
                kept_params,
                OutOfBudget,
            )
            self.engine.set_bounds(self.upper, self.rest)
            if self.split:
                self.engine.set_split(
                    self.track, self.track_real, bound_by.engine if bound_by is not None else None
                )

    def _set_rest(self, n: int) -> None:
        """``rest[n]`` from ``upper[n + 1]``."""
        up = self.upper[n + 1]
        vn = self.vn[n]
        out = self.rest[n]
        for j in range(self.jokers + 1):
            jc = j if j > self.credit_from else self.credit_from
            best = _NEG
            for jn in range(j, self.jokers + 1):
                v = (jn - j) * self.joker_w + up[jn]
                if not self.relaxed:
                    credited = (jn if jn < self.credit_to else self.credit_to) - jc
                    if credited > 0:
                        v += credited * vn
                if v > best:
                    best = v
            out[j] = best

    def tighten(self) -> None:
        """Replace the bounds ``upper[n][j]`` by the exact best from the state before ``n``
        with every run complete (which can do all any state can), from ``n = 13`` down."""
        while self.tight_n > 1:
            n = self.tight_n
            while self.tight_j <= self.jokers:
                j = self.tight_j
                low = _NEG // 2
                v = self.f(n, self.smax[n] | j << 28, low)
                self.upper[n][j] = v if v > low else low
                self._sync()
                self.tight_j += 1
            self._set_rest(n - 1)
            self._sync()
            self.tight_j = 0
            self.tight_n -= 1

    def run(self, nodes: int | None) -> None:
        self.set_budget(0 if nodes is None else nodes + 1)
        floors = self.floors
        try:
            if self.tighten_after:
                self.tighten_after -= 1
            else:
                self.tighten()
            while self.floor_at < len(floors):
                floor = floors[self.floor_at]
                score = self.f(1, 0, floor)
                if score > floor:
                    self.result = self.decisions(score)
                    break
                self.floor_at += 1
        except OutOfBudget:
            return
        self.done = True

    def f(self, n: int, key: int, need: int) -> int:
        """The best score still to come from state ``key`` before number ``n`` if it is
        above ``need``; else an upper bound on it that is at most ``need`` (in C when the
        engine is built: :mod:`._dp_engine`, the same steps; else :meth:`f_py`)."""
        engine = self.engine
        if engine is not None:
            return engine.f(n, key, need)
        if self.split:
            return self.f_split(n, key, need)
        return self.f_py(n, key, need)

    def set_budget(self, nodes: int) -> None:
        """Nodes left before :class:`OutOfBudget` (0: no limit)."""
        if self.engine is not None:
            self.engine.budget = nodes
        else:
            self.budget = nodes

    def node_count(self) -> int:
        """Nodes searched so far."""
        return self.engine.nodes if self.engine is not None else self.nodes

    def memo_entry(self, mk: int) -> tuple[int, int]:
        """The memo's value for ``mk`` (``_MISSING`` if none) and its choice (-1 if none)."""
        if self.engine is not None:
            return self.engine.get(mk)
        return self.memo.get(mk, _MISSING), self.choice.get(mk, -1)

    def _sync(self) -> None:
        """Hand the bounds, changed by :meth:`tighten`, on to the engine."""
        if self.engine is not None:
            self.engine.set_bounds(self.upper, self.rest)

    def _more_complete(self, mk: int, need: int) -> int | None:
        """A complete run may always end, so a state with one more complete run of a colour
        can do all this one can: a bound at most ``need`` proved for it holds here too."""
        memo = self.memo
        for sh in range(0, 28, 7):
            if (mk >> sh) & 127 < 100:  # fewer than 4 complete runs
                mm = memo.get(mk + (25 << sh), _MISSING)
                if mm != _MISSING and (mm >> 1) <= need:
                    return mm >> 1
        return None

    def _store(self, mk: int, m: int, best: int, need: int, choice: int) -> int:
        """A node's end: a best above ``need`` is exact (with its ``choice``), else ``need``
        or the memo's lower bound ``m`` is remembered as a bound; returns ``best``."""
        if best > need:
            self.memo[mk] = best * 2 + 1
            self.choice[mk] = choice
        else:
            self.memo[mk] = (need if m == _MISSING or (m >> 1) > need else m >> 1) * 2
        return best

    def f_py(self, n: int, key: int, need: int) -> int:
        """:meth:`f` in Python."""
        if n == 14:
            return 0 if (key >> 28) >= self.need_jokers else _NEG
        memo = self.memo
        mk = key | n << 30
        m = memo.get(mk, _MISSING)
        if m != _MISSING and (m & 1 or (m >> 1) <= need):
            return m >> 1
        self.nodes += 1
        if self.budget:
            self.budget -= 1
            if not self.budget:
                raise OutOfBudget
        j = key >> 28
        relaxed = self.relaxed
        if relaxed and j:
            # jokers earn nothing here, so having used fewer can only help: a bound proved
            # for the same runs with fewer jokers used holds for this state too
            base = mk & ~(3 << 28)
            for jj in range(j):
                mm = memo.get(base | jj << 28, _MISSING)
                if mm != _MISSING and (mm >> 1) <= need:
                    return mm >> 1
        known = self._more_complete(mk, need)
        if known is not None:
            return known
        free = self.jokers - j
        best = _NEG
        best_choice = -1
        k0 = key & 127
        k1 = (key >> 7) & 127
        k2 = (key >> 14) & 127
        k3 = (key >> 21) & 127
        tc = self.trans[n]
        t0 = tc[0][k0]
        t1 = tc[1][k1]
        t2 = tc[2][k2]
        t3 = tc[3][k3]
        m0 = MUST[k0]
        m1 = MUST[k1]
        m2 = MUST[k2]
        m3 = MUST[k3]
        dc = self.dfc[n]
        d0 = dc[0]
        d1 = dc[1]
        d2 = dc[2]
        d3 = dc[3]
        credit_from = self.credit_from
        credit_to = self.credit_to
        joker_w = self.joker_w
        # the most this state can still earn after this number's real tiles: every real
        # tile ahead, every joker left (credited at 13 where the rack could be credited)
        jc = j if j > credit_from else credit_from
        rest = self.rest[n][j]
        up = self.upper[n + 1]
        vn = self.vn[n]
        per_real = self.per_real[n]
        nxt_bits = (n + 1) << 30
        anywhere = not relaxed or n == 11
        pkey = m0 | m1 << 3 | m2 << 6 | m3 << 9 | free << 12 | n << 14
        # list the affordable entries a level (of real tiles used) at a time, and the next
        # level only when the ones listed are used up and it could still do better
        ents = self.ent[n]
        with_kept = self.with_kept
        kept_row = self.kept_at[n]
        kept_n = self.kept_max[n]
        rest += kept_n  # as if every entry kept every table tile here (checked per entry)
        least = (need - rest) // per_real
        if ents:
            top = (ents[0] >> 15 & 31) - 1
            if least < top:
                least = top
        cands = self.lister(n, pkey, least)
        start = 0
        while True:
            lst = cands[0]
            for p in lst[start:] if start else lst:
                thr = need if need > best else best
                gain = (p >> 15 & 31) * per_real
                if gain + rest <= thr:
                    break  # entries come in falling gain order: none of the rest can do better
                if with_kept:
                    gain += kept_row[p >> 32]
                    if gain + rest - kept_n <= thr:
                        continue
                used = p >> 12 & 7
                spare = free - used
                if not spare:
                    # the common case: no joker left to spread
                    a = t0[p & 7]
                    if a < 0:
                        continue
                    b = t1[p >> 3 & 7]
                    if b < 0:
                        continue
                    c = t2[p >> 6 & 7]
                    if c < 0:
                        continue
                    d = t3[p >> 9 & 7]
                    if d < 0 or d0[a] + d1[b] + d2[c] + d3[d]:
                        continue
                    jn = j + used
                    g = gain + used * joker_w
                    if not relaxed:
                        credited = (jn if jn < credit_to else credit_to) - jc
                        if credited > 0:
                            g += credited * vn
                    if g + up[jn] <= thr:
                        continue
                    nk = a | (b << 7) | (c << 14) | (d << 21) | (jn << 28)
                    mm = memo.get(nk | nxt_bits, _MISSING)
                    if mm != _MISSING and (mm & 1 or (mm >> 1) <= thr - g):
                        v = g + (mm >> 1)
                    else:
                        v = g + self.f(n + 1, nk, thr - g)
                    if v > best:
                        best = v
                        best_choice = nk | (p >> 20 & 4095) << 30 | (p >> 32) << 42
                    continue
                u0 = p & 7
                u1 = p >> 3 & 7
                u2 = p >> 6 & 7
                u3 = p >> 9 & 7
                x0 = p >> 20 & 7
                x1 = p >> 23 & 7
                x2 = p >> 26 & 7
                x3 = p >> 29 & 7
                if anywhere:
                    extras = SPREAD[spare][15]
                else:
                    # a spare joker may only carry on a complete run no real tile continues
                    mask = 0
                    if (k0 // 25) + m0 > u0 - x0:
                        mask |= 1
                    if (k1 // 25) + m1 > u1 - x1:
                        mask |= 2
                    if (k2 // 25) + m2 > u2 - x2:
                        mask |= 4
                    if (k3 // 25) + m3 > u3 - x3:
                        mask |= 8
                    extras = SPREAD[spare][mask]
                for y0, y1, y2, y3 in extras:
                    a = t0[u0 + y0]
                    if a < 0:
                        continue
                    b = t1[u1 + y1]
                    if b < 0:
                        continue
                    c = t2[u2 + y2]
                    if c < 0:
                        continue
                    d = t3[u3 + y3]
                    if d < 0:
                        continue
                    k = used + y0 + y1 + y2 + y3
                    if d0[a] + d1[b] + d2[c] + d3[d] > free - k:
                        continue
                    jn = j + k
                    g = gain + k * joker_w
                    if not relaxed:
                        credited = (jn if jn < credit_to else credit_to) - jc
                        if credited > 0:
                            g += credited * vn
                    if g + up[jn] <= thr:
                        continue
                    nk = a | (b << 7) | (c << 14) | (d << 21) | (jn << 28)
                    mm = memo.get(nk | nxt_bits, _MISSING)
                    if mm != _MISSING and (mm & 1 or (mm >> 1) <= thr - g):
                        v = g + (mm >> 1)
                    else:
                        v = g + self.f(n + 1, nk, thr - g)
                    if v > best:
                        best = v
                        xs = x0 + y0 | (x1 + y1) << 3 | (x2 + y2) << 6 | (x3 + y3) << 9
                        best_choice = nk | xs << 30 | (p >> 32) << 42
                        thr = v
            else:
                pos = cands[1]
                if pos < len(ents):
                    top = ents[pos] >> 15 & 31
                    if top * per_real + rest > (need if need > best else best):
                        start = len(lst)
                        cands = self.lister(n, pkey, top - 1)
                        continue
            break
        return self._store(mk, m, best, need, best_choice)

    def _kept_row(self, n: int, mask: int) -> list[int]:
        """``kept_at[n]`` with the real tile at ``n`` of the followed old run of each colour
        in ``mask`` not kept by a run."""
        row = self.kept_masked[n].get(mask)
        if row is None:
            params = self.kept_params[n]
            assert params is not None
            og, orr, starts, gp = params
            lost = [mask >> c & 1 for c in range(4)]
            row = [_keep_bound(e, og, orr, starts, gp, lost) for e in self.ent[n]]
            self.kept_masked[n][mask] = row
        return row

    def _split_next(
        self, n: int, key: int, ts: tuple[int, int, int, int], nexts: tuple[int, int, int, int]
    ) -> list[tuple[int, int]]:
        """The followed old runs' states after number ``n`` (bits from 40) when ``ts[c]``
        tiles go to colour c's runs (``key``: the state before, ``nexts``: the run codes
        after), each with the colours whose followed run's real tile at ``n`` no run keeps.

        The runs of a colour are counts by length (:data:`TRANS`: the unfinished go on,
        then complete ones, then new ones start), so the run an old run is paired with is
        known by its length only: of length 1 or 2 it goes on (it must); of 3+ it goes on
        while any complete run does (which one ends is the play's choice: this one going
        on can do all the other can), else the old run is done. Not paired yet, it pairs
        at its first real tile with the youngest run taking a tile there (a younger run
        goes on at least as long), or later with a run starting there (one started before
        it could have had already), or stays unpaired — the plays where it pairs with a
        group are the kept scores' (:func:`_keep_bound`). A run of the play that starts
        where a complete run ends is counted as that run going on, so wherever a complete
        run goes on the old run may pair too, as with a new run: from a state the moved
        search asks, the old run may be waiting for a run that starts later, and not free
        to pair with the one it would go on from. Every play's pairings are one of these
        ways or do no better than one, so the score stays a bound."""
        outs: list[tuple[int, int]] = [(0, 0)]
        for c in range(4):
            track = self.track[c]
            tid = track[n]
            if tid < 0:
                continue
            s = key >> 40 + 3 * c & 7 if track[n - 1] == tid else 0
            code = key >> 7 * c & 127
            n1 = code % 5
            n2 = code // 5 % 5
            n3 = code // 25
            t = ts[c]
            must = n1 + n2
            k3 = min(n3, t - must)
            opts: list[tuple[int, int]]  # (state after, kept by its run)
            if s == 4:
                opts = [(4, 0)]
            elif s == 1 or s == 2:
                opts = [(s + 1, 1)]
            elif s == 3:
                opts = [(3, 1)] if k3 > 0 else [(4, 0)]
            else:
                opts = [(0, 0)]
                if t - must > 0:
                    opts.append((1, 1))
                elif t > 0 and track[n - 1] != tid:
                    opts.append((2 if n1 > 0 else 3, 1))
            ends = track[n + 1] != tid
            real = self.track_real[c][n]
            bits = []
            for st, kept in opts:
                if st == 3 and nexts[c] // 25 == 0:
                    st = 4  # dropped: no tile of the colour can continue it
                if ends:
                    st = 0
                bits.append((st << 40 + 3 * c, 0 if kept or not real else 1 << c))
            outs = [(a | b, ma | mb) for a, ma in outs for b, mb in bits]
        return outs

    def f_split(self, n: int, key: int, need: int) -> int:
        """:meth:`f_py` following the old runs' pairings (``tracked``): each way on
        (:meth:`_split_next`) scores its kept tiles less the followed runs' tiles no run
        keeps; a bound of the ``bound_by`` search, from this state or the next, prunes as
        this search's own would (in C as ``engine_f_split``: the same steps and nodes)."""
        if n == 14:
            return 0 if (key >> 28 & 3) >= self.need_jokers else _NEG
        memo = self.memo
        mk = key | n << 30
        m = memo.get(mk, _MISSING)
        if m != _MISSING and (m & 1 or (m >> 1) <= need):
            return m >> 1
        self.nodes += 1
        if self.budget:
            self.budget -= 1
            if not self.budget:
                raise OutOfBudget
        j = key >> 28 & 3
        plain = self.plain
        if plain is not None:
            pm = plain.memo_entry(mk & _PLAIN)[0]
            if pm != _MISSING and (pm >> 1) <= need:
                return pm >> 1
        known = self._more_complete(mk, need)
        if known is not None:
            return known
        free = self.jokers - j
        best = _NEG
        k0 = key & 127
        k1 = (key >> 7) & 127
        k2 = (key >> 14) & 127
        k3 = (key >> 21) & 127
        tc = self.trans[n]
        t0 = tc[0][k0]
        t1 = tc[1][k1]
        t2 = tc[2][k2]
        t3 = tc[3][k3]
        m0 = MUST[k0]
        m1 = MUST[k1]
        m2 = MUST[k2]
        m3 = MUST[k3]
        dc = self.dfc[n]
        d0 = dc[0]
        d1 = dc[1]
        d2 = dc[2]
        d3 = dc[3]
        credit_from = self.credit_from
        credit_to = self.credit_to
        joker_w = self.joker_w
        jc = j if j > credit_from else credit_from
        rest = self.rest[n][j]
        up = self.upper[n + 1]
        vn = self.vn[n]
        per_real = self.per_real[n]
        nxt_bits = (n + 1) << 30
        pkey = m0 | m1 << 3 | m2 << 6 | m3 << 9 | free << 12 | n << 14
        ents = self.ent[n]
        kept_row = self.kept_at[n]
        kept_n = self.kept_max[n]
        rest += kept_n
        least = (need - rest) // per_real
        if ents:
            top = (ents[0] >> 15 & 31) - 1
            if least < top:
                least = top
        cands = self.lister(n, pkey, least)
        start = 0
        while True:
            lst = cands[0]
            for p in lst[start:] if start else lst:
                thr = need if need > best else best
                gain = (p >> 15 & 31) * per_real
                if gain + rest <= thr:
                    break
                idx = p >> 32
                kept_full = kept_row[idx]
                if gain + kept_full + rest - kept_n <= thr:
                    continue
                used = p >> 12 & 7
                spare = free - used
                u0 = p & 7
                u1 = p >> 3 & 7
                u2 = p >> 6 & 7
                u3 = p >> 9 & 7
                extras = SPREAD[spare][15]
                for y0, y1, y2, y3 in extras:
                    a = t0[u0 + y0]
                    if a < 0:
                        continue
                    b = t1[u1 + y1]
                    if b < 0:
                        continue
                    c = t2[u2 + y2]
                    if c < 0:
                        continue
                    d = t3[u3 + y3]
                    if d < 0:
                        continue
                    k = used + y0 + y1 + y2 + y3
                    if d0[a] + d1[b] + d2[c] + d3[d] > free - k:
                        continue
                    jn = j + k
                    g = gain + k * joker_w
                    credited = (jn if jn < credit_to else credit_to) - jc
                    if credited > 0:
                        g += credited * vn
                    if g + kept_full + up[jn] <= thr:
                        continue
                    nk = a | (b << 7) | (c << 14) | (d << 21) | (jn << 28)
                    for sbits, lost in self._split_next(
                        n, key, (u0 + y0, u1 + y1, u2 + y2, u3 + y3), (a, b, c, d)
                    ):
                        gk = g + (self._kept_row(n, lost)[idx] if lost else kept_full)
                        thr = need if need > best else best
                        if gk + up[jn] <= thr:
                            continue
                        if plain is not None:
                            pm = plain.memo_entry(nk | nxt_bits)[0]
                            if pm != _MISSING and (pm >> 1) <= thr - gk:
                                continue
                        nks = nk | sbits
                        mm = memo.get(nks | nxt_bits, _MISSING)
                        if mm != _MISSING and (mm & 1 or (mm >> 1) <= thr - gk):
                            v = gk + (mm >> 1)
                        else:
                            v = gk + self.f(n + 1, nks, thr - gk)
                        if v > best:
                            best = v
            else:
                pos = cands[1]
                if pos < len(ents):
                    top = ents[pos] >> 15 & 31
                    if top * per_real + rest > (need if need > best else best):
                        start = len(lst)
                        cands = self.lister(n, pkey, top - 1)
                        continue
            break
        return self._store(mk, m, best, need, -1)

    def decisions(self, score: int) -> DPResult:
        decisions: list[Decision] = []
        key = 0
        for n in range(1, 14):
            mk = key | n << 30
            value, ch = self.memo_entry(mk)
            assert value != _MISSING and value & 1
            e = self.ent[n][ch >> 42]
            xs = ch >> 30 & 4095
            decisions.append(
                Decision(
                    (e >> 20 & 3, e >> 22 & 3, e >> 24 & 3, e >> 26 & 3),
                    e >> 12 & 7,
                    (e & 7, e >> 3 & 7, e >> 6 & 7, e >> 9 & 7),
                    (xs & 7, xs >> 3 & 7, xs >> 6 & 7, xs >> 9 & 7),
                )
            )
            key = ch & ((1 << 30) - 1)
        return DPResult(score, tuple(decisions))


class _Cands:
    """The affordable entries of a number for :meth:`_Core.f_py`'s state (its unfinished runs
    and free jokers packed in ``pkey``), listed at least while they use more than ``least``
    real tiles (lazily: most nodes stop after a few entries, so the rest is never looked
    at); the lists are shared between searches (they depend only on the entry table and the
    key's runs). The C engine lists them itself, as it goes."""

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
        entries = self.ent[n]
        pos = cands[1]
        if pos < len(entries) and (entries[pos] >> 15 & 31) > least:
            out = list(cands[0])
            pos = _usable(entries, pos, least, out, pkey)
            cands = (tuple(out), pos)
            self.usable[pkey] = cands
            _remember(self.ekeys[n] | (pkey & 16383) << 36, cands)
        return cands


def _group_keep(group_reals: Sequence[int], in_groups: int) -> list[int]:
    """``out[s]``: the most real tiles the old groups of one number (``group_reals``: the
    real tiles of each; ``in_groups`` in all) can keep when ``s`` of their tiles stay in
    groups: each old group pairs with a new group (keeping the colours both hold) or with a
    run through that number (keeping 1); those pairing with groups keep at most ``s`` and
    at most their own tiles."""
    low = sorted(group_reals)
    out = []
    for s in range(in_groups + 1):
        best = s
        taken = 0
        for k in range(1, len(low) + 1):
            taken += low[k - 1]
            v = k + min(s, in_groups - taken)
            if v > best:
                best = v
        out.append(best)
    return out


def _keep_bound(
    e: int,
    in_groups: list[int],
    in_runs: list[int],
    starts: list[int],
    group_keep: list[int],
    lost: list[int] | None = None,
) -> int:
    """At least the real table tiles of one number an entry ``e`` (see below) can keep in
    (the continuation of) their set, whatever came before. ``in_groups``/``in_runs``: per
    colour, table copies now in a group / a run; ``starts``: per colour, old runs whose
    first real tile is here.

    Old runs paired with a new run keep, per colour, no more tiles than the entry puts in
    runs. An old run may instead pair with a new group and keep 1: such a run is counted at
    its first real tile — there that tile is in a run (then the copies in runs outnumber
    the runs kept that way) or in a group beyond the old groups' tiles, as counted here.
    (From a number inside an old run on, the caller adds 1 for each such run that can
    still pair.) The old groups' share: :func:`_group_keep`."""
    s = 0
    runs = 0
    for c in range(4):
        to_runs = e >> 3 * c & 7
        to_groups = e >> 20 + 2 * c & 3
        a = in_groups[c] if in_groups[c] < to_groups else to_groups
        s += a
        creditable = in_runs[c] - lost[c] if lost else in_runs[c]
        b = creditable if creditable < to_runs else to_runs
        more = min(starts[c], in_runs[c] - b, to_groups - a)
        runs += b + (more if more > 0 else 0)
    return runs + group_keep[s]


# not a memo value: an exact score is a play's (>= 0, or about _NEG); a bound is stored even
_MISSING: Final = -1


MUST: Final = [code % 5 + code // 5 % 5 for code in range(125)]
_PLAIN: Final = (1 << 40) - 1  # a memo key less the followed old runs' states

# An entry — one way to use a number's real tiles — is an int: per colour, real tiles to runs
# (3 bits each, from bit 0), jokers in groups (bit 12), real tiles placed (bit 15), per colour
# real tiles in groups (2 bits each, from bit 20). The low 15 bits are its *shape*: entries
# of one shape lead to the same state. Flat ints keep the shared caches small and out of the
# garbage collector's way.
_SHAPE: Final = (1 << 15) - 1
# A *usable* entry — one a state can afford — is an int too: per colour, tiles to runs with
# the jokers the unfinished runs need (3 bits each), jokers used (bit 12), real tiles placed
# (bit 15), per colour the jokers put in runs (3 bits each, from bit 20), and from bit 32 the
# entry's index in its list.


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
            partners = present[i] + present[13 + i] + present[26 + i] + present[39 + i] - 1
            if partners + jokers >= 2:
                continue
            ok = False
            for start in range(max(0, i - 2), min(i, 10) + 1):
                missing = 0
                for m in range(start, start + 3):
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


_USABLE: dict[int, tuple[tuple[int, ...], int]] = {}  # by entry table and (pkey & 16383)
_USABLE_OLD: dict[int, tuple[tuple[int, ...], int]] = {}
_USABLE_MAX: Final = 4000  # per generation; lists are mostly short (lazy)
_NO_USABLE: Final[tuple[tuple[int, ...], int]] = ((), 0)


def _usable(entries: tuple[int, ...], pos: int, least: int, out: list[int], pkey: int) -> int:
    """Append to ``out`` the entries from ``pos`` on, while they use more than ``least`` real
    tiles, that a state can afford: each colour's unfinished runs (``pkey``: 3 bits per
    colour, then the free jokers) take a tile, a joker where the entry gives them too few
    real tiles; at most the free jokers. Returns where the scan stopped."""
    end = len(entries)
    m0 = pkey & 7
    m1 = pkey >> 3 & 7
    m2 = pkey >> 6 & 7
    m3 = pkey >> 9 & 7
    free = pkey >> 12 & 3
    if not (m0 or m1 or m2 or m3):
        # the common case, no unfinished run: an entry is affordable as it is
        while pos < end:
            e = entries[pos]
            if (e >> 15 & 31) <= least:
                break
            if (e >> 12 & 7) <= free:
                out.append((e & 0xFFFFF) | pos << 32)
            pos += 1
        return pos
    while pos < end:
        e = entries[pos]
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
    """Keep a list in the shared cache: two generations, the older dropped whole when the
    newer fills up (lists still in use are copied on into the newer one as they are met)."""
    global _USABLE, _USABLE_OLD
    if len(_USABLE) >= _USABLE_MAX and key not in _USABLE:
        _USABLE_OLD = _USABLE
        _USABLE = {}
    _USABLE[key] = cands  # replaced whole: never torn


def _build_spread() -> list[list[tuple[tuple[int, int, int, int], ...]]]:
    """``SPREAD[spare][mask]``: ways to put up to ``spare`` jokers on the colours in ``mask``."""
    out = []
    for spare in range(3):
        rows = []
        for mask in range(16):
            ways = [
                (y[0], y[1], y[2], y[3])
                for y in product(range(spare + 1), repeat=4)
                if sum(y) <= spare and all(y[c] == 0 or mask >> c & 1 for c in range(4))
            ]
            ways.sort(key=sum)
            rows.append(tuple(ways))
        out.append(rows)
    return out


SPREAD: Final = _build_spread()


@lru_cache(maxsize=16384)  # a tuple of ints each: the cache stays small
def _entries(ekey: int) -> tuple[int, ...]:
    """The ways to use the real tiles of one number in groups (with jokers) and runs, most
    real tiles first, then most table tiles keeping their role, then fewest jokers; one per
    shape. ``ekey``: per colour (8 bits each) the table and rack copies and the table copies
    now in a group and in a run (2 bits each), then the jokers (bit 32) and whether jokers
    earn nothing (bit 35). Independent of the number, so shared between numbers and calls.

    The entries themselves depend only on the copies (cached separately, as building them is
    the slow part); the roles only reorder them, which is cheap."""
    roles = ekey & 0xF0F0F0F0
    # built for every joker count the game allows (2), kept to those that fit: more hits
    jokers = ekey >> 32 & 7
    most = jokers if jokers > _MAX_JOKERS else _MAX_JOKERS
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
        # most real tiles, most kept, fewest jokers, then the base order (the same first
        # two), packed in one int
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


@lru_cache(maxsize=4096)  # holds them all: 6 ** 4 copies per colour, tight or not
def _base_entries(akey: int) -> tuple[int, ...]:
    """:func:`_entries` without the role order (most real tiles, then fewest jokers, then
    tiles to groups and to runs in increasing lexicographic order); ``akey`` as there,
    without the roles.

    Entries of one shape (tiles to runs per colour, jokers in groups) lead to the same state
    and differ only in how many real tiles go to groups: all but those with the most are
    beaten by them (same future, fewer tiles now), so per shape only the most are listed.
    With ``tight`` (jokers earn nothing) a shape is also beaten by the same runs with fewer
    jokers and as many tiles."""
    a0 = akey & 3
    a1 = akey >> 8 & 3
    a2 = akey >> 16 & 3
    a3 = akey >> 24 & 3
    t0 = a0 + (akey >> 2 & 3)
    t1 = a1 + (akey >> 10 & 3)
    t2 = a2 + (akey >> 18 & 3)
    t3 = a3 + (akey >> 26 & 3)
    jokers = akey >> 32 & 7
    tight = akey >> 35 & 1
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
                        | tight << 16
                    )  # fmt: skip
                    rbits = r0 | r1 << 3 | r2 << 6 | r3 << 9
                    rlex = r0 << 6 | r1 << 4 | r2 << 2 | r3
                    rsum = r0 + r1 + r2 + r3
                    most = -1  # tiles to groups with fewer jokers (tight)
                    for gj in range(jokers + 1):
                        best = _box_best(box | gj << 17)
                        if not best:
                            continue
                        gsum = best[0] >> 8
                        if gsum <= most:
                            continue  # beaten by fewer jokers
                        if tight:
                            most = gsum
                        reals = gsum + rsum
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
    ``hi`` (``key``: 2 bits each per colour, then ``tight`` and the jokers in the groups),
    with the most tiles; each as ``gsum << 8`` and the counts, the first colour's in the
    highest 2 bits (so they sort lexicographically), in increasing order. Cached (there
    are 6 ** 4 boxes, 3 joker counts, tight or not)."""
    found = _BOX.get(key)
    if found is not None:
        return found
    feasible = _GROUPS.get(key >> 16)
    if feasible is None:
        feasible = _GROUPS[key >> 16] = _group_row(key >> 16)
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


def _group_row(code: int) -> list[bool]:
    """``_GROUPS[tight | jokers << 1][g]``: whether real tiles of one number, ``g`` holding
    each colour's count in 2 bits (the first colour highest), and that many jokers split
    into groups (no tiles at all: only with no joker)."""
    tight = bool(code & 1)
    jokers = code >> 1
    row = []
    for g in range(256):
        counts = (g >> 6 & 3, g >> 4 & 3, g >> 2 & 3, g & 3)
        if max(counts) > 2:
            row.append(False)
        elif sum(counts) == 0:
            row.append(jokers == 0)
        else:
            row.append(group_partition(counts, jokers, tight) is not None)
    return row


_GROUPS: Final[dict[int, list[bool]]] = {}


if _dp_engine is not None:
    _dp_engine.setup_tables(TRANS_CAP, DEFICIT, MUST, SPREAD)
