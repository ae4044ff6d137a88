"""Idle rooms leave memory and come back exactly as they were.

The service runs on a real SQLite store; its clock is injected, so an idle period passes by
advancing it instead of waiting. Races are interleaved deterministically with the room lock
(asyncio locks are fair: waiters go first in, first out) and a store that can pause a commit.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from gameshack.protocol import parse_client
from gameshack.service import GameService, Settings
from gameshack.service.match import SNAPSHOT_EVERY
from gameshack.service.ports import ActionRow, GameRow
from gameshack.service.runner import Room
from gameshack.store import SqlStore

from .fakes import FakeConn

IDLE = 600.0


class Clock:
    def __init__(self) -> None:
        self.now = 1_900_000_000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class PausableStore(SqlStore):
    """The SQL store; ``pause_when(game, action)`` holds that commit until ``resume`` is set."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.pause_when: Callable[[GameRow, ActionRow | None], bool] | None = None
        self.paused = asyncio.Event()
        self.resume = asyncio.Event()

    async def save_game(self, game: GameRow, **kw: Any) -> None:
        if self.pause_when is not None and self.pause_when(game, kw.get("action")):
            self.pause_when = None
            self.paused.set()
            await self.resume.wait()
        await super().save_game(game, **kw)


@pytest.fixture
async def store(database_url: str) -> AsyncIterator[PausableStore]:
    s = PausableStore(database_url)
    await s.start()
    yield s
    await s.close()


def _service(store: PausableStore, clock: Clock, **over: Any) -> GameService:
    base: dict[str, Any] = {"grace_seconds": 0.05, "bot_delay": 0.0, "room_idle_seconds": IDLE}
    settings = Settings(data_dir=Path("."), database_url="", **{**base, **over})
    return GameService(store, settings, clock=clock)


async def _rummy(svc: GameService, *, practice: bool = False, seats: int = 2) -> str:
    row = await svc.create_game(
        "d0",
        game="rummy",
        seats=seats,
        target=None,
        practice=practice,
        difficulty="easy" if practice else None,
        name="Ana",
        emoji="🦊",
    )
    if not practice:
        await svc.join_game(row.code, "d1", "Ben", "🐻")  # full: the match starts
    return row.code


async def _send(svc: GameService, room: Room, conn: FakeConn, **msg: Any) -> dict[str, Any]:
    await svc.handle(room, conn, parse_client(json.dumps({**msg, "id": "x"})))
    return next(m for m in reversed(conn.out) if m.get("id") == "x")


async def _act(svc: GameService, room: Room, conn: FakeConn, action: str) -> dict[str, Any]:
    return await _send(svc, room, conn, type="act", v=conn.views()[-1]["v"], action=action)


async def _stored(store: PausableStore, code: str) -> GameRow:
    row = await store.load_game(code)
    assert row is not None
    return row


async def _settle(room: Room) -> None:
    """Wait until no grace window or bot step is pending (real time: they sleep for real).
    A bot step clears the timer while it holds the lock, so a held lock counts as pending."""
    for _ in range(1000):
        if room.timer is None and not room.lock.locked():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the game never came to wait on a human")


async def _look(svc: GameService, code: str, device: str) -> dict[str, Any]:
    """What a socket opened now is sent (its view, less the version; the chat history)."""
    room, conn = await svc.connect(code, device, FakeConn)
    await svc.disconnect(room, conn)
    view = dict(conn.views()[-1])
    view.pop("v")  # a per-seat counter from a fresh base each time the room is loaded
    history = next(m for m in conn.out if m["type"] == "chat_history")
    return {"view": view, "chat": history}


async def _deal_and_take_a_turn(svc: GameService, code: str) -> tuple[Room, FakeConn, FakeConn]:
    room, c0 = await svc.connect(code, "d0", FakeConn)
    _, c1 = await svc.connect(code, "d1", FakeConn)
    assert (await _act(svc, room, c0, "deal"))["type"] == "ack"
    assert (await _act(svc, room, c1, "deal"))["type"] == "ack"
    me = (c0, c1)[room.state.turn]
    assert (await _act(svc, room, me, "draw"))["type"] == "ack"
    card = next(a for a in me.views()[-1]["legal"] if a.startswith("discard")).split()[1]
    assert (await _act(svc, room, me, f"discard {card}"))["type"] == "ack"
    return room, c0, c1


async def test_an_idle_game_leaves_memory_and_comes_back_exactly(store: PausableStore) -> None:
    clock = Clock()
    svc = _service(store, clock)
    await svc.start()
    code = await _rummy(svc)
    room, c0, c1 = await _deal_and_take_a_turn(svc, code)
    await _settle(room)  # the discard's grace window ends: committed for everyone
    assert (await _send(svc, room, c0, type="chat", text="your go"))["type"] == "ack"
    await svc.disconnect(room, c0)
    await svc.disconnect(room, c1)
    before = {d: await _look(svc, code, d) for d in ("d0", "d1")}
    assert before["d1"]["view"]["room"]["chat_unread"] == 1  # Ben has not read Ana's message

    clock.advance(IDLE - 1)
    assert await svc.evict_idle() == []
    clock.advance(1)
    assert await svc.evict_idle() == [code]
    assert code not in svc.rooms and room.retired

    # Reconnecting reloads the game from the store: every seat sees exactly what it saw.
    after = {d: await _look(svc, code, d) for d in ("d0", "d1")}
    assert after == before
    fresh = svc.rooms[code]
    assert fresh is not room
    assert fresh.row.version == room.row.version
    assert json.dumps(fresh.kind.engine.state_to_dict(fresh.state), sort_keys=True) == json.dumps(
        room.row.state, sort_keys=True
    )

    # ... and play goes on.
    seat = fresh.state.turn
    fresh, conn = await svc.connect(code, f"d{seat}", FakeConn)
    assert (await _act(svc, fresh, conn, "draw"))["type"] == "ack"
    assert (await _stored(store, code)).version == room.row.version + 1
    await svc.close()


async def test_a_practice_game_reloads_with_its_bots_and_plays_on(store: PausableStore) -> None:
    clock = Clock()
    svc = _service(store, clock)
    code = await _rummy(svc, practice=True, seats=3)
    room, me = await svc.connect(code, "d0", FakeConn)
    await _settle(room)  # the bots deal first (they act at once) ...
    assert (await _act(svc, room, me, "deal"))["type"] == "ack"
    await _settle(room)  # ... and play until the human's turn
    assert room.kind.engine.to_act(room.state) == {0}
    await svc.disconnect(room, me)
    before = await _look(svc, code, "d0")
    memories = [s.memory for s in room.row.seats]

    clock.advance(IDLE)
    assert await svc.evict_idle() == [code]
    after = await _look(svc, code, "d0")
    assert after == before
    assert all(p["online"] for p in after["view"]["room"]["players"][1:])  # bots are present
    fresh = svc.rooms[code]
    assert [s.memory for s in fresh.row.seats] == memories

    fresh, me = await svc.connect(code, "d0", FakeConn)
    assert (await _act(svc, fresh, me, "draw"))["type"] == "ack"
    card = next(a for a in me.views()[-1]["legal"] if a.startswith("discard")).split()[1]
    v = fresh.row.version
    assert (await _act(svc, fresh, me, f"discard {card}"))["type"] == "ack"
    await _settle(fresh)  # the grace window ends, then both bots take their turns
    assert fresh.row.version >= v + 3
    await svc.close()


async def test_a_socket_keeps_its_room_and_idleness_starts_when_it_closes(
    store: PausableStore,
) -> None:
    clock = Clock()
    svc = _service(store, clock)
    code = await _rummy(svc)
    room, conn = await svc.connect(code, "d1", FakeConn)
    clock.advance(10 * IDLE)
    assert await svc.evict_idle() == []
    assert svc.rooms[code] is room
    await svc.disconnect(room, conn)
    assert await svc.evict_idle() == []
    clock.advance(IDLE)
    assert await svc.evict_idle() == [code]
    await svc.close()


async def test_a_pending_grace_window_keeps_its_room(store: PausableStore) -> None:
    clock = Clock()
    svc = _service(store, clock, grace_seconds=3600.0)
    code = await _rummy(svc)
    room, c0, c1 = await _deal_and_take_a_turn(svc, code)
    await svc.disconnect(room, c0)
    await svc.disconnect(room, c1)
    assert room.timer is not None and room.row.grace_deadline is not None
    clock.advance(10 * IDLE)
    assert await svc.evict_idle() == []
    assert svc.rooms[code] is room
    await svc.close()


async def test_bots_with_turns_pending_keep_a_practice_room(store: PausableStore) -> None:
    clock = Clock()
    svc = _service(store, clock, bot_delay=3600.0)
    code = await _rummy(svc, practice=True, seats=3)
    room = svc.rooms[code]
    assert room.timer is not None  # the bots' first-deal draws wait on their (slow) timer
    clock.advance(10 * IDLE)  # the human never opened the page
    assert await svc.evict_idle() == []
    assert svc.rooms[code] is room
    await svc.close()


async def test_a_join_queued_behind_the_sweep_lands_on_a_reloaded_room(
    store: PausableStore,
) -> None:
    clock = Clock()
    svc = _service(store, clock)
    row = await svc.create_game(
        "d0",
        game="tiles",
        seats=3,
        target=None,
        practice=False,
        difficulty=None,
        name="Ana",
        emoji="🦊",
    )
    code = row.code
    old = svc.rooms[code]
    clock.advance(IDLE)
    await old.lock.acquire()  # something is in flight on the room (and changes nothing)
    sweep = asyncio.create_task(svc.evict_idle())
    await asyncio.sleep(0)  # the sweep queues for the lock first ...
    join = asyncio.create_task(svc.join_game(code, "d1", "Ben", "🐻"))
    await asyncio.sleep(0)  # ... the join, holding the old room, second
    old.lock.release()
    assert await sweep == [code]
    assert (await join)[1] == 1
    new = svc.rooms[code]
    assert new is not old and old.retired
    assert [s.name for s in old.row.seats] == ["Ana"]  # nothing landed on the dropped copy
    assert [s.name for s in new.row.seats] == ["Ana", "Ben"]
    assert [s.name for s in (await _stored(store, code)).seats] == ["Ana", "Ben"]

    # The other order: a join queued first uses the room, and the sweep then leaves it be.
    clock.advance(IDLE)
    await new.lock.acquire()
    join = asyncio.create_task(svc.join_game(code, "d2", "Cy", "🐱"))
    await asyncio.sleep(0)
    sweep = asyncio.create_task(svc.evict_idle())
    await asyncio.sleep(0)
    new.lock.release()
    assert (await join)[1] == 2
    assert await sweep == []
    assert svc.rooms[code] is new and not new.retired
    await svc.close()


async def test_a_socket_queued_behind_the_sweep_attaches_to_the_reloaded_room(
    store: PausableStore,
) -> None:
    clock = Clock()
    svc = _service(store, clock)
    code = await _rummy(svc)
    old = svc.rooms[code]
    clock.advance(IDLE)
    await old.lock.acquire()
    sweep = asyncio.create_task(svc.evict_idle())
    await asyncio.sleep(0)
    connect = asyncio.create_task(svc.connect(code, "d0", FakeConn))
    await asyncio.sleep(0)
    old.lock.release()
    assert await sweep == [code]
    room, conn = await connect
    assert room is svc.rooms[code] and room is not old
    assert (await _act(svc, room, conn, "deal"))["type"] == "ack"
    assert old.row.version == room.row.version - 1
    assert (await _stored(store, code)).version == room.row.version
    clock.advance(10 * IDLE)
    assert await svc.evict_idle() == []  # the socket now holds the new room
    await svc.close()


async def test_a_bot_step_in_flight_is_never_cut_off(store: PausableStore) -> None:
    # While a bot's step commits, its room has no socket and no timer: only the lock guards it.
    clock = Clock()
    svc = _service(store, clock)
    store.pause_when = lambda game, action: action is not None and action.seat == 1
    code = await _rummy(svc, practice=True, seats=2)
    room = svc.rooms[code]
    await store.paused.wait()  # the bot's first-deal draw is being committed
    assert room.timer is None and room.lock.locked()
    clock.advance(10 * IDLE)
    sweep = asyncio.create_task(svc.evict_idle())
    await asyncio.sleep(0)
    store.resume.set()
    assert await sweep == []
    assert svc.rooms[code] is room and not room.retired
    v = room.row.version
    assert (await _stored(store, code)).version == v

    clock.advance(IDLE)
    assert await svc.evict_idle() == [code]
    fresh = await svc.room(code)
    assert fresh.row.version == v
    assert fresh.row.seats[1].memory == room.row.seats[1].memory
    await svc.close()


async def test_no_eviction_when_the_idle_period_is_zero(store: PausableStore) -> None:
    clock = Clock()
    svc = _service(store, clock, room_idle_seconds=0.0)
    code = await _rummy(svc)
    await svc.start()
    assert svc._sweeper is None
    clock.advance(1e9)
    assert await svc.evict_idle() == []
    assert code in svc.rooms
    await svc.close()


async def test_the_sweep_task_evicts_by_itself(store: PausableStore) -> None:
    clock = Clock()
    svc = _service(store, clock)
    svc.sweep_every = 0.01  # real seconds between sweeps; idleness is on the injected clock
    code = await _rummy(svc)
    await svc.start()
    await asyncio.sleep(0.1)
    assert code in svc.rooms
    clock.advance(IDLE)
    for _ in range(500):
        if code not in svc.rooms:
            break
        await asyncio.sleep(0.01)
    assert code not in svc.rooms
    await svc.close()
    assert svc._sweeper is None


async def test_a_private_move_is_stored_as_its_action_and_a_load_replays_it(
    store: PausableStore,
) -> None:
    """A move no other seat sees (a draw, a discard in its window, an undo) is committed as its
    action alone; the stored state is that of the last change others saw, so whose turn it
    is reads right from it. Another service on the same database (a restart) replays the
    actions after it and has the very same game; and the stored state is never more than
    ``SNAPSHOT_EVERY`` versions behind."""
    clock = Clock()
    svc = _service(store, clock, grace_seconds=3600)  # the discard's window stays open
    code = await _rummy(svc)
    room, c0 = await svc.connect(code, "d0", FakeConn)
    _, c1 = await svc.connect(code, "d1", FakeConn)
    assert (await _act(svc, room, c0, "deal"))["type"] == "ack"
    assert (await _act(svc, room, c1, "deal"))["type"] == "ack"
    dealt = await _stored(store, code)
    assert dealt.state_v == dealt.version  # the deal: everyone saw it
    engine = room.kind.engine

    async def same_game_on_load(device: str) -> GameRow:
        stored = await _stored(store, code)
        public = engine.state_from_dict(stored.state)
        assert engine.to_act(public) == engine.to_act(room.state)
        other = _service(store, clock, grace_seconds=3600)
        loaded = await other.room(code)
        assert engine.state_to_dict(loaded.state) == engine.state_to_dict(room.state)
        seen = [(await _look(s, code, device))["view"] for s in (other, svc)]
        for view in seen:
            view.pop("room")  # who is online: this service has the sockets
        assert seen[0] == seen[1]
        await other.close()
        return stored

    me, device = (c0, "d0") if room.state.turn == 0 else (c1, "d1")
    assert (await _act(svc, room, me, "draw"))["type"] == "ack"
    card = next(a for a in me.views()[-1]["legal"] if a.startswith("discard")).split()[1]
    assert (await _act(svc, room, me, f"discard {card}"))["type"] == "ack"
    stored = await same_game_on_load(device)
    assert (stored.state_v, stored.version) == (dealt.version, dealt.version + 2)
    assert [a.action for a in await store.actions(code, after=stored.state_v)] == [
        "draw",
        f"discard {card}",
    ]
    assert stored.state == dealt.state

    for _ in range(SNAPSHOT_EVERY):  # a long private turn: take the discard back, again and again
        assert (await _act(svc, room, me, "undo"))["type"] == "ack"
        assert (await _act(svc, room, me, f"discard {card}"))["type"] == "ack"
        stored = await _stored(store, code)
        assert stored.version - stored.state_v < SNAPSHOT_EVERY
    assert stored.state_v > dealt.version
    await same_game_on_load(device)
    await svc.close()
