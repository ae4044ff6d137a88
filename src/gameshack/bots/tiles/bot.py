"""The Tile Rummy bots: a seat's view in, one engine action out.

A play is made in two steps, as a human makes it: ``arrange`` the whole new table (every tile
that was on it plus the rack tiles played), then ``confirm``. When there is nothing worth
playing the bot draws.

- Easy: new sets from its own rack (the initial meld when it reaches 30) and, once melded, rack
  tiles added to the ends of sets already down (a run extended, a 4th colour for a group);
  never a table tile moved.
- Medium: the exact solver's best play every turn — among the best, one moving as few
  table tiles as the solver finds within its fixed amount of work; hints are the same play.
- Hard: the solver's best play, except that
  - while every opponent is far from going out (tracked by their rack sizes), it keeps a
    reserve back — jokers and the complete sets its rack makes on its own — plays the
    solver's best play of the rest, and plays one reserve set on a turn where nothing else fits
    instead of drawing;
  - with 2 seats, once the opponent (melded) is down to 6 tiles or fewer, it hoards: it draws
    instead of playing until it can go out in one turn, so the opponent gets neither the table
    tiles it needs to finish nor the pool tiles Hard draws (with 3-4 seats: the solver's best
    play once anyone is close);
  - it always goes out when it can.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gameshack.bots.tiles.rackplay import best_rack_sets, lay_off
from gameshack.rules.tiles.actions import Action, Arrange, Confirm, Draw, NextRound, Reset
from gameshack.rules.tiles.sets import check_set
from gameshack.rules.tiles.state import Phase
from gameshack.rules.tiles.tiles import JOKER, face_of, tile_str
from gameshack.rules.tiles.view import View

__all__ = ["Play", "best_play", "decide_tiles", "tiles_hint"]

EASY, MEDIUM, HARD = 0, 1, 2

HOLD_FAR = 7  # an opponent with at least this many tiles is "far from going out"
HOARD_NEAR = 6  # 2 seats: with the opponent at this many tiles or fewer, Hard hoards


@dataclass(frozen=True, slots=True)
class Play:
    """A table to arrange (tile ids) and the rack tiles it places; ``found`` False: draw."""

    table: tuple[tuple[int, ...], ...]
    placed: tuple[int, ...]
    value: int
    found: bool
    initial: bool
    degraded: bool = False  # the solver failed: a rack-only play stands in (counted in memory)


def _table_ids(view: View) -> list[tuple[int, ...]]:
    return [s.tiles for s in view.table]


def _faces_to_ids(
    new_table: Sequence[Sequence[int]], table: Sequence[Sequence[int]], rack: Sequence[int]
) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]:
    """Concrete tile ids for a table given as faces: every table tile first, then rack tiles."""
    pool: dict[int, list[int]] = {}
    for s in table:
        for t in s:
            pool.setdefault(face_of(t), []).append(t)
    table_ids = {t for s in table for t in s}
    for t in rack:
        pool.setdefault(face_of(t), []).append(t)
    out = []
    for s in new_table:
        out.append(tuple(pool[f].pop(0) for f in s))
    placed = tuple(sorted(t for s in out for t in s if t not in table_ids))
    return tuple(out), placed


def _solver_play(view: View, rack: Sequence[int]) -> Play:
    table = _table_ids(view)
    # Imported here so that the Rummy bots never depend on the tile solver being importable.
    from gameshack.rules.tiles_solver import solve

    initial = not view.melded[view.seat]
    try:
        sol = solve(
            [[face_of(t) for t in s] for s in table],
            [face_of(t) for t in rack],
            initial_meld=initial,
        )
    except Exception:
        # A bot must still move if the solver ever fails: a rack-only play stands in, and the
        # arena and the tests count it (memory "fallbacks") so that it cannot go unnoticed.
        return dataclasses.replace(_easy_play(view, rack), degraded=True)
    if not sol.found:
        return Play(tuple(table), (), 0, False, initial)
    ids, placed = _faces_to_ids(sol.table, table, rack)
    return Play(ids, placed, sol.value, True, initial)


def _easy_play(view: View, rack: Sequence[int] | None = None) -> Play:
    """New sets from the rack alone, then (once melded) rack tiles added to the ends of sets
    already down — never a table tile moved. Both orders are tried (sets first, lay-offs
    first); the one placing more tiles (then more points) wins."""
    table = tuple(_table_ids(view))
    initial = not view.melded[view.seat]
    tiles = list(view.rack if rack is None else rack)
    rp = best_rack_sets(tiles, by_value=initial)
    if initial:
        if rp.tiles == 0 or rp.value < 30:
            return Play(table, (), 0, False, initial)
        placed = tuple(sorted(t for s in rp.sets for t in s))
        return Play(table + rp.sets, placed, rp.value, True, initial)
    # Sets first, then lay-offs onto the table and the new sets.
    in_sets = {t for s in rp.sets for t in s}
    new_a, off_a = lay_off(table + rp.sets, [t for t in tiles if t not in in_sets])
    placed_a = tuple(sorted(in_sets | set(off_a)))
    # Lay-offs first, then sets from what is left.
    new_b, off_b = lay_off(table, tiles)
    rp_b = best_rack_sets([t for t in tiles if t not in set(off_b)])
    placed_b = tuple(sorted({*off_b, *(t for s in rp_b.sets for t in s)}))
    table_b = new_b + rp_b.sets

    def score(placed: tuple[int, ...]) -> tuple[int, int]:
        return len(placed), sum(_tile_points(t) for t in placed)

    new_table, placed = (new_a, placed_a)
    if score(placed_b) > score(placed_a):
        new_table, placed = (table_b, placed_b)
    if not placed:
        return Play(table, (), 0, False, initial)
    return Play(new_table, placed, score(placed)[1], True, initial)


def _tile_points(t: int) -> int:
    f = face_of(t)
    return 30 if f == JOKER else f % 13 + 1


def _hard_play(view: View) -> Play:
    best = _solver_play(view, view.rack)
    if not best.found or best.initial or len(best.placed) == len(view.rack):
        return best
    others = [n for s, n in enumerate(view.rack_sizes) if s != view.seat]
    if view.seats == 2 and view.melded[1 - view.seat] and others[0] <= HOARD_NEAR:
        # The opponent is close to going out: every tile put down now is one it may use to
        # finish, so nothing goes down until Hard can go out itself (it draws instead).
        return Play(tuple(_table_ids(view)), (), 0, False, False)
    if not others or min(others) < HOLD_FAR:
        return best  # someone is close to going out: get the points off the rack now
    # Everyone is far from going out: keep a reserve back — complete sets from the rack alone
    # and the jokers — that can go down on any later turn, so that a turn where nothing else
    # fits is not a draw. What goes down now is the best play of the rest.
    reserve = best_rack_sets(view.rack)
    held = {t for st in reserve.sets for t in st}
    held |= {t for t in view.rack if face_of(t) == JOKER}
    rest = [t for t in view.rack if t not in held]
    if rest:
        alt = _solver_play(view, rest)
        if alt.found:
            return alt
    if reserve.sets:
        # Nothing else fits: play one reserve set (the biggest) instead of drawing.
        one = max(reserve.sets, key=lambda st: (len(st), sorted(st)))
        table = tuple(_table_ids(view))
        value = check_set([face_of(t) for t in one]).value
        return Play((*table, one), tuple(sorted(one)), value, True, False)
    return best


def best_play(view: View, level: int) -> Play:
    """The play a bot of ``level`` makes from this view (the turn's start)."""
    if level == EASY:
        return _easy_play(view)
    if level == HARD:
        return _hard_play(view)
    return _solver_play(view, view.rack)


def decide_tiles(
    view: View, memory: dict[str, Any] | None, rng: random.Random, level: int
) -> tuple[Action, dict[str, Any]]:
    del rng
    mem: dict[str, Any] = dict(memory) if isinstance(memory, dict) else {}
    mem.setdefault("v", 1)
    mem["game"] = "tiles"
    # Opponents' rack sizes over the round (the Hard bot's sense of who is close to out).
    mem["rack_sizes"] = list(view.rack_sizes)
    action: Action
    if view.phase is Phase.ROUND_OVER:
        if not view.can_next:
            raise ValueError(f"seat {view.seat} has nothing to do now")
        return NextRound(), mem
    if view.phase is not Phase.PLAYING or view.turn != view.seat:
        raise ValueError(f"seat {view.seat} has nothing to do now")
    turn_mark = [view.round_no, len(view.log)]
    if view.work is not None:
        if view.can_confirm:
            return Confirm(), mem
        if mem.get("arranged") != turn_mark and view.can_reset:
            # A half-made arrangement this bot did not make (a seat handed over mid-turn):
            # start the turn afresh.
            return Reset(), mem
        mem["fallbacks"] = int(mem.get("fallbacks", 0)) + 1
        return Draw(), mem
    play = best_play(view, level)
    if play.degraded:
        mem["fallbacks"] = int(mem.get("fallbacks", 0)) + 1
    if play.found:
        mem["arranged"] = turn_mark
    action = Arrange(play.table) if play.found else Draw()
    return action, mem


def tiles_hint(view: View) -> dict[str, Any]:
    """The solver's best play (or best initial meld) as the target arrangement."""
    empty: dict[str, Any] = {
        "game": "tiles",
        "found": False,
        "initial_meld": not view.melded[view.seat],
        "table": [],
        "faces": [],
        "placed": [],
        "placed_faces": [],
        "value": 0,
    }
    if view.phase is not Phase.PLAYING or view.turn != view.seat:
        return {**empty, "reason": "not your turn"}
    # The rack as it was at the start of the turn: a half-made arrangement does not matter.
    rack = sorted({*view.rack, *view.returnable} if view.work is not None else set(view.rack))
    play = _solver_play(view, rack)
    if not play.found:
        reason = (
            "no initial meld of 30 yet: draw" if play.initial else "nothing fits on the table: draw"
        )
        return {**empty, "reason": reason}
    return {
        **empty,
        "found": True,
        "table": [list(s) for s in play.table],
        "faces": [[tile_str(t) for t in s] for s in play.table],
        "placed": list(play.placed),
        "placed_faces": [tile_str(t) for t in play.placed],
        "value": play.value,
        "reason": f"play {len(play.placed)} tiles worth {play.value}"
        + (" as your initial meld" if play.initial else ""),
    }
