"""The other processes serving the same site (the bus, service/bus.py): what this process tells
them after each commit, and what it does when they tell it something.

Events carry no view and nothing hidden: a process that hears of a change reloads the game from
the database and sends each of its own sockets what changed for that socket's seat."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from gameshack.protocol.outbound import (
    RoomFrame,
)
from gameshack.service.ports import (
    GameRow,
)
from gameshack.service.room import (
    Room,
)
from gameshack.worker import LOBBY_ROWS

if TYPE_CHECKING:
    from gameshack.service.runner import GameService


class Peers:
    def __init__(self, svc: GameService) -> None:
        self.svc = svc
        self._presence_at = 0.0

    async def fill(self, room: Room, row: GameRow, *, everything: bool = True) -> None:
        """Put the stored game ``row`` into ``room``: its state, and (``everything``) its chat
        and who is online. A refresh after another process's move skips those two: chat and
        presence arrive as their own events (a lost event makes the bus ask for everything).
        """
        state = await self.restore(room, row)  # (it reads the log: the room stays whole meanwhile)
        room.row, room.state = row, state
        bots = {s.seat for s in row.seats if s.bot}
        if not everything:
            room.online |= bots  # a bot seated elsewhere
            return
        room.chat = [(c.id, c.seat) for c in await self.svc.store.chat_history(row.code, 10_000)]
        others = await self.svc.bus.others_online(row.code) if self.svc.multi else set()
        room.online = self.svc.fanout.online(row.code) | others | bots

    async def restore(self, room: Room, row: GameRow) -> Any:
        """The engine state of the stored game ``row``: its stored state, and each logged
        action after that state's version up to the row's (a private move is stored as its
        action alone: ``Match.apply``). The lobby's rows are no moves."""
        if row.state is None:
            return None
        engine = room.kind.engine
        state = engine.state_from_dict(row.state)
        if row.state_v < row.version:
            for a in await self.svc.store.actions(row.code, after=row.state_v):
                if a.v > row.version:  # committed after the row was read: the next refresh's
                    break
                if a.seat is not None and a.action not in LOBBY_ROWS:
                    state = engine.apply(state, a.seat, engine.parse_action(a.action))
        return state

    async def refresh(self, room: Room, *, force: bool = False) -> bool:
        """Bring the room up to the stored game when another process changed it (caller holds
        the lock): reload it, and send each local socket what changed for its seat — a view
        whose content changed, else a ``room`` frame if only that changed; nothing otherwise,
        so a private turn elsewhere leaves no trace here either. The other process holds the
        game's timer from its commit on. Returns whether anything was reloaded."""
        row = await self.svc.store.load_game(room.row.code)
        if row is None:  # purged meanwhile
            self.svc.forget(room)
            return True
        if not force and row.version == room.row.version:
            return False
        if room.timer is not None and room.timer is not asyncio.current_task():
            room.timer.cancel()
        room.timer = None
        seats = {c.seat for c in self.svc.fanout.conns(row.code)}
        before = {s: self.svc.frames.room_dict(room, s) for s in seats if s < len(room.row.seats)}
        rematch = self.svc.rematch.mark(room)
        await self.fill(room, row, everything=force)
        self.svc.frames.baseline(room)
        contents = self.svc.frames.contents(room, room.state)
        changed = self.svc.frames.take(room, contents)
        self.svc.frames.publish(room, contents, changed)
        self.svc.frames.send_room_changed(room, before, skip=changed)
        self.svc.rematch.changed(room, rematch)
        return True

    async def presence_changed(self, room: Room, *, here: bool = False) -> None:
        """Who is online: the seats with a socket here or on another live process, and the
        bots. ``here``: a socket here opened or closed (the other processes are told)."""
        code = room.row.code
        local = self.svc.fanout.online(code)
        others: set[int] = set()
        if self.svc.multi:
            if here:
                await self.svc.bus.set_online(code, local)
                await self.svc.bus.publish(code, {"type": "presence"})
            others = await self.svc.bus.others_online(code)
        online = local | others | {s.seat for s in room.row.seats if s.bot}
        if online != room.online:
            before, room.online = room.online, online
            await self.svc.turnclock.presence(room, before)  # pause or resume the turn timer
            self.svc.frames.send_room_all(room)

    async def on_event(self, code: str, event: dict[str, Any]) -> None:
        """Another process committed a change to ``code``, a chat message, a read marker, or
        saw a socket come or go (the bus delivers only events of games this process has)."""
        room = self.svc.rooms.get(code)
        if room is None or room.retired:
            return
        async with room.lock:
            if room.retired:
                return
            what = event.get("type")
            if what == "changed":
                if int(event.get("version", 0)) > room.row.version:
                    await self.refresh(room)
            elif what == "resync":
                await self.refresh(room, force=True)
            elif what == "chat":
                message = event["msg"]
                self.svc.chat.chat_arrived(room, message)
                seat = room.row.seats[int(message["seat"])]
                seat.chat_read = max(seat.chat_read, int(message["id"]))
                self.svc.frames.send_room_all(room)
            elif what == "read":
                n = int(event["seat"])
                if n < len(room.row.seats):
                    s = room.row.seats[n]
                    s.chat_read = max(s.chat_read, int(event["id"]))
                    frame = RoomFrame(self.svc.frames.room_dict(room, n)).encode()
                    for conn in self.svc.fanout.conns(code):
                        if conn.seat == n:
                            self.svc.frames.send(room, conn, frame)
            elif what == "presence":
                await self.presence_changed(room)
            elif what == "watch_off":  # issue 33: the host revoked the watch link elsewhere
                self.svc.watch.close_all(room, "revoked")

    async def announce(self, room: Room) -> None:
        """Tell the other processes the game changed (they reload it from the database)."""
        if self.svc.multi:
            await self.svc.bus.publish(
                room.row.code, {"type": "changed", "version": room.row.version}
            )
