"""The views of no seat: ``public_view`` (a spectator's, a replay's of a match in progress) and
``full_view`` (a replay's of a finished match).

Played out by seeded random self-play in both games: the public view is the view of every seat
not on turn with that seat's own things removed, so it holds nothing a seated player could not
see of another seat; with a seat's own part (``own_view``) it is that seat's view; it does not
change while a turn is in progress (it moves only with what the other seats see, which
``public_key`` tells); and the full view shows every hand."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from gameshack.rules.engine import ENGINES

OWN = {
    "rummy": ("hand", "hand_value", "drawn", "taken", "cannot_discard", "must_play", "pending"),
    "tiles": ("rack", "work", "meld", "can"),
}
ACTING = ("legal", "can_undo", "undo", "stage")


def stripped(name: str, view: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in view.items() if k not in OWN[name] and k not in ACTING}
    out["seat"] = None
    if "stage" in view:
        out["stage"] = None
    return out


def games(name: str, seats: int, seeds: int = 4, moves: int = 600) -> Any:
    engine = ENGINES[name]
    for seed in range(seeds):
        rng = random.Random(seed)
        state = engine.new_match(engine.config(seats, None), seed)
        for _ in range(moves):
            acting = sorted(engine.to_act(state))
            if not acting:
                break
            seat = rng.choice(acting)
            actions = engine.legal_actions(state, seat)
            if not actions:
                break
            after = engine.apply(state, seat, rng.choice(actions))
            yield engine, state, seat, after
            state = after


@pytest.mark.parametrize("seats", [2, 4])
@pytest.mark.parametrize("name", sorted(ENGINES))
def test_public_view_is_what_every_other_seat_sees(name: str, seats: int) -> None:
    unchanged = 0
    for engine, state, seat, after in games(name, seats):
        public = engine.public_view(after)
        json.dumps(public)  # JSON-ready
        assert public["seat"] is None
        assert not set(OWN[name]) & set(public), sorted(public)
        turn = after_turn = public.get("turn")
        for s in range(seats):
            if s != after_turn:
                assert stripped(name, engine.view(after, s).to_dict()) == public, (s, turn)
        # A move that other seats do not see does not change the public view either.
        others = [s for s in range(seats) if s != seat]
        if all(engine.view(after, s).to_dict() == engine.view(state, s).to_dict() for s in others):
            assert engine.public_view(state) == public
            unchanged += 1
    assert unchanged > 20, unchanged


@pytest.mark.parametrize("seats", [2, 4])
@pytest.mark.parametrize("name", sorted(ENGINES))
def test_a_view_is_the_public_view_plus_the_seats_own(name: str, seats: int) -> None:
    """``own_view``: what the server adds to the public part, built once, for each seat. A seat
    whose view is more than that (a Rummy seat playing its turn) has None and gets ``view``."""
    split = whole = 0
    for engine, _state, _seat, after in games(name, seats):
        public = engine.public_view(after)
        for s in range(seats):
            view = engine.view(after, s).to_dict()
            own = engine.own_view(after, s)
            if own is None:
                assert name == "rummy" and public["phase"] == "playing" and public["turn"] == s
                whole += 1
                continue
            assert {**public, **own} == view, s
            assert not set(OWN[name]) - set(own), s  # every own thing comes from own_view
            split += 1
        with pytest.raises(ValueError):
            engine.own_view(after, seats)
    assert split > 1000 and (whole > 100 or name == "tiles"), (split, whole)


@pytest.mark.parametrize("seats", [2, 4])
@pytest.mark.parametrize("name", sorted(ENGINES))
def test_equal_public_keys_mean_equal_public_views(name: str, seats: int) -> None:
    """``public_key``: a server reuses the public part while the key is equal, so an equal key
    must mean an equal public view; a turn in progress keeps the key (the reuse happens)."""
    kept = changed = 0
    for engine, state, _seat, after in games(name, seats):
        if engine.public_key(after) == engine.public_key(state):
            assert engine.public_view(after) == engine.public_view(state)
            kept += 1
        else:
            changed += 1
    assert kept > 100 and changed > 10, (kept, changed)


@pytest.mark.parametrize("name", sorted(ENGINES))
def test_full_view_shows_every_hand(name: str) -> None:
    key = "hands" if name == "rummy" else "racks"
    for engine, _state, _seat, after in games(name, 3, seeds=2):
        full = engine.full_view(after)
        json.dumps(full)
        assert len(full[key]) == 3
        for s in range(3):
            own = engine.view(after, s).to_dict()
            if own.get("turn") == s or full.get("turn") != s:
                mine = own["hand"] if name == "rummy" else own["rack"]
                assert full[key][s] == mine, s


@pytest.mark.parametrize("seats", [2, 4])
@pytest.mark.parametrize("name", sorted(ENGINES))
def test_the_log_is_every_views_and_a_move_only_extends_it(name: str, seats: int) -> None:
    """``log_events``: the events of every view's ``log`` (a server keeps their JSON and encodes
    only what a move adds); ``to_dict(log=False)`` and ``public_view(state, log=False)`` are
    the same without it. A move keeps the very events it had, or starts a new hand's log."""
    extended = restarted = 0
    for engine, state, _seat, after in games(name, seats):
        events = engine.log_events(after)
        as_dicts = [e.to_dict() for e in events]
        for s in range(seats):
            whole = engine.view(after, s).to_dict()
            assert whole.pop("log") == as_dicts
            assert engine.view(after, s).to_dict(log=False) == whole
        public = engine.public_view(after)
        assert public.pop("log") == as_dicts
        assert engine.public_view(after, log=False) == public
        before = engine.log_events(state)
        if all(a is b for a, b in zip(before, events, strict=False)) and len(events) >= len(before):
            extended += len(events) > len(before)
        else:
            restarted += 1
            assert not events or events[0] is not before[0]
    assert extended > 10, (extended, restarted)
