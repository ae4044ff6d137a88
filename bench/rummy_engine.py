"""Random-play throughput of the Rummy engine.

Plays complete 2-player hands where every action is chosen uniformly at random from
``legal_actions`` (``undo`` excluded, so that a hand makes progress; a pending discard is always
committed), then prints ``N hands/s`` and ``N actions/s``. Runs for about 10 seconds.
"""

from __future__ import annotations

import random
import sys
import time

from gameshack.rules.rummy import (
    Commit,
    Config,
    Deal,
    NextHand,
    Phase,
    State,
    Undo,
    apply,
    legal_actions,
    new_match,
)


def play_hand(state: State, rng: random.Random) -> tuple[State, int]:
    """Play the current hand of ``state`` to its end; returns the state and actions taken."""
    actions = 0
    while state.phase is Phase.PLAYING:
        seat = state.turn
        every = legal_actions(state, seat)
        # Undo only when nothing else is legal (a multi-card pickup whose picked card the
        # player's own melds have made unplayable).
        legal = [a for a in every if not isinstance(a, Undo)] or every
        action = Commit() if isinstance(legal[0], Commit) else rng.choice(legal)
        state = apply(state, seat, action)
        actions += 1
    return state, actions


def fresh_hand(seed: int, seats: int = 2) -> State:
    state = new_match(Config(seats=seats), seed)
    for seat in range(seats):
        state = apply(state, seat, Deal())
    return state


def main(seconds: float = 10.0) -> None:
    rng = random.Random(1)
    hands = actions = 0
    start = time.perf_counter()
    seed = 0
    while time.perf_counter() - start < seconds:
        state = fresh_hand(seed)
        state, n = play_hand(state, rng)
        hands += 1
        actions += n
        seed += 1
        if state.phase is Phase.HAND_OVER:
            # Count a second hand of the same match too: exercises 'next' and the rotation.
            state = apply(state, 0, NextHand())
            state, n = play_hand(state, rng)
            hands += 1
            actions += n + 1
    elapsed = time.perf_counter() - start
    print(
        f"{hands / elapsed:.0f} hands/s ({hands} complete 2-player random hands in {elapsed:.1f} s)"
    )
    print(f"{actions / elapsed:.0f} actions/s ({actions / hands:.1f} actions per hand)")


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 10.0)
