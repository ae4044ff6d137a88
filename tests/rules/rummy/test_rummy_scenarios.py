"""One scenario per rule sentence (issue 2 and the seed), written in card notation.

Positions are built with ``position([...hands], discard=..., stock=..., melds=...)``; stock and
discard list cards bottom to top, so the last stock card is the next one drawn.
"""

from collections.abc import Callable

import pytest
from rummy_helpers import hand_of, play, position, started

from gameshack.rules.rummy import (
    Config,
    Deal,
    IllegalAction,
    Phase,
    State,
    Termination,
    apply,
    card_str,
    cards_str,
    first_draw_key,
    legal_actions,
    match_outcome,
    new_match,
    outcome,
    parse_action,
    parse_card,
    pending_discard,
    to_act,
    view,
)


def refused(code: str, fn: Callable[[], object]) -> None:
    with pytest.raises(IllegalAction) as err:
        fn()
    assert err.value.code == code, err.value


# --- Deal -------------------------------------------------------------------------------------


@pytest.mark.parametrize(("seats", "size"), [(2, 13), (3, 7), (4, 7)])
def test_deal_13_each_with_two_players_7_with_three_or_four(seats: int, size: int) -> None:
    state = started(seats, seed=3)
    assert [len(h) for h in state.hands] == [size] * seats
    # The top of the draw pile is turned up to start the discard pile.
    assert len(state.discard) == 1
    assert len(state.stock) == 52 - seats * size - 1


def test_seats_are_two_to_four_and_targets_are_fixed() -> None:
    for bad in (1, 5):
        with pytest.raises(ValueError):
            Config(seats=bad)
    with pytest.raises(ValueError):
        Config(target=250)
    for target in (None, 100, 200, 300, 500):
        assert Config(target=target).target == target


# --- First-deal draw --------------------------------------------------------------------------


def test_first_deal_draw_any_order_no_card_twice_highest_wins() -> None:
    state = new_match(Config(seats=4), seed=21)
    assert state.phase is Phase.DEAL_DRAW and to_act(state) == frozenset({0, 1, 2, 3})
    for seat in (2, 0, 3):
        state = apply(state, seat, Deal())
        refused("already_drew_for_deal", lambda s=state, x=seat: apply(s, x, Deal()))
    assert to_act(state) == frozenset({1})
    # The cards are public as they are revealed.
    assert view(state, 1).to_dict()["first_draw"][2] is not None
    state = apply(state, 1, Deal())
    cards = state.first_draw
    assert len(set(cards)) == 4
    winner = max(range(4), key=lambda s: first_draw_key(cards[s]))
    assert state.first_winner == winner and state.turn == winner and state.starter == winner
    assert state.phase is Phase.PLAYING


def test_first_deal_draw_ace_high_then_suits_spades_hearts_diamonds_clubs() -> None:
    key = lambda text: first_draw_key(parse_card(text))  # noqa: E731
    assert key("AC") > key("KS") > key("QS") > key("2S")
    assert key("7S") > key("7H") > key("7D") > key("7C")


def test_no_action_but_deal_during_the_first_deal_draw() -> None:
    state = new_match(Config(), seed=1)
    refused("wrong_phase", lambda: apply(state, 0, parse_action("draw")))


def test_turn_order_is_clockwise_and_later_hands_rotate_the_starter() -> None:
    state = position(["2S 3S 4S 5S", "2H 9H", "2D 9D"], discard="KC", stock="8C 9C 10C")
    state = play(state, "0: draw", "0: discard 10C", "0: commit")
    assert state.turn == 1
    state = play(state, "1: draw", "1: discard 9C", "1: commit")
    assert state.turn == 2
    state = play(state, "2: take 9C", "2: discard 9D", "2: commit")
    assert state.turn == 0
    # A later hand starts with the seat after the previous hand's starter, no new draw.
    over = state._replace(phase=Phase.HAND_OVER, starter=2)
    nxt = apply(over, 1, parse_action("next"))
    assert nxt.phase is Phase.PLAYING and nxt.starter == 0 and nxt.turn == 0
    assert nxt.hand_no == state.hand_no + 1 and nxt.first_draw == state.first_draw


# --- Drawing ----------------------------------------------------------------------------------


def test_draw_takes_the_top_of_the_stock() -> None:
    state = position(["2S 9D", "3H 4H"], discard="KC", stock="5C 6C")
    state = play(state, "0: draw")
    assert hand_of(state, 0) == "2S 9D 6C"
    assert [card_str(c) for c in state.stock] == ["5C"]


def test_take_top_of_discard_pile_is_a_single_take() -> None:
    state = position(["2S 9D", "3H 4H"], discard="7H KC")
    state = play(state, "0: take KC")
    assert hand_of(state, 0) == "2S 9D KC" and cards_str(state.discard) == "7H"
    assert state.picked is None  # no obligation to play it


def test_take_deeper_takes_every_card_above_and_the_picked_card_must_be_played() -> None:
    state = position(["7S 7D 2C 9D", "3H 4H"], discard="QH 7H 5C KC")
    state = play(state, "0: take 7H")
    assert hand_of(state, 0) == "7S 7H 7D 9D 2C 5C KC"
    assert cards_str(state.discard) == "QH"
    refused("must_play_picked_card", lambda: play(state, "0: discard 2C"))
    assert "discard 2C" not in [str(a) for a in legal_actions(state, 0)]
    state = play(state, "0: meld 7S 7H 7D", "0: discard KC", "0: commit")
    assert state.turn == 1


def test_deeper_pickup_refused_up_front_when_hand_and_table_cannot_use_it() -> None:
    state = position(["7S 2C 9D", "3H 4H"], discard="QH 7H 5C KC")
    refused("cannot_use_picked_card", lambda: play(state, "0: take 7H"))
    assert "take 7H" not in [str(a) for a in legal_actions(state, 0)]


def test_deeper_pickup_can_be_used_by_laying_off_on_the_table() -> None:
    state = position(["2C 9D", "3H 4H"], discard="8H 5C KC", melds=[("5H 6H 7H", 1)], stock="4C 6D")
    state = play(state, "0: take 8H", "0: layoff 8H 0", "0: discard KC", "0: commit")
    assert cards_str(state.melds[0].cards) == "5H 6H 7H 8H"
    assert state.melds[0].owners == (1, 1, 1, 0)  # the laid-off card scores for seat 0


def test_deeper_pickup_must_leave_a_card_to_discard() -> None:
    # KS KH KC is a set, but it would use every card held: nothing would be left to discard.
    state = position(["KS", "3H 4H"], discard="KH KC", melds=[("10S JS QS", 1)])
    refused("cannot_use_picked_card", lambda: play(state, "0: take KH"))
    # With one more card in hand the same pickup is fine.
    state = position(["KS 2D", "3H 4H"], discard="KH KC")
    state = play(state, "0: take KH", "0: meld KS KH KC", "0: discard 2D", "0: commit")
    assert outcome(state) is not None


def test_no_meld_or_layoff_or_discard_before_drawing() -> None:
    state = position(["7S 7H 7D 2C", "3H 4H"], discard="KC", melds=[("8C 9C 10C", 1)])
    refused("must_draw_first", lambda: play(state, "0: meld 7S 7H 7D"))
    refused("must_draw_first", lambda: play(state, "0: discard 2C"))
    refused("must_draw_first", lambda: play(state, "0: layoff JC 0"))


def test_only_one_draw_per_turn() -> None:
    state = play(position(["2S 9D", "3H 4H"], discard="KC"), "0: draw")
    refused("already_drew", lambda: play(state, "0: draw"))
    refused("already_drew", lambda: play(state, "0: take KC"))


def test_not_your_turn() -> None:
    state = position(["2S 9D", "3H 4H"], discard="KC")
    refused("not_your_turn", lambda: play(state, "1: draw"))
    assert legal_actions(state, 1) == []


# --- Melding and laying off -------------------------------------------------------------------


def test_meld_and_lay_off_any_number_of_times_onto_anyones_melds() -> None:
    state = position(
        ["7S 7H 7D 2C 3C 4C 5C 10S 9S", "3H 4H"],
        discard="KC",
        melds=[("JS QS KS", 1)],
        stock="3D 8D",
    )
    state = play(
        state,
        "0: draw",
        "0: meld 7S 7H 7D",
        "0: meld 2C 3C 4C",
        "0: layoff 5C 2",
        "0: layoff 9S 10S 0",
    )
    assert cards_str(state.melds[0].cards) == "9S 10S JS QS KS"
    assert state.melds[0].owners == (0, 0, 1, 1, 1)
    assert hand_of(state, 0) == "8D"


def test_invalid_melds_and_layoffs_are_refused_with_codes() -> None:
    state = play(
        position(["7S 7H 8D 2C 9H", "3H 4H"], discard="KC", melds=[("JS QS KS", 1)]),
        "0: draw",
    )
    refused("invalid_meld", lambda: play(state, "0: meld 7S 7H 8D"))
    refused("card_not_in_hand", lambda: play(state, "0: meld 7S 7H 7D"))
    refused("invalid_layoff", lambda: play(state, "0: layoff 9H 0"))
    refused("no_such_meld", lambda: play(state, "0: layoff 9H 5"))
    refused("duplicate_card", lambda: apply(state, 0, parse_action("meld 7S 7S 7H")))


def test_a_single_card_taken_from_the_discard_top_may_not_be_discarded_that_turn() -> None:
    state = play(position(["2S 9D", "3H 4H"], discard="7H KC"), "0: take KC")
    refused("cannot_discard_taken_card", lambda: play(state, "0: discard KC"))
    assert "discard KC" not in [str(a) for a in legal_actions(state, 0)]
    # The cards above a deeper pick are not restricted.
    deep = play(position(["7S 7D 9D", "3H 4H"], discard="7H KC"), "0: take 7H", "0: meld 7S 7H 7D")
    deep = play(deep, "0: discard KC")
    assert pending_discard(deep)


def test_a_meld_that_would_leave_no_discardable_card_is_refused() -> None:
    state = play(position(["7S 7H 7D", "3H 4H"], discard="KC"), "0: take KC")
    # Melding the sevens would leave only KC, which may not be discarded this turn.
    refused("no_discard_left", lambda: play(state, "0: meld 7S 7H 7D"))
    assert not any(str(a).startswith("meld") for a in legal_actions(state, 0))


def test_a_play_may_not_strand_the_picked_card() -> None:
    # The picked 8H can only be played in 6H 7H 8H: laying 7H off onto the sevens would
    # strand it, so that lay-off is refused.
    state = position(["6H 7H 2C 3S", "3H 4H"], discard="8H KC", melds=[("7S 7D 7C", 1)])
    state = play(state, "0: take 8H")
    refused("picked_card_unplayable", lambda: play(state, "0: layoff 7H 0"))
    state = play(state, "0: meld 6H 7H 8H", "0: discard KC")
    assert pending_discard(state)


# --- Discard, commit, going out ---------------------------------------------------------------


def test_discard_is_pending_until_commit_and_ends_the_turn() -> None:
    state = play(
        position(["2S 9D", "3H 4H"], discard="KC", stock="4C 5C"), "0: draw", "0: discard 9D"
    )
    assert pending_discard(state) and state.turn == 0
    refused("discard_pending", lambda: play(state, "0: discard 2S"))
    refused("no_pending_discard", lambda: play(position(["2S", "3H"], discard="KC"), "0: commit"))
    state = play(state, "0: commit")
    assert state.turn == 1 and cards_str(state.discard) == "KC 9D"


def test_the_hand_ends_the_instant_a_player_goes_out_and_scores() -> None:
    # Seat 0 had melded earlier (no doubling); seat 1 melded 3 queens and holds 2S 9H.
    state = position(
        ["5H 6H 7H 9C", "2S 9H"],
        discard="KD",
        melds=[("JS JH JD", 0), ("QS QH QD", 1)],
        stock="3C 8H",
    )
    state = play(state, "0: draw", "0: meld 5H 6H 7H 8H", "0: discard 9C")
    assert state.phase is Phase.PLAYING  # not before the commit
    state = play(state, "0: commit")
    assert state.phase is Phase.HAND_OVER
    result = outcome(state)
    assert result is not None and result.reason is Termination.WENT_OUT
    assert result.winners == (0,)
    # Winner: everything melded this hand (JS JH JD 30 + 5H-8H 20). Seat 1: 30 - (5 + 5).
    assert result.scores == (50, 20)
    assert state.totals == (50, 20)
    assert to_act(state) == frozenset({0, 1})


def test_one_turn_out_doubles_the_winner() -> None:
    state = position(["5H 6H 7H 9C 9S 9D KS", "2S 9H"], discard="KD", stock="3C 8H")
    state = play(
        state, "0: draw", "0: meld 5H 6H 7H 8H", "0: meld 9S 9D 9C", "0: discard KS", "0: commit"
    )
    result = outcome(state)
    assert result is not None and result.winners == (0,)
    assert state.results[-1].one_turn_out
    assert result.scores == (2 * (20 + 15), -10)


def test_non_winner_score_can_be_negative() -> None:
    state = position(["5H 6H 7H 9C", "AS AH KD QD"], discard="KC", stock="3C 8H")
    state = play(state, "0: draw", "0: meld 5H 6H 7H 8H", "0: discard 9C", "0: commit")
    result = outcome(state)
    assert result is not None
    assert result.scores == (40, -50)  # one-turn out 20 doubled; 15+15+10+10 in hand


# --- Stock running out ------------------------------------------------------------------------


def test_empty_stock_reshuffles_the_discard_pile_except_its_top_from_the_seed() -> None:
    def run(seed: int) -> tuple[int, ...]:
        state = position(["2S 9D", "3H 4H"], discard="5S 6S 7D 8C KC", stock="4C", seed=seed)
        state = play(state, "0: draw", "0: discard 9D", "0: commit")
        assert cards_str(state.discard) == "KC 9D"  # KC, the top when 4C was drawn, stayed put
        assert sorted(state.stock) == sorted(parse_card(c) for c in ("5S", "6S", "7D", "8C"))
        assert [e.kind for e in state.log[-3:]] == ["draw", "reshuffle", "discard"]
        return state.stock

    assert run(1) == run(1)  # replayable
    assert len({run(seed) for seed in range(6)}) > 1  # and really shuffled


def test_the_last_stock_draw_reshuffles_at_once_and_the_top_of_that_moment_stays() -> None:
    # The seed: "if the draw pile ever runs out, it's immediately reshuffled from the discard
    # pile — the current top card of the discard pile stays put".
    state = position(["2S 9D", "3H 4H"], discard="5S 6S 7D 8C KC", stock="4C")
    state = play(state, "0: draw")
    assert hand_of(state, 0) == "2S 9D 4C"
    assert cards_str(state.discard) == "KC"
    assert len(state.stock) == 4  # everything beneath KC
    mine = view(state, 0).to_dict()
    assert (mine["stock"], mine["discard"]) == (4, ["KC"])
    # The turn is private: the other seat still sees the pile and stock as committed.
    other = view(state, 1).to_dict()
    assert (other["stock"], other["discard"]) == (1, ["5S", "6S", "7D", "8C", "KC"])
    assert [e["kind"] for e in other["log"]] == [e["kind"] for e in mine["log"]]
    assert "reshuffle" not in [e["kind"] for e in mine["log"]]  # the log is committed facts
    state = play(state, "0: discard 9D", "0: commit")
    other = view(state, 1).to_dict()
    assert (other["stock"], other["discard"]) == (4, ["KC", "9D"])
    reshuffle = other["log"][-2]
    assert reshuffle["kind"] == "reshuffle" and reshuffle["seat"] == 0
    assert (reshuffle["cards"], reshuffle["stock"]) == (["KC"], 4)
    assert (
        str(view(state, 1).log[-2]) == "discard pile reshuffled into a stock of 4; KC stays on top"
    )


def test_the_card_kept_on_top_can_be_taken_by_the_next_turn() -> None:
    # Reshuffled at commit (the old rule), 7H would have gone into the stock out of reach.
    state = position(["2S 9D", "5H 6H 2C 3D"], discard="KC 7H", stock="4C")
    state = play(state, "0: draw", "0: discard 9D", "0: commit")
    assert cards_str(state.discard) == "7H 9D" and cards_str(state.stock) == "KC"
    assert parse_action("take 7H") in legal_actions(state, 1)
    state = play(state, "1: take 7H", "1: meld 5H 6H 7H", "1: discard 2C", "1: commit")
    assert cards_str(state.melds[0].cards) == "5H 6H 7H"
    assert cards_str(state.discard) == "2C"
    assert hand_of(state, 1) == "3D 9D"


def test_undo_after_the_reshuffling_draw_keeps_the_reshuffle() -> None:
    # A blind draw is never undone, so the reshuffle it caused stands; the later steps undo.
    state = position(["4S 5S 2H 9D", "3H 4H"], discard="5D 6D 7D 8C KC", stock="3S")
    state = play(state, "0: draw")
    stock, discard = state.stock, state.discard
    refused("cannot_undo_draw", lambda: play(state, "0: undo"))
    state = play(state, "0: meld 3S 4S 5S", "0: discard 9D", "0: undo", "0: undo")
    assert (state.stock, state.discard) == (stock, discard)
    assert [e.kind for e in state.turn_events] == ["draw", "reshuffle"]
    state = play(state, "0: discard 2H", "0: commit")
    assert [e.kind for e in state.log[-3:]] == ["draw", "reshuffle", "discard"]
    assert cards_str(state.discard) == "KC 2H" and len(state.stock) == 4


def test_nothing_beneath_the_top_when_the_stock_runs_out_reshuffles_at_commit() -> None:
    state = position(["2S 9D", "3H 4H"], discard="KC", stock="4C")
    state = play(state, "0: draw")
    assert state.stock == () and cards_str(state.discard) == "KC"
    state = play(state, "0: discard 9D", "0: commit")
    assert cards_str(state.stock) == "KC" and cards_str(state.discard) == "9D"
    assert state.log[-1].kind == "reshuffle" and cards_str(state.log[-1].cards) == "9D"


def test_nothing_to_draw_ends_the_hand_with_no_winner() -> None:
    # The discard pile was taken whole; the last stock card is drawn: nothing to reshuffle.
    state = position(["2S 9D", "3H 4H"], discard="", stock="4C", melds=[("JS QS KS", 1)])
    state = play(state, "0: draw", "0: discard 9D", "0: commit")
    result = outcome(state)
    assert result is not None and result.reason is Termination.STOCK_EXHAUSTED
    assert result.winners == ()
    # Everyone scores as a non-winner: played minus in hand.
    assert result.scores == (-10, 30 - 10)


def test_a_whole_reshuffled_stock_without_a_meld_ends_the_hand_blocked() -> None:
    state = position(["2S 9D", "3H 4H"], discard="5S KC", stock="4C")
    state = play(state, "0: draw", "0: discard 9D", "0: commit")  # reshuffle: 5S, KC stays
    assert len(state.stock) == 1
    state = play(state, "1: draw", "1: discard 3H", "1: commit")
    assert state.phase is Phase.PLAYING
    state = play(state, "0: draw", "0: discard 2S", "0: commit")
    result = outcome(state)
    assert result is not None and result.reason is Termination.BLOCKED and result.winners == ()


# --- Match target -----------------------------------------------------------------------------


def _going_out(totals: tuple[int, int], target: int | None) -> State:
    state = position(
        ["5H 6H 7H 9C", "2S"],
        discard="KD",
        melds=[("JS JH JD JC", 1), ("AS AH AD", 1)],
        stock="3C 8H",
        target=target,
    )._replace(totals=totals)
    return play(state, "0: draw", "0: meld 5H 6H 7H 8H", "0: discard 9C", "0: commit")


def test_match_ends_when_a_total_reaches_the_target_and_highest_total_wins() -> None:
    # Seat 0 goes out (+40, one-turn out) reaching 130; seat 1 scores 85 - 5 = +80 -> 175.
    state = _going_out((90, 95), target=100)
    assert state.phase is Phase.MATCH_OVER
    result = match_outcome(state)
    assert result is not None and result.reason is Termination.TARGET_REACHED
    assert result.scores == (130, 175) and result.winners == (1,)
    refused("match_over", lambda: apply(state, 0, parse_action("next")))
    assert to_act(state) == frozenset()


def test_equal_highest_totals_are_a_tie() -> None:
    state = _going_out((140, 100), target=100)
    result = match_outcome(state)
    assert result is not None and result.scores == (180, 180) and result.winners == (0, 1)


def test_below_target_or_no_target_plays_on() -> None:
    assert _going_out((0, 0), target=200).phase is Phase.HAND_OVER
    assert _going_out((900, 900), target=None).phase is Phase.HAND_OVER


# --- Undo -------------------------------------------------------------------------------------


def test_melds_and_layoffs_undo_one_step_at_a_time_most_recent_first() -> None:
    state = position(
        ["7S 7H 7D 2C 3C 4C 5C 9D", "3H 4H"], discard="KC", melds=[("JS QS KS", 1)], stock="10S"
    )
    state = play(state, "0: draw", "0: meld 7S 7H 7D", "0: meld 2C 3C 4C", "0: layoff 10S 0")
    state = play(state, "0: layoff 5C 2")
    assert view(state, 0).undo == "take back 5C from meld #2"
    state = play(state, "0: undo")
    assert cards_str(state.melds[2].cards) == "2C 3C 4C"
    state = play(state, "0: undo")
    assert cards_str(state.melds[0].cards) == "JS QS KS" and state.melds[0].owners == (1, 1, 1)
    state = play(state, "0: undo", "0: undo")
    assert len(state.melds) == 1 and hand_of(state, 0) == "7S 10S 7H 7D 9D 2C 3C 4C 5C"
    # The blind draw from the stock can never be undone.
    refused("cannot_undo_draw", lambda: play(state, "0: undo"))
    assert "undo" not in [str(a) for a in legal_actions(state, 0)]


def test_a_discard_pickup_is_undoable_when_it_is_the_last_remaining_step() -> None:
    state = position(["7S 7D 2C 9D", "3H 4H"], discard="QH 7H 5C KC")
    state = play(state, "0: take 7H", "0: meld 7S 7H 7D")
    state = play(state, "0: undo")
    assert view(state, 0).undo == "put 7H 5C KC back on the discard pile"
    state = play(state, "0: undo")
    assert cards_str(state.discard) == "QH 7H 5C KC"  # back in their order
    assert hand_of(state, 0) == "7S 7D 9D 2C"
    state = play(state, "0: draw")  # and the seat draws again, any way it likes
    assert len(state.hands[0]) == 5


def test_a_pending_discard_is_undoable_until_commit() -> None:
    state = play(position(["2S 9D", "3H 4H"], discard="KC", stock="4C 5C"), "0: draw")
    state = play(state, "0: discard 9D", "0: undo")
    assert not pending_discard(state) and hand_of(state, 0) == "2S 9D 5C"
    state = play(state, "0: discard 2S", "0: commit")
    refused("not_your_turn", lambda: play(state, "0: undo"))


# --- Privacy of the turn in progress ----------------------------------------------------------


def test_a_turn_is_invisible_to_others_until_commit() -> None:
    state = position(["7S 7D 2C 9D", "3H 4H"], discard="QH 7H 5C KC", melds=[("JS QS KS", 1)])
    before = view(state, 1).to_dict()
    for move in ("0: take 7H", "0: meld 7S 7H 7D", "0: discard 9D"):
        state = play(state, move)
        assert view(state, 1).to_dict() == before
    mine = view(state, 0).to_dict()
    assert mine["pending"] == "9D" and mine["taken"] == ["7H", "5C", "KC"]
    assert mine["melds"][1]["uncommitted"] == ["7S", "7H", "7D"]
    state = play(state, "0: commit")
    seen = view(state, 1)
    after = seen.to_dict()
    assert after["discard"] == ["QH", "9D"] and after["counts"] == [3, 2]
    texts = [str(e) for e in seen.log]
    assert texts[-3:] == [
        "seat 0 took 7H 5C KC from discard",
        "seat 0 melded 7S 7H 7D as #1",
        "seat 0 discarded 9D",
    ]
