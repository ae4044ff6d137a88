"""Each named behaviour of the Tile Rummy bots, on real engine states written in tile notation."""

from __future__ import annotations

import dataclasses
import random

import gameshack.rules.tiles as T
from gameshack.bots import decide, hint
from gameshack.rules.tiles_solver import solve


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


def _kept_in_place(before: T.State, after: T.State) -> bool:
    """Every set that was down is still there, same index, its tiles in the same order and
    side by side (only added to at its ends)."""
    for old, new in zip(before.table, after.table, strict=False):
        n = len(old)
        if not any(new[i : i + n] == old for i in range(len(new) - n + 1)):
            return False
    return len(after.table) >= len(before.table)


def test_easy_never_rearranges_the_table() -> None:
    # The R3 fits only by splitting R1-R5 into R1-R3 and R3-R5 (a rearrangement): Medium does
    # it, Easy never does. Easy adds the R7 to the group of 7s (a 4th colour, no table tile
    # moved) and puts down its own B10 B11 B12.
    state = position(["R1 R2 R3 R4 R5", "B7 K7 Y7"], "R3 R7 B10 B11 B12 K2", opponent_tiles=10)
    actions, after = play(state, "easy")
    assert actions[-1] == "confirm"
    assert _kept_in_place(state, after)
    assert [T.faces_str(T.face_of(t) for t in s) for s in after.table[2:]] == ["B10 B11 B12"]
    assert _rack_faces(after) == ["K2", "R3"]
    _, after_medium = play(state, "medium")
    assert _rack_faces(after_medium) == ["K2"]
    assert not _kept_in_place(state, after_medium)


def test_easy_extends_a_run_at_both_ends() -> None:
    state = position(["Y5 Y6 Y7", "K1 K2 K3"], "Y4 Y8 Y9 B1 R13", opponent_tiles=10)
    actions, after = play(state, "easy")
    assert actions[-1] == "confirm"
    assert _kept_in_place(state, after)
    assert T.faces_str(T.face_of(t) for t in after.table[0]) == "Y4 Y5 Y6 Y7 Y8 Y9"
    assert _rack_faces(after) == ["B1", "R13"]


def test_easy_never_moves_a_table_tile_in_bot_play() -> None:
    # Every Easy play over whole seeded rounds against Medium (rich tables, jokers on them)
    # leaves each set that was down in place, only added to at its ends.
    for seed in (11, 12):
        state = T.new_match(T.Config(seats=2), seed)
        memories: list[dict[str, object] | None] = [None, None]
        levels = ("easy", "medium")
        while not state.results:
            seat = min(T.to_act(state))
            before = state
            action, memories[seat] = decide(
                "tiles", levels[seat], T.view(state, seat), memories[seat], random.Random(0)
            )
            state = T.apply(state, seat, action)
            if seat == 0 and str(action) == "confirm":
                assert _kept_in_place(before, state), str(action)


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


def test_medium_and_hints_move_the_fewest_table_tiles() -> None:
    # K8 takes the joker's place in K7 JK K9 K10; the freed joker can go to the 6s or to
    # the end of its own run — same tiles and value, but only the second moves no table
    # tile; the bot and the hint play the second.
    table = ["K6 R6 Y6", "B3 B4 B5 B6 B7", "R5 Y5 B5 K5", "K7 JK K9 K10"]
    state = position(table, "R2 K8", opponent_tiles=10)
    shown = hint("tiles", T.view(state, 0))
    assert shown["found"] and shown["placed_faces"] == ["K8"]
    assert ["K7", "K8", "K9", "K10", "JK"] in shown["faces"]
    actions, after = play(state, "medium")
    assert actions[-1] == "confirm"
    faces = [[T.tile_str(t) for t in s] for s in after.table]
    assert ["K7", "K8", "K9", "K10", "JK"] in faces
    assert sorted(map(sorted, faces)) == sorted(
        map(sorted, [*(s.split() for s in table[:3]), ["K7", "K8", "K9", "K10", "JK"]])
    )  # every other set as it was


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
    # With the opponent close to going out, Hard hoards: it puts nothing down (it draws).
    near = position(table, rack, opponent_tiles=3)
    assert play(near, "hard")[0] == ["draw"]


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
    # Medium puts the joker down too.
    _, after_medium = play(far, "medium")
    assert "JK" not in _rack_faces(after_medium)


# From a seeded Medium-vs-Medium round: seat 0 can put down one tile (Medium does) while the
# opponent is down to 4 tiles.
DENY_TABLE = [
    "R2 R3 R4",
    "B1 B2 B3",
    "Y2 Y3 Y4",
    "B1 K1 JK",
    "R11 B11 Y11",
    "R10 Y10 K10",
    "R3 R4 R5",
    "B5 Y5 K5",
    "R6 B6 Y6 K6",
    "R7 Y7 K7",
    "R8 Y8 K8",
    "B9 Y9 K9",
    "K10 JK K12 K13",
    "R12 B12 Y12",
]
DENY_RACK = "B9 R13 Y12 K2 Y8 K3 B5 R9"


def test_hard_hoards_while_the_opponent_is_close_to_going_out() -> None:
    near = position(DENY_TABLE, DENY_RACK, opponent_tiles=4)
    assert play(near, "hard")[0] == ["draw"]
    medium_actions, after_medium = play(near, "medium")
    assert medium_actions[-1] == "confirm"
    assert len(after_medium.racks[0]) == len(near.racks[0]) - 1
    # The same table with the opponent far from going out: Hard plays.
    far = position(DENY_TABLE, DENY_RACK, opponent_tiles=9)
    assert play(far, "hard")[0][-1] == "confirm"


def test_hard_goes_out_whenever_it_can() -> None:
    # A joker and a set of its own would be kept back while the opponent is far from going out,
    # but not when they are the last tiles.
    for opponent_tiles in (12, 2):  # far: it would hold back; near: it would hoard
        state = position(["R1 R2 R3"], "R4 JK K7 B7 Y7", opponent_tiles=opponent_tiles)
        actions, after = play(state, "hard")
        assert actions[-1] == "confirm"
        assert after.results and after.results[-1].winner == 0


def test_every_level_acts_legally_from_bot_play_positions() -> None:
    # Positions from seeded bot-vs-bot rounds (rich tables, jokers down, small racks), which a
    # random walk never reaches: every level's action is accepted, with no solver fallback.
    for seed, levels in ((21, ("hard", "medium")), (22, ("easy", "hard"))):
        state = T.new_match(T.Config(seats=2), seed)
        memories: list[dict[str, object] | None] = [None, None]
        while not state.results:
            seat = min(T.to_act(state))
            view = T.view(state, seat)
            for level in ("easy", "medium", "hard"):
                action, memory = decide("tiles", level, view, None, random.Random(1))
                T.apply(state, seat, action)  # raises if illegal
                assert memory.get("fallbacks", 0) == 0
            action, memories[seat] = decide(
                "tiles", levels[seat], view, memories[seat], random.Random(seed)
            )
            state = T.apply(state, seat, action)
