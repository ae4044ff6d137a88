"""The authoritative match runner: one writer per game.

Every change to a game happens under that game's lock, through one pipeline:
parse -> authorize the seat -> check the version -> apply in the engine -> persist (committed)
-> acknowledge -> broadcast a per-seat ``view`` to every connection. Bots, the end of a grace
window and humans all go through :meth:`GameService._apply`.

The only game content that leaves this module is ``engine.view(state, seat).to_dict()`` for the
receiving seat (and a hint computed from that same view).

Private turns leave no trace (docs/protocol.md): a seat's view version ``v`` counts the changes
of that seat's own content, ``public_at`` moves only when some other seat's content changes (or
on a lobby event), and nothing is sent to a seat whose content did not change.

A write either commits or leaves the game in memory exactly as it was (:meth:`_rollback`), and
the one who asked hears that it was not saved; the timers (a grace window's end, a bot's step)
retry a failed commit with a bounded back-off until it lands.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import logging
import random
import secrets
import time
import weakref
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

import orjson

from gameshack import metrics
from gameshack.protocol import (
    Act,
    AddBot,
    Chat,
    ChatRead,
    Hint,
    Leave,
    Ping,
    Start,
    Sync,
    error_message,
)
from gameshack.protocol.messages import MAX_CHAT_CHARS
from gameshack.protocol.names import BadText, clean_emoji, clean_name
from gameshack.rules.common import IllegalAction, Outcome, derive_seed
from gameshack.service.bus import Bus, LocalBus
from gameshack.service.compute import Busy, Pool
from gameshack.service.fanout import Conn, FanOut, LocalFanOut
from gameshack.service.kinds import Kind, kind
from gameshack.service.ports import (
    ActionRow,
    CodeTaken,
    GameRow,
    RecordRow,
    SeatRow,
    Store,
    VersionConflict,
    WriteUnconfirmed,
)
from gameshack.service.settings import Settings
from gameshack.throttle import Limited, Rate, Throttle
from gameshack.worker import decide_from_state, hint_from_state

__all__ = ["CODE_ALPHABET", "GameService", "NotSaved", "ServiceError", "device_hash"]

log = logging.getLogger("gameshack.service")

# No I, L, O, 0, 1: nothing a player can misread when a code is read out loud.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LEN = 5
CHAT_BURST = 5  # messages ...
CHAT_WINDOW = 10.0  # ... per this many seconds, per seat
DIFFICULTIES = ("easy", "medium", "hard")
RUMMY_TARGETS = (None, 100, 200, 300, 500)
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


def _dumps(obj: Any) -> str:
    # orjson: views are the bulk of all traffic, and it encodes them ~10x faster than json.
    return orjson.dumps(obj).decode()


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
    view_key: dict[int, bytes] = field(default_factory=dict)
    view_v: dict[int, int] = field(default_factory=dict)
    v_base: int = 0
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


def _identity(name: str, emoji: str) -> tuple[str, str]:
    """The display name and emoji as shown, by the one rule (``protocol.names``)."""
    try:
        return clean_name(name), clean_emoji(emoji)
    except BadText as exc:
        raise ServiceError(exc.code, exc.message) from None


def _digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode(), digest_size=16).digest()


class GameService:
    def __init__(
        self,
        store: Store,
        settings: Settings,
        fanout: FanOut | None = None,
        clock: Callable[[], float] = time.time,
        throttle: Throttle | None = None,
        compute: Pool | None = None,
        bus: Bus | None = None,
    ) -> None:
        self.store = store
        # The other processes serving the site (none by default): each commit is announced on
        # it, and other processes' commits, chat and presence arrive through ``_on_event``.
        self.bus = bus or LocalBus()
        self.multi = not isinstance(self.bus, LocalBus)
        self.settings = settings
        self.fanout = fanout or LocalFanOut()
        self.clock = clock
        # Rate limits (games created per device and per address); the server may pass the one
        # it shares with its other limits.
        self.throttle = throttle or Throttle()
        # Bots and hints think in worker processes, off the event loop (service/compute.py).
        self.compute = compute or Pool()
        self.rooms: dict[str, Room] = {}
        self._load_lock = asyncio.Lock()
        self._create_locks: weakref.WeakValueDictionary[str, asyncio.Lock] = (
            weakref.WeakValueDictionary()
        )
        self._closing = False
        self._v_high = 0  # the highest view version handed out by this process
        # Idle rooms are dropped by a sweep this often (seconds, real time; 0: no sweep).
        idle = settings.room_idle_seconds
        self.sweep_every = min(60.0, idle / 4) if idle > 0 else 0.0
        self._sweeper: asyncio.Task[None] | None = None
        # Abandoned waiting games and old chat are purged this often (0: never).
        ttls = [t for t in (settings.waiting_ttl, settings.chat_retention) if t > 0]
        self.purge_every = max(0.05, min(300.0, min(ttls) / 4)) if ttls else 0.0
        self._purger: asyncio.Task[None] | None = None
        self._claimer: asyncio.Task[None] | None = None
        self._presence_at = 0.0
        # Test hook: called with (room, seat, frame) for every frame sent to a socket.
        self.observer: Callable[[Room, int, str], None] | None = None
        self.bot_errors = 0

    # ------------------------------------------------------------------ life cycle

    async def start(self) -> None:
        """Resume every active game: pending grace windows and bot turns carry on. Then start
        the sweep that drops idle rooms from memory.

        With several processes, a game's timer belongs to the process that committed its last
        change; this one takes over only the games whose timer is overdue (``_claim``), now and
        every ``CLAIM_EVERY`` seconds."""
        await self.bus.start(self._on_event)
        loop = asyncio.get_running_loop()
        if self.multi:
            self.compute.warm()  # ready for the bots of a game taken over from another process
            self._claimer = loop.create_task(self._every(CLAIM_EVERY, self._claim))
        else:
            for row in await self.store.live_games():
                with contextlib.suppress(ServiceError):
                    async with self._locked(row.code) as room:
                        self._schedule(room)
        if self.sweep_every > 0 and self._sweeper is None:
            self._sweeper = loop.create_task(self._every(self.sweep_every, self.evict_idle))
        if self.purge_every > 0 and self._purger is None:
            self._purger = loop.create_task(self._every(self.purge_every, self.purge))

    async def close(self) -> None:
        self._closing = True
        for task in (self._sweeper, self._purger, self._claimer):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        self._sweeper = self._purger = self._claimer = None
        rooms = list(self.rooms.values())
        for room in rooms:
            # A commit under way (a timer's or a socket's) finishes first: the lock is held
            # for it. With ``_closing`` set nothing re-arms a timer afterwards.
            async with room.lock:
                if room.timer is not None and not room.timer.done():
                    room.timer.cancel()
        for room in rooms:
            if room.timer is not None:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await room.timer
        # Every commit is done (or abandoned unacknowledged); the due times are in the
        # database, where the other processes find them (``_claim``).
        with contextlib.suppress(Exception):
            await self.bus.close()
        self.compute.close()

    # ------------------------------------------------------------------ rooms in memory

    async def _room(self, code: str, *, touch: bool = True) -> Room | None:
        """The game's room, loaded from the store if it is not in memory. ``touch``: this use
        counts as activity (reading a summary for a games list does not keep a room loaded)."""
        code = code.strip().upper()
        room = self.rooms.get(code)
        if room is not None:
            if touch:
                room.last_active = self.clock()
            return room
        if len(code) != CODE_LEN or any(c not in CODE_ALPHABET for c in code):
            return None
        async with self._load_lock:
            room = self.rooms.get(code)
            if room is not None:
                return room
            # Watch first: a change committed elsewhere while we read is then heard of.
            await self.bus.watch(code)
            row = await self.store.load_game(code)
            if row is None:
                await self.bus.unwatch(code)
                return None
            room = Room(row=row, kind=kind(row.kind), v_base=self._new_v_base())
            await self._fill(room, row)
            room.last_active = self.clock()
            self._baseline(room)
            if not self.multi:
                # A room evicted while idle had no timer; re-arming here is a no-op for it, and
                # retries a bot whose step failed (which would otherwise wait for a restart).
                # With several processes the timer is the committing process's (``_claim``).
                self._schedule(room)
            self.rooms[code] = room
            return room

    async def _fill(self, room: Room, row: GameRow) -> None:
        """Put the stored game ``row`` into ``room`` (state, chat, who is online)."""
        room.row = row
        room.state = None if row.state is None else room.kind.engine.state_from_dict(row.state)
        room.chat = [(c.id, c.seat) for c in await self.store.chat_history(row.code, 10_000)]
        others = await self.bus.others_online(row.code) if self.multi else set()
        room.online = self.fanout.online(row.code) | others | {s.seat for s in row.seats if s.bot}

    async def _refresh(self, room: Room, *, force: bool = False) -> bool:
        """Bring the room up to the stored game when another process changed it (caller holds
        the lock): reload it, and send each local socket what changed for its seat — a view
        whose content changed, else a ``room`` frame if only that changed; nothing otherwise,
        so a private turn elsewhere leaves no trace here either. The other process holds the
        game's timer from its commit on. Returns whether anything was reloaded."""
        row = await self.store.load_game(room.row.code)
        if row is None:  # purged meanwhile
            self._forget(room)
            return True
        if not force and row.version == room.row.version:
            return False
        if room.timer is not None and room.timer is not asyncio.current_task():
            room.timer.cancel()
        room.timer = None
        seats = {c.seat for c in self.fanout.conns(row.code)}
        before = {s: self._room_dict(room, s) for s in seats if s < len(room.row.seats)}
        await self._fill(room, row)
        self._baseline(room)
        contents = self._contents(room, room.state)
        changed = self._take(room, contents)
        self._publish(room, contents, changed)
        self._send_room_changed(room, before, skip=changed)
        return True

    async def room(self, code: str, *, touch: bool = True) -> Room:
        room = await self._room(code, touch=touch)
        if room is None:
            raise ServiceError("not_found", "There is no game with that code.", 404)
        return room

    @contextlib.asynccontextmanager
    async def _locked(self, code: str) -> AsyncIterator[Room]:
        """The game's live room, with its lock held. Every change to a game that does not come
        through a socket or a timer (both of which keep their room from eviction) starts here:
        a room evicted while we waited for its lock is retired, so look again, which reloads
        the game from the store. Thus no change lands on a dropped copy, and two rooms for one
        code are never both live. The use counts as activity when it ends, so a sweep queued
        behind it leaves the room be."""
        while True:
            room = await self.room(code, touch=False)
            async with room.lock:
                if room.retired:
                    continue
                try:
                    yield room
                finally:
                    room.last_active = self.clock()
                return

    @contextlib.asynccontextmanager
    async def _lobby(self, code: str) -> AsyncIterator[Room]:
        """:meth:`_locked` for a lobby request (join, leave): with several processes the room
        is first brought up to the stored game, so that nothing is refused on an old copy."""
        while True:
            async with self._locked(code) as room:
                if self.multi:
                    await self._refresh(room)
                    if room.retired:  # the game is gone (purged): look again
                        continue
                yield room
                return

    async def _retrying(self, request: Callable[[], Awaitable[T]]) -> T:
        """Run a lobby request again when its write lost to another process's (it reloads
        the game first), a few times."""
        for _ in range(3):
            try:
                return await request()
            except Stale:
                continue
        raise ServiceError("busy", "The game is changing fast; please try again.", 503)

    def _evictable(self, room: Room, now: float) -> bool:
        """Nothing in play: no socket, no pending timer (grace window or bot step), and no use
        for the idle period. Bots with turns to take keep their timer, so a practice game is
        only dropped once it waits on a human."""
        return (
            not room.retired
            and room.timer is None
            and not any(True for _ in self.fanout.conns(room.row.code))
            and now - room.last_active >= self.settings.room_idle_seconds
        )

    async def evict_idle(self) -> list[str]:
        """Drop every idle room from memory (the sweep calls this); returns their codes.

        Everything a room holds is committed before it is acknowledged, so a dropped game
        reloads exactly as it was (state, chat, unread counts, bot memory) when next used."""
        if self.settings.room_idle_seconds <= 0:
            return []
        evicted = []
        for code, room in list(self.rooms.items()):
            if not self._evictable(room, self.clock()):
                continue
            # Queue for the lock like any request: whoever holds it or queued first (a request
            # that found the room, a timer) goes first and may use the room, so look again.
            # Whoever queues after us finds the room retired and reloads it.
            async with room.lock:
                if self.rooms.get(code) is room and self._evictable(room, self.clock()):
                    room.retired = True
                    del self.rooms[code]
                    evicted.append(code)
        if evicted:
            # Unwatched under the load lock: a load of the same game (which watches it) waits.
            async with self._load_lock:
                for code in evicted:
                    if code not in self.rooms:
                        await self.bus.unwatch(code)
            log.debug("evicted %d idle rooms; %d in memory", len(evicted), len(self.rooms))
        return evicted

    @staticmethod
    async def _every(seconds: float, job: Callable[[], Awaitable[Any]]) -> None:
        """Run ``job`` every ``seconds`` for good: one failure (a bad room, a busy database) is
        logged and the next run tries again."""
        while True:
            await asyncio.sleep(seconds)
            try:
                await job()
            except Exception:
                log.exception("%s failed", job.__name__)

    async def purge(self) -> tuple[int, int]:
        """Delete waiting games nobody changed for ``waiting_ttl`` and the chat of games over for
        ``chat_retention`` (the purge task calls this); returns (games, chat messages) deleted.

        No game is loaded or joined while the store purges (the load lock), and every waiting
        room in memory that is old enough is held (its lock) until it is gone: so nothing is
        ever written to, or acknowledged on, a game the purge deletes. Its sockets are told the
        game ended and closed (a reconnect finds no game)."""
        s = self.settings
        now = self.clock()
        waiting_before = now - s.waiting_ttl if s.waiting_ttl > 0 else float("-inf")
        chat_before = now - s.chat_retention if s.chat_retention > 0 else float("-inf")

        def doomed(room: Room) -> bool:
            return room.row.status == "waiting" and room.row.public_at < waiting_before

        def quiet(room: Room) -> bool:
            return room.row.status in ("finished", "ended") and room.row.public_at < chat_before

        async with self._load_lock, contextlib.AsyncExitStack() as held:
            gone: list[Room] = []
            for room in list(self.rooms.values()):
                if doomed(room) or quiet(room):
                    await held.enter_async_context(room.lock)
                    if self.rooms.get(room.row.code) is room and not room.retired:
                        gone.append(room)
            counts = await self.store.purge(waiting_before=waiting_before, chat_before=chat_before)
            frame = _dumps({"type": "ended", "reason": "expired", "seat": None, "name": None})
            for room in gone:
                if quiet(room):
                    room.chat = []
                    continue
                if not doomed(room):
                    continue
                room.retired = True
                del self.rooms[room.row.code]
                await self.bus.unwatch(room.row.code)
                if room.timer is not None:
                    room.timer.cancel()
                    room.timer = None
                for conn in self.fanout.conns(room.row.code):
                    self._send(room, conn, frame)
                    conn.close(4404)
        if counts != (0, 0):
            log.info("purged %d abandoned waiting games and %d old chat messages", *counts)
        return counts

    # ------------------------------------------------------------------ writes

    @contextlib.contextmanager
    def _rollback(self, room: Room) -> Iterator[None]:
        """Whatever the block changes in the room is undone if it raises (a write that did not
        commit changed nothing). The block changes the row in place and commits it."""
        row = room.row
        saved = dataclasses.replace(row, seats=[dataclasses.replace(s) for s in row.seats])
        state, online, chat = room.state, set(room.online), list(room.chat)
        try:
            yield
        except BaseException:
            for f in dataclasses.fields(row):
                setattr(row, f.name, getattr(saved, f.name))
            room.state, room.online, room.chat = state, online, chat
            raise

    async def _write(self, op: Awaitable[T]) -> T:
        """Await one store write; any failure but a code clash (:class:`CodeTaken`) or a lost
        compare-and-set (:class:`Stale`) becomes :class:`NotSaved`."""
        try:
            return await op
        except CodeTaken:
            raise
        except VersionConflict:
            raise Stale() from None
        except WriteUnconfirmed as exc:
            log.error("a write was not confirmed: %r", exc)
            raise Unconfirmed(str(exc)) from exc
        except Exception as exc:
            log.error("a write was not saved: %r", exc)
            raise NotSaved(str(exc)) from exc

    def _not_saved(self, exc: NotSaved, room: Room | None = None) -> ServiceError:
        """The HTTP answer to a write that did not commit (the caller holds ``room``'s lock)."""
        if isinstance(exc, Unconfirmed):
            if room is not None:
                self._forget(room)
            return ServiceError("unconfirmed", UNCONFIRMED, 503)
        return ServiceError("server_error", NOT_SAVED, 503)

    def _forget(self, room: Room) -> None:
        """Drop a room whose last write is unconfirmed (caller holds its lock): the next use
        reloads the game from the database, which knows what happened."""
        if room.timer is not None and room.timer is not asyncio.current_task():
            room.timer.cancel()
        room.timer = None
        room.retired = True
        if self.rooms.get(room.row.code) is room:
            del self.rooms[room.row.code]

    # ------------------------------------------------------------------ lobby (HTTP)

    async def create_game(
        self,
        device: str,
        *,
        game: str,
        seats: int,
        target: int | None,
        practice: bool,
        difficulty: str | None,
        name: str,
        emoji: str,
        seed: int | None = None,
        address: str | None = None,
    ) -> GameRow:
        """Create a game (a practice game already started, in the same transaction).

        Limited per device and per ``address`` (the client's IP; an address may create
        ``ADDRESS_FACTOR`` times a device's allowance): ``games_per_hour`` games an hour, and
        ``waiting_games_per_device`` of its games waiting for players at once."""
        if game not in ("rummy", "tiles"):
            raise ServiceError("bad_game", "Pick Rummy or Tile Rummy.")
        if not 2 <= seats <= 4:
            raise ServiceError("bad_seats", "A game has 2 to 4 seats.")
        if game == "rummy":
            if target not in RUMMY_TARGETS:
                raise ServiceError("bad_target", "The target must be none, 100, 200, 300 or 500.")
        else:
            # Tile Rummy plays to 200 (the seed); a smaller target is for tests only.
            if target is None or not (self.settings.allow_seed and 1 <= target <= 200):
                target = 200
        if practice and difficulty not in DIFFICULTIES:
            raise ServiceError("bad_difficulty", "Pick Easy, Medium or Hard.")
        name, emoji = _identity(name, emoji)
        lock = self._create_locks.setdefault(device, asyncio.Lock())
        async with lock:  # one creation at a time per device: the waiting count holds
            buckets = self._creation_buckets(device, address)
            await self._over_creation_rate(buckets, "check")
            if not practice:
                await self._over_waiting_limit(device)
            await self._over_creation_rate(buckets, "hit")
            return await self._create(
                device, game, seats, target, practice, difficulty, name, emoji, seed
            )

    def _creation_buckets(self, device: str, address: str | None) -> list[tuple[str, str, Rate]]:
        per_hour = self.settings.games_per_hour
        if per_hour <= 0:
            return []
        out = [("games/device", device, Rate(per_hour, 3600))]
        if address:
            out.append(("games/address", address, Rate(ADDRESS_FACTOR * per_hour, 3600)))
        return out

    async def _over_creation_rate(self, buckets: list[tuple[str, str, Rate]], how: str) -> None:
        """Check (``how="check"``, counting nothing) or count (``"hit"``) one game created
        against every bucket; :class:`ServiceError` 429 with ``retry_after`` when over one."""
        for bucket, key, rate in buckets:
            try:
                await getattr(self.throttle, how)(bucket, key, rate)
            except Limited as exc:
                who = "This device has" if bucket == "games/device" else "Your network has"
                wait = _duration(exc.retry_after)
                raise ServiceError(
                    "too_many_games",
                    f"{who} created {rate.amount} games in the last hour; "
                    f"you can create another in {wait}.",
                    429,
                    exc.retry_after,
                ) from None

    async def _over_waiting_limit(self, device: str) -> None:
        limit = self.settings.waiting_games_per_device
        if limit <= 0:
            return
        rows = await self.store.games_for_device(device)
        hosted = sum(
            1
            for r in rows
            if r.status == "waiting" and r.seats and r.seats[r.host].device == device
        )
        if hosted >= limit:
            raise ServiceError(
                "too_many_waiting",
                f"You already have {hosted} games waiting for players; start or cancel one "
                "before creating another.",
                409,
            )

    async def _create(
        self,
        device: str,
        game: str,
        seats: int,
        target: int | None,
        practice: bool,
        difficulty: str | None,
        name: str,
        emoji: str,
        seed: int | None,
    ) -> GameRow:
        now = self.clock()
        if seed is None or not self.settings.allow_seed:
            seed = secrets.randbits(62)
        row_seats = [SeatRow(0, name, emoji, device, joined_at=now)]
        if practice:
            rng = random.Random(derive_seed(seed, "bot-names"))
            for n in range(1, seats):
                bot_name, bot_emoji = _bot_identity(rng, {s.name for s in row_seats})
                row_seats.append(
                    SeatRow(n, bot_name, bot_emoji, None, bot=difficulty, joined_at=now)
                )
        k = kind(game)
        for _ in range(50):
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LEN))
            row = GameRow(
                code=code,
                kind=game,
                status="waiting",
                capacity=seats,
                target=target,
                practice=practice,
                difficulty=difficulty if practice else None,
                seed=seed,
                seats=row_seats,
                created_at=now,
                updated_at=now,
                public_at=now,
            )
            room = Room(row=row, kind=k, v_base=self._new_v_base(), last_active=now)
            room.online = {s.seat for s in row.seats if s.bot}
            start = self._begin(room) if practice else None
            self._baseline(room)
            try:
                # A practice game is created already started: one transaction, so no "waiting"
                # practice game can ever be left behind.
                await self._write(self.store.create_game(row, action=start))
                break
            except CodeTaken:
                continue
            except NotSaved as exc:
                raise self._not_saved(exc) from None
        else:  # pragma: no cover - 31^5 codes
            raise ServiceError("busy", "Could not find a free game code; try again.", 503)
        async with self._load_lock:
            await self.bus.watch(code)
            self.rooms.setdefault(code, room)
        if practice:
            async with self._locked(code) as room:
                self._schedule(room)  # the bots' first moves
        return room.row

    async def join_game(self, code: str, device: str, name: str, emoji: str) -> tuple[GameRow, int]:
        name, emoji = _identity(name, emoji)
        return await self._retrying(lambda: self._join(code, device, name, emoji))

    async def _join(self, code: str, device: str, name: str, emoji: str) -> tuple[GameRow, int]:
        async with self._lobby(code) as room:
            row = room.row
            mine = self._seat_of(row, device)
            if mine is not None:
                return row, mine
            if row.status == "ended":
                raise ServiceError("ended", "That game was left or cancelled.", 409)
            if row.status != "waiting":
                raise ServiceError("started", "That game has already started.", 409)
            if len(row.seats) >= row.capacity:
                raise ServiceError("full", "That game is full.", 409)
            n = len(row.seats)
            try:
                await self._seat(room, SeatRow(n, name, emoji, device, joined_at=self.clock()))
            except NotSaved as exc:
                raise self._not_saved(exc, room) from None
            return row, n

    async def _seat(self, room: Room, seat: SeatRow) -> None:
        """Seat a player or a bot and commit it; a Rummy game that is now full starts in the
        same transaction (no full game is ever saved "waiting"). Raises NotSaved."""
        row = room.row
        start = None
        with self._rollback(room):
            expect = row.version
            row.seats.append(seat)
            if seat.bot is not None:
                room.online.add(seat.seat)
            row.version += 1
            row.updated_at = row.public_at = self.clock()
            if room.kind.engine.starts_when_full and len(row.seats) == row.capacity:
                start = self._begin(room)
            await self._write(
                self.store.save_game(
                    row, new_seats=[seat.seat], action=start, expect_version=expect
                )
            )
        await self._announce(room)
        if start is not None:
            self._publish(room)
            self._schedule(room)
        else:
            self._send_room_all(room)

    async def add_bot(self, room: Room, seat: int, difficulty: str) -> None:
        row = room.row
        if seat != row.host:
            raise ServiceError("not_host", "Only the host can add a bot.")
        if row.status != "waiting":
            raise ServiceError("not_waiting", "The game has already started.")
        if len(row.seats) >= row.capacity:
            raise ServiceError("room_full", "Every seat is taken.")
        n = len(row.seats)
        rng = random.Random(derive_seed(row.seed, "bot-names", n))
        bot_name, bot_emoji = _bot_identity(rng, {s.name for s in row.seats})
        await self._seat(
            room, SeatRow(n, bot_name, bot_emoji, None, bot=difficulty, joined_at=self.clock())
        )

    async def start_game(self, room: Room, seat: int) -> None:
        row = room.row
        if room.kind.engine.starts_when_full:
            raise ServiceError(
                "not_waiting", "A Rummy game starts by itself once every seat is filled."
            )
        if seat != row.host:
            raise ServiceError("not_host", "Only the host can start the game.")
        if row.status != "waiting":
            raise ServiceError("not_waiting", "The game has already started.")
        if len(row.seats) < 2:
            raise ServiceError("not_enough_players", "At least 2 players are needed to start.")
        with self._rollback(room):
            expect = row.version
            start = self._begin(room)
            await self._write(self.store.save_game(row, action=start, expect_version=expect))
        await self._announce(room)
        self._publish(room)
        self._schedule(room)

    def _begin(self, room: Room) -> ActionRow:
        """Start the match in memory (the caller commits the returned action with the row, and
        ``_rollback`` undoes this if that fails)."""
        row = room.row
        row.capacity = len(row.seats)
        room.state = room.kind.engine.new_match(
            room.kind.config(len(row.seats), row.target), row.seed
        )
        row.status = "active"
        row.version += 1
        row.state = room.kind.engine.state_to_dict(room.state)
        row.updated_at = row.public_at = self.clock()
        self._set_due(room, room.state)
        return ActionRow(row.code, row.version, None, "start", row.updated_at)

    async def leave(self, code: str, device: str) -> None:
        await self._retrying(lambda: self._leave_request(code, device))

    async def _leave_request(self, code: str, device: str) -> None:
        async with self._lobby(code) as room:
            seat = self._seat_of(room.row, device)
            if seat is None:
                raise ServiceError("not_seated", "You are not seated in that game.", 403)
            try:
                await self._leave(room, seat)
            except NotSaved as exc:
                raise self._not_saved(exc, room) from None

    async def _leave(self, room: Room, seat: int) -> None:
        row = room.row
        if row.status == "ended":
            return
        if row.status == "finished":
            raise ServiceError("finished", "That game is already over.")
        reason = "cancelled" if row.status == "waiting" else "left"
        with self._rollback(room):
            expect = row.version
            row.status = "ended"
            row.ended = {"reason": reason, "seat": seat, "name": row.seats[seat].name}
            row.grace_deadline = None
            row.grace_seat = None
            row.due_at = None
            row.version += 1
            row.updated_at = row.public_at = self.clock()
            await self._write(
                self.store.save_game(
                    row,
                    action=ActionRow(row.code, row.version, seat, reason, row.updated_at),
                    expect_version=expect,
                )
            )
        await self._announce(room)
        if room.timer is not None:
            room.timer.cancel()
            room.timer = None
        frame = _dumps({"type": "ended", **row.ended})
        for conn in self.fanout.conns(row.code):
            self._send(room, conn, frame)
        self._publish(room, every=True)

    async def my_games(self, device: str) -> list[dict[str, Any]]:
        """The device's waiting and active games, most recent public change first (at most
        ``MY_GAMES_LIMIT``). A game not in memory is summarised from its stored row: listing
        games never loads rooms."""
        rows = await self.store.games_for_device(device)
        rows.sort(key=lambda r: r.public_at, reverse=True)
        out = []
        for stored in rows[:MY_GAMES_LIMIT]:
            room = self.rooms.get(stored.code)
            if room is None or room.retired:
                room = Room(row=stored, kind=kind(stored.kind))
                if stored.status == "active" and stored.state is not None:
                    room.state = room.kind.engine.state_from_dict(stored.state)
                room.online = {s.seat for s in stored.seats if s.bot}
            row = room.row
            if row.status not in ("waiting", "active"):
                continue
            seat = self._seat_of(row, device)
            if seat is None:
                continue
            to_act = self._to_act(room)
            out.append(
                {
                    **self._summary(room, seat),
                    "to_act": to_act,
                    "your_turn": seat in to_act,
                    "turn_names": [row.seats[s].name for s in to_act],
                    "public_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(row.public_at)),
                }
            )
        out.sort(key=lambda g: g["public_at"], reverse=True)
        return out

    def summary(self, room: Room, device: str | None) -> dict[str, Any]:
        seat = self._seat_of(room.row, device) if device else None
        row = room.row
        return {
            **self._summary(room, seat),
            "joined": len(row.seats),
            "joinable": row.status == "waiting" and len(row.seats) < row.capacity,
        }

    def _summary(self, room: Room, seat: int | None) -> dict[str, Any]:
        row = room.row
        return {
            "code": row.code,
            "game": row.kind,
            "status": row.status,
            "seat": seat,
            "you": seat,
            "seats": row.capacity,
            "target": row.target,
            "practice": row.practice,
            "players": self._players(room),
            "url": f"/g/{row.code}",
        }

    # ------------------------------------------------------------------ sockets

    @staticmethod
    def _seat_of(row: GameRow, device: str | None) -> int | None:
        for s in row.seats:
            if device is not None and s.device == device:
                return s.seat
        return None

    async def connect(
        self, code: str, device: str, conn_factory: Callable[[str, int], Conn]
    ) -> tuple[Room, Conn]:
        """Attach a socket for the device's seat; send hello, the current view and chat.

        While the socket is attached its room is not evicted, so the returned room stays the
        game's live room until :meth:`disconnect`."""
        async with self._lobby(code) as room:
            seat = self._seat_of(room.row, device)
            if seat is None:
                raise ServiceError("not_seated", "This device has no seat in that game.", 403)
            limit = self.settings.sockets_per_seat
            if limit > 0 and sum(c.seat == seat for c in self.fanout.conns(room.row.code)) >= limit:
                raise ServiceError(
                    "too_many_sockets",
                    f"This seat already has {limit} open connections; close a tab and retry.",
                    429,
                )
            conn = conn_factory(room.row.code, seat)
            self.fanout.add(conn)
            row = room.row
            self._send(
                room,
                conn,
                _dumps(
                    {
                        "type": "hello",
                        "code": row.code,
                        "game": row.kind,
                        "seat": seat,
                        "server_time": int(self.clock() * 1000),
                    }
                ),
            )
            self._send_view(room, conn)
            history = await self.store.chat_history(row.code)
            self._send(
                room,
                conn,
                _dumps(
                    {
                        "type": "chat_history",
                        "messages": [_chat_dict(c) for c in history],
                        "unread": self._unread(room, seat),
                    }
                ),
            )
            await self._presence_changed(room, here=True)
        return room, conn

    async def disconnect(self, room: Room, conn: Conn) -> None:
        async with room.lock:
            self.fanout.remove(conn)
            room.last_active = self.clock()  # the idle period starts when the last one leaves
            await self._presence_changed(room, here=True)

    async def _presence_changed(self, room: Room, *, here: bool = False) -> None:
        """Who is online: the seats with a socket here or on another live process, and the
        bots. ``here``: a socket here opened or closed (the other processes are told)."""
        code = room.row.code
        local = self.fanout.online(code)
        others: set[int] = set()
        if self.multi:
            if here:
                await self.bus.set_online(code, local)
                await self.bus.publish(code, {"type": "presence"})
            others = await self.bus.others_online(code)
        online = local | others | {s.seat for s in room.row.seats if s.bot}
        if online != room.online:
            room.online = online
            self._send_room_all(room)

    # ------------------------------------------------------------------ other processes

    async def _on_event(self, code: str, event: dict[str, Any]) -> None:
        """Another process committed a change to ``code``, a chat message, a read marker, or
        saw a socket come or go (the bus delivers only events of games this process has)."""
        room = self.rooms.get(code)
        if room is None or room.retired:
            return
        async with room.lock:
            if room.retired:
                return
            what = event.get("type")
            if what == "changed":
                if int(event.get("version", 0)) > room.row.version:
                    await self._refresh(room)
            elif what == "resync":
                await self._refresh(room, force=True)
            elif what == "chat":
                message = event["msg"]
                self._chat_arrived(room, message)
                seat = room.row.seats[int(message["seat"])]
                seat.chat_read = max(seat.chat_read, int(message["id"]))
                self._send_room_all(room)
            elif what == "read":
                n = int(event["seat"])
                if n < len(room.row.seats):
                    s = room.row.seats[n]
                    s.chat_read = max(s.chat_read, int(event["id"]))
                    frame = _dumps({"type": "room", "room": self._room_dict(room, n)})
                    for conn in self.fanout.conns(code):
                        if conn.seat == n:
                            self._send(room, conn, frame)
            elif what == "presence":
                await self._presence_changed(room)

    async def _claim(self) -> None:
        """Take over the timers overdue by ``OVERDUE`` seconds (their process died or is
        stuck): lease them in the database (two processes never claim one game at once) and
        arm them here from the stored game. A game whose timer already runs here is left to
        it. Every ``PRESENCE_EVERY`` seconds, also re-read who is online elsewhere."""
        now = self.clock()
        codes = await self.store.claim_overdue(
            due_before=now - OVERDUE, now=now, owner=self.bus.process, until=now + LEASE
        )
        for code in codes:
            room = self.rooms.get(code)
            if room is not None and room.timer is not None and not room.timer.done():
                continue
            with contextlib.suppress(ServiceError):
                async with self._locked(code) as room:
                    await self._refresh(room)
                    log.info(
                        "took over the timer of %s (due %.1f s ago)",
                        code,
                        now - (room.row.due_at or now),
                    )
                    self._schedule(room)
        if now - self._presence_at >= PRESENCE_EVERY:
            self._presence_at = now
            for room in list(self.rooms.values()):
                if not room.retired and any(True for _ in self.fanout.conns(room.row.code)):
                    async with room.lock:
                        await self._presence_changed(room)

    async def handle(self, room: Room, conn: Conn, msg: Any) -> None:
        """Answer one parsed client message. Never raises for bad input."""
        msg_id = msg.id
        try:
            if isinstance(msg, Ping):
                self._send(
                    room,
                    conn,
                    _dumps({"type": "pong", "id": msg_id, "server_time": int(self.clock() * 1000)}),
                )
                return
            if isinstance(msg, Sync):
                async with room.lock:
                    if self.multi:
                        await self._refresh(room)
                    self._send_view(room, conn)
                return
            if isinstance(msg, Hint):  # thought out off the lock (and off the event loop)
                await self._hint(room, conn, msg_id)
                return
            async with room.lock:
                await self._locked_message(room, conn, msg)
        except ServiceError as exc:
            self._send(room, conn, _dumps(error_message(exc.code, exc.message, msg_id)))
        except Unconfirmed:
            # Neither "saved" nor "not saved": the client learns the outcome when it resyncs.
            self._forget(room)
            self._send(room, conn, _dumps(error_message("unconfirmed", UNCONFIRMED, msg_id)))
        except NotSaved:
            # Logged where it failed; the room is as it was before the message.
            self._send(room, conn, _dumps(error_message("server_error", NOT_SAVED, msg_id)))
        except Exception:  # never let one message kill the socket or the game
            log.exception("error handling %r in %s", type(msg).__name__, room.row.code)
            self._send(
                room,
                conn,
                _dumps(
                    error_message(
                        "server_error",
                        "Something went wrong on the server; nothing was changed.",
                        msg_id,
                    )
                ),
            )

    async def _locked_message(self, room: Room, conn: Conn, msg: Any) -> None:
        """Carry out a message that changes the game (caller holds the lock).

        Another process may have changed the game since this room was read: a write then
        loses its compare-and-set (:class:`Stale`), and a refusal may rest on what is no
        longer so. Either way the room is reloaded; a move is answered ``stale`` with the
        current view (the player decides again), anything else is tried once more."""
        for attempt in (1, 2):
            try:
                if isinstance(msg, Act):
                    await self._act(room, conn, msg)
                    return
                if isinstance(msg, Chat):
                    await self._chat(room, conn.seat, msg.text)
                elif isinstance(msg, ChatRead):
                    await self._chat_read(room, conn.seat)
                elif isinstance(msg, Leave):
                    await self._leave(room, conn.seat)
                elif isinstance(msg, Start):
                    await self.start_game(room, conn.seat)
                elif isinstance(msg, AddBot):
                    await self.add_bot(room, conn.seat, msg.difficulty)
                self._send(room, conn, self._ack(room, conn.seat, msg.id))
                return
            except Stale:
                await self._refresh(room)
            except ServiceError:
                if attempt == 2 or not self.multi or not await self._refresh(room):
                    raise
            if isinstance(msg, Act):
                self._stale(room, conn, msg.id)
                return
        raise ServiceError("busy", "The game is changing fast; please try again.", 503)

    def _stale(self, room: Room, conn: Conn, msg_id: str | None) -> None:
        self._send(room, conn, _dumps(error_message("stale", STALE, msg_id)))
        self._send_view(room, conn)

    def _ack(self, room: Room, seat: int, msg_id: str | None) -> str:
        # ``v``: this seat's own view version (never the game's, which counts private turns).
        return _dumps({"type": "ack", "id": msg_id, "v": room.view_v.get(seat)})

    async def _act(self, room: Room, conn: Conn, msg: Act) -> None:
        row = room.row
        seat = conn.seat
        if row.status == "ended":
            raise ServiceError("ended", "This game was left; it is frozen.")
        if row.status == "waiting":
            raise ServiceError("not_started", "The game has not started yet.")
        if row.status == "finished":
            raise ServiceError("finished", "This game is over.")
        if room.kind.server_only(msg.action):
            raise ServiceError("server_only", "Only the server can do that.")
        try:
            action = room.kind.engine.parse_action(msg.action)
        except IllegalAction as exc:
            raise ServiceError(exc.code, exc.message) from None
        if msg.v != room.view_v.get(seat):
            self._stale(room, conn, msg.id)
            return
        if seat not in room.kind.engine.to_act(room.state):
            raise ServiceError("not_your_turn", "It is not your turn.")
        try:
            await self._apply(room, seat, action, ack=(conn, msg.id))
        except IllegalAction as exc:
            raise ServiceError(exc.code, exc.message) from None

    async def _apply(
        self,
        room: Room,
        seat: int,
        action: Any,
        *,
        ack: tuple[Conn, str | None] | None = None,
        memory: dict[str, Any] | None = None,
    ) -> None:
        """Apply, persist, acknowledge, broadcast. Caller holds the lock. Raises IllegalAction,
        or NotSaved with the room unchanged.

        ``public_at`` moves only when the content of some other seat changed: a private turn
        (Rummy draws, melds, undos, a discard in its grace window; Tile Rummy arrangements)
        leaves it, and every other seat's ``v``, as they were."""
        row = room.row
        engine = room.kind.engine
        new_state = engine.apply(room.state, seat, action)
        now = self.clock()
        self._baseline(room)
        with self._rollback(room):
            expect = row.version
            row.version += 1
            row.state = engine.state_to_dict(new_state)
            row.updated_at = now
            if room.kind.pending_discard(new_state):
                if row.grace_deadline is None:
                    bot = row.seats[seat].bot is not None
                    row.grace_deadline = now + (
                        self.settings.bot_delay if bot else self.settings.grace_seconds
                    )
                    row.grace_seat = seat
            else:
                row.grace_deadline = None
                row.grace_seat = None
            records = self._records(room, new_state, now)
            self._set_due(room, new_state)
            contents = self._contents(room, new_state)
            if any(contents[s][0] != room.view_key.get(s) for s in contents if s != seat):
                row.public_at = now
            dirty_seats = []
            if memory is not None:
                row.seats[seat].memory = memory
                dirty_seats.append(seat)
            await self._write(
                self.store.save_game(
                    row,
                    seats=dirty_seats,
                    action=ActionRow(row.code, row.version, seat, str(action), now),
                    records=records,
                    expect_version=expect,
                )
            )
        room.state = new_state
        metrics.ACTIONS.labels(row.kind).inc()
        room.backoff = 0.0
        room.last_active = self.clock()  # activity counts when it ends (the commit took time)
        changed = self._take(room, contents)
        if ack is not None:
            conn, msg_id = ack
            self._send(room, conn, self._ack(room, seat, msg_id))
        self._publish(room, contents, changed)
        self._schedule(room)
        await self._announce(room)

    def _records(self, room: Room, state: Any, now: float) -> list[RecordRow]:
        """Stats records for the hand/round (and the match) that ended with this action: the
        engine's outcomes as they are. Who won is the engine's to say (``Outcome.winners``);
        the stats read it from here (``accounts.stats.match_result``) and never re-derive it."""
        row, k = room.row, room.kind
        finished = k.hands_finished(state)

        def record(scope: str, outcome: Outcome) -> RecordRow:
            seats = row.seats
            return RecordRow(
                row.code,
                row.kind,
                scope,
                finished,
                [s.name for s in seats],
                [s.emoji for s in seats],
                [s.bot is not None for s in seats],
                list(outcome.scores),
                list(outcome.winners),
                outcome.reason.value,
                row.created_at,
                now,
                row.practice,
            )

        out: list[RecordRow] = []
        if finished > row.hands_recorded:
            hand = k.hand_outcome(state)
            if hand is not None:
                out.append(record("hand", hand))
            row.hands_recorded = finished
        match = k.match_outcome(state)
        if match is not None and row.status == "active":
            row.status = "finished"
            out.append(record("match", match))
        return out

    # ------------------------------------------------------------------ timers: grace + bots

    def _schedule(self, room: Room, *, after: float = 0.0) -> None:
        """Arm the one timer a game may have: the grace window's end, or the next bot step
        (not before ``after`` seconds: a retry after a failed commit)."""
        if room.timer is not None and room.timer is not asyncio.current_task():
            room.timer.cancel()
        room.timer = None
        row = room.row
        if self._closing or room.retired or row.status != "active" or room.state is None:
            return
        if row.grace_deadline is not None:
            delay = max(0.0, after, row.grace_deadline - self.clock())
            room.timer = asyncio.get_running_loop().create_task(
                self._grace_end(room, row.version, delay)
            )
            return
        seat = self._bot_to_act(room)
        if seat is not None:
            # Not after its stored due time: a step taken over from another process is overdue
            # already, and waits no further bot delay.
            due = self.settings.bot_delay
            if row.due_at is not None:
                due = min(due, max(0.0, row.due_at - self.clock()))
            room.timer = asyncio.get_running_loop().create_task(
                self._bot_step(room, seat, row.version, max(after, due))
            )

    def _retry(self, room: Room, what: str) -> None:
        """A timer's commit failed (logged where it failed): try again after a back-off that
        doubles from ``RETRY_FIRST`` to ``RETRY_MAX`` seconds, until it lands."""
        room.backoff = min(RETRY_MAX, room.backoff * 2) if room.backoff else RETRY_FIRST
        log.warning("%s in %s not saved; retrying in %.1f s", what, room.row.code, room.backoff)
        self._schedule(room, after=room.backoff)

    def _set_due(self, room: Room, state: Any) -> None:
        """When the server must act on the game by itself after this change (stored with it,
        so that any process can take the timer over): the grace window's end, else a bot's
        next step, else never."""
        row = room.row
        if row.status != "active" or state is None:
            row.due_at = None
        elif row.grace_deadline is not None:
            row.due_at = row.grace_deadline
        elif self._bot_to_act(room, state) is not None:
            row.due_at = self.clock() + self.settings.bot_delay
        else:
            row.due_at = None

    async def _announce(self, room: Room) -> None:
        """Tell the other processes the game changed (they reload it from the database)."""
        if self.multi:
            await self.bus.publish(room.row.code, {"type": "changed", "version": room.row.version})

    def _bot_to_act(self, room: Room, state: Any = None) -> int | None:
        state = room.state if state is None else state
        to_act = room.kind.engine.to_act(state)
        humans_waited_on = any(room.row.seats[s].bot is None for s in to_act)
        # "Next hand/round" is the humans' call while one of them may still press it, so a
        # player gets to look at the result first.
        if humans_waited_on and room.kind.only_next(state):
            return None
        for s in sorted(to_act):
            if room.row.seats[s].bot is not None:
                return int(s)
        return None

    async def _grace_end(self, room: Room, version: int, delay: float) -> None:
        await asyncio.sleep(delay)
        async with room.lock:
            room.timer = None
            row = room.row
            if row.version != version or row.grace_deadline is None or row.status != "active":
                self._schedule(room)
                return
            engine = room.kind.engine
            seat = row.grace_seat if row.grace_seat is not None else min(engine.to_act(room.state))
            metrics.TIMER_LAG_SECONDS.observe(max(0.0, self.clock() - row.grace_deadline))
            try:
                assert engine.grace_action is not None
                await self._apply(room, seat, engine.parse_action(engine.grace_action))
            except Stale:  # another process ended the window first
                await self._refresh(room)
            except IllegalAction:
                log.exception("commit refused in %s", row.code)
                row.grace_deadline = None
                self._schedule(room)
            except Unconfirmed:
                self._forget(room)  # the database knows; the next use reloads from it
            except Exception:  # NotSaved (or a bug): the window must still close, later
                self._retry(room, "the end of a grace window")

    async def _bot_step(self, room: Room, seat: int, version: int, delay: float) -> None:
        """The bot at ``seat`` moves, if the game is still at ``version``.

        It thinks in the worker pool on a snapshot (the saved state at ``version``, outside the
        lock: other games and this one's sockets carry on meanwhile), then its action is
        applied under the lock only if the game is still at that version; if it moved, the
        timer is re-armed and the bot thinks again on the game as it is now. While it thinks
        the room keeps this timer, so no sweep drops it."""
        if delay > 0:
            await asyncio.sleep(delay)
        else:
            await asyncio.sleep(0)
        async with room.lock:
            row = room.row
            if row.version != version or row.status != "active":
                room.timer = None
                self._schedule(room)
                return
            if row.due_at is not None:
                metrics.TIMER_LAG_SECONDS.observe(max(0.0, self.clock() - row.due_at))
            job = (
                row.kind,
                row.seats[seat].bot or "medium",
                row.state,
                seat,
                row.seats[seat].memory,
                derive_seed(row.seed, "bot", seat, row.version),
            )
        thought: tuple[str, dict[str, Any]] | Exception
        try:
            thought = await self.compute.run(decide_from_state, *job, wait=True)
        except Exception as exc:  # a bot bug, or the pool failed twice
            thought = exc
        async with room.lock:
            room.timer = None
            row = room.row
            if row.version != version or row.status != "active" or room.retired:
                self._schedule(room)
                return
            engine = room.kind.engine
            action: Any = None
            try:
                if isinstance(thought, Exception):
                    raise thought
                text, memory = thought
                action = engine.parse_action(text)
                await self._apply(room, seat, action, memory=memory)
                return
            except Stale:  # another process moved the game (it holds the timer now)
                await self._refresh(room)
                return
            except Unconfirmed:
                self._forget(room)
                return
            except NotSaved:
                self._retry(room, "a bot's move")
                return
            except Exception as exc:  # a bot bug must not stall the game
                self.bot_errors += 1
                log.warning("bot %s in %s failed on %r: %r", seat, row.code, action, exc)
            # Fall back to a random legal action so the game goes on.
            rng = random.Random(derive_seed(row.seed, "bot", seat, row.version, "fallback"))
            legal = [
                a
                for a in engine.legal_actions(room.state, seat)
                if not room.kind.server_only(str(a))
            ]
            try:
                if legal:
                    await self._apply(room, seat, rng.choice(legal))
            except Stale:
                await self._refresh(room)
            except NotSaved:
                self._retry(room, "a bot's move")
            except Exception:
                # Logged, not retried in a loop; the next change to the game re-arms the bot.
                log.exception("bot %s in %s: fallback failed too", seat, row.code)

    # ------------------------------------------------------------------ chat, hint

    async def _chat(self, room: Room, seat: int, text: str) -> None:
        text = text.strip()
        if not text:
            raise ServiceError("chat_empty", "Type a message first.")
        if len(text) > MAX_CHAT_CHARS:
            raise ServiceError(
                "chat_too_long", f"Messages are at most {MAX_CHAT_CHARS} characters."
            )
        now = self.clock()
        times = room.chat_times.setdefault(seat, deque())
        while times and now - times[0] > CHAT_WINDOW:
            times.popleft()
        if len(times) >= CHAT_BURST:
            raise ServiceError(
                "chat_rate", "You are sending messages too fast; wait a few seconds."
            )
        s = room.row.seats[seat]
        chat = await self._write(
            self.store.add_chat(room.row.code, seat, s.name, s.emoji, text, now)
        )
        times.append(now)
        message = _chat_dict(chat)
        if self.multi:
            await self.bus.publish(room.row.code, {"type": "chat", "msg": message})
        self._chat_arrived(room, message)
        # Your own message is read. Only a marker: the message itself is saved, so a failure
        # here is logged and the marker stays where it was (your own messages never count as
        # unread anyway).
        try:
            await self._save_read(room, seat, chat.id)
        except NotSaved:
            pass
        except Stale:
            await self._refresh(room)
        self._send_room_all(room)

    def _chat_arrived(self, room: Room, message: dict[str, Any]) -> None:
        """A chat message committed (here or by another process): to every local socket."""
        if any(cid == message["id"] for cid, _ in room.chat[-50:]):
            return
        room.chat.append((message["id"], message["seat"]))
        frame = _dumps({"type": "chat", "msg": message})
        for conn in self.fanout.conns(room.row.code):
            self._send(room, conn, frame)

    async def _save_read(self, room: Room, seat: int, last: int) -> None:
        """Commit the seat's read marker (only if the game is still at this version: a seat
        row is written with its game row) and tell the other processes."""
        s = room.row.seats[seat]
        if s.chat_read >= last:
            return
        with self._rollback(room):
            s.chat_read = last
            await self._write(
                self.store.save_game(room.row, seats=[seat], expect_version=room.row.version)
            )
        if self.multi:
            await self.bus.publish(room.row.code, {"type": "read", "seat": seat, "id": last})

    async def _chat_read(self, room: Room, seat: int) -> None:
        await self._save_read(room, seat, room.chat[-1][0] if room.chat else 0)
        frame = _dumps({"type": "room", "room": self._room_dict(room, seat)})
        for conn in self.fanout.conns(room.row.code):
            if conn.seat == seat:
                self._send(room, conn, frame)

    def _unread(self, room: Room, seat: int) -> int:
        read = room.row.seats[seat].chat_read
        return sum(1 for cid, s in room.chat if cid > read and s != seat)

    async def _hint(self, room: Room, conn: Conn, msg_id: str | None) -> None:
        """Think out a hint in the worker pool on a snapshot of the game, outside the lock,
        and send it if the game is still where it was (else think again, a few times). A full
        pool answers ``busy`` at once: a person can ask again, work must not pile up."""
        seat = conn.seat
        for _ in range(HINT_TRIES):
            async with room.lock:
                if room.state is None or room.row.status != "active":
                    raise ServiceError("no_hint", "There is nothing to hint at right now.")
                if seat not in room.kind.engine.to_act(room.state):
                    raise ServiceError("no_hint", "Hints are for your own turn.")
                version, job = room.row.version, (room.row.kind, room.row.state, seat)
            try:
                data = await self.compute.run(hint_from_state, *job, wait=False)
            except Busy:
                raise ServiceError("busy", HINT_BUSY) from None
            async with room.lock:
                if room.row.version == version:
                    frame = {"type": "hint", "id": msg_id, "v": room.view_v.get(seat), "hint": data}
                    self._send(room, conn, _dumps(frame))
                    return
        raise ServiceError("no_hint", "The game keeps moving; ask again in a moment.")

    # ------------------------------------------------------------------ outbound

    def _send(self, room: Room, conn: Conn, frame: str) -> None:
        if self.observer is not None:
            self.observer(room, conn.seat, frame)
        conn.send(frame)

    def _players(self, room: Room) -> list[dict[str, Any]]:
        return [
            {
                "seat": s.seat,
                "name": s.name,
                "emoji": s.emoji,
                "bot": s.bot is not None,
                "online": s.bot is not None or s.seat in room.online,
            }
            for s in room.row.seats
        ]

    def _to_act(self, room: Room, state: Any = None) -> list[int]:
        state = room.state if state is None else state
        if state is None or room.row.status not in ("active", "finished"):
            return []
        return sorted(room.kind.engine.to_act(state))

    def _room_dict(self, room: Room, seat: int) -> dict[str, Any]:
        row = room.row
        return {
            "code": row.code,
            "game": row.kind,
            "status": row.status,
            "seats": row.capacity,
            "you": seat,
            "host": row.host,
            "target": row.target,
            "practice": row.practice,
            "difficulty": row.difficulty,
            "players": self._players(room),
            "to_act": self._to_act(room) if row.status == "active" else [],
            "chat_unread": self._unread(room, seat),
            "ended": row.ended,
        }

    def _content(self, room: Room, seat: int, state: Any) -> Content:
        """The game content for one seat in ``state``, as JSON: the engine's view and its legal
        actions; its grace window (only the discarding seat's); and a digest of all that (with
        the status and whose turn it is), which tells whether the seat's content changed."""
        row = room.row
        view = None
        legal: list[str] = []
        grace = None
        if state is not None:
            view = room.kind.engine.view(state, seat).to_dict()
            if row.status == "active":
                legal = room.kind.legal_strings(state, seat, view)
            if row.grace_deadline is not None and row.grace_seat == seat:
                grace = {"deadline": int(row.grace_deadline * 1000)}
        body = _dumps({"state": view, "legal": legal})
        to_act = self._to_act(room, state) if row.status == "active" else []
        return _digest(f"{body}|{grace}|{row.status}|{to_act}"), body, grace

    def _contents(self, room: Room, state: Any) -> dict[int, Content]:
        return {s.seat: self._content(room, s.seat, state) for s in room.row.seats}

    def _new_v_base(self) -> int:
        """Where a freshly loaded room's view versions count from: the clock in microseconds
        (never below a version this process handed out). It reveals no count of anything,
        and a version issued before a restart or an eviction stays below every later one (a
        seat's content changes far less often than once a microsecond), so an ``act`` made on
        a view from before is always stale."""
        return max(int(self.clock() * 1000) * 1000, self._v_high + 1)

    def _next_v(self, room: Room, seat: int) -> int:
        v = room.view_v.get(seat, room.v_base) + 1
        room.view_v[seat] = v
        self._v_high = max(self._v_high, v)
        return v

    def _take(self, room: Room, contents: dict[int, Content]) -> set[int]:
        """Record the seats' new content (committed); the seats whose content changed, each
        with its ``v`` one higher."""
        changed = set()
        for seat, (key, _body, _grace) in contents.items():
            if room.view_key.get(seat) != key:
                room.view_key[seat] = key
                self._next_v(room, seat)
                changed.add(seat)
        return changed

    def _baseline(self, room: Room) -> None:
        """Make sure every seat's current content is recorded (a seat just loaded or seated),
        so that a later change is measured against what that seat could see."""
        missing = [s.seat for s in room.row.seats if s.seat not in room.view_key]
        if missing:
            self._take(room, {s: self._content(room, s, room.state) for s in missing})

    def _view_frame(self, room: Room, seat: int, content: Content) -> str:
        _key, body, grace = content
        if grace is not None:
            grace = {**grace, "remaining_ms": max(0, grace["deadline"] - int(self.clock() * 1000))}
        # Assembled from the already-serialised body: the view is the bulk of every frame.
        head = _dumps(
            {
                "type": "view",
                "v": room.view_v[seat],
                "grace": grace,
                "room": self._room_dict(room, seat),
            }
        )
        return f"{head[:-1]},{body[1:]}"

    def _send_view(self, room: Room, conn: Conn) -> None:
        content = self._content(room, conn.seat, room.state)
        self._take(room, {conn.seat: content})
        self._send(room, conn, self._view_frame(room, conn.seat, content))

    def _publish(
        self,
        room: Room,
        contents: dict[int, Content] | None = None,
        changed: set[int] | None = None,
        *,
        every: bool = False,
    ) -> None:
        """Send a new view to every connection whose seat's content changed (only those; or to
        every connection with ``every``). ``contents``/``changed``: already computed and taken
        (by ``_apply``); otherwise computed from the room now. Each frame is built once per
        seat, however many sockets that seat has."""
        if contents is None or changed is None:
            contents = self._contents(room, room.state)
            changed = self._take(room, contents)
        frames: dict[int, str | None] = {}
        for conn in self.fanout.conns(room.row.code):
            seat = conn.seat
            if seat not in frames:
                wanted = (every or seat in changed) and seat in contents
                frames[seat] = self._view_frame(room, seat, contents[seat]) if wanted else None
            frame = frames[seat]
            if frame is not None:
                self._send(room, conn, frame)

    def _send_room_changed(
        self, room: Room, before: dict[int, dict[str, Any]], *, skip: set[int]
    ) -> None:
        """A ``room`` frame to each connection whose seat's room summary differs from
        ``before`` (seats in ``skip`` were just sent a whole view)."""
        frames: dict[int, str | None] = {}
        for conn in self.fanout.conns(room.row.code):
            seat = conn.seat
            if seat in skip:
                continue
            if seat not in frames:
                now = self._room_dict(room, seat)
                frames[seat] = (
                    None if now == before.get(seat) else _dumps({"type": "room", "room": now})
                )
            frame = frames[seat]
            if frame is not None:
                self._send(room, conn, frame)

    def _send_room_all(self, room: Room) -> None:
        """A ``room`` frame to every connection, built once per seat."""
        frames: dict[int, str] = {}
        for conn in self.fanout.conns(room.row.code):
            frame = frames.get(conn.seat)
            if frame is None:
                frame = frames[conn.seat] = _dumps(
                    {"type": "room", "room": self._room_dict(room, conn.seat)}
                )
            self._send(room, conn, frame)


Content = tuple[bytes, str, dict[str, Any] | None]  # (digest, view JSON, grace)


def _duration(seconds: int) -> str:
    if seconds < 90:
        return f"{max(1, seconds)} seconds"
    return f"{(seconds + 59) // 60} minutes"


def _chat_dict(c: Any) -> dict[str, Any]:
    return {
        "id": c.id,
        "seat": c.seat,
        "name": c.name,
        "emoji": c.emoji,
        "text": c.text,
        "ts": int(c.at * 1000),
    }


_FALLBACK_NAMES = ["Robo Rita", "Chip", "Bolt", "Pixel", "Sprocket", "Widget", "Gizmo", "Dot"]


def _bot_identity(rng: random.Random, taken: set[str]) -> tuple[str, str]:
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
