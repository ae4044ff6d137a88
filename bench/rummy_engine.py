"""Random-play throughput of the Rummy engine.

Plays complete 2-player hands for about 10 seconds (give another number of seconds as the first
argument) and prints ``N hands/s`` and ``N actions/s``. Every action is chosen uniformly at
random from ``legal_actions`` — ``undo`` excluded unless nothing else is legal, and a pending
discard is always committed — so each action costs one ``legal_actions`` plus one ``apply``.
The machine is shared, so both wall-clock and per-CPU-second figures are printed; the CPU
figure (``time.process_time``) is the one to compare between runs. The first line says which
rules ran: the mypyc-compiled modules or the pure-Python ones (installed with
``GAMESHACK_PURE_PYTHON=1 pip install -e .``).

A second, clearly labelled line plays the *meld-when-possible* random policy for half as long:
when some meld or lay-off is legal it plays a uniformly random one, otherwise it chooses
uniformly among the other legal actions. Its hands are shorter and exercise the meld, lay-off
and picked-card paths far more.
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable

import gameshack.rules.rummy.state
from gameshack.rules.rummy import (
    Action,
    Commit,
    Config,
    Deal,
    LayOff,
    Meld,
    NextHand,
    Phase,
    State,
    Undo,
    apply,
    legal_actions,
    new_match,
)

Policy = Callable[[list[Action], random.Random], Action]


def uniform(every: list[Action], rng: random.Random) -> Action:
    """Uniform among the legal actions; a pending discard is committed, and undo is chosen only
    when nothing else is legal (it would otherwise loop meld/undo). ``legal_actions`` lists
    ``commit`` first and ``undo`` last, so neither needs a scan."""
    first = every[0]
    if type(first) is Commit:
        return first
    legal = every[:-1] if type(every[-1]) is Undo and len(every) > 1 else every
    return rng.choice(legal)


def meld_when_possible(every: list[Action], rng: random.Random) -> Action:
    """A random meld or lay-off whenever one is legal, else uniform among the rest (no undo)."""
    first = every[0]
    if type(first) is Commit:
        return first
    plays = [a for a in every if type(a) is Meld or type(a) is LayOff]
    if plays:
        return rng.choice(plays)
    legal = every[:-1] if type(every[-1]) is Undo and len(every) > 1 else every
    return rng.choice(legal)


def play_hand(state: State, rng: random.Random, policy: Policy = uniform) -> tuple[State, int]:
    """Play the current hand of ``state`` to its end; returns the state and actions taken."""
    actions = 0
    while state.phase is Phase.PLAYING:
        seat = state.turn
        state = apply(state, seat, policy(legal_actions(state, seat), rng))
        actions += 1
    return state, actions


def fresh_hand(seed: int, seats: int = 2) -> State:
    state = new_match(Config(seats=seats), seed)
    for seat in range(seats):
        state = apply(state, seat, Deal())
    return state


def run(policy: Policy, seconds: float, label: str) -> None:
    rng = random.Random(1)
    hands = actions = 0
    start = time.perf_counter()
    cpu_start = time.process_time()
    seed = 0
    while time.perf_counter() - start < seconds:
        state, n = play_hand(fresh_hand(seed), rng, policy)
        hands += 1
        actions += n + 2
        seed += 1
        if state.phase is Phase.HAND_OVER:
            # A second hand of the same match too: exercises 'next' and the starter rotation.
            state, n = play_hand(apply(state, 0, NextHand()), rng, policy)
            hands += 1
            actions += n + 1
    wall = time.perf_counter() - start
    cpu = time.process_time() - cpu_start
    print(f"{label}:")
    print(f"  {hands / wall:.0f} hands/s ({hands} complete 2-player random hands in {wall:.1f} s)")
    print(f"  {actions / wall:.0f} actions/s ({actions / hands:.0f} actions per hand)")
    print(f"  per CPU second: {hands / cpu:.0f} hands/s, {actions / cpu:.0f} actions/s")


def backend() -> str:
    """``compiled`` when the rules engine in use is the mypyc build, else ``pure``."""
    return "pure" if gameshack.rules.rummy.state.__file__.endswith(".py") else "compiled"


def main(seconds: float = 10.0) -> None:
    print(f"rules backend: {backend()} ({gameshack.rules.rummy.state.__file__})")
    run(uniform, seconds, "uniform random among legal actions")
    run(meld_when_possible, seconds / 2, "meld-when-possible random policy (not the headline)")


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 10.0)
