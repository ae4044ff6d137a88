"""A move changes what the other seats see only through what is public: after any move, either
no other seat's content changed or every other seat's did.

The service relies on it to skip views (``service.frames.Frames.contents``: when one other
seat's content is unchanged, it builds no other seat's). A seat's content is what the server
sends it about the game: its view, its legal actions and whose turn it is."""

from __future__ import annotations

import random
from typing import Any

import pytest

from gameshack.rules.engine import ENGINES


def content(engine: Any, state: Any, seat: int) -> tuple[Any, ...]:
    view = engine.view(state, seat).to_dict()
    return view, engine.legal_strings(state, seat, view), sorted(engine.to_act(state))


@pytest.mark.parametrize("seats", [3, 4])
@pytest.mark.parametrize("name", sorted(ENGINES))
def test_a_move_changes_every_other_seat_or_none(name: str, seats: int) -> None:
    engine = ENGINES[name]
    private = public = 0
    for seed in range(6):
        rng = random.Random(seed)
        state = engine.new_match(engine.config(seats, None), seed)
        for _ in range(700):
            acting = sorted(engine.to_act(state))
            if not acting:
                break
            seat = rng.choice(acting)
            actions = engine.legal_actions(state, seat)
            if not actions:
                break
            before = {s: content(engine, state, s) for s in range(seats)}
            state = engine.apply(state, seat, rng.choice(actions))
            changed = {
                s for s in range(seats) if s != seat and content(engine, state, s) != before[s]
            }
            assert changed in (set(), set(range(seats)) - {seat}), (seed, seat, changed)
            if changed:
                public += 1
            else:
                private += 1
    # Both kinds of move were seen (the property is not vacuous).
    assert private > 50 and public > 20, (private, public)
