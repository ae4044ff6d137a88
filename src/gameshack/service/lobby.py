"""The lobby: creating, joining, starting and leaving games, and the lists of games; with the
creation limits (per device and per address)."""

from __future__ import annotations

import asyncio
import random
import secrets
import time
import weakref
from typing import TYPE_CHECKING, Any

from gameshack.protocol.outbound import (
    EndedFrame,
)
from gameshack.rules.common import derive_seed
from gameshack.service.codes import draw_code
from gameshack.service.kinds import KINDS, kind
from gameshack.service.ports import (
    ActionRow,
    CodeTaken,
    GameRow,
    SeatRow,
)
from gameshack.service.room import (
    ADDRESS_FACTOR,
    DIFFICULTIES,
    MY_GAMES_LIMIT,
    NotSaved,
    Room,
    ServiceError,
    draft,
    duration,
    identity,
    new_bot_identity,
    swap,
)
from gameshack.service.turnclock import check_seconds
from gameshack.throttle import Limited, Rate

if TYPE_CHECKING:
    from gameshack.service.runner import GameService


# The targets the lobby offers, as the seeds say: Rummy races to 100/200/300/500 or plays on
# without one; Tile Rummy plays to 200.
TARGETS: dict[str, tuple[int | None, ...]] = {
    "rummy": (None, 100, 200, 300, 500),
    "tiles": (200,),
}


class Lobby:
    def __init__(self, svc: GameService) -> None:
        self.svc = svc
        # one creation at a time per device (the waiting-games count holds)
        self._create_locks: weakref.WeakValueDictionary[str, asyncio.Lock] = (
            weakref.WeakValueDictionary()
        )

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
        turn_seconds: int | None = None,
    ) -> GameRow:
        """Create a game (a practice game already started, in the same transaction).

        Limited per device and per ``address`` (the client's IP; an address may create
        ``ADDRESS_FACTOR`` times a device's allowance): ``games_per_hour`` games an hour, and
        ``waiting_games_per_device`` of its games waiting for players at once."""
        if game not in KINDS:
            raise ServiceError("bad_game", "Pick Rummy or Tile Rummy.")
        if not 2 <= seats <= 4:
            raise ServiceError("bad_seats", "A game has 2 to 4 seats.")
        offered = TARGETS[game]
        if len(offered) > 1:
            if target not in offered:
                raise ServiceError("bad_target", "The target must be none, 100, 200, 300 or 500.")
        else:  # the one target (a smaller one is for tests only)
            fixed = offered[0]
            assert fixed is not None
            if target is None or not (self.svc.settings.allow_seed and 1 <= target <= fixed):
                target = fixed
        if practice and difficulty not in DIFFICULTIES:
            raise ServiceError("bad_difficulty", "Pick Easy, Medium or Hard.")
        name, emoji = identity(name, emoji)
        turn_seconds = check_seconds(turn_seconds, testing=self.svc.settings.allow_seed)
        lock = self._create_locks.setdefault(device, asyncio.Lock())
        async with lock:  # one creation at a time per device: the waiting count holds
            buckets = self.creation_buckets(device, address)
            await self.over_creation_rate(buckets, "check")
            if not practice:
                await self.over_waiting_limit(device)
            await self.over_creation_rate(buckets, "hit")
            return await self.create(
                device, game, seats, target, practice, difficulty, name, emoji, seed, turn_seconds
            )

    def creation_buckets(self, device: str, address: str | None) -> list[tuple[str, str, Rate]]:
        per_hour = self.svc.settings.games_per_hour
        if per_hour <= 0:
            return []
        out = [("games/device", device, Rate(per_hour, 3600))]
        if address:
            out.append(("games/address", address, Rate(ADDRESS_FACTOR * per_hour, 3600)))
        return out

    async def over_creation_rate(self, buckets: list[tuple[str, str, Rate]], how: str) -> None:
        """Check (``how="check"``, counting nothing) or count (``"hit"``) one game created
        against every bucket; :class:`ServiceError` 429 with ``retry_after`` when over one."""
        for bucket, key, rate in buckets:
            try:
                await getattr(self.svc.throttle, how)(bucket, key, rate)
            except Limited as exc:
                who = "This device has" if bucket == "games/device" else "Your network has"
                wait = duration(exc.retry_after)
                raise ServiceError(
                    "too_many_games",
                    f"{who} created {rate.amount} games in the last hour; "
                    f"you can create another in {wait}.",
                    429,
                    exc.retry_after,
                ) from None

    async def over_waiting_limit(self, device: str) -> None:
        limit = self.svc.settings.waiting_games_per_device
        if limit <= 0:
            return
        rows = await self.svc.store.games_for_device(device)
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

    async def create(
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
        turn_seconds: int | None = None,
    ) -> GameRow:
        now = self.svc.clock()
        if seed is None or not self.svc.settings.allow_seed:
            seed = secrets.randbits(62)
        row_seats = [SeatRow(0, name, emoji, device, joined_at=now)]
        if practice:
            rng = random.Random(derive_seed(seed, "bot-names"))
            for n in range(1, seats):
                bot_name, bot_emoji = new_bot_identity(rng, {s.name for s in row_seats})
                row_seats.append(
                    SeatRow(n, bot_name, bot_emoji, None, bot=difficulty, joined_at=now)
                )
        k = kind(game)
        for _ in range(50):
            code = draw_code()  # issue 32: 5 letters, no confusables, no blocked words
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
                turn_clock=None if turn_seconds is None else {"s": turn_seconds},
            )
            room = Room(row=row, kind=k, v_base=self.svc.frames.new_v_base(), last_active=now)
            room.online = {s.seat for s in row.seats if s.bot}
            start = self.begin(room) if practice else None
            self.svc.frames.baseline(room)
            try:
                # A practice game is created already started: one transaction, so no "waiting"
                # practice game can ever be left behind.
                await self.svc.write(self.svc.store.create_game(row, action=start))
                break
            except CodeTaken:
                continue
            except NotSaved as exc:
                raise self.svc.not_saved(exc) from None
        else:  # pragma: no cover - 31^5 codes
            raise ServiceError("busy", "Could not find a free game code; try again.", 503)
        async with self.svc.load_lock:
            await self.svc.bus.watch(code)
            self.svc.rooms.setdefault(code, room)
        if practice:
            async with self.svc.locked(code) as room:
                self.svc.timers.schedule(room)  # the bots' first moves
        else:
            await self.svc.watch.created(code)  # issue 33: watching on by default
        return room.row

    async def join_game(self, code: str, device: str, name: str, emoji: str) -> tuple[GameRow, int]:
        name, emoji = identity(name, emoji)
        return await self.svc.retrying(lambda: self.join(code, device, name, emoji))

    async def join(self, code: str, device: str, name: str, emoji: str) -> tuple[GameRow, int]:
        async with self.svc.for_lobby(code) as room:
            row = room.row
            mine = self.seat_of(row, device)
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
                await self.take_seat(
                    room, SeatRow(n, name, emoji, device, joined_at=self.svc.clock())
                )
            except NotSaved as exc:
                raise self.svc.not_saved(exc, room) from None
            return room.row, n  # the committed row (a draft swapped in)

    async def take_seat(self, room: Room, seat: SeatRow) -> None:
        """Seat a player or a bot and commit it; a Rummy game that is now full starts in the
        same transaction (no full game is ever saved "waiting"). Raises NotSaved."""
        new = draft(room)
        row = new.row
        expect = row.version
        row.seats.append(seat)
        row.updated_at = row.public_at = self.svc.clock()
        start = None
        if room.kind.engine.starts_when_full and len(row.seats) == row.capacity:
            action = start = self.begin(new)
        else:
            row.version += 1
            action = ActionRow(row.code, row.version, seat.seat, "join", row.updated_at)
        await self.svc.write(
            self.svc.store.save_game(
                row, new_seats=[seat.seat], action=action, expect_version=expect
            )
        )
        swap(room, new)
        if seat.bot is not None:
            room.online.add(seat.seat)
        await self.svc.peers.announce(room)
        if start is not None:
            self.svc.frames.publish(room)
            self.svc.timers.schedule(room)
        else:
            self.svc.frames.send_room_all(room)

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
        bot_name, bot_emoji = new_bot_identity(rng, {s.name for s in row.seats})
        await self.take_seat(
            room, SeatRow(n, bot_name, bot_emoji, None, bot=difficulty, joined_at=self.svc.clock())
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
        new = draft(room)
        start = self.begin(new)
        await self.svc.write(
            self.svc.store.save_game(new.row, action=start, expect_version=row.version)
        )
        swap(room, new)
        await self.svc.peers.announce(room)
        self.svc.frames.publish(room)
        self.svc.timers.schedule(room)

    def begin(self, room: Room) -> ActionRow:
        """Start the match in the draft ``room`` (the caller commits the returned action with
        its row, then swaps it in)."""
        row = room.row
        row.capacity = len(row.seats)
        room.state = room.kind.engine.new_match(
            room.kind.config(len(row.seats), row.target), row.seed
        )
        row.status = "active"
        row.version += 1
        row.state = room.kind.engine.state_to_dict(room.state)
        row.state_v = row.version
        row.updated_at = row.public_at = self.svc.clock()
        self.svc.turnclock.after_change(room, room.state, public=True)
        self.svc.timers.set_due(room, room.state)
        return ActionRow(row.code, row.version, None, "start", row.updated_at)

    async def leave(self, code: str, device: str) -> None:
        await self.svc.retrying(lambda: self.leave_request(code, device))

    async def leave_request(self, code: str, device: str) -> None:
        async with self.svc.for_lobby(code) as room:
            seat = self.seat_of(room.row, device)
            if seat is None:
                raise ServiceError("not_seated", "You are not seated in that game.", 403)
            try:
                await self.leave_seat(room, seat)
            except NotSaved as exc:
                raise self.svc.not_saved(exc, room) from None

    async def leave_seat(self, room: Room, seat: int) -> None:
        row = room.row
        if row.status == "ended":
            return
        if row.status == "finished":
            raise ServiceError("finished", "That game is already over.")
        reason = "cancelled" if row.status == "waiting" else "left"
        new = draft(room)
        row = new.row
        expect = row.version
        row.status = "ended"
        row.ended = {"reason": reason, "seat": seat, "name": row.seats[seat].name}
        row.grace_deadline = None
        row.grace_seat = None
        row.due_at = None
        row.version += 1
        row.updated_at = row.public_at = self.svc.clock()
        await self.svc.write(
            self.svc.store.save_game(
                row,
                action=ActionRow(row.code, row.version, seat, reason, row.updated_at),
                expect_version=expect,
            )
        )
        swap(room, new)
        await self.svc.peers.announce(room)
        if room.timer is not None:
            room.timer.cancel()
            room.timer = None
        frame = EndedFrame(**row.ended).encode()
        for conn in self.svc.fanout.conns(row.code):
            self.svc.frames.send(room, conn, frame)
        self.svc.frames.publish(room, every=True)

    async def my_games(self, device: str) -> list[dict[str, Any]]:
        """The device's waiting and active games, most recent public change first (at most
        ``MY_GAMES_LIMIT``). A game not in memory is summarised from its stored row: listing
        games never loads rooms."""
        rows = await self.svc.store.games_for_device(device)
        rows.sort(key=lambda r: r.public_at, reverse=True)
        out = []
        for stored in rows[:MY_GAMES_LIMIT]:
            room = self.svc.rooms.get(stored.code)
            if room is None or room.retired:
                room = Room(row=stored, kind=kind(stored.kind))
                if stored.status == "active" and stored.state is not None:
                    room.state = room.kind.engine.state_from_dict(stored.state)
                room.online = {s.seat for s in stored.seats if s.bot}
            row = room.row
            if row.status not in ("waiting", "active"):
                continue
            seat = self.seat_of(row, device)
            if seat is None:
                continue
            to_act = self.svc.frames.to_act(room)
            out.append(
                {
                    **self.summary_for(room, seat),
                    "to_act": to_act,
                    "your_turn": seat in to_act,
                    "turn_names": [row.seats[s].name for s in to_act],
                    "public_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(row.public_at)),
                }
            )
        out.sort(key=lambda g: g["public_at"], reverse=True)
        return out

    def summary(self, room: Room, device: str | None) -> dict[str, Any]:
        seat = self.seat_of(room.row, device) if device else None
        row = room.row
        return {
            **self.summary_for(room, seat),
            "joined": len(row.seats),
            "joinable": row.status == "waiting" and len(row.seats) < row.capacity,
        }

    def summary_for(self, room: Room, seat: int | None) -> dict[str, Any]:
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
            "players": self.svc.frames.players(room),
            "url": f"/g/{row.code}",
        }

    @staticmethod
    def seat_of(row: GameRow, device: str | None) -> int | None:
        for s in row.seats:
            if device is not None and s.device == device:
                return s.seat
        return None
