"""Every Tile Rummy rule as a scenario written in tile notation."""

from __future__ import annotations

from dataclasses import replace

import pytest
from tiles_scenario import arrangement, position, table_tile, tiles_of

from gameshack.rules.common import IllegalAction, Outcome, Termination
from gameshack.rules.tiles import (
    ALL_TILES,
    JOKER,
    Config,
    Confirm,
    ConfirmRefused,
    Draw,
    Move,
    MoveNew,
    MoveToRack,
    NextRound,
    Phase,
    Reset,
    State,
    apply,
    describe_table,
    face_of,
    face_str,
    legal_actions,
    match_outcome,
    new_match,
    outcome,
    round_outcome,
    to_act,
    view,
)


def refused(state: State, seat: int, action: object) -> IllegalAction:
    """Apply must refuse and leave the state exactly as it was."""
    before = replace(state)
    with pytest.raises(IllegalAction) as info:
        apply(state, seat, action)  # type: ignore[arg-type]
    assert state == before
    return info.value


# --------------------------------------------------------------------------- setup


def test_deal_gives_fourteen_each_and_the_rest_is_the_pool() -> None:
    for seats in (2, 3, 4):
        s = new_match(Config(seats=seats), seed=42)
        assert [len(r) for r in s.racks] == [14] * seats
        assert len(s.pool) == 106 - 14 * seats
        assert sorted([*s.pool, *(t for r in s.racks for t in r)]) == list(ALL_TILES)


def test_start_draw_highest_number_starts_ties_and_jokers_draw_again() -> None:
    seen_redraw = False
    for seed in range(200):
        s = new_match(Config(seats=4), seed)
        draw = s.start_draw
        assert s.turn == draw.starter == s.starter
        last = draw.rounds[-1]
        numbers = {seat: face_of(t) % 13 for seat, t in last}
        assert all(face_of(t) != JOKER for _, t in last)
        assert numbers[draw.starter] == max(numbers.values())
        assert list(numbers.values()).count(max(numbers.values())) == 1
        for earlier in draw.rounds[:-1]:
            seen_redraw = True
            faces = [face_of(t) for _, t in earlier]
            best = max((f % 13 for f in faces if f != JOKER), default=-1)
            tied = sum(1 for f in faces if f != JOKER and f % 13 == best) > 1
            assert JOKER in faces or tied
        # Only the seats tied for the highest number draw again.
        for a, b in zip(draw.rounds, draw.rounds[1:], strict=False):
            if all(face_of(t) != JOKER for _, t in a):
                best = max(face_of(t) % 13 for _, t in a)
                assert [s_ for s_, _ in b] == [s_ for s_, t in a if face_of(t) % 13 == best]
    assert seen_redraw  # 200 four-seat draws always include some ties


def test_later_rounds_start_with_the_next_seat() -> None:
    s = position(["R1 R2 R3", "K5 K9"], turn=1, melded=(True, True))
    s = replace(s, starter=1, turn=0)
    s = apply(s, 0, arrangement(s, 0, "R1 R2 R3"))
    s = apply(s, 0, Confirm())
    assert s.phase is Phase.ROUND_OVER
    assert to_act(s) == frozenset({0, 1})
    s2 = apply(s, 1, NextRound())
    assert s2.phase is Phase.PLAYING and s2.round_no == 2
    assert s2.starter == 0 and s2.turn == 0  # starter 1 -> next in rotation is 0
    assert s2.table == () and s2.melded == (False, False)
    assert s2.totals == s.totals
    assert [len(r) for r in s2.racks] == [14, 14]


# --------------------------------------------------------------------------- initial meld


def test_initial_meld_joker_in_a_run_counts_as_the_tile_it_stands_for() -> None:
    # R5 JK R7 = 5+6+7 = 18; with K10 K11 K12 = 33 -> 51.
    s = position(["R5 JK R7 K10 K11 K12 B1", "Y1 Y2"])
    s = apply(s, 0, arrangement(s, 0, "R5 JK R7 | K10 K11 K12"))
    assert view(s, 0).meld_progress == 51
    s = apply(s, 0, Confirm())
    assert describe_table(s.table) == "R5 JK R7 | K10 K11 K12"
    assert s.melded == (True, False)
    assert s.turn == 1
    assert s.log[-1].kind == "play" and s.log[-1].meld and s.log[-1].rack_size == 1


def test_initial_meld_joker_in_a_group_exactly_thirty() -> None:
    s = position(["R10 B10 JK K2", "Y1 Y2"])
    s = apply(s, 0, arrangement(s, 0, "R10 B10 JK"))
    assert view(s, 0).meld_progress == 30
    s = apply(s, 0, Confirm())
    assert s.melded[0]


def test_initial_meld_short_is_refused_with_the_total() -> None:
    # R9 B9 Y9 = 27; plus an invalid set that does not count.
    s = position(["R9 B9 Y9 K1 K2 R13", "Y1 Y2"])
    s = apply(s, 0, arrangement(s, 0, "R9 B9 Y9"))
    err = refused(s, 0, Confirm())
    assert err.code == "initial_meld_short"
    assert "27 / 30" in err.message


def test_initial_meld_with_two_jokers() -> None:
    # JK R5 JK is R4 R5 R6 = 15; Y8 Y9 JK... only two jokers: K13 JK? use a real run instead.
    s = position(["JK R5 JK Y3 Y4 Y5 Y6", "B1"])
    s = apply(s, 0, arrangement(s, 0, "JK R5 JK | Y3 Y4 Y5 Y6"))
    assert view(s, 0).meld_progress == 15 + 18
    s = apply(s, 0, Confirm())
    assert s.melded[0]


def test_initial_meld_two_jokers_reading_worth_more() -> None:
    # JK JK K13 reads as the group of 13s (39) rather than the run K11-13 (36).
    s = position(["JK JK K13 B1", "Y1"])
    s = apply(s, 0, arrangement(s, 0, "JK JK K13"))
    assert view(s, 0).meld_progress == 39
    s = apply(s, 0, Confirm())
    assert s.melded[0]


def test_before_the_initial_meld_the_table_may_not_be_touched() -> None:
    s = position(["R8 R9 R10 R11 B3", "Y1"], "R5 R6 R7", melded=(False, True))
    r7 = table_tile(s, "R7")
    r8 = tiles_of(s, 0, "R8")[0]
    assert refused(s, 0, Move(r8, 0, 3)).code == "initial_meld_table"
    assert refused(s, 0, MoveNew(r7)).code == "initial_meld_table"
    err = refused(s, 0, arrangement(s, 0, "R5 R6 R7 R8 | R9 R10 R11"))
    assert err.code == "initial_meld_table"
    # The legal list agrees: no move takes a table tile or goes into the old set.
    for a in legal_actions(s, 0):
        if isinstance(a, Move):
            assert a.set_index != 0
        if isinstance(a, Move | MoveNew | MoveToRack):
            assert a.tile != r7
    # New sets beside the untouched table are fine: R8-R11 = 38.
    s = apply(s, 0, arrangement(s, 0, "R5 R6 R7 | R8 R9 R10 R11"))
    s = apply(s, 0, Confirm())
    assert describe_table(s.table) == "R5 R6 R7 | R8 R9 R10 R11"


# --------------------------------------------------------------------------- after the meld


def test_adding_to_a_set_splitting_and_moving_table_tiles() -> None:
    s = position(["R4 B9", "Y1"], "R5 R6 R7 R8 R9 | K9 Y9 R9", melded=(True, True))
    # Take R9 off the long run, put B9 with K9 Y9 and... build via single moves.
    r4 = tiles_of(s, 0, "R4")[0]
    b9 = tiles_of(s, 0, "B9")[0]
    s = apply(s, 0, Move(r4, 0, 0))  # R4 in front of the run
    s = apply(s, 0, Move(b9, 1, 3))  # group of four 9s
    assert describe_table(s.work or ()) == "R4 R5 R6 R7 R8 R9 | K9 Y9 R9 B9"
    v = view(s, 0)
    assert v.work is not None and all(sv.valid for sv in v.work)
    assert v.rack == ()
    s = apply(s, 0, Confirm())
    assert s.phase is Phase.ROUND_OVER  # the rack is empty: seat 0 went out


def test_split_a_run_with_moves_and_return_a_rack_tile() -> None:
    s = position(["R4 K1", "Y1"], "R1 R2 R3 R5 R6 R7", melded=(True, True))
    r4 = tiles_of(s, 0, "R4")[0]
    r5, r6, r7 = (table_tile(s, f) for f in ("R5", "R6", "R7"))
    s = apply(s, 0, MoveNew(r5))  # split: R1 R2 R3 | R5
    s = apply(s, 0, Move(r6, 1, 1))
    s = apply(s, 0, Move(r7, 1, 2))
    assert describe_table(s.work or ()) == "R1 R2 R3 | R5 R6 R7"
    s = apply(s, 0, Move(r4, 0, 3))
    assert describe_table(s.work or ()) == "R1 R2 R3 R4 | R5 R6 R7"
    # A table tile may not go to the rack; a rack tile played this turn may.
    assert refused(s, 0, MoveToRack(r7)).code == "not_from_rack"
    back = apply(s, 0, MoveToRack(r4))
    assert describe_table(back.work or ()) == "R1 R2 R3 | R5 R6 R7"
    assert refused(back, 0, Confirm()).code == "nothing_played"
    s = apply(s, 0, Confirm())
    assert describe_table(s.table) == "R1 R2 R3 R4 | R5 R6 R7"


def test_freeing_a_joker_and_reusing_it() -> None:
    s = position(["R6 B9 Y9 K2", "Y1"], "R5 JK R7", melded=(True, True))
    jk = table_tile(s, "JK")
    r6 = tiles_of(s, 0, "R6")[0]
    s = apply(s, 0, Move(r6, 0, 1))  # R5 R6 JK R7: the joker's place is taken...
    s = apply(s, 0, MoveNew(jk))  # ...and the joker is free
    b9, y9 = tiles_of(s, 0, "B9 Y9")
    s = apply(s, 0, Move(b9, 1, 0))
    s = apply(s, 0, Move(y9, 1, 1))
    assert describe_table(s.work or ()) == "R5 R6 R7 | B9 Y9 JK"
    v = view(s, 0)
    assert v.work is not None and [sv.kind for sv in v.work] == ["run", "group"]
    assert face_str(v.work[1].meanings[2]) == "R9"  # the first colour missing from B9 Y9
    s = apply(s, 0, Confirm())
    assert describe_table(s.table) == "R5 R6 R7 | B9 Y9 JK"
    assert set(s.log[-1].tiles) == {r6, b9, y9}


def test_a_freed_joker_left_alone_makes_confirm_fail() -> None:
    s = position(["R6 K2", "Y1"], "R5 JK R7", melded=(True, True))
    jk = table_tile(s, "JK")
    r6 = tiles_of(s, 0, "R6")[0]
    s = apply(s, 0, Move(r6, 0, 1))
    s = apply(s, 0, MoveNew(jk))
    err = refused(s, 0, Confirm())
    assert isinstance(err, ConfirmRefused)
    assert err.code == "invalid_set"
    assert [p.set_index for p in err.problems] == [1]
    assert "set 2 (JK)" in err.message and "at least 3 tiles" in err.message


def test_confirm_lists_every_invalid_set_by_index_and_reason() -> None:
    s = position(["R1 R2 B5 B5 Y7", "Y1"], "K3 K4 K5", melded=(True, True))
    s = apply(s, 0, arrangement(s, 0, "K3 K4 K5 | R1 R2 | B5 B5 Y7"))
    err = refused(s, 0, Confirm())
    assert isinstance(err, ConfirmRefused)
    assert [(p.code, p.set_index) for p in err.problems] == [("invalid_set", 1), ("invalid_set", 2)]
    assert "set 2 (R1 R2) is invalid: a set needs at least 3 tiles" in err.message
    assert "set 3 (B5 B5 Y7) is invalid" in err.message
    v = view(s, 0).to_dict()
    assert [w["valid"] for w in v["work"]] == [True, False, False]
    assert v["can"]["confirm"] is False
    assert [p["set_index"] for p in v["can"]["problems"]] == [1, 2]


def test_two_same_colour_same_number_tiles_never_make_a_group() -> None:
    s = position(["R7 R7 B7 K1", "Y1"])
    s = apply(s, 0, arrangement(s, 0, "R7 R7 B7"))
    err = refused(s, 0, Confirm())
    assert "may not repeat a colour" in err.message


def test_table_tiles_must_stay_on_the_table() -> None:
    s = position(["R4 K1", "Y1"], "R1 R2 R3 | B5 B6 B7", melded=(True, True))
    err = refused(s, 0, arrangement(s, 0, "R1 R2 R3 R4"))
    assert err.code == "table_tile_missing"
    assert "B5" in err.message


def test_nothing_played_is_refused() -> None:
    s = position(["R4 K1", "Y1"], "R1 R2 R3", melded=(True, True))
    assert refused(s, 0, Confirm()).code == "nothing_played"
    # Rearranging only table tiles is not a play either.
    s2 = position(["K1", "Y1"], "R1 R2 R3 R4 R5 R6", melded=(True, True))
    s2 = apply(s2, 0, arrangement(s2, 0, "R1 R2 R3 | R4 R5 R6"))
    assert refused(s2, 0, Confirm()).code == "nothing_played"


def test_reset_undoes_the_arrangement() -> None:
    s = position(["R4 K1", "Y1"], "R1 R2 R3", melded=(True, True))
    moved = apply(s, 0, Move(tiles_of(s, 0, "R4")[0], 0, 3))
    assert moved.work is not None
    assert Reset() in legal_actions(moved, 0)
    assert apply(moved, 0, Reset()) == s


def test_bad_moves_are_refused_with_codes() -> None:
    s = position(["R4 K1", "Y1"], "R1 R2 R3", melded=(True, True))
    r4 = tiles_of(s, 0, "R4")[0]
    y1 = s.racks[1][0]
    assert refused(s, 0, Move(r4, 5, 0)).code == "bad_set"
    assert refused(s, 0, Move(r4, 0, 9)).code == "bad_position"
    # Values built in code (not parsed) may be negative: no Python-style index from the end.
    assert refused(s, 0, Move(r4, -1, 0)).code == "bad_set"
    assert refused(s, 0, Move(r4, 0, -1)).code == "bad_position"
    assert refused(s, 0, MoveNew(999)).code == "not_your_tile"
    assert refused(s, 0, MoveNew(y1)).code == "not_your_tile"
    assert refused(s, 0, MoveToRack(r4)).code == "already_on_rack"
    assert refused(s, 1, Draw()).code == "not_your_turn"
    assert refused(s, 0, NextRound()).code == "round_in_progress"


# --------------------------------------------------------------------------- draw and pass


def test_draw_discards_the_arrangement_and_passes_the_turn() -> None:
    s = position(["R4 K1", "Y1"], "R1 R2 R3", melded=(True, True), pool="B13 B12")
    s = apply(s, 0, Move(tiles_of(s, 0, "R4")[0], 0, 3))
    s = apply(s, 0, Draw())
    assert describe_table(s.table) == "R1 R2 R3"
    assert s.work is None and s.turn == 1
    assert face_str(face_of(s.racks[0][-1])) == "B13"  # the pool's first tile
    assert len(s.pool) == 1
    assert s.log[-1].kind == "draw" and s.log[-1].tiles == () and s.log[-1].rack_size == 3


def test_empty_pool_draw_is_a_pass_and_a_full_rotation_throws_the_round_in() -> None:
    s = position(["R4 JK", "Y1 Y13", "K2 B2 R1"], "R1 R2 R3", melded=(True,) * 3, pool="")
    s = apply(s, 0, Draw())
    s = apply(s, 1, Draw())
    assert s.phase is Phase.PLAYING and s.passes == 2
    assert [e.kind for e in s.log] == ["pass", "pass"]
    s = apply(s, 2, Draw())
    assert s.phase is Phase.ROUND_OVER
    assert outcome(s) == Outcome(Termination.BLOCKED, (), (-34, -14, -5))
    assert s.totals == (-34, -14, -5)


def test_a_play_resets_the_pass_count() -> None:
    s = position(["R4 K1", "Y1 Y13", "K2"], "R1 R2 R3", melded=(True,) * 3, pool="")
    s = apply(s, 0, Draw())
    s = apply(s, 1, Draw())
    assert s.passes == 2
    s = replace(s, turn=2, racks=(s.racks[0], s.racks[1], (*s.racks[2], *tiles_of(s, 0, "R4"))))
    s = replace(
        s, racks=(tuple(t for t in s.racks[0] if face_str(face_of(t)) != "R4"), *s.racks[1:])
    )
    s = apply(s, 2, Move(tiles_of(s, 2, "R4")[0], 0, 3))
    s = apply(s, 2, Confirm())
    assert s.passes == 0 and s.phase is Phase.PLAYING
    s = apply(s, 0, Draw())
    s = apply(s, 1, Draw())
    assert s.phase is Phase.PLAYING  # two passes since the play: not yet a full rotation
    s = apply(s, 2, Draw())
    assert s.phase is Phase.ROUND_OVER


# --------------------------------------------------------------------------- scoring and the end


def test_going_out_scores_every_other_rack_with_a_joker_worth_thirty() -> None:
    s = position(["R1 R2 R3", "JK K5", "B13 Y2"], melded=(True, True, True))
    s = apply(s, 0, arrangement(s, 0, "R1 R2 R3"))
    s = apply(s, 0, Confirm())
    assert s.phase is Phase.ROUND_OVER
    assert outcome(s) == Outcome(Termination.WENT_OUT, (0,), (35 + 15, -35, -15))
    assert s.totals == (50, -35, -15)
    d = view(s, 1).to_dict()
    assert d["results"][-1]["winner"] == 0
    assert d["results"][-1]["remaining"][1]["value"] == 35
    assert d["round_scores"] == [[50, -35, -15]]


def test_reaching_the_target_ends_the_match_highest_total_wins() -> None:
    s = position(["R1 R2 R3", "K13 K12"], melded=(True, True), target=200, totals=(180, 150))
    s = apply(s, 0, arrangement(s, 0, "R1 R2 R3"))
    s = apply(s, 0, Confirm())
    assert s.phase is Phase.MATCH_OVER
    assert s.totals == (205, 125)
    assert outcome(s) == Outcome(Termination.TARGET_REACHED, (0,), (205, 125))
    assert round_outcome(s) == Outcome(Termination.WENT_OUT, (0,), (25, -25))
    assert to_act(s) == frozenset()
    assert refused(s, 0, NextRound()).code == "match_over"


def test_below_the_target_the_next_round_is_dealt() -> None:
    s = position(["R1 R2 R3", "K13 K12"], melded=(True, True), target=200, totals=(170, 150))
    s = apply(s, 0, arrangement(s, 0, "R1 R2 R3"))
    s = apply(s, 0, Confirm())
    assert s.phase is Phase.ROUND_OVER and s.totals == (195, 125)
    assert match_outcome(s) is None
    assert refused(s, 0, Draw()).code == "round_over"


def test_equal_highest_totals_tie() -> None:
    # From totals that all started below the target a tie at the top cannot arise (only the
    # round winner's total grows), but totals restored from elsewhere can tie: both win.
    s = position(["R1 R2 R3", "K1 K2", "B1"], melded=(True,) * 3, target=100, totals=(97, 103, 0))
    s = apply(s, 0, arrangement(s, 0, "R1 R2 R3"))
    s = apply(s, 0, Confirm())
    assert s.totals == (101, 100, -1)
    assert outcome(s) == Outcome(Termination.TARGET_REACHED, (0,), (101, 100, -1))
    tie = replace(s, totals=(101, 101, -1))
    assert match_outcome(tie) == Outcome(Termination.TARGET_REACHED, (0, 1), (101, 101, -1))


def test_a_thrown_in_round_can_end_the_match_without_a_round_winner() -> None:
    s = position(["R4", "Y1"], melded=(True, True), pool="", target=50, totals=(60, 10))
    s = apply(s, 0, Draw())
    s = apply(s, 1, Draw())
    assert s.phase is Phase.MATCH_OVER
    assert outcome(s) == Outcome(Termination.TARGET_REACHED, (0,), (56, 9))
    assert round_outcome(s) == Outcome(Termination.BLOCKED, (), (-4, -1))
