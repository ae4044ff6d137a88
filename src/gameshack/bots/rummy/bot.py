"""The Rummy bot: one seat's view (and its memory) in, one legal engine action out.

Every call recomputes the turn's plan from the view, so a bot can be stopped and resumed at any
step of its turn (the server may restart between a meld and the discard).
"""

from __future__ import annotations

import random
from typing import Any

from gameshack.bots.rummy.brain import (
    EASY,
    HARD,
    Opponent,
    Situation,
    choose_discard,
    choose_draw,
    plan_plays,
)
from gameshack.bots.rummy.memory import opponent_sets, update_memory
from gameshack.rules.rummy.actions import (
    Action,
    Commit,
    Deal,
    Discard,
    Draw,
    LayOff,
    Meld,
    NextHand,
    Take,
    parse_action,
)
from gameshack.rules.rummy.cards import card_value, parse_card
from gameshack.rules.rummy.state import Phase
from gameshack.rules.rummy.view import View

__all__ = ["decide_rummy", "situation"]


def situation(view: View, memory: dict[str, Any]) -> Situation:
    """The bots' picture of the position: the view plus what memory adds about opponents."""
    opps = []
    for s in range(view.seats):
        if s == view.seat:
            continue
        known = opponent_sets(memory, s)
        opps.append(
            Opponent(
                seat=s,
                hand_size=view.counts[s],
                total=view.totals[s],
                held=known["held"],
                picked=known["picked"],
                declined=known["declined"],
                discarded=known["discarded"],
                melded_value=view.hand_points[s],
            )
        )
    mine = 0
    for m in view.melds:
        for c, o in zip(m.cards, m.owners, strict=True):
            if o == view.seat:
                mine += card_value(c)
    return Situation(
        seat=view.seat,
        hand=view.hand,
        table=view.melds,
        pile=view.discard,
        stock=view.stock,
        opponents=tuple(opps),
        total=view.totals[view.seat],
        target=view.target,
        melded_value=mine,
        must_use=view.must_play,
        no_discard=view.cannot_discard,
        takes=frozenset(parse_card(text[5:]) for text in view.legal if text.startswith("take ")),
    )


def play_step(sit: Situation, level: int) -> Action:
    """The next action of the play stage: a meld, a lay-off, or the discard."""
    plays, keep = plan_plays(sit)
    if plays.melds:
        melds = sorted(plays.melds, key=lambda m: sit.must_use not in m)
        return Meld(melds[0])
    if plays.layoffs:
        card, index = plays.layoffs[0]  # chain order: 9H before 10H on 6H-7H-8H
        return LayOff((card,), sit.table[index].id)
    left = [keep] if keep is not None else list(plays.left)
    return Discard(choose_discard(sit, left, level))


def _fallback(view: View) -> Action:
    """A legal action when the plan's is not (never expected; counted in memory)."""
    legal = [parse_action(text) for text in view.legal]
    for a in legal:
        if isinstance(a, (Commit, Draw, Deal, NextHand)):
            return a
    discards = [a for a in legal if isinstance(a, Discard)]
    if discards:
        return max(discards, key=lambda a: card_value(a.card))
    plays = [a for a in legal if isinstance(a, (Meld, LayOff))]
    if plays:
        return plays[0]
    return legal[0]


def decide_rummy(
    view: View, memory: dict[str, Any] | None, rng: random.Random, level: int
) -> tuple[Action, dict[str, Any]]:
    del rng  # the Rummy bots are deterministic given the view and memory
    mem = update_memory(memory, hand_no=view.hand_no, seats=view.seats, me=view.seat, log=view.log)
    if not view.legal:
        raise ValueError(f"seat {view.seat} has nothing to do now")
    action: Action
    if view.phase is Phase.DEAL_DRAW:
        action = Deal()
    elif view.phase is Phase.HAND_OVER:
        action = NextHand()
    elif view.stage == "pending":
        action = Commit()
    elif view.stage == "draw":
        sit = situation(view, mem)
        choice = choose_draw(sit, level)
        action = Draw() if choice.take is None else Take(choice.take)
        if choice.take is None and not view.stock:
            action = Take(view.discard[-1])
    else:
        sit = situation(view, mem)
        action = play_step(sit, min(level, HARD) if level >= EASY else EASY)
    if str(action) not in view.legal:
        mem["fallbacks"] = int(mem.get("fallbacks", 0)) + 1
        action = _fallback(view)
    return action, mem
