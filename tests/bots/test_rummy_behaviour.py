"""Each named behaviour of the Rummy bots, on real engine positions written in card notation."""

from __future__ import annotations

import random

import gameshack.rules.rummy as R
from gameshack.bots import decide
from gameshack.bots.rummy.bot import situation
from gameshack.bots.rummy.brain import HARD, MEDIUM, risk
from gameshack.bots.rummy.memory import update_memory

from .rummy_positions import play_turn, position


def _discard(actions: list[str]) -> str:
    assert actions[-1].startswith("discard "), actions
    return actions[-1].split()[1]


# --------------------------------------------------------------------------- Easy


def test_easy_melds_what_it_can_and_discards_its_least_useful_card() -> None:
    state = position("7S 7H 7D 2C 3C KD 9H", opponent_count=10)
    actions, _ = play_turn(state, "easy")
    assert actions[0] == "meld 7S 7H 7D"
    # KD and 9H are singletons; 2C-3C wait for AC/4C. The king is the costlier to keep.
    assert _discard(actions) == "KD"


def test_easy_never_discards_the_8h_when_5h_6h_7h_is_on_the_table() -> None:
    # The 8H is the lone card of the hand: without the table it would be the natural discard.
    state = position("8H QS QD 4C 5C", table=[("5H 6H 7H", 1)], opponent_count=9)
    actions, _ = play_turn(state, "easy")
    assert "discard 8H" not in actions
    assert "layoff 8H 0" in actions


def test_easy_does_not_hand_over_a_card_completing_cards_the_opponent_holds() -> None:
    # The opponent took the 9C and the 9D from the pile in earlier turns and still holds them.
    log = [(1, "take", "9C"), (1, "discard", "2S"), (0, "draw", ""), (0, "discard", "3S"),
           (1, "take", "9D"), (1, "discard", "4S")]  # fmt: skip
    state = position("9S JH JD 4H 5H", pile="2S 3S 4S", opponent="9C 9D", opponent_count=9, log=log)
    actions, _ = play_turn(state, "easy")
    assert _discard(actions) != "9S"  # the lone card, but it would complete their 9s
    blind = position("9S JH JD 4H 5H", pile="2S 3S 4S", opponent_count=9)
    actions, _ = play_turn(blind, "easy")
    assert _discard(actions) == "9S"


# --------------------------------------------------------------------------- Medium


def test_medium_declines_a_multi_card_pickup_that_strands_four_cards() -> None:
    # Taking down to the 9C makes 9S 9H 9C (15 points) but leaves KD QS AH 2C (40 points)
    # unplayable in hand while the opponent is down to four cards.
    state = position("9S 9H 4D 5D JC", pile="9C KD QS AH 2C", opponent_count=4, stage="draw")
    v = R.view(state, 0)
    assert "take 9C" in v.legal
    action, _ = decide("rummy", "medium", v, None, random.Random(0))
    assert str(action) == "draw"


def test_medium_takes_a_deep_pickup_that_melds_everything_it_takes() -> None:
    state = position("9S 9H 4D 5D JC", pile="2C 9C 6D", opponent_count=10, stage="draw")
    action, _ = decide("rummy", "medium", R.view(state, 0), None, random.Random(0))
    assert str(action) == "take 9C"  # 9S 9H 9C and 4D 5D 6D: both melds, nothing stranded


def test_medium_remembers_interest_and_discards_what_the_opponent_declined() -> None:
    # The opponent took the 7C (and holds it) and passed on the 4S for a stock draw. Of two
    # otherwise equal singletons, Medium gives away the 4H, not the 7H.
    log = [(1, "take", "7C"), (1, "discard", "4S"), (0, "draw", ""), (0, "discard", "QD"),
           (1, "draw", ""), (1, "discard", "KC")]  # fmt: skip
    pile = "4S QD KC"
    state = position("4H 7H JS JD 10C", pile=pile, opponent="7C", opponent_count=12, log=log)
    v = R.view(state, 0)
    mem = update_memory(None, hand_no=1, seats=2, me=0, log=v.log)
    assert mem["opp"]["1"]["held"] == [R.parse_card("7C")]
    assert R.parse_card("QD") in mem["opp"]["1"]["declined"]
    medium, _ = play_turn(state, "medium")
    assert _discard(medium) == "4H"


def test_memory_is_json_ready_and_survives_a_restart() -> None:
    import json

    log = [(1, "take", "7C"), (1, "discard", "4S")]
    state = position("4H 7H JS", pile="4S", opponent="7C", opponent_count=12, log=log)
    v = R.view(state, 0)
    _, mem = decide("rummy", "hard", v, None, random.Random(0))
    restored = json.loads(json.dumps(mem))
    a1, _ = decide("rummy", "hard", v, restored, random.Random(0))
    a2, _ = decide("rummy", "hard", v, mem, random.Random(0))
    assert a1 == a2
    assert restored["opp"]["1"]["held"] == [R.parse_card("7C")]


# --------------------------------------------------------------------------- Hard


def test_hard_does_not_discard_a_card_completing_a_pair_the_opponent_picked_up() -> None:
    log = [(1, "take", "4C"), (1, "discard", "2D"), (0, "draw", ""), (0, "discard", "3D"),
           (1, "take", "4H"), (1, "discard", "5S")]  # fmt: skip
    hand, pile = "4S KH KD QC JC", "2D 3D 5S"
    state = position(hand, pile=pile, opponent="4C 4H", opponent_count=10, log=log)
    actions, _ = play_turn(state, "hard")
    assert _discard(actions) != "4S"
    # Without having seen the pickups, the lone four is exactly what it would throw.
    blind = position(hand, pile=pile, opponent="4C 4H", opponent_count=10)
    actions, _ = play_turn(blind, "hard")
    assert _discard(actions) == "4S"


def test_hard_does_not_feed_a_free_meld_from_deep_in_the_discard_pile() -> None:
    # 9C and 9D lie deep in the pile: a 9H on top lets the opponent take down to the 9C and
    # meld three nines for nothing. Hard sees the whole pile; Medium looks only near the top.
    pile = "9C 2S 9D 3H KS 6C 4D"
    state = position("9H 5S 6S JC QD", pile=pile, opponent_count=12)
    hard, _ = play_turn(state, "hard")
    assert _discard(hard) != "9H"
    medium, _ = play_turn(state, "medium")
    assert _discard(medium) == "9H"  # the difference between the two levels


def test_hard_risk_appetite_follows_the_match_score() -> None:
    def appetite(totals: tuple[int, int]) -> float:
        state = position("4H 7H JS JD 10C", opponent_count=9, totals=totals)
        v = R.view(state, 0)
        return risk(situation(v, update_memory(None, hand_no=1, seats=2, me=0, log=v.log)), HARD)

    even = appetite((60, 60))
    ahead_near_target = appetite((170, 120))
    behind_near_target = appetite((120, 170))
    # Ahead near the target: points in hand weigh more (shed them, get out early).
    assert ahead_near_target > even
    # Behind while the opponent nears the target: chase points, hold more.
    assert behind_near_target < even
    # Medium does not look at the score.
    state = position("4H 7H JS JD 10C", opponent_count=9, totals=(170, 120))
    v = R.view(state, 0)
    sit = situation(v, update_memory(None, hand_no=1, seats=2, me=0, log=v.log))
    assert risk(sit, MEDIUM) < ahead_near_target
