"""The action notation round-trips, and anything else is a clear MalformedAction."""

from __future__ import annotations

import pytest

from gameshack.rules.common import MalformedAction
from gameshack.rules.tiles import (
    Arrange,
    Confirm,
    Draw,
    Move,
    MoveNew,
    MoveToRack,
    NextRound,
    Reset,
    parse_action,
)

ROUND_TRIPS = [
    ("move 12 0 2", Move(12, 0, 2)),
    ("move 105 new", MoveNew(105)),
    ("move 0 rack", MoveToRack(0)),
    ("arrange 12 14 16 | 50 51 104", Arrange(((12, 14, 16), (50, 51, 104)))),
    ("arrange", Arrange(())),
    ("reset", Reset()),
    ("confirm", Confirm()),
    ("draw", Draw()),
    ("next", NextRound()),
]


@pytest.mark.parametrize(("text", "action"), ROUND_TRIPS)
def test_round_trip(text: str, action: object) -> None:
    assert parse_action(text) == action
    assert str(action) == text
    assert parse_action(str(action)) == action


def test_spacing_and_case_are_forgiven() -> None:
    assert parse_action("  MOVE 3  NEW ") == MoveNew(3)
    assert parse_action("arrange 1 2 3|4 5 6") == Arrange(((1, 2, 3), (4, 5, 6)))


@pytest.mark.parametrize(
    "text",
    [
        "",
        "jump",
        "move",
        "move 12",
        "move x new",
        "move 106 new",
        "move 12 0",
        "move 12 -1 0",
        "move 12 0 2 7",
        "arrange 1 2 | | 3",
        "arrange 1 2 R7",
        "draw now",
    ],
)
def test_malformed(text: str) -> None:
    with pytest.raises(MalformedAction) as info:
        parse_action(text)
    assert info.value.message
