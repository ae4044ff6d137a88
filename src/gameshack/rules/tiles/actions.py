"""The actions of Tile Rummy: small immutable values with a text notation that round-trips.

Tiles are named by **tile id** (0..105, see :mod:`tiles`) because the two copies of a face must
be told apart when a player picks one up. The notation (``str(action)`` / :func:`parse_action`):

- ``move 12 0 2`` — put tile 12 (from the rack or the table) into set 0 of the in-progress table
  at position 2 (0 = in front; the set's length = at the end). Positions count in the set as it
  is after the tile has left its old place.
- ``move 12 new`` — start a new set (appended at the end of the table) with tile 12.
- ``move 12 rack`` — take tile 12 back to the rack (only a tile that came from the rack this turn).
- ``arrange 12 14 16 | 50 51 104`` — replace the whole in-progress table in one go (sets
  separated by ``|``); ``arrange`` alone is an empty table.
- ``reset`` — undo the whole arrangement in progress; ``confirm`` — commit it; ``draw`` — draw a
  tile (a pass when the pool is empty), discarding the arrangement; ``next`` — deal the next
  round after a round is over.
"""

from __future__ import annotations

from dataclasses import dataclass

from gameshack.rules.common import MalformedAction
from gameshack.rules.tiles.tiles import NUM_TILES

__all__ = [
    "Action",
    "Arrange",
    "Confirm",
    "Draw",
    "Move",
    "MoveNew",
    "MoveToRack",
    "NextRound",
    "Reset",
    "parse_action",
]


@dataclass(frozen=True, slots=True)
class Move:
    """Put ``tile`` into set ``set_index`` at ``position``."""

    tile: int
    set_index: int
    position: int

    def __str__(self) -> str:
        return f"move {self.tile} {self.set_index} {self.position}"


@dataclass(frozen=True, slots=True)
class MoveNew:
    """Start a new set with ``tile``."""

    tile: int

    def __str__(self) -> str:
        return f"move {self.tile} new"


@dataclass(frozen=True, slots=True)
class MoveToRack:
    """Take ``tile`` (played from the rack this turn) back to the rack."""

    tile: int

    def __str__(self) -> str:
        return f"move {self.tile} rack"


@dataclass(frozen=True, slots=True)
class Arrange:
    """Replace the whole in-progress table with ``sets`` (each an ordered tuple of tile ids)."""

    sets: tuple[tuple[int, ...], ...]

    def __str__(self) -> str:
        if not self.sets:
            return "arrange"
        return "arrange " + " | ".join(" ".join(str(t) for t in s) for s in self.sets)


@dataclass(frozen=True, slots=True)
class Reset:
    def __str__(self) -> str:
        return "reset"


@dataclass(frozen=True, slots=True)
class Confirm:
    def __str__(self) -> str:
        return "confirm"


@dataclass(frozen=True, slots=True)
class Draw:
    def __str__(self) -> str:
        return "draw"


@dataclass(frozen=True, slots=True)
class NextRound:
    def __str__(self) -> str:
        return "next"


Action = Move | MoveNew | MoveToRack | Arrange | Reset | Confirm | Draw | NextRound

_SIMPLE: dict[str, Action] = {
    "reset": Reset(),
    "confirm": Confirm(),
    "draw": Draw(),
    "next": NextRound(),
}


def _int(text: str, what: str) -> int:
    if not text.isdigit():
        raise MalformedAction(f"{text!r} is not a {what} (expected a whole number)")
    return int(text)


def _tile(text: str) -> int:
    tile = _int(text, "tile id")
    if tile >= NUM_TILES:
        raise MalformedAction(f"tile id {tile} does not exist (0..{NUM_TILES - 1})", "bad_tile")
    return tile


def parse_action(text: str) -> Action:
    """Parse the notation above; raises :class:`MalformedAction` for anything else."""
    words = text.split()
    if not words:
        raise MalformedAction("empty action")
    verb = words[0].lower()
    if verb in _SIMPLE:
        if len(words) != 1:
            raise MalformedAction(f"{verb!r} takes no arguments")
        return _SIMPLE[verb]
    if verb == "move":
        if len(words) == 3 and words[2].lower() == "new":
            return MoveNew(_tile(words[1]))
        if len(words) == 3 and words[2].lower() == "rack":
            return MoveToRack(_tile(words[1]))
        if len(words) == 4:
            return Move(_tile(words[1]), _int(words[2], "set index"), _int(words[3], "position"))
        raise MalformedAction(
            "move takes a tile id and a destination: 'move 12 0 2', 'move 12 new' or 'move 12 rack'"
        )
    if verb == "arrange":
        rest = text.strip()[len("arrange") :].strip()
        if not rest:
            return Arrange(())
        sets: list[tuple[int, ...]] = []
        for part in rest.split("|"):
            ids = part.split()
            if not ids:
                raise MalformedAction("an arranged set is empty (two '|' in a row?)")
            sets.append(tuple(_tile(t) for t in ids))
        return Arrange(tuple(sets))
    raise MalformedAction(
        f"unknown action {words[0]!r} (try move, arrange, reset, confirm, draw or next)"
    )
