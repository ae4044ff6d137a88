"""What the service needs to know about each game kind beyond the common engine interface."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from gameshack.rules.common import Outcome

__all__ = ["KINDS", "Kind", "kind"]

# Actions only the server may issue; a client sending one gets ``server_only``.
SERVER_ONLY = {"rummy": ("commit",), "tiles": ()}
# Turn-level Tile Rummy actions listed in ``view.legal`` (single-tile moves are too many).
TILES_LISTED = ("draw", "confirm", "reset", "next")


@dataclass(frozen=True)
class Kind:
    name: str
    module_name: str

    @property
    def engine(self) -> ModuleType:
        return importlib.import_module(self.module_name)

    def config(self, seats: int, target: int | None) -> Any:
        if self.name == "tiles":
            return self.engine.Config(seats=seats, target=target or 200)
        return self.engine.Config(seats=seats, target=target)

    def pending_discard(self, state: Any) -> bool:
        """True while a Rummy discard waits for its grace window to end."""
        if self.name != "rummy":
            return False
        return bool(self.engine.pending_discard(state))

    def hand_outcome(self, state: Any) -> Outcome | None:
        """The result of the hand/round just finished (None while one is being played)."""
        eng = self.engine
        if self.name == "tiles":
            return eng.round_outcome(state)  # type: ignore[no-any-return]
        return eng.hand_outcome(state)  # type: ignore[no-any-return]

    def hands_finished(self, state: Any) -> int:
        """How many hands/rounds of this match have ended so far."""
        if self.name == "tiles":
            return len(state.results)
        return len(state.results)

    def match_outcome(self, state: Any) -> Outcome | None:
        return self.engine.match_outcome(state)  # type: ignore[no-any-return]

    def legal_strings(self, state: Any, seat: int, view: dict[str, Any]) -> list[str]:
        """The seat's legal actions in notation, for the client's greying-out."""
        if self.name == "tiles":
            # The engine lists every single-tile move (slow, and thousands of them); the view's
            # own flags give the turn-level actions, in the engine's order.
            can = view["can"]
            return [a for a in TILES_LISTED if can.get(a)]
        listed = view.get("legal")
        if listed is None:
            listed = [str(a) for a in self.engine.legal_actions(state, seat)]
        return [a for a in listed if not self.server_only(a)]

    def only_next(self, state: Any) -> bool:
        """Between hands/rounds: the only thing to do is deal the next one."""
        phase = state.phase.value
        return phase in ("hand_over", "round_over")

    def server_only(self, text: str) -> bool:
        word = text.strip().split(" ", 1)[0].lower()
        return word in SERVER_ONLY[self.name]


KINDS = {
    "rummy": Kind("rummy", "gameshack.rules.rummy"),
    "tiles": Kind("tiles", "gameshack.rules.tiles"),
}


def kind(name: str) -> Kind:
    return KINDS[name]
