"""Table-driven validity of single sets (``check_set``), jokers included."""

from __future__ import annotations

import pytest

from gameshack.rules.tiles import JOKER, check_set, faces_str, parse_faces

# (set in table order, valid, kind, points, what each joker stands for / reason fragment)
CASES: list[tuple[str, bool, str | None, int, str]] = [
    # groups
    ("R7 B7 Y7", True, "group", 21, ""),
    ("R7 B7 Y7 K7", True, "group", 28, ""),
    ("K1 Y1 B1", True, "group", 3, ""),
    ("R7 R7 B7", False, None, 0, "may not repeat a colour"),  # the classic trap
    ("R7 B7 Y7 R7", False, None, 0, "may not repeat a colour"),
    ("R7 B7 JK R7", False, None, 0, "may not repeat a colour"),
    ("R7 B7 Y7 K7 JK", False, None, 0, "at most 4"),
    ("R7 B8 Y7", False, None, 0, ""),
    ("R7 B7", False, None, 0, "at least 3"),
    # runs
    ("R1 R2 R3", True, "run", 6, ""),
    ("B11 B12 B13", True, "run", 36, ""),
    ("Y1 Y2 Y3 Y4 Y5 Y6 Y7 Y8 Y9 Y10 Y11 Y12 Y13", True, "run", 91, ""),
    ("K12 K13 K1", False, None, 0, "past 13"),  # no wrapping
    ("R3 R2 R1", False, None, 0, "consecutive"),  # a run is written in order
    ("R1 R2 B3", False, None, 0, "one colour"),
    ("R4 R5 R7", False, None, 0, "consecutive"),
    # jokers
    ("R5 JK R7", True, "run", 18, "R6"),
    ("JK R2 R3", True, "run", 6, "R1"),
    ("R12 R13 JK", False, None, 0, "past 13"),
    ("JK R1 R2", False, None, 0, "below 1"),
    ("R7 JK Y7", True, "group", 21, ""),
    ("JK R5 JK", True, "run", 15, "R4 R6"),  # two jokers in a run
    ("R5 JK JK R8", True, "run", 26, "R6 R7"),
    ("JK JK K13", True, "group", 39, ""),  # group of 13s (39) beats run K11-13 (36)
    ("R1 JK JK", True, "run", 6, "R2 R3"),  # run 1-3 (6) beats group of 1s (3)
    ("JK B9 JK Y9", True, "group", 36, ""),
    ("JK JK", False, None, 0, "at least 3"),
    ("JK JK JK", False, None, 0, "only jokers"),
]


@pytest.mark.parametrize(("text", "valid", "kind", "value", "note"), CASES)
def test_check_set(text: str, valid: bool, kind: str | None, value: int, note: str) -> None:
    faces = parse_faces(text)
    result = check_set(faces)
    assert (result.valid, result.kind, result.value) == (valid, kind, value), result.reason
    if valid:
        assert len(result.meanings) == len(faces)
        assert check_set(result.meanings).valid  # what the jokers stand for is itself valid
        for face, meaning in zip(faces, result.meanings, strict=True):
            if face != JOKER:
                assert face == meaning
        if note:
            jokers = [m for f, m in zip(faces, result.meanings, strict=True) if f == JOKER]
            assert faces_str(jokers) == note
    else:
        assert result.meanings == ()
        assert note in result.reason
