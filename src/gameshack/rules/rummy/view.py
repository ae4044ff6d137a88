"""What one seat may see: the only way game information leaves the engine for a player.

A seat sees its own hand and its own turn in progress (cards drawn or taken, melds and lay-offs
made privately, the pending discard). About everyone else it sees only what is public as of the
last commit: committed melds with who played each card, the discard pile in order, card counts,
the stock *size*, scores, whose turn, and the hand's public log. Another seat's turn in progress
is invisible until its discard is committed; the stock's order is never visible.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gameshack.rules.rummy.cards import Card, card_str, card_value
from gameshack.rules.rummy.melds import TableMeld
from gameshack.rules.rummy.state import (
    Event,
    HandResult,
    Phase,
    Stage,
    State,
    legal_actions,
    match_outcome,
    to_act,
)

__all__ = ["View", "full_view", "own_view", "public_key", "public_view", "view"]


def _cs(cards: tuple[Card, ...]) -> list[str]:
    return [card_str(c) for c in cards]


def _card(card: Card | None) -> str | None:
    return None if card is None else card_str(card)


@dataclass(frozen=True, slots=True)
class View:
    """One seat's view. Cards are ints (see :mod:`.cards`); :meth:`to_dict` gives notation."""

    phase: Phase
    seat: int
    seats: int
    target: int | None
    hand_no: int
    starter: int | None  # None before the first deal
    turn: int | None  # whose turn, None when no hand is being played
    to_act: tuple[int, ...]
    stage: str | None  # my turn's stage: "draw" / "play" / "pending"; None if not my turn
    hand: tuple[Card, ...]  # my cards now (sorted)
    drawn: Card | None  # card I drew from the stock this turn
    taken: tuple[Card, ...]  # cards I took from the discard pile this turn (bottom to top)
    cannot_discard: Card | None  # the single top card I took: not discardable this turn
    must_play: Card | None  # the picked card of my multi-card pickup while still in my hand
    pending: Card | None  # my pending discard
    counts: tuple[int, ...]  # cards in hand per seat (others: as committed)
    stock: int  # number of cards in the draw pile
    discard: tuple[Card, ...]  # discard pile, bottom to top
    melds: tuple[TableMeld, ...]  # the table (mine includes my uncommitted plays)
    uncommitted: tuple[tuple[Card, ...], ...]  # per meld: my cards on it not yet public
    totals: tuple[int, ...]  # running match totals (including a hand just finished)
    hand_points: tuple[int, ...]  # value melded/laid off this hand per seat (committed)
    first_draw: tuple[Card | None, ...]  # first-deal draw cards revealed so far
    first_winner: int | None
    result: HandResult | None  # the hand just finished (HAND_OVER / MATCH_OVER)
    history: tuple[HandResult, ...]  # every finished hand of the match
    match_winners: tuple[int, ...]  # MATCH_OVER: the highest total(s)
    legal: tuple[str, ...]  # my legal actions in notation
    can_undo: bool
    undo: str | None  # what undo would do, in words
    log: tuple[Event, ...]  # the hand's public, committed events

    def to_dict(self, log: bool = True) -> dict[str, object]:
        d: dict[str, object] = {
            "phase": self.phase.value,
            "seat": self.seat,
            "seats": self.seats,
            "target": self.target,
            "hand_no": self.hand_no,
            "starter": self.starter,
            "turn": self.turn,
            "to_act": list(self.to_act),
            "stage": self.stage,
            "hand": _cs(self.hand),
            "hand_value": sum(card_value(c) for c in self.hand),
            "drawn": _card(self.drawn),
            "taken": _cs(self.taken),
            "cannot_discard": _card(self.cannot_discard),
            "must_play": _card(self.must_play),
            "pending": _card(self.pending),
            "counts": list(self.counts),
            "stock": self.stock,
            "discard": _cs(self.discard),
            "melds": [
                {**m.to_dict(), "uncommitted": _cs(u)}
                for m, u in zip(self.melds, self.uncommitted, strict=True)
            ],
            "totals": list(self.totals),
            "hand_points": list(self.hand_points),
            "first_draw": [_card(c) for c in self.first_draw],
            "first_winner": self.first_winner,
            "result": self.result.to_dict() if self.result is not None else None,
            "history": [r.to_dict() for r in self.history],
            "match_winners": list(self.match_winners),
            "legal": list(self.legal),
            "can_undo": self.can_undo,
            "undo": self.undo,
        }
        if log:
            d["log"] = [e.to_dict() for e in self.log]
        return d


def _undo_text(state: State) -> str | None:
    if not state.steps:
        return None
    step = state.steps[-1]
    cards = " ".join(card_str(c) for c in step.cards)
    if step.kind == "discard":
        return f"take back the discard {cards}"
    if step.kind == "meld":
        return f"take back the meld {cards}"
    if step.kind == "layoff":
        return f"take back {cards} from meld #{step.meld_id}"
    return f"put {cards} back on the discard pile"


def view(state: State, seat: int) -> View:
    """Everything ``seat`` may see."""
    n = state.config.seats
    if not 0 <= seat < n:
        raise ValueError(f"there is no seat {seat} in a {n}-seat game")
    playing = state.phase is Phase.PLAYING
    mine = playing and state.turn == seat
    if mine:
        counts = tuple(
            len(h) if s == seat else c
            for s, (h, c) in enumerate(zip(state.hands, state.pub_counts, strict=True))
        )
        stock, discard, melds = len(state.stock), state.discard, state.melds
    else:
        counts, stock, discard, melds = (
            state.pub_counts,
            state.pub_stock,
            state.pub_discard,
            state.pub_melds,
        )
    uncommitted: list[tuple[Card, ...]] = []
    for m in melds:
        if mine:
            pub = set(state.pub_melds[m.id].cards) if m.id < len(state.pub_melds) else set()
            uncommitted.append(tuple(c for c in m.cards if c not in pub))
        else:
            uncommitted.append(())
    points = [0] * n
    for m in state.pub_melds:
        for c, o in zip(m.cards, m.owners, strict=True):
            points[o] += card_value(c)
    over = state.phase in (Phase.HAND_OVER, Phase.MATCH_OVER)
    taken: tuple[Card, ...] = ()
    if mine and state.steps and state.steps[0].kind == "take":
        taken = state.steps[0].cards
    mo = match_outcome(state)
    hand = state.hands[seat]
    return View(
        phase=state.phase,
        seat=seat,
        seats=n,
        target=state.config.target,
        hand_no=state.hand_no,
        starter=state.starter,
        turn=state.turn if playing else None,
        to_act=tuple(sorted(to_act(state))),
        stage=state.stage.value if mine else None,
        hand=hand,
        drawn=state.drawn if mine else None,
        taken=taken,
        cannot_discard=state.taken_top if mine else None,
        must_play=state.picked if mine and state.picked in hand else None,
        pending=state.pending if mine and state.stage is Stage.PENDING else None,
        counts=counts,
        stock=stock,
        discard=discard,
        melds=melds,
        uncommitted=tuple(uncommitted),
        totals=state.totals,
        hand_points=tuple(points),
        first_draw=state.first_draw,
        first_winner=state.first_winner,
        result=state.results[-1] if over and state.results else None,
        history=state.results,
        match_winners=mo.winners if mo is not None else (),
        legal=tuple(str(a) for a in legal_actions(state, seat)),
        can_undo=mine and bool(state.steps),
        undo=_undo_text(state) if mine else None,
        log=state.log,
    )


_OWN = ("hand", "hand_value", "drawn", "taken", "cannot_discard", "must_play", "pending")
_ACTING = ("legal", "can_undo", "undo")


def public_view(state: State, log: bool = True) -> dict[str, Any]:
    """What anyone may see, a spectator included: the view of a seat that is not on turn,
    without that seat's hand or anything of its own (``seat`` is None). A turn in progress,
    a pending discard and the stock's order are not in it."""
    other = 1 if state.phase is Phase.PLAYING and state.turn == 0 else 0
    d = view(state, other).to_dict(log)
    for key in _OWN + _ACTING:
        del d[key]
    d["seat"] = None
    d["stage"] = None
    return d


def public_key(state: State) -> tuple[object, ...]:
    """Everything :func:`public_view` is made of: two states with equal keys have the same
    public view (tests/rules/test_public_and_full_views.py). A turn in progress leaves the
    key as it was (its parts are the very same objects, so comparing them is quick)."""
    return (
        state.config,
        state.phase,
        state.hand_no,
        state.starter,
        state.turn,
        state.first_draw,
        state.first_winner,
        state.pub_counts,
        state.pub_stock,
        state.pub_discard,
        state.pub_melds,
        state.totals,
        state.results,
        state.log,
    )


def own_view(state: State, seat: int) -> dict[str, Any] | None:
    """What ``seat`` sees beyond :func:`public_view`, when that is all: every seat but the one
    playing its turn sees the public table plus its own hand, so its view is
    ``{**public_view(state), **own_view(state, seat)}`` (the view's own keys, ``seat`` and
    ``stage`` included; tests/rules/test_public_and_full_views.py checks it by self-play). None
    for the seat playing its turn, which sees its turn in progress: only :func:`view` has it.

    The server builds the public part once for every seat that is not on turn."""
    n = state.config.seats
    if not 0 <= seat < n:
        raise ValueError(f"there is no seat {seat} in a {n}-seat game")
    if state.phase is Phase.PLAYING and state.turn == seat:
        return None
    hand = state.hands[seat]
    return {
        "seat": seat,
        "stage": None,
        "hand": _cs(hand),
        "hand_value": sum(card_value(c) for c in hand),
        "drawn": None,
        "taken": [],
        "cannot_discard": None,
        "must_play": None,
        "pending": None,
        "legal": [str(a) for a in legal_actions(state, seat)],
        "can_undo": False,
        "undo": None,
    }


def full_view(state: State) -> dict[str, Any]:
    """Everything, for a replay of a finished match: the table as the seat on turn sees it
    (its turn in progress included) and every seat's hand in ``hands``."""
    seat = state.turn if state.phase is Phase.PLAYING and state.turn is not None else 0
    d = view(state, seat).to_dict()
    for key in ("hand", "hand_value", *_ACTING):
        del d[key]
    d["seat"] = None
    d["hands"] = [_cs(h) for h in state.hands]
    d["counts"] = [len(h) for h in state.hands]
    return d
