"""The linear relaxation of the fewest-moved problem: a bound on the tiles kept, and often
the play that meets it.

The exact fewest-moved search (:mod:`._solver_kept`) proves its answer with bounds from
dynamic programs over the numbers that count runs by length; they cannot tell which new run
continues which old one, and on the slowest instances they stand 2-7 tiles above the
answer. The linear relaxation of the integer program with the third objective is exact on
most of those instances, and its solution is then often a whole play:

* a column per new set *and the old set it continues* (or none), worth the tiles the two
  share (faces; jokers as often as both hold one — :func:`.solver.moved_count`'s measure);
* a row per face (the table's copies, plus the rack's placed, are the copies in the sets),
  one for the jokers, one per old set (continued at most once) and, unless every rack tile
  is placed, one for the tiles placed (the optimum's) and one for their value (at least the
  optimum's), with a column per rack face placed, at most its copies; the rack's jokers are
  worth what the sets crediting them say (a row: no more credited than placed).

It is solved by column generation: a small dense revised simplex (two phases, right-hand
sides perturbed — the sets' rows are so degenerate that nearly every pivot moved nothing
without it; the known play's sets and the old sets are the first columns, so the first
phase needs no others) over the columns found so far; then every set of the instance is
priced against the duals (runs: per colour, span and count of jokers, the jokers where they
cost least; groups: per number, colours and jokers; each alone and continuing each old set
it can keep a tile of), the best few added, until none prices above zero. A block of sets
(a colour and an old set, or its runs from one number; a number and an old set) whose
bound — each number at its real tile's weight or a joker's, whichever is more — is at most
zero is only counted: none of it could be added (most blocks, once the duals settle).

What it returns holds whatever the floating-point arithmetic did. The bound is computed
from the duals as a Lagrangian bound, which holds for *any* duals: each row's dual times the
most (or least) its row can hold, plus each column's reduced cost above zero times how
often it can be on the table (the sets not generated counted at the most any of them
prices). A play read off an integral solution is checked by the caller like any other.

When the bound stands a little above the best play known (at most :data:`_BB_GAP`; the
caller passes the known play's tiles kept), a small branch and bound closes the gap — the
old search took 20-85 ms on those instances, and they were the slow ones. It branches on
what an old set's continuation is, so that a branch changes only which columns may be on
the table, never a right-hand side: the columns a branch bars are held at zero — the dual
simplex drives those in the basis out (from the parent's basis, whose duals stay feasible:
a few pivots), and if the columns there cannot do without them, they get a cost of
:data:`_BARRED` and the primal simplex does — and pricing leaves them out: a run or group
continuing old set ``i`` must hold
the faces in ``need[i]``, none in ``ban[i]``, between ``jokers_lo[i]`` and
``jokers_hi[i]`` jokers; an old set that must be continued has its slot's slack barred.
The branch is the old set and face that split the continuations of the solution most
evenly, weighed by the old set's tiles (or its jokers, or whether it is continued at all);
the dives put on the table a set the solution holds part of, one after another, and try
again from the next first set when they find no play or one too far below the bound for
the branch and bound, then once more taking the next set where one leaves no solution. A
node whose bound is no more than the best play found is done, so is one whose solution is
a play, and one whose continuations are whole dives for the rest. It gives up (the
caller's search goes on from the relaxation's bound) past :data:`_NODES` nodes or
:data:`_BB_PIVOTS` pivots, and does not start when the relaxation alone took over
:data:`_BB_AFTER` and the gap is more than one: then the branch and bound costs more than
the search it would save (dense instances); a gap of one it mostly closes in a few nodes,
where the search's last pass is slow. When it finishes, the bound it returns is the most
tiles kept, and the play the best it found (``None``: the known play's).

``_lp_engine.c`` runs the same steps in C (the same floating-point operations in the same
order, so the same pivots, bound and play; it also only counts a block whose bound is below
the best few found so far, which changes nothing it returns); this module is the
pure-Python fallback.
"""

from __future__ import annotations

from typing import Final

from gameshack.rules.tiles.sets import check_set

try:  # the same steps in C (setup.py builds it next to the compiled rules)
    from gameshack.rules.tiles import _lp_engine
except ImportError:  # pure Python (gameshack.rules decides: see its docstring)
    _lp_engine = None  # type: ignore[assignment]

__all__ = ["KeptLP", "kept_lp"]

JOKER: Final = 52
_EQ: Final = 0
_LE: Final = 1
_GE: Final = 2
# column kinds
_SET: Final = 0
_PLACED: Final = 1
_SLACK: Final = 2
_ARTIFICIAL: Final = 3
# a column enters when its reduced cost is above this; a pivot element must be above _PIVOT
_ENTER: Final = 1e-9
_PIVOT: Final = 1e-9
_PER_ROUND: Final = 40  # generated columns added per round of pricing (the best)
_ROUNDS: Final = 200  # rounds of pricing at most
_LIMIT: Final = 20000  # pivots at most
_DIVES: Final = 12  # sets put on the table to find an integral solution, at most
_DIVE_TRIES: Final = 3  # dives from the start, each with another first set
_DIVE_SIDES: Final = 3  # sets tried at a step of the last dive, until one leaves a solution
_REFACTOR: Final = 200  # pivots between recomputing the basis inverse from scratch
_DEGENERATE: Final = 30  # pivots in a row that move nothing before Bland's rule (no cycling)
_NODES: Final = 512  # nodes of the branch and bound at most
_BARRED: Final = -100.0  # the cost of a barred column the simplex must drive out
_BB_GAP: Final = 3  # the branch and bound only when the bound is at most this above a play
_BB_PIVOTS: Final = 3000  # pivots in the branch and bound at most
_BB_AFTER: Final = 1000  # and, unless the gap is 1, only after at most so many (root and dive)
_BB_ROUNDS: Final = 400  # rounds of pricing in the branch and bound at most
# pivots of one primal simplex in a dive, on the true right-hand sides, before they are
# perturbed (dense 291: one took 4958 pivots, Bland's rule on a degenerate vertex)
_STALL: Final = 300
# a priced set: (reduced cost, 0 a run or 1 a group, colour or number, first number or
# colours, last number, jokers, old set continued, jokers credited to the rack's)
Entry = tuple[float, int, int, int, int, int, int, int]
# arrangements of jokers per priced run (a span with k jokers is priced at its best
# arrangement): at most 1 + 13 + 78
_ARRANGEMENTS: Final = 100


class KeptLP:
    """The relaxation's answer: ``bound`` (no play of the level keeps more tiles; ``None``
    if the simplex gave up), ``value`` (the relaxation's optimum) and ``play`` (the sets of
    an integral solution, or ``None``); ``pivots`` and ``rounds`` of pricing, the work."""

    __slots__ = ("bound", "nodes", "pivots", "play", "rounds", "value")

    def __init__(
        self,
        bound: int | None,
        value: float,
        play: list[list[int]] | None,
        pivots: int,
        rounds: int,
        nodes: int = 0,
    ) -> None:
        self.bound = bound
        self.value = value
        self.play = play
        self.pivots = pivots
        self.rounds = rounds
        self.nodes = nodes


def kept_lp(
    old: list[list[int]],
    tcount: list[int],
    rack: list[int],
    rack_jokers: int,
    count_w: int,
    level: int,
    known: list[list[int]],
    limit: int = _LIMIT,
    known_kept: int = -1,
) -> KeptLP:
    """The linear relaxation of the most tiles kept on the plays placing ``level`` (``count_w``
    per tile plus their value; the most any play places: the relaxation asks for exactly its
    tiles and at least its value) from ``rack`` (copies per face 0..51) and
    ``rack_jokers`` onto the table ``old`` (``tcount``: its copies per face, jokers at 52);
    ``known``, a play of that level, gives the first columns. ``limit``: pivots at most."""
    first = [*known, *old]
    meanings = [joker_meanings(s) for s in first]
    if _lp_engine is not None:
        bound, value, play, pivots, rounds, nodes = _lp_engine.kept_lp(
            old, tcount, rack, rack_jokers, count_w, level, first, meanings, limit, known_kept
        )
        return KeptLP(bound, value, play, pivots, rounds, nodes)
    return _Model(old, tcount, rack, rack_jokers, count_w, level).solve(
        first, meanings, limit, known_kept
    )


def joker_meanings(s: list[int]) -> list[int]:
    """The numbers the jokers of the set ``s`` stand for, highest first (as
    :func:`.sets.check_set` reads it)."""
    if JOKER not in s:
        return []
    check = check_set(s)
    if not check.valid:
        return []
    return sorted(
        [m % 13 + 1 for f, m in zip(s, check.meanings, strict=True) if f == JOKER], reverse=True
    )


class _Model:
    """Rows, columns and the simplex over them."""

    def __init__(
        self,
        old: list[list[int]],
        tcount: list[int],
        rack: list[int],
        rack_jokers: int,
        count_w: int,
        level: int,
    ) -> None:
        self.nold = len(old)
        self.old_reals: list[int] = []  # per old set, its real faces as a bit mask
        self.old_jokers: list[int] = []
        for s in old:
            mask = 0
            for f in s:
                if f != JOKER:
                    mask |= 1 << f
            self.old_reals.append(mask)
            self.old_jokers.append(s.count(JOKER))
        self.old = old
        jokers = tcount[JOKER] + rack_jokers
        self.max_jokers = 2 if jokers > 2 else jokers  # in one set
        self.avail = [tcount[f] + rack[f] > 0 for f in range(52)]
        self.avail_mask = [0, 0, 0, 0]  # per colour, the numbers there (bit n - 1)
        for f in range(52):
            if self.avail[f]:
                self.avail_mask[f // 13] |= 1 << (f % 13)
        # the branch (:meth:`branch_and_bound`): per old set, the faces its continuation
        # must hold, and those it must not
        self.need = [0] * len(old)
        self.ban = [0] * len(old)
        self.jokers_lo = [0] * len(old)  # and the fewest and most jokers it holds
        self.jokers_hi = [2] * len(old)
        self.continued = [False] * len(old)  # and whether it must be continued
        self.slot_slack = [-1] * len(old)  # (its slot row's slack column)
        # every rack tile placed: the tiles in the sets are known, no rows for those placed
        every = count_w * (sum(rack) + rack_jokers)
        all_placed = level >= every
        # rows: kind, the least and most the row holds, its right-hand side
        self.row_kind: list[int] = []
        self.row_lo: list[float] = []
        self.row_hi: list[float] = []
        self.b: list[float] = []
        # columns: cost, rows and values, how often it can be on the table, kind, and for
        # sets their tiles and the old set they continue (-1: none)
        self.cost: list[float] = []
        self.rows: list[list[int]] = []
        self.vals: list[list[float]] = []
        self.most: list[float] = []
        self.barred: list[bool] = []  # a column the branch bars: at zero, never entering
        self.reals: list[int] = []  # a set's real faces as a bit mask, and its jokers
        self.jokers: list[int] = []
        self.kind: list[int] = []
        self.tiles: list[list[int]] = []
        self.pair: list[int] = []
        self.keys: set[tuple[int, int, int, int, int]] = set()
        # the simplex: per row its basic column, the basis inverse, the basic values; per
        # column its row in the basis or -1
        self.basis: list[int] = []
        self.where: list[int] = []
        self.binv: list[list[float]] = []
        self.xb: list[float] = []
        self.true_b: list[float] = []
        self.pivots = 0
        self.since_refactor = 0
        # pricing: rounds done, and at most; the last duals, highest reduced cost and count
        # priced
        self.rounds = 0
        self.round_cap = _ROUNDS
        # the dive's play's tiles kept; the branch and bound's nodes, the most kept by a
        # play found, that play (None: the known play's), the right-hand sides perturbed
        self.dive_value = -1
        self.nodes = 0
        self.sided = 0  # dive steps that put on the table a set other than the first asked
        self.redived = 0  # dives after one found a play too far below the bound
        self.lowered = 0  # artificials the dual simplex took out (a dive or branch moved them)
        self.lower = -1
        self.best: list[list[int]] | None = None
        self.pert_b: list[float] = []
        self.diving = False  # in a dive from the true right-hand sides, not perturbed yet
        self.perturbed = 0  # dives that stalled and were perturbed (:data:`_STALL`)
        self.penalised: list[tuple[int, float]] = []  # barred columns at _BARRED, their cost
        self.y: list[float] = []
        self.top = 0.0
        self.count = 0
        self.face_row = [-1] * 52
        for f in range(52):
            if self.avail[f]:
                t = float(tcount[f] + (rack[f] if all_placed else 0))
                self.face_row[f] = self._row(_EQ, t, t)
        self.joker_row = -1
        if jokers:
            t = float(tcount[JOKER] + (rack_jokers if all_placed else 0))
            self.joker_row = self._row(_EQ, t, t)
        self.slot_row = [self._row(_LE, 0.0, 1.0) for _ in old]
        # The rack's jokers placed are credited the highest meanings on the table, so each
        # set credits its own highest: a set's column says how many of its jokers it credits
        # (the count row: no more than the rack's jokers placed) and their meanings (the
        # value row: the value placed, or the value the optimum credits them)
        self.rack_jokers = rack_jokers
        self.value_row = -1
        self.value_scale = 1.0
        self.count_row = -1
        reals_value = 0
        for f in range(52):
            reals_value += rack[f] * (f % 13 + 1)
        if all_placed:
            if rack_jokers:
                need = level - every - reals_value
                self.value_row = self._row(_GE, float(need), float(13 * rack_jokers))
                self.count_row = self._row(_LE, 0.0, float(rack_jokers))
        else:
            # The level is the optimum's, so a play of the level places exactly its tiles
            # and at least (so exactly) its value: a row for each, not one for the two
            # weighted (which lets the relaxation trade a little of a tile for value — the
            # bound stood up to 8 above the answer on normal 221, 3 with the two rows)
            tiles_row = self._row(_EQ, float(level // count_w), float(level // count_w))
            scale = 1.0 / 13.0  # the value row in tiles (rows stay near 1)
            most = reals_value + 13 * rack_jokers
            value_row = self._row(_GE, (level % count_w) * scale, most * scale)
            for f in range(52):
                if rack[f]:
                    ub = self._row(_LE, 0.0, float(rack[f]))
                    self._column(
                        0.0,
                        [self.face_row[f], tiles_row, value_row, ub],
                        [-1.0, 1.0, (f % 13 + 1) * scale, 1.0],
                        _PLACED,
                    )
                    self.most[-1] = float(rack[f])
            if rack_jokers:
                # the rack's jokers placed: a tile each (their value comes from the sets
                # that credit them)
                ub = self._row(_LE, 0.0, float(rack_jokers))
                self.value_row = value_row
                self.value_scale = scale
                self.count_row = self._row(_LE, float(-rack_jokers), 0.0)
                self._column(
                    0.0,
                    [self.joker_row, tiles_row, ub, self.count_row],
                    [-1.0, 1.0, 1.0, -1.0],
                    _PLACED,
                )
                self.most[-1] = float(rack_jokers)
        self.m = len(self.b)
        self.first_set = len(self.cost)

    def _row(self, kind: int, lo: float, hi: float) -> int:
        self.row_kind.append(kind)
        self.row_lo.append(lo)
        self.row_hi.append(hi)
        self.b.append(hi if kind == _LE else lo)
        return len(self.b) - 1

    def _column(self, cost: float, rows: list[int], vals: list[float], kind: int) -> int:
        self.cost.append(cost)
        self.rows.append(rows)
        self.vals.append(vals)
        self.kind.append(kind)
        self.most.append(0.0)
        self.barred.append(False)
        self.reals.append(0)
        self.jokers.append(0)
        self.tiles.append([])
        self.pair.append(-1)
        self.where.append(-1)
        return len(self.cost) - 1

    # ------------------------------------------------------------------ sets as columns

    def add_set(self, tiles: list[int], pair: int, credited: int, credit: int) -> bool:
        """The column of the set ``tiles`` continuing old set ``pair`` (-1: none), crediting
        ``credited`` of its jokers to the rack's, worth ``credit``, unless it is there
        already (the same faces, count of jokers, credited and credit)."""
        reals, jokers = _faces(tiles)
        key = (reals, jokers, pair, credited, credit)
        if key in self.keys:
            return False
        self.keys.add(key)
        rows: list[int] = []
        vals: list[float] = []
        for f in range(52):
            if reals >> f & 1:
                rows.append(self.face_row[f])
                vals.append(1.0)
        if jokers:
            rows.append(self.joker_row)
            vals.append(float(jokers))
            if credited:
                rows.append(self.value_row)
                vals.append(credit * self.value_scale)
                rows.append(self.count_row)
                vals.append(float(credited))
        cost = 0.0
        most = 2.0  # a face has two copies
        if pair >= 0:
            rows.append(self.slot_row[pair])
            vals.append(1.0)
            shared = _popcount(reals & self.old_reals[pair])
            held = self.old_jokers[pair]
            cost = float(shared + (jokers if jokers < held else held))
            most = 1.0
        k = self._column(cost, rows, vals, _SET)
        self.reals[k] = reals
        self.jokers[k] = jokers
        self.most[k] = most
        self.tiles[k] = tiles
        self.pair[k] = pair
        return True

    def add_pairings(self, tiles: list[int], meanings: list[int]) -> None:
        """The set ``tiles`` (its jokers' ``meanings``, highest first) alone and continuing
        each old set it keeps a tile of, crediting each count of its jokers it can."""
        reals, jokers = _faces(tiles)
        most = jokers if jokers < self.rack_jokers else self.rack_jokers
        for credited in range(most + 1):
            credit = sum(meanings[:credited])
            self.add_set(tiles, -1, credited, credit)
            for i in range(self.nold):
                if reals & self.old_reals[i] or (jokers and self.old_jokers[i]):
                    self.add_set(tiles, i, credited, credit)

    # ------------------------------------------------------------------ the simplex

    def solve(
        self, first: list[list[int]], meanings: list[list[int]], limit: int, known: int = -1
    ) -> KeptLP:
        for s, meant in zip(first, meanings, strict=True):
            self.add_pairings(s, meant)
        # the right-hand sides moved by a tiny amount each, the first basis: a slack for
        # each <= row, an artificial (and a surplus) for the others
        self.true_b = list(self.b)
        for r in range(self.m):
            self.b[r] += 1e-7 * (1.0 + (r * 37 % 101) / 101.0)
        for r in range(self.m):
            if self.row_kind[r] == _LE:
                k = self._column(0.0, [r], [1.0], _SLACK)
                if r in self.slot_row:
                    self.slot_slack[self.slot_row.index(r)] = k
            else:
                if self.row_kind[r] == _GE:
                    self._column(0.0, [r], [-1.0], _SLACK)
                k = self._column(0.0, [r], [1.0], _ARTIFICIAL)
            self.basis.append(k)
            self.where[k] = r
        self.binv = [[1.0 if i == j else 0.0 for j in range(self.m)] for i in range(self.m)]
        self.xb = list(self.b)
        if self.optimise(True, limit) != 0:
            return KeptLP(None, 0.0, None, self.pivots, 0)
        left = 0.0
        for i in range(self.m):
            if self.kind[self.basis[i]] == _ARTIFICIAL:
                left += self.xb[i]
                self.xb[i] = 0.0
        if left > 1e-4:  # (the known play is a solution: only numbers go wrong here)
            return KeptLP(None, 0.0, None, self.pivots, 0)

        if not self.generate(limit):
            return KeptLP(None, 0.0, None, self.pivots, self.rounds)
        # the basic values for the right-hand sides as they are
        self.pert_b = self.b
        self.b = list(self.true_b)
        self.basic_values()
        value = 0.0
        for i in range(self.m):
            value += self.cost[self.basis[i]] * self.xb[i]
        bound = int(self.bound(self.y, self.top, self.count) + 1e-6)
        play = self.read_play()
        found = int(value + 0.5)
        # the root's basis, for the branch and bound (only asked with a known play)
        basis = list(self.basis) if known >= 0 else []
        binv = [list(row) for row in self.binv] if known >= 0 else []
        since = self.since_refactor
        if play is None:
            # a play near enough the bound for the branch and bound is worth more dives
            # (when the known play is not already)
            want = bound - _BB_GAP if 0 <= known < bound - _BB_GAP else -1
            play = self.dive(limit, want)
            found = self.dive_value if play is not None else -1
        lower = found if found > known else known
        if (
            known >= 0
            and lower < bound
            and bound - lower <= _BB_GAP
            and (self.pivots <= _BB_AFTER or bound - lower == 1)
        ):
            self.restore(basis, binv, since)
            self.b = self.pert_b
            self.basic_values()
            self.lower = lower
            self.round_cap = self.rounds + _BB_ROUNDS
            bb_limit = self.pivots + _BB_PIVOTS
            if self.visit(bb_limit if bb_limit < limit else limit):
                bound = self.lower
                if self.best is not None:
                    play = self.best
        return KeptLP(bound, value, play, self.pivots, self.rounds, self.nodes)

    def generate(self, limit: int) -> bool:
        """Optimise, price, add the best sets, until none prices above zero (``y``, ``top``
        and ``count`` from the last pricing); False if the simplex gave up."""
        while True:
            if self.optimise(False, limit) != 0 or self.rounds >= self.round_cap:
                return False
            self.y = self.duals(False)
            self.rounds += 1
            self.top, self.count, found = self.price(self.y)
            added = 0
            for entry in found:
                tiles = self.entry_tiles(entry, self.y)
                if self.add_set(tiles, entry[6], entry[7], self.entry_credit(entry, tiles)):
                    added += 1
            if not added:
                return True

    def basic_values(self) -> None:
        for i in range(self.m):
            acc = 0.0
            bi = self.binv[i]
            for r in range(self.m):
                acc += bi[r] * self.b[r]
            self.xb[i] = acc

    def read_play(self) -> list[list[int]] | None:
        """The sets of the solution if it is integral, else ``None``."""
        play: list[list[int]] = []
        for i in range(self.m):
            k = self.basis[i]
            x = self.xb[i]
            copies = int(x + 0.5)
            if self.kind[k] <= _PLACED and abs(x - copies) > 1e-5:
                return None
            if self.kind[k] == _SET:
                for _ in range(copies):
                    play.append(list(self.tiles[k]))
        return play

    def dive(self, limit: int, want: int = -1) -> list[list[int]] | None:
        """A play near the fractional solution: put on the table a set the solution holds
        most of that it does not hold wholly, solve what is left (the dual simplex from
        the basis there, then the columns again), until the solution is integral (at most
        :data:`_DIVES` sets); when what is left has no solution, or the play keeps fewer
        than ``want`` (as its columns pair them), again from the start with the next set
        first (at most :data:`_DIVE_TRIES` tries); when none finds a play, a last one
        that, where what is left has no solution, puts the next set on the table instead
        (at most :data:`_DIVE_SIDES` at a step). The play keeping the most (its tiles kept
        in :attr:`dive_value`), ``None`` if none is found. Not a bound: the caller checks
        the play and what it keeps."""
        basis = list(self.basis)
        binv = [list(row) for row in self.binv]
        xb = list(self.xb)
        b = list(self.b)
        since = self.since_refactor
        best: list[list[int]] | None = None
        best_value = -1
        for attempt in range(_DIVE_TRIES + 1):
            if attempt == _DIVE_TRIES and best is not None:
                break
            if attempt:
                self.restore(basis, binv, since)
                self.xb = list(xb)
                self.b = list(b)
            if attempt < _DIVE_TRIES:
                self.redived += best is not None
                play = self.dive_once(limit, attempt, 1)
            else:
                play = self.dive_once(limit, 0, _DIVE_SIDES)
            if play is not None and (best is None or self.dive_value > best_value):
                best = play
                best_value = self.dive_value
            if (
                (best is not None and best_value >= want)
                or self.pivots >= limit
                or self.rounds >= self.round_cap
            ):
                break
        self.dive_value = best_value
        return best

    def restore(self, basis: list[int], binv: list[list[float]], since: int) -> None:
        """The basis ``basis`` again (its inverse ``binv``, ``since`` pivots since it was
        computed from scratch); the caller sets the basic values."""
        self.basis = list(basis)
        for k in range(len(self.where)):
            self.where[k] = -1
        for i in range(self.m):
            self.where[self.basis[i]] = i
        self.binv = [list(row) for row in binv]
        self.since_refactor = since

    def dive_once(self, limit: int, skip: int, sides: int) -> list[list[int]] | None:
        """One dive (:meth:`dive`), its first set the ``skip``-th it would take; the tiles
        the play keeps (as its columns pair them, so at least) in ``dive_value``. From the
        true right-hand sides (the solution's): a fixed set leaves a vertex so degenerate
        that the primal simplex can stall there for thousands of pivots, so past
        :data:`_STALL` in one run they are perturbed (:meth:`optimise`): dense 291's
        relaxation took 7851 pivots (4958 in one run), now 2808; no normal one stalls."""
        self.diving = True
        try:
            return self._dive_steps(limit, skip, sides)
        finally:
            self.diving = False

    def _dive_steps(self, limit: int, skip: int, sides: int) -> list[list[int]] | None:
        fixed: list[list[int]] = []
        fixed_kept = 0.0
        for step in range(_DIVES):
            # the sets the solution holds part of, most first (ties in the basis's order)
            held: list[tuple[float, int]] = []
            for i in range(self.m):
                k = self.basis[i]
                if self.kind[k] == _SET:
                    x = self.xb[i]
                    whole = int(x)
                    if 1e-5 < x - whole < 1.0 - 1e-5:
                        held.append((x, k))
            held.sort(key=_by_amount)
            nth = skip if step == 0 else 0
            if nth >= len(held):
                return None
            # the set put on the table: the first whose rest the dual simplex can solve
            # with the columns there; when it cannot, the next (at most ``sides`` tried)
            last = min(len(held), nth + sides) - 1
            if nth < last:
                basis = list(self.basis)
                binv = [list(row) for row in self.binv]
                since = self.since_refactor
                b = list(self.b)
            pick = -1
            for c in range(nth, last + 1):
                if c > nth:
                    self.restore(basis, binv, since)
                    self.b = list(b)
                pick = held[c][1]
                rows = self.rows[pick]
                vals = self.vals[pick]
                for j in range(len(rows)):
                    self.b[rows[j]] -= vals[j]
                self.basic_values()
                got = self.dual(limit)
                if got == 0:
                    self.sided += c > nth
                    break
                if got != 1 or c == last:
                    return None
            if not self.generate(limit):
                return None
            fixed.append(list(self.tiles[pick]))
            fixed_kept += self.cost[pick]
            play = self.read_play()
            if play is not None:
                value = fixed_kept
                for i in range(self.m):
                    value += self.cost[self.basis[i]] * self.xb[i]
                self.dive_value = int(value + 0.5)
                return fixed + play
        return None

    # ------------------------------------------------------------------ branch and bound

    def visit(self, limit: int) -> bool:
        """The branch and bound's node with the branch as it is (:attr:`need`, :attr:`ban`):
        its relaxation; then, unless its bound is no more than the most kept by a play found
        (:attr:`lower`) or its solution is a play (kept in :attr:`best` if it keeps more),
        the branch on an old set's continuation holding a face or not (:meth:`branching`),
        each side visited. False if it gave up: out of nodes, pivots or rounds, or no face
        tells the continuations of an old set apart."""
        self.nodes += 1
        if self.nodes > _NODES:
            return False
        for k, cost in self.penalised:
            self.cost[k] = cost
        self.penalised = []
        for i in range(self.nold):
            # an old set that must be continued: its slot's slack barred, the row at 1
            self.barred[self.slot_slack[i]] = self.continued[i]
            self.row_lo[self.slot_row[i]] = 1.0 if self.continued[i] else 0.0
        for k in range(self.first_set, len(self.cost)):
            i = self.pair[k]
            if i >= 0:
                reals = self.reals[k]
                need = self.need[i]
                jokers = self.jokers[k]
                self.barred[k] = bool(
                    reals & need != need
                    or reals & self.ban[i]
                    or jokers < self.jokers_lo[i]
                    or jokers > self.jokers_hi[i]
                )
        # the barred columns out of the basis by the dual simplex (the duals stay feasible,
        # few pivots), then the relaxation again. If the columns there have no solution
        # without them (pricing might find one), from this basis again with the barred
        # ones in it at a cost that drives them out (the primal simplex, the pricing)
        basis = list(self.basis)
        binv = [list(row) for row in self.binv]
        since = self.since_refactor
        got = self.dual(limit, 1e-5)
        if got == 1:
            self.restore(basis, binv, since)
            self.basic_values()
            for i in range(self.m):
                k = self.basis[i]
                if self.barred[k]:
                    self.barred[k] = False
                    self.penalised.append((k, self.cost[k]))
                    self.cost[k] = _BARRED
        elif got != 0:
            return False
        if not self.generate(limit):
            return False
        bound = int(self.bound(self.y, self.top, self.count) + 1e-6)
        if bound <= self.lower:
            return True
        self.b = self.true_b
        self.basic_values()
        play = self.read_play()
        value = 0.0
        for i in range(self.m):
            value += self.cost[self.basis[i]] * self.xb[i]
        old, face, need_first = self.branching() if play is None else (-1, 0, False)
        if play is None and old < 0:
            # the continuations are whole and apart: the sets placed anew are not; a
            # dive for a play (the node is done if it keeps the bound)
            basis = list(self.basis)
            binv = [list(row) for row in self.binv]
            since = self.since_refactor
            self.b = list(self.true_b)
            self.basic_values()
            play = self.dive_once(limit, 0, 1)
            value = float(self.dive_value) if play is not None else -1.0
            self.restore(basis, binv, since)
            if play is None or value < bound:
                if play is not None and value > self.lower + 0.5:
                    self.lower = int(value + 0.5)
                    self.best = play
                return False
        self.b = self.pert_b
        self.basic_values()
        if play is not None:
            if value > self.lower + 0.5:
                self.lower = int(value + 0.5)
                self.best = play
            return True
        need = self.need[old]
        ban = self.ban[old]
        lo = self.jokers_lo[old]
        hi = self.jokers_hi[old]
        basis = list(self.basis)
        binv = [list(row) for row in self.binv]
        since = self.since_refactor
        for side in range(2):
            if side:  # the second side from this node's basis
                self.restore(basis, binv, since)
                self.basic_values()
            # face 52 + t: the continuation holds at least t jokers, or fewer; face 55:
            # the old set is continued, or not (its continuation holds no face)
            if (side == 0) == need_first:
                if face < 52:
                    self.need[old] = need | 1 << face
                elif face < 55:
                    self.jokers_lo[old] = face - 52
                else:
                    self.continued[old] = True
            elif face < 52:
                self.ban[old] = ban | 1 << face
            elif face < 55:
                self.jokers_hi[old] = face - 53
            else:
                self.ban[old] = (1 << 52) - 1
            done = self.visit(limit)
            self.need[old] = need
            self.ban[old] = ban
            self.jokers_lo[old] = lo
            self.jokers_hi[old] = hi
            self.continued[old] = False
            if not done:
                return False
        return True

    def branching(self) -> tuple[int, int, bool]:
        """The old set and face to branch on: among the old sets the solution continues
        with sets that differ, the face that splits the continuations most evenly, weighed
        by the old set's tiles (what the branch decides: normal nodes 1386 -> 1137, normal
        232 105 -> 9); and whether the side where the continuation holds it goes first (it
        holds more). -1 if there is none."""
        best = 1e-6
        pick = (-1, 0, False)
        for old in range(self.nold):
            total = 0.0
            held: list[tuple[int, int, float]] = []
            union = 0
            for i in range(self.m):
                k = self.basis[i]
                x = self.xb[i]
                if self.kind[k] == _SET and self.pair[k] == old and x > 1e-6:
                    total += x
                    held.append((self.reals[k], self.jokers[k], x))
                    union |= self.reals[k]
            if not held:
                continue
            size = float(_popcount(self.old_reals[old]) + self.old_jokers[old])
            # continued in part (unless the branch says it must be)
            even = (total if total < 1.0 - total else 1.0 - total) * size
            if even > best and not self.continued[old]:
                best = even
                pick = (old, 55, total >= 1.0 - total)
            if len(held) < 2:
                continue
            for f in range(54):
                if f >= 52 or union >> f & 1:
                    part = 0.0
                    for reals, jokers, x in held:
                        if (reals >> f & 1) if f < 52 else jokers >= f - 51:
                            part += x
                    even = (part if part < total - part else total - part) * size
                    if even > best:
                        best = even
                        pick = (old, f if f < 52 else f + 1, part >= total - part)
        return pick

    def dual(self, limit: int, tol: float = 1e-9) -> int:
        """The dual simplex from a basis whose reduced costs are all at most zero: pivot
        out the basic value furthest out of bounds by more than ``tol`` (below zero, or a
        barred or artificial column above it) until none is (0); 1 no solution among the
        columns there, 2 out of pivots, 3 the basis went singular. (With the right-hand
        sides perturbed, values stray by about the perturbation. An artificial the first
        phase left in the basis, at zero, moves when a dive or a branch changes the
        right-hand sides. Above zero it used to end the dive or the branch and bound
        (normal: 14 of 499 instances, 6 more now proven); below zero it was left there,
        and the solution read as a play used a tile the table does not have — normal
        478, asked again with the faces every play places, took such a play for its best,
        and its bound stayed at 24, one above the answer.)"""
        m = self.m
        while True:
            if self.pivots >= limit:
                return 2
            leave = -1
            worst = tol
            down = False  # the leaving column is barred or artificial, going down to zero
            for i in range(m):
                x = self.xb[i]
                k = self.basis[i]
                if x > worst and (self.barred[k] or self.kind[k] == _ARTIFICIAL):
                    worst = x
                    leave = i
                    down = True
                elif -x > worst:
                    worst = -x
                    leave = i
                    down = False
            if leave < 0:
                return 0
            self.lowered += self.kind[self.basis[leave]] == _ARTIFICIAL
            y = self.duals(False)
            rho = self.binv[leave]
            enter = -1
            ratio = 0.0
            for k in range(len(self.cost)):
                if self.where[k] >= 0 or self.kind[k] == _ARTIFICIAL or self.barred[k]:
                    continue
                rows = self.rows[k]
                vals = self.vals[k]
                alpha = 0.0
                for j in range(len(rows)):
                    alpha += rho[rows[j]] * vals[j]
                if alpha > _PIVOT if down else alpha < -_PIVOT:
                    t = self.reduced(k, y, False) / alpha
                    if down:
                        t = -t
                    if enter < 0 or t < ratio:
                        enter = k
                        ratio = t
            if enter < 0:
                return 1
            d = self.ftran(enter)
            self.pivot(leave, enter, d)
            if self.since_refactor >= _REFACTOR and not self.refactor():
                return 3

    def refactor(self) -> bool:
        """The basis inverse from the basic columns again (Gauss-Jordan, partial pivoting),
        and the basic values; False if the basis is singular."""
        m = self.m
        a = [[0.0] * (2 * m) for _ in range(m)]
        for i in range(m):
            k = self.basis[i]
            for r, v in zip(self.rows[k], self.vals[k], strict=True):
                a[r][i] = v
            a[i][m + i] = 1.0
        for col in range(m):
            piv = col
            big = abs(a[col][col])
            for r in range(col + 1, m):
                if abs(a[r][col]) > big:
                    big = abs(a[r][col])
                    piv = r
            if big < 1e-12:
                return False
            if piv != col:
                a[col], a[piv] = a[piv], a[col]
            row = a[col]
            inv = 1.0 / row[col]
            for j in range(2 * m):
                row[j] *= inv
            for r in range(m):
                if r != col:
                    other = a[r]
                    factor = other[col]
                    if factor != 0.0:
                        for j in range(2 * m):
                            other[j] -= factor * row[j]
        for i in range(m):
            self.binv[i] = a[i][m:]
            s = 0.0
            bi = self.binv[i]
            for r in range(m):
                s += bi[r] * self.b[r]
            self.xb[i] = s
        self.since_refactor = 0
        return True

    def duals(self, phase1: bool) -> list[float]:
        m = self.m
        y = [0.0] * m
        for i in range(m):
            k = self.basis[i]
            c = (-1.0 if self.kind[k] == _ARTIFICIAL else 0.0) if phase1 else self.cost[k]
            if c != 0.0:
                bi = self.binv[i]
                for r in range(m):
                    y[r] += c * bi[r]
        return y

    def reduced(self, k: int, y: list[float], phase1: bool) -> float:
        c = (-1.0 if self.kind[k] == _ARTIFICIAL else 0.0) if phase1 else self.cost[k]
        rows = self.rows[k]
        vals = self.vals[k]
        for j in range(len(rows)):
            c -= vals[j] * y[rows[j]]
        return c

    def optimise(self, phase1: bool, limit: int) -> int:
        """Pivot to the optimum over the columns there: 0 optimal, 1 unbounded, 2 out of
        pivots (``limit``), 3 the basis went singular. In a dive (:attr:`diving`), past
        :data:`_STALL` pivots, the right-hand sides are perturbed as the root's were."""
        degenerate = 0
        m = self.m
        start = self.pivots
        while True:
            if self.pivots >= limit:
                return 2
            if self.diving and self.pivots - start >= _STALL:
                for r in range(m):
                    self.b[r] += self.pert_b[r] - self.true_b[r]
                self.basic_values()
                self.diving = False
                self.perturbed += 1
                degenerate = 0
            y = self.duals(phase1)
            enter = -1
            best = _ENTER
            bland = degenerate >= _DEGENERATE
            for k in range(len(self.cost)):
                if (
                    self.where[k] >= 0
                    or (self.kind[k] == _ARTIFICIAL and not phase1)
                    or self.barred[k]
                ):
                    continue
                rc = self.reduced(k, y, phase1)
                if rc > best:
                    enter = k
                    best = rc
                    if bland:
                        break
            if enter < 0:
                return 0
            d = self.ftran(enter)
            leave = -1
            ratio = 0.0
            for i in range(m):
                di = d[i]
                k = self.basis[i]
                if (self.kind[k] == _ARTIFICIAL and not phase1) or self.barred[k]:
                    # an artificial (or barred column) left at zero stays there: it leaves
                    # at once
                    if di > _PIVOT or di < -_PIVOT:
                        t = 0.0
                    else:
                        continue
                elif di > _PIVOT:
                    x = self.xb[i]
                    t = (x if x > 0.0 else 0.0) / di
                else:
                    continue
                if (
                    leave < 0
                    or t < ratio - 1e-12
                    or (t <= ratio + 1e-12 and self.basis[i] < self.basis[leave])
                ):
                    leave = i
                    ratio = t
            if leave < 0:
                return 1
            degenerate = degenerate + 1 if ratio <= 1e-12 else 0
            self.pivot(leave, enter, d)
            if self.since_refactor >= _REFACTOR and not self.refactor():
                return 3

    def ftran(self, k: int) -> list[float]:
        """Column ``k`` in terms of the basis: the basis inverse times it."""
        m = self.m
        d = [0.0] * m
        rows = self.rows[k]
        vals = self.vals[k]
        for j in range(len(rows)):
            r = rows[j]
            v = vals[j]
            for i in range(m):
                d[i] += self.binv[i][r] * v
        return d

    def pivot(self, p: int, enter: int, d: list[float]) -> None:
        """Column ``enter`` into the basis at row ``p`` (``d``: it in terms of the basis).
        The other rows of the basis inverse are updated only where row ``p`` is not zero
        (most of it is: the sets' columns are sparse)."""
        m = self.m
        step = self.xb[p] / d[p]
        if step < 0.0:
            step = 0.0
        for i in range(m):
            if i != p:
                self.xb[i] -= step * d[i]
        self.xb[p] = step
        rowp = self.binv[p]
        inv = 1.0 / d[p]
        nz: list[int] = []
        for j in range(m):
            rowp[j] *= inv
            if rowp[j] != 0.0:
                nz.append(j)
        for i in range(m):
            di = d[i]
            if i != p and di != 0.0:
                row = self.binv[i]
                for j in nz:
                    row[j] -= di * rowp[j]
        self.where[self.basis[p]] = -1
        self.basis[p] = enter
        self.where[enter] = p
        self.pivots += 1
        self.since_refactor += 1

    # ------------------------------------------------------------------ pricing

    def run_pairs(self, c: int) -> list[int]:
        """The old sets a run of colour ``c`` can keep a tile of, after -1 (none)."""
        pairs = [-1]
        for i in range(self.nold):
            if self.old_jokers[i] or self.old_reals[i] >> (13 * c) & 0x1FFF:
                pairs.append(i)
        return pairs

    def run_weights(self, c: int, i: int, y: list[float]) -> list[float]:
        """Per number, what a real tile of colour ``c`` there earns against ``y`` in a run
        continuing old set ``i``."""
        w = [0.0] * 15
        for n in range(1, 14):
            f = c * 13 + n - 1
            if self.avail[f]:
                w[n] = -y[self.face_row[f]] + (
                    1.0 if i >= 0 and self.old_reals[i] >> f & 1 else 0.0
                )
        return w

    def run_masks(self, c: int, i: int) -> tuple[int, int]:
        """For a run of colour ``c`` continuing old set ``i`` (-1: none), the numbers (bit
        n - 1) a real tile can be at — on the table or the rack, and not barred by the
        branch (:meth:`branch_and_bound`) — and those it must hold a real tile at; -1 if
        the branch asks for a tile of another colour."""
        amask = self.avail_mask[c]
        if i < 0:
            return amask, 0
        need = self.need[i]
        shift = 13 * c
        if need & ~(0x1FFF << shift):
            return -1, 0
        return amask & ~(self.ban[i] >> shift), need >> shift

    def group_masks(self, n: int, i: int) -> tuple[int, int]:
        """For a group of number ``n`` continuing old set ``i`` (-1: none), the colours it
        must hold and those it must not (the branch's); -1 if it asks for another number."""
        if i < 0:
            return 0, 0
        need = self.need[i]
        ban = self.ban[i]
        colours = 0
        barred = 0
        for c in range(4):
            f = c * 13 + n - 1
            if need >> f & 1:
                colours |= 1 << c
                need &= ~(1 << f)
            if ban >> f & 1:
                barred |= 1 << c
        if need:
            return -1, 0
        return colours, barred

    def credit_duals(self, y: list[float]) -> tuple[float, float]:
        """What a credited joker earns per number it stands for, and costs, against ``y``."""
        if self.count_row < 0:
            return 0.0, 0.0
        return -self.value_scale * y[self.value_row], y[self.count_row]

    def price(self, y: list[float]) -> tuple[float, int, list[Entry]]:
        """Every set of the instance against the duals ``y``: the highest reduced cost,
        how many were priced, and the best above zero (at most :data:`_PER_ROUND`), each
        as (reduced cost, 0 a run or 1 a group, colour or number, first number or colours,
        last number, jokers, old set continued, jokers credited)."""
        found: list[Entry] = []
        top = -1e300
        skipped = -1e300  # the most a block of sets not priced may price (its bound)
        count = 0
        jw = -y[self.joker_row] if self.joker_row >= 0 else 0.0
        mu, nu = self.credit_duals(y)
        nj = self.max_jokers
        rj = self.rack_jokers
        for c in range(4):
            for i in self.run_pairs(c):
                # the numbers a real tile can be at, and must (:meth:`run_masks`)
                amask, fixed = self.run_masks(c, i)
                if amask < 0:
                    continue
                lo, hi = _ends(fixed)
                pinned = _popcount(fixed)
                slot = y[self.slot_row[i]] if i >= 0 else 0.0
                held = self.old_jokers[i] if i >= 0 else 0
                jlo = self.jokers_lo[i] if i >= 0 else 0
                jhi = self.jokers_hi[i] if i >= 0 else 2
                w = self.run_weights(c, i, y)
                # a bound on the runs from each number (:meth:`runs_bound`) plus the most
                # continuing old set i earns: at most zero, none prices above zero, they
                # are only counted (the best of them, the block's bound: the whole block)
                best = self.runs_bound(w, amask, jw, mu, nu)
                ub = max(best[1:12])
                earns = (held if held < nj else nj) - slot if i >= 0 else 0.0
                ub += earns
                if ub <= 0.0:
                    if ub > skipped:
                        skipped = ub
                    for a in range(1, lo + 1 if lo < 12 else 12):
                        count += _runs_from(a, amask, hi, pinned, nj, rj, jlo, jhi)
                    continue
                # a run sharing no tile with old set i prices no higher continuing it than
                # alone (its dual at least zero): not priced again (but counted)
                mine = self.old_reals[i] >> (13 * c) if i >= 0 and slot >= 0.0 else -1
                for a in range(1, 12):
                    if a > lo:
                        break
                    if best[a] + earns <= 0.0:  # the same for the runs from a
                        if best[a] + earns > skipped:
                            skipped = best[a] + earns
                        count += _runs_from(a, amask, hi, pinned, nj, rj, jlo, jhi)
                        continue
                    total = 0.0
                    forced = 0
                    meant = 0  # the numbers the forced jokers stand for, summed
                    g1 = -1e300  # the two most a joker gains over a real tile
                    g2 = -1e300
                    h1 = -1e300  # the same, credited
                    h2 = -1e300
                    for b in range(a, 14):
                        if amask >> (b - 1) & 1:
                            total += w[b]
                            if not fixed >> (b - 1) & 1:
                                g = jw - w[b]
                                if g > g1:
                                    g2 = g1
                                    g1 = g
                                elif g > g2:
                                    g2 = g
                                g = jw + mu * b - w[b]
                                if g > h1:
                                    h2 = h1
                                    h1 = g
                                elif g > h2:
                                    h2 = g
                        else:
                            forced += 1
                            meant += b
                            if forced > nj:
                                break
                        if b - a < 2 or b < hi:
                            continue
                        apart = mine >= 0 and not mine >> (a - 1) & ((1 << (b - a + 1)) - 1)
                        for k in range(forced, nj + 1):
                            extra = k - forced
                            if extra > b - a + 1 - forced - pinned:
                                break
                            if k < jlo or k > jhi:
                                continue
                            if apart and (k == 0 or held == 0):
                                count += (k if k < rj else rj) + 1
                                continue
                            for cc in range((k if k < rj else rj) + 1):
                                if cc == 0:
                                    v = total + forced * jw
                                    if extra >= 1:
                                        v += g1
                                    if extra == 2:
                                        v += g2
                                elif cc == k:
                                    v = total + forced * jw + mu * meant
                                    if extra >= 1:
                                        v += h1
                                    if extra == 2:
                                        v += h2
                                    v -= nu * cc
                                else:  # two jokers, the higher credited
                                    v = total + self.two_jokers(c, w, a, b, jw, mu, amask, fixed)[0]
                                    v -= nu * cc
                                if i >= 0:
                                    v += (k if k < held else held) - slot
                                count += 1
                                if v > top:
                                    top = v
                                if v > _ENTER:
                                    found.append((v, 0, c, a, b, k, i, cc))
        for n in range(1, 14):
            colours = 0
            for c in range(4):
                if self.avail[c * 13 + n - 1]:
                    colours |= 1 << c
            if not colours:
                continue
            pairs = [-1]
            for i in range(self.nold):
                if self.old_jokers[i] or self.old_reals[i] >> (n - 1) & 0x8004002001:
                    pairs.append(i)
            for i in pairs:
                need, ban = self.group_masks(n, i)
                if need < 0:
                    continue
                slot = y[self.slot_row[i]] if i >= 0 else 0.0
                held = self.old_jokers[i] if i >= 0 else 0
                jlo = self.jokers_lo[i] if i >= 0 else 0
                jhi = self.jokers_hi[i] if i >= 0 else 2
                # a bound on the block's groups: each colour's weight if above zero, plus
                # the jokers at their most
                ub = 0.0
                for c in range(4):
                    if (colours & ~ban) >> c & 1:
                        f = c * 13 + n - 1
                        wc = -y[self.face_row[f]] + (
                            1.0 if i >= 0 and self.old_reals[i] >> f & 1 else 0.0
                        )
                        if wc > 0.0:
                            ub += wc
                cr = mu * n - nu
                jx = jw + (cr if rj > 0 and cr > 0.0 else 0.0)
                jbest = -1e300
                for k in range(jlo if jlo > 0 else 0, (nj if nj < jhi else jhi) + 1):
                    t = k * jx + (k if k < held else held)
                    if t > jbest:
                        jbest = t
                ub += jbest - slot
                if ub <= 0.0:
                    # no group of the block prices above zero: only counted
                    if ub > skipped:
                        skipped = ub
                    for sub in range(1, 16):
                        if sub & colours != sub or sub & need != need or sub & ban:
                            continue
                        size = _popcount(sub)
                        for k in range(nj + 1):
                            if not (size + k < 3 or size + k > 4 or k < jlo or k > jhi):
                                count += (k if k < rj else rj) + 1
                    continue
                for sub in range(1, 16):
                    if sub & colours != sub or sub & need != need or sub & ban:
                        continue
                    size = _popcount(sub)
                    base = 0.0
                    for c in range(4):
                        if sub >> c & 1:
                            f = c * 13 + n - 1
                            base += -y[self.face_row[f]] + (
                                1.0 if i >= 0 and self.old_reals[i] >> f & 1 else 0.0
                            )
                    for k in range(nj + 1):
                        if size + k < 3 or size + k > 4 or k < jlo or k > jhi:
                            continue
                        for cc in range((k if k < rj else rj) + 1):
                            v = base + k * jw
                            if cc:
                                v += mu * (n * cc)
                                v -= nu * cc
                            if i >= 0:
                                v += (k if k < held else held) - slot
                            count += 1
                            if v > top:
                                top = v
                            if v > _ENTER:
                                found.append((v, 1, n, sub, 0, k, i, cc))
        if skipped > top:
            top = skipped  # the sets not priced are at most their block's bound
        found.sort(key=_by_reduced_cost)  # stable: ties in the order priced
        return top, count, found[:_PER_ROUND]

    def runs_bound(
        self, w: list[float], amask: int, jw: float, mu: float, nu: float
    ) -> list[float]:
        """Per number a (1..11), at least what any run of a colour from a prices (before
        what continuing an old set earns), given its tiles' weights ``w`` and where a real
        tile can be, ``amask``: the best window from a of three numbers or more, each at its
        real tile's weight or a joker's (credited, if that earns more), whichever is
        more."""
        nj = self.max_jokers
        u = [0.0] * 15
        for n in range(1, 14):
            jx = -1e300
            if nj >= 1:
                cr = mu * n - nu
                jx = jw + (cr if self.rack_jokers > 0 and cr > 0.0 else 0.0)
            u[n] = w[n] if amask >> (n - 1) & 1 and w[n] > jx else jx
        best = [-1e300] * 13
        from2 = -1e300  # the best window from a + 1 of two numbers or more
        for a in range(12, 0, -1):
            if a < 12:
                best[a] = u[a] + from2
            two = u[a + 1] if u[a + 1] > from2 else from2
            from2 = u[a] + two
        return best

    def entry_tiles(self, entry: Entry, y: list[float]) -> list[int]:
        """The tiles of a priced set: a run with its jokers where the pricing put them (the
        missing faces, then where a joker gains most over a real tile, the lower number
        first among equals); a group's colours, then its jokers."""
        _, kind, cn, a, b, k, i, cc = entry
        if kind == 1:
            tiles = [c * 13 + cn - 1 for c in range(4) if a >> c & 1]
            return tiles + [JOKER] * k
        w = self.run_weights(cn, i, y)
        jw = -y[self.joker_row] if self.joker_row >= 0 else 0.0
        mu, _ = self.credit_duals(y)
        amask, fixed = self.run_masks(cn, i)
        if 0 < cc < k:
            _, n1, n2 = self.two_jokers(cn, w, a, b, jw, mu, amask, fixed)
            jokers = [n1, n2]
        else:
            if cc == 0:
                mu = 0.0
            jokers = [n for n in range(a, b + 1) if not amask >> (n - 1) & 1]
            rest = sorted(
                [
                    (-(jw + mu * n - w[n]), n)
                    for n in range(a, b + 1)
                    if amask >> (n - 1) & 1 and not fixed >> (n - 1) & 1
                ]
            )
            jokers.extend([n for _, n in rest[: k - len(jokers)]])
        return [JOKER if n in jokers else cn * 13 + n - 1 for n in range(a, b + 1)]

    def entry_credit(self, entry: Entry, tiles: list[int]) -> int:
        """What a priced set credits the rack's jokers: its ``cc`` highest joker meanings."""
        _, kind, cn, a, _, _, _, cc = entry
        if kind == 1:
            return cn * cc
        meanings = [a + j for j in range(len(tiles)) if tiles[j] == JOKER]
        meanings.sort(reverse=True)
        return sum(meanings[:cc])

    def two_jokers(
        self,
        c: int,
        w: list[float],
        a: int,
        b: int,
        jw: float,
        mu: float,
        amask: int,
        fixed: int,
    ) -> tuple[float, int, int]:
        """Two jokers in the run of colour ``c`` from ``a`` to ``b``, only the higher
        meaning credited: the most they earn over the real tiles they stand in for, and
        the numbers they stand for (the first best found, scanning up). ``amask`` and
        ``fixed``: :meth:`run_masks`."""
        forced = [n for n in range(a, b + 1) if not amask >> (n - 1) & 1]
        if len(forced) == 2:
            return jw + jw + mu * forced[1], forced[0], forced[1]
        best = -1e300
        n1 = n2 = 0
        if len(forced) == 1:
            f1 = forced[0]
            for n in range(a, b + 1):
                if n != f1 and not fixed >> (n - 1) & 1:
                    t = (jw - w[n]) + jw + mu * (f1 if f1 > n else n)
                    if t > best:
                        best = t
                        n1, n2 = (n, f1) if n < f1 else (f1, n)
            return best, n1, n2
        low = -1e300  # the most one joker below gains, and where
        at = 0
        for n in range(a, b + 1):
            if fixed >> (n - 1) & 1:
                continue
            if low > -1e300:
                t = low + (jw - w[n]) + mu * n
                if t > best:
                    best = t
                    n1 = at
                    n2 = n
            g = jw - w[n]
            if g > low:
                low = g
                at = n
        return best, n1, n2

    def bound(self, y: list[float], top: float, count: int) -> float:
        """A bound on the tiles kept by any play of the level, from duals ``y`` (any): each
        row's dual times the most (or least) the row holds, plus each column's reduced cost
        above zero times how often it can be on the table — the sets at the most any prices
        (``top``, over ``count`` priced, each standing for at most :data:`_ARRANGEMENTS`),
        the rack faces placed each."""
        total = 0.0
        for r in range(self.m):
            lo = y[r] * self.row_lo[r]
            hi = y[r] * self.row_hi[r]
            total += hi if hi > lo else lo
        if top > 0.0:
            total += top * 2.0 * count * _ARRANGEMENTS
        for k in range(self.first_set):
            rc = self.reduced(k, y, False)
            if rc > 0.0:
                total += rc * self.most[k]
        return total


def _faces(tiles: list[int]) -> tuple[int, int]:
    """A set's real faces as a bit mask, and its jokers."""
    reals = 0
    jokers = 0
    for f in tiles:
        if f == JOKER:
            jokers += 1
        else:
            reals |= 1 << f
    return reals, jokers


def _runs_from(
    a: int, amask: int, hi: int, pinned: int, nj: int, rj: int, jlo: int, jhi: int
) -> int:
    """How many runs from number ``a`` :meth:`_Model.price` counts in a block (a colour and
    an old set) it does not price: the same loops, without the weights."""
    count = 0
    forced = 0
    for b in range(a, 14):
        if not amask >> (b - 1) & 1:
            forced += 1
            if forced > nj:
                break
        if b - a < 2 or b < hi:
            continue
        for k in range(forced, nj + 1):
            if k - forced > b - a + 1 - forced - pinned:
                break
            if jlo <= k <= jhi:
                count += (k if k < rj else rj) + 1
    return count


def _popcount(x: int) -> int:
    return bin(x).count("1")


def _ends(fixed: int) -> tuple[int, int]:
    """The lowest and highest numbers in the mask ``fixed`` (bit n - 1: number n); 14 and 0
    if it is empty."""
    if not fixed:
        return 14, 0
    lo = 1
    while not fixed >> (lo - 1) & 1:
        lo += 1
    hi = 13
    while not fixed >> (hi - 1) & 1:
        hi -= 1
    return lo, hi


def _by_amount(entry: tuple[float, int]) -> float:
    return -entry[0]


def _by_reduced_cost(entry: Entry) -> float:
    return -entry[0]
