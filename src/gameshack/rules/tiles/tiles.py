"""Tiles and their notation.

A *face* is what is printed on a tile: a colour and a number, or the joker. Faces are small
ints so that the engine and the solver stay fast: ``face = colour * 13 + (number - 1)`` for
0..51 and :data:`JOKER` = 52. Notation is colour letter + number — ``R7`` (red), ``B13`` (blue),
``Y1`` (yellow), ``K10`` (black) — and ``JK`` for a joker.

A *tile* is one physical piece, an id 0..105: ``face * 2 + copy`` for the 104 numbered tiles,
104 and 105 for the jokers. Ids tell the two R7s apart (so a player can pick up one specific
tile); they carry no hidden information.
"""

from __future__ import annotations

from collections.abc import Iterable

from gameshack.rules.common import MalformedAction

__all__ = [
    "ALL_TILES",
    "COLORS",
    "COLOR_NAMES",
    "JOKER",
    "NUM_TILES",
    "color_of",
    "face_of",
    "face_str",
    "faces_str",
    "is_joker",
    "make_face",
    "number_of",
    "parse_face",
    "parse_faces",
    "rack_value",
    "tile_str",
]

COLORS = "RBYK"
COLOR_NAMES = ("red", "blue", "yellow", "black")
JOKER = 52
NUM_TILES = 106
ALL_TILES: tuple[int, ...] = tuple(range(NUM_TILES))
JOKER_PENALTY = 30


def make_face(color: int, number: int) -> int:
    return color * 13 + (number - 1)


def face_of(tile: int) -> int:
    """The face of tile id ``tile``."""
    return JOKER if tile >= 104 else tile >> 1


def is_joker(face: int) -> bool:
    return face == JOKER


def color_of(face: int) -> int:
    return face // 13


def number_of(face: int) -> int:
    return face % 13 + 1


def face_str(face: int) -> str:
    if face == JOKER:
        return "JK"
    return f"{COLORS[face // 13]}{face % 13 + 1}"


def tile_str(tile: int) -> str:
    return face_str(face_of(tile))


def faces_str(faces: Iterable[int]) -> str:
    return " ".join(face_str(f) for f in faces)


def parse_face(text: str) -> int:
    """``"R7"`` -> face; ``"JK"`` -> :data:`JOKER`. Raises :class:`MalformedAction`."""
    t = text.strip().upper()
    if t in ("JK", "J", "JOKER"):
        return JOKER
    if len(t) >= 2 and t[0] in COLORS and t[1:].isdigit():
        n = int(t[1:])
        if 1 <= n <= 13:
            return make_face(COLORS.index(t[0]), n)
    raise MalformedAction(f"{text!r} is not a tile (try R7, B13, Y1, K10 or JK)", "bad_tile")


def parse_faces(text: str) -> list[int]:
    """``"R5 JK R7"`` -> faces, in order."""
    return [parse_face(part) for part in text.replace(",", " ").split()]


def rack_value(faces: Iterable[int]) -> int:
    """Penalty value of tiles left on a rack: the number, or 30 for a joker."""
    return sum(JOKER_PENALTY if f == JOKER else f % 13 + 1 for f in faces)
