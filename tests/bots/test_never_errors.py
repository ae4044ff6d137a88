"""A bot never errors and never plays an illegal action, from any position random legal play
can reach — including mid-turn states a bot would not create itself (half-made melds, deep
pickups by someone else's choice, a pending discard)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

import gameshack.rules.rummy as R
import gameshack.rules.tiles as T
from gameshack.bots import DIFFICULTIES, decide


def _random_walk(eng, seed: int, steps: int, seats: int):  # type: ignore[no-untyped-def]
    state = eng.new_match(eng.Config(seats=seats, target=200), seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if eng.match_outcome(state) is not None:
            break
        seat = min(eng.to_act(state))
        state = eng.apply(state, seat, rng.choice(eng.legal_actions(state, seat)))
    return state


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    steps=st.integers(0, 400),
    seats=st.sampled_from([2, 3, 4]),
    difficulty=st.sampled_from(DIFFICULTIES),
)
def test_rummy_bot_acts_legally_from_any_reachable_position(
    seed: int, steps: int, seats: int, difficulty: str
) -> None:
    state = _random_walk(R, seed, steps, seats)
    if R.match_outcome(state) is not None:
        return
    # A few bot steps in a row from there: each must be accepted by the engine.
    memory = None
    for _ in range(6):
        seat = min(R.to_act(state))
        action, memory = decide("rummy", difficulty, R.view(state, seat), memory, random.Random(0))
        state = R.apply(state, seat, action)
        assert memory.get("fallbacks", 0) == 0
        if R.match_outcome(state) is not None:
            break


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    steps=st.integers(0, 120),
    difficulty=st.sampled_from(DIFFICULTIES),
)
def test_tiles_bot_acts_legally_from_any_reachable_position(
    seed: int, steps: int, difficulty: str
) -> None:
    state = _random_walk(T, seed, steps, 2)
    if T.match_outcome(state) is not None:
        return
    memory = None
    for _ in range(4):
        seat = min(T.to_act(state))
        action, memory = decide("tiles", difficulty, T.view(state, seat), memory, random.Random(0))
        state = T.apply(state, seat, action)
        assert memory.get("fallbacks", 0) == 0
        if T.match_outcome(state) is not None:
            break
