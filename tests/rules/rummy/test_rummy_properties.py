"""Hypothesis properties over random legal play.

Every example plays a seeded random match (undo included) and checks, at every step: the 52
cards are accounted for exactly once; no seat's view shows a card it may not know; every listed
action applies and random unlisted ones are refused; and, at the end, every hand's scores equal
a recomputation from its public log, and replaying (seed, actions) rebuilds the same state.
"""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from gameshack.rules.rummy import (
    Action,
    Commit,
    Config,
    Deal,
    Discard,
    Draw,
    IllegalAction,
    LayOff,
    Meld,
    NextHand,
    Phase,
    State,
    Take,
    Undo,
    apply,
    card_str,
    card_value,
    legal_actions,
    new_match,
    parse_action,
    to_act,
    view,
)
from gameshack.rules.rummy.state import _shuffle


def all_cards(state: State) -> list[int]:
    cards = [c for h in state.hands for c in h]
    cards += [*state.stock, *state.discard, *(c for m in state.melds for c in m.cards)]
    if state.pending is not None:
        cards.append(state.pending)
    return cards


def view_cards(data: Any, skip: frozenset[str] = frozenset({"first_draw", "log"})) -> set[str]:
    """Every card string anywhere in a view dict (the first-deal draw is another deck)."""
    found: set[str] = set()
    if isinstance(data, dict):
        for key, value in data.items():
            if key not in skip:
                found |= view_cards(value, skip)
    elif isinstance(data, list):
        for value in data:
            found |= view_cards(value, skip)
    elif isinstance(data, str):
        found.add(data)
    return found


def secrets_for(state: State, seat: int) -> set[str]:
    """Cards ``seat`` may not know now: the stock, and other seats' cards that never became
    public (their hands, and an active seat's uncommitted melds and pending discard) — minus the
    cards they were publicly seen taking from the discard pile, and cards still public where
    they lay at the last commit."""
    secret = set(state.stock)
    for other, hand in enumerate(state.hands):
        if other != seat:
            secret |= set(hand)
    if state.phase is Phase.PLAYING and state.turn != seat:
        secret |= {c for m in state.melds for c in m.cards}
        if state.pending is not None:
            secret.add(state.pending)
    # Cards seen taken from the discard pile, and cards an active seat has privately picked up
    # that still sit, publicly, where they lay at the last commit, are not secret.
    public = {c for e in state.log if e.kind == "take" for c in e.cards}
    public |= set(state.pub_discard) | {c for m in state.pub_melds for c in m.cards}
    return {card_str(c) for c in secret - public}


def random_unlisted(state: State, seat: int, rng: random.Random) -> Action:
    hand = list(state.hands[seat]) or [rng.randrange(52)]
    n = len(state.melds) + 1
    return rng.choice(
        [
            Draw(),
            Undo(),
            Commit(),
            Deal(),
            NextHand(),
            Take(rng.randrange(52)),
            Discard(rng.randrange(52)),
            Discard(rng.choice(hand)),
            Meld(tuple(rng.sample(range(52), 3))),
            Meld(tuple(rng.sample(hand, min(3, len(hand))))),
            LayOff((rng.choice(hand),), rng.randrange(n)),
            LayOff(tuple(rng.sample(hand, min(2, len(hand)))), rng.randrange(n)),
        ]
    )


def check_hand_scores(
    state: State, log: tuple[Any, ...], hands: tuple[tuple[int, ...], ...]
) -> None:
    """The finished hand's scores, recomputed from its public log and the cards left."""
    result = state.results[-1]
    n = state.config.seats
    played = [0] * n
    for e in log:
        if e.kind in ("meld", "layoff"):
            played[e.seat] += sum(card_value(c) for c in e.cards)
    in_hand = [sum(card_value(c) for c in h) for h in hands]
    expected = [played[s] - in_hand[s] for s in range(n)]
    outs = [e.seat for e in log if e.kind == "out"]
    if outs:
        winner = outs[0]
        # One-turn out: none of the winner's plays came before the last other seat's discard.
        discards = [i for i, e in enumerate(log) if e.kind == "discard" and e.seat != winner]
        cut = discards[-1] if discards else -1
        early = any(e.kind in ("meld", "layoff") and e.seat == winner for e in log[: cut + 1])
        expected[winner] = played[winner] * (1 if early else 2)
        assert in_hand[winner] == 0
    assert list(result.scores) == expected, (result, expected)


@settings(max_examples=15, deadline=None)
@given(
    seed=st.integers(0, 2**63 - 1),
    seats=st.sampled_from([2, 3, 4]),
    target=st.sampled_from([None, 100]),
    rng_seed=st.integers(0, 2**32 - 1),
)
def test_random_legal_play_keeps_every_invariant(
    seed: int, seats: int, target: int | None, rng_seed: int
) -> None:
    rng = random.Random(rng_seed)
    config = Config(seats=seats, target=target)
    state = new_match(config, seed)
    history: list[tuple[int, str]] = []
    for _ in range(300):
        if state.phase is Phase.MATCH_OVER:
            break
        seat = rng.choice(sorted(to_act(state)))
        legal = legal_actions(state, seat)
        assert legal, "a seat that may act always has a legal action"
        # Every listed action applies (the generator and the validator agree)...
        for action in legal:
            apply(state, seat, action)
        # ...and unlisted ones are refused, by any seat.
        for _ in range(6):
            who = rng.randrange(seats)
            action = random_unlisted(state, who, rng)
            if action in legal_actions(state, who):
                apply(state, who, action)
            else:
                try:
                    apply(state, who, action)
                except IllegalAction:
                    pass
                else:
                    raise AssertionError(f"unlisted {action} by seat {who} was accepted")
        # Random legal play (undo rarely, so that hands progress).
        choices = [a for a in legal if not isinstance(a, Undo)] or legal
        action = rng.choice(legal if rng.random() < 0.1 else choices)
        assert parse_action(str(action)) == action
        before = state
        state = apply(state, seat, action)
        history.append((seat, str(action)))
        if state.phase is not Phase.DEAL_DRAW:
            assert sorted(all_cards(state)) == list(range(52))
        for v in range(seats):
            data = view(state, v).to_dict()
            json.dumps(data)
            leaked = view_cards(data) & secrets_for(state, v)
            assert not leaked, f"seat {v} sees {leaked}"
        if before.phase is Phase.PLAYING and state.phase is not Phase.PLAYING:
            check_hand_scores(state, state.log, state.hands)
    # Replay from (seed, actions) is exact.
    replay = new_match(config, seed)
    for seat, text in history:
        replay = apply(replay, seat, parse_action(text))
    assert replay == state


@given(seed=st.integers(0, 2**64 - 1), size=st.integers(0, 60))
def test_engine_shuffle_is_random_shuffle(seed: int, size: int) -> None:
    # Deals and reshuffles use the engine's own loop (fast when compiled): it must give the
    # permutation random.Random.shuffle gives, and leave the generator in the same state, or
    # stored games would replay differently.
    ours, theirs = list(range(size)), list(range(size))
    rng_ours, rng_theirs = random.Random(seed), random.Random(seed)
    _shuffle(rng_ours, ours)
    rng_theirs.shuffle(theirs)
    assert ours == theirs
    assert rng_ours.getrandbits(64) == rng_theirs.getrandbits(64)
