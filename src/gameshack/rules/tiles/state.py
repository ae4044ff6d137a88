"""The Tile Rummy match: immutable state, legal actions and their application.

A turn is built privately: ``work`` is the seat-to-act's table in progress (``None`` while it
equals the committed table). Nothing a seat does before ``confirm`` is public; ``draw`` or a
refused ``confirm`` never changes the committed table. Every chance event derives from the seed
(``"start_draw"``, ``"deal", round_no``) so a match replays exactly from (seed, actions).
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from gameshack.rules.common import (
    IllegalAction,
    MalformedAction,
    Outcome,
    Termination,
    derive_rng,
)
from gameshack.rules.tiles.actions import (
    Action,
    Arrange,
    Confirm,
    Draw,
    Move,
    MoveNew,
    MoveToRack,
    NextRound,
    Reset,
)
from gameshack.rules.tiles.config import INITIAL_MELD, RACK_SIZE, Config
from gameshack.rules.tiles.sets import SetCheck, check_set
from gameshack.rules.tiles.tiles import (
    ALL_TILES,
    JOKER,
    NUM_TILES,
    face_of,
    face_str,
    rack_value,
    tile_str,
)

__all__ = [
    "ConfirmRefused",
    "LogEntry",
    "Phase",
    "Problem",
    "RoundResult",
    "StartDraw",
    "State",
    "apply",
    "check_tiles",
    "confirm_problems",
    "describe_table",
    "initial_meld_progress",
    "legal_actions",
    "match_outcome",
    "movable_tiles",
    "new_match",
    "outcome",
    "round_outcome",
    "state_from_dict",
    "state_to_dict",
    "to_act",
    "working_rack",
    "working_table",
]

Table = tuple[tuple[int, ...], ...]


class Phase(enum.Enum):
    PLAYING = "playing"
    ROUND_OVER = "round_over"
    MATCH_OVER = "match_over"


@dataclass(frozen=True, slots=True)
class LogEntry:
    """A public, committed event. ``kind``: ``play`` (``tiles`` left the rack for the table;
    ``meld`` when it was the seat's initial meld), ``draw`` (tile not shown), ``pass`` (drew
    from an empty pool). ``rack_size`` is the seat's rack size after the event."""

    round_no: int
    seat: int
    kind: str
    tiles: tuple[int, ...]
    rack_size: int
    meld: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "round": self.round_no,
            "seat": self.seat,
            "kind": self.kind,
            "tiles": list(self.tiles),
            "faces": [tile_str(t) for t in self.tiles],
            "rack_size": self.rack_size,
            "meld": self.meld,
        }


@dataclass(frozen=True, slots=True)
class StartDraw:
    """Who started the first round: each drawing round lists (seat, tile) per contender."""

    rounds: tuple[tuple[tuple[int, int], ...], ...]
    starter: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "rounds": [
                [{"seat": s, "tile": t, "face": tile_str(t)} for s, t in r] for r in self.rounds
            ],
            "starter": self.starter,
        }


@dataclass(frozen=True, slots=True)
class RoundResult:
    """The end of one round. ``remaining`` are the racks left (shown once the round is over)."""

    round_no: int
    reason: Termination
    winner: int | None
    scores: tuple[int, ...]
    remaining: tuple[tuple[int, ...], ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "round": self.round_no,
            "reason": self.reason.value,
            "winner": self.winner,
            "scores": list(self.scores),
            "remaining": [
                {"tiles": list(r), "faces": [tile_str(t) for t in r], "value": _value(r)}
                for r in self.remaining
            ],
        }


@dataclass(frozen=True, slots=True)
class Problem:
    """One reason a confirm is refused. ``set_index`` is set for an invalid set."""

    code: str
    message: str
    set_index: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, "set_index": self.set_index}


class ConfirmRefused(IllegalAction):
    """A refused confirm; ``code`` is the first problem's, ``problems`` lists every one."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        super().__init__(problems[0].code, "; ".join(p.message for p in problems))
        self.problems = tuple(problems)


@dataclass(frozen=True, slots=True)
class State:
    config: Config
    seed: int
    phase: Phase
    round_no: int  # 1-based
    starter: int  # the seat that started this round
    turn: int  # the seat to act while PLAYING
    racks: tuple[tuple[int, ...], ...]  # committed racks, in the order tiles arrived
    pool: tuple[int, ...]  # face down; the next draw is pool[0]
    table: Table  # committed sets
    work: Table | None  # the seat-to-act's arrangement in progress; None = untouched
    melded: tuple[bool, ...]  # initial meld made this round
    passes: int  # consecutive passes (draws from an empty pool) since the last play
    totals: tuple[int, ...]
    results: tuple[RoundResult, ...]
    start_draw: StartDraw
    log: tuple[LogEntry, ...]  # the current round's public events

    @property
    def seats(self) -> int:
        return self.config.seats


# --------------------------------------------------------------------------- setup


def _value(tiles: Iterable[int]) -> int:
    return rack_value(face_of(t) for t in tiles)


def _start_draw(seed: int, seats: int) -> StartDraw:
    """Each contender draws a tile; highest number starts; a joker or a tie draws again."""
    contenders = list(range(seats))
    rounds: list[tuple[tuple[int, int], ...]] = []
    while True:
        bag = list(ALL_TILES)
        derive_rng(seed, "start_draw", len(rounds)).shuffle(bag)
        drawn = tuple(zip(contenders, bag, strict=False))
        rounds.append(drawn)
        if any(face_of(t) == JOKER for _, t in drawn):
            continue  # a joker has no number: every contender draws again
        best = max(face_of(t) % 13 for _, t in drawn)
        contenders = [s for s, t in drawn if face_of(t) % 13 == best]
        if len(contenders) == 1:
            return StartDraw(tuple(rounds), contenders[0])


def _deal(state: State, round_no: int, starter: int) -> State:
    tiles = list(ALL_TILES)
    derive_rng(state.seed, "deal", round_no).shuffle(tiles)
    n = state.seats
    racks = tuple(tuple(tiles[i * RACK_SIZE : (i + 1) * RACK_SIZE]) for i in range(n))
    return replace(
        state,
        phase=Phase.PLAYING,
        round_no=round_no,
        starter=starter,
        turn=starter,
        racks=racks,
        pool=tuple(tiles[n * RACK_SIZE :]),
        table=(),
        work=None,
        melded=(False,) * n,
        passes=0,
        log=(),  # this round's events only: keeps every action O(round), not O(match)
    )


def new_match(config: Config, seed: int) -> State:
    """A new match, first round dealt; the start draw is resolved from the seed."""
    draw = _start_draw(seed, config.seats)
    blank = State(
        config=config,
        seed=seed,
        phase=Phase.PLAYING,
        round_no=0,
        starter=0,
        turn=0,
        racks=(),
        pool=(),
        table=(),
        work=None,
        melded=(),
        passes=0,
        totals=(0,) * config.seats,
        results=(),
        start_draw=draw,
        log=(),
    )
    return _deal(blank, 1, draw.starter)


# --------------------------------------------------------------------------- queries


def working_table(state: State) -> Table:
    """The table as the seat to act currently has it arranged (the committed one if untouched)."""
    return state.table if state.work is None else state.work


def _on_table(table: Table) -> set[int]:
    return {t for s in table for t in s}


def working_rack(state: State, seat: int) -> tuple[int, ...]:
    """``seat``'s rack minus the tiles it has put on its arrangement in progress."""
    rack = state.racks[seat]
    if state.work is None or seat != state.turn or state.phase is not Phase.PLAYING:
        return rack
    placed = _on_table(state.work)
    return tuple(t for t in rack if t not in placed)


@functools.lru_cache(maxsize=16384)
def _check_ids(tiles: tuple[int, ...]) -> SetCheck:
    # Sets change little between turns; caching the pure check keeps confirm and views cheap.
    return check_set([face_of(t) for t in tiles])


def check_tiles(tiles: Sequence[int]) -> SetCheck:
    """:func:`check_set` for a set given as tile ids (cached)."""
    return _check_ids(tuple(tiles))


_check = check_tiles


def initial_meld_progress(state: State) -> int:
    """Points in the new rack-only sets of the arrangement in progress (valid sets only)."""
    committed = _on_table(state.table)
    total = 0
    for s in working_table(state):
        if committed.isdisjoint(s):
            c = _check(s)
            if c.valid:
                total += c.value
    return total


def confirm_problems(state: State) -> list[Problem]:
    """Why ``confirm`` would be refused now (empty when it would be accepted)."""
    if state.phase is not Phase.PLAYING:
        return [Problem("round_over", "the round is over")]
    seat = state.turn
    work = working_table(state)
    problems: list[Problem] = []
    for i, s in enumerate(work):
        c = _check(s)
        if not c.valid:
            faces = " ".join(tile_str(t) for t in s)
            problems.append(
                Problem("invalid_set", f"set {i + 1} ({faces}) is invalid: {c.reason}", i)
            )
    present = _on_table(work)
    missing = [t for s in state.table for t in s if t not in present]
    if missing:
        names = ", ".join(tile_str(t) for t in missing)
        problems.append(Problem("table_tile_missing", f"table tiles missing: {names}"))
    rack = set(state.racks[seat])
    if not any(t in rack for t in present):
        problems.append(Problem("nothing_played", "play at least one tile from your rack"))
    elif not state.melded[seat]:
        progress = initial_meld_progress(state)
        if progress < INITIAL_MELD:
            problems.append(
                Problem(
                    "initial_meld_short",
                    f"initial meld is {progress} / {INITIAL_MELD} points "
                    "(new sets from your rack only; a joker counts as the tile it stands for)",
                )
            )
    return problems


def to_act(state: State) -> frozenset[int]:
    """The seat to move while playing; any seat may deal the next round; nobody after the end."""
    if state.phase is Phase.PLAYING:
        return frozenset({state.turn})
    if state.phase is Phase.ROUND_OVER:
        return frozenset(range(state.seats))
    return frozenset()


def movable_tiles(state: State, seat: int) -> tuple[int, ...]:
    """Tiles ``seat`` may pick up now: its rack, tiles it placed this turn, and — once it has
    made its initial meld — every table tile. Sorted by id."""
    if state.phase is not Phase.PLAYING or seat != state.turn:
        return ()
    work = working_table(state)
    tiles = set(state.racks[seat])
    if state.melded[seat]:
        tiles |= _on_table(work)
    return tuple(sorted(tiles))


def legal_actions(state: State, seat: int) -> list[Action]:
    """Every action listed here is accepted by :func:`apply`, in a deterministic order.

    To keep the list practical, moves into an existing set are listed at its two ends only
    (``apply`` also accepts inner positions) and ``arrange`` is never listed. Order: ``draw``,
    ``confirm`` (only when it would be accepted), ``reset`` (only when something is arranged),
    then per movable tile by id: ``move t rack`` (if it came from the rack this turn),
    ``move t new``, ``move t i 0`` / ``move t i len`` per set ``i`` it may join.
    """
    if seat not in to_act(state):
        return []
    if state.phase is Phase.ROUND_OVER:
        return [NextRound()]
    actions: list[Action] = [Draw()]
    if not confirm_problems(state):
        actions.append(Confirm())
    if state.work is not None and state.work != state.table:
        actions.append(Reset())
    work = working_table(state)
    committed = _on_table(state.table)
    rack = set(state.racks[seat])
    where = {t: i for i, s in enumerate(work) for t in s}
    melded = state.melded[seat]
    for tile in movable_tiles(state, seat):
        src = where.get(tile)
        if src is not None and tile in rack:
            actions.append(MoveToRack(tile))
        actions.append(MoveNew(tile))
        for i, s in enumerate(work):
            if not melded and not committed.isdisjoint(s):
                continue
            if i == src:
                continue
            actions.append(Move(tile, i, 0))
            actions.append(Move(tile, i, len(s)))
    return actions


# --------------------------------------------------------------------------- apply


def _illegal(code: str, message: str) -> IllegalAction:
    return IllegalAction(code, message)


def _pick_up(state: State, seat: int, tile: int) -> tuple[list[list[int]], int | None]:
    """The in-progress table as lists with ``tile`` removed, and the set it came from."""
    work = [list(s) for s in working_table(state)]
    for i, s in enumerate(work):
        if tile in s:
            if not state.melded[seat] and tile not in state.racks[seat]:
                raise _illegal(
                    "initial_meld_table",
                    f"{tile_str(tile)} (tile {tile}) is on the table: until your initial meld "
                    "you may only play new sets from your rack",
                )
            s.remove(tile)
            return work, i
    if tile in state.racks[seat]:
        return work, None
    raise _illegal("not_your_tile", f"tile {tile} is neither on your rack nor on the table")


def _with_work(state: State, work: Sequence[Sequence[int]]) -> State:
    table = tuple(tuple(s) for s in work if s)
    return replace(state, work=None if table == state.table else table)


def _apply_move(state: State, seat: int, action: Move | MoveNew | MoveToRack) -> State:
    tile = action.tile
    if isinstance(action, MoveToRack):
        if tile not in state.racks[seat]:
            raise _illegal(
                "not_from_rack",
                f"only tiles played from your rack this turn go back to it; "
                f"{tile_str(tile)} (tile {tile}) is not one",
            )
        if tile not in _on_table(working_table(state)):
            raise _illegal("already_on_rack", f"{tile_str(tile)} (tile {tile}) is on your rack")
        work, _ = _pick_up(state, seat, tile)
        return _with_work(state, work)
    current = working_table(state)
    if isinstance(action, Move):
        if not 0 <= action.set_index < len(current):
            raise _illegal(
                "bad_set", f"there is no set {action.set_index + 1} (the table has {len(current)})"
            )
        dest = current[action.set_index]
        if not state.melded[seat] and not _on_table(state.table).isdisjoint(dest):
            raise _illegal(
                "initial_meld_table",
                f"set {action.set_index + 1} was already on the table: until your initial meld "
                "you may only play new sets from your rack",
            )
    work, _ = _pick_up(state, seat, tile)
    if isinstance(action, MoveNew):
        work.append([tile])
    else:
        target = work[action.set_index]
        if not 0 <= action.position <= len(target):
            raise _illegal(
                "bad_position",
                f"set {action.set_index + 1} has room for positions 1..{len(target) + 1}, "
                f"not {action.position + 1}",
            )
        target.insert(action.position, tile)
    return _with_work(state, work)


def _apply_arrange(state: State, seat: int, action: Arrange) -> State:
    seen: set[int] = set()
    rack = set(state.racks[seat])
    committed = _on_table(state.table)
    for s in action.sets:
        if not s:
            raise MalformedAction("an arranged set is empty")
        for t in s:
            if t in seen:
                raise _illegal("duplicate_tile", f"{tile_str(t)} (tile {t}) appears twice")
            seen.add(t)
            if t not in rack and t not in committed:
                raise _illegal(
                    "not_your_tile", f"tile {t} is neither on your rack nor on the table"
                )
    missing = committed - seen
    if missing:
        names = ", ".join(f"{tile_str(t)} (tile {t})" for t in sorted(missing))
        raise _illegal(
            "table_tile_missing", f"every tile on the table must stay on it; missing: {names}"
        )
    if not state.melded[seat]:
        arranged = set(action.sets)
        for i, s in enumerate(state.table):
            if s not in arranged:
                raise _illegal(
                    "initial_meld_table",
                    f"set {i + 1} ({' '.join(tile_str(t) for t in s)}) was changed: until your "
                    "initial meld you may only add new sets from your rack",
                )
    return _with_work(state, action.sets)


def _end_round(state: State, winner: int | None, reason: Termination) -> State:
    values = [_value(r) for r in state.racks]
    if winner is None:
        scores = tuple(-v for v in values)
    else:
        scores = tuple(
            sum(values) - values[s] if s == winner else -values[s] for s in range(state.seats)
        )
    totals = tuple(a + b for a, b in zip(state.totals, scores, strict=True))
    result = RoundResult(state.round_no, reason, winner, scores, state.racks)
    over = max(totals) >= state.config.target
    return replace(
        state,
        phase=Phase.MATCH_OVER if over else Phase.ROUND_OVER,
        work=None,
        totals=totals,
        results=(*state.results, result),
    )


def _next_turn(state: State) -> State:
    return replace(state, turn=(state.turn + 1) % state.seats, work=None)


def _apply_confirm(state: State, seat: int) -> State:
    problems = confirm_problems(state)
    if problems:
        raise ConfirmRefused(problems)
    work = working_table(state)
    placed = _on_table(work)
    played = tuple(t for t in state.racks[seat] if t in placed)
    rack = tuple(t for t in state.racks[seat] if t not in placed)
    racks = tuple(rack if s == seat else r for s, r in enumerate(state.racks))
    entry = LogEntry(state.round_no, seat, "play", played, len(rack), not state.melded[seat])
    melded = tuple(True if s == seat else m for s, m in enumerate(state.melded))
    after = replace(
        state,
        racks=racks,
        table=work,
        work=None,
        melded=melded,
        passes=0,
        log=(*state.log, entry),
    )
    if not rack:
        return _end_round(after, seat, Termination.WENT_OUT)
    return _next_turn(after)


def _apply_draw(state: State, seat: int) -> State:
    following = (state.turn + 1) % state.seats
    if not state.pool:
        entry = LogEntry(state.round_no, seat, "pass", (), len(state.racks[seat]))
        log = (*state.log, entry)
        if state.passes + 1 >= state.seats:
            return _end_round(
                replace(state, passes=state.passes + 1, log=log), None, Termination.BLOCKED
            )
        return replace(state, turn=following, passes=state.passes + 1, work=None, log=log)
    tile = state.pool[0]
    rack = (*state.racks[seat], tile)
    racks = tuple(rack if s == seat else r for s, r in enumerate(state.racks))
    entry = LogEntry(state.round_no, seat, "draw", (), len(rack))
    return replace(
        state, turn=following, racks=racks, pool=state.pool[1:], work=None, log=(*state.log, entry)
    )


def apply(state: State, seat: int, action: Action) -> State:
    """The state after ``seat`` plays ``action``; raises :class:`IllegalAction` (state unchanged)."""
    if not 0 <= seat < state.seats:
        raise _illegal("bad_seat", f"there is no seat {seat}")
    if state.phase is Phase.MATCH_OVER:
        raise _illegal("match_over", "the match is over")
    if state.phase is Phase.ROUND_OVER:
        if isinstance(action, NextRound):
            return _deal(state, state.round_no + 1, (state.starter + 1) % state.seats)
        raise _illegal("round_over", "the round is over: deal the next one with 'next'")
    if isinstance(action, NextRound):
        raise _illegal("round_in_progress", "the round is still being played")
    if seat != state.turn:
        raise _illegal("not_your_turn", f"it is seat {state.turn}'s turn")
    if isinstance(action, Move | MoveNew | MoveToRack):
        return _apply_move(state, seat, action)
    if isinstance(action, Arrange):
        return _apply_arrange(state, seat, action)
    if isinstance(action, Reset):
        return replace(state, work=None)
    if isinstance(action, Confirm):
        return _apply_confirm(state, seat)
    if isinstance(action, Draw):
        return _apply_draw(state, seat)
    raise MalformedAction(f"not a Tile Rummy action: {action!r}")


# --------------------------------------------------------------------------- outcomes


def round_outcome(state: State) -> Outcome | None:
    """The last finished round's result while it is over (also after the match ended)."""
    if state.phase is Phase.PLAYING or not state.results:
        return None
    r = state.results[-1]
    winners = () if r.winner is None else (r.winner,)
    return Outcome(r.reason, winners, r.scores)


def match_outcome(state: State) -> Outcome | None:
    """The match result once a total reached the target: highest totals win (ties share)."""
    if state.phase is not Phase.MATCH_OVER:
        return None
    best = max(state.totals)
    winners = tuple(s for s, t in enumerate(state.totals) if t == best)
    return Outcome(Termination.TARGET_REACHED, winners, state.totals)


def outcome(state: State) -> Outcome | None:
    """``None`` while playing; the round's result when a round is over; the match's at the end."""
    return match_outcome(state) or round_outcome(state)


# --------------------------------------------------------------------------- persistence


def state_to_dict(state: State) -> dict[str, Any]:
    """JSON-ready, complete (it holds the secrets: for storage only, never for a client)."""
    return {
        "config": {"seats": state.config.seats, "target": state.config.target},
        "seed": state.seed,
        "phase": state.phase.value,
        "round_no": state.round_no,
        "starter": state.starter,
        "turn": state.turn,
        "racks": [list(r) for r in state.racks],
        "pool": list(state.pool),
        "table": [list(s) for s in state.table],
        "work": None if state.work is None else [list(s) for s in state.work],
        "melded": list(state.melded),
        "passes": state.passes,
        "totals": list(state.totals),
        "results": [
            {
                "round_no": r.round_no,
                "reason": r.reason.value,
                "winner": r.winner,
                "scores": list(r.scores),
                "remaining": [list(x) for x in r.remaining],
            }
            for r in state.results
        ],
        "start_draw": {
            "rounds": [[list(p) for p in r] for r in state.start_draw.rounds],
            "starter": state.start_draw.starter,
        },
        "log": [
            {
                "round_no": e.round_no,
                "seat": e.seat,
                "kind": e.kind,
                "tiles": list(e.tiles),
                "rack_size": e.rack_size,
                "meld": e.meld,
            }
            for e in state.log
        ],
    }


def _tt(x: Iterable[Iterable[int]]) -> Table:
    return tuple(tuple(int(t) for t in s) for s in x)


def state_from_dict(d: dict[str, Any]) -> State:
    """Inverse of :func:`state_to_dict`; checks that the 106 tiles are each in one place."""
    state = State(
        config=Config(seats=int(d["config"]["seats"]), target=int(d["config"]["target"])),
        seed=int(d["seed"]),
        phase=Phase(d["phase"]),
        round_no=int(d["round_no"]),
        starter=int(d["starter"]),
        turn=int(d["turn"]),
        racks=_tt(d["racks"]),
        pool=tuple(int(t) for t in d["pool"]),
        table=_tt(d["table"]),
        work=None if d["work"] is None else _tt(d["work"]),
        melded=tuple(bool(m) for m in d["melded"]),
        passes=int(d["passes"]),
        totals=tuple(int(t) for t in d["totals"]),
        results=tuple(
            RoundResult(
                int(r["round_no"]),
                Termination(r["reason"]),
                None if r["winner"] is None else int(r["winner"]),
                tuple(int(x) for x in r["scores"]),
                _tt(r["remaining"]),
            )
            for r in d["results"]
        ),
        start_draw=StartDraw(
            tuple(tuple((int(p[0]), int(p[1])) for p in r) for r in d["start_draw"]["rounds"]),
            int(d["start_draw"]["starter"]),
        ),
        log=tuple(
            LogEntry(
                int(e["round_no"]),
                int(e["seat"]),
                str(e["kind"]),
                tuple(int(t) for t in e["tiles"]),
                int(e["rack_size"]),
                bool(e["meld"]),
            )
            for e in d["log"]
        ),
    )
    everything = sorted(
        [*(t for r in state.racks for t in r), *state.pool, *_on_table(state.table)]
    )
    if everything != list(range(NUM_TILES)):
        raise ValueError("corrupt Tile Rummy state: the 106 tiles are not each in one place")
    return state


def describe_table(table: Table) -> str:
    """``R5 JK R7 | K7 B7 Y7`` — for logs and tests."""
    return " | ".join(" ".join(face_str(face_of(t)) for t in s) for s in table)
