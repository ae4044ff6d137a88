"""Hints for a human Rummy seat, from the same judgement the Medium bot plays by."""

from __future__ import annotations

from typing import Any

from gameshack.bots.rummy.bot import situation
from gameshack.bots.rummy.brain import MEDIUM, choose_discard, choose_draw, plan_plays
from gameshack.bots.rummy.memory import update_memory
from gameshack.rules.rummy.cards import card_str
from gameshack.rules.rummy.state import Phase
from gameshack.rules.rummy.view import View

__all__ = ["rummy_hint"]


def _cs(cards: Any) -> list[str]:
    return [card_str(c) for c in cards]


def rummy_hint(view: View) -> dict[str, Any]:
    base: dict[str, Any] = {"game": "rummy", "stage": view.stage}
    if view.phase is not Phase.PLAYING or view.stage not in ("draw", "play"):
        return {**base, "reason": "nothing to suggest right now"}
    mem = update_memory(None, hand_no=view.hand_no, seats=view.seats, me=view.seat, log=view.log)
    sit = situation(view, mem)
    if view.stage == "draw":
        choice = choose_draw(sit, MEDIUM)
        if choice.take is None or not view.discard:
            top = card_str(view.discard[-1]) if view.discard else None
            return {
                **base,
                "take": None,
                "cards": [],
                "worth_it": False,
                "reason": f"draw from the stock: {top} does not help you enough"
                if top
                else "draw from the stock",
            }
        i = view.discard.index(choice.take)
        cards = view.discard[i:]
        reason = (
            f"take {card_str(choice.take)}: it fits your hand"
            if len(cards) == 1
            else f"take {len(cards)} cards down to {card_str(choice.take)}: they make melds"
        )
        return {
            **base,
            "take": card_str(choice.take),
            "cards": _cs(cards),
            "worth_it": True,
            "reason": reason,
        }
    plays, keep = plan_plays(sit)
    left = [keep] if keep is not None else list(plays.left)
    discard = choose_discard(sit, left, MEDIUM) if left else None
    highlight = sorted({c for m in plays.melds for c in m} | {c for c, _ in plays.layoffs})
    goes_out = len(left) == 1 and discard is not None
    layoffs = [{"cards": [card_str(c)], "meld": sit.table[i].id} for c, i in plays.layoffs]
    if plays.melds or layoffs:
        reason = f"you can put down {plays.value} points"
    else:
        reason = "nothing to meld yet: discard your least useful card"
    if goes_out:
        reason = "you can go out this turn"
    return {
        **base,
        "melds": [_cs(m) for m in plays.melds],
        "layoffs": layoffs,
        "highlight": _cs(highlight),
        "discard": card_str(discard) if discard is not None else None,
        "goes_out": goes_out,
        "reason": reason,
    }
