"""Pieces shared by every rules engine: seats, errors, outcomes, seeded randomness, and the
:class:`GameEngine` protocol each game implements.

The error vocabulary is deliberately small. :class:`MalformedAction` means the input could not
be understood at all (bad notation, unknown card); :class:`IllegalAction` means it was
understood but the rules forbid it now. Both carry a stable machine-readable ``code`` that a
client can switch on and a human ``message`` it can show.
"""

from __future__ import annotations

import enum
import hashlib
import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

__all__ = [
    "AnyEngine",
    "GameEngine",
    "IllegalAction",
    "MalformedAction",
    "Outcome",
    "Seat",
    "SeatView",
    "Termination",
    "action_word",
    "derive_rng",
    "derive_seed",
]

Seat = int
"""A seat is its index in join order, 0-based; turn order is increasing index, wrapping."""


class IllegalAction(Exception):
    """An action the rules forbid in this state. The state is unchanged."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code!r}, {self.message!r})"


class MalformedAction(IllegalAction):
    """Input that is not an action at all (unparseable notation, unknown card or tile)."""

    def __init__(self, message: str, code: str = "malformed") -> None:
        super().__init__(code, message)


class Termination(enum.Enum):
    """Why a hand, round or match ended."""

    WENT_OUT = "went_out"  # a seat played its last card or tile
    STOCK_EXHAUSTED = "stock_exhausted"  # nothing left to draw: no winner
    BLOCKED = "blocked"  # Tile Rummy: pool empty and a full rotation passed without a play
    TARGET_REACHED = "target_reached"  # a running total reached the match target


@dataclass(frozen=True, slots=True)
class Outcome:
    """The end of a hand/round or of the whole match, as data.

    ``scores`` are this hand's points per seat (for a match outcome: the final totals);
    ``winners`` is empty when nobody won (a thrown-in round) and has several seats on a tie.
    """

    reason: Termination
    winners: tuple[Seat, ...]
    scores: tuple[int, ...]


def derive_seed(seed: int, *labels: object) -> int:
    """A 64-bit seed derived from ``seed`` and labels, stable across Python versions.

    Use a distinct label per random event (``"deal", hand_no`` / ``"reshuffle", hand_no, n``) so
    that every chance event of a game replays exactly from the one seed stored in the state.
    """
    text = ":".join([str(seed), *(str(label) for label in labels)])
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def derive_rng(seed: int, *labels: object) -> random.Random:
    """A private :class:`random.Random` for one chance event; never the global one."""
    return random.Random(derive_seed(seed, *labels))


def action_word(text: str) -> str:
    """The verb of an action in notation (``"commit"`` for ``" Commit "``)."""
    return text.strip().split(" ", 1)[0].lower()


StateT = TypeVar("StateT")
ActionT = TypeVar("ActionT")
ConfigT = TypeVar("ConfigT")


class SeatView(Protocol):
    """Everything one seat may see of a game. ``to_dict()`` is JSON-ready and is the only
    thing the server ever sends about a game."""

    def to_dict(self, log: bool = True) -> dict[str, Any]:
        """``log`` False: without the ``log`` key (a server that keeps the log's JSON builds
        it from :meth:`GameEngine.log_events` as it grows)."""
        ...


class GameEngine(Protocol[StateT, ActionT, ConfigT]):
    """One game's rules, as a value: ``gameshack.rules.rummy.ENGINE``, ``…tiles.ENGINE``.

    Pure like the rest of the rules (no I/O, no clock): every method is a function of its
    arguments. The first group is the rules themselves, the same names as each game's module
    functions; the second is what a server needs to know about the game beyond its rules, so
    that it never asks which game it is running.

    Outcomes mean the same in every engine:

    - :meth:`outcome` is *what has just ended*: None while a hand/round is being played (or
      before the first is dealt); the hand/round's result while it is over; the match's
      result (:meth:`match_outcome`) once the match is over.
    - :meth:`hand_outcome` is the last hand/round's result whenever one is over — at the end of
      the match too, where :meth:`outcome` gives the match's instead.
    - :meth:`match_outcome` is the match's result once it is over (highest totals win, ties
      share; ``scores`` are the final totals), else None.
    """

    @property
    def name(self) -> str:
        """The game's name in storage and on the wire: ``"rummy"``, ``"tiles"``."""
        ...

    @property
    def server_actions(self) -> frozenset[str]:
        """Action words only the server may issue (a client sending one is refused)."""
        ...

    @property
    def grace_action(self) -> str | None:
        """The action the server applies, as the seat that made the move, when a pending
        window ends (:meth:`pending_window`); None for a game without one."""
        ...

    @property
    def starts_when_full(self) -> bool:
        """The match starts by itself once every seat is taken (else the host starts it)."""
        ...

    # -- the rules
    def new_match(self, config: ConfigT, seed: int) -> StateT: ...

    def legal_actions(self, state: StateT, seat: Seat) -> list[ActionT]: ...

    def apply(self, state: StateT, seat: Seat, action: ActionT) -> StateT:
        """The state after the action, or raise :class:`IllegalAction` (state unchanged)."""
        ...

    def to_act(self, state: StateT) -> frozenset[Seat]: ...

    def view(self, state: StateT, seat: Seat) -> SeatView: ...

    def public_view(self, state: StateT, log: bool = True) -> dict[str, Any]:
        """What anyone may see (a spectator, a replay of a match in progress): the view of no
        seat, JSON-ready, ``seat`` None; never a hand or rack, never a turn in progress.
        ``log`` False: without its ``log``."""
        ...

    def log_events(self, state: StateT) -> tuple[Any, ...]:
        """The hand's or round's public log, the events of every view's ``log``: that is
        ``[e.to_dict() for e in log_events(state)]``, the same for every seat. A move extends it
        (the new tuple begins with the very same events) or leaves it as it was; a new hand or
        round starts another."""
        ...

    def public_key(self, state: StateT) -> tuple[object, ...]:
        """What :meth:`public_view` is made of: states with equal keys have equal public views
        (unequal keys may still have equal views). A turn in progress leaves the key as it was,
        so a server can tell at once that the public table did not change."""
        ...

    def own_view(self, state: StateT, seat: Seat) -> dict[str, Any] | None:
        """What ``seat`` sees beyond :meth:`public_view`, when its view is that and nothing
        else: ``{**public_view(state), **own_view(state, seat)} == view(state, seat).to_dict()``
        (its hand or rack, its legal actions, ``seat``). None when the seat sees more than the
        public table (its own turn in progress, in a game where that changes the table it sees).
        Every seat's own part has the same keys. It lets a server build the public part once for
        every such seat."""
        ...

    def full_view(self, state: StateT) -> dict[str, Any]:
        """Everything, for the replay of a finished match: the public view, the turn in
        progress of the seat on turn, and every seat's hand or rack."""
        ...

    def parse_action(self, text: str) -> ActionT:
        """The action in notation (``str(action)`` gives it back), or :class:`MalformedAction`."""
        ...

    def state_to_dict(self, state: StateT) -> dict[str, Any]:
        """JSON-ready and complete: it holds the secrets, for storage only."""
        ...

    def state_from_dict(self, data: dict[str, Any]) -> StateT: ...

    def outcome(self, state: StateT) -> Outcome | None: ...

    def hand_outcome(self, state: StateT) -> Outcome | None: ...

    def match_outcome(self, state: StateT) -> Outcome | None: ...

    # -- what the server needs beyond the rules
    def config(self, seats: int, target: int | None) -> ConfigT:
        """The match options for a game created with ``seats`` and ``target`` (None: the
        game's default)."""
        ...

    def hands_finished(self, state: StateT) -> int:
        """How many hands/rounds of the match have ended so far."""
        ...

    def only_next(self, state: StateT) -> bool:
        """Between hands/rounds: the only thing to do is deal the next one."""
        ...

    def opening(self, state: StateT) -> bool:
        """The match is dealt and nobody has moved yet: who starts, and why (a first-deal draw),
        is what the players are looking at."""
        ...

    def pending_window(self, state: StateT) -> bool:
        """A move waits for its grace window to end (a Rummy discard): the server then applies
        :attr:`grace_action`, unless the seat takes the move back first."""
        ...

    def server_only(self, text: str) -> bool:
        """``text`` is an action only the server may issue (its word is in
        :attr:`server_actions`)."""
        ...

    def legal_strings(self, state: StateT, seat: Seat, view: Mapping[str, Any]) -> list[str]:
        """The seat's legal actions in notation, as the client is told them (to grey out what
        it may not do); ``view`` is ``view(state, seat).to_dict()``, already built. Never a
        server-only action."""
        ...

    def timeout_action(self, state: StateT, seat: Seat) -> list[str]:
        """What the server applies, in notation and in order, as ``seat`` when its turn timer
        runs out: the turn undone to its start and completed the safest legal way. Empty when
        ``seat`` has no turn in progress (a first-deal draw, between hands): no timer runs."""
        ...


AnyEngine = GameEngine[Any, Any, Any]
"""An engine whose game is not known statically: what a registry of every game holds."""
