"""The linear relaxation of the fewest-moved problem (``_solver_lp``): the C and Python
versions alike, its pricing exact, its bound never below the fewest the integer program
proved and exact on most instances, its plays real plays."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
import tile_solver_ref as ref

from gameshack.rules.tiles import _solver_lp
from gameshack.rules.tiles._solver_lp import _Model, joker_meanings, kept_lp
from gameshack.rules.tiles.sets import check_set
from gameshack.rules.tiles.solver import _COUNT_W, _KeptLP, _placeable, moved_count, solve
from gameshack.rules.tiles.tiles import JOKER

MOVED_FILE = Path(__file__).with_name("tile_solver_moved.json")


class _Position:
    """A position, its default play and what the relaxation is asked with."""

    def __init__(self, table: list[list[int]], rack: list[int]) -> None:
        self.table = table
        self.rack = rack
        self.tcount = [0] * 53
        self.rcount = [0] * 53
        for s in table:
            for f in s:
                self.tcount[f] += 1
        for f in rack:
            self.rcount[f] += 1
        self.play = solve(table, rack, exact_moved=False)  # the play the solver asks it from
        self.placeable = _placeable(self.tcount, self.rcount)
        self.level = _COUNT_W * len(self.play.placed) + self.play.value
        self.total = sum(map(len, table))
        self.first = [*self.play.table, *table]

    def kept(self) -> _KeptLP:
        """The solver's relaxation of the position (``_KeptLP``), from its fast play."""
        return _KeptLP(
            self.table,
            self.tcount,
            self.rcount,
            self.placeable,
            self.play.table,
            self.play.placed,
            self.play.value,
            self.total - self.play.moved,
        )

    def model(self) -> _Model:
        return _Model(
            self.table, self.tcount, self.placeable, self.rcount[JOKER], _COUNT_W, self.level
        )


def _positions(count: int, seed: str) -> list[_Position]:
    """Stored normal and dense instances and small random ones (jokers often), each with
    something placed."""
    out = [_Position(t, r) for t, r in ref.instances("normal", count, 1)]
    out += [_Position(t, r) for t, r in ref.instances("dense", count // 3, 1)]
    rng = random.Random(seed)
    for _ in range(count):
        out.append(_Position(*ref.random_instance(rng, (9, 30), (4, 12))))
    return [p for p in out if p.play.placed]


@pytest.mark.skipif(_solver_lp._lp_engine is None, reason="the C relaxation is not built")
def test_the_c_relaxation_solves_exactly_as_the_python_one() -> None:
    # The same pivots, bound, value and play (a dive included): both make the same
    # floating-point operations in the same order, so the solver's answer never depends
    # on which one ran.
    engine = _solver_lp._lp_engine
    assert engine is not None
    dived = branched = sided = redived = lowered = perturbed = 0
    # normal 204: every plain dive fails, and the last one takes another set at a step;
    # normal 426: the first dive's play is 4 below the bound, so it dives again; dense 19:
    # a dive's primal simplex stalls on the true right-hand sides, which are perturbed
    normal = ref.instances("normal", 427, 1)
    dense = ref.instances("dense", 20, 1)
    extra = [_Position(*normal[204]), _Position(*normal[426]), _Position(*dense[19])]
    for p in [*_positions(40, "lp-c"), *extra]:
        meanings = [joker_meanings(s) for s in p.first]
        known = p.total - p.play.moved
        c = engine.kept_lp(
            p.table,
            p.tcount,
            p.placeable,
            p.rcount[JOKER],
            _COUNT_W,
            p.level,
            p.first,
            meanings,
            20000,
            known,
        )
        model = p.model()
        py = model.solve(p.first, meanings, 20000, known)
        assert c == (py.bound, py.value, py.play, py.pivots, py.rounds, py.nodes)
        assert py.bound is not None and py.pivots > 0
        dived += py.play is not None and py.rounds > 1
        branched += py.nodes > 1
        sided += model.sided > 0
        redived += model.redived > 0
        lowered += model.lowered > 0
        perturbed += model.perturbed > 0
    # (normal 19 and 31: a dive raises an artificial the first phase left in the basis)
    assert dived >= 10 and branched >= 5 and sided >= 1 and redived >= 1 and lowered >= 1
    assert perturbed >= 1


def test_the_faces_every_play_places_are_those_the_integer_program_cannot_do_without() -> None:
    """``_KeptLP`` asks the relaxation again with the rack faces every play of the level
    places (without one copy of the face, the tile search finds no play of the level): the
    ILP, without that copy, places fewer tiles or less value exactly for those faces. On
    normal 478 the relaxation alone places parts of tiles (B10 at 0.27) and stands at 27;
    with those faces placed as the table's, its branch and bound proves the answer, 23 (it
    stood at 24 while the dual simplex left an artificial at -1 in the basis: a "play" that
    used a K9 the table does not have)."""
    answers = json.loads(MOVED_FILE.read_text())["classes"]["normal"]["answers"]
    normal = ref.instances("normal", 479, 1)
    for i in (478, 356, 361, 99, 3):
        p = _Position(*normal[i])
        known = p.total - p.play.moved
        lp = p.kept()
        must = lp._must_place()
        level = (len(p.play.placed), p.play.value)
        best = ref.reference_solve(p.table, p.rack)
        assert (best.placed, best.value) == level
        without = []
        for f in sorted(set(p.rack) - {JOKER}):
            fewer = list(p.rack)
            fewer.remove(f)
            got = ref.reference_solve(p.table, fewer)
            if (got.placed, got.value) < level:
                without.append(f)
        assert must == without, i
        asked = lp()
        assert asked is not None
        most = p.total - answers[i][0]  # the most tiles kept, by the ILP
        assert asked[0] >= most  # a bound
        if i == 478:
            alone = kept_lp(
                p.table,
                p.tcount,
                p.placeable,
                p.rcount[JOKER],
                _COUNT_W,
                p.level,
                p.play.table,
                known_kept=known,
            )
            assert alone.bound == 27 and asked[0] == most == 23


def test_pricing_finds_the_best_set_for_any_duals() -> None:
    # The bound holds only if pricing sees every set: against random duals, every run (each
    # span, its jokers anywhere), every group, alone or continuing each old set it can keep
    # a tile of, crediting each count of its jokers, priced here one by one — none above
    # what pricing says is the most, and that most is met when above zero (a block of sets
    # whose bound is at most zero is only counted, and the most is then at least that
    # bound). The same under a branch of the branch and bound (old sets whose continuation
    # must hold some faces, must not hold others, holds so many jokers), and the sets
    # pricing builds are the ones it priced.
    rng = random.Random("pricing")
    checked = branched = 0
    for p in _positions(6, "pricing")[:14]:
        model = p.model()
        for trial in range(6):
            if trial >= 3 and model.nold:
                _random_branch(model, p.table, rng)
                branched += 1
            y = [rng.uniform(-1.5, 1.5) for _ in range(model.m)]
            top, count, found = model.price(y)
            best, listed = _brute_force_top(model, y)
            assert best <= top + 1e-9
            if top > 0.0:  # (at most zero, it may be a bound on sets not priced one by one)
                assert best >= top - 1e-9
            assert listed >= count
            if found:
                assert found[0][0] == pytest.approx(top)
            for entry in found:
                tiles = model.entry_tiles(entry, y)
                assert check_set(tiles).valid
                old = entry[6]
                k = len(model.cost)
                model.add_set(tiles, old, entry[7], model.entry_credit(entry, tiles))
                if len(model.cost) > k:  # (not there already)
                    assert model.reduced(k, y, False) == pytest.approx(entry[0])
                if old >= 0:
                    reals = model.reals[k] if len(model.cost) > k else _reals(tiles)
                    assert reals & model.need[old] == model.need[old]
                    assert not reals & model.ban[old]
                    jokers = tiles.count(JOKER)
                    assert model.jokers_lo[old] <= jokers <= model.jokers_hi[old]
            checked += 1
    assert checked >= 60 and branched >= 30


def _reals(tiles: list[int]) -> int:
    mask = 0
    for f in tiles:
        if f != JOKER:
            mask |= 1 << f
    return mask


def _random_branch(model: _Model, table: list[list[int]], rng: random.Random) -> None:
    """A branch as the branch and bound makes them: per old set at random, faces its
    continuation must hold (some of its own), faces it must not, joker counts."""
    for i, s in enumerate(table):
        model.need[i] = model.ban[i] = 0
        model.jokers_lo[i], model.jokers_hi[i] = 0, 2
        roll = rng.random()
        reals = [f for f in s if f != JOKER]
        if roll < 0.3 and reals:
            for f in rng.sample(reals, rng.randint(1, min(2, len(reals)))):
                model.need[i] |= 1 << f
        elif roll < 0.6:
            for f in rng.sample(range(52), 3):
                model.ban[i] |= 1 << f
        elif roll < 0.75:
            model.jokers_lo[i] = rng.randint(0, 2)
            model.jokers_hi[i] = rng.randint(model.jokers_lo[i], 2)


def _brute_force_top(model: _Model, y: list[float]) -> tuple[float, int]:
    """The highest reduced cost of any set column against ``y``, each arrangement apart."""
    best = -1e300
    listed = 0
    rj = model.rack_jokers
    mu, nu = model.credit_duals(y)
    jw = -y[model.joker_row] if model.joker_row >= 0 else 0.0

    def columns(reals: list[int], meanings: list[int], run_colour: int, number: int) -> None:
        nonlocal best, listed
        k = len(meanings)
        pairs = [-1]
        for i in range(model.nold):
            if (
                model.old_jokers[i]
                or (run_colour >= 0 and model.old_reals[i] >> (13 * run_colour) & 0x1FFF)
                or (
                    number > 0
                    and any(model.old_reals[i] >> (c * 13 + number - 1) & 1 for c in range(4))
                )
            ):
                pairs.append(i)
        base = 0.0
        for f in reals:
            base -= y[model.face_row[f]]
        base += k * jw
        mask = 0
        for f in reals:
            mask |= 1 << f
        for i in pairs:
            if i >= 0 and (
                mask & model.need[i] != model.need[i]
                or mask & model.ban[i]
                or not model.jokers_lo[i] <= k <= model.jokers_hi[i]
            ):
                continue  # barred by the branch
            kept = 0.0
            if i >= 0:
                kept = sum(1.0 for f in reals if model.old_reals[i] >> f & 1)
                kept += min(k, model.old_jokers[i]) - y[model.slot_row[i]]
            top_meanings = sorted(meanings, reverse=True)
            for cc in range(min(k, rj) + 1):
                v = base + kept
                if cc:
                    v += mu * sum(top_meanings[:cc]) - nu * cc
                best = max(best, v)
                listed += 1

    for c in range(4):
        for a in range(1, 12):
            for b in range(a + 2, 14):
                span = list(range(a, b + 1))
                for mask in range(1 << len(span)):
                    jokers = [n for j, n in enumerate(span) if mask >> j & 1]
                    if len(jokers) > model.max_jokers:
                        continue
                    reals = [c * 13 + n - 1 for n in span if n not in jokers]
                    if all(model.avail[f] for f in reals):
                        columns(reals, jokers, c, 0)
    for n in range(1, 14):
        for sub in range(1, 16):
            reals = [c * 13 + n - 1 for c in range(4) if sub >> c & 1]
            if not all(model.avail[f] for f in reals):
                continue
            for k in range(model.max_jokers + 1):
                if 3 <= len(reals) + k <= 4:
                    columns(reals, [n] * k, -1, n)
    return best, listed


@pytest.mark.parametrize("kind", ["normal", "dense"])
def test_the_bound_never_falls_below_the_fewest_moved_and_meets_it_on_most(kind: str) -> None:
    # Against the integer program's fewest moved (stored: it takes seconds per instance):
    # the relaxation's bound is never below the most tiles kept (else the exact search
    # would stop early with a worse play), and it is the most itself on most instances;
    # with the branch and bound (asked as the solver asks it: with the known play's tiles
    # kept) its bound is never below the most either, and it proves the most on more; a
    # play read off a solution (as the solver checks it) is a real play, never keeping
    # more than the most, and where it keeps the bound it keeps the most.
    data = json.loads(MOVED_FILE.read_text())["classes"][kind]
    answers = data["answers"]
    insts = ref.instances(kind, len(answers), 1)
    assert ref.digest(insts) == data["digest"]
    asked = tight = proven = branched = 0
    for (table, rack), (fewest, lower) in zip(insts, answers, strict=True):
        p = _Position(table, rack)
        if fewest != lower or not p.play.placed or not p.play.moved:
            continue  # the ILP did not finish; nothing to move
        most = p.total - fewest
        res = kept_lp(
            table, p.tcount, p.placeable, p.rcount[JOKER], _COUNT_W, p.level, p.play.table
        )
        assert res.bound is not None
        assert res.bound >= most
        assert res.value >= most - 1e-6
        asked += 1
        tight += res.bound == most
        checked = p.kept()()
        assert checked is not None and most <= checked[0] <= res.bound
        branched += checked[0] < res.bound
        if checked[1] is not None:
            kept, play = checked[1]
            assert all(check_set(s).valid for s in play)
            assert kept == p.total - moved_count(table, play) <= most
            proven += kept == checked[0]
        else:
            proven += checked[0] == p.total - p.play.moved
    assert asked >= (400 if kind == "normal" else 90)
    assert tight >= 0.7 * asked
    assert proven >= (0.85 if kind == "normal" else 0.8) * asked
    assert kind == "dense" or branched >= 40


def test_the_relaxation_gives_up_soundly_when_out_of_pivots() -> None:
    p = _positions(3, "limit")[0]
    res = kept_lp(
        p.table, p.tcount, p.placeable, p.rcount[JOKER], _COUNT_W, p.level, p.play.table, 5
    )
    assert res.bound is None and res.play is None and res.pivots <= 5
