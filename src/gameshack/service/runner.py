"""The authoritative match runner: one writer per game.

Every change to a game happens under that game's lock, through one pipeline:
parse -> authorize the seat -> check the version -> apply in the engine -> persist (committed)
-> acknowledge -> broadcast a per-seat ``view`` to every connection. Bots, the end of a grace
window and humans all go through :meth:`GameService._apply`.

The only game content that leaves this module is ``engine.view(state, seat).to_dict()`` for the
receiving seat (and a hint computed from that same view).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import random
import secrets
import time
from collections import deque
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import orjson

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
from gameshack.rules.common import IllegalAction, derive_seed
from gameshack.service.fanout import Conn, FanOut, LocalFanOut
from gameshack.service.kinds import Kind, kind
from gameshack.service.ports import ActionRow, CodeTaken, GameRow, RecordRow, SeatRow, Store
from gameshack.service.settings import Settings

__all__ = ["CODE_ALPHABET", "GameService", "ServiceError", "device_hash"]

log = logging.getLogger("gameshack.service")

# No I, L, O, 0, 1: nothing a player can misread when a code is read out loud.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LEN = 5
CHAT_BURST = 5  # messages ...
CHAT_WINDOW = 10.0  # ... per this many seconds, per seat
DIFFICULTIES = ("easy", "medium", "hard")
RUMMY_TARGETS = (None, 100, 200, 300, 500)


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


@dataclass
class Room:
    row: GameRow
    kind: Kind
    state: Any = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    view_key: dict[int, str] = field(default_factory=dict)  # last game content sent, per seat
    view_v: dict[int, int] = field(default_factory=dict)  # version of that content, per seat
    timer: asyncio.Task[None] | None = None
    chat: list[tuple[int, int]] = field(default_factory=list)  # (chat id, seat)
    chat_times: dict[int, deque[float]] = field(default_factory=dict)
    online: set[int] = field(default_factory=set)
    # Eviction: when the room was last used (service clock), and whether the sweep dropped it
    # from ``GameService.rooms``. A retired room is never changed again; whoever finds one
    # holding its lock looks the game up afresh (see ``GameService._locked``).
    last_active: float = 0.0
    retired: bool = False


def _clean_name(name: str) -> str:
    name = " ".join(str(name).split())[:24]
    if not name:
        raise ServiceError("bad_name", "Please enter a display name.")
    return name


def _clean_emoji(emoji: str) -> str:
    emoji = str(emoji).strip()[:8]
    return emoji or "🙂"


class GameService:
    def __init__(
        self,
        store: Store,
        settings: Settings,
        fanout: FanOut | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.settings = settings
        self.fanout = fanout or LocalFanOut()
        self.clock = clock
        self.rooms: dict[str, Room] = {}
        self._load_lock = asyncio.Lock()
        self._closing = False
        # Idle rooms are dropped by a sweep this often (seconds, real time; 0: no sweep).
        idle = settings.room_idle_seconds
        self.sweep_every = min(60.0, idle / 4) if idle > 0 else 0.0
        self._sweeper: asyncio.Task[None] | None = None
        # Test hook: called with (room, seat, frame) for every frame sent to a socket.
        self.observer: Callable[[Room, int, str], None] | None = None
        self.bot_errors = 0

    # ------------------------------------------------------------------ life cycle

    async def start(self) -> None:
        """Resume every active game: pending grace windows and bot turns carry on. Then start
        the sweep that drops idle rooms from memory."""
        for row in await self.store.live_games():
            with contextlib.suppress(ServiceError):
                async with self._locked(row.code) as room:
                    self._schedule(room)
        if self.sweep_every > 0 and self._sweeper is None:
            self._sweeper = asyncio.get_running_loop().create_task(self._sweep())

    async def close(self) -> None:
        self._closing = True
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeper
            self._sweeper = None
        rooms = list(self.rooms.values())
        for room in rooms:
            if room.timer is not None:
                room.timer.cancel()
        for room in rooms:
            if room.timer is not None:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await room.timer

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
            row = await self.store.load_game(code)
            if row is None:
                return None
            room = Room(row=row, kind=kind(row.kind))
            if row.state is not None:
                room.state = room.kind.engine.state_from_dict(row.state)
            room.chat = [(c.id, c.seat) for c in await self.store.chat_history(code, 10_000)]
            room.online = {s.seat for s in row.seats if s.bot}
            room.last_active = self.clock()
            # A room evicted while idle had no timer; re-arming here is a no-op for it, and
            # retries a bot whose step failed (which would otherwise wait for a restart).
            self._schedule(room)
            self.rooms[code] = room
            return room

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
            log.debug("evicted %d idle rooms; %d in memory", len(evicted), len(self.rooms))
        return evicted

    async def _sweep(self) -> None:
        while True:
            await asyncio.sleep(self.sweep_every)
            try:
                await self.evict_idle()
            except Exception:  # the sweep must outlive any one bad room
                log.exception("room sweep failed")

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
    ) -> GameRow:
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
        name, emoji = _clean_name(name), _clean_emoji(emoji)
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
            )
            try:
                await self.store.create_game(row)
                break
            except CodeTaken:
                continue
        else:  # pragma: no cover - 31^5 codes
            raise ServiceError("busy", "Could not find a free game code; try again.", 503)
        if practice:
            async with self._locked(code) as room:
                await self._start_match(room)
        else:
            room = await self.room(code)
        return room.row

    async def join_game(self, code: str, device: str, name: str, emoji: str) -> tuple[GameRow, int]:
        async with self._locked(code) as room:
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
            row.seats.append(
                SeatRow(n, _clean_name(name), _clean_emoji(emoji), device, joined_at=self.clock())
            )
            row.updated_at = self.clock()
            await self.store.save_game(row, new_seats=[n])
            if row.kind == "rummy" and len(row.seats) == row.capacity:
                await self._start_match(room)
            else:
                self._send_room_all(room)
            return row, n

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
        row.seats.append(
            SeatRow(n, bot_name, bot_emoji, None, bot=difficulty, joined_at=self.clock())
        )
        room.online.add(n)
        row.updated_at = self.clock()
        await self.store.save_game(row, new_seats=[n])
        if row.kind == "rummy" and len(row.seats) == row.capacity:
            await self._start_match(room)
        else:
            self._send_room_all(room)

    async def start_game(self, room: Room, seat: int) -> None:
        row = room.row
        if row.kind != "tiles":
            raise ServiceError(
                "not_waiting", "A Rummy game starts by itself once every seat is filled."
            )
        if seat != row.host:
            raise ServiceError("not_host", "Only the host can start the game.")
        if row.status != "waiting":
            raise ServiceError("not_waiting", "The game has already started.")
        if len(row.seats) < 2:
            raise ServiceError("not_enough_players", "At least 2 players are needed to start.")
        await self._start_match(room)

    async def _start_match(self, room: Room) -> None:
        row = room.row
        row.capacity = len(row.seats)
        state = room.kind.engine.new_match(room.kind.config(len(row.seats), row.target), row.seed)
        row.status = "active"
        row.version += 1
        row.state = room.kind.engine.state_to_dict(state)
        row.updated_at = self.clock()
        await self.store.save_game(
            row, action=ActionRow(row.code, row.version, None, "start", row.updated_at)
        )
        room.state = state
        self._publish(room)
        self._schedule(room)

    async def leave(self, code: str, device: str) -> None:
        async with self._locked(code) as room:
            seat = self._seat_of(room.row, device)
            if seat is None:
                raise ServiceError("not_seated", "You are not seated in that game.", 403)
            await self._leave(room, seat)

    async def _leave(self, room: Room, seat: int) -> None:
        row = room.row
        if row.status == "ended":
            return
        if row.status == "finished":
            raise ServiceError("finished", "That game is already over.")
        reason = "cancelled" if row.status == "waiting" else "left"
        row.status = "ended"
        row.ended = {"reason": reason, "seat": seat, "name": row.seats[seat].name}
        row.grace_deadline = None
        row.grace_seat = None
        row.version += 1
        row.updated_at = self.clock()
        if room.timer is not None:
            room.timer.cancel()
            room.timer = None
        await self.store.save_game(
            row, action=ActionRow(row.code, row.version, seat, reason, row.updated_at)
        )
        frame = _dumps({"type": "ended", **row.ended})
        for conn in self.fanout.conns(row.code):
            self._send(room, conn, frame)
        self._publish(room, force=True)

    async def my_games(self, device: str) -> list[dict[str, Any]]:
        out = []
        for row in await self.store.games_for_device(device):
            room = await self._room(row.code, touch=False)
            if room is None or room.row.status not in ("waiting", "active"):
                continue
            seat = self._seat_of(room.row, device)
            if seat is None:
                continue
            to_act = self._to_act(room)
            out.append(
                {
                    **self._summary(room, seat),
                    "to_act": to_act,
                    "your_turn": seat in to_act,
                    "turn_names": [room.row.seats[s].name for s in to_act],
                    "updated_at": time.strftime(
                        "%Y-%m-%dT%H:%M:%SZ", time.gmtime(room.row.updated_at)
                    ),
                }
            )
        out.sort(key=lambda g: g["updated_at"], reverse=True)
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
        async with self._locked(code) as room:
            seat = self._seat_of(room.row, device)
            if seat is None:
                raise ServiceError("not_seated", "This device has no seat in that game.", 403)
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
            self._presence_changed(room)
        return room, conn

    async def disconnect(self, room: Room, conn: Conn) -> None:
        async with room.lock:
            self.fanout.remove(conn)
            room.last_active = self.clock()  # the idle period starts when the last one leaves
            self._presence_changed(room)

    def _presence_changed(self, room: Room) -> None:
        online = self.fanout.online(room.row.code) | {s.seat for s in room.row.seats if s.bot}
        if online != room.online:
            room.online = online
            self._send_room_all(room)

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
                    self._send_view(room, conn)
                return
            async with room.lock:
                if isinstance(msg, Act):
                    await self._act(room, conn, msg)
                    return
                if isinstance(msg, Chat):
                    await self._chat(room, conn.seat, msg.text)
                elif isinstance(msg, ChatRead):
                    await self._chat_read(room, conn.seat)
                elif isinstance(msg, Hint):
                    self._hint(room, conn, msg_id)
                    return
                elif isinstance(msg, Leave):
                    await self._leave(room, conn.seat)
                elif isinstance(msg, Start):
                    await self.start_game(room, conn.seat)
                elif isinstance(msg, AddBot):
                    await self.add_bot(room, conn.seat, msg.difficulty)
                self._send(room, conn, _dumps({"type": "ack", "id": msg_id, "v": room.row.version}))
        except ServiceError as exc:
            self._send(room, conn, _dumps(error_message(exc.code, exc.message, msg_id)))
        except Exception:  # never let one message kill the socket or the game
            log.exception("error handling %r in %s", type(msg).__name__, room.row.code)
            self._send(
                room,
                conn,
                _dumps(
                    error_message("server_error", "Something went wrong on the server.", msg_id)
                ),
            )

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
            self._send(
                room,
                conn,
                _dumps(
                    error_message(
                        "stale",
                        "The game moved on since your last update; here is the current state.",
                        msg.id,
                    )
                ),
            )
            self._send_view(room, conn)
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
        """Apply, persist, acknowledge, broadcast. Caller holds the lock. Raises IllegalAction."""
        row = room.row
        engine = room.kind.engine
        new_state = engine.apply(room.state, seat, action)
        now = self.clock()
        text = str(action)
        prev = (
            row.version,
            row.state,
            row.grace_deadline,
            row.grace_seat,
            row.status,
            row.hands_recorded,
        )
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
        dirty_seats = []
        prev_memory = None
        if memory is not None:
            prev_memory = row.seats[seat].memory
            row.seats[seat].memory = memory
            dirty_seats.append(seat)
        try:
            await self.store.save_game(
                row,
                seats=dirty_seats,
                action=ActionRow(row.code, row.version, seat, text, now),
                records=records,
            )
        except BaseException:
            # Not committed: nothing happened. Restore the row as it was.
            (
                row.version,
                row.state,
                row.grace_deadline,
                row.grace_seat,
                row.status,
                row.hands_recorded,
            ) = prev
            if memory is not None:
                row.seats[seat].memory = prev_memory
            raise
        room.state = new_state
        room.last_active = self.clock()  # activity counts when it ends (the commit took time)
        if ack is not None:
            conn, msg_id = ack
            self._send(room, conn, _dumps({"type": "ack", "id": msg_id, "v": row.version}))
        self._publish(room)
        self._schedule(room)

    def _records(self, room: Room, state: Any, now: float) -> list[RecordRow]:
        """Stats records for hands/rounds (and the match) that ended with this action."""
        row = room.row
        k = room.kind
        out: list[RecordRow] = []
        finished = k.hands_finished(state)
        names = [s.name for s in row.seats]
        emojis = [s.emoji for s in row.seats]
        bots = [s.bot is not None for s in row.seats]
        if finished > row.hands_recorded:
            hand = k.hand_outcome(state)
            if hand is not None:
                out.append(
                    RecordRow(
                        row.code,
                        row.kind,
                        "hand",
                        finished,
                        names,
                        emojis,
                        bots,
                        list(hand.scores),
                        list(hand.winners),
                        hand.reason.value,
                        row.created_at,
                        now,
                        row.practice,
                    )
                )
            row.hands_recorded = finished
        match = k.match_outcome(state)
        if match is not None and row.status == "active":
            row.status = "finished"
            out.append(
                RecordRow(
                    row.code,
                    row.kind,
                    "match",
                    finished,
                    names,
                    emojis,
                    bots,
                    list(match.scores),
                    list(match.winners),
                    match.reason.value,
                    row.created_at,
                    now,
                    row.practice,
                )
            )
        return out

    # ------------------------------------------------------------------ timers: grace + bots

    def _schedule(self, room: Room) -> None:
        """Arm the one timer a game may have: the grace window's end, or the next bot step."""
        if room.timer is not None and room.timer is not asyncio.current_task():
            room.timer.cancel()
        room.timer = None
        row = room.row
        if self._closing or row.status != "active" or room.state is None:
            return
        if row.grace_deadline is not None:
            delay = max(0.0, row.grace_deadline - self.clock())
            room.timer = asyncio.get_running_loop().create_task(
                self._grace_end(room, row.version, delay)
            )
            return
        seat = self._bot_to_act(room)
        if seat is not None:
            room.timer = asyncio.get_running_loop().create_task(
                self._bot_step(room, seat, row.version, self.settings.bot_delay)
            )

    def _bot_to_act(self, room: Room) -> int | None:
        to_act = room.kind.engine.to_act(room.state)
        humans_waited_on = any(room.row.seats[s].bot is None for s in to_act)
        # "Next hand/round" is the humans' call while one of them may still press it, so a
        # player gets to look at the result first.
        if humans_waited_on and room.kind.only_next(room.state):
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
            seat = (
                row.grace_seat
                if row.grace_seat is not None
                else min(room.kind.engine.to_act(room.state))
            )
            try:
                await self._apply(room, seat, room.kind.engine.parse_action("commit"))
            except IllegalAction:
                log.exception("commit refused in %s", row.code)
                row.grace_deadline = None
                self._schedule(room)

    async def _bot_step(self, room: Room, seat: int, version: int, delay: float) -> None:
        if delay > 0:
            await asyncio.sleep(delay)
        else:
            await asyncio.sleep(0)
        async with room.lock:
            room.timer = None
            row = room.row
            if row.version != version or row.status != "active":
                self._schedule(room)
                return
            engine = room.kind.engine
            difficulty = row.seats[seat].bot or "medium"
            rng = random.Random(derive_seed(row.seed, "bot", seat, row.version))
            view = engine.view(room.state, seat)
            memory = row.seats[seat].memory
            action: Any = None
            try:
                from gameshack.bots import decide

                action, memory = decide(row.kind, difficulty, view, memory, rng)
                if isinstance(action, str):
                    action = engine.parse_action(action)
                await self._apply(room, seat, action, memory=memory)
                return
            except Exception as exc:  # a bot bug must not stall the game
                self.bot_errors += 1
                log.warning("bot %s in %s failed on %r: %r", seat, row.code, action, exc)
            # Fall back to a random legal action so the game goes on.
            legal = [
                a
                for a in engine.legal_actions(room.state, seat)
                if not room.kind.server_only(str(a))
            ]
            try:
                if legal:
                    await self._apply(room, seat, rng.choice(legal))
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
        times.append(now)
        s = room.row.seats[seat]
        chat = await self.store.add_chat(room.row.code, seat, s.name, s.emoji, text, now)
        room.chat.append((chat.id, seat))
        s.chat_read = chat.id  # your own message is read
        frame = _dumps({"type": "chat", "msg": _chat_dict(chat)})
        for conn in self.fanout.conns(room.row.code):
            self._send(room, conn, frame)
        await self.store.save_game(room.row, seats=[seat])
        self._send_room_all(room)

    async def _chat_read(self, room: Room, seat: int) -> None:
        last = room.chat[-1][0] if room.chat else 0
        s = room.row.seats[seat]
        if s.chat_read != last:
            s.chat_read = last
            await self.store.save_game(room.row, seats=[seat])
        for conn in self.fanout.conns(room.row.code):
            if conn.seat == seat:
                self._send(
                    room, conn, _dumps({"type": "room", "room": self._room_dict(room, seat)})
                )

    def _unread(self, room: Room, seat: int) -> int:
        read = room.row.seats[seat].chat_read
        return sum(1 for cid, s in room.chat if cid > read and s != seat)

    def _hint(self, room: Room, conn: Conn, msg_id: str | None) -> None:
        if room.state is None or room.row.status != "active":
            raise ServiceError("no_hint", "There is nothing to hint at right now.")
        if conn.seat not in room.kind.engine.to_act(room.state):
            raise ServiceError("no_hint", "Hints are for your own turn.")
        from gameshack.bots import hint

        view = room.kind.engine.view(room.state, conn.seat)
        data = hint(room.row.kind, view)
        self._send(
            room,
            conn,
            _dumps({"type": "hint", "id": msg_id, "v": room.view_v.get(conn.seat), "hint": data}),
        )

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

    def _to_act(self, room: Room) -> list[int]:
        if room.state is None or room.row.status not in ("active", "finished"):
            return []
        return sorted(room.kind.engine.to_act(room.state))

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

    def _content(self, room: Room, seat: int) -> tuple[str, dict[str, Any] | None]:
        """The game content for one seat, as JSON: the engine's view and its legal actions;
        and its grace window (only the discarding seat's)."""
        row = room.row
        state = None
        legal: list[str] = []
        grace = None
        if room.state is not None:
            state = room.kind.engine.view(room.state, seat).to_dict()
            if row.status == "active":
                legal = room.kind.legal_strings(room.state, seat, state)
            if row.grace_deadline is not None and row.grace_seat == seat:
                grace = {"deadline": int(row.grace_deadline * 1000)}
        return _dumps({"state": state, "legal": legal}), grace

    def _refresh(
        self, room: Room, seat: int, force: bool = False
    ) -> tuple[str, dict[str, Any] | None]:
        body, grace = self._content(room, seat)
        row = room.row
        to_act = self._to_act(room) if row.status == "active" else []
        key = f"{body}|{grace}|{row.status}|{to_act}"
        if force or room.view_key.get(seat) != key:
            room.view_key[seat] = key
            room.view_v[seat] = row.version
        return body, grace

    def _view_frame(self, room: Room, seat: int, content: tuple[str, dict[str, Any] | None]) -> str:
        body, grace = content
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
        content = self._refresh(room, conn.seat)
        self._send(room, conn, self._view_frame(room, conn.seat, content))

    def _publish(self, room: Room, force: bool = False) -> None:
        """Send a new view to every connection whose seat's view changed (only those)."""
        conns = list(self.fanout.conns(room.row.code))
        frames: dict[int, str | None] = {}
        for conn in conns:
            if conn.seat not in frames:
                before = room.view_v.get(conn.seat)
                content = self._refresh(room, conn.seat, force)
                changed = force or before != room.view_v[conn.seat]
                frames[conn.seat] = self._view_frame(room, conn.seat, content) if changed else None
            frame = frames[conn.seat]
            if frame is not None:
                self._send(room, conn, frame)
        # Seats without a socket drop their cache: they get a fresh view when they connect.
        for seat in list(room.view_key):
            if seat not in frames:
                room.view_key.pop(seat, None)
                room.view_v.pop(seat, None)

    def _send_room_all(self, room: Room) -> None:
        for conn in self.fanout.conns(room.row.code):
            self._send(
                room, conn, _dumps({"type": "room", "room": self._room_dict(room, conn.seat)})
            )


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
    """A bot's random name and emoji (from the bots package when it offers them)."""
    for _ in range(20):
        try:
            from gameshack.bots import bot_identity

            name, emoji = bot_identity(rng)
        except ImportError:
            name, emoji = rng.choice(_FALLBACK_NAMES), "🤖"
        if name not in taken:
            return name, emoji
    return f"Bot {len(taken) + 1}", "🤖"
