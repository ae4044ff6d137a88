"""Chat (with its rate limit and read markers) and hints."""

from __future__ import annotations

import unicodedata
from collections import deque
from typing import TYPE_CHECKING, Any

from gameshack.protocol.messages import MAX_CHAT_CHARS
from gameshack.protocol.outbound import (
    ChatFrame,
    HintFrame,
    RoomFrame,
)
from gameshack.service.compute import Busy
from gameshack.service.fanout import Conn
from gameshack.service.room import (
    CHAT_BURST,
    CHAT_WINDOW,
    HINT_BUSY,
    HINT_TRIES,
    NotSaved,
    Room,
    ServiceError,
    Stale,
    chat_dict,
    draft,
    swap,
)
from gameshack.worker import hint_from_state

if TYPE_CHECKING:
    from gameshack.service.runner import GameService


_DROP = frozenset(("Cc", "Cs"))


class ChatAndHints:
    def __init__(self, svc: GameService) -> None:
        self.svc = svc

    async def chat(self, room: Room, seat: int, text: str) -> None:
        # Control characters (but line breaks and tabs) and lone surrogates are dropped: they
        # show as nothing, and PostgreSQL cannot store a NUL or a lone surrogate at all.
        text = "".join(c for c in text if c in "\n\t" or unicodedata.category(c) not in _DROP)
        text = text.strip()
        if not text:
            raise ServiceError("chat_empty", "Type a message first.")
        if len(text) > MAX_CHAT_CHARS:
            raise ServiceError(
                "chat_too_long", f"Messages are at most {MAX_CHAT_CHARS} characters."
            )
        now = self.svc.clock()
        times = room.chat_times.setdefault(seat, deque())
        while times and now - times[0] > CHAT_WINDOW:
            times.popleft()
        if len(times) >= CHAT_BURST:
            raise ServiceError(
                "chat_rate", "You are sending messages too fast; wait a few seconds."
            )
        s = room.row.seats[seat]
        chat = await self.svc.write(
            self.svc.store.add_chat(room.row.code, seat, s.name, s.emoji, text, now)
        )
        times.append(now)
        message = chat_dict(chat)
        if self.svc.multi:
            await self.svc.bus.publish(room.row.code, {"type": "chat", "msg": message})
        self.chat_arrived(room, message)
        # Your own message is read. Only a marker: the message itself is saved, so a failure
        # here is logged and the marker stays where it was (your own messages never count as
        # unread anyway).
        try:
            await self.save_read(room, seat, chat.id)
        except NotSaved:
            pass
        except Stale:
            await self.svc.peers.refresh(room)
        self.svc.frames.send_room_all(room)

    def chat_arrived(self, room: Room, message: dict[str, Any]) -> None:
        """A chat message committed (here or by another process): to every local socket."""
        if any(cid == message["id"] for cid, _ in room.chat[-50:]):
            return
        room.chat.append((message["id"], message["seat"]))
        frame = ChatFrame(message).encode()
        for conn in self.svc.fanout.conns(room.row.code):
            self.svc.frames.send(room, conn, frame)
        self.svc.watch.chat(room, frame)  # spectators read the chat

    async def save_read(self, room: Room, seat: int, last: int) -> None:
        """Commit the seat's read marker (only if the game is still at this version: a seat
        row is written with its game row) and tell the other processes."""
        if room.row.seats[seat].chat_read >= last:
            return
        new = draft(room)
        new.row.seats[seat].chat_read = last
        await self.svc.write(
            self.svc.store.save_game(new.row, seats=[seat], expect_version=room.row.version)
        )
        swap(room, new)
        if self.svc.multi:
            await self.svc.bus.publish(room.row.code, {"type": "read", "seat": seat, "id": last})

    async def chat_read(self, room: Room, seat: int) -> None:
        await self.save_read(room, seat, room.chat[-1][0] if room.chat else 0)
        frame = RoomFrame(self.svc.frames.room_dict(room, seat)).encode()
        for conn in self.svc.fanout.conns(room.row.code):
            if conn.seat == seat:
                self.svc.frames.send(room, conn, frame)

    async def hint(self, room: Room, conn: Conn, msg_id: str | None) -> None:
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
                state = room.kind.engine.state_to_dict(room.state)
                version, job = room.row.version, (room.row.kind, state, seat)
            try:
                data = await self.svc.compute.run(hint_from_state, *job, wait=False)
            except Busy:
                raise ServiceError("busy", HINT_BUSY) from None
            async with room.lock:
                if room.row.version == version:
                    frame = HintFrame(msg_id, room.view_v.get(seat), data)
                    self.svc.frames.send(room, conn, frame.encode())
                    return
        raise ServiceError("no_hint", "The game keeps moving; ask again in a moment.")
