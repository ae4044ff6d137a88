"""10,000 random legal 2-, 3- and 4-player hands played to their end without an exception.

The random player draws uniformly among the legal draws; after drawing, when some meld or
lay-off is legal it plays a random one four times in five, otherwise it discards a random legal
card (undo only when nothing else is legal). Uniform choice over all actions would nearly always
pick one of a dozen discards and almost never meld: hands would be longer without exercising
anything more.
"""

from __future__ import annotations

import random
import time

import pytest

from gameshack.rules.rummy import (
    Action,
    Commit,
    Config,
    Deal,
    LayOff,
    Meld,
    Phase,
    State,
    Undo,
    apply,
    legal_actions,
    new_match,
    outcome,
)


def random_choice(state: State, seat: int, rng: random.Random) -> Action:
    legal = legal_actions(state, seat)
    first = legal[0]
    if isinstance(first, Commit):
        return first
    if isinstance(first, (Meld, LayOff)) and rng.random() < 0.8:
        # legal_actions lists melds and lay-offs first, then discards, then undo.
        plays = [a for a in legal if isinstance(a, (Meld, LayOff))]
        return rng.choice(plays)
    others = [a for a in legal if not isinstance(a, (Meld, LayOff, Undo))] or legal
    return rng.choice(others)


def play_random_hand(seats: int, seed: int, rng: random.Random) -> tuple[State, int]:
    state = new_match(Config(seats=seats), seed)
    for seat in range(seats):
        state = apply(state, seat, Deal())
    steps = 0
    while state.phase is Phase.PLAYING:
        seat = state.turn
        state = apply(state, seat, random_choice(state, seat, rng))
        steps += 1
    return state, steps


@pytest.mark.slow
def test_ten_thousand_random_hands_end_cleanly() -> None:
    rng = random.Random(2026)
    reasons: dict[str, int] = {}
    start = time.process_time()
    hands = 0
    for seats, count in ((2, 4000), (3, 3000), (4, 3000)):
        for i in range(count):
            state, _ = play_random_hand(seats, seed=seats * 100_000 + i, rng=rng)
            result = outcome(state)
            assert result is not None
            cards = [c for h in state.hands for c in h]
            cards += [*state.stock, *state.discard, *(c for m in state.melds for c in m.cards)]
            assert sorted(cards) == list(range(52))
            assert len(result.scores) == seats
            reasons[result.reason.value] = reasons.get(result.reason.value, 0) + 1
            hands += 1
    assert hands == 10_000
    # Most random hands are won by going out; the no-winner endings happen but are rare.
    assert reasons["went_out"] > 8000, reasons
    print(f"{hands} hands in {time.process_time() - start:.1f} CPU s: {reasons}")
