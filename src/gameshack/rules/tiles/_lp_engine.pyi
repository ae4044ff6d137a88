"""Types of the linear relaxation in C (``_lp_engine.c``); see :mod:`._solver_lp`."""

from collections.abc import Sequence

def kept_lp(
    old: Sequence[Sequence[int]],
    tcount: Sequence[int],
    rack: Sequence[int],
    rack_jokers: int,
    count_w: int,
    level: int,
    first: Sequence[Sequence[int]],
    meanings: Sequence[Sequence[int]],
    limit: int,
    known_kept: int = -1,
) -> tuple[int | None, float, list[list[int]] | None, int, int, int]: ...
