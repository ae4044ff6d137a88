"""The exact search: the most tiles on the table, then the most value, numbers 1..13 in order.

Every valid table is a set of runs and groups. Sweep the numbers 1..13 in order; at number
``n`` every tile of number ``n`` that ends up on the table is either in a group (of number
``n``) or in a run, where it continues a run of its colour that is still open or starts a new
one. So the only thing the past hands on to the future is, per colour, how many runs are
open and how long they are so far (:mod:`.setrules`), plus how many jokers are already used.
That is the state. :class:`Search` explores it depth first with memoisation (a dynamic
program explored lazily) and branch and bound.

Canonical choices keep the state space small without losing any optimum:

* an open run that is already complete and can take the tile is continued rather than a
  new run being started beside it; complete runs beyond what the next number's tiles could
  continue are dropped (they may always end);
* a state whose unfinished runs cannot be continued with the next two numbers' tiles and the
  jokers left is dropped at once;
* a joker stands for a tile of the number being swept, so jokers are met in increasing order
  of what they stand for — which lets the score credit placed rack jokers with the highest
  meanings on the table (the first ``table_jokers`` jokers met are the table's).

The score is one integer: ``count_weight * tiles + value_weight * value``, plus with
``old_sets`` an estimate of the table tiles each number keeps in their old set (below both
weights, so it only orders plays of equal tiles and value: :func:`_keep_table`). Upper
bound: every tile still ahead placed, at its value, every joker left credited at 13.

The node function is :meth:`Search.f_py`; where the build has it, its C twin
(``_dp_engine.c``) runs the same steps over flat arrays and searches the same nodes (a test
compares them).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from gameshack.rules.tiles_solver.entries import Cands, entries, placeable
from gameshack.rules.tiles_solver.setrules import (
    COLOURS,
    DEFICIT,
    JOKERS,
    MAX_OPEN,
    MUST,
    NUMBERS,
    PAST,
    SPREAD,
    TRANS_CAP,
    encode,
)

try:  # the node function in C (setup.py builds it next to the compiled rules)
    from gameshack.rules.tiles_solver import _dp_engine
except ImportError:  # pure Python (gameshack.rules decides: see its docstring)
    _dp_engine = None  # type: ignore[assignment]

__all__ = ["DPResult", "Decision", "Search"]

if _dp_engine is not None:
    _dp_engine.setup_tables(TRANS_CAP, DEFICIT, MUST, SPREAD)

_NEG: Final = -(1 << 40)
# not a memo value: an exact score is a play's (>= 0, or about _NEG); a bound is stored even
_MISSING: Final = -1
_ONE_COMPLETE: Final = encode(0, 0, 1)  # a run code's step for one more complete run
_ALL_COMPLETE: Final = encode(0, 0, MAX_OPEN)


@dataclass(frozen=True, slots=True)
class Decision:
    """What happens at one number: per colour, real tiles to groups and to runs, jokers."""

    groups: tuple[int, int, int, int]  # real tiles of each colour put in groups
    group_jokers: int
    runs: tuple[int, int, int, int]  # real tiles of each colour put in runs
    run_jokers: tuple[int, int, int, int]  # jokers put in runs of each colour


@dataclass(frozen=True, slots=True)
class DPResult:
    score: int  # best score, the table's tiles included
    decisions: tuple[Decision, ...]  # index n-1 for number n


class Search:
    """The best play, searched depth first with bounds over the numbers 1..13.

    ``table``/``rack``: copies per face 0..51; every table tile must be placed, rack tiles
    may be. ``f(n, state, need)`` — the best score still to come from a state before number
    ``n`` — is explored most-tiles-first, pruned when even placing every tile ahead could
    not beat ``need`` or what is already found; results are memoised, exactly when the
    search proved them, as "at most" when it was cut off. :meth:`run` returns the best play
    scoring above ``floor``, or ``None``.

    ``roles[face]``: how many table copies of the face are in a group and in a run now;
    among ways to use a number's tiles with equal gain, those keeping table tiles in their
    role are tried first. ``old_sets`` (with ``roles``): per number, the real tiles of each
    old group there and, per colour, how many old runs have their first real tile there;
    each number then also scores its estimate of table tiles kept (:func:`_keep_table`),
    one point each below ``value_weight``.

    ``native=False``: the Python node function even where the C one is built (the tests
    compare them). ``nodes``: nodes searched.
    """

    def __init__(
        self,
        table: Sequence[int],
        rack: Sequence[int],
        table_jokers: int,
        rack_jokers: int,
        count_weight: int,
        value_weight: int,
        floor: int,
        roles: Sequence[tuple[int, int]] | None = None,
        old_sets: Sequence[tuple[Sequence[int], Sequence[int]]] | None = None,
        native: bool = True,
    ) -> None:
        self.floor = floor
        jokers = table_jokers + rack_jokers
        self.jokers = jokers
        self.need_jokers = table_jokers  # the table's jokers stay on the table
        self.credit_from = table_jokers  # the jokers met after the table's are the rack's
        self.joker_w = count_weight
        self.vn = [value_weight * n for n in range(15)]
        self.per_real = [count_weight + value_weight * n for n in range(15)]
        # copies (table + rack) per colour and number, the two numbers past 13 marked PAST
        have = [
            [table[c * 13 + i] + rack[c * 13 + i] for i in range(NUMBERS)] + [PAST, PAST]
            for c in range(COLOURS)
        ]
        cap_j = min(jokers, MAX_OPEN)
        ent: list[tuple[int, ...]] = [()]
        ekeys = [0]
        self.trans: list[list[list[list[int]]]] = [[]]
        self.dfc: list[list[list[int]]] = [[]]
        idx = [0] * (15 * COLOURS * 3)  # for the C twin: per number and colour, table rows
        for n in range(1, NUMBERS + 1):
            # the entry table's key: per colour table and rack copies, and table copies in a
            # group and in a run now (2 bits each), then the jokers
            ekey = jokers << 32
            for c in range(COLOURS):
                f = c * 13 + n - 1
                g, r = roles[f] if roles else (0, 0)
                ekey |= (table[f] | rack[f] << 2 | g << 4 | r << 6) << 8 * c
            ent.append(entries(ekey))
            ekeys.append(ekey)
            caps = []
            rows = []
            for c, h in enumerate(have):
                cap = min(MAX_OPEN, (h[n] if h[n] < PAST else 0) + cap_j)
                caps.append(TRANS_CAP[cap])
                rows.append(DEFICIT[h[n]][h[n + 1]])
                idx[(n * COLOURS + c) * 3 : (n * COLOURS + c) * 3 + 3] = [cap, h[n], h[n + 1]]
            self.trans.append(caps)
            self.dfc.append(rows)
        self.ent = ent
        self.lister = Cands(ekeys, ent)
        self.with_kept = old_sets is not None
        self.kept_at: list[list[int]] = [[] for _ in range(15)]  # per number: _keep_table
        self.kept_max = [0] * 15
        if old_sets is not None:
            if roles is None:
                raise ValueError("old_sets needs roles (the table copies in groups and runs)")
            for n in range(1, NUMBERS + 1):
                og = [roles[c * 13 + n - 1][0] for c in range(COLOURS)]
                orr = [roles[c * 13 + n - 1][1] for c in range(COLOURS)]
                groups, starts = old_sets[n]
                gp = _group_keep(groups, sum(og))
                self.kept_at[n] = _keep_table(og, orr, starts, gp)
                self.kept_max[n] = sum(og) + sum(orr)
        self._set_bounds(table, rack, count_weight, value_weight, have)
        self.nodes = 0
        self.memo: dict[int, int] = {}
        self.choice: dict[int, int] = {}
        self.engine: _dp_engine.Engine | None = None
        if native and _dp_engine is not None and jokers <= JOKERS:
            self.engine = _dp_engine.Engine(
                (jokers, self.need_jokers, self.credit_from, int(self.with_kept), self.joker_w),
                self.vn,
                self.per_real,
                self.kept_max,
                idx,
                [*ent, ()],
                [*self.kept_at, []],
                self.upper,
                self.rest,
            )

    def _set_bounds(
        self,
        table: Sequence[int],
        rack: Sequence[int],
        count_weight: int,
        value_weight: int,
        have: list[list[int]],
    ) -> None:
        """``upper[n][j]``: at least the best still to come from any state before number
        ``n`` with ``j`` jokers used; ``rest[n][j]``: the same for what a node at ``n``
        earns after its real tiles (its jokers at ``n`` and everything after ``n``)."""
        jokers = self.jokers
        # every real tile from number n on, and every table tile kept
        ahead = [0] * 15
        for n in range(NUMBERS, 0, -1):
            tiles = sum(have[c][n - 1] for c in range(COLOURS))
            ahead[n] = ahead[n + 1] + tiles * self.per_real[n] + self.kept_max[n]
        # bound[k][n]: the same with only k jokers left: a rack tile at n + 2 or later with
        # no group partners nor run neighbours enough for k jokers cannot be placed (a joker
        # already used stands at a number before n, so no window around such a tile has it)
        bound: list[list[int]] = []
        for k in range(jokers + 1):
            if k == jokers:
                bound.append(ahead)
                continue
            fit = placeable(table, rack, k)
            row = [0] * 15
            for n in range(NUMBERS, 0, -1):
                tiles = sum(table[c * 13 + n - 1] + fit[c * 13 + n - 1] for c in range(COLOURS))
                row[n] = row[n + 1] + tiles * self.per_real[n] + self.kept_max[n]
            bound.append(
                [ahead[n] - ahead[min(n + 2, 14)] + row[min(n + 2, 14)] for n in range(15)]
            )
        self.upper = [[_NEG] * (jokers + 1) for _ in range(15)]
        self.rest = [[_NEG] * (jokers + 1) for _ in range(15)]
        credit13 = value_weight * NUMBERS
        for j in range(jokers + 1):
            self.upper[14][j] = 0 if j >= self.need_jokers else _NEG
            free = jokers - j
            creditable = max(0, jokers - max(j, self.credit_from))
            for n in range(1, NUMBERS + 1):
                self.upper[n][j] = bound[free][n] + free * self.joker_w + creditable * credit13
        for n in range(1, NUMBERS + 1):
            up = self.upper[n + 1]
            for j in range(jokers + 1):
                jc = max(j, self.credit_from)
                best = _NEG
                for jn in range(j, jokers + 1):
                    v = (jn - j) * self.joker_w + up[jn] + max(0, jn - jc) * self.vn[n]
                    best = max(best, v)
                self.rest[n][j] = best

    def run(self) -> DPResult | None:
        """The best play scoring above ``floor`` (``None``: there is none)."""
        score = self.f(1, 0, self.floor)
        if score <= self.floor:
            return None
        decisions: list[Decision] = []
        key = 0
        for n in range(1, NUMBERS + 1):
            value, ch = self._memo_entry(key | n << 30)
            assert value != _MISSING and value & 1, "an exact score has its choice"
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
        if self.engine is not None:
            self.nodes = self.engine.nodes
        return DPResult(score, tuple(decisions))

    def f(self, n: int, key: int, need: int) -> int:
        """The best score still to come from state ``key`` before number ``n`` if it is
        above ``need``; else an upper bound on it that is at most ``need``."""
        if self.engine is not None:
            return self.engine.f(n, key, need)
        return self.f_py(n, key, need)

    def _memo_entry(self, mk: int) -> tuple[int, int]:
        """The memo's value for ``mk`` (``_MISSING`` if none) and its choice (-1 if none)."""
        if self.engine is not None:
            return self.engine.get(mk)
        return self.memo.get(mk, _MISSING), self.choice.get(mk, -1)

    def f_py(self, n: int, key: int, need: int) -> int:
        """:meth:`f` in Python. The state ``key``: per colour its run code (7 bits each),
        then the jokers used (bit 28); memo keys add the number (bit 30). A memo value is
        ``2 * score + exact``; the choice of an exact one holds the next state's key, the
        jokers put in runs per colour (3 bits each, bit 30) and the entry's index (bit 42)."""
        if n == 14:
            return 0 if (key >> 28) >= self.need_jokers else _NEG
        memo = self.memo
        mk = key | n << 30
        m = memo.get(mk, _MISSING)
        if m != _MISSING and (m & 1 or (m >> 1) <= need):
            return m >> 1
        self.nodes += 1
        # a complete run may always end, so a state with one more complete run of a colour
        # can do all this one can: a bound proved for it at most ``need`` holds here too
        for sh in range(0, 28, 7):
            if (mk >> sh) & 127 < _ALL_COMPLETE:
                mm = memo.get(mk + (_ONE_COMPLETE << sh), _MISSING)
                if mm != _MISSING and (mm >> 1) <= need:
                    return mm >> 1
        j = key >> 28
        free = self.jokers - j
        best = _NEG
        best_choice = -1
        tc = self.trans[n]
        t0 = tc[0][key & 127]
        t1 = tc[1][key >> 7 & 127]
        t2 = tc[2][key >> 14 & 127]
        t3 = tc[3][key >> 21 & 127]
        dc = self.dfc[n]
        d0 = dc[0]
        d1 = dc[1]
        d2 = dc[2]
        d3 = dc[3]
        credit_from = self.credit_from
        credit_to = self.jokers
        joker_w = self.joker_w
        jc = j if j > credit_from else credit_from
        up = self.upper[n + 1]
        vn = self.vn[n]
        per_real = self.per_real[n]
        nxt_bits = (n + 1) << 30
        must = MUST[key & 127] | MUST[key >> 7 & 127] << 3
        pkey = must | MUST[key >> 14 & 127] << 6 | MUST[key >> 21 & 127] << 9 | free << 12
        # list the affordable entries a level (of real tiles used) at a time, and the next
        # level only when the ones listed are used up and it could still do better
        ents = self.ent[n]
        kept_row = self.kept_at[n]
        kept_n = self.kept_max[n]
        # the most this state can still earn after this number's real tiles, as if every
        # entry kept every table tile here (checked per entry)
        rest = self.rest[n][j] + kept_n
        least = (need - rest) // per_real
        if ents:
            top = (ents[0] >> 15 & 31) - 1
            if least < top:
                least = top
        cands = self.lister(n, pkey | n << 14, least)
        start = 0
        while True:
            lst = cands[0]
            for p in lst[start:] if start else lst:
                thr = need if need > best else best
                gain = (p >> 15 & 31) * per_real
                if gain + rest <= thr:
                    break  # entries come in falling gain order: none of the rest can do better
                if kept_row:
                    e = ents[p >> 32]
                    g0 = e >> 17 & 24
                    g1 = e >> 19 & 24
                    g2 = e >> 21 & 24
                    g3 = e >> 23 & 24
                    gain += (
                        kept_row[g0 | e & 7]
                        + kept_row[32 + (g1 | e >> 3 & 7)]
                        + kept_row[64 + (g2 | e >> 6 & 7)]
                        + kept_row[96 + (g3 | e >> 9 & 7)]
                        + kept_row[
                            144
                            + kept_row[128 + (g0 >> 3)]
                            + kept_row[132 + (g1 >> 3)]
                            + kept_row[136 + (g2 >> 3)]
                            + kept_row[140 + (g3 >> 3)]
                        ]
                    )
                    if gain + rest - kept_n <= thr:
                        continue
                used = p >> 12 & 7
                u0 = p & 7
                u1 = p >> 3 & 7
                u2 = p >> 6 & 7
                u3 = p >> 9 & 7
                xs0 = p >> 20 & 4095  # the jokers the unfinished runs take, per colour
                for y0, y1, y2, y3 in SPREAD[free - used]:
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
                    if g + up[jn] <= thr:
                        continue
                    nk = a | b << 7 | c << 14 | d << 21 | jn << 28
                    mm = memo.get(nk | nxt_bits, _MISSING)
                    if mm != _MISSING and (mm & 1 or (mm >> 1) <= thr - g):
                        v = g + (mm >> 1)
                    else:
                        v = g + self.f(n + 1, nk, thr - g)
                    if v > best:
                        best = v
                        xs = xs0 + (y0 | y1 << 3 | y2 << 6 | y3 << 9)
                        best_choice = nk | xs << 30 | (p >> 32) << 42
                        thr = v
            else:
                pos = cands[1]
                if pos < len(ents):
                    top = ents[pos] >> 15 & 31
                    if top * per_real + rest > (need if need > best else best):
                        start = len(lst)
                        cands = self.lister(n, pkey | n << 14, top - 1)
                        continue
            break
        if best > need:
            memo[mk] = best * 2 + 1
            self.choice[mk] = best_choice
        else:
            memo[mk] = (need if m == _MISSING or (m >> 1) > need else m >> 1) * 2
        return best


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
            best = max(best, k + min(s, in_groups - taken))
        out.append(best)
    return out


def _keep_table(
    in_groups: list[int], in_runs: list[int], starts: Sequence[int], group_keep: list[int]
) -> list[int]:
    """How :meth:`Search.f_py` (and its C twin) estimate the real table tiles of one number
    an entry keeps in (the continuation of) their set: ``in_groups``/``in_runs`` per
    colour, table copies now in a group / a run; ``starts``: per colour, old runs whose
    first real tile is here; ``group_keep``: :func:`_group_keep`.

    An entry putting ``gg`` tiles of colour ``c`` in groups and ``rr`` in runs keeps
    ``table[c * 32 + (gg << 3 | rr)]`` of the old runs' tiles (no more than it puts in runs;
    an old run may instead pair with a new group and keep 1, counted at its first real
    tile) and ``table[128 + c * 4 + gg]`` of the old groups' tiles in groups, which add up
    to ``s``: the old groups keep ``table[144 + s]`` in all. An estimate, not the count: it
    cannot tell which run continues which (that is measured on the play afterwards).
    Shared: cached by its inputs, never changed."""
    key = (*in_groups, *in_runs, *starts, *group_keep)
    found = _KEEP_TABLES.get(key)
    if found is not None:
        return found
    runs = []
    groups = []
    for c in range(COLOURS):
        for gg in range(4):
            kept_g = min(in_groups[c], gg)
            groups.append(kept_g)
            for rr in range(8):
                kept_r = min(in_runs[c], rr)
                runs.append(kept_r + max(0, min(starts[c], in_runs[c] - kept_r, gg - kept_g)))
    found = runs + groups + group_keep + [0] * (16 - len(group_keep))  # 160 in all
    if len(_KEEP_TABLES) >= 4096:
        _KEEP_TABLES.clear()
    _KEEP_TABLES[key] = found
    return found


_KEEP_TABLES: Final[dict[tuple[int, ...], list[int]]] = {}
