"""The bots' public API, exercised through the real engines: every action a bot returns is
accepted by ``apply``, the memory survives a JSON round trip, and hints have their shape."""

from __future__ import annotations

import json
import random

import pytest

import gameshack.rules.rummy as rummy
import gameshack.rules.tiles as tiles
from gameshack.bots import DIFFICULTIES, bot_identity, decide, hint
from gameshack.rules.common import derive_seed

ENGINES = {"rummy": rummy, "tiles": tiles}


def _self_play(game: str, seed: int, players: tuple[str, ...], max_actions: int = 2500) -> int:
    """Play a match to its end (or ``max_actions``) with memory stored as JSON between calls,
    as the server does; returns the number of bot decisions."""
    eng = ENGINES[game]
    state = eng.new_match(eng.Config(seats=len(players), target=200), seed)
    memories: list[str | None] = [None] * len(players)
    rng = random.Random(seed)
    decisions = 0
    for _ in range(max_actions):
        if eng.match_outcome(state) is not None:
            break
        seat = min(eng.to_act(state))
        mem = json.loads(memories[seat]) if memories[seat] else None
        action, new_mem = decide(game, players[seat], eng.view(state, seat), mem, rng)
        # apply raises IllegalAction on anything the rules refuse: that is the check.
        state = eng.apply(state, seat, action)
        memories[seat] = json.dumps(new_mem)
        assert new_mem.get("fallbacks", 0) == 0, f"plan was illegal: {action}"
        decisions += 1
    return decisions


@pytest.mark.parametrize("difficulty", DIFFICULTIES)
@pytest.mark.parametrize("seats", [2, 3, 4])
def test_rummy_bots_play_legal_matches(difficulty: str, seats: int) -> None:
    for i in range(2):
        seed = derive_seed(11, difficulty, seats, i)
        players = tuple(
            DIFFICULTIES[(DIFFICULTIES.index(difficulty) + s) % 3] for s in range(seats)
        )
        assert _self_play("rummy", seed, players) > 20


@pytest.mark.parametrize("difficulty", DIFFICULTIES)
@pytest.mark.parametrize("seats", [2, 3])
def test_tiles_bots_play_legal_matches(difficulty: str, seats: int) -> None:
    seed = derive_seed(12, difficulty, seats)
    players = tuple(DIFFICULTIES[(DIFFICULTIES.index(difficulty) + s) % 3] for s in range(seats))
    assert _self_play("tiles", seed, players, max_actions=1500) > 20


def test_bot_identity_is_random_but_reproducible() -> None:
    names = {bot_identity(random.Random(i)) for i in range(50)}
    assert len(names) > 20
    assert bot_identity(random.Random(3)) == bot_identity(random.Random(3))
    name, emoji = bot_identity(random.Random(0))
    assert name and emoji and not emoji.isascii()


def test_unknown_game_or_difficulty_is_a_clear_error() -> None:
    state = rummy.new_match(rummy.Config(), 1)
    with pytest.raises(ValueError, match="difficulty"):
        decide("rummy", "brutal", rummy.view(state, 0), None, random.Random(0))
    with pytest.raises(ValueError, match="game"):
        decide("chess", "easy", rummy.view(state, 0), None, random.Random(0))


def _rummy_to_stage(seed: int, stage: str) -> tuple[rummy.State, int]:
    state = rummy.new_match(rummy.Config(), seed)
    rng = random.Random(0)
    mem: list[dict[str, object] | None] = [None, None]
    for _ in range(500):
        seat = min(rummy.to_act(state))
        v = rummy.view(state, seat)
        if v.stage == stage and state.hand_no >= 1 and len(state.log) > 6:
            return state, seat
        action, mem[seat] = decide("rummy", "easy", v, mem[seat], rng)
        state = rummy.apply(state, seat, action)
    raise AssertionError("stage not reached")


def test_rummy_hint_shapes_are_json_ready() -> None:
    state, seat = _rummy_to_stage(5, "draw")
    h = hint("rummy", rummy.view(state, seat))
    json.dumps(h)
    assert h["stage"] == "draw" and isinstance(h["worth_it"], bool)
    if h["take"] is not None:
        assert h["cards"][0] == h["take"]
        assert f"take {h['take']}" in rummy.view(state, seat).legal
    state = rummy.apply(state, seat, rummy.Draw())
    h = hint("rummy", rummy.view(state, seat))
    json.dumps(h)
    assert h["stage"] == "play"
    hand = {rummy.card_str(c) for c in state.hands[seat]}
    assert set(h["highlight"]) <= hand
    assert h["discard"] in hand
    other = 1 - seat
    assert hint("rummy", rummy.view(state, other))["stage"] is None


def test_tiles_hint_is_the_solver_play() -> None:
    state = tiles.new_match(tiles.Config(seats=2), 9)
    seat = state.turn
    h = hint("tiles", tiles.view(state, seat))
    json.dumps(h)
    assert h["initial_meld"] is True
    if h["found"]:
        assert h["value"] >= 30
        # The hinted arrangement is accepted by the engine as it is.
        s = tiles.apply(state, seat, tiles.Arrange(tuple(tuple(x) for x in h["table"])))
        tiles.apply(s, seat, tiles.Confirm())
    assert hint("tiles", tiles.view(state, 1 - seat))["found"] is False
