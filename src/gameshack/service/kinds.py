"""The game kinds the service serves, under the names the runner uses.

Everything that differs between games is the engine's to say
(:class:`~gameshack.rules.common.GameEngine`); a :class:`Kind` is a game's name and its engine,
with the engine's server facts under the runner's names. It holds no rule and no branch on the
game: new code can use ``room.kind.engine`` (or :data:`gameshack.rules.engine.ENGINES`) alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gameshack.rules.common import Outcome
from gameshack.rules.engine import ENGINES, AnyEngine

__all__ = ["KINDS", "Kind", "kind"]


@dataclass(frozen=True)
class Kind:
    name: str
    engine: AnyEngine

    def config(self, seats: int, target: int | None) -> Any:
        return self.engine.config(seats, target)

    def pending_discard(self, state: Any) -> bool:
        """A move waits for its grace window to end (a Rummy discard)."""
        return self.engine.pending_window(state)

    def hand_outcome(self, state: Any) -> Outcome | None:
        """The result of the hand/round just finished (None while one is being played)."""
        return self.engine.hand_outcome(state)

    def hands_finished(self, state: Any) -> int:
        """How many hands/rounds of this match have ended so far."""
        return self.engine.hands_finished(state)

    def match_outcome(self, state: Any) -> Outcome | None:
        return self.engine.match_outcome(state)

    def legal_strings(self, state: Any, seat: int, view: Mapping[str, Any]) -> list[str]:
        """The seat's legal actions in notation, for the client's greying-out."""
        return self.engine.legal_strings(state, seat, view)

    def only_next(self, state: Any) -> bool:
        """Between hands/rounds: the only thing to do is deal the next one."""
        return self.engine.only_next(state)

    def server_only(self, text: str) -> bool:
        return self.engine.server_only(text)


KINDS = {name: Kind(name, engine) for name, engine in ENGINES.items()}


def kind(name: str) -> Kind:
    return KINDS[name]
