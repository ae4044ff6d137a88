"""Computer opponents for both games, and the hints a human seat can ask for.

A bot sees exactly what its seat sees — the engine's ``view(state, seat)`` — plus its own
memory, and answers with an action the engine's ``apply`` accepts::

    action, memory = decide("rummy", "hard", view, memory, rng)

``memory`` is a JSON-ready dict (``None`` at first); store the returned one with the match and
pass it back next time, so a restarted server does not make a bot forget what it saw. The
Rummy bots are deterministic given (view, memory); ``rng`` is for bots that sample.

Difficulties: ``"easy"``, ``"medium"``, ``"hard"``; see :mod:`.rummy.brain` and
:mod:`.tiles.bot` for what each does.

``hint(game, view)`` returns a JSON-ready dict, built on the same functions the bots use.

Rummy, before drawing (``stage`` "draw")::

    {"game": "rummy", "stage": "draw",
     "take": "7H" | None,          # the pile card to take (with every card above it), or None
     "cards": ["7H", "9C"],        # the cards that pickup takes, bottom to top ([] = stock)
     "worth_it": bool,             # whether the pile beats a stock draw
     "reason": str}                # one sentence a player can read

Rummy, after drawing (``stage`` "play")::

    {"game": "rummy", "stage": "play",
     "melds": [["5H", "6H", "7H"]],                # new melds available now
     "layoffs": [{"cards": ["8H"], "meld": 3}],     # lay-offs onto table melds (meld id)
     "highlight": ["5H", "6H", "7H", "8H"],        # the hand cards to outline in gold
     "discard": "KC" | None,                        # suggested discard
     "goes_out": bool, "reason": str}

Rummy at any other moment: ``{"game": "rummy", "stage": None | "pending", "reason": str}``.

Tile Rummy (on the seat's turn; otherwise ``{"game": "tiles", "found": False, ...}`` with
empty lists)::

    {"game": "tiles", "found": bool,           # False: nothing to play, draw
     "initial_meld": bool,                      # this would be the seat's initial meld
     "table": [[12, 14, 16], ...],              # the target arrangement, tile ids per set
     "faces": [["R7", "R8", "R9"], ...],        # the same in notation
     "placed": [14, 16],                        # rack tiles it puts down (tile ids)
     "placed_faces": ["R8", "R9"], "value": 17, "reason": str}
"""

from __future__ import annotations

import random
from typing import Any

from gameshack.bots.identity import bot_identity
from gameshack.bots.rummy.bot import decide_rummy
from gameshack.bots.rummy.hint import rummy_hint
from gameshack.bots.tiles.bot import decide_tiles, tiles_hint

__all__ = ["DIFFICULTIES", "GAMES", "bot_identity", "decide", "hint"]

DIFFICULTIES = ("easy", "medium", "hard")
GAMES = ("rummy", "tiles")


def _level(difficulty: str) -> int:
    try:
        return DIFFICULTIES.index(difficulty)
    except ValueError:
        raise ValueError(f"unknown difficulty {difficulty!r} (easy, medium or hard)") from None


def decide(
    game: str,
    difficulty: str,
    view: Any,
    memory: dict[str, Any] | None,
    rng: random.Random,
) -> tuple[Any, dict[str, Any]]:
    """The bot's action for ``view`` (its seat must be one that acts now) and its new memory."""
    level = _level(difficulty)
    if game == "rummy":
        return decide_rummy(view, memory, rng, level)
    if game == "tiles":
        return decide_tiles(view, memory, rng, level)
    raise ValueError(f"unknown game {game!r} (rummy or tiles)")


def hint(game: str, view: Any) -> dict[str, Any]:
    """A suggestion for a human seat, JSON-ready (shapes in the module docstring)."""
    if game == "rummy":
        return rummy_hint(view)
    if game == "tiles":
        return tiles_hint(view)
    raise ValueError(f"unknown game {game!r} (rummy or tiles)")
