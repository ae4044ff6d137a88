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
        self.play = solve(table, rack)
        self.placeable = _placeable(self.tcount, self.rcount)
        self.level = _COUNT_W * len(self.play.placed) + self.play.value
        self.total = sum(map(len, table))
        self.first = [*self.play.table, *table]

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
    dived = 0
    for p in _positions(40, "lp-c"):
        meanings = [joker_meanings(s) for s in p.first]
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
        )
        py = p.model().solve(p.first, meanings, 20000)
        assert c == (py.bound, py.value, py.play, py.pivots, py.rounds)
        assert py.bound is not None and py.pivots > 0
        dived += py.play is not None and py.rounds > 1
    assert dived >= 10


def test_pricing_finds_the_best_set_for_any_duals() -> None:
    # The bound holds only if pricing sees every set: against random duals, every run (each
    # span, its jokers anywhere), every group, alone or continuing each old set it can keep
    # a tile of, crediting each count of its jokers, priced here one by one — none above
    # what pricing says is the most, and that most is met.
    rng = random.Random("pricing")
    checked = 0
    for p in _positions(6, "pricing")[:14]:
        model = p.model()
        for _ in range(3):
            y = [rng.uniform(-1.5, 1.5) for _ in range(model.m)]
            top, count, found = model.price(y)
            best, listed = _brute_force_top(model, y)
            assert best <= top + 1e-9
            assert best >= top - 1e-9
            assert listed >= count
            if found:
                assert found[0][0] == pytest.approx(top)
            checked += 1
    assert checked >= 30


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
        for i in pairs:
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
    # a play read off its solution (as the solver checks it) is a real play, never keeping
    # more than the most, and where it keeps the bound it keeps the most.
    data = json.loads(MOVED_FILE.read_text())["classes"][kind]
    answers = data["answers"]
    insts = ref.instances(kind, len(answers), 1)
    assert ref.digest(insts) == data["digest"]
    asked = tight = proven = 0
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
        checked = _KeptLP(
            table, p.tcount, p.rcount, p.placeable, p.play.table, p.play.placed, p.play.value
        )()
        assert checked is not None and checked[0] == res.bound
        if checked[1] is not None:
            kept, play = checked[1]
            assert all(check_set(s).valid for s in play)
            assert kept == p.total - moved_count(table, play) <= most
            proven += kept == res.bound
    assert asked >= (400 if kind == "normal" else 90)
    assert tight >= 0.7 * asked
    assert proven >= 0.5 * asked


def test_the_relaxation_gives_up_soundly_when_out_of_pivots() -> None:
    p = _positions(3, "limit")[0]
    res = kept_lp(
        p.table, p.tcount, p.placeable, p.rcount[JOKER], _COUNT_W, p.level, p.play.table, 5
    )
    assert res.bound is None and res.play is None and res.pivots <= 5
