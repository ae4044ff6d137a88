"""The turn timer's penalty: ``engine.timeout_action(state, seat)``, the actions (in notation)
the server applies as a seat whose time ran out.

Rummy: the turn is undone to its start, then the seat draws from the stock and discards the
card it drew, committed at once. Tile Rummy: the arrangement is reset and the seat draws (a
pass when the pool is empty). Written as scenarios, then checked over seeded self-play: from
every position with a turn in progress the penalty is legal step by step and ends that turn."""

from __future__ import annotations

import random
from typing import Any

import pytest
from rummy.rummy_helpers import play, position
from tiles.tiles_scenario import position as tiles_position
from tiles.tiles_scenario import tiles_of

from gameshack.rules.engine import ENGINES
from gameshack.rules.rummy import ENGINE as RUMMY
from gameshack.rules.rummy import Config as RummyConfig
from gameshack.rules.rummy import Phase, card_str, new_match, parse_card
from gameshack.rules.tiles import ENGINE as TILES
from gameshack.rules.tiles import Arrange, Draw, MoveNew


def run(engine: Any, state: Any, seat: int) -> tuple[list[str], Any]:
    actions = engine.timeout_action(state, seat)
    for text in actions:
        state = engine.apply(state, seat, engine.parse_action(text))
    return actions, state


# -- Rummy


def test_rummy_untouched_turn_draws_the_stock_top_and_discards_it() -> None:
    state = position(["2C 5D 9S", "3H 4H 8C"], discard="KD", stock="7S 6H")
    actions, after = run(RUMMY, state, 0)
    assert actions == ["draw", "discard 6H", "commit"]
    assert after.hands[0] == state.hands[0]  # the hand is as it was
    assert after.discard[-1] == parse_card("6H")
    assert after.turn == 1 and after.stock == (parse_card("7S"),)


def test_rummy_plays_after_a_stock_draw_are_undone_and_the_drawn_card_discarded() -> None:
    state = position(["7H 8H 9H 2C 5D", "3S 4S 8C"], discard="KD", stock="JC 6H")
    state = play(state, "0: draw", "0: meld 7H 8H 9H", "0: layoff 6H 0")
    actions, after = run(RUMMY, state, 0)
    assert actions == ["undo", "undo", "discard 6H", "commit"]  # the drawn 6H, laid off
    assert after.melds == ()  # nothing the turn played stays on the table
    assert sorted(card_str(c) for c in after.hands[0]) == sorted(["7H", "8H", "9H", "2C", "5D"])
    assert after.turn == 1


def test_rummy_a_take_from_the_discard_pile_is_put_back_and_the_seat_draws_instead() -> None:
    # Taking the top card forbids discarding it; a deeper pick-up owes the picked card to a
    # meld. The penalty puts the pile back as it was and draws from the stock instead, so the
    # card discarded is the one drawn, which is always allowed.
    state = position(["7H 8H 2C 5D", "3S 4S 8C"], discard="KD 9H JS", stock="QC 6H", melds=[])
    state = play(state, "0: take 9H", "0: meld 7H 8H 9H")
    actions, after = run(RUMMY, state, 0)
    assert actions == ["undo", "undo", "draw", "discard 6H", "commit"]
    assert [card_str(c) for c in after.discard] == ["KD", "9H", "JS", "6H"]
    assert sorted(card_str(c) for c in after.hands[0]) == sorted(["7H", "8H", "2C", "5D"])


def test_rummy_the_top_card_taken_cannot_be_discarded_so_it_goes_back() -> None:
    state = position(["2C 5D 9S", "3H 4H 8C"], discard="KD", stock="7S 6H")
    state = play(state, "0: take KD")
    actions, after = run(RUMMY, state, 0)
    assert actions == ["undo", "draw", "discard 6H", "commit"]
    assert [card_str(c) for c in after.discard] == ["KD", "6H"]


def test_rummy_a_pending_discard_in_its_grace_window_is_the_seats_own_turn_committed() -> None:
    state = position(["2C 5D 9S", "3H 4H 8C"], discard="KD", stock="7S 6H")
    state = play(state, "0: draw", "0: discard 2C")
    assert RUMMY.pending_window(state)
    actions, after = run(RUMMY, state, 0)
    assert actions == ["commit"]
    assert after.discard[-1] == parse_card("2C") and after.turn == 1


def test_rummy_a_discard_taken_back_in_the_grace_window_is_undone_with_the_rest() -> None:
    state = position(["7H 8H 9H 2C", "3S 4S 8C"], discard="KD", stock="JC 6H")
    state = play(state, "0: draw", "0: meld 7H 8H 9H", "0: discard 2C", "0: undo")
    actions, after = run(RUMMY, state, 0)
    assert actions == ["undo", "discard 6H", "commit"]
    assert after.melds == ()


def test_rummy_empty_stock_takes_the_top_and_discards_the_highest_other_card() -> None:
    state = position(["2C 5D QS", "3H 4H 8C"], discard="3C KD", stock="")
    actions, after = run(RUMMY, state, 0)
    assert actions == ["take KD", "discard QS", "commit"]
    assert sorted(card_str(c) for c in after.hands[0]) == ["2C", "5D", "KD"]


def test_rummy_no_timer_penalty_outside_a_turn() -> None:
    fresh = new_match(RummyConfig(seats=2), 3)
    assert fresh.phase is Phase.DEAL_DRAW  # the first-deal draw: no turn, no timer
    assert RUMMY.timeout_action(fresh, 0) == [] and RUMMY.timeout_action(fresh, 1) == []
    state = position(["2C 5D 9S", "3H 4H 8C"], discard="KD", stock="7S 6H")
    assert RUMMY.timeout_action(state, 1) == []  # not seat 1's turn
    over = position(["7H 8H 9H 2C", "3S 4S 8C"], discard="KD", stock="JC 6H")
    over = play(over, "0: draw", "0: meld 7H 8H 9H", "0: layoff 6H 0", "0: discard 2C")
    over = play(over, "0: commit")  # seat 0 went out
    assert over.phase is Phase.HAND_OVER  # between hands
    assert RUMMY.timeout_action(over, 0) == [] and RUMMY.timeout_action(over, 1) == []


# -- Tile Rummy


def test_tiles_untouched_turn_draws() -> None:
    state = tiles_position(["R1 R2 B9", "K5 K6 Y3"], pool="Y7 Y8")
    actions, after = run(TILES, state, 0)
    assert actions == ["draw"]
    assert len(after.racks[0]) == 4 and after.turn == 1


def test_tiles_arrangement_is_reset_then_the_seat_draws() -> None:
    state = tiles_position(["R10 R11 R12 B9", "K5 K6 Y3"], pool="Y7 Y8")
    r10, r11, r12 = tiles_of(state, 0, "R10 R11 R12")
    state = TILES.apply(state, 0, Arrange(((r10, r11, r12),)))
    actions, after = run(TILES, state, 0)
    assert actions == ["reset", "draw"]
    assert after.table == () and len(after.racks[0]) == 5 and after.turn == 1
    # A single tile moved out counts as an arrangement too.
    state = TILES.apply(tiles_position(["R1 B9", "K5 Y3"], pool="Y7"), 0, MoveNew(0))
    assert TILES.timeout_action(state, 0) == ["reset", "draw"]


def test_tiles_empty_pool_the_draw_is_a_pass() -> None:
    state = tiles_position(["R1 R2 B9", "K5 K6 Y3"], pool="")
    actions, after = run(TILES, state, 0)
    assert actions == ["draw"]
    assert after.racks[0] == state.racks[0] and after.passes == 1 and after.turn == 1
    assert after.log[-1].kind == "pass"


def test_tiles_no_penalty_out_of_turn_or_between_rounds() -> None:
    state = tiles_position(["R1 R2 B9", "K5 K6 Y3"], pool="")
    assert TILES.timeout_action(state, 1) == []
    state = TILES.apply(state, 0, Draw())
    blocked = TILES.apply(state, 1, Draw())  # a full rotation of passes: the round ends
    assert TILES.only_next(blocked)
    assert TILES.timeout_action(blocked, 0) == [] and TILES.timeout_action(blocked, 1) == []


# -- both games, by self-play


@pytest.mark.parametrize("seats", [2, 3])
@pytest.mark.parametrize("name", sorted(ENGINES))
def test_penalty_is_legal_and_ends_the_turn_from_every_position(name: str, seats: int) -> None:
    """From every position of seeded random play where a seat has a turn in progress, the
    penalty applies step by step (the engine accepts each action) and ends that turn: the
    next seat is to act, or the hand/round is over; the seat's hand holds what it held when
    its turn began (Rummy; unless its discard was pending, which stands) or one tile more, or
    the same when it passed (Tile Rummy)."""
    engine = ENGINES[name]
    checked = 0
    for seed in range(3):
        rng = random.Random(seed)
        state = engine.new_match(engine.config(seats, None), seed)
        start: Any = None
        for _ in range(500):
            acting = sorted(engine.to_act(state))
            if not acting:
                break
            if name == "rummy" and state.phase is Phase.PLAYING and state.stage.value == "draw":
                start = state.hands[state.turn]  # the hand the turn began with
            seat = rng.choice(acting)
            actions = engine.timeout_action(state, seat)
            if engine.only_next(state) or len(acting) > 1:
                assert actions == []
            elif actions:
                before = engine.view(state, seat).to_dict()
                done, after = run(engine, state, seat)
                assert done == actions
                assert seat not in engine.to_act(after) or engine.only_next(after)
                own = name == "rummy" and RUMMY.pending_window(state)  # its discard stands
                if name == "rummy" and not own and after.phase is not Phase.HAND_OVER:
                    assert sorted(after.hands[seat]) == sorted(start)
                if name == "tiles":
                    assert len(after.racks[seat]) - len(state.racks[seat]) in (0, 1)
                assert before["seat"] == seat
                checked += 1
            state = engine.apply(state, seat, rng.choice(engine.legal_actions(state, seat)))
    assert checked > 50
