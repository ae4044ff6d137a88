"""The ports the match runner talks to: the store and the fan-out.

Both are abstract so that a later deployment can plug in PostgreSQL and Redis pub/sub for several
processes; the in-process defaults live in :mod:`gameshack.store` (SQL and an in-memory twin)
and :mod:`gameshack.service.fanout`.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "ActionRow",
    "ChatRow",
    "CodeTaken",
    "GameRow",
    "RecordRow",
    "SeatRow",
    "Store",
    "VersionConflict",
    "WriteUnconfirmed",
]


class CodeTaken(Exception):
    """The game code is already used; the caller draws another."""


class VersionConflict(Exception):
    """Another writer (another process) changed the game since this copy was loaded: nothing
    was written; reload the game and answer from the stored version."""


class WriteUnconfirmed(Exception):
    """The store stopped (shutdown ran out of time) while a write was on its way to the disk:
    it may or may not have committed. Never reported as saved, nor as failed."""


@dataclass
class SeatRow:
    seat: int
    name: str
    emoji: str
    device: str | None  # sha256 of the device token; None for bots
    bot: str | None = None  # difficulty for a bot seat
    memory: dict[str, Any] | None = None  # bot memory, JSON-ready
    chat_read: int = 0  # id of the last chat message this seat has read
    joined_at: float = 0.0


@dataclass
class GameRow:
    code: str
    kind: str  # "rummy" | "tiles"
    status: str  # waiting | active | finished | ended
    capacity: int
    target: int | None
    practice: bool
    difficulty: str | None
    seed: int
    host: int = 0
    seats: list[SeatRow] = field(default_factory=list)
    # The engine state as stored (``state_to_dict``), at version ``state_v``: the game now is
    # that state with the logged actions after ``state_v`` applied (``service.peers.restore``).
    # It is stored again whenever some other seat could see the change (so whose turn it is,
    # ``to_act``, is always that of the stored state), else only every few private moves: a
    # private turn is written as its action alone (docs/decisions.md, 2026-12-07).
    state: dict[str, Any] | None = None
    version: int = 0
    state_v: int = 0
    grace_deadline: float | None = None  # epoch seconds
    grace_seat: int | None = None
    ended: dict[str, Any] | None = None  # {"reason": "left", "seat": n, "name": ...}
    hands_recorded: int = 0
    created_at: float = 0.0
    updated_at: float = 0.0  # the last change of any kind (private turns included): server-only
    # The last change every seat could see (a committed turn, a join, a leave): what lists show.
    # A private turn (draws, melds, undos before the discard lands) never moves it.
    public_at: float = 0.0
    # When the server must act on the game by itself (a grace window's end, a bot's step):
    # any process can find overdue games and fire their timers (Store.claim_overdue).
    due_at: float | None = None
    # issue 33, rematch: the offer at the end of a match ({"accepted": [seat…], "declined":
    # [seat…], "left": [seat…]}; None: nobody asked yet) and the match it started.
    rematch: dict[str, Any] | None = None
    rematch_code: str | None = None
    # The turn timer (issue 33; service/turnclock.py): None when the game has none.
    turn_clock: dict[str, Any] | None = None


@dataclass(frozen=True)
class ActionRow:
    code: str
    v: int  # the version this action created
    seat: int | None
    action: str
    at: float


@dataclass(frozen=True)
class ChatRow:
    id: int
    code: str
    seat: int
    name: str
    emoji: str
    text: str
    at: float


@dataclass(frozen=True)
class RecordRow:
    """A finished hand/round (``scope="hand"``) or match (``scope="match"``), for stats."""

    code: str
    kind: str
    scope: str
    number: int  # hand/round number within the match (1-based); for a match, the hand count
    names: list[str]
    emojis: list[str]
    bots: list[bool]
    scores: list[int]  # this hand's points, or the match totals
    winners: list[int]
    reason: str
    started_at: float
    finished_at: float
    practice: bool = False


class Store(abc.ABC):
    """Durable storage of games. Every ``save_*`` returns only once committed."""

    async def start(self) -> None:  # noqa: B027 - optional hook
        """Open connections and run migrations."""

    async def close(self) -> None:  # noqa: B027 - optional hook
        """Release connections."""

    async def health(self) -> str | None:
        """``None`` while writes succeed; else one sentence on why they fail (for /healthz)."""
        return None

    @abc.abstractmethod
    async def create_game(self, game: GameRow, *, action: ActionRow | None = None) -> None:
        """Insert a new game with its seats (and the action that started it, for a game that
        starts at once), in one transaction; raise :class:`CodeTaken` on a code clash."""

    @abc.abstractmethod
    async def load_game(self, code: str) -> GameRow | None: ...

    @abc.abstractmethod
    async def save_game(
        self,
        game: GameRow,
        *,
        seats: list[int] | None = None,
        new_seats: list[int] | None = None,
        action: ActionRow | None = None,
        records: list[RecordRow] | None = None,
        expect_version: int | None = None,
        state: bool = True,
    ) -> None:
        """Commit the game row, the listed seat rows (``new_seats`` are inserted), an action log
        row and stats records, all in one transaction. With ``expect_version``, only if the
        stored game is still at that version (else :class:`VersionConflict`, nothing written):
        of two writers that loaded the same version, exactly one commits. ``state`` False: the
        stored ``state`` and ``state_v`` are left as they are (the row's are the same)."""

    @abc.abstractmethod
    async def games_for_device(self, device: str) -> list[GameRow]:
        """Waiting and active games in which ``device`` holds a seat."""

    @abc.abstractmethod
    async def live_games(self) -> list[GameRow]:
        """Active games (to resume grace windows and bot turns after a restart)."""

    @abc.abstractmethod
    async def add_chat(
        self, code: str, seat: int, name: str, emoji: str, text: str, at: float
    ) -> ChatRow: ...

    @abc.abstractmethod
    async def chat_history(self, code: str, limit: int = 200) -> list[ChatRow]: ...

    @abc.abstractmethod
    async def actions(self, code: str, after: int = 0) -> list[ActionRow]:
        """The game's action log, in order: the rows of versions after ``after``."""

    @abc.abstractmethod
    async def records(self, code: str | None = None) -> list[RecordRow]: ...

    @abc.abstractmethod
    async def claim_overdue(
        self, *, due_before: float, now: float, owner: str, until: float, limit: int = 100
    ) -> list[str]:
        """Claim active games whose ``due_at`` is before ``due_before`` and whose timer no live
        process holds (no lease, or one that ran out by ``now``): each is leased to ``owner``
        until ``until`` and its code returned. Two processes never claim a game at once."""

    @abc.abstractmethod
    async def purge(self, *, waiting_before: float, chat_before: float) -> tuple[int, int]:
        """Delete waiting games (seats, chat, actions) last changed before ``waiting_before``,
        and the chat of finished/ended games last changed before ``chat_before``. Returns
        (games deleted, chat messages deleted)."""

    async def create_rematch(
        self, old: GameRow, new: GameRow, *, action: ActionRow | None, expect_version: int
    ) -> None:
        """Start the rematch ``new`` of the finished game ``old`` in one transaction: ``old``
        (its ``rematch_code`` naming ``new``) is saved only if the stored game is still at
        ``expect_version`` (else :class:`VersionConflict`), and ``new`` is inserted with its
        seats and ``action`` (:class:`CodeTaken` on a code clash). Either way, on a refusal
        nothing is written: two last accepts at once never start two matches."""
        raise NotImplementedError

    # Issue 33, spectators (service/watch.py): the game's watch link, a column of its own that
    # no ``save_game`` touches (None: watching is off). Not abstract, so that a store written
    # before it still loads; both stores here implement them.

    async def watch_token(self, code: str) -> str | None:
        """The game's watch token (None: watching is off, or no such game)."""
        raise NotImplementedError

    async def set_watch_token(self, code: str, token: str | None) -> None:
        """Set (or, with None, revoke) the game's watch token. Tokens are unique."""
        raise NotImplementedError

    async def watched_game(self, token: str) -> str | None:
        """The code of the game whose watch token is ``token`` (None: no such link)."""
        raise NotImplementedError
