"""Hypothesis properties over random legal play.

- the 106 tiles are always accounted for exactly once (racks, pool, committed table), and the
  arrangement in progress only ever holds table tiles and the acting seat's own rack tiles;
- a view depends only on what its seat may know: re-dealing every other rack and the pool, or
  changing another seat's arrangement in progress, leaves it byte-for-byte identical;
- every action ``legal_actions`` lists is accepted by ``apply``; refused actions change nothing;
- replay from (seed, action notation) is exact, and states survive ``state_to_dict`` as JSON.
"""

from __future__ import annotations

import json
import random
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st
from tiles_random_player import choose_play, fiddle_moves

from gameshack.rules.common import IllegalAction
from gameshack.rules.tiles import (
    NUM_TILES,
    Action,
    Config,
    Confirm,
    Draw,
    NextRound,
    Phase,
    State,
    apply,
    legal_actions,
    new_match,
    parse_action,
    state_from_dict,
    state_to_dict,
    to_act,
    view,
)


def assert_conserved(s: State) -> None:
    committed = [t for st_ in s.table for t in st_]
    everything = sorted([*committed, *s.pool, *(t for r in s.racks for t in r)])
    assert everything == list(range(NUM_TILES))
    if s.work is not None:
        assert s.phase is Phase.PLAYING
        working = [t for st_ in s.work for t in st_]
        assert len(working) == len(set(working))
        assert set(committed) <= set(working)
        assert set(working) <= set(committed) | set(s.racks[s.turn])
        assert all(st_ for st_ in s.work)


def scrambled(s: State, seat: int, rng: random.Random) -> State:
    """What ``seat`` cannot tell apart from ``s``: other racks and the pool re-dealt, other
    seats' arrangements forgotten."""
    if s.turn != seat:
        s = replace(s, work=None)
    hidden = [t for i, r in enumerate(s.racks) if i != seat for t in r] + list(s.pool)
    rng.shuffle(hidden)
    racks = []
    for i, r in enumerate(s.racks):
        if i == seat:
            racks.append(r)
        else:
            racks.append(tuple(hidden[: len(r)]))
            hidden = hidden[len(r) :]
    return replace(s, racks=tuple(racks), pool=tuple(hidden))


def assert_views_private(s: State, rng: random.Random) -> None:
    if s.phase is not Phase.PLAYING:
        return  # once a round is over its racks are shown, to justify the scores
    for seat in range(s.seats):
        mine = json.dumps(view(s, seat).to_dict(), sort_keys=True)
        other = json.dumps(view(scrambled(s, seat, rng), seat).to_dict(), sort_keys=True)
        assert mine == other
        d = json.loads(mine)
        assert "pool" not in d and d["pool_size"] == len(s.pool)
        assert sorted(x["tile"] for x in d["rack"]) == sorted(
            t
            for t in s.racks[seat]
            if s.turn != seat or s.work is None or t not in {u for st_ in s.work for u in st_}
        )


def play(
    seed: int, seats: int, target: int, rounds: int, checks: bool
) -> tuple[State, list[tuple[int, str]]]:
    """Random legal play: fiddling moves from ``legal_actions``, refused confirms, real plays
    and draws; returns the final state and the action log in notation."""
    rng = random.Random(seed)
    s = new_match(Config(seats=seats, target=target), seed)
    log: list[tuple[int, str]] = []

    def do(seat: int, action: Action) -> None:
        nonlocal s
        s = apply(s, seat, action)
        log.append((seat, str(action)))
        if checks:
            assert_conserved(s)
            # Views are the costly check; a random tenth of the states still covers every
            # kind of position (mid-arrangement, after draws, after plays) across examples.
            if rng.random() < 0.1 or s.phase is not Phase.PLAYING:
                assert_views_private(s, rng)

    while s.phase is not Phase.MATCH_OVER and s.round_no <= rounds:
        if s.phase is Phase.ROUND_OVER:
            if s.round_no == rounds:
                break
            do(rng.choice(sorted(to_act(s))), NextRound())
            continue
        seat = s.turn
        if rng.random() < 0.3:
            for a in fiddle_moves(s, seat, rng, rng.randint(1, 6)):
                do(seat, a)
            if checks:
                legal = legal_actions(s, seat)
                for a in rng.sample(legal, min(4, len(legal))):
                    if not isinstance(a, Draw | Confirm):
                        apply(s, seat, a)  # listed => accepted
                if Confirm() not in legal:
                    before = s
                    try:
                        apply(s, seat, Confirm())
                    except IllegalAction:
                        assert s == before
                    else:
                        raise AssertionError("confirm accepted but not listed as legal")
        play_ = choose_play(s, seat, rng)
        if play_ is not None:
            do(seat, play_)
            assert Confirm() in legal_actions(s, seat)
            do(seat, Confirm())
        else:
            do(seat, Draw())
    return s, log


@settings(max_examples=10, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    seats=st.integers(2, 4),
    target=st.sampled_from([20, 60, 200]),
)
def test_random_play_conserves_tiles_and_hides_secrets(seed: int, seats: int, target: int) -> None:
    s, _ = play(seed, seats, target, rounds=2, checks=True)
    assert s.phase is not Phase.PLAYING


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**32), seats=st.integers(2, 4), target=st.sampled_from([20, 200]))
def test_replay_from_seed_and_actions_is_exact(seed: int, seats: int, target: int) -> None:
    final, log = play(seed, seats, target, rounds=2, checks=False)
    s = new_match(Config(seats=seats, target=target), seed)
    for seat, text in log:
        s = apply(s, seat, parse_action(text))
    assert s == final
    assert state_from_dict(json.loads(json.dumps(state_to_dict(final)))) == final
