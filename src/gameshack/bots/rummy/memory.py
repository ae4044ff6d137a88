"""What a Rummy bot remembers about its opponents, from the hand's public log only.

The memory is a JSON-ready dict so that the server can store it with the match and a restart
does not make a bot forget::

    {"v": 1, "hand": 3, "seen": 17,          # hand number, log entries already read
     "pile": [12, 40],                        # the discard pile as replayed from the log
     "opp": {"1": {"held": [..], "picked": [..], "declined": [..], "discarded": [..]}}}

Cards are the engine's ints. ``held``: taken from the discard pile and not played since (known
to be in that hand); ``picked``: every card taken from the pile this hand; ``declined``: pile
tops left for a stock draw; ``discarded``: cards thrown away. Reading is incremental (``seen``)
and starts over when the hand number changes or the memory is missing or from another version.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gameshack.rules.rummy.state import Event

__all__ = ["MEMORY_VERSION", "opponent_sets", "update_memory"]

MEMORY_VERSION = 1
_KEYS = ("held", "picked", "declined", "discarded")


def _fresh(hand_no: int, seats: int, me: int) -> dict[str, Any]:
    return {
        "v": MEMORY_VERSION,
        "game": "rummy",
        "hand": hand_no,
        "seen": 0,
        "pile": [],
        "opp": {str(s): {k: [] for k in _KEYS} for s in range(seats) if s != me},
    }


def _valid(memory: dict[str, Any] | None, hand_no: int, log_len: int) -> bool:
    if not isinstance(memory, dict) or memory.get("v") != MEMORY_VERSION:
        return False
    if memory.get("game") != "rummy" or memory.get("hand") != hand_no:
        return False
    seen = memory.get("seen")
    return isinstance(seen, int) and 0 <= seen <= log_len


def update_memory(
    memory: dict[str, Any] | None,
    *,
    hand_no: int,
    seats: int,
    me: int,
    log: Sequence[Event],
) -> dict[str, Any]:
    """The memory after reading the log entries not seen yet (a new dict; input untouched)."""
    if _valid(memory, hand_no, len(log)):
        assert memory is not None
        mem: dict[str, Any] = {
            **memory,
            "pile": list(memory["pile"]),
            "opp": {s: {k: list(v[k]) for k in _KEYS} for s, v in memory["opp"].items()},
        }
    else:
        mem = _fresh(hand_no, seats, me)
    pile: list[int] = mem["pile"]
    opp: dict[str, dict[str, list[int]]] = mem["opp"]
    for event in log[mem["seen"] :]:
        kind, seat, cards = event.kind, event.seat, event.cards
        o = opp.get(str(seat)) if seat != me else None
        if kind == "deal":
            pile[:] = list(cards)
        elif kind == "draw":
            if o is not None and pile and pile[-1] not in o["declined"]:
                o["declined"].append(pile[-1])
        elif kind == "take":
            del pile[len(pile) - len(cards) :]
            if o is not None:
                o["held"].extend(c for c in cards if c not in o["held"])
                o["picked"].extend(c for c in cards if c not in o["picked"])
        elif kind in ("meld", "layoff"):
            if o is not None:
                o["held"] = [c for c in o["held"] if c not in cards]
        elif kind == "discard":
            pile.extend(cards)
            if o is not None:
                o["held"] = [c for c in o["held"] if c not in cards]
                o["discarded"].extend(cards)
        elif kind == "reshuffle":
            del pile[:-1]
    mem["seen"] = len(log)
    return mem


def opponent_sets(memory: dict[str, Any], seat: int) -> dict[str, set[int]]:
    """One opponent's remembered cards as sets (empty when the seat is unknown)."""
    o = memory.get("opp", {}).get(str(seat))
    if not isinstance(o, dict):
        return {k: set() for k in _KEYS}
    return {k: set(o.get(k, ())) for k in _KEYS}
