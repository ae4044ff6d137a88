"""Both games implement :class:`GameEngine`, and their outcomes mean the same thing.

``mypy --strict`` checks the signatures (each game's ``ENGINE`` is declared as a
``GameEngine``); these tests check the values: the registry, the server facts, and that
``outcome`` / ``hand_outcome`` / ``match_outcome`` agree between the games at every stage of a
match — None while a hand/round is played, the hand/round's result while it is over, the
match's at the end.
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest

from gameshack.rules import rummy, tiles
from gameshack.rules.common import GameEngine, Outcome, Termination
from gameshack.rules.engine import ENGINES, engine

MEMBERS = sorted(n for n in vars(GameEngine) if not n.startswith("_"))


def test_the_registry_holds_each_game_s_engine_by_its_name() -> None:
    assert ENGINES == {"rummy": rummy.ENGINE, "tiles": tiles.ENGINE}
    assert engine("rummy") is rummy.ENGINE and engine("tiles") is tiles.ENGINE
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        engine("chess")


@pytest.mark.parametrize("name", ["rummy", "tiles"])
def test_every_member_of_the_protocol_is_implemented(name: str) -> None:
    assert {"apply", "outcome", "hand_outcome", "match_outcome", "legal_strings"} <= set(MEMBERS)
    eng = ENGINES[name]
    missing = [m for m in MEMBERS if not hasattr(eng, m)]
    assert not missing
    assert eng.name == name


def test_the_server_facts_of_each_game() -> None:
    r, t = rummy.ENGINE, tiles.ENGINE
    assert r.server_actions == {"commit"} and r.grace_action == "commit"
    assert r.server_only(" Commit ") and not r.server_only("discard 9D")
    assert t.server_actions == frozenset() and t.grace_action is None
    assert not t.server_only("commit")
    assert r.starts_when_full and not t.starts_when_full
    assert r.config(3, None) == rummy.Config(seats=3, target=None)
    assert r.config(2, 500) == rummy.Config(seats=2, target=500)
    assert t.config(4, None) == tiles.Config(seats=4, target=200)
    assert t.config(2, 50) == tiles.Config(seats=2, target=50)


def check_outcomes(eng: GameEngine[Any, Any, Any], state: Any) -> Outcome | None:
    """The outcome rules every engine keeps; returns the hand/round result, if one is over."""
    out, hand, match = eng.outcome(state), eng.hand_outcome(state), eng.match_outcome(state)
    if match is not None:
        assert out == match and match.reason is Termination.TARGET_REACHED
        assert hand is not None and hand.reason is not Termination.TARGET_REACHED
        assert not eng.only_next(state) and eng.to_act(state) == frozenset()
    elif hand is not None:
        assert out == hand and eng.only_next(state)
    else:
        assert out is None and not eng.only_next(state)
    return hand


def test_rummy_outcomes_through_a_random_match() -> None:
    eng = rummy.ENGINE
    rng = random.Random(30)
    state = eng.new_match(eng.config(2, 300), seed=30)
    ended = 0
    windows = 0
    for _ in range(20_000):
        hand = check_outcomes(eng, state)
        assert eng.hands_finished(state) == ended + (hand is not None)
        if eng.match_outcome(state) is not None:
            break
        seat = min(eng.to_act(state))
        legal = eng.legal_actions(state, seat)
        shown = eng.legal_strings(state, seat, eng.view(state, seat).to_dict())
        assert shown == [str(a) for a in legal if not eng.server_only(str(a))]
        if eng.pending_window(state):
            windows += 1
            assert eng.grace_action in [str(a) for a in legal]
            assert eng.grace_action not in shown
            action = eng.parse_action(eng.grace_action or "")
        else:
            action = rng.choice([a for a in legal if str(a) != "undo"] or legal)
        if hand is not None:
            ended += 1
        state = eng.apply(state, seat, action)
    else:
        pytest.fail("no match end in 20,000 actions")
    assert ended >= 1 and windows > 0
    assert eng.hands_finished(state) == ended + 1


def _tiles_ids(text: str, used: set[int]) -> tuple[int, ...]:
    out = []
    for face in tiles.parse_faces(text):
        tile = next(t for t in tiles.ALL_TILES if tiles.face_of(t) == face and t not in used)
        used.add(tile)
        out.append(tile)
    return tuple(out)


def _tiles_going_out(target: int, totals: tuple[int, int]) -> tiles.State:
    """Seat 0 (melded) holds R1 R2 R3 and is to play; seat 1 holds K13 K12."""
    used: set[int] = set()
    mine, theirs = _tiles_ids("R1 R2 R3", used), _tiles_ids("K13 K12", used)
    base = tiles.ENGINE.new_match(tiles.ENGINE.config(2, target), seed=1)
    return replace(
        base,
        turn=0,
        starter=0,
        racks=(mine, theirs),
        pool=tuple(t for t in tiles.ALL_TILES if t not in used),
        table=(),
        work=None,
        melded=(True, True),
        totals=totals,
    )


@pytest.mark.parametrize(("target", "totals", "over"), [(200, (0, 0), False), (50, (30, 0), True)])
def test_tiles_outcomes_at_a_round_end_and_a_match_end(
    target: int, totals: tuple[int, int], over: bool
) -> None:
    eng = tiles.ENGINE
    state = _tiles_going_out(target, totals)
    assert check_outcomes(eng, state) is None and eng.hands_finished(state) == 0
    assert eng.legal_strings(state, 0, eng.view(state, 0).to_dict()) == ["draw"]
    assert not eng.pending_window(state)
    state = eng.apply(state, 0, tiles.Arrange((state.racks[0],)))
    assert eng.legal_strings(state, 0, eng.view(state, 0).to_dict()) == [
        "draw",
        "confirm",
        "reset",
    ]
    state = eng.apply(state, 0, eng.parse_action("confirm"))
    round_result = Outcome(Termination.WENT_OUT, (0,), (25, -25))
    assert check_outcomes(eng, state) == round_result
    assert eng.hands_finished(state) == 1
    if over:
        assert eng.outcome(state) == Outcome(Termination.TARGET_REACHED, (0,), (55, -25))
    else:
        assert eng.outcome(state) == round_result
        assert eng.legal_strings(state, 1, eng.view(state, 1).to_dict()) == ["next"]
        state = eng.apply(state, 1, eng.parse_action("next"))
        assert check_outcomes(eng, state) is None and eng.hands_finished(state) == 1


def test_a_saved_state_round_trips_through_either_engine() -> None:
    for eng in ENGINES.values():
        state = eng.new_match(eng.config(2, None), seed=7)
        assert eng.state_from_dict(eng.state_to_dict(state)) == state
