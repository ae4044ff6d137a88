"""Each named behaviour of the Tile Rummy bots, on real engine states written in tile notation."""

from __future__ import annotations

import dataclasses
import random

import gameshack.rules.tiles as T
from gameshack.bots import decide
from gameshack.rules.tiles.solver import solve


def ids(text: str, taken: set[int]) -> tuple[int, ...]:
    """Tile ids for faces in notation, using a copy not yet in ``taken``."""
    out = []
    for f in T.parse_faces(text):
        first = 104 if f == T.JOKER else f * 2
        t = first if first not in taken else first + 1
        taken.add(t)
        out.append(t)
    return tuple(out)


def position(table: list[str], rack: str, *, opponent_tiles: int, melded: bool = True) -> T.State:
    """Seat 0 to play with ``rack`` on ``table`` (sets in notation); the opponent holds
    ``opponent_tiles`` tiles; the rest is the pool."""
    taken: set[int] = set()
    sets = tuple(ids(s, taken) for s in table)
    mine = ids(rack, taken)
    rest = [t for t in range(106) if t not in taken]
    random.Random(3).shuffle(rest)
    opp = tuple(rest[:opponent_tiles])
    state = T.new_match(T.Config(seats=2), 1)
    return dataclasses.replace(
        state,
        turn=0,
        racks=(mine, opp),
        pool=tuple(rest[opponent_tiles:]),
        table=sets,
        work=None,
        melded=(melded, True),
        log=(),
    )


def play(state: T.State, difficulty: str) -> tuple[list[str], T.State]:
    """Seat 0's bot plays its turn (arrange + confirm, or draw)."""
    done: list[str] = []
    memory = None
    while state.turn == 0 and T.match_outcome(state) is None and len(done) < 5:
        action, memory = decide("tiles", difficulty, T.view(state, 0), memory, random.Random(0))
        done.append(str(action))
        state = T.apply(state, 0, action)
        if done[-1] in ("confirm", "draw"):
            break
    return done, state


def _rack_faces(state: T.State) -> list[str]:
    return sorted(T.tile_str(t) for t in state.racks[0])


def test_easy_plays_only_sets_from_its_own_rack() -> None:
    # The R4 fits the run on the table and the B7 K7 could take the Y7... but Easy never
    # touches the table: it puts down its own R10 R11 R12 and nothing else.
    state = position(["R1 R2 R3", "B7 K7 Y7"], "R4 R7 R10 R11 R12 B2", opponent_tiles=10)
    actions, after = play(state, "easy")
    assert actions[-1] == "confirm"
    assert after.table[:2] == state.table[:2]  # the table's sets are untouched
    assert [T.faces_str(T.face_of(t) for t in s) for s in after.table[2:]] == ["R10 R11 R12"]
    assert _rack_faces(after) == ["B2", "R4", "R7"]


def test_easy_initial_meld_needs_thirty_from_the_rack() -> None:
    state = position(["R1 R2 R3"], "K10 B10 Y10 R4 B1", opponent_tiles=10, melded=False)
    actions, after = play(state, "easy")
    assert actions[-1] == "confirm" and after.melded[0]
    state = position(["R1 R2 R3"], "K3 B3 Y3 R4 B1", opponent_tiles=10, melded=False)
    actions, _ = play(state, "easy")
    assert actions == ["draw"]  # 9 points is no initial meld


def test_medium_plays_the_solvers_best_play() -> None:
    table = ["R1 R2 R3", "B7 K7 Y7", "K9 K10 K11"]
    rack = "R4 R7 K8 K12 B2 JK"
    state = position(table, rack, opponent_tiles=10)
    best = solve([s.split() for s in table], rack.split())
    actions, after = play(state, "medium")
    assert actions[-1] == "confirm"
    assert len(after.racks[0]) == len(state.racks[0]) - len(best.placed)


def test_hard_keeps_a_reserve_while_the_opponent_is_far_from_going_out() -> None:
    table = ["R1 R2 R3"]
    rack = "K7 B7 Y7 R4 B11"
    far = position(table, rack, opponent_tiles=12)
    actions, after = play(far, "hard")
    # The R4 goes on the run; the 7s (a set of its own) stay back for a turn with nothing else.
    assert actions[-1] == "confirm"
    assert _rack_faces(after) == ["B11", "B7", "K7", "Y7"]
    # Medium dumps everything it can.
    _, after_medium = play(far, "medium")
    assert _rack_faces(after_medium) == ["B11"]
    # With the opponent close to going out, Hard gets its points off the rack too.
    near = position(table, rack, opponent_tiles=3)
    _, after_near = play(near, "hard")
    assert _rack_faces(after_near) == ["B11"]


def test_hard_plays_a_reserve_set_instead_of_drawing() -> None:
    far = position(["R1 R2 R3"], "K7 B7 Y7 B11", opponent_tiles=12)
    actions, after = play(far, "hard")
    assert actions[-1] == "confirm"
    assert _rack_faces(after) == ["B11"]


def test_hard_holds_a_joker_back_while_the_opponent_is_far() -> None:
    table = ["R1 R2 R3"]
    rack = "R4 JK B11 K5"
    far = position(table, rack, opponent_tiles=12)
    _, after = play(far, "hard")
    assert "JK" in _rack_faces(after) and "R4" not in _rack_faces(after)
    near = position(table, rack, opponent_tiles=2)
    _, after_near = play(near, "hard")
    assert "JK" not in _rack_faces(after_near)
