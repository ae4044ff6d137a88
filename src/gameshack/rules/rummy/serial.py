"""JSON-ready persistence of a :class:`State`: ``state_from_dict(state_to_dict(s)) == s``.

The dict holds everything, hidden cards included: it is for the server's store, never for a
client (clients get :func:`gameshack.rules.rummy.view`). Cards are stored as ints.

Stored games must keep loading, so the dict keeps format 1 as first written: ``-1`` stands for
"none" (no card, seat or mark), the stage is its number (0 draw, 1 play, 2 pending), and an
event or step is a list ``[seat, kind, cards, number]`` whose number is the meld id of a meld or
lay-off, the new stock size of a reshuffle and ``-1`` otherwise.
"""

from __future__ import annotations

from typing import Any, Final

from gameshack.rules.common import Termination
from gameshack.rules.rummy.config import Config
from gameshack.rules.rummy.melds import TableMeld
from gameshack.rules.rummy.state import Event, HandResult, Phase, Stage, State, Step

__all__ = ["state_from_dict", "state_to_dict"]

FORMAT = 1
_STAGES: Final = (Stage.DRAW, Stage.PLAY, Stage.PENDING)  # by their stored number
_NONE: Final = -1  # "none" in the stored form


def _ints(x: Any) -> tuple[int, ...]:
    return tuple(int(v) for v in x)


def _opt(x: int | None) -> int:
    return _NONE if x is None else x


def _opt_in(x: Any) -> int | None:
    return None if int(x) == _NONE else int(x)


def _meld_out(m: TableMeld) -> list[Any]:
    return [m.id, m.kind, list(m.cards), list(m.owners)]


def _meld_in(x: list[Any]) -> TableMeld:
    return TableMeld(int(x[0]), str(x[1]), _ints(x[2]), _ints(x[3]))


def _event_out(e: Event) -> list[Any]:
    number = e.stock if e.kind == "reshuffle" else e.meld_id
    return [_opt(e.seat), e.kind, list(e.cards), _opt(number)]


def _event_in(x: list[Any]) -> Event:
    seat, kind, cards, number = _opt_in(x[0]), str(x[1]), _ints(x[2]), _opt_in(x[3])
    if kind == "reshuffle":
        return Event(seat, kind, cards, stock=number)
    return Event(seat, kind, cards, meld_id=number)


def _result_out(r: HandResult) -> dict[str, Any]:
    return {
        "hand_no": r.hand_no,
        "reason": r.reason.value,
        "winner": _opt(r.winner),
        "scores": list(r.scores),
        "played": list(r.played),
        "in_hand": list(r.in_hand),
        "cards_left": list(r.cards_left),
        "one_turn_out": r.one_turn_out,
        "totals": list(r.totals),
    }


def _result_in(x: dict[str, Any]) -> HandResult:
    return HandResult(
        hand_no=int(x["hand_no"]),
        reason=Termination(x["reason"]),
        winner=_opt_in(x["winner"]),
        scores=_ints(x["scores"]),
        played=_ints(x["played"]),
        in_hand=_ints(x["in_hand"]),
        cards_left=_ints(x["cards_left"]),
        one_turn_out=bool(x["one_turn_out"]),
        totals=_ints(x["totals"]),
    )


def state_to_dict(state: State) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "config": state.config.to_dict(),
        "seed": state.seed,
        "phase": state.phase.value,
        "hand_no": state.hand_no,
        "first_draw": [_opt(c) for c in state.first_draw],
        "first_winner": _opt(state.first_winner),
        "starter": _opt(state.starter),
        "turn": _opt(state.turn),
        "hands": [list(h) for h in state.hands],
        "stock": list(state.stock),
        "discard": list(state.discard),
        "melds": [_meld_out(m) for m in state.melds],
        "reshuffles": state.reshuffles,
        "table_mark": _opt(state.table_mark),
        "mark_turn": state.mark_turn,
        "turn_no": state.turn_no,
        "stage": _STAGES.index(state.stage),
        "steps": [[s.kind, list(s.cards), _opt(s.meld_id)] for s in state.steps],
        "drawn": _opt(state.drawn),
        "taken_top": _opt(state.taken_top),
        "picked": _opt(state.picked),
        "pending": _opt(state.pending),
        "turn_events": [_event_out(e) for e in state.turn_events],
        "pub_discard": list(state.pub_discard),
        "pub_melds": [_meld_out(m) for m in state.pub_melds],
        "pub_counts": list(state.pub_counts),
        "pub_stock": state.pub_stock,
        "totals": list(state.totals),
        "results": [_result_out(r) for r in state.results],
        "log": [_event_out(e) for e in state.log],
    }


def state_from_dict(d: dict[str, Any]) -> State:
    """Rebuild a state from :func:`state_to_dict` output; raise ValueError if it is not one."""
    if d.get("format") != FORMAT:
        raise ValueError(f"unknown Rummy state format {d.get('format')!r}")
    cfg = d["config"]
    return State(
        config=Config(seats=int(cfg["seats"]), target=cfg["target"]),
        seed=int(d["seed"]),
        phase=Phase(d["phase"]),
        hand_no=int(d["hand_no"]),
        first_draw=tuple(_opt_in(c) for c in d["first_draw"]),
        first_winner=_opt_in(d["first_winner"]),
        starter=_opt_in(d["starter"]),
        turn=_opt_in(d["turn"]),
        hands=tuple(_ints(h) for h in d["hands"]),
        stock=_ints(d["stock"]),
        discard=_ints(d["discard"]),
        melds=tuple(_meld_in(m) for m in d["melds"]),
        reshuffles=int(d["reshuffles"]),
        table_mark=_opt_in(d["table_mark"]),
        mark_turn=int(d["mark_turn"]),
        turn_no=int(d["turn_no"]),
        stage=_STAGES[int(d["stage"])],
        steps=tuple(Step(str(s[0]), _ints(s[1]), _opt_in(s[2])) for s in d["steps"]),
        drawn=_opt_in(d["drawn"]),
        taken_top=_opt_in(d["taken_top"]),
        picked=_opt_in(d["picked"]),
        pending=_opt_in(d["pending"]),
        turn_events=tuple(_event_in(e) for e in d["turn_events"]),
        pub_discard=_ints(d["pub_discard"]),
        pub_melds=tuple(_meld_in(m) for m in d["pub_melds"]),
        pub_counts=_ints(d["pub_counts"]),
        pub_stock=int(d["pub_stock"]),
        totals=_ints(d["totals"]),
        results=tuple(_result_in(r) for r in d["results"]),
        log=tuple(_event_in(e) for e in d["log"]),
    )
