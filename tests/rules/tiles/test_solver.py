"""The Tile Rummy solver: hand-made positions with a known optimum, the initial-meld threshold,
properties of every answer, and agreement with an independent integer program (HiGHS) on
tiles and value (exact) and on table tiles moved (never fewer than its proven fewest; as few
on most instances)."""

from __future__ import annotations

import gc
import json
import random
import time
from collections import Counter
from itertools import permutations
from pathlib import Path

import pytest
import tile_solver_ref as ref
from hypothesis import given, settings
from hypothesis import strategies as st

from gameshack.rules.common import MalformedAction
from gameshack.rules.tiles.sets import check_set
from gameshack.rules.tiles.tiles import COLORS, JOKER, NUM_TILES, faces_str, parse_faces
from gameshack.rules.tiles_solver import Solution, moved_count, setrules, solve
from gameshack.rules.tiles_solver import search as search_module
from gameshack.rules.tiles_solver.api import _old_sets, _roles
from gameshack.rules.tiles_solver.moved import _max_assignment, _moved_count_multisets
from gameshack.rules.tiles_solver.rearrange import keep_sets
from gameshack.rules.tiles_solver.search import Search

REFERENCE_FILE = Path(__file__).with_name("tile_solver_reference.json")
MOVED_FILE = Path(__file__).with_name("tile_solver_moved.json")


def table_of(text: str) -> list[list[int]]:
    return [parse_faces(part) for part in text.split("|") if part.strip()]


def sets_str(sol: Solution) -> set[str]:
    return {faces_str(s) for s in sol.table}


def assert_sound(table: list[list[int]], rack: list[int], sol: Solution) -> None:
    """Every set valid, every table tile still there, the rest came from the rack."""
    for s in sol.table:
        assert check_set(s).valid, faces_str(s)
    before = Counter(f for s in table for f in s)
    after = Counter(f for s in sol.table for f in s)
    assert not before - after, f"table tiles lost: {before - after}"
    assert after - before == Counter(sol.placed)
    assert not Counter(sol.placed) - Counter(rack), "placed a tile the rack does not have"


def copies(table: list[list[int]], rack: list[int]) -> tuple[list[int], list[int]]:
    """Copies per face (0..52) on the table and in the rack."""
    tcount = [0] * 53
    rcount = [0] * 53
    for f in [f for s in table for f in s]:
        tcount[f] += 1
    for f in rack:
        rcount[f] += 1
    return tcount, rcount


# ------------------------------------------------------------------ hand-made positions


def test_frees_a_joker_from_the_table_and_reuses_it() -> None:
    # R7 takes the joker's place; the freed joker completes K2 K3.
    table = table_of("R5 R6 JK")
    rack = parse_faces("R7 K2 K3")
    sol = solve(table, rack)
    assert_sound(table, rack, sol)
    assert sorted(sol.placed) == sorted(rack)
    assert sets_str(sol) == {"R5 R6 R7", "K2 K3 JK"}
    assert sol.value == 7 + 2 + 3
    assert sol.moved == 1  # only the joker left its set


def test_splits_a_run_to_insert_a_tile() -> None:
    table = table_of("B1 B2 B3 B4 B5 B6")
    rack = parse_faces("B4")
    sol = solve(table, rack)
    assert_sound(table, rack, sol)
    assert sol.placed == parse_faces("B4")
    assert sets_str(sol) == {"B1 B2 B3 B4", "B4 B5 B6"}
    assert sol.moved == 2  # B5 and B6 follow the new B4; B1-B4 stay


def test_makes_a_group_of_four_from_a_group_of_three() -> None:
    table = table_of("R8 B8 Y8 | K1 K2 K3")
    rack = parse_faces("K8 R13")
    sol = solve(table, rack)
    assert_sound(table, rack, sol)
    assert sol.placed == parse_faces("K8")
    assert sets_str(sol) == {"R8 B8 Y8 K8", "K1 K2 K3"}
    assert (sol.value, sol.moved) == (8, 0)


def test_nothing_playable_leaves_the_table_alone() -> None:
    table = table_of("R1 R2 R3 | B5 JK B7")
    rack = parse_faces("K7 B11 Y4 R5")
    sol = solve(table, rack)
    assert not sol.found
    assert sol.placed == [] and sol.value == 0 and sol.moved == 0
    assert sol.table == table


def test_rack_joker_is_credited_with_the_highest_meaning() -> None:
    # R4 frees the table joker; B2 needs both jokers (B2 B3 B4): the rack's joker counts as
    # the higher of the two meanings, B4.
    table = table_of("R3 JK R5 | K9 K10 K11")
    rack = parse_faces("R4 JK B2")
    sol = solve(table, rack)
    assert_sound(table, rack, sol)
    assert len(sol.placed) == 3
    assert sol.value == 4 + 2 + 4


def test_prefers_more_tiles_over_more_value() -> None:
    # K12 K13 fit only as a pair with the joker; B2 alone also fits. Both can't: one joker.
    table = table_of("B3 B4 B5 | R11 JK R13")
    rack = parse_faces("R12 K12 K13 B2")
    sol = solve(table, rack)
    assert_sound(table, rack, sol)
    assert len(sol.placed) == 4  # R12 frees the joker, K12 K13 JK, B2 B3 B4 B5
    assert sol.value == 12 + 12 + 13 + 2


def test_prefers_higher_value_among_equal_tile_counts() -> None:
    # One joker, rack R1 or K13 could use it with the table's tiles: the 13 is worth more.
    table = table_of("K11 K12 JK")
    rack = parse_faces("K13")
    sol = solve(table, rack)
    assert_sound(table, rack, sol)
    assert sol.placed == parse_faces("K13")
    assert sol.value == 13


def test_does_not_reshuffle_the_table_for_nothing() -> None:
    # R4 can go at the end of R1 R2 R3; nothing else needs to move.
    table = table_of("R1 R2 R3 | R5 B5 Y5 | K7 K8 K9 | B9 Y9 R9")
    rack = parse_faces("R4")
    sol = solve(table, rack)
    assert_sound(table, rack, sol)
    assert sol.moved == 0
    assert "R1 R2 R3 R4" in sets_str(sol)


def test_notation_and_faces_are_both_accepted() -> None:
    a = solve([["R1", "R2", "R3"]], ["R4"])
    b = solve([parse_faces("R1 R2 R3")], parse_faces("R4"))
    assert a == b


@pytest.mark.parametrize(
    ("table", "rack", "code"),
    [
        ([["R1", "R2"]], ["R3"], "bad_set"),
        ([["R1", "R2", "R3"]], ["X9"], "bad_tile"),
        ([["R1", "R2", "R3"], ["R1", "B1", "Y1"]], ["R1"], "too_many_copies"),
        ([["JK", "R2", "R3"]], ["JK", "JK"], "too_many_copies"),
    ],
)
def test_bad_input_is_refused_clearly(table: list[list[str]], rack: list[str], code: str) -> None:
    with pytest.raises(MalformedAction) as err:
        solve(table, rack)
    assert err.value.code == code


# ------------------------------------------------------------------ initial meld


def test_initial_meld_of_exactly_30_counts() -> None:
    sol = solve(table_of("K1 K2 K3"), parse_faces("R9 R10 R11 B2"), initial_meld=True)
    assert sol.found and sol.value == 30
    assert sorted(sol.placed) == sorted(parse_faces("R9 R10 R11"))
    assert sol.table[0] == parse_faces("K1 K2 K3")  # the table is not touched


def test_initial_meld_of_29_is_not_enough() -> None:
    # the best split is 20 + 9 = 29 either way (R5 B5 Y5 K5 + R2 R3 R4, or R2-R5 + B5 Y5 K5)
    sol = solve([], parse_faces("R5 B5 Y5 K5 R2 R3 R4 K1"), initial_meld=True)
    assert not sol.found
    assert sol.placed == [] and sol.value == 0


def test_initial_meld_joker_counts_as_what_it_stands_for() -> None:
    sol = solve([], parse_faces("R9 R10 JK"), initial_meld=True)  # R9 R10 R11 = 30
    assert sol.found and sol.value == 30
    assert faces_str(sol.table[0]) == "R9 R10 JK"
    two = solve([], parse_faces("JK JK R9"), initial_meld=True)  # R9 R10 R11 = 30
    assert two.found and two.value == 30
    short = solve([], parse_faces("R8 R9 JK"), initial_meld=True)  # at best 8+9+10 = 27
    assert not short.found


def test_initial_meld_maximises_value() -> None:
    # one R13: R11 R12 R13 (36) or R13 B13 Y13 (39), each with R1 R2 R3 (6)
    sol = solve([], parse_faces("R11 R12 R13 B13 Y13 R1 R2 R3"), initial_meld=True)
    assert sol.found and sol.value == 45
    assert "R13 B13 Y13" in {faces_str(sorted(s)) for s in sol.table}


# ------------------------------------------------------------------ properties


@st.composite
def positions(draw: st.DrawFn) -> tuple[list[list[int]], list[int]]:
    seed = draw(st.integers(0, 2**32 - 1))
    size = draw(st.sampled_from([(3, 20), (20, 45), (45, 70)]))
    return ref.random_instance(random.Random(seed), size, (1, 16))


@settings(max_examples=150, deadline=None)
@given(positions())
def test_every_answer_is_valid_and_keeps_every_table_tile(
    pos: tuple[list[list[int]], list[int]],
) -> None:
    table, rack = pos
    sol = solve(table, rack)
    assert_sound(table, rack, sol)
    assert sol.found == bool(sol.placed)
    assert 0 <= sol.moved <= sum(len(s) for s in table)
    assert sol.moved == moved_count(table, sol.table)
    meld = solve(table, rack, initial_meld=True)
    assert_sound(table, rack, meld)
    assert meld.table[: len(table)] == table  # an initial meld never touches the table
    assert not meld.found or meld.value >= 30


def test_moved_pairs_each_old_set_with_its_best_continuation() -> None:
    old = table_of("R1 R2 R3 R4 R5 R6 | B7 Y7 K7")
    assert moved_count(old, old) == 0
    assert moved_count(old, table_of("R1 R2 R3 R4 | R4 R5 R6 | B7 Y7 K7 R7")) == 2
    assert moved_count(old, table_of("R1 R2 R3 | R4 R5 R6 R7 | B7 Y7 K7")) == 3


_a_set = st.tuples(
    st.lists(st.integers(0, 11), min_size=1, max_size=5, unique=True), st.integers(0, 2)
).map(lambda s: [*s[0], *[JOKER] * s[1]])  # few faces: old and new sets share many


@settings(max_examples=300, deadline=None)
@given(st.lists(_a_set, max_size=7), st.lists(_a_set, max_size=8))
def test_moved_count_by_bit_masks_is_the_count_by_copies(
    old: list[list[int]], new: list[list[int]]
) -> None:
    """The moved count read off masks of faces is the one counting copies (which sets
    holding a face twice, only invalid ones, still get)."""
    assert moved_count(old, new) == _moved_count_multisets(old, new)
    twice = [[*s, s[0]] for s in old]
    assert moved_count(twice, new) == _moved_count_multisets(twice, new)


@settings(max_examples=300, deadline=None)
@given(
    st.integers(1, 6).flatmap(
        lambda cols: st.lists(
            st.lists(st.sampled_from([0, 0, 0, 1, 2, 3, 5]), min_size=cols, max_size=cols),
            min_size=1,
            max_size=6,
        )
    )
)
def test_max_assignment_is_the_best_matching(weights: list[list[int]]) -> None:
    """Old sets (rows) paired with new sets (columns), each at most once: the most kept, as
    by trying every pairing (the Hungarian method where rows want the same column)."""
    rows, cols = len(weights), len(weights[0])
    best = 0
    for perm in permutations(range(max(rows, cols)), rows):
        best = max(best, sum(weights[i][j] for i, j in enumerate(perm) if j < cols))
    assert _max_assignment(weights) == best


def test_the_set_rules_are_the_engines() -> None:
    """The solver's set rules (:mod:`.setrules`) are the ones the engine judges sets by."""
    r = setrules
    assert r.JOKER == JOKER and len(COLORS) == r.COLOURS
    assert NUM_TILES == r.COLOURS * r.NUMBERS * r.COPIES + r.JOKERS
    assert check_set(parse_faces("R1 R2 R3")).valid and r.RUN_MIN == 3
    assert not check_set(parse_faces("R1 R2")).valid
    run = list(range(r.NUMBERS))  # R1 .. R13
    assert check_set(run).valid and not check_set([*run, JOKER]).valid  # 1..13, no wrap
    assert check_set(parse_faces("R5 B5 Y5 K5")).valid and r.GROUP_MAX == r.COLOURS == 4
    assert not check_set(parse_faces("R5 B5 Y5 K5 JK")).valid
    assert not check_set(parse_faces("R5 B5 R5")).valid  # distinct colours
    assert check_set(parse_faces("R5 B5 JK")).valid and r.GROUP_MIN == 3
    assert not check_set(parse_faces("R5 B5")).valid


def _searches(table: list[list[int]], rack: list[int], kept: bool) -> tuple[Search, Search]:
    """Two searches for the same instance, the second with the Python node function
    (``native=False``): scoring tiles and value, and with ``kept`` the kept estimate too."""
    old = [list(s) for s in table]
    runs = [check_set(s).kind == "run" for s in old]
    tcount, rcount = copies(old, rack)
    tj = tcount[JOKER]
    args = (tcount[:52], rcount[:52], tj, rcount[JOKER], 2048 * 128, 128)
    floor = sum(tcount) * 2048 * 128 - 1
    roles = _roles(old, runs)
    old_sets = _old_sets(old, runs) if kept else None
    return (
        Search(*args, floor, roles, old_sets),
        Search(*args, floor, roles, old_sets, native=False),
    )


@pytest.mark.skipif(search_module._dp_engine is None, reason="the C node function is not built")
def test_the_c_node_function_searches_exactly_as_the_python_one() -> None:
    # Same nodes, same answers, same bounds from any state asked afterwards
    for kind in ("normal", "dense"):
        for table, rack in ref.instances(kind, 25, 3):
            for kept in (False, True):
                c, py = _searches(table, rack, kept)
                assert c.engine is not None and py.engine is None
                assert c.run() == py.run()
                assert c.nodes == py.nodes > 0
                for n in (3, 9):
                    for need in (0, 10**6):
                        assert c.f(n, 0, need) == py.f(n, 0, need)


def test_the_c_node_function_refuses_tables_of_another_shape() -> None:
    engine = search_module._dp_engine
    if engine is None:
        pytest.skip("the C node function is not built")
    with pytest.raises(ValueError, match="shape"):
        engine.setup_tables(setrules.TRANS_CAP[:-1], setrules.DEFICIT, setrules.MUST, [])
    engine.setup_tables(setrules.TRANS_CAP, setrules.DEFICIT, setrules.MUST, setrules.SPREAD)


def _objective(kind: str, table: list[list[int]], rack: list[int]) -> tuple[int, int]:
    sol = solve(table, rack, initial_meld=kind == "initial")
    assert_sound(table, rack, sol)
    return (len(sol.placed), sol.value) if sol.found else (0, 0)


@pytest.mark.parametrize("kind", ["normal", "dense", "initial"])
def test_agrees_with_the_integer_program_on_500_instances(kind: str) -> None:
    """Same objective (tiles placed, value) as the ILP on every instance of the class.

    The ILP's answers are stored (``bench/tile_solver.py --write-reference``) because solving
    1500 integer programs takes minutes; the stored instances' fingerprint proves they are
    the ones generated here, and a sample is re-solved live below.
    """
    data = json.loads(REFERENCE_FILE.read_text())
    entry = data["classes"][kind]
    insts = ref.instances(kind, data["count"], data["seed"])
    assert len(insts) >= 500
    assert ref.digest(insts) == entry["digest"], "generator changed: refresh the reference"
    t0 = time.process_time()
    wrong = []
    for i, (table, rack) in enumerate(insts):
        if _objective(kind, table, rack) != tuple(entry["answers"][i]):
            wrong.append(i)
    assert wrong == [], f"{kind}: differs from the ILP on instances {wrong[:20]}"
    assert time.process_time() - t0 < 60  # CPU seconds: the machine is shared


@pytest.mark.parametrize(("kind", "sample"), [("normal", 6), ("dense", 4), ("initial", 12)])
def test_stored_reference_matches_a_live_ilp(kind: str, sample: int) -> None:
    data = json.loads(REFERENCE_FILE.read_text())
    insts = ref.instances(kind, sample, data["seed"])  # the first of the stored 500
    for i, (table, rack) in enumerate(insts):
        r = ref.reference_solve(table, rack, initial_meld=kind == "initial")
        live = (r.placed, r.value)
        if (kind == "initial" and r.value < 30) or r.placed == 0:
            live = (0, 0)
        assert list(live) == data["classes"][kind]["answers"][i]
        assert _objective(kind, table, rack) == live


def test_reference_checks_its_own_sets() -> None:
    # the ILP's chosen sets, written out, are valid and use exactly table + placed tiles
    table, rack = ref.instances("normal", 1, 7)[0]
    r = ref.reference_solve(table, rack)
    for c in r.sets:
        faces = sorted(c.faces) + [JOKER] * len(c.jokers)
        assert len(faces) >= 3
    used = Counter(f for c in r.sets for f in c.faces)
    assert not Counter(f for s in table for f in s if f != JOKER) - used


# ------------------------------------------------------------------ the third objective: moved


def _faces_of(r: ref.RefResult) -> list[list[int]]:
    return [sorted(c.faces) + [JOKER] * len(c.jokers) for c in r.sets]


def test_keeps_two_runs_apart_that_a_naive_play_merges() -> None:
    # Y4 goes in front of Y5 Y6 Y7; running on into Y8..Y12 makes one long run, as valid and
    # worth the same, but then one old run is no set's continuation: 3 tiles moved for nothing.
    table = table_of("Y5 Y6 Y7 | Y8 Y9 Y10 Y11 Y12")
    rack = parse_faces("Y4")
    merged = table_of("Y4 Y5 Y6 Y7 Y8 Y9 Y10 Y11 Y12")
    assert moved_count(table, merged) == 3
    r = ref.reference_solve(table, rack, moved=True)
    assert (r.placed, r.value, r.moved, r.moved_lower) == (1, 4, 0, 0)
    assert moved_count(table, _faces_of(r)) == 0
    sol = solve(table, rack)
    assert (len(sol.placed), sol.value, sol.moved) == (1, 4, 0)
    assert sorted(map(sorted, sol.table)) == sorted(
        map(sorted, table_of("Y4 Y5 Y6 Y7 | Y8 Y9 Y10 Y11 Y12"))
    )


def test_keep_sets_extends_kept_sets_and_builds_new_ones_from_the_rest() -> None:
    # every old set kept: the run grows at both ends, the group of 3 takes its 4th colour,
    # the other placed tiles make a run of their own with a joker
    old = table_of("R5 R6 R7 | B9 Y9 K9")
    placed = parse_faces("R4 R8 R9 R9 K1 K2 JK")
    table = keep_sets(old, [True, True], placed, [1000])
    assert table is not None
    assert all(check_set(s).valid for s in table)
    assert Counter(f for s in table for f in s) == Counter(
        [*parse_faces("R5 R6 R7 B9 Y9 K9"), *placed]
    )
    assert moved_count(old, table) == 0


def test_keep_sets_repartitions_the_sets_not_kept() -> None:
    # the group of 7s is not kept: its tiles and the placed ones make three runs
    old = table_of("B1 B2 B3 | R7 B7 Y7")
    placed = parse_faces("R5 R6 B8 B9 Y8 Y9")
    table = keep_sets(old, [True, False], placed, [1000])
    assert table is not None and parse_faces("B1 B2 B3") in table
    assert all(check_set(s).valid for s in table)
    assert sorted(f for s in table for f in s) == sorted(
        [*parse_faces("B1 B2 B3 R7 B7 Y7"), *placed]
    )
    # keeping the group too cannot work: R5 R6, B8 B9, Y8 Y9 have nowhere to go
    assert keep_sets(old, [True, True], placed, [1000]) is None


def test_keep_sets_gives_up_when_the_budget_runs_out() -> None:
    old = table_of("B1 B2 B3 | R7 B7 Y7")
    assert keep_sets(old, [True, False], parse_faces("R5 R6 B8 B9 Y8 Y9"), [1]) is None


def test_keeps_a_freed_joker_in_its_run() -> None:
    # K8 takes the joker's place; the joker can go to the 6s or to the end of its own run:
    # the same tiles and value, but only the second keeps it in its set
    table = table_of("K6 R6 Y6 | B3 B4 B5 B6 B7 | R5 Y5 B5 K5 | K7 JK K9 K10")
    rack = parse_faces("R2 K8")
    sol = solve(table, rack)
    assert_sound(table, rack, sol)
    assert (sol.placed, sol.value, sol.moved) == (parse_faces("K8"), 8, 0)
    assert parse_faces("K7 K8 K9 K10 JK") in sol.table
    r = ref.reference_solve(table, rack, moved=True)
    assert (r.placed, r.value, r.moved) == (1, 8, 0)


def test_the_rearranging_pass_cuts_merged_runs_apart() -> None:
    # R6 JK R8 takes the group's R8 and B5 B6 B7 leaves B8: not every old set can stay. The
    # fewest moved is 2, R8 and B8 (into R6 JK R8 and B8 Y8 K8): the reference's answer
    table = table_of("K7 K8 K9 | K8 R8 Y8 | K3 K4 K5 K6 | B6 B7 B8")
    rack = parse_faces("R6 B5 JK")
    sol = solve(table, rack)
    r = ref.reference_solve(table, rack, moved=True)
    assert (len(sol.placed), sol.value) == (r.placed, r.value)
    assert_sound(table, rack, sol)
    assert sol.moved == moved_count(table, sol.table) == r.moved == 2


@pytest.mark.parametrize(("table_size", "rack_size"), [((6, 20), (2, 6)), ((15, 35), (4, 10))])
def test_never_moves_fewer_than_the_integer_program_proves_possible(
    table_size: tuple[int, int], rack_size: tuple[int, int]
) -> None:
    # The ILP with the third objective, on small random positions: its sets, scored by
    # moved_count, move exactly what it claims; the solver agrees with it on tiles and value,
    # counts what it moves truly, and never moves fewer (the ILP is the optimum)
    rng = random.Random("moved")
    moving = same = found = 0
    for _ in range(40):
        table, rack = ref.random_instance(rng, table_size, rack_size)
        r = ref.reference_solve(table, rack, moved=True)
        assert r.moved is not None and r.moved == r.moved_lower
        sol = solve(table, rack)
        if not sol.found:
            assert r.placed == 0
            continue
        assert_sound(table, rack, sol)
        assert (r.placed, r.value) == (len(sol.placed), sol.value)
        assert moved_count(table, _faces_of(r)) == r.moved
        assert sol.moved == moved_count(table, sol.table) >= r.moved
        found += 1
        moving += r.moved > 0
        same += sol.moved == r.moved
    assert moving >= 5  # the sample exercises the pairing, not only plays that move nothing
    assert same >= 0.9 * found  # and the solver finds the fewest on most (all, measured)


# the share of the stored instances where solve() moves exactly the ILP's proven fewest
# (measured 0.68 normal, 0.24 dense at the default budget): a floor against regressions
_AS_FEW: dict[str, float] = {"normal": 0.65, "dense": 0.2}


@pytest.mark.parametrize("kind", ["normal", "dense"])
def test_moved_against_the_stored_integer_program(kind: str) -> None:
    """The ILP's fewest moved on the stored classes (``bench/tile_solver.py --write-moved``:
    seconds per instance, so stored; ``[fewest found, proven lower bound]``): solve() never
    moves fewer than the bound (that would be a miscount), and moves exactly the fewest on
    most instances the ILP proved."""
    data = json.loads(MOVED_FILE.read_text())["classes"][kind]
    answers = data["answers"]
    insts = ref.instances(kind, len(answers), 1)
    assert ref.digest(insts) == data["digest"], "generator changed: refresh the answers"
    assert len(answers) >= 500
    proven = same = 0
    for (table, rack), (fewest, lower) in zip(insts, answers, strict=True):
        sol = solve(table, rack)
        assert sol.moved >= lower
        if fewest == lower:
            proven += 1
            same += sol.moved == fewest
    assert same >= _AS_FEW[kind] * proven, (same, proven)


def test_more_work_never_moves_more_and_the_same_work_gives_the_same_play() -> None:
    """``moved_budget`` is a count of work: the same budget gives the same play, and a
    bigger budget moves no more (it only takes the rearranging pass further)."""
    for table, rack in ref.instances("dense", 30, 1):
        last = None
        for budget in (0, 300, 3000):
            sol = solve(table, rack, moved_budget=budget)
            assert_sound(table, rack, sol)
            assert sol.moved == moved_count(table, sol.table)
            assert last is None or (
                (sol.placed, sol.value) == (last.placed, last.value) and sol.moved <= last.moved
            )
            assert solve(table, rack, moved_budget=budget) == sol
            last = sol


# ------------------------------------------------------------------ command line


def test_cli_solve_prints_the_new_table(capsys: pytest.CaptureFixture[str]) -> None:
    from gameshack.cli import main

    assert main(["tiles", "solve", "--table", "R1 R2 R3 | K7 B7 Y7", "--rack", "R4 K7 JK"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert "R1 R2 R3 R4" in lines
    assert lines[-1] == "placed 2: R4 JK (11 points, 0 moved)"


def test_cli_solve_json(capsys: pytest.CaptureFixture[str]) -> None:
    from gameshack.cli import main

    args = ["tiles", "solve", "--table", "R5 R6 JK", "--rack", "R7 K2 K3", "--json"]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["found"] is True and out["value"] == 12 and out["moved"] == 1
    assert sorted(out["placed"]) == ["K2", "K3", "R7"]
    assert sorted(map(tuple, out["table"])) == [("K2", "K3", "JK"), ("R5", "R6", "R7")]


def test_cli_solve_initial_meld_and_errors(capsys: pytest.CaptureFixture[str]) -> None:
    from gameshack.cli import main

    assert main(["tiles", "solve", "--rack", "R8 R9 JK", "--initial"]) == 1
    assert capsys.readouterr().out.strip() == "no initial meld of 30 or more"
    assert main(["tiles", "solve", "--table", "R1 R2", "--rack", "R3"]) == 2
    assert "not valid" in capsys.readouterr().out


def test_solve_leaves_the_garbage_collector_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    # a library call must not switch the process-wide collector off and on (another thread
    # may rely on it), and a search makes no garbage that only the collector can free
    table, rack = ref.instances("normal", 3, 1)[2]

    def refuse() -> None:
        raise AssertionError("solve() switched the garbage collector")

    monkeypatch.setattr(gc, "disable", refuse)
    monkeypatch.setattr(gc, "enable", refuse)
    gc.collect()
    solve(table, rack)
    solve(table, rack, initial_meld=True)
    assert gc.isenabled()
    assert gc.collect() == 0
