"""Pieces shared by every rules engine: seats, errors, outcomes and seeded randomness.

The error vocabulary is deliberately small. :class:`MalformedAction` means the input could not
be understood at all (bad notation, unknown card); :class:`IllegalAction` means it was
understood but the rules forbid it now. Both carry a stable machine-readable ``code`` that a
client can switch on and a human ``message`` it can show.
"""

from __future__ import annotations

import enum
import hashlib
import random
from dataclasses import dataclass

__all__ = [
    "IllegalAction",
    "MalformedAction",
    "Outcome",
    "Seat",
    "Termination",
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
