"""Build Tile Rummy positions from tile notation, for scenario tests.

Faces are turned into tile ids by taking the first unused copy, so ``"R7 R7"`` is both R7s.
"""

from __future__ import annotations

from dataclasses import replace

from gameshack.rules.tiles import (
    ALL_TILES,
    Arrange,
    Config,
    State,
    face_of,
    new_match,
    parse_faces,
    working_rack,
)


class _Copies:
    def __init__(self) -> None:
        self.used: set[int] = set()

    def take(self, text: str) -> tuple[int, ...]:
        out = []
        for face in parse_faces(text):
            tile = next(t for t in ALL_TILES if face_of(t) == face and t not in self.used)
            self.used.add(tile)
            out.append(tile)
        return tuple(out)


def position(
    racks: list[str],
    table: str = "",
    *,
    pool: str | None = None,
    melded: tuple[bool, ...] | None = None,
    turn: int = 0,
    target: int = 200,
    totals: tuple[int, ...] | None = None,
) -> State:
    """A round in progress: given racks and table; the pool is ``pool`` (in draw order) or every
    other tile. All 106 tiles stay accounted for unless ``pool`` is given explicitly — then the
    remaining tiles are simply out of play, which scenario tests about an empty pool need."""
    copies = _Copies()
    rack_ids = tuple(copies.take(r) for r in racks)
    table_ids = tuple(copies.take(s) for s in table.split("|")) if table.strip() else ()
    if pool is None:
        pool_ids = tuple(t for t in ALL_TILES if t not in copies.used)
    else:
        pool_ids = copies.take(pool)
    seats = len(racks)
    base = new_match(Config(seats=seats, target=target), seed=1)
    return replace(
        base,
        turn=turn,
        starter=turn,
        racks=rack_ids,
        pool=pool_ids,
        table=table_ids,
        melded=melded if melded is not None else (False,) * seats,
        totals=totals if totals is not None else (0,) * seats,
    )


def tiles_of(state: State, seat: int, text: str) -> tuple[int, ...]:
    """Ids for ``text`` taken from the seat's rack (as it is in the arrangement in progress)."""
    rack = list(working_rack(state, seat))
    out = []
    for face in parse_faces(text):
        tile = next(t for t in rack if face_of(t) == face)
        rack.remove(tile)
        out.append(tile)
    return tuple(out)


def table_tile(state: State, text: str, set_index: int | None = None) -> int:
    """The id of the (first) table tile with this face, optionally in one set."""
    face = parse_faces(text)[0]
    sets = state.table if state.work is None else state.work
    for i, s in enumerate(sets):
        if set_index is not None and i != set_index:
            continue
        for t in s:
            if face_of(t) == face:
                return t
    raise LookupError(f"{text} is not on the table")


def arrangement(state: State, seat: int, text: str) -> Arrange:
    """``arrange`` for a table written in notation: table tiles are reused first, then rack."""
    pool = [t for s in state.table for t in s] + list(state.racks[seat])
    sets = []
    for part in text.split("|"):
        ids = []
        for face in parse_faces(part):
            tile = next(t for t in pool if face_of(t) == face)
            pool.remove(tile)
            ids.append(tile)
        sets.append(tuple(ids))
    return Arrange(tuple(sets))
