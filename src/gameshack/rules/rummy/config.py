"""Options fixed when a Rummy game is created."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["TARGETS", "Config"]

TARGETS = (100, 200, 300, 500)
"""The match targets a game may be created with (or ``None``: no limit, play on)."""


@dataclass(frozen=True, slots=True)
class Config:
    """``seats``: 2-4 players, fixed at creation. ``target``: the running total that ends the
    match (one of :data:`TARGETS`), or None to play hands indefinitely."""

    seats: int = 2
    target: int | None = None

    def __post_init__(self) -> None:
        if not 2 <= self.seats <= 4:
            raise ValueError(f"Rummy needs 2 to 4 seats, not {self.seats}")
        if self.target is not None and self.target not in TARGETS:
            raise ValueError(f"target must be one of {TARGETS} or None, not {self.target}")

    @property
    def hand_size(self) -> int:
        """13 cards each with 2 players, 7 each with 3-4."""
        return 13 if self.seats == 2 else 7

    def to_dict(self) -> dict[str, int | None]:
        return {"seats": self.seats, "target": self.target}
