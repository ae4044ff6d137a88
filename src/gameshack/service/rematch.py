"""Rematch (issue 33): at the end of a match every seat may ask for a new match with the same
players, seats, options and bot difficulties.

The offer lives in the finished game's row (``GameRow.rematch``: the seats that accepted,
declined or left), changed like anything else by a version compare-and-set, so several processes
agree on it. Bots accept at once. When the last human accepts, the new match is created, already
started, with the same seats (the same device hashes, so each human lands in their own seat) in
the same transaction that records its code on the old game (``Store.create_rematch``): of two
last accepts at once, on two processes, exactly one commits and the other finds the code.
A decline, or a seat whose every socket stays closed for ``leave_after`` seconds, closes the
offer; every seat is told (``rematch`` frames), and the start too (``rematch_started``).
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from typing import TYPE_CHECKING, Any

from gameshack.protocol.outbound import RematchFrame, RematchStartedFrame
from gameshack.service.codes import draw_code
from gameshack.service.fanout import Conn
from gameshack.service.ports import CodeTaken, GameRow, SeatRow
from gameshack.service.room import (
    NotSaved,
    Room,
    ServiceError,
    Stale,
    draft,
    log,
    swap,
)

if TYPE_CHECKING:
    from gameshack.service.runner import GameService

# A seat whose sockets all closed at a finished match's end has left the offer after this long
# (a reload or a dropped connection comes back well within it).
LEAVE_AFTER = 10.0


def offer_of(row: GameRow) -> dict[str, list[int]]:
    """The offer as lists of seats (a copy: the row's is never changed in place)."""
    o = row.rematch or {}
    return {k: sorted(int(s) for s in o.get(k, ())) for k in ("accepted", "declined", "left")}


def status_of(row: GameRow) -> str:
    if row.rematch_code:
        return "started"
    o = offer_of(row)
    return "closed" if o["declined"] or o["left"] else "open"


class Rematches:
    def __init__(self, svc: GameService) -> None:
        self.svc = svc
        self.leave_after = LEAVE_AFTER
        self._tasks: set[asyncio.Task[None]] = set()

    # ---- frames ----

    def frame(self, row: GameRow) -> str:
        o = offer_of(row)
        return RematchFrame(
            status_of(row), o["accepted"], o["declined"], o["left"], row.rematch_code
        ).encode()

    def tell_all(self, room: Room) -> None:
        frame = self.frame(room.row)
        for conn in self.svc.fanout.conns(room.row.code):
            self.svc.frames.send(room, conn, frame)

    def started_all(self, room: Room) -> None:
        assert room.row.rematch_code is not None
        frame = RematchStartedFrame(room.row.rematch_code).encode()
        for conn in self.svc.fanout.conns(room.row.code):
            self.svc.frames.send(room, conn, frame)

    def on_connect(self, room: Room, conn: Conn) -> None:
        """A socket opened on a finished game: the offer so far, if there is one."""
        row = room.row
        if row.status == "finished" and (row.rematch is not None or row.rematch_code):
            self.svc.frames.send(room, conn, self.frame(row))

    @staticmethod
    def mark(room: Room) -> tuple[Any, str | None]:
        return room.row.rematch, room.row.rematch_code

    def changed(self, room: Room, before: tuple[Any, str | None]) -> None:
        """The room was reloaded (another process changed it): tell this process's sockets what
        changed of the offer."""
        if self.mark(room) == before or room.row.status != "finished":
            return
        self.tell_all(room)
        if room.row.rematch_code and not before[1]:
            self.started_all(room)

    # ---- answers ----

    async def answer(self, room: Room, conn: Conn, accept: bool) -> None:
        """A seat accepts or declines (the caller holds the room's lock)."""
        row = room.row
        seat = conn.seat
        if row.status != "finished":
            raise ServiceError("not_finished", "A rematch can be asked for once the match is over.")
        if row.rematch_code:
            # Already started (a second tab, or a retry): this socket is told where to go.
            frame = RematchStartedFrame(row.rematch_code).encode()
            self.svc.frames.send(room, conn, frame)
            return
        if status_of(row) == "closed":
            raise ServiceError(
                "rematch_closed",
                "There will be no rematch: someone declined or left. Start a new game instead.",
                409,
            )
        offer = offer_of(row)
        if not accept:
            offer["accepted"] = [s for s in offer["accepted"] if s != seat]
            offer["declined"].append(seat)
            await self.save(room, offer)
            return
        if seat in offer["accepted"]:
            return  # said already
        bots = {s.seat for s in row.seats if s.bot is not None}
        offer["accepted"] = sorted({*offer["accepted"], seat, *bots})
        if set(offer["accepted"]) >= {s.seat for s in row.seats}:
            await self.start(room, offer)
        else:
            await self.save(room, offer)

    async def save(self, room: Room, offer: dict[str, list[int]]) -> None:
        """Commit the offer (compare-and-set: :class:`Stale` when another process changed the
        game first) and tell everyone."""
        new = draft(room)
        row = new.row
        expect = row.version
        row.rematch = offer
        row.version += 1
        row.updated_at = self.svc.clock()
        await self.svc.write(self.svc.store.save_game(row, expect_version=expect))
        swap(room, new)
        await self.svc.peers.announce(room)
        self.tell_all(room)

    async def start(self, room: Room, offer: dict[str, list[int]]) -> None:
        """Everyone accepted: create the new match (already started) and link it, in one
        transaction with the old game's compare-and-set."""
        svc = self.svc
        now = svc.clock()
        old = draft(room)
        orow = old.row
        expect = orow.version
        orow.rematch = offer
        orow.version += 1
        orow.updated_at = now
        seed = secrets.randbits(62)
        for _ in range(50):
            code = draw_code()
            nrow = GameRow(
                code=code,
                kind=orow.kind,
                status="waiting",
                capacity=len(orow.seats),
                target=orow.target,
                practice=orow.practice,
                difficulty=orow.difficulty,
                seed=seed,
                host=orow.host,
                seats=[
                    SeatRow(s.seat, s.name, s.emoji, s.device, bot=s.bot, joined_at=now)
                    for s in orow.seats
                ],
                created_at=now,
                updated_at=now,
                public_at=now,
                # the same turn timer, its clock not yet running (begin() starts it)
                turn_clock=None if orow.turn_clock is None else {"s": orow.turn_clock["s"]},
            )
            nroom = Room(row=nrow, kind=room.kind, v_base=svc.frames.new_v_base(), last_active=now)
            nroom.online = {s.seat for s in nrow.seats if s.bot is not None}
            begun = svc.lobby.begin(nroom)
            svc.frames.baseline(nroom)
            orow.rematch_code = code
            try:
                await svc.write(
                    svc.store.create_rematch(orow, nrow, action=begun, expect_version=expect)
                )
                break
            except CodeTaken:
                continue
        else:  # pragma: no cover - 31^5 codes
            raise ServiceError("busy", "Could not find a free game code; try again.", 503)
        swap(room, old)
        async with svc.load_lock:
            await svc.bus.watch(code)
            svc.rooms.setdefault(code, nroom)
        await svc.peers.announce(room)
        self.tell_all(room)
        self.started_all(room)
        async with svc.locked(code) as started:
            svc.timers.schedule(started)  # the bots' first moves

    # ---- leaving ----

    def socket_closed(self, room: Room, seat: int) -> None:
        """A socket of ``seat`` closed (the caller holds the lock): if that seat has none left
        at a finished match's end, it has left the offer unless it comes back in time."""
        row = room.row
        if row.status != "finished" or row.rematch_code or self.svc.closing:
            return
        if seat >= len(row.seats) or row.seats[seat].bot is not None:
            return
        if status_of(row) == "closed" or self._here(room, seat):
            return
        task = asyncio.get_running_loop().create_task(self._leave_later(row.code, seat))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _here(self, room: Room, seat: int) -> bool:
        local = any(c.seat == seat for c in self.svc.fanout.conns(room.row.code))
        return local or seat in room.online

    async def _leave_later(self, code: str, seat: int) -> None:
        await asyncio.sleep(self.leave_after)
        for _ in range(3):
            if self.svc.closing:
                return
            try:
                async with self.svc.locked(code) as room:
                    if self.svc.multi:
                        await self.svc.peers.refresh(room)
                        await self.svc.peers.presence_changed(room)
                    row = room.row
                    if row.status != "finished" or status_of(row) != "open":
                        return
                    if self._here(room, seat):
                        return
                    offer = offer_of(row)
                    offer["accepted"] = [s for s in offer["accepted"] if s != seat]
                    offer["left"].append(seat)
                    await self.save(room, offer)
                    return
            except Stale:
                continue
            except (NotSaved, ServiceError) as exc:
                log.warning(
                    "rematch: could not record that seat %d of %s left: %r", seat, code, exc
                )
                return

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
