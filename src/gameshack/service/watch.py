"""Spectators (issue 33): a watch link per game, and what its watchers are sent.

A game's watch link is a random token (``games.watch_token``; None: watching is off), separate
from the join code: only the host can turn it on, and revoking it closes every watching socket
and refuses new ones. A non-practice game gets one when it is created; a practice game's is off
until its host turns it on.

A spectator is sent only what is public: ``engine.public_view(state)`` (never a hand or rack,
never a turn in progress or a pending discard) and the room's public fields
(:data:`PUBLIC_ROOM_FIELDS`), as a ``watching`` frame, plus the chat (read-only). A digest of
that content is kept per game, and a frame goes out only when it changed: a private turn (a
draw, a meld, a tile moved) changes nothing public, so it sends nothing, and no spectator can
tell one happened by a frame's timing. Spectators never see the join code.

Players see how many spectators are watching (``watchers`` in their ``room`` summary); the
count is this process's spectators of the game.
"""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING, Any

from gameshack.protocol.outbound import (
    ChatHistoryFrame,
    WatchClosedFrame,
    WatchingFrame,
)
from gameshack.service import turnclock
from gameshack.service.fanout import Conn
from gameshack.service.room import Room, ServiceError, chat_dict, digest, log

if TYPE_CHECKING:
    from gameshack.service.runner import GameService

__all__ = ["PUBLIC_ROOM_FIELDS", "WATCHER", "Watch"]

# The "seat" a spectator's socket has (``Conn.seat``) and its frames are observed under
# (``GameService.observer``): no seat at all.
WATCHER = -1
TOKEN_BYTES = 18  # 24 URL-safe characters (the column holds 32)
CLOSE_REVOKED = 4410  # asked for after ``watch_closed`` (the server may close with 1013)

# The room fields a spectator is sent: an allow-list, so that nothing added to the players'
# ``room`` summary reaches spectators by accident. Never the join ``code``, ``you``, the
# chat read markers, a seat's grace window. A new public field (e.g. a turn timer's clock, or
# a rematch offer) must be added here, and to ``Watch.room_dict``, to be shown to spectators.
PUBLIC_ROOM_FIELDS = (
    "game",
    "status",
    "seats",
    "target",
    "practice",
    "players",
    "to_act",
    "ended",
    "watchers",
    "clock",  # the turn timer: shown to everyone alike
)


class Watch:
    def __init__(self, svc: GameService) -> None:
        self.svc = svc
        self.conns: dict[str, set[Conn]] = {}  # game code -> its spectators' sockets here
        self.keys: dict[str, int] = {}  # game code -> digest of the content last sent
        self.per_address: dict[str, int] = {}  # open spectator sockets per client address
        self.address_of: dict[Conn, str] = {}

    def count(self, code: str) -> int:
        return len(self.conns.get(code, ()))

    # ------------------------------------------------------------------ the host's link

    def _host_of(self, room: Room, device: str | None) -> None:
        seat = self.svc.lobby.seat_of(room.row, device)
        if seat is None:
            raise ServiceError("not_seated", "This device has no seat in that game.", 403)
        if seat != room.row.host:
            raise ServiceError("not_host", "Only the host can change the watch link.", 403)

    async def link(self, code: str, device: str | None) -> str | None:
        """The game's watch token, for its host (None: watching is off)."""
        async with self.svc.locked(code) as room:
            self._host_of(room, device)
            return await self.svc.store.watch_token(room.row.code)

    async def enable(self, code: str, device: str | None) -> str:
        """Turn watching on (host only): the game's token, a new one if it had none."""
        async with self.svc.locked(code) as room:
            self._host_of(room, device)
            token = await self.svc.store.watch_token(room.row.code)
            if token is None:
                token = await self._new_token(room.row.code)
            return token

    async def _new_token(self, code: str) -> str:
        token = secrets.token_urlsafe(TOKEN_BYTES)
        await self.svc.write(self.svc.store.set_watch_token(code, token))
        return token

    async def created(self, code: str) -> None:
        """A new non-practice game: its watch link is on by default. A failure to save it
        leaves watching off (the host can turn it on); the game itself is created."""
        try:
            await self._new_token(code)
        except Exception:
            log.warning("the watch link of %s was not saved; watching is off", code)

    async def revoke(self, code: str, device: str | None) -> None:
        """Turn watching off (host only): the link stops working, and every spectator here
        (and, through the bus, on the other processes) is told and disconnected."""
        async with self.svc.locked(code) as room:
            self._host_of(room, device)
            await self.svc.write(self.svc.store.set_watch_token(room.row.code, None))
            self.close_all(room, "revoked")
            if self.svc.multi:
                await self.svc.bus.publish(room.row.code, {"type": "watch_off"})

    def close_all(self, room: Room, reason: str) -> None:
        frame = WatchClosedFrame(reason).encode()
        for conn in list(self.conns.get(room.row.code, ())):
            self.send(room, conn, frame)
            conn.close(CLOSE_REVOKED)

    # ------------------------------------------------------------------ spectators' sockets

    async def attach(self, token: str, address: str, conn_factory: Any) -> tuple[Room, Conn]:
        """Attach a spectator's socket to the game whose watch token is ``token``: send it the
        public content and the chat so far; the players' count goes up."""
        if not token or len(token) > 64:
            raise ServiceError("not_found", "This watch link does not work (any more).", 404)
        code = await self.svc.store.watched_game(token)
        if code is None:
            raise ServiceError("not_found", "This watch link does not work (any more).", 404)
        s = self.svc.settings
        async with self.svc.for_lobby(code) as room:
            # Under the lock: a revocation that got there first is seen.
            if await self.svc.store.watch_token(room.row.code) != token:
                raise ServiceError("not_found", "This watch link does not work (any more).", 404)
            # Checked with no wait before the count goes up: two sockets cannot both slip in.
            if s.watchers_per_address and self.per_address.get(address, 0) >= (
                s.watchers_per_address
            ):
                raise ServiceError(
                    "too_many_watchers",
                    f"You are already watching {s.watchers_per_address} times; close a tab.",
                    429,
                )
            if s.watchers_per_game and self.count(code) >= s.watchers_per_game:
                raise ServiceError(
                    "too_many_watchers",
                    f"This game already has {s.watchers_per_game} spectators; try later.",
                    429,
                )
            conn: Conn = conn_factory(room.row.code, WATCHER)
            self.conns.setdefault(room.row.code, set()).add(conn)
            self.per_address[address] = self.per_address.get(address, 0) + 1
            self.address_of[conn] = address
            self.publish(room, new=conn)
            history = await self.svc.store.chat_history(room.row.code)
            self.send(room, conn, ChatHistoryFrame([chat_dict(c) for c in history], 0).encode())
            self.svc.frames.send_room_all(room)  # the players' count (and so the spectators')
        return room, conn

    async def detach(self, room: Room, conn: Conn) -> None:
        async with room.lock:
            code = room.row.code
            conns = self.conns.get(code)
            if conns is None or conn not in conns:
                return
            conns.discard(conn)
            if not conns:
                del self.conns[code]
                self.keys.pop(code, None)
            address = self.address_of.pop(conn, "")
            left = self.per_address.get(address, 1) - 1
            if left > 0:
                self.per_address[address] = left
            else:
                self.per_address.pop(address, None)
            room.last_active = self.svc.clock()
            live = self.svc.rooms.get(code)
            if live is not None and not live.retired:
                self.svc.frames.send_room_all(live)

    # ------------------------------------------------------------------ what they are sent

    def room_dict(self, room: Room) -> dict[str, Any]:
        """The room's public fields (:data:`PUBLIC_ROOM_FIELDS`, in that order)."""
        row = room.row
        frames = self.svc.frames
        public = {
            "game": row.kind,
            "status": row.status,
            "seats": row.capacity,
            "target": row.target,
            "practice": row.practice,
            "players": frames.players(room),
            "to_act": frames.to_act(room) if row.status == "active" else [],
            "ended": row.ended,
            "watchers": self.count(row.code),
            "clock": turnclock.public(row.turn_clock),
        }
        return {k: public[k] for k in PUBLIC_ROOM_FIELDS}

    def content(self, room: Room) -> tuple[int, str]:
        state = None if room.state is None else room.kind.engine.public_view(room.state)
        frame = WatchingFrame(state, self.room_dict(room)).encode()
        return digest(frame), frame

    def publish(self, room: Room, new: Conn | None = None) -> None:
        """Send the public content to the game's spectators if it changed since last sent
        (and to a ``new`` spectator in any case). Called wherever the players are sent
        something (``Frames.publish``, the ``room`` frames, the chat); costs nothing for a game
        nobody watches."""
        code = room.row.code
        conns = self.conns.get(code)
        if not conns:
            return
        key, frame = self.content(room)
        if key != self.keys.get(code):
            self.keys[code] = key
            for conn in list(conns):
                self.send(room, conn, frame)
        elif new is not None:
            self.send(room, new, frame)

    def chat(self, room: Room, frame: str) -> None:
        """A chat message (``chat`` frame) to the game's spectators: read-only for them."""
        for conn in list(self.conns.get(room.row.code, ())):
            self.send(room, conn, frame)

    def send(self, room: Room, conn: Conn, frame: str) -> None:
        if self.svc.observer is not None:
            self.svc.observer(room, WATCHER, frame)
        conn.send(frame)
