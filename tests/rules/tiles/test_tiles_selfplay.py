"""2,000 random rounds (2–4 seats) played to their end without an exception.

The players make real plays (rack-only sets, tiles added to table sets, initial melds) found by
``tiles_random_player``; otherwise they draw. Matches continue with ``next`` so later rounds,
the starting-seat rotation and the match end are exercised too.
"""

from __future__ import annotations

import os
import random
import time
from collections import Counter

import pytest
from tiles_random_player import random_turn

from gameshack.rules.common import Termination
from gameshack.rules.tiles import (
    JOKER,
    NUM_TILES,
    Config,
    NextRound,
    Phase,
    apply,
    face_of,
    match_outcome,
    new_match,
    round_outcome,
)

MAX_ROUNDS_PER_MATCH = 6
ROUNDS = int(os.environ.get("TILES_SELFPLAY_ROUNDS", "2000"))


@pytest.mark.slow
def test_two_thousand_random_rounds() -> None:
    started = time.perf_counter()
    reasons: Counter[Termination] = Counter()
    plays = jokers_played = matches_over = rounds = actions = 0
    match_no = 0
    while rounds < ROUNDS:
        seats = 2 + match_no % 3
        rng = random.Random(match_no)
        s = new_match(Config(seats=seats, target=rng.choice([10, 30, 200])), seed=match_no)
        match_no += 1
        while rounds < ROUNDS:
            starter = s.starter
            while s.phase is Phase.PLAYING:
                seat = s.turn
                for action in random_turn(s, seat, rng):
                    s = apply(s, seat, action)
                    actions += 1
            rounds += 1
            result = round_outcome(s)
            assert result is not None
            reasons[result.reason] += 1
            assert sum(len(r) for r in s.racks) + len(s.pool) + sum(map(len, s.table)) == NUM_TILES
            played = [
                t for e in s.log if e.round_no == s.round_no and e.kind == "play" for t in e.tiles
            ]
            plays += len(played)
            jokers_played += sum(1 for t in played if face_of(t) == JOKER)
            if result.reason is Termination.WENT_OUT:
                (winner,) = result.winners
                assert s.racks[winner] == ()
                assert result.scores[winner] == -sum(
                    sc for i, sc in enumerate(result.scores) if i != winner
                )
            assert s.totals == tuple(map(sum, zip(*(r.scores for r in s.results), strict=True)))
            if s.phase is Phase.MATCH_OVER or s.round_no == MAX_ROUNDS_PER_MATCH:
                if s.phase is not Phase.MATCH_OVER:
                    break  # a fresh match (seed, seat count) covers more than an endless one
                matches_over += 1
                final = match_outcome(s)
                assert final is not None and max(s.totals) >= s.config.target
                assert all(s.totals[w] == max(s.totals) for w in final.winners)
                break
            s = apply(s, rng.randrange(seats), NextRound())
            assert s.starter == (starter + 1) % seats
    elapsed = time.perf_counter() - started
    print(
        f"{rounds} rounds, {actions} actions in {elapsed:.1f}s; {dict(reasons)}; "
        f"{plays} tiles played ({jokers_played} jokers); {matches_over} matches finished"
    )
    # The rounds must be real games: both ways a round can end, many tiles and jokers played.
    assert reasons[Termination.WENT_OUT] > 20 and reasons[Termination.BLOCKED] > 20
    assert plays > 20 * ROUNDS and jokers_played > ROUNDS // 4
    assert matches_over > 0
