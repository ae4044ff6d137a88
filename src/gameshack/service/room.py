"""What the parts of the game service share: a game in memory (:class:`Room`), the errors it
answers with, and small helpers (JSON, names, digests)."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import random
from collections import deque
from dataclasses import dataclass, field
from typing import Any, TypeVar

from gameshack.protocol.names import BadText, clean_emoji, clean_name
from gameshack.protocol.outbound import Log
from gameshack.service.kinds import Kind
from gameshack.service.ports import (
    GameRow,
)

__all__ = [
    "NotSaved",
    "Room",
    "ServiceError",
    "Stale",
    "Unconfirmed",
    "device_hash",
    "draft",
    "swap",
]

log = logging.getLogger("gameshack.service")

# No I, L, O, 0, 1: nothing a player can misread when a code is read out loud.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LEN = 5
CHAT_BURST = 5  # messages ...
CHAT_WINDOW = 10.0  # ... per this many seconds, per seat
DIFFICULTIES = ("easy", "medium", "hard")
ADDRESS_FACTOR = 4  # an address (a household, an office) may create this many times a device's
MY_GAMES_LIMIT = 100  # the most games a games list shows (most recent public change first)
RETRY_FIRST, RETRY_MAX = 0.5, 10.0  # a timer's failed commit: retried after 0.5 s, 1 s, ... 10 s
NOT_SAVED = "The server could not save that, so it did not happen. Please try again."
HINT_BUSY = "The server is busy thinking for other games; ask for a hint again in a moment."
HINT_TRIES = 3  # a hint thought out while the game moved is thought again, this many times
UNCONFIRMED = (
    "The server stopped before it could confirm that; reconnect to see whether it happened."
)
STALE = "The game moved on since your last update; here is the current state."
# Several processes: each looks this often for games whose timer is overdue by ``OVERDUE``
# seconds (the process that committed the change that set it is gone, or stuck) and takes them
# over, leased for ``LEASE`` seconds so that no other process takes them at the same time.
CLAIM_EVERY, OVERDUE, LEASE = 1.0, 2.5, 10.0
PRESENCE_EVERY = 5.0  # ... and re-reads who is online elsewhere (a killed process's seats go)

T = TypeVar("T")


def device_hash(token: str) -> str:
    """Seats are bound to the hash of the device token, so a database leak reveals no cookie."""
    return hashlib.sha256(token.encode()).hexdigest()


class ServiceError(Exception):
    """A refused request: ``code`` for machines, ``message`` for people, ``status`` for HTTP,
    ``retry_after`` (seconds, 0 for none) for a limit that will lift."""

    def __init__(self, code: str, message: str, status: int = 400, retry_after: int = 0) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status
        self.retry_after = retry_after


class NotSaved(Exception):
    """A write the store did not commit (disk full, database gone): nothing changed."""


class Unconfirmed(NotSaved):
    """A write whose commit the store could not confirm (it stopped mid-way): the room in
    memory may be behind the database, so it is dropped and reloaded on next use."""


class Stale(Exception):
    """A write refused because another process changed the game first (a version
    compare-and-set lost): nothing was written; the room is reloaded from the database."""


@dataclass
class Room:
    row: GameRow
    kind: Kind
    state: Any = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    # Per seat: a digest of its game content, and that content's version ``v`` — a counter of
    # this seat's own content changes from ``v_base`` (see ``GameService._next_v``).
    view_key: dict[int, int] = field(default_factory=dict)
    view_v: dict[int, int] = field(default_factory=dict)
    v_base: int = 0
    # The public part of the last state's views, as [(engine.public_key, JSON)]: one list,
    # shared by the room's drafts (it is keyed by what it was made of, so a draft that is never
    # committed leaves nothing wrong in it).
    # Its log as JSON with the number of events, beside it (the log travels apart: Frames.view_frame).
    public: list[tuple[tuple[object, ...], str, Log]] = field(default_factory=list)
    # The log of the last state's views: its events, as JSON with their number (Frames.log_of);
    # shared by the room's drafts, as ``public`` is.
    log_json: list[tuple[tuple[Any, ...], Log]] = field(default_factory=list)
    # Per seat: the log its sockets were last sent, so that a view carries only what is new.
    log_sent: dict[int, Log] = field(default_factory=dict)
    # The players as last sent in a view frame, and their JSON escaped to ASCII (Frames.view_frame).
    players_json: tuple[list[dict[str, Any]], Any] | None = None
    timer: asyncio.Task[None] | None = None
    backoff: float = 0.0  # the timer's last retry delay after a failed commit (0: none failed)
    chat: list[tuple[int, int]] = field(default_factory=list)  # (chat id, seat)
    chat_times: dict[int, deque[float]] = field(default_factory=dict)
    online: set[int] = field(default_factory=set)
    # Eviction: when the room was last used (service clock), and whether the sweep dropped it
    # from ``GameService.rooms``. A retired room is never changed again; whoever finds one
    # holding its lock looks the game up afresh (see ``GameService._locked``).
    last_active: float = 0.0
    retired: bool = False


def draft(room: Room, state: Any = None) -> Room:
    """The room as it will be after a change: a copy with its own copy of the row (and seats)
    to change, and ``state`` (default: the room's). It shares everything else with the room.
    The change is committed from the draft, and only then swapped in (:func:`swap`): a write
    that fails leaves the room exactly as it was."""
    row = _shallow(room.row)
    row.seats = [_shallow(s) for s in row.seats]
    new = _shallow(room)
    new.row = row
    if state is not None:
        new.state = state
    return new


_D = TypeVar("_D")


def _shallow(obj: _D) -> _D:
    """A shallow copy of a plain dataclass instance (no ``__slots__``, no ``__post_init__``):
    ``dataclasses.replace`` re-runs ``__init__`` and was a tenth of a move's CPU."""
    new = object.__new__(type(obj))
    new.__dict__.update(obj.__dict__)
    return new


def swap(room: Room, new: Room) -> None:
    """Make a committed draft the room's row and state."""
    room.row, room.state = new.row, new.state


def identity(name: str, emoji: str) -> tuple[str, str]:
    """The display name and emoji as shown, by the one rule (``protocol.names``)."""
    try:
        return clean_name(name), clean_emoji(emoji)
    except BadText as exc:
        raise ServiceError(exc.code, exc.message) from None


def digest(*parts: Any) -> int:
    """A key of a seat's content that changes when it does: Python's hash of the parts (64
    bits; the view's JSON text is hashed once, at C speed — a cryptographic digest of it was
    a tenth of a move's CPU). Kept only in this process's memory, compared only with itself."""
    return hash(parts)


# (digest, view JSON without its log, grace, the view's log)
Content = tuple[int, str, dict[str, Any] | None, Log]
NO_LOG: Log = ("null", 0)  # the log of no view (a game waiting for players)


def duration(seconds: int) -> str:
    if seconds < 90:
        return f"{max(1, seconds)} seconds"
    return f"{(seconds + 59) // 60} minutes"


def chat_dict(c: Any) -> dict[str, Any]:
    return {
        "id": c.id,
        "seat": c.seat,
        "name": c.name,
        "emoji": c.emoji,
        "text": c.text,
        "ts": int(c.at * 1000),
    }


_FALLBACK_NAMES = ["Robo Rita", "Chip", "Bolt", "Pixel", "Sprocket", "Widget", "Gizmo", "Dot"]


def new_bot_identity(rng: random.Random, taken: set[str]) -> tuple[str, str]:
    """A bot's random name and emoji (from the bots package when it offers them), by the same
    rule as a player's."""
    for _ in range(20):
        try:
            from gameshack.bots import bot_identity

            name, emoji = bot_identity(rng)
        except ImportError:
            name, emoji = rng.choice(_FALLBACK_NAMES), "🤖"
        try:
            name, emoji = clean_name(name), clean_emoji(emoji)
        except BadText:
            continue
        if name not in taken:
            return name, emoji
    return f"Bot {len(taken) + 1}", "🤖"
