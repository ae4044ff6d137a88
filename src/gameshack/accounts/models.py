"""The plain values the accounts service works with, independent of how they are stored."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Account", "CodeRecord", "SeatRef", "SessionRecord"]


@dataclass(frozen=True, slots=True)
class Account:
    id: str
    email: str
    display_name: str | None
    created_at: float


@dataclass(frozen=True, slots=True)
class CodeRecord:
    """One live sign-in code of an address (an address may hold a few). Only its keyed hash is
    ever kept.

    Its tries are counted in two pools: ``own_tries`` by the browser that asked for it
    (``requester``, a keyed hash of its device or network), ``tries`` by everyone else. Each
    pool has ``max_tries``; so strangers' wrong guesses can't void the code for its owner.
    """

    email: str
    code_hash: str
    expires_at: float
    tries: int
    created_at: float
    requester: str = ""
    own_tries: int = 0
    id: int = 0  # given by the store


@dataclass(frozen=True, slots=True)
class SessionRecord:
    """A signed-in browser. ``id_hash`` is the SHA-256 of the cookie value, never the value."""

    id_hash: str
    account_id: str
    device_token: str | None
    created_at: float
    expires_at: float


@dataclass(frozen=True, slots=True)
class SeatRef:
    """A seat in a game, as the server names it."""

    game_id: str
    seat: int
