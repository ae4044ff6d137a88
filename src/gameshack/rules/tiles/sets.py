"""Validity of one set on the table: a group or a run, jokers included.

A set is an ordered list of faces. In a run a joker's meaning is fixed by its position
(``R5 JK R7``: the joker is R6). In a group a joker stands for one of the missing colours.
When a list reads validly both as a run and as a group (``JK JK R5``), the reading worth more
points is taken (ties: the run) — it only matters for the initial-meld total and for showing
what a joker stands for.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gameshack.rules.tiles.tiles import JOKER, face_str, make_face

__all__ = ["SetCheck", "check_set"]


@dataclass(frozen=True, slots=True)
class SetCheck:
    valid: bool
    kind: str | None  # "run" | "group" | None when invalid
    reason: str  # why it is invalid, or a short description when valid
    value: int  # points (a joker counts as the tile it stands for); 0 when invalid
    meanings: tuple[int, ...]  # the face each position stands for; () when invalid


def _as_run(faces: Sequence[int]) -> SetCheck:
    n = len(faces)
    first = 0
    while faces[first] == JOKER:
        first += 1
    colour = faces[first] // 13
    start = faces[first] % 13 + 1 - first
    if start < 1:
        return SetCheck(False, None, "a run cannot go below 1", 0, ())
    if start + n - 1 > 13:
        return SetCheck(False, None, "a run cannot go past 13 (no wrapping to 1)", 0, ())
    for i, f in enumerate(faces):
        if f == JOKER:
            continue
        if f // 13 != colour:
            return SetCheck(False, None, "a run must be all one colour", 0, ())
        if f % 13 + 1 != start + i:
            return SetCheck(False, None, "a run must be consecutive numbers in order", 0, ())
    meanings = tuple([make_face(colour, start + i) for i in range(n)])
    value = n * start + n * (n - 1) // 2
    return SetCheck(True, "run", f"run {face_str(meanings[0])}-{start + n - 1}", value, meanings)


def _as_group(faces: Sequence[int]) -> SetCheck:
    if len(faces) > 4:
        return SetCheck(False, None, "a group has at most 4 tiles", 0, ())
    number = 0
    seen = 0  # the colours of the real tiles, a bit each
    for f in faces:
        if f == JOKER:
            continue
        if not number:
            number = f % 13 + 1
        elif f % 13 + 1 != number:
            return SetCheck(False, None, "a group must be one number", 0, ())
        if seen >> (f // 13) & 1:
            return SetCheck(False, None, "a group may not repeat a colour", 0, ())
        seen |= 1 << (f // 13)
    # the jokers stand for the missing colours, lowest first
    out: list[int] = []
    c = 0
    for f in faces:
        if f == JOKER:
            while seen >> c & 1:
                c += 1
            out.append(make_face(c, number))
            c += 1
        else:
            out.append(f)
    meanings = tuple(out)
    return SetCheck(True, "group", f"group of {number}s", number * len(faces), meanings)


# The solver asks about the same few hundred sets over and over (each old set, each set of
# each candidate play): answers are kept, and they are immutable. Bounded (cleared when full)
_CHECKED: dict[tuple[int, ...], SetCheck] = {}
_CHECKED_MAX = 1 << 14


def check_set(faces: Sequence[int]) -> SetCheck:
    """Whether ``faces`` (in table order) is a valid group or run, and why not."""
    key = tuple(faces)
    got = _CHECKED.get(key)
    if got is None:
        got = _check(key)
        if len(_CHECKED) >= _CHECKED_MAX:
            _CHECKED.clear()
        _CHECKED[key] = got
    return got


def _check(faces: tuple[int, ...]) -> SetCheck:
    if len(faces) < 3:
        return SetCheck(False, None, "a set needs at least 3 tiles", 0, ())
    jokers = faces.count(JOKER)
    if jokers == len(faces):
        return SetCheck(False, None, "a set cannot be only jokers", 0, ())
    run = _as_run(faces)
    if run.valid and len(faces) - jokers >= 2:
        return run  # two real tiles of a run differ in number: no group reading
    group = _as_group(faces)
    if run.valid and group.valid:
        return run if run.value >= group.value else group
    if run.valid:
        return run
    if group.valid:
        return group
    real = [f for f in faces if f != JOKER]
    same_number = all(f % 13 == real[0] % 13 for f in real)
    return group if same_number else run
