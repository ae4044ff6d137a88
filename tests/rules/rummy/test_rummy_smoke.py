"""Seeded random play to the end of whole matches: the engine's basic contract holds."""

import json
import random

from rummy_helpers import random_step, started

from gameshack.rules.rummy import Phase, match_outcome, state_from_dict, state_to_dict, view


def test_random_matches_to_a_target_end_with_a_winner() -> None:
    rng = random.Random(11)
    for seats in (2, 3, 4):
        state = started(seats, seed=seats, target=100)
        for _ in range(20_000):
            if state.phase is Phase.MATCH_OVER:
                break
            state = random_step(state, rng)
            # Persistence round-trips exactly through JSON at every step.
            assert state_from_dict(json.loads(json.dumps(state_to_dict(state)))) == state
            json.dumps(view(state, 0).to_dict())
        result = match_outcome(state)
        assert result is not None
        assert max(result.scores) >= 100
        assert all(result.scores[w] == max(result.scores) for w in result.winners)
