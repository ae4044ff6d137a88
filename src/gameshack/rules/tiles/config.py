"""Options fixed when a Tile Rummy match is created."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["INITIAL_MELD", "MAX_SEATS", "MIN_SEATS", "RACK_SIZE", "Config"]

MIN_SEATS = 2
MAX_SEATS = 4
RACK_SIZE = 14
INITIAL_MELD = 30  # points a seat's first play must total, from brand-new rack-only sets


@dataclass(frozen=True, slots=True)
class Config:
    """``seats`` 2–4; rounds are dealt until a seat's running total reaches ``target``."""

    seats: int = 2
    target: int = 200

    def __post_init__(self) -> None:
        if not MIN_SEATS <= self.seats <= MAX_SEATS:
            raise ValueError(
                f"Tile Rummy is for {MIN_SEATS} to {MAX_SEATS} seats, not {self.seats}"
            )
        if self.target < 1:
            raise ValueError(f"the target score must be positive, not {self.target}")
