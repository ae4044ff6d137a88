"""Random-play throughput of the Rummy engine.

Plays complete 2-player hands for about 10 seconds (give another number of seconds as the first
argument) and prints ``N hands/s`` and ``N actions/s``. Every action is chosen uniformly at
random from ``legal_actions`` — ``undo`` excluded unless nothing else is legal, and a pending
discard is always committed — so each action costs one ``legal_actions`` plus one ``apply``.
The figures are wall-clock; on a shared machine the per-CPU-second line shows what one free
core does.
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
        if isinstance(every[0], Commit):
            action = every[0]
        else:
            # Undo only when nothing else is legal (it would otherwise loop meld/undo).
            legal = [a for a in every if not isinstance(a, Undo)] or every
            action = rng.choice(legal)
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
    cpu_start = time.process_time()
    seed = 0
    while time.perf_counter() - start < seconds:
        state, n = play_hand(fresh_hand(seed), rng)
        hands += 1
        actions += n + 2
        seed += 1
        if state.phase is Phase.HAND_OVER:
            # A second hand of the same match too: exercises 'next' and the starter rotation.
            state, n = play_hand(apply(state, 0, NextHand()), rng)
            hands += 1
            actions += n + 1
    wall = time.perf_counter() - start
    cpu = time.process_time() - cpu_start
    print(f"{hands / wall:.0f} hands/s ({hands} complete 2-player random hands in {wall:.1f} s)")
    print(f"{actions / wall:.0f} actions/s ({actions / hands:.0f} actions per hand)")
    print(f"per CPU second: {hands / cpu:.0f} hands/s, {actions / cpu:.0f} actions/s")


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 10.0)
