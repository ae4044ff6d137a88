"""JSON-ready persistence of a :class:`State`: ``state_from_dict(state_to_dict(s)) == s``.

The dict holds everything, hidden cards included: it is for the server's store, never for a
client (clients get :func:`gameshack.rules.rummy.view`). Cards are stored as ints.
"""

from __future__ import annotations

from typing import Any

from gameshack.rules.common import Termination
from gameshack.rules.rummy.config import Config
from gameshack.rules.rummy.melds import TableMeld
from gameshack.rules.rummy.state import Event, HandResult, Phase, State, Step

__all__ = ["state_from_dict", "state_to_dict"]

FORMAT = 1


def _ints(x: Any) -> tuple[int, ...]:
    return tuple(int(v) for v in x)


def state_to_dict(state: State) -> dict[str, Any]:
    def meld(m: TableMeld) -> list[Any]:
        return [m.id, m.kind, list(m.cards), list(m.owners)]

    def event(e: Event) -> list[Any]:
        return [e.seat, e.kind, list(e.cards), e.meld_id]

    def result(r: HandResult) -> dict[str, Any]:
        d = r._asdict()
        d["reason"] = r.reason.value
        return {k: list(v) if isinstance(v, tuple) else v for k, v in d.items()}

    return {
        "format": FORMAT,
        "config": state.config.to_dict(),
        "seed": state.seed,
        "phase": state.phase.value,
        "hand_no": state.hand_no,
        "first_draw": list(state.first_draw),
        "first_winner": state.first_winner,
        "starter": state.starter,
        "turn": state.turn,
        "hands": [list(h) for h in state.hands],
        "stock": list(state.stock),
        "discard": list(state.discard),
        "melds": [meld(m) for m in state.melds],
        "reshuffles": state.reshuffles,
        "table_mark": state.table_mark,
        "mark_turn": state.mark_turn,
        "turn_no": state.turn_no,
        "stage": state.stage,
        "steps": [[s.kind, list(s.cards), s.meld_id] for s in state.steps],
        "drawn": state.drawn,
        "taken_top": state.taken_top,
        "picked": state.picked,
        "pending": state.pending,
        "turn_events": [event(e) for e in state.turn_events],
        "pub_discard": list(state.pub_discard),
        "pub_melds": [meld(m) for m in state.pub_melds],
        "pub_counts": list(state.pub_counts),
        "pub_stock": state.pub_stock,
        "totals": list(state.totals),
        "results": [result(r) for r in state.results],
        "log": [event(e) for e in state.log],
    }


def state_from_dict(d: dict[str, Any]) -> State:
    """Rebuild a state from :func:`state_to_dict` output; raise ValueError if it is not one."""
    if d.get("format") != FORMAT:
        raise ValueError(f"unknown Rummy state format {d.get('format')!r}")

    def meld(x: list[Any]) -> TableMeld:
        return TableMeld(int(x[0]), str(x[1]), _ints(x[2]), _ints(x[3]))

    def event(x: list[Any]) -> Event:
        return Event(int(x[0]), str(x[1]), _ints(x[2]), int(x[3]))

    def result(x: dict[str, Any]) -> HandResult:
        return HandResult(
            hand_no=int(x["hand_no"]),
            reason=Termination(x["reason"]),
            winner=int(x["winner"]),
            scores=_ints(x["scores"]),
            played=_ints(x["played"]),
            in_hand=_ints(x["in_hand"]),
            cards_left=_ints(x["cards_left"]),
            one_turn_out=bool(x["one_turn_out"]),
            totals=_ints(x["totals"]),
        )

    cfg = d["config"]
    return State(
        config=Config(seats=int(cfg["seats"]), target=cfg["target"]),
        seed=int(d["seed"]),
        phase=Phase(d["phase"]),
        hand_no=int(d["hand_no"]),
        first_draw=_ints(d["first_draw"]),
        first_winner=int(d["first_winner"]),
        starter=int(d["starter"]),
        turn=int(d["turn"]),
        hands=tuple(_ints(h) for h in d["hands"]),
        stock=_ints(d["stock"]),
        discard=_ints(d["discard"]),
        melds=tuple(meld(m) for m in d["melds"]),
        reshuffles=int(d["reshuffles"]),
        table_mark=int(d["table_mark"]),
        mark_turn=int(d["mark_turn"]),
        turn_no=int(d["turn_no"]),
        stage=int(d["stage"]),
        steps=tuple(Step(str(s[0]), _ints(s[1]), int(s[2])) for s in d["steps"]),
        drawn=int(d["drawn"]),
        taken_top=int(d["taken_top"]),
        picked=int(d["picked"]),
        pending=int(d["pending"]),
        turn_events=tuple(event(e) for e in d["turn_events"]),
        pub_discard=_ints(d["pub_discard"]),
        pub_melds=tuple(meld(m) for m in d["pub_melds"]),
        pub_counts=_ints(d["pub_counts"]),
        pub_stock=int(d["pub_stock"]),
        totals=_ints(d["totals"]),
        results=tuple(result(r) for r in d["results"]),
        log=tuple(event(e) for e in d["log"]),
    )
