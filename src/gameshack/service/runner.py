"""The game service: one writer per game, in one process or in several. Every frame it sends
is one of the closed set in :mod:`gameshack.protocol.outbound`, written by its own encoder.

Every change to a game happens under that game's lock (and, across processes, as a version
compare-and-set in the database), through one pipeline in :mod:`~gameshack.service.match`:
parse -> authorize the seat -> check the version -> apply in the engine -> commit -> acknowledge
-> publish a per-seat ``view`` to every connection.

This module keeps the games in memory (load, lock, evict, purge) and dispatches what sockets
send; the jobs live beside it, one each: the lobby (:mod:`.lobby`), the match pipeline
(:mod:`.match`), the server's timers (:mod:`.timers`), what is sent (:mod:`.frames`), chat and
hints (:mod:`.chat`), and the other processes (:mod:`.peers`).

A change is built on a draft of the room and swapped in only once committed
(:func:`~gameshack.service.room.draft`): a write that fails leaves the room exactly as it was,
and the one who asked hears that it was not saved; the timers retry a failed commit with a
bounded back-off until it lands.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from gameshack.protocol import (
    Act,
    AddBot,
    Chat,
    ChatRead,
    Hint,
    Leave,
    Ping,
    Rematch,
    Start,
    Sync,
    error_frame,
)
from gameshack.protocol.outbound import (
    ChatHistoryFrame,
    EndedFrame,
    HelloFrame,
    PongFrame,
)
from gameshack.service.bus import Bus, LocalBus
from gameshack.service.chat import ChatAndHints
from gameshack.service.compute import Pool
from gameshack.service.fanout import Conn, FanOut, LocalFanOut
from gameshack.service.frames import Frames
from gameshack.service.kinds import kind
from gameshack.service.lobby import Lobby
from gameshack.service.match import Match
from gameshack.service.peers import Peers
from gameshack.service.ports import (
    CodeTaken,
    GameRow,
    Store,
    VersionConflict,
    WriteUnconfirmed,
)
from gameshack.service.rematch import Rematches
from gameshack.service.room import (
    CLAIM_EVERY,
    CODE_ALPHABET,
    CODE_LEN,
    NOT_SAVED,
    UNCONFIRMED,
    NotSaved,
    Room,
    ServiceError,
    Stale,
    T,
    Unconfirmed,
    chat_dict,
    device_hash,
    log,
)
from gameshack.service.settings import Settings
from gameshack.service.timers import Timers
from gameshack.service.turnclock import TurnClock
from gameshack.service.watch import Watch
from gameshack.throttle import Throttle

__all__ = ["CODE_ALPHABET", "GameService", "NotSaved", "Room", "ServiceError", "device_hash"]


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
        self.load_lock = asyncio.Lock()
        self.closing = False
        # Idle rooms are dropped by a sweep this often (seconds, real time; 0: no sweep).
        idle = settings.room_idle_seconds
        self.sweep_every = min(60.0, idle / 4) if idle > 0 else 0.0
        self._sweeper: asyncio.Task[None] | None = None
        # Abandoned waiting games and old chat are purged this often (0: never).
        ttls = [t for t in (settings.waiting_ttl, settings.chat_retention) if t > 0]
        self.purge_every = max(0.05, min(300.0, min(ttls) / 4)) if ttls else 0.0
        self._purger: asyncio.Task[None] | None = None
        self._claimer: asyncio.Task[None] | None = None
        # Test hook: called with (room, seat, frame) for every frame sent to a socket.
        self.observer: Callable[[Room, int, str], None] | None = None
        self.bot_errors = 0
        # The service's parts, one job each; each reaches the others through this object.
        self.frames = Frames(self)
        self.lobby = Lobby(self)
        self.match = Match(self)
        self.timers = Timers(self)
        self.peers = Peers(self)
        self.chat = ChatAndHints(self)
        self.rematch = Rematches(self)  # issue 33
        self.watch = Watch(self)  # issue 33: spectators
        self.turnclock = TurnClock(self)

    # The lobby's requests, as the server calls them.

    async def create_game(self, device: str, **options: Any) -> GameRow:
        return await self.lobby.create_game(device, **options)

    async def join_game(self, code: str, device: str, name: str, emoji: str) -> tuple[GameRow, int]:
        return await self.lobby.join_game(code, device, name, emoji)

    async def leave(self, code: str, device: str) -> None:
        await self.lobby.leave(code, device)

    async def my_games(self, device: str) -> list[dict[str, Any]]:
        return await self.lobby.my_games(device)

    def summary(self, room: Room, device: str | None) -> dict[str, Any]:
        return self.lobby.summary(room, device)

    async def start_game(self, room: Room, seat: int) -> None:
        await self.lobby.start_game(room, seat)

    def _schedule(self, room: Room, *, after: float = 0.0) -> None:
        self.timers.schedule(room, after=after)

    async def start(self) -> None:
        """Resume every active game: pending grace windows and bot turns carry on. Then start
        the sweep that drops idle rooms from memory.

        With several processes, a game's timer belongs to the process that committed its last
        change; this one takes over only the games whose timer is overdue (``_claim``), now and
        every ``CLAIM_EVERY`` seconds."""
        await self.bus.start(self.peers.on_event)
        loop = asyncio.get_running_loop()
        if self.multi:
            self.compute.warm()  # ready for the bots of a game taken over from another process
            self._claimer = loop.create_task(self._every(CLAIM_EVERY, self.timers.claim))
        else:
            for row in await self.store.live_games():
                with contextlib.suppress(ServiceError):
                    async with self.locked(row.code) as room:
                        self.timers.schedule(room)
        if self.sweep_every > 0 and self._sweeper is None:
            self._sweeper = loop.create_task(self._every(self.sweep_every, self.evict_idle))
        if self.purge_every > 0 and self._purger is None:
            self._purger = loop.create_task(self._every(self.purge_every, self.purge))

    async def close(self) -> None:
        self.closing = True
        await self.rematch.close()
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
        async with self.load_lock:
            room = self.rooms.get(code)
            if room is not None:
                return room
            # Watch first: a change committed elsewhere while we read is then heard of.
            await self.bus.watch(code)
            row = await self.store.load_game(code)
            if row is None:
                await self.bus.unwatch(code)
                return None
            room = Room(row=row, kind=kind(row.kind), v_base=self.frames.new_v_base())
            await self.peers.fill(room, row)
            room.last_active = self.clock()
            self.frames.baseline(room)
            if not self.multi:
                # A room evicted while idle had no timer; re-arming here is a no-op for it, and
                # retries a bot whose step failed (which would otherwise wait for a restart).
                # With several processes the timer is the committing process's (``_claim``).
                self.timers.schedule(room)
            self.rooms[code] = room
            return room

    async def room(self, code: str, *, touch: bool = True) -> Room:
        room = await self._room(code, touch=touch)
        if room is None:
            raise ServiceError("not_found", "There is no game with that code.", 404)
        return room

    @contextlib.asynccontextmanager
    async def locked(self, code: str) -> AsyncIterator[Room]:
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
    async def for_lobby(self, code: str) -> AsyncIterator[Room]:
        """:meth:`_locked` for a lobby request (join, leave): with several processes the room
        is first brought up to the stored game, so that nothing is refused on an old copy."""
        while True:
            async with self.locked(code) as room:
                if self.multi:
                    await self.peers.refresh(room)
                    if room.retired:  # the game is gone (purged): look again
                        continue
                yield room
                return

    async def retrying(self, request: Callable[[], Awaitable[T]]) -> T:
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
            and not self.watch.count(room.row.code)
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
            async with self.load_lock:
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

        async with self.load_lock, contextlib.AsyncExitStack() as held:
            gone: list[Room] = []
            for room in list(self.rooms.values()):
                if doomed(room) or quiet(room):
                    await held.enter_async_context(room.lock)
                    if self.rooms.get(room.row.code) is room and not room.retired:
                        gone.append(room)
            counts = await self.store.purge(waiting_before=waiting_before, chat_before=chat_before)
            frame = EndedFrame("expired", None, None).encode()
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
                    self.frames.send(room, conn, frame)
                    conn.close(4404)
                self.watch.close_all(room, "expired")
        if counts != (0, 0):
            log.info("purged %d abandoned waiting games and %d old chat messages", *counts)
        return counts

    async def write(self, op: Awaitable[T]) -> T:
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

    def not_saved(self, exc: NotSaved, room: Room | None = None) -> ServiceError:
        """The HTTP answer to a write that did not commit (the caller holds ``room``'s lock)."""
        if isinstance(exc, Unconfirmed):
            if room is not None:
                self.forget(room)
            return ServiceError("unconfirmed", UNCONFIRMED, 503)
        return ServiceError("server_error", NOT_SAVED, 503)

    def forget(self, room: Room) -> None:
        """Drop a room whose last write is unconfirmed (caller holds its lock): the next use
        reloads the game from the database, which knows what happened."""
        if room.timer is not None and room.timer is not asyncio.current_task():
            room.timer.cancel()
        room.timer = None
        room.retired = True
        if self.rooms.get(room.row.code) is room:
            del self.rooms[room.row.code]

    async def connect(
        self, code: str, device: str, conn_factory: Callable[[str, int], Conn]
    ) -> tuple[Room, Conn]:
        """Attach a socket for the device's seat; send hello, the current view and chat.

        While the socket is attached its room is not evicted, so the returned room stays the
        game's live room until :meth:`disconnect`."""
        async with self.for_lobby(code) as room:
            seat = self.lobby.seat_of(room.row, device)
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
            self.frames.send(
                room,
                conn,
                HelloFrame(row.code, row.kind, seat, int(self.clock() * 1000)).encode(),
            )
            self.frames.send_view(room, conn)
            history = await self.store.chat_history(row.code)
            self.frames.send(
                room,
                conn,
                ChatHistoryFrame(
                    [chat_dict(c) for c in history], self.frames.unread(room, seat)
                ).encode(),
            )
            await self.peers.presence_changed(room, here=True)
            self.rematch.on_connect(room, conn)
        return room, conn

    async def disconnect(self, room: Room, conn: Conn) -> None:
        async with room.lock:
            self.fanout.remove(conn)
            room.last_active = self.clock()  # the idle period starts when the last one leaves
            await self.peers.presence_changed(room, here=True)
            self.rematch.socket_closed(room, conn.seat)

    async def handle(self, room: Room, conn: Conn, msg: Any) -> None:
        """Answer one parsed client message. Never raises for bad input."""
        msg_id = msg.id
        try:
            if isinstance(msg, Ping):
                self.frames.send(
                    room,
                    conn,
                    PongFrame(msg_id, int(self.clock() * 1000)).encode(),
                )
                return
            if isinstance(msg, Sync):
                async with room.lock:
                    if self.multi:
                        await self.peers.refresh(room)
                    self.frames.send_view(room, conn)
                return
            if isinstance(msg, Hint):  # thought out off the lock (and off the event loop)
                await self.chat.hint(room, conn, msg_id)
                return
            async with room.lock:
                await self._locked_message(room, conn, msg)
        except ServiceError as exc:
            self.frames.send(room, conn, error_frame(exc.code, exc.message, msg_id).encode())
        except Unconfirmed:
            # Neither "saved" nor "not saved": the client learns the outcome when it resyncs.
            self.forget(room)
            self.frames.send(room, conn, error_frame("unconfirmed", UNCONFIRMED, msg_id).encode())
        except NotSaved:
            # Logged where it failed; the room is as it was before the message.
            self.frames.send(room, conn, error_frame("server_error", NOT_SAVED, msg_id).encode())
        except Exception:  # never let one message kill the socket or the game
            log.exception("error handling %r in %s", type(msg).__name__, room.row.code)
            self.frames.send(
                room,
                conn,
                error_frame(
                    "server_error",
                    "Something went wrong on the server; nothing was changed.",
                    msg_id,
                ).encode(),
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
                    await self.match.act(room, conn, msg)
                    return
                if isinstance(msg, Chat):
                    await self.chat.chat(room, conn.seat, msg.text)
                elif isinstance(msg, ChatRead):
                    await self.chat.chat_read(room, conn.seat)
                elif isinstance(msg, Leave):
                    await self.lobby.leave_seat(room, conn.seat)
                elif isinstance(msg, Start):
                    await self.lobby.start_game(room, conn.seat)
                elif isinstance(msg, AddBot):
                    await self.lobby.add_bot(room, conn.seat, msg.difficulty)
                elif isinstance(msg, Rematch):
                    await self.rematch.answer(room, conn, msg.accept)
                self.frames.send(room, conn, self.frames.ack(room, conn.seat, msg.id))
                return
            except Stale:
                await self.peers.refresh(room)
            except ServiceError:
                if attempt == 2 or not self.multi or not await self.peers.refresh(room):
                    raise
            if isinstance(msg, Act):
                self.frames.stale(room, conn, msg.id)
                return
        raise ServiceError("busy", "The game is changing fast; please try again.", 503)
