"""What one seat may see of a Tile Rummy match — the only thing a client ever receives.

Own rack, the committed table, one's own arrangement in progress (never another seat's), other
seats' rack *sizes*, the pool *size*, scores, whose turn, initial-meld status, the start draw, a
public log of committed events and, once a round is over, its result (racks are shown then,
to justify the scores).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gameshack.rules.tiles.config import INITIAL_MELD
from gameshack.rules.tiles.state import (
    LogEntry,
    Phase,
    Problem,
    RoundResult,
    StartDraw,
    State,
    check_tiles,
    confirm_problems,
    initial_meld_progress,
    movable_tiles,
    to_act,
    working_rack,
)
from gameshack.rules.tiles.tiles import face_str, tile_str

__all__ = ["SetView", "View", "full_view", "own_view", "public_key", "public_view", "view"]


@dataclass(frozen=True, slots=True)
class SetView:
    """One set on a table, with its check. ``new`` marks tiles played from my rack this turn."""

    tiles: tuple[int, ...]
    valid: bool
    kind: str | None
    reason: str
    value: int
    meanings: tuple[int, ...]
    new: tuple[bool, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "tiles": list(self.tiles),
            "faces": [tile_str(t) for t in self.tiles],
            "valid": self.valid,
            "kind": self.kind,
            "reason": self.reason,
            "value": self.value,
            "meanings": [face_str(m) for m in self.meanings],
            "new": list(self.new),
        }


def _set_views(table: Sequence[Sequence[int]], mine: frozenset[int]) -> tuple[SetView, ...]:
    out = []
    for s in table:
        c = check_tiles(s)
        out.append(
            SetView(
                tuple(s),
                c.valid,
                c.kind,
                c.reason,
                c.value,
                c.meanings,
                tuple(t in mine for t in s),
            )
        )
    return tuple(out)


@dataclass(frozen=True, slots=True)
class View:
    seat: int
    seats: int
    target: int
    phase: Phase
    round_no: int
    starter: int
    turn: int | None  # None once the round is over
    rack: tuple[int, ...]  # my tiles still on my rack (minus those in my arrangement in progress)
    table: tuple[SetView, ...]  # committed
    work: tuple[SetView, ...] | None  # my arrangement in progress (my turn only)
    melded: tuple[bool, ...]
    meld_progress: int | None  # my new rack-only sets' points this turn, until I have melded
    rack_sizes: tuple[int, ...]
    pool_size: int
    passes: int
    totals: tuple[int, ...]
    round_scores: tuple[tuple[int, ...], ...]
    results: tuple[RoundResult, ...]
    start_draw: StartDraw
    log: tuple[LogEntry, ...]  # this round's public events
    can_draw: bool
    can_confirm: bool
    can_reset: bool
    can_next: bool
    movable: tuple[int, ...]
    returnable: tuple[int, ...]  # tiles I may move back to my rack
    problems: tuple[Problem, ...]  # why confirm would be refused now (my turn only)

    def to_dict(self, log: bool = True) -> dict[str, Any]:
        d: dict[str, Any] = {
            "game": "tiles",
            "seat": self.seat,
            "seats": self.seats,
            "target": self.target,
            "phase": self.phase.value,
            "round": self.round_no,
            "starter": self.starter,
            "turn": self.turn,
            "table": [s.to_dict() for s in self.table],
            "melded": list(self.melded),
            "rack_sizes": list(self.rack_sizes),
            "pool_size": self.pool_size,
            "passes": self.passes,
            "totals": list(self.totals),
            "round_scores": [list(r) for r in self.round_scores],
            "results": [r.to_dict() for r in self.results],
            "start_draw": self.start_draw.to_dict(),
        }
        if log:
            d["log"] = [e.to_dict() for e in self.log]
        d.update(_own_dict(self.seat, self.melded[self.seat], self))
        return d


@dataclass(frozen=True, slots=True)
class _Own:
    """What is one seat's own in its view (the rest is public)."""

    rack: tuple[int, ...]
    work: tuple[SetView, ...] | None
    meld_progress: int | None
    can_draw: bool
    can_confirm: bool
    can_reset: bool
    can_next: bool
    movable: tuple[int, ...]
    returnable: tuple[int, ...]
    problems: tuple[Problem, ...]


def _own_dict(seat: int, made: bool, o: _Own | View) -> dict[str, Any]:
    """The own keys of a seat's view, from its :class:`View` or from :func:`_own` alone."""
    return {
        "seat": seat,
        "rack": [{"tile": t, "face": tile_str(t)} for t in o.rack],
        "work": None if o.work is None else [s.to_dict() for s in o.work],
        "meld": {"made": made, "progress": o.meld_progress, "needed": INITIAL_MELD},
        "can": {
            "draw": o.can_draw,
            "confirm": o.can_confirm,
            "reset": o.can_reset,
            "next": o.can_next,
            "movable": list(o.movable),
            "returnable": list(o.returnable),
            "problems": [p.to_dict() for p in o.problems],
        },
    }


def _own(state: State, seat: int) -> _Own:
    """The seat's own part of its view: its rack, its arrangement in progress and what it may do."""
    if not 0 <= seat < state.seats:
        raise ValueError(f"there is no seat {seat}")
    playing = state.phase is Phase.PLAYING
    my_turn = playing and state.turn == seat
    rack = working_rack(state, seat)
    placed = frozenset(state.racks[seat]) - frozenset(rack)
    work = None
    problems: tuple[Problem, ...] = ()
    if my_turn:
        problems = tuple(confirm_problems(state))
        if state.work is not None:
            work = _set_views(state.work, placed)
    progress = None
    if playing and not state.melded[seat]:
        progress = initial_meld_progress(state) if my_turn else 0
    return _Own(
        rack=rack,
        work=work,
        meld_progress=progress,
        can_draw=my_turn,
        can_confirm=my_turn and not problems,
        can_reset=my_turn and state.work is not None,
        can_next=seat in to_act(state) and state.phase is Phase.ROUND_OVER,
        movable=movable_tiles(state, seat),
        returnable=tuple(sorted(placed)) if my_turn else (),
        problems=problems,
    )


def view(state: State, seat: int) -> View:
    """Everything ``seat`` may see now."""
    own = _own(state, seat)
    playing = state.phase is Phase.PLAYING
    return View(
        seat=seat,
        seats=state.seats,
        target=state.config.target,
        phase=state.phase,
        round_no=state.round_no,
        starter=state.starter,
        turn=state.turn if playing else None,
        rack=own.rack,
        table=_set_views(state.table, frozenset()),
        work=own.work,
        melded=state.melded,
        meld_progress=own.meld_progress,
        rack_sizes=tuple(len(r) for r in state.racks),
        pool_size=len(state.pool),
        passes=state.passes,
        totals=state.totals,
        round_scores=tuple(r.scores for r in state.results),
        results=state.results,
        start_draw=state.start_draw,
        log=state.log,
        can_draw=own.can_draw,
        can_confirm=own.can_confirm,
        can_reset=own.can_reset,
        can_next=own.can_next,
        movable=own.movable,
        returnable=own.returnable,
        problems=own.problems,
    )


def public_key(state: State) -> tuple[object, ...]:
    """Everything :func:`public_view` is made of: two states with equal keys have the same
    public view (tests/rules/test_public_and_full_views.py). An arrangement in progress leaves
    the key as it was."""
    return (
        state.config,
        state.phase,
        state.round_no,
        state.starter,
        state.turn,
        state.table,
        state.melded,
        tuple(len(r) for r in state.racks),
        len(state.pool),
        state.passes,
        state.totals,
        state.results,
        state.start_draw,
        state.log,
    )


def own_view(state: State, seat: int) -> dict[str, Any]:
    """What ``seat`` sees beyond :func:`public_view`: its rack, its arrangement in progress and
    what it may do. The table a seat sees is always the committed one (an arrangement in
    progress is its own ``work``), so every seat's view is ``{**public_view(state),
    **own_view(state, seat)}`` (tests/rules/test_public_and_full_views.py checks it by
    self-play); the server builds the public part once for them all."""
    own = _own(state, seat)
    return _own_dict(seat, state.melded[seat], own)


def _without_seat(d: dict[str, Any]) -> dict[str, Any]:
    for key in ("rack", "work", "meld", "can"):
        del d[key]
    d["seat"] = None
    return d


def public_view(state: State, log: bool = True) -> dict[str, Any]:
    """What anyone may see, a spectator included: the committed table, rack *sizes*, the pool
    size, scores and the public log (``seat`` is None). Never a rack's tiles, never a turn in
    progress."""
    other = 1 if state.phase is Phase.PLAYING and state.turn == 0 else 0
    return _without_seat(view(state, other).to_dict(log))


def full_view(state: State) -> dict[str, Any]:
    """Everything, for a replay of a finished match: the public view plus the arrangement in
    progress of the seat on turn (``work``) and every seat's rack (``racks``)."""
    playing = state.phase is Phase.PLAYING
    seat = state.turn if playing else 0
    mine = view(state, seat).to_dict()
    d = _without_seat(dict(mine))
    d["work"] = mine["work"] if playing else None
    d["racks"] = [
        [{"tile": t, "face": tile_str(t)} for t in working_rack(state, s)]
        for s in range(state.seats)
    ]
    return d
