"""Tile Rummy as a :class:`~gameshack.rules.common.GameEngine`: :data:`ENGINE`.

The rules are this package's functions; what the engine adds is what a server needs to know
about Tile Rummy beyond them: no action is the server's alone, no move waits for a window, the
host starts the match, and the client is told the turn-level actions only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, final

from gameshack.rules.common import GameEngine, Outcome
from gameshack.rules.tiles import state as rules
from gameshack.rules.tiles.actions import Action, parse_action
from gameshack.rules.tiles.config import Config
from gameshack.rules.tiles.state import Phase, State
from gameshack.rules.tiles.view import View, full_view, own_view, public_key, public_view, view

__all__ = ["ENGINE", "LISTED", "TilesEngine"]

LISTED: Final = ("draw", "confirm", "reset", "next")
"""The actions a client is told are legal, when they are, in this order. Single-tile moves are
not listed: there are thousands, and the view's ``can`` flags say what may move where."""


@final
class TilesEngine:
    """Stateless; use the one :data:`ENGINE`."""

    name: str = "tiles"
    server_actions: frozenset[str] = frozenset()
    grace_action: str | None = None
    starts_when_full: bool = False

    def new_match(self, config: Config, seed: int) -> State:
        return rules.new_match(config, seed)

    def legal_actions(self, state: State, seat: int) -> list[Action]:
        return rules.legal_actions(state, seat)

    def apply(self, state: State, seat: int, action: Action) -> State:
        return rules.apply(state, seat, action)

    def to_act(self, state: State) -> frozenset[int]:
        return rules.to_act(state)

    def view(self, state: State, seat: int) -> View:
        return view(state, seat)

    def public_view(self, state: State, log: bool = True) -> dict[str, Any]:
        return public_view(state, log)

    def log_events(self, state: State) -> tuple[Any, ...]:
        return state.log

    def public_key(self, state: State) -> tuple[object, ...]:
        return public_key(state)

    def own_view(self, state: State, seat: int) -> dict[str, Any] | None:
        return own_view(state, seat)

    def full_view(self, state: State) -> dict[str, Any]:
        return full_view(state)

    def parse_action(self, text: str) -> Action:
        return parse_action(text)

    def state_to_dict(self, state: State) -> dict[str, Any]:
        return rules.state_to_dict(state)

    def state_from_dict(self, data: dict[str, Any]) -> State:
        return rules.state_from_dict(data)

    def outcome(self, state: State) -> Outcome | None:
        return rules.outcome(state)

    def hand_outcome(self, state: State) -> Outcome | None:
        return rules.round_outcome(state)

    def match_outcome(self, state: State) -> Outcome | None:
        return rules.match_outcome(state)

    def config(self, seats: int, target: int | None) -> Config:
        """``target`` None (or 0): the standard 200."""
        return Config(seats=seats, target=target) if target else Config(seats=seats)

    def hands_finished(self, state: State) -> int:
        return len(state.results)

    def only_next(self, state: State) -> bool:
        return state.phase is Phase.ROUND_OVER

    def opening(self, state: State) -> bool:
        return (
            state.round_no == 1
            and state.phase is Phase.PLAYING
            and not state.log
            and state.work is None
        )

    def pending_window(self, state: State) -> bool:
        return False

    def server_only(self, text: str) -> bool:
        return False

    def legal_strings(self, state: State, seat: int, view: Mapping[str, Any]) -> list[str]:
        """The turn-level actions (:data:`LISTED`) the view's ``can`` flags allow."""
        can = view["can"]
        return [a for a in LISTED if can.get(a)]

    def timeout_action(self, state: State, seat: int) -> list[str]:
        """The official app's penalty: the arrangement in progress is reset and the seat draws
        a tile (a pass when the pool is empty); nothing while it is not the seat's turn."""
        if state.phase is not Phase.PLAYING or seat != state.turn:
            return []
        return ["reset", "draw"] if state.work is not None else ["draw"]


ENGINE: Final[GameEngine[State, Action, Config]] = TilesEngine()
"""Tile Rummy's engine: ``from gameshack.rules.tiles import ENGINE``."""
