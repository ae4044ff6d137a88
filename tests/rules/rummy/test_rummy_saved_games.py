"""Games stored by earlier versions of the engine still load and play on.

``saved_games_format1.json`` holds ``state_to_dict`` output written by the engine as it stood
before the state became a dataclass (the NamedTuple with ``-1`` for "none"), at moments that
exercise every field: the first-deal draw half done, a deep pickup still owed, a pending discard
after a stock draw, a single top card taken, a hand blocked with no winner and a finished match.
Beside each state is the view its seat to act had then. A stored game in a user's database must
keep working, so each one must load, mean the same (the same view) and write back unchanged.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gameshack.rules.rummy import apply, legal_actions, state_from_dict, state_to_dict, to_act, view

SAVED: dict[str, Any] = json.loads((Path(__file__).parent / "saved_games_format1.json").read_text())


@pytest.mark.parametrize("name", sorted(SAVED))
def test_a_saved_game_loads_and_writes_back_unchanged(name: str) -> None:
    saved = SAVED[name]["state"]
    assert state_to_dict(state_from_dict(saved)) == saved


def _as_shown_now(saved_view: dict[str, Any]) -> dict[str, Any]:
    """The saved view with the deliberate changes since: an event that ends a hand with no
    winner (``blocked``, ``stock_exhausted``) belongs to no seat, ``null`` (it was ``-1``); and
    log events carry no ``text`` (the client words them)."""
    log = [
        {k: v for k, v in e.items() if k != "text"} | ({"seat": None} if e["seat"] == -1 else {})
        for e in saved_view["log"]
    ]
    return {**saved_view, "log": log}


@pytest.mark.parametrize("name", sorted(SAVED))
def test_a_saved_game_shows_its_seat_the_same_view(name: str) -> None:
    state = state_from_dict(SAVED[name]["state"])
    assert view(state, SAVED[name]["seat"]).to_dict() == _as_shown_now(SAVED[name]["view"])


@pytest.mark.parametrize("name", sorted(SAVED))
def test_a_saved_game_plays_on(name: str) -> None:
    state = state_from_dict(SAVED[name]["state"])
    for seat in sorted(to_act(state)):
        for action in legal_actions(state, seat):
            apply(state, seat, action)  # every listed action is accepted
