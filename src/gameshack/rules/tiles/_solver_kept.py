"""The third objective, exactly: among the plays with the most tiles and value, the one that
keeps the most table tiles in their set.

"Kept" is :func:`gameshack.rules.tiles.solver.moved_count`'s measure: every old set is paired
with at most one new set (its continuation) and keeps the tiles the two share (faces; a joker
is shared when both hold one, as often as both do). This search sweeps the numbers 1..13
like the search for tiles and value (:mod:`._solver_dp`), but tells the runs of a colour
apart by what they continue:

* a new run is *free* (it continues no old set yet; how many jokers it holds so far) or
  *paired* with an old run, or done pairing (paired with something that can give no more);
* an old run pairs with a new run where the two first overlap — where the later of the two
  starts (pairing later keeps nothing more) — or with a new group at one of its numbers;
  old groups pair at their number, with a new group or a free run through it;
* a pair keeps, at each number both cover, the tile when both hold that real face; jokers
  are credited as they are met (a pair keeps as many jokers as the fewer of the two holds);
* old and new sets that end unpaired and hold jokers can still be paired for those jokers
  alone: they are remembered (a *ledger*) and matched at the end — kept canonical, so
  that states differing in nothing that can still count are one: a new set's entry
  counts up to the most jokers one old set holds, one-joker entries are matched at once,
  and the jokers new sets hold are forgotten once no old joker can still be credited.

Every step must stay on a play of the best tiles and value: the gain so far plus the tile
search's best from the (projected) state must reach the optimum, which that search —
already run — answers from its memo (:meth:`._solver_dp.Search.best_from`; exact, or an
upper bound when it ran with jokers scoring nothing, which only prunes less). So only
optimal plays are looked at; among them the most tiles kept is found by a memoised
depth-first search with a bound (every old tile ahead whose set can still pair; of their
jokers, no more than the new sets can still give), first
among plays that lose no tile, then at most one, then two, then any (:func:`most_kept`).

A second bound (built at the first node): the tile search run again with every
number also scoring at most the table tiles it can keep there — per colour, old-run tiles
no more than its tiles in runs, old-group tiles no more than its tiles in groups (or one
in a run), an old run paired with a group counted once —, one point each, below the
weights of tiles and value (``Search(old_sets=...)``). Its best from the state as the tile
search sees it bounds the tiles still to keep on the optimal plays from there; it knows
which old tiles must leave their role, not which run continues which (a run split to
take a tile is invisible to it). So when it does not cut, the same search following
one old run per colour at a time (``Search(tracked=...)``) is asked too: that old run is
not paired yet, paired with a run now of length 1, 2 or 3+, or done, and its tiles count
only while the run it is paired with goes on (its state from the moved search's: the run
its tag pairs it with; :meth:`_Kept._split_bits`). All the outcomes of a node that go on
the same way — the runs' signatures and the tiles put in groups — reach the same state as
the first search sees it, so before they are built its best from there tells what they
must keep at the node's number (:meth:`_Kept._after_cap`); each outcome built is then
checked against the bounds from its own state.

In the last pass, a state whose runs differ from another met before only in which are
done asks that state with those runs free first (:func:`_freed`): one proof stands for
all of them.

The jokers still to credit are matched as they can be (:func:`_credit_bound`,
:func:`_joker_flows`, :meth:`_Kept._tight`), not one old joker for any new one: a
paired run's joker only by a joker still to place (its new run takes it); a free run's only
by an old set ahead it can still pair with, else as a set done unpaired; and an old set
credited by a new set done unpaired (the ledger) ends unpaired too, keeping none of its
real tiles — so for the tile count it adds at most its jokers beyond its real tiles ahead,
and for the second bound the plays where it does are bounded by that bound's search
without the set (``make_without``), those where none does with fewer jokers. Measured on
the slowest normal instance with two table jokers: 97% of the nodes expanded had passed
the bounds only on jokers that could not all be credited.

The bound prunes before states are built: an old real tile at number n that can still pair
is in a node's bound and, unless kept at n, in no later one — so a way to go on must keep
more than (those tiles − (bound − floor)) at n. The runs' plans of a colour that the tile
search cannot tell apart (runs by length, tiles, jokers: a *signature*) are checked
together, and the combinations of signatures of a state's *shape* (its runs' lengths, the
jokers used) are listed once for every state of that shape. With a budget (a count of work,
so the same everywhere) the search stops and hands on the best whole play found so far.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

from gameshack.rules.tiles._solver_dp import Search
from gameshack.rules.tiles.sets import check_set

__all__ = ["KeptSearch", "OutOfWork", "most_kept"]

JOKER: Final = 52
_NONE: Final = -(1 << 30)

# the jokers still to credit by kind (:meth:`_Kept._joker_kinds`), and none
JokerKinds = tuple[int, int, int, int, int, int, int]
_NO_JOKERS: Final[JokerKinds] = (0, 0, 0, 0, 0, 0, 0)

# a tag, one int: 0..2 a free run holding that many jokers; 3 + 3 * (i + 1) + r a run paired
# with old run i (its index among the old runs; -1: an old set that gives no more real
# tiles) with r jokers still to credit
_DONE: Final = 3
# work before the moved search builds its second bound (:meth:`_Kept._kept_bound`). Session
# 7 waited 1000 units (the easiest instances end before: 120 normal, 1000 against 5000,
# median 9.2 -> 7.5 ms); since the tile search's node function is in C the bound costs a
# fifth and pays at once (interleaved, all 500 normal: 0 against 1000, geometric mean of
# the ratios 0.91, sum -3%; 118 dense: -1%)
_KEPT_AFTER: Final = 0
# bits set, for the numbers' masks (bit n: number n, so below 2**15)
_POP: Final = [bin(x).count("1") for x in range(1 << 15)]


class OutOfWork(Exception):
    """:func:`most_kept` did more work than it was given."""


class _Reached(Exception):
    """The search found a whole play keeping what no play can beat (``_Kept.stop_at``)."""


def _paired(i: int, r: int) -> int:
    return 3 + 3 * (i + 1) + r


class _OldRun:
    __slots__ = ("a", "b", "colour", "jokers", "last_real", "reals")

    def __init__(self, colour: int, a: int, b: int, reals: int, jokers: int) -> None:
        self.colour = colour
        self.a = a  # first and last number it stands for
        self.b = b
        self.reals = reals  # bit n: a real tile at number n
        self.jokers = jokers
        self.last_real = reals.bit_length() - 1


class _Plan:
    """One colour's runs at one number: what each open run does, which runs start."""

    __slots__ = ("actions", "code", "cont", "ended_jokers", "gain", "jokers", "lost", "reals")

    def __init__(
        self,
        actions: tuple[int, ...],
        cont: list[tuple[int, int, bool, bool]],
        reals: int,
        jokers: int,
        gain: int,
        ended_jokers: list[int],
        lost: int,
    ) -> None:
        # actions: per open run (in the state's order) 0 a real tile, 1 a joker, 2 it ends;
        # then how many new runs start with a real tile and with a joker
        self.actions = actions
        # cont: per run open after this number: (length before, tag, took a real, new)
        self.cont = cont
        self.reals = reals
        self.jokers = jokers
        self.gain = gain
        self.ended_jokers = ended_jokers
        # real tiles at this number of the old runs paired with its runs that those runs do
        # not take (they cannot be kept any more)
        self.lost = lost
        # the runs open after this number as the tile search counts them (by length), or
        # -1 if more than it tracks
        counts = [0, 0, 0, 0]
        for length, _, _, _ in cont:
            counts[length + 1 if length < 3 else 3] += 1
        over = counts[1] > 4 or counts[2] > 4 or counts[3] > 4
        self.code = -1 if over else counts[1] + 5 * counts[2] + 25 * counts[3]


State = tuple[
    tuple[tuple[tuple[int, int], ...], ...],  # per colour, open runs (length 1..3, tag)
    tuple[int, ...],  # old runs started, unpaired, with real tiles still ahead
    tuple[int, ...],  # ledger: jokers of old sets ended unpaired
    tuple[int, ...],  # ledger: jokers of new sets ended unpaired
    int,  # jokers used
]
# a combination of the colours' signatures (runs' code, real tiles, jokers) at one number,
# with the ways the rest go to groups: (jokers in groups, per colour, score still needed)
Combo = tuple[
    tuple[int, int, int],
    tuple[int, int, int],
    tuple[int, int, int],
    tuple[int, int, int],
    list[tuple[int, tuple[int, int, int, int], int]],
]
# what a node does at its number, for rebuilding the table: per colour its runs' plan and
# the runs' tags after it, and the groups (colours mask, jokers) — the plans as they are,
# shared, since most outcomes are never rebuilt
Pieces = tuple[tuple["_Plan", ...], list[list[int]], list[tuple[int, int]]]
# how a node goes on: the next state, its pieces, the score still needed
Choice = tuple[State, Pieces, int]


class _Kept:
    def __init__(
        self,
        old: list[list[int]],
        tcount: list[int],
        rack: list[int],
        oracle: Search,
        make_kept: Callable[[], Search] | None = None,
        kept_w: int = 1,
        kept_joker_w: int = 0,
        kept_after: int = _KEPT_AFTER,
        make_without: Callable[[int], Search] | None = None,
        make_split: Callable[[Search], Search] | None = None,
    ) -> None:
        self.oracle = oracle
        self.kept_after = kept_after
        # the second bound's search following the old runs' pairings, bounded by the memo
        # of the first (``Search(tracked=..., bound_by=...)``; :meth:`_kept_bound`), built
        # when first asked
        self.make_split = make_split
        self.split_oracle: Search | None = None
        # the second bound's search with one old set left out (its tiles none to keep), by
        # the set's index: for the plays where an old set holding jokers ends unpaired
        # (:meth:`_kept_bound`)
        self.make_without = make_without
        self.without: dict[int, Search] = {}
        # the tile search again, its scores scaled by ``kept_w``, each number also scoring
        # at most the table tiles it can keep (``Search(old_sets=...)``), jokers scoring
        # ``kept_joker_w`` more each than here: a second bound per state (:meth:`_kept_bound`),
        # built once the search has done :data:`_KEPT_AFTER` work
        self.make_kept = make_kept
        self.kept_oracle: Search | None = None
        self.kept_w = kept_w
        self.kept_joker_w = kept_joker_w
        core = oracle.scoring()
        self.per_real: list[int] = core[0]
        self.vn: list[int] = core[1]
        self.joker_w: int = core[2]
        self.credit_from: int = core[3]
        self.credit_to: int = core[4]
        self.jokers: int = core[5]
        self.table_jokers = tcount[JOKER]
        self.tcount = tcount
        self.rack = rack
        # the most jokers one old set holds, and how many old sets hold any: a new set's
        # jokers count only up to the first, and only that many such new sets can be
        # credited at the end (the ledger keeps no more)
        self.joker_cap = 0
        self.joker_sets = 0
        for s in old:
            held = s.count(JOKER)
            if held:
                self.joker_sets += 1
                self.joker_cap = max(self.joker_cap, held)
        self.runs: list[_OldRun] = []
        self.run_index: dict[int, int] = {}  # old set index -> index in runs
        self.groups_at: list[list[tuple[int, int, int]]] = [[] for _ in range(15)]
        self.starts_at: list[list[int]] = [[] for _ in range(15)]
        for i, s in enumerate(old):
            check = check_set(s)
            jk = s.count(JOKER)
            if check.kind == "run":
                first, last = check.meanings[0], check.meanings[-1]
                reals = 0
                for f in s:
                    if f != JOKER:
                        reals |= 1 << (f % 13 + 1)
                r = _OldRun(first // 13, first % 13 + 1, last % 13 + 1, reals, jk)
                self.run_index[i] = len(self.runs)
                self.starts_at[r.a].append(len(self.runs))
                self.runs.append(r)
            else:
                n = check.meanings[0] % 13 + 1
                mask = 0
                for f in s:
                    if f != JOKER:
                        mask |= 1 << (f // 13)
                self.groups_at[n].append((i, mask, jk))
        # per number, the old runs starting there as a bit mask
        self.starts_mask = [sum([1 << i for i in self.starts_at[m]]) for m in range(15)]
        # pair_later[c][n]: an old set a free run of colour c open after number n could
        # still pair with (an old run of c starting later, an old group with c later)
        self.pair_later = [[False] * 15 for _ in range(4)]
        for c in range(4):
            for n in range(14):
                self.pair_later[c][n] = any(r.colour == c and r.a > n for r in self.runs) or any(
                    mask >> c & 1 for m in range(n + 1, 14) for _, mask, _ in self.groups_at[m]
                )
        # the old sets holding jokers: (index, first number, index among the runs or -1)
        self.joker_olds: list[tuple[int, int, int]] = []
        for i, s in enumerate(old):
            if JOKER in s:
                if i in self.run_index:
                    ri = self.run_index[i]
                    self.joker_olds.append((i, self.runs[ri].a, ri))
                else:
                    self.joker_olds.append((i, check_set(s).meanings[0] % 13 + 1, -1))
        # per colour and number n: whether a free run of that colour open before n can
        # still pair with an old set holding jokers (one not met yet: an old run of the
        # colour, or an old group holding it); if not, the jokers it holds are credited
        # only by the ledger, as a new set done unpaired (:meth:`_joker_kinds`)
        self.joker_pairable = [[False] * 16 for _ in range(4)]
        for i, first, ri in self.joker_olds:
            for c in range(4):
                if ri >= 0:
                    ok = self.runs[ri].colour == c
                else:
                    ok = any(g == i and mask >> c & 1 for g, mask, _ in self.groups_at[first])
                if ok:
                    for m in range(first + 1):
                        self.joker_pairable[c][m] = True
        self.reach_memo: dict[int, bool] = {}
        self.combo_seen: set[tuple[int, tuple[tuple[int, ...], ...], int, int]] = set()
        self.combo_memo: dict[tuple[int, tuple[tuple[int, ...], ...], int, int], list[Combo]] = {}
        # the same per colour, less the plans losing as many tiles as a node allows
        self.fit_memo: dict[
            tuple[int, int, tuple[tuple[int, int], ...], int, int],
            dict[tuple[int, int, int], tuple[int, int, list[_Plan]]],
        ] = {}
        self.plan_memo: dict[
            tuple[int, int, tuple[tuple[int, int], ...], int],
            list[tuple[int, int, int, list[_Plan]]],
        ] = {}
        # tiles and jokers of the old sets not met yet, from number n on
        self.ahead_new = [0] * 16
        # the same, jokers only
        self.jokers_new = [0] * 16
        for r in self.runs:
            self.ahead_new[r.a] += bin(r.reals).count("1") + r.jokers
            self.jokers_new[r.a] += r.jokers
        for m in range(1, 14):
            for _, mask, jk in self.groups_at[m]:
                self.ahead_new[m] += bin(mask).count("1") + jk
                self.jokers_new[m] += jk
        # the jokers of the old sets not met yet, from number n on, beyond their real tiles
        # (what such a set keeps, at most, when it pairs only for its jokers: :meth:`_tight`)
        self.excess_new = [0] * 16
        for r in self.runs:
            self.excess_new[r.a] += max(0, r.jokers - bin(r.reals).count("1"))
        for m in range(1, 14):
            for _, mask, jk in self.groups_at[m]:
                self.excess_new[m] += max(0, jk - bin(mask).count("1"))
        for n in range(13, 0, -1):
            self.ahead_new[n] += self.ahead_new[n + 1]
            self.jokers_new[n] += self.jokers_new[n + 1]
            self.excess_new[n] += self.excess_new[n + 1]
        # 2 * kept + exact (else a bound), as in the tile search
        self.memo: dict[tuple[int, State, int], int] = {}
        self.choice: dict[tuple[int, State, int], Choice] = {}
        self.nodes = 0
        # work done (nodes, combinations of run signatures checked, outcomes built) and the
        # most allowed (0: no limit)
        self.work = 0
        self.budget = 0
        # the choices on the way to the node being searched (with the tiles each keeps), and
        # the best whole play found so far: its tiles kept and its first choices (the rest
        # from ``choice``), so that a search stopped for lack of work still has a play
        self.path: list[tuple[tuple[int, State, int], Choice, int]] = []
        self.incumbent = _NONE
        # no play keeps more than this (proved): a play found keeping it ends the search
        self.stop_at = 1 << 30
        # the freed states (:func:`_freed`, all colours at once) met so far, whether the
        # search asks them first (:meth:`best`), and how deep it is in such a question (its
        # plays are not plays of the real state: they are no incumbent)
        self.freed_seen: set[tuple[int, State, int]] = set()
        self.ask_freed = False
        self.probing = 0
        self.inc_path: list[tuple[tuple[int, State, int], Choice]] = []

    # ------------------------------------------------------------------ the search

    def best(self, n: int, state: State, need: int, lo: int) -> int:
        """The most tiles kept from number ``n`` on, from ``state``, on plays that earn
        exactly ``need`` more tiles-and-value score, if above ``lo``; else a bound on it
        that is at most ``lo`` (``_NONE``: no such play)."""
        runs, _, lold, lnew, j = state
        if n == 14:
            if need != 0 or j < self.table_jokers:
                return _NONE
            for colour in runs:
                for length, _ in colour:
                    if length < 3:
                        return _NONE
            ends = list(lnew)
            for colour in runs:
                for _, tag in colour:
                    if 0 < tag < 3:
                        ends.append(tag)
            return _ledger(list(lold), ends)
        key = (n, state, need)
        got = self.memo.get(key)
        if got is not None and (got & 1 or got >> 1 <= lo):
            return got >> 1
        ub = self._potential(n, state)
        if ub <= lo:
            return ub
        kinds = _NO_JOKERS
        if self.joker_sets:
            kinds = self._joker_kinds(n, state)
            tight = self._tight(n, state, kinds)
            if tight <= lo:
                return tight
        if self.make_kept is not None and self.work >= self.kept_after:
            kb = self._kept_bound(n, state, need, lo, kinds)
            if kb <= lo:
                if got is None or got >> 1 > kb:
                    self.memo[key] = kb * 2
                return kb
        # A free run can do all a done run of the same length can (pair or not), so a bound
        # proved for this state with done runs made free holds here too
        variants = _freed(state)
        for var in variants:
            dm = self.memo.get((n, var, need))
            if dm is not None and dm >> 1 <= lo:
                return dm >> 1
        # Many states differ only in which runs are done; when a second one with the same
        # freed state comes, that state is searched first — one proof then stands for them
        # all (and nearly always holds: this is the last pass, proving the best found)
        if variants and self.ask_freed:
            freed_key = (n, variants[-1], need)
            if freed_key in self.freed_seen:
                self.probing += 1
                sub = self.best(n, variants[-1], need, lo)
                self.probing -= 1
                if sub <= lo:
                    return sub
            else:
                self.freed_seen.add(freed_key)
        self.nodes += 1
        self._spend()
        best = _NONE
        best_choice: Choice | None = None
        free = self.jokers - j
        # Every old real tile at n whose set can still pair is counted in the bound ``ub``
        # and, unless kept here, in no later bound: an outcome keeping ``low`` or fewer
        # tiles here cannot beat ``lo`` (checked as the pairings are listed, before the
        # states are built; the bound of the built state is checked after)
        low = self._reals_at(n, state) - (ub - lo)
        # per colour, its plans grouped by what the tile search sees of them (the runs by
        # length, real tiles and jokers at n): whether a play scoring ``need`` goes on is
        # checked once per combination of those, not per combination of plans
        sigs: list[list[tuple[int, int, int, list[_Plan]]]] = []
        for c in range(4):
            pk = (n, c, runs[c], free)
            got_sigs = self.plan_memo.get(pk)
            if got_sigs is None:
                got_sigs = _by_signature(self._plans(n, c, runs[c], free))
                self.plan_memo[pk] = got_sigs
            sigs.append(got_sigs)
        # An old run's real tile at n that the new run paired with it does not take is lost
        # (as above): plans losing as many as the bound allows are out, and so are
        # combinations of plans that do together. Per colour: signature -> (the most its
        # plans keep at n, the fewest they lose, the plans)
        allow = ub - lo
        by_sig: list[dict[tuple[int, int, int], tuple[int, int, list[_Plan]]]] = []
        for c in range(4):
            fk = (n, c, runs[c], free, allow)
            row = self.fit_memo.get(fk)
            if row is None:
                row = {}
                for code, r, jk, group in sigs[c]:
                    fit = [p for p in group if p.lost < allow]
                    if fit:
                        top = max([p.gain for p in fit])
                        row[(code, r, jk)] = (top, min([p.lost for p in fit]), fit)
                self.fit_memo[fk] = row
            by_sig.append(row)
        # less the most the pairings at n can keep, over every way the runs go on: what
        # the runs' plans must keep more than
        pairs_most = self._pairs_most(n, state)
        low_runs = low - pairs_most
        # With the second bound built: per way to go on (the runs' signatures and a way to
        # fill groups — all its outcomes have the same next state as the tile search sees
        # it), that bound from there caps what the outcomes keep after ``n``, so they must
        # keep more here than ``lo`` less that cap (:meth:`_after_cap`)
        kept_oracle = self.kept_oracle
        jm = 0
        slack = 0
        if kept_oracle is not None:
            jm, slack = self._after_slack(n, state)
        # the jokers still creditable: what the pairings at n and the next state's bound
        # can credit together, at most (:meth:`_pairings`)
        cred = jm if kept_oracle is not None else self._creditable(n, state)
        outcomes: list[tuple[int, State, Pieces, int]] = []
        for s0, s1, s2, s3, counts in self._combos(n, runs, j, need, sigs, by_sig, low_runs, allow):
            self._spend()
            g0 = by_sig[0].get(s0)
            g1 = by_sig[1].get(s1)
            g2 = by_sig[2].get(s2)
            g3 = by_sig[3].get(s3)
            if g0 is None or g1 is None or g2 is None or g3 is None:
                continue
            top0, lost0, l0 = g0
            top1, lost1, l1 = g1
            top2, lost2, l2 = g2
            top3, lost3, l3 = g3
            if top0 + top1 + top2 + top3 <= low_runs or lost0 + lost1 + lost2 + lost3 >= allow:
                continue
            heres: list[int] = []
            if kept_oracle is not None:
                top = top0 + top1 + top2 + top3 + pairs_most + jm
                runkey = s0[0] | s1[0] << 7 | s2[0] << 14 | s3[0] << 21
                jr = j + s0[2] + s1[2] + s2[2] + s3[2]
                fit_counts: list[tuple[int, tuple[int, int, int, int], int]] = []
                for entry in counts:
                    here = self._after_cap(n, runkey, jr + entry[0], entry[2], lo, top, slack)
                    if here != _NONE:
                        fit_counts.append(entry)
                        heres.append(here)
                if not fit_counts:
                    continue
                counts = fit_counts
            for p0 in l0:
                for p1 in l1:
                    if p0.lost + p1.lost >= allow:
                        continue
                    for p2 in l2:
                        if p0.lost + p1.lost + p2.lost >= allow:
                            continue
                        for p3 in l3:
                            if p0.lost + p1.lost + p2.lost + p3.lost >= allow:
                                continue
                            chosen = (p0, p1, p2, p3)
                            for nxt, sets, gain, rest in self._finish(
                                n, state, chosen, counts, need, low, lo, heres, jm, cred
                            ):
                                outcomes.append((gain, nxt, sets, rest))
        # the most kept first; among those, free runs and unpaired old runs first (a state
        # with more of them proves bounds for those with fewer, above)
        outcomes.sort(key=_outcome_order)
        path = self.path
        for gain, nxt, sets, rest in outcomes:
            thr = (best if best > lo else lo) - gain
            path.append((key, (nxt, sets, rest), gain))
            sub = self.best(n + 1, nxt, rest, thr)
            path.pop()
            if sub == _NONE or sub <= thr:
                continue
            best = gain + sub
            best_choice = (nxt, sets, rest)
            # a whole play (the child's is exact, its choices kept): the best found so far?
            whole = gain + sub
            for _, _, g in path:
                whole += g
            if whole > self.incumbent and not self.probing:
                self.incumbent = whole
                self.inc_path = [(k, ch) for k, ch, _ in path]
                self.inc_path.append((key, best_choice))
                if whole >= self.stop_at:
                    raise _Reached
        if best > lo and best_choice is not None:
            self.memo[key] = best * 2 + 1
            self.choice[key] = best_choice
            return best
        bound = lo if got is None or got >> 1 > lo else got >> 1
        self.memo[key] = bound * 2
        return bound

    def _kept_bound(self, n: int, state: State, need: int, lo: int, kinds: JokerKinds) -> int:
        """At least the most tiles kept from ``state`` before number ``n`` if that is at
        most ``lo`` (else anything above ``lo``): the kept oracle's best from the state as
        the tile search sees it (its runs by length, jokers used), less the tiles and value
        still to earn, plus the jokers that can still be credited and 1 for each unpaired
        old run started before ``n``."""
        runs, active, _, _, j = state
        key = j << 28
        # the jokers that may still be credited (:meth:`_creditable`), and 1 for each old
        # run started before ``n``, unpaired, that may still pair with a group (the oracle
        # counts that at an old run's first real tile)
        for c in range(4):
            code = 0
            for length, _ in runs[c]:
                code += 1 if length == 1 else 5 if length == 2 else 25
            key |= code << 7 * c
        if self.joker_sets:
            full, unled = _joker_flows(kinds)
        else:
            full = unled = self._creditable(n, state)
        oracle = self.kept_oracle
        if oracle is None:
            assert self.make_kept is not None
            oracle = self.kept_oracle = self.make_kept()
        base = need * self.kept_w + (self.table_jokers - j) * self.kept_joker_w
        if self.make_without is None:
            return self._ask_kept(oracle, n, key, base, lo, full + len(active), state)
        slack = unled + len(active)  # unled == full when no ledger route is open
        got = self._ask_kept(oracle, n, key, base, lo, slack, state)
        if got > lo and self.make_split is not None:
            # The same bound knowing which new run keeps which old run (a run split to
            # take a tile is kept by one part only): asked only when the first fails —
            # its states are several per state of the first, whose memo bounds it
            split = self.split_oracle
            if split is None:
                split = self.split_oracle = self.make_split(oracle)
            if split.split:  # (not without old runs: it would be the first again)
                tighter = self._ask_kept(split, n, key, base, lo, slack, state)
                if tighter <= lo:
                    got = tighter
        if unled == full:
            return got
        # An old set credited by a new set done unpaired (the ledger) ends unpaired: it
        # keeps none of its tiles. The plays where none does credit no more than ``unled``
        # jokers (``got``); those where one does keep, besides, no more than the search
        # without that set counts
        if got > lo:
            return got
        for i, first, ri in self.joker_olds:
            if first < n and ri not in active:
                continue  # met already: paired or in the ledger
            without = self.without.get(i)
            if without is None:
                without = self.without[i] = self.make_without(i)
            got = self._ask_kept(without, n, key, base, lo, full + len(active), state)
            if got > lo:
                return got
        return lo

    def _split_bits(self, oracle: Search, n: int, state: State) -> int:
        """The states of the old runs ``oracle`` follows (``Search(tracked=...)``) before
        number ``n``: not paired yet (0), paired with a run of length 1..3, done (4)."""
        track = oracle.tracked_at(n - 1)
        track_n = oracle.tracked_at(n)
        runs, active, _, _, _ = state
        bits = 0
        for c in range(4):
            tid = track[c]
            if tid < 0 or track_n[c] != tid:
                continue
            ri = self.run_index[tid]
            st = 4
            if ri in active:
                st = 0
            else:
                for length, tag in runs[c]:
                    if tag >= 6 and (tag - 3) // 3 - 1 == ri:
                        st = length
                        break
            bits |= st << 40 + 3 * c
        return bits

    def _ask_kept(
        self, oracle: Search, n: int, key: int, base: int, lo: int, slack: int, state: State
    ) -> int:
        """:meth:`_kept_bound` from one search (the second bound's, or one without an old
        set) with ``slack``."""
        if oracle.split:
            key |= self._split_bits(oracle, n, state)
        before = oracle.nodes_searched()
        v = oracle.best_from(n, key, base + lo - slack)
        self.work += oracle.nodes_searched() - before
        # at most the threshold: the best is no more (what is returned then is no bound)
        return lo if v <= base + lo - slack else v - base + slack

    def _joker_kinds(self, n: int, state: State) -> JokerKinds:
        """The jokers still to credit from ``state`` before number ``n``, by what can credit
        them: old sets' — in the ledger (credited only at the end, by a new set done
        unpaired), ahead or unpaired (and of those, the jokers beyond their real tiles
        ahead), in paired runs (only a joker still to place: their new run takes it) —;
        new sets' — in free runs that can still pair with an old set holding jokers (one
        not met yet: an old run of the colour, an old group holding it), in the ledger or
        in free runs that cannot (they can only end unpaired), not placed yet."""
        runs, active, lold, lnew, j = state
        ahead = self.jokers_new[n]
        excess = self.excess_new[n]
        for i in active:
            r = self.runs[i]
            ahead += r.jokers
            reals = _POP[r.reals >> n]
            if r.jokers > reals:
                excess += r.jokers - reals
        paired = 0
        free = 0
        done_new = sum(lnew)
        for c in range(4):
            pairable = self.joker_pairable[c][n]
            for _, tag in runs[c]:
                if tag >= 3:
                    paired += (tag - 3) % 3
                elif pairable:
                    free += tag
                else:
                    done_new += tag
        return (sum(lold), ahead, excess, paired, free, done_new, self.jokers - j)

    def _after_slack(self, n: int, state: State) -> tuple[int, int]:
        """For :meth:`_after_cap`, from a node before number ``n``: at least the jokers a
        pairing at ``n`` can match from the ledgers, and at least the slack
        (:meth:`_kept_bound`) of any state after ``n`` — the jokers still creditable on
        both sides only fall, and its unpaired old runs are this state's or start at
        ``n``."""
        both = self._creditable(n, state)
        return both, both + len(state[1]) + len(self.starts_at[n])

    def _creditable(self, n: int, state: State) -> int:
        """The jokers that may still be credited from ``state`` before number ``n``: no
        more than the old sets can still be credited for (those ahead, unpaired old runs,
        paired runs' jokers still to credit, the ledger) nor than the new sets can still
        give (free runs and the ledger hold, or not placed yet). :meth:`_potential` counts
        the same along with its tiles."""
        runs, active, lold, lnew, j = state
        old_jokers = self.jokers_new[n] + sum(lold)
        new_jokers = self.jokers - j + sum(lnew)
        paired = 0
        for i in active:
            old_jokers += self.runs[i].jokers
        for colour in runs:
            for _, tag in colour:
                if tag >= 3:
                    paired += (tag - 3) % 3
                else:
                    new_jokers += tag
        return _credit_bound(old_jokers, paired, new_jokers, self.jokers - j)

    def _after_cap(
        self, n: int, runkey: int, jn: int, rest: int, lo: int, top: int, slack: int
    ) -> int:
        """What an outcome at number ``n`` must keep there to beat ``lo``, when its next
        state is ``runkey`` with ``jn`` jokers used and ``rest`` still to earn (as the tile
        search sees it): ``lo`` less the second bound's best from there (with ``slack``
        from :meth:`_after_slack`); ``_NONE`` if even ``top`` kept there is not enough."""
        oracle = self.kept_oracle
        assert oracle is not None
        base = rest * self.kept_w + (self.table_jokers - jn) * self.kept_joker_w
        thr = lo - top + base - slack
        before = oracle.nodes_searched()
        v = oracle.best_from(n + 1, runkey | jn << 28, thr)
        self.work += oracle.nodes_searched() - before
        if v <= thr:
            return _NONE
        return lo - (v - base + slack)

    def _reals_at(self, n: int, state: State) -> int:
        """Old real tiles at number ``n`` whose set can still pair (as :meth:`_potential`
        counts them)."""
        runs, active, _, _, _ = state
        total = 0
        for _, mask, _ in self.groups_at[n]:
            total += _POP[mask]
        for i in self.starts_at[n]:
            total += self.runs[i].reals >> n & 1
        for i in active:
            total += self.runs[i].reals >> n & 1
        for colour in runs:
            for _, tag in colour:
                if tag >= 3:
                    i = (tag - 3) // 3 - 1
                    if i >= 0:
                        total += self.runs[i].reals >> n & 1
        return total

    def _pairs_most(self, n: int, state: State) -> int:
        """At least the most the pairings at number ``n`` can keep there: every old group
        of ``n`` and old run that may pair at ``n`` keeping its tile and its jokers."""
        total = 0
        for _, mask, jk in self.groups_at[n]:
            total += _POP[mask] + jk
        for i in self.starts_at[n]:
            total += (self.runs[i].reals >> n & 1) + self.runs[i].jokers
        for i in state[1]:
            total += (self.runs[i].reals >> n & 1) + self.runs[i].jokers
        return total

    def _spend(self) -> None:
        """Count one unit of work; past the budget, stop the search."""
        self.work += 1
        if self.work > self.budget > 0:
            raise OutOfWork

    def _potential(self, n: int, state: State) -> int:
        """At least the most tiles still to keep from ``state`` before number ``n``: every
        old real tile ahead whose set can still pair, and the jokers still creditable — no
        more than the old sets hold that can be credited, nor than the new sets can still
        give (free runs and the ledger hold, or not placed yet). Each joker credited at
        ``n`` takes one from both, so a tile not kept at ``n`` is in no later bound."""
        runs, active, lold, lnew, j = state
        total = self.ahead_new[n] - self.jokers_new[n]
        old_jokers = self.jokers_new[n] + sum(lold)
        new_jokers = self.jokers - j + sum(lnew)
        paired = 0
        for i in active:
            r = self.runs[i]
            total += _POP[r.reals >> n]
            old_jokers += r.jokers
        for colour in runs:
            for _, tag in colour:
                if tag >= 3:
                    i = (tag - 3) // 3 - 1
                    paired += (tag - 3) % 3
                    if i >= 0:
                        total += _POP[self.runs[i].reals >> n]
                else:
                    new_jokers += tag
        return total + _credit_bound(old_jokers, paired, new_jokers, self.jokers - j)

    def _tight(self, n: int, state: State, kinds: JokerKinds) -> int:
        """At least the most tiles still to keep from ``state`` before number ``n``, as
        :meth:`_potential` counts them but with the jokers matched as they can be
        (``kinds``: :meth:`_joker_kinds`): an old set can be credited by a new set done
        unpaired (the ledger) only if it ends unpaired too — keeping no real tile, so that
        way it adds no more than its jokers beyond its real tiles ahead. Not for
        :meth:`best`'s ``low`` (a state after this one may credit more: an old set's joker
        freed from its real tiles)."""
        runs, active, _, _, _ = state
        total = self.ahead_new[n] - self.jokers_new[n]
        for i in active:
            total += _POP[self.runs[i].reals >> n]
        for colour in runs:
            for _, tag in colour:
                if tag >= 6:
                    total += _POP[self.runs[(tag - 3) // 3 - 1].reals >> n]
        ledger_old, ahead, excess, paired, free, done_new, unplaced = kinds
        # the most matched (a flow; its least cut over which sides stay)
        best = ledger_old + ahead + paired
        best = min(best, unplaced + free + done_new)
        best = min(best, ledger_old + ahead + unplaced)
        best = min(best, ledger_old + unplaced + free + min(done_new, excess))
        return total + best

    def _reachable(self, n: int, key: int, need: int) -> bool:
        """Whether the tile search's best from state ``key`` (its encoding: the runs per
        colour by length, the jokers used) before number ``n`` reaches ``need``."""
        mk = need << 34 | key << 4 | n  # key < 2**30: one int, no tuple to build and hash
        got = self.reach_memo.get(mk)
        if got is None:
            before = self.oracle.nodes_searched()
            got = self.oracle.best_from(n, key, need - 1) >= need
            self.reach_memo[mk] = got
            # the tile search's nodes count as work too
            self.work += self.oracle.nodes_searched() - before
            self._spend()
        return got

    def _plans(self, n: int, c: int, runs: tuple[tuple[int, int], ...], free: int) -> list[_Plan]:
        """Every way colour ``c``'s open runs go on at number ``n`` and new runs start."""
        f = c * 13 + n - 1
        avail = self.tcount[f] + self.rack[f]
        out: list[_Plan] = []
        seen: set[tuple[object, ...]] = set()
        # per open run: 0 a real tile, 1 a joker, 2 it ends (complete runs only)
        count = len(runs)
        choices = [(0, 1, 2) if length == 3 else (0, 1) for length, _ in runs]
        combos: list[list[int]] = [[]]
        for ch in choices:
            combos = [[*x, y] for x in combos for y in ch]
        for combo in combos:
            reals = sum(1 for x in combo if x == 0)
            jokers = sum(1 for x in combo if x == 1)
            if reals > avail or jokers > free:
                continue
            gain = 0
            lost = 0
            cont: list[tuple[int, int, bool, bool]] = []
            ended: list[int] = []
            for k in range(count):
                length, tag = runs[k]
                x = combo[k]
                if x and tag >= 6 and self.runs[(tag - 3) // 3 - 1].reals >> n & 1:
                    lost += 1
                if x == 2:
                    if 0 < tag < 3:
                        ended.append(tag)
                    continue
                if tag >= 3:
                    i = (tag - 3) // 3 - 1
                    r = (tag - 3) % 3
                    if x == 0 and i >= 0 and self.runs[i].reals >> n & 1:
                        gain += 1
                    if x == 1 and r > 0:
                        gain += 1
                        tag -= 1
                elif x == 1 and tag < self.joker_cap:
                    tag += 1
                cont.append((length, tag, x == 0, False))
            for new_reals in range(avail - reals + 1):
                for new_jokers in range(free - jokers + 1):
                    if count + new_reals + new_jokers > 4:
                        break
                    c2 = list(cont)
                    c2.extend([(0, 0, True, True)] * new_reals)
                    c2.extend([(0, 1, False, True)] * new_jokers)
                    sig = (tuple(sorted(c2)), tuple(sorted(ended)), gain, lost)
                    if sig in seen:
                        continue
                    seen.add(sig)
                    out.append(
                        _Plan(
                            (*combo, new_reals, new_jokers),
                            c2,
                            reals + new_reals,
                            jokers + new_jokers,
                            gain,
                            sorted(ended),
                            lost,
                        )
                    )
        return out

    def _combos(
        self,
        n: int,
        runs: tuple[tuple[tuple[int, int], ...], ...],
        j: int,
        need: int,
        sigs: list[list[tuple[int, int, int, list[_Plan]]]],
        by_sig: list[dict[tuple[int, int, int], tuple[int, int, list[_Plan]]]],
        low_runs: int,
        allow: int,
    ) -> list[Combo]:
        """The combinations of the colours' signatures (runs after ``n`` by length, real
        tiles and jokers at ``n``) on the way to a play scoring ``need``, each with the ways
        to put the rest of ``n``'s tiles in groups (:meth:`_group_counts`). They depend on
        the runs' lengths, not on what they continue: shared by the states that differ only
        in that — listed whole the second time such a state is met; the first time (on
        crowded tables, often the only one) only those the node can use (``by_sig``: per
        signature the most its plans keep and the fewest tiles they lose; a combination
        must keep more than ``low_runs`` and lose fewer than ``allow``)."""
        key = (n, tuple([tuple([length for length, _ in colour]) for colour in runs]), j, need)
        got = self.combo_memo.get(key)
        if got is not None:
            return got
        whole = key in self.combo_seen
        self.combo_seen.add(key)
        free = self.jokers - j
        # a colour whose unfinished runs would need more jokers than are left is out (as
        # in the tile search); each signature with its jokers and those needed, the most
        # it keeps and the fewest it loses here
        dc = self.oracle.deficits(n)
        rows: list[list[tuple[int, int, int, int, int, int]]] = []
        for c in range(4):
            d = dc[c]
            row: list[tuple[int, int, int, int, int, int]] = []
            for code, r, jk, _ in sigs[c]:
                if jk + d[code] > free:
                    continue
                if whole:
                    row.append((jk + d[code], 1 << 20, 0, code, r, jk))
                    continue
                got_sig = by_sig[c].get((code, r, jk))
                if got_sig is not None:
                    row.append((jk + d[code], got_sig[0], got_sig[1], code, r, jk))
            rows.append(row)
        out: list[Combo] = []
        for need0, top0, lost0, code0, r0, j0 in rows[0]:
            for need1, top1, lost1, code1, r1, j1 in rows[1]:
                if need0 + need1 > free or lost0 + lost1 >= allow:
                    continue
                for need2, top2, lost2, code2, r2, j2 in rows[2]:
                    if need0 + need1 + need2 > free or lost0 + lost1 + lost2 >= allow:
                        continue
                    for need3, top3, lost3, code3, r3, j3 in rows[3]:
                        spare = free - need0 - need1 - need2 - need3
                        if spare < 0 or top0 + top1 + top2 + top3 <= low_runs:
                            continue
                        if lost0 + lost1 + lost2 + lost3 >= allow:
                            continue
                        self._spend()
                        runkey = code0 | code1 << 7 | code2 << 14 | code3 << 21
                        counts = self._group_counts(
                            n, (r0, r1, r2, r3), j0 + j1 + j2 + j3, j, spare, need, runkey
                        )
                        if counts:
                            out.append(
                                (
                                    (code0, r0, j0),
                                    (code1, r1, j1),
                                    (code2, r2, j2),
                                    (code3, r3, j3),
                                    counts,
                                )
                            )
        if whole:
            self.combo_memo[key] = out
        return out

    def _group_counts(
        self,
        n: int,
        reals: tuple[int, int, int, int],
        run_jokers: int,
        j: int,
        free: int,
        need: int,
        runkey: int,
    ) -> list[tuple[int, tuple[int, int, int, int], int]]:
        """The ways to put number ``n``'s tiles left after the runs (``reals`` real tiles
        per colour to runs, ``run_jokers`` jokers; ``j`` used before ``n``, ``free`` more
        at most) in groups on the way to a play scoring ``need``: each as (jokers in groups,
        real tiles in groups per colour, score still needed). ``runkey``: the runs after
        ``n`` as the tile search encodes them. Table copies must all be used."""
        lo = [0, 0, 0, 0]
        hi = [0, 0, 0, 0]
        for c in range(4):
            f = c * 13 + n - 1
            left_table = self.tcount[f] - reals[c]
            lo[c] = left_table if left_table > 0 else 0
            hi[c] = self.tcount[f] + self.rack[f] - reals[c]
        run_reals = reals[0] + reals[1] + reals[2] + reals[3]
        low = lo[0] + lo[1] + lo[2] + lo[3]
        high = hi[0] + hi[1] + hi[2] + hi[3]
        out: list[tuple[int, tuple[int, int, int, int], int]] = []
        for gj in range(free + 1):
            used = run_jokers + gj
            jn = j + used
            credited = min(jn, self.credit_to) - max(j, self.credit_from)
            jtv = used * self.joker_w + (credited * self.vn[n] if credited > 0 else 0)
            # the score depends only on how many tiles, and the more the less is left to
            # earn from the same next state: from the most down, while it still reaches
            for total in range(high, low - 1, -1):
                tv = (run_reals + total) * self.per_real[n] + jtv
                if not self._reachable(n + 1, runkey | jn << 28, need - tv):
                    break
                for g0 in range(lo[0], hi[0] + 1):
                    for g1 in range(lo[1], hi[1] + 1):
                        for g2 in range(lo[2], hi[2] + 1):
                            g3 = total - g0 - g1 - g2
                            if (
                                lo[3] <= g3 <= hi[3]
                                and _CAN_GROUP[(((g0 * 3 + g1) * 3 + g2) * 3 + g3) * 3 + gj]
                            ):
                                out.append((gj, (g0, g1, g2, g3), need - tv))
        return out

    def _finish(
        self,
        n: int,
        state: State,
        plans: tuple[_Plan, ...],
        counts: list[tuple[int, tuple[int, int, int, int], int]],
        need: int,
        low: int,
        lo: int,
        heres: list[int],
        jm: int,
        cred: int,
    ) -> list[tuple[State, Pieces, int, int]]:
        """Groups from the tiles left and the pairings at number ``n``, on the way to a
        play scoring ``need`` (``counts``: from :meth:`_group_counts`) and keeping more
        than ``low`` tiles here and more than ``lo`` with the next state's bound
        (:meth:`_potential`): each as (next state, what it does at ``n``, for rebuilding
        the table, tiles kept, score still needed). ``heres``: per entry of ``counts``, what
        its outcomes must keep at ``n`` (:meth:`_after_cap`; none: no such need), of which
        at most ``jm`` jokers matched from the ledgers; ``cred``: the jokers still
        creditable (:meth:`_creditable`)."""
        _, active, lold, lnew, j = state
        out: list[tuple[State, Pieces, int, int]] = []
        run_jokers = plans[0].jokers + plans[1].jokers + plans[2].jokers + plans[3].jokers
        base_gain = plans[0].gain + plans[1].gain + plans[2].gain + plans[3].gain
        # the old runs that could pair here: unpaired ones started before, and those
        # starting at n
        starting = self.starts_at[n]
        cand_runs = list(active) + starting
        # The next state's bound (:meth:`_potential`, as :meth:`_after` checks it) without
        # what depends on the pairing: the old tiles ahead of sets not met yet, of the runs
        # paired before, and of the old runs that may pair here, which only an old run
        # paired with a new group loses (:class:`_Walk`); the jokers at most ``cred`` with
        # those credited here
        m = n + 1
        ahead = self.ahead_new[m] - self.jokers_new[m]
        for i in cand_runs:
            ahead += _POP[self.runs[i].reals >> m]
        for c in range(4):
            for _, tag0, _, _ in plans[c].cont:
                if tag0 >= 6:
                    ahead += _POP[self.runs[(tag0 - 3) // 3 - 1].reals >> m]
        fut_floor = lo - base_gain - ahead - cred
        for e, (gj, groups_per_colour, rest) in enumerate(counts):
            jn = j + run_jokers + gj
            walk_low = low
            here = _NONE
            if heres:
                here = heres[e]
                if here - jm > walk_low:
                    walk_low = here - jm
            for groups in _partitions(groups_per_colour, gj):
                for nxt, gain, sets in self._pairings(
                    n,
                    plans,
                    groups,
                    cand_runs,
                    starting,
                    active,
                    lold,
                    lnew,
                    jn,
                    walk_low - base_gain,
                    lo - base_gain,
                    here - base_gain,
                    fut_floor,
                ):
                    out.append((nxt, sets, base_gain + gain, rest))
        return out

    def _pairings(
        self,
        n: int,
        plans: tuple[_Plan, ...],
        groups: list[tuple[int, int]],
        cand_runs: list[int],
        starting: list[int],
        active: tuple[int, ...],
        lold: tuple[int, ...],
        lnew: tuple[int, ...],
        jn: int,
        low: int,
        floor: int,
        here: int,
        fut_floor: int,
    ) -> list[tuple[State, int, Pieces]]:
        """Every matching at number ``n`` between the old sets that may pair here and the
        new sets that may: old groups of ``n`` and unpaired old runs; new groups of ``n``
        and free runs (new ones, or open ones where an old run starts); only those keeping
        more than ``low`` tiles, and more than ``floor`` with the next state's bound —
        checked during the walk against ``fut_floor`` (:meth:`_finish`), less the tiles
        ahead of the old runs it pairs with new groups."""
        # new side: free runs at n (colour, index in plan.cont), then the new groups
        new_runs: list[tuple[int, int]] = []
        for c in range(4):
            for k, (_, tag, _, _) in enumerate(plans[c].cont):
                if tag < 3:
                    new_runs.append((c, k))
        old_groups = self.groups_at[n]
        # old side: old groups of n, then candidate old runs
        olds: list[tuple[int, int]] = [(0, g) for g in range(len(old_groups))]
        olds += [(1, r) for r in cand_runs]
        starts = self.starts_mask[n]
        results: list[tuple[State, int, Pieces]] = []
        nr = len(new_runs)
        all_opts = [
            self._options(n, kind, idx, plans, groups, new_runs, starts) for kind, idx in olds
        ]
        # the most the old sets from o on can keep here
        most = [0] * (len(olds) + 1)
        for o in range(len(olds) - 1, -1, -1):
            most[o] = most[o + 1] + max([g for _, g, _ in all_opts[o]], default=0)
        # pairings that lead to the same state differ only in the tiles kept: the best of
        # each is kept (an old group, a new group pair or not without a trace unless they
        # hold jokers, which the ledger remembers)
        rel_old = [o for o, (kind, idx) in enumerate(olds) if kind == 1 or old_groups[idx][2]]
        rel_new = [nr + y for y, (_, gjk) in enumerate(groups) if gjk]
        # per old set, the tiles ahead it gives up when paired with a new group (old runs)
        m = n + 1
        fut = [0 if kind == 0 else _POP[self.runs[idx].reals >> m] for kind, idx in olds]
        walker = _Walk(self, all_opts, most, low, nr, len(groups), rel_old, rel_new, fut, fut_floor)
        walker.walk(0, 0, 0)
        best_of = walker.best_of
        for gain, tags_at, paired_at, taken_at in best_of.values():
            after = self._after(
                n,
                plans,
                groups,
                tags_at,
                olds,
                paired_at,
                active,
                lold,
                lnew,
                jn,
                new_runs,
                taken_at,
                gain,
                floor,
                here,
            )
            if after is not None:
                results.append(after)
        return results

    def _options(
        self,
        n: int,
        kind: int,
        idx: int,
        plans: tuple[_Plan, ...],
        groups: list[tuple[int, int]],
        new_runs: list[tuple[int, int]],
        starts: int,
    ) -> list[tuple[int, int, int]]:
        """How an old set (``kind`` 0: old group ``idx`` of ``n``, 1: old run ``idx``) may
        pair at ``n``: (new-side index — a free run of ``new_runs``, then a new group —,
        tiles kept, the run's new tag or -1)."""
        nr = len(new_runs)
        opts: list[tuple[int, int, int]] = []
        if kind == 0:
            _, mask, jk = self.groups_at[n][idx]
            for x in range(nr):
                c, k = new_runs[x]
                _, tag, real, _ = plans[c].cont[k]
                if real and mask >> c & 1:
                    credit = min(jk, tag)
                    opts.append((x, 1 + credit, _paired(-1, jk - credit)))
            for y, (gmask, gjk) in enumerate(groups):
                gain = _POP[gmask & mask] + min(jk, gjk)
                if gain:
                    opts.append((nr + y, gain, -1))
        else:
            run = self.runs[idx]
            is_start = starts >> idx & 1
            real_here = run.reals >> n & 1
            ahead = run.last_real > n
            for x in range(nr):
                c, k = new_runs[x]
                if c != run.colour:
                    continue
                _, tag, real, new = plans[c].cont[k]
                if not (new or is_start):
                    continue
                credit = min(run.jokers, tag)
                gain = (1 if real and real_here else 0) + credit
                opts.append((x, gain, _paired(idx if ahead else -1, run.jokers - credit)))
            if real_here:
                for y, (gmask, gjk) in enumerate(groups):
                    if gmask >> run.colour & 1:
                        opts.append((nr + y, 1 + min(run.jokers, gjk), -1))
        return opts

    def _after(
        self,
        n: int,
        plans: tuple[_Plan, ...],
        groups: list[tuple[int, int]],
        tags: list[int],
        olds: list[tuple[int, int]],
        paired_old: list[bool],
        active: tuple[int, ...],
        lold: tuple[int, ...],
        lnew: tuple[int, ...],
        jn: int,
        new_runs: list[tuple[int, int]],
        taken: list[bool],
        gain: int,
        floor: int,
        here: int,
    ) -> tuple[State, int, Pieces] | None:
        """The state after number ``n`` for one pairing, its tiles kept at ``n`` and its
        pieces; ``None`` unless those tiles are more than ``here`` (the pairing's part of
        :meth:`_after_cap`) and, with the state's bound (:meth:`_potential`), more than
        ``floor`` (both checked before the state is built)."""
        ledger_old = list(lold)
        ledger_new = list(lnew)
        old_groups = self.groups_at[n]
        still: list[int] = []
        for o, (kind, idx) in enumerate(olds):
            if kind == 0:
                if not paired_old[o] and old_groups[idx][2]:
                    ledger_old.append(old_groups[idx][2])
            elif not paired_old[o]:
                run = self.runs[idx]
                if run.last_real > n:
                    still.append(idx)
                elif run.jokers:
                    ledger_old.append(run.jokers)
        nr = len(new_runs)
        for y, (_, gjk) in enumerate(groups):
            if not taken[nr + y] and gjk:
                ledger_new.append(gjk)
        for c in range(4):
            ledger_new.extend(plans[c].ended_jokers)
        # The ledgers are matched at the end (each old entry with one new, for as many
        # jokers as the fewer): a new entry counts up to the most jokers one old set holds,
        # and only as many new entries as old sets hold jokers can ever be matched
        cap = self.joker_cap
        if ledger_new and cap:
            ledger_new = sorted([x if x < cap else cap for x in ledger_new])[-self.joker_sets :]
        if cap == 1 and ledger_old and ledger_new:
            # every entry is one joker: any match is as good as any other, so match now
            matched = min(len(ledger_old), len(ledger_new))
            ledger_old = ledger_old[matched:]
            ledger_new = ledger_new[matched:]
            gain += matched
        if gain <= here:
            return None
        # The jokers a new set holds count only against an old set's jokers that may still
        # be credited that way (an old set ahead, an unpaired old run, the ledger): with
        # none left, forget them — states that differ only in them are the same
        olds_jokers = self.jokers_new[n + 1] + sum(ledger_old)
        for i in still:
            olds_jokers += self.runs[i].jokers
        held = olds_jokers > 0
        if not held:
            ledger_new = []
        # the runs' tags after ``n``, and the next state's bound (:meth:`_potential`)
        # before anything is built: about half the states fail it
        m = n + 1
        ahead = self.ahead_new[m] - self.jokers_new[m]
        for i in still:
            ahead += _POP[self.runs[i].reals >> m]
        paired_j = 0
        news_j = self.jokers - jn + sum(ledger_new)
        tags_by_colour: list[list[int]] = []
        x = 0  # the free runs come in ``new_runs``'s order: colour, then place in the plan
        for c in range(4):
            p = plans[c]
            final_tags: list[int] = []
            for _, tag0, _, _ in p.cont:
                tag = tag0
                if tag0 < 3:
                    if tags[x] >= 0:
                        tag = tags[x]
                    x += 1
                if tag >= 3:
                    i = (tag - 3) // 3 - 1
                    r = (tag - 3) % 3
                    if i >= 0 and self.runs[i].last_real <= n:
                        tag = _paired(-1, r)
                    else:
                        if i >= 0:
                            ahead += _POP[self.runs[i].reals >> m]
                    paired_j += r
                elif not held:
                    tag = 0
                else:
                    news_j += tag
                if tag == 0 and not self.pair_later[c][n]:
                    tag = _DONE  # nothing it could still pair with: the same as done
                final_tags.append(tag)
            tags_by_colour.append(final_tags)
        if gain + ahead + _credit_bound(olds_jokers, paired_j, news_j, self.jokers - jn) <= floor:
            return None
        colours: list[tuple[tuple[int, int], ...]] = []
        for c in range(4):
            final_tags = tags_by_colour[c]
            row: list[tuple[int, int]] = []
            for k, (length, _, _, _) in enumerate(plans[c].cont):
                row.append((length + 1 if length < 3 else 3, final_tags[k]))
            colours.append(tuple(sorted(row)))
        nxt: State = (
            tuple(colours),
            tuple(sorted(still)),
            tuple(sorted(ledger_old)),
            tuple(sorted(ledger_new)),
            jn,
        )
        return nxt, gain, (plans, tags_by_colour, groups)

    # ------------------------------------------------------------------ the table

    def rebuild(self, state: State, need: int) -> list[list[int]]:
        """The table of the best play found, from the choices the search kept (its first
        ones from ``inc_path``, the rest from ``choice``)."""
        done: list[list[int]] = []
        first = dict(self.inc_path)
        # per colour, open runs as [length, tag, tiles], in the state's order
        open_runs: list[list[list[object]]] = [[], [], [], []]
        for n in range(1, 14):
            key = (n, state, need)
            got = first.get(key)
            state, pieces, need = got if got is not None else self.choice[key]
            plans, tags_by_colour, groups = pieces
            for c in range(4):
                piece = [*plans[c].actions, *tags_by_colour[c]]
                runs = open_runs[c]
                count = len(runs)
                actions = piece[:count]
                new_reals, new_jokers = piece[count], piece[count + 1]
                tags = piece[count + 2 :]
                face = c * 13 + n - 1
                cont: list[list[object]] = []
                for run, x in zip(runs, actions, strict=True):
                    tiles = run[2]
                    assert isinstance(tiles, list)
                    if x == 2:
                        done.append(tiles)
                        continue
                    tiles.append(face if x == 0 else JOKER)
                    cont.append(run)
                cont.extend([0, 0, [face]] for _ in range(new_reals))
                cont.extend([0, 0, [JOKER]] for _ in range(new_jokers))
                for run, tag in zip(cont, tags, strict=True):
                    length = run[0]
                    assert isinstance(length, int)
                    run[0] = length + 1 if length < 3 else 3
                    run[1] = tag
                cont.sort(key=lambda r: (r[0], r[1]))
                open_runs[c] = cont
            for gmask, gjk in groups:
                done.append([c * 13 + n - 1 for c in range(4) if gmask >> c & 1] + [JOKER] * gjk)
        for runs in open_runs:
            for run in runs:
                tiles = run[2]
                assert isinstance(tiles, list)
                done.append(tiles)
        return done


class _Walk:
    """The matchings of :meth:`_Kept._pairings`, depth first over the old sets (a class,
    not a closure: a recursive closure is a reference cycle, garbage only the cyclic
    collector frees, and :func:`~gameshack.rules.tiles.solver.solve` pauses it)."""

    __slots__ = (
        "all_opts",
        "best_of",
        "fut",
        "fut_floor",
        "kept",
        "low",
        "most",
        "nr",
        "paired_old",
        "rel_new",
        "rel_old",
        "tags",
        "taken",
    )

    def __init__(
        self,
        kept: _Kept,
        all_opts: list[list[tuple[int, int, int]]],
        most: list[int],
        low: int,
        nr: int,
        new_groups: int,
        rel_old: list[int],
        rel_new: list[int],
        fut: list[int],
        fut_floor: int,
    ) -> None:
        self.kept = kept
        self.all_opts = all_opts
        # per old set, what pairing it with a new group costs the next state's bound, and
        # what the gain less those costs must beat (:meth:`_Kept._finish`)
        self.fut = fut
        self.fut_floor = fut_floor
        self.most = most
        self.low = low
        self.nr = nr
        self.rel_old = rel_old
        self.rel_new = rel_new
        # per new-side set: taken or not; per new run: the tag it gets; per old: paired
        self.taken = [False] * (nr + new_groups)
        self.tags = [-1] * nr
        self.paired_old = [False] * len(all_opts)
        self.best_of: dict[
            tuple[tuple[int, ...], tuple[bool, ...], tuple[bool, ...]],
            tuple[int, list[int], list[bool], list[bool]],
        ] = {}

    def walk(self, o: int, gain: int, lost: int) -> None:
        top = gain + self.most[o]
        if top <= self.low or top - lost <= self.fut_floor:
            return
        taken = self.taken
        tags = self.tags
        paired_old = self.paired_old
        if o == len(self.all_opts):
            self.kept._spend()
            sig = (
                tuple(tags),
                tuple([paired_old[i] for i in self.rel_old]),
                tuple([taken[i] for i in self.rel_new]),
            )
            got = self.best_of.get(sig)
            if got is None or gain > got[0]:
                self.best_of[sig] = (gain, list(tags), list(paired_old), list(taken))
            return
        self.walk(o + 1, gain, lost)
        nr = self.nr
        fut = self.fut[o]
        for x, g, tag in self.all_opts[o]:
            if taken[x]:
                continue
            taken[x] = True
            paired_old[o] = True
            if x < nr:
                tags[x] = tag
            self.walk(o + 1, gain + g, lost if x < nr else lost + fut)
            if x < nr:
                tags[x] = -1
            paired_old[o] = False
            taken[x] = False


def _joker_flows(kinds: JokerKinds) -> tuple[int, int]:
    """From :meth:`_Kept._joker_kinds`: the jokers still creditable (as
    :meth:`_Kept._creditable`, by route), and the same without old sets ahead or unpaired
    credited by the ledger's new sets (done, unpaired)."""
    ledger_old, ahead, _, paired, free, done_new, unplaced = kinds
    full = _credit_bound(ledger_old + ahead, paired, unplaced + free + done_new, unplaced)
    unled = ledger_old + unplaced + free
    return full, unled if unled < full else full


def _credit_bound(old: int, paired: int, new: int, unplaced: int) -> int:
    """The most jokers still to credit: ``old`` jokers of old sets ahead, unpaired or in
    the ledger, ``paired`` still to credit in paired runs, ``new`` jokers new sets hold or
    may (in free runs, the ledger, or ``unplaced`` of them not placed yet). Each credit
    takes one from both sides; a paired run's is credited only when its new run takes a
    joker still to place (it is paired: no other new set, nor the ledger, can give it)."""
    from_old = old + (paired if paired < unplaced else unplaced)
    return from_old if from_old < new else new


def _freed(state: State) -> list[State]:
    """The states like ``state`` with the done runs of a colour free (one per colour that
    has done runs, and all of them at once if more than one has)."""
    runs, active, lold, lnew, j = state
    out: list[State] = []
    every: list[tuple[tuple[int, int], ...]] = []
    for c in range(4):
        colour = runs[c]
        done = False
        for _, tag in colour:
            if tag == _DONE:
                done = True
        if not done:
            every.append(colour)
            continue
        freed = tuple(sorted([(length, 0 if tag == _DONE else tag) for length, tag in colour]))
        every.append(freed)
        row = list(runs)
        row[c] = freed
        out.append((tuple(row), active, lold, lnew, j))
    if len(out) > 1:
        out.append((tuple(every), active, lold, lnew, j))
    return out


def _outcome_order(o: tuple[int, State, Pieces, int]) -> tuple[int, int]:
    runs = o[1][0]
    done = 0
    for colour in runs:
        for _, tag in colour:
            if tag == _DONE:
                done += 1
    return (-o[0], done - len(o[1][1]))


def _by_signature(plans: list[_Plan]) -> list[tuple[int, int, int, list[_Plan]]]:
    """Plans grouped by (runs after the number as the tile search counts them, real tiles,
    jokers), in the order first met; plans with more runs than it tracks are left out."""
    index: dict[tuple[int, int, int], list[_Plan]] = {}
    for p in plans:
        if p.code >= 0:
            index.setdefault((p.code, p.reals, p.jokers), []).append(p)
    return [(code, reals, jokers, group) for (code, reals, jokers), group in index.items()]


def _ledger(old: list[int], new: list[int]) -> int:
    """Most jokers kept pairing unpaired old and new sets that hold jokers."""
    if not old or not new:
        return 0
    best = 0
    first = old[0]
    rest = old[1:]
    best = _ledger(rest, new)
    for k in range(len(new)):
        v = min(first, new[k]) + _ledger(rest, new[:k] + new[k + 1 :])
        if v > best:
            best = v
    return best


def _partitions(counts: tuple[int, int, int, int], jokers: int) -> list[list[tuple[int, int]]]:
    """Every way (up to order) to split real tiles of one number (per colour) and jokers
    into groups: 3 or 4 tiles, distinct colours, at least one real; each as (colours mask,
    jokers)."""
    got = _PARTS.get((counts, jokers))
    return got if got is not None else _parts(counts, jokers)


_PARTS: dict[tuple[tuple[int, int, int, int], int], list[list[tuple[int, int]]]] = {}


def _parts(counts: tuple[int, int, int, int], jokers: int) -> list[list[tuple[int, int]]]:
    key = (counts, jokers)
    if sum(counts) == 0:
        out: list[list[tuple[int, int]]] = [[]] if jokers == 0 else []
        _PARTS[key] = out
        return out
    first = next(c for c in range(4) if counts[c])
    others = [c for c in range(first + 1, 4) if counts[c]]
    found: set[tuple[tuple[int, int], ...]] = set()
    out = []
    for mask in range(1 << len(others)):
        cols = [first] + [others[i] for i in range(len(others)) if mask >> i & 1]
        for jk in range(min(jokers, 4 - len(cols)) + 1):
            if len(cols) + jk < 3:
                continue
            rest = list(counts)
            gmask = 0
            for c in cols:
                rest[c] -= 1
                gmask |= 1 << c
            for sub in _parts((rest[0], rest[1], rest[2], rest[3]), jokers - jk):
                whole = tuple(sorted([(gmask, jk), *sub]))
                if whole not in found:
                    found.add(whole)
                    out.append(list(whole))
    _PARTS[key] = out
    return out


_EMPTY: State = (((), (), (), ()), (), (), (), 0)

# whether real tiles of one number (0..2 per colour: two copies of each tile) and jokers
# (0..2) split into groups, indexed as in :meth:`_Kept._group_counts`
_CAN_GROUP: Final = [
    bool(_partitions((g0, g1, g2, g3), gj))
    for g0 in range(3)
    for g1 in range(3)
    for g2 in range(3)
    for g3 in range(3)
    for gj in range(3)
]


class KeptSearch:
    """:func:`most_kept` as a search that can be stopped and resumed (:meth:`run` with a
    budget of work; what it proved stays in its memo, so resuming loses only the way back
    to where it stopped)."""

    def __init__(
        self,
        old: list[list[int]],
        tcount: list[int],
        rack: Sequence[int],
        oracle: Search,
        target: int,
        known: int,
        make_kept: Callable[[], Search] | None = None,
        kept_w: int = 1,
        kept_joker_w: int = 0,
        kept_after: int = _KEPT_AFTER,
        make_without: Callable[[int], Search] | None = None,
        make_split: Callable[[Search], Search] | None = None,
    ) -> None:
        self._k = _Kept(
            old,
            list(tcount),
            list(rack),
            oracle,
            make_kept,
            kept_w,
            kept_joker_w,
            kept_after,
            make_without,
            make_split,
        )
        self.target = target
        self.known = known
        # First only plays that lose no tile, then at most one, then two (a pass prunes a
        # branch as soon as it has lost more, and its bounds stay in the memo): on crowded
        # tables the fewest is often 0 to 2, and the search from the known play would wander
        # into branches losing more first (the third pass: dense 4% less work, normal the
        # same). Then the search for anything better than the known play.
        total = sum(map(len, old))
        self._first = [total - 1, total - 2, total - 3]
        # what is known of the answer: no play keeps more than ``upper`` (proved by a pass
        # that failed, here or — :meth:`learn` — in a search of the same instance), and one
        # keeps ``lower`` (the known play, or one found since)
        self.upper = total
        self.lower = known
        # passes still to ask first for the most no pass has ruled out (set when a bound is
        # learnt from the linear relaxation, which is most often the answer itself)
        self.deepen = 0
        self.done = False
        self.result: tuple[int, list[list[int]], bool] | None = None

    def learn(self, upper: int, lower: int) -> None:
        """Take what a search of the same instance proved (no play keeps more than
        ``upper``) and found (a play keeping ``lower``): passes above ``upper`` are
        skipped, and the last one looks only for plays keeping more than ``lower``. Then
        ``result`` ``None`` means none keeps more than ``lower``."""
        if upper < self.upper:
            self.upper = upper
            self._k.stop_at = upper
        if lower > self.lower:
            self.lower = lower

    def found(self) -> int:
        """The most tiles kept by a whole play this search has found (or ``known``)."""
        inc = self._k.incumbent
        return inc if inc > self.known else self.known

    def run(self, budget: int | None) -> bool:
        """Search on for about ``budget`` more work (``None``: to the end); True when done
        (then ``result`` is the answer: ``None`` if nothing keeps more than ``lower``)."""
        if self.done:
            return True
        k = self._k
        k.budget = 0 if budget is None else k.work + max(budget, 1)
        k.path = []
        k.probing = 0
        try:
            while self.lower < self.upper:
                floor = self.lower
                deep = self.deepen > 0 and self.upper - 1 > self.lower
                if deep:
                    floor = self.upper - 1
                for f in self._first:
                    if floor < f < self.upper:
                        floor = f
                        break
                # asking freed states first pays when proving many plays lose more than the
                # best found (measured: 120 normal, p99 0.61 -> 0.39 s), not in the first
                # passes, which look for plays losing at most one tile (dense: 7% slower)
                k.ask_freed = floor == self.lower
                best = k.best(1, _EMPTY, self.target, floor)
                if best > floor:
                    self.result = (best, k.rebuild(_EMPTY, self.target), True)
                    break
                self.upper = floor
                k.stop_at = floor
                if deep:
                    self.deepen -= 1
        except OutOfWork:
            return False
        except _Reached:
            self.result = (k.incumbent, k.rebuild(_EMPTY, self.target), True)
        self.done = True
        return True

    def incumbent(self) -> tuple[int, list[list[int]], bool] | None:
        """The best whole play this search has found keeping more than ``known`` (not
        proven the most: False), or ``None``."""
        k = self._k
        if k.incumbent > self.known:
            return k.incumbent, k.rebuild(_EMPTY, self.target), False
        return None

    def best_found(self) -> tuple[int, list[list[int]], bool] | None:
        """The answer when done; else the best whole play found so far keeping more than
        ``known`` (not proven the most: False), or ``None``."""
        if self.done:
            return self.result
        k = self._k
        if k.incumbent > self.known:
            return k.incumbent, k.rebuild(_EMPTY, self.target), False
        return None


def most_kept(
    old: list[list[int]],
    tcount: list[int],
    rack: Sequence[int],
    oracle: Search,
    target: int,
    known: int,
    budget: int | None = None,
) -> tuple[int, list[list[int]], bool] | None:
    """The most old tiles kept (see the module docstring) on a play scoring ``target`` in
    ``oracle``'s units, its table and True, if more than ``known``; else ``None``.
    ``budget``: stop after that much work (nodes, checks and outcomes — a count, not the
    clock, so the answer is the same on every machine) and return the best play found
    so far keeping more than ``known``, with False (not proven the most), or raise
    :class:`OutOfWork` if none."""
    search = KeptSearch(old, tcount, rack, oracle, target, known)
    if search.run(budget):
        return search.result
    found = search.best_found()
    if found is None:
        raise OutOfWork
    return found
