"""Rummy as a :class:`~gameshack.rules.common.GameEngine`: :data:`ENGINE`.

The rules are this package's functions; what the engine adds is what a server needs to know
about Rummy beyond them: a discard waits for a grace window that only the server closes, with
``commit``, and a game starts by itself once its seats are filled.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, final

from gameshack.rules.common import GameEngine, Outcome, action_word
from gameshack.rules.rummy import state as rules
from gameshack.rules.rummy.actions import Action, parse_action
from gameshack.rules.rummy.config import Config
from gameshack.rules.rummy.serial import state_from_dict, state_to_dict
from gameshack.rules.rummy.state import Phase, Stage, State
from gameshack.rules.rummy.timeout import timeout_actions
from gameshack.rules.rummy.view import View, full_view, own_view, public_key, public_view, view

__all__ = ["ENGINE", "RummyEngine"]


@final
class RummyEngine:
    """Stateless; use the one :data:`ENGINE`."""

    name: str = "rummy"
    server_actions: frozenset[str] = frozenset({"commit"})
    grace_action: str | None = "commit"
    starts_when_full: bool = True

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
        return state_to_dict(state)

    def state_from_dict(self, data: dict[str, Any]) -> State:
        return state_from_dict(data)

    def outcome(self, state: State) -> Outcome | None:
        return rules.outcome(state)

    def hand_outcome(self, state: State) -> Outcome | None:
        return rules.hand_outcome(state)

    def match_outcome(self, state: State) -> Outcome | None:
        return rules.match_outcome(state)

    def config(self, seats: int, target: int | None) -> Config:
        """``target`` None: no target, hands are dealt until the players stop."""
        return Config(seats=seats, target=target)

    def hands_finished(self, state: State) -> int:
        return len(state.results)

    def only_next(self, state: State) -> bool:
        return state.phase is Phase.HAND_OVER

    def opening(self, state: State) -> bool:
        return (
            state.hand_no == 1
            and state.phase is Phase.PLAYING
            and state.stage is Stage.DRAW
            and all(e.kind == "deal" for e in state.log)
        )

    def pending_window(self, state: State) -> bool:
        """A discard waits for ``commit`` (the grace window, in which ``undo`` takes it back)."""
        return rules.pending_discard(state)

    def server_only(self, text: str) -> bool:
        return action_word(text) in self.server_actions

    def legal_strings(self, state: State, seat: int, view: Mapping[str, Any]) -> list[str]:
        """The view's own ``legal`` list (the engine's, in notation) without ``commit``."""
        listed = view.get("legal")
        if listed is None:
            listed = [str(a) for a in rules.legal_actions(state, seat)]
        return [a for a in listed if not self.server_only(a)]

    def timeout_action(self, state: State, seat: int) -> list[str]:
        """Undo the turn to its start, draw from the stock, discard the drawn card, commit
        (:mod:`.timeout` has the corner cases)."""
        return [str(a) for a in timeout_actions(state, seat)]


ENGINE: Final[GameEngine[State, Action, Config]] = RummyEngine()
"""Rummy's engine: ``from gameshack.rules.rummy import ENGINE``."""
