"""Issue 28 in the match runner, on the in-memory store twin: lobby limits, the purge, bounded
games lists, sockets per seat, frames built once per seat, one transaction per transition,
names by the one rule, and writes that fail (an injected OSError) leaving nothing behind."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from gameshack.protocol import parse_client
from gameshack.service import GameService, ServiceError, Settings
from gameshack.service.ports import ActionRow, GameRow, WriteUnconfirmed
from gameshack.service.runner import Room
from gameshack.store import MemoryStore

from .fakes import FakeConn


class Clock:
    def __init__(self) -> None:
        self.now = 1_900_000_000.0

    def __call__(self) -> float:
        return self.now


class RecordingStore(MemoryStore):
    """The twin, recording every write; ``fail`` makes writes raise like a full disk."""

    def __init__(self) -> None:
        super().__init__()
        self.writes: list[tuple[str, Any]] = []
        self.fail = 0  # this many next writes fail

    def _maybe_fail(self) -> None:
        if self.fail:
            self.fail -= 1
            raise OSError(28, "No space left on device")

    async def create_game(self, game: GameRow, *, action: ActionRow | None = None) -> None:
        self._maybe_fail()
        self.writes.append(("create_game", (game.status, action)))
        await super().create_game(game, action=action)

    async def save_game(self, game: GameRow, **kw: Any) -> None:
        self._maybe_fail()
        self.writes.append(("save_game", (game.status, kw)))
        await super().save_game(game, **kw)

    async def add_chat(self, *a: Any, **kw: Any) -> Any:
        self._maybe_fail()
        return await super().add_chat(*a, **kw)


def _service(
    store: MemoryStore | None = None, *, clock: Clock | None = None, **over: Any
) -> GameService:
    base: dict[str, Any] = {"grace_seconds": 0.05, "bot_delay": 0.0, **over}
    settings = Settings(data_dir=Path("."), database_url="", **base)
    return GameService(store or MemoryStore(), settings, clock=clock or Clock())


async def _create(svc: GameService, device: str = "d0", **kw: Any) -> GameRow:
    args: dict[str, Any] = {
        "game": "rummy",
        "seats": 2,
        "target": None,
        "practice": False,
        "difficulty": None,
        "name": "Ana",
        "emoji": "🦊",
        **kw,
    }
    return await svc.create_game(device, **args)


async def _send(svc: GameService, room: Room, conn: FakeConn, **msg: Any) -> dict[str, Any]:
    await svc.handle(room, conn, parse_client(json.dumps({**msg, "id": "x"})))
    return next(m for m in reversed(conn.out) if m.get("id") == "x")


async def _act(svc: GameService, room: Room, conn: FakeConn, action: str) -> dict[str, Any]:
    return await _send(svc, room, conn, type="act", v=conn.views()[-1]["v"], action=action)


async def _two_player_rummy(svc: GameService) -> tuple[Room, FakeConn, FakeConn]:
    row = await _create(svc, seed=5)
    await svc.join_game(row.code, "d1", "Ben", "🐻")
    room, c0 = await svc.connect(row.code, "d0", FakeConn)
    _, c1 = await svc.connect(row.code, "d1", FakeConn)
    assert (await _act(svc, room, c0, "deal"))["type"] == "ack"
    assert (await _act(svc, room, c1, "deal"))["type"] == "ack"
    return room, c0, c1


# ------------------------------------------------------------------ point 2: the lobby


async def test_games_per_hour_per_device_and_per_address() -> None:
    svc = _service(games_per_hour=3, waiting_games_per_device=0)
    for _ in range(3):
        await _create(svc, "d0", address="10.0.0.1")
    with pytest.raises(ServiceError) as refused:
        await _create(svc, "d0", address="10.0.0.1")
    assert refused.value.status == 429 and refused.value.code == "too_many_games"
    assert 3500 < refused.value.retry_after <= 3601
    assert "This device has created 3 games" in refused.value.message
    # Other devices at the same address share 4x a device's allowance: 12 an hour.
    for i in range(9):
        await _create(svc, f"other{i % 3}", address="10.0.0.1")
    with pytest.raises(ServiceError) as refused:
        await _create(svc, "fresh", address="10.0.0.1")
    assert refused.value.status == 429 and "Your network has created 12 games" in (
        refused.value.message
    )
    await _create(svc, "fresh", address="10.0.0.2")  # another address is not affected
    await svc.close()


async def test_waiting_games_per_device() -> None:
    svc = _service(waiting_games_per_device=2)
    first = await _create(svc)
    await _create(svc, game="tiles")
    with pytest.raises(ServiceError) as refused:
        await _create(svc)
    assert refused.value.status == 409 and refused.value.code == "too_many_waiting"
    await _create(svc, practice=True, difficulty="easy")  # practice games never wait
    await svc.leave(first.code, "d0")  # cancelling one frees a place
    await _create(svc)
    await svc.close()


async def test_a_creation_flood_is_refused_without_reading_the_store() -> None:
    store = RecordingStore()
    svc = _service(store, games_per_hour=5, waiting_games_per_device=100)
    results = await asyncio.gather(
        *(_create(svc, "d0", address="10.0.0.9") for _ in range(200)), return_exceptions=True
    )
    made = [r for r in results if isinstance(r, GameRow)]
    refused = [r for r in results if isinstance(r, ServiceError)]
    assert len(made) == 5 and len(refused) == 195
    assert all(r.status == 429 and r.retry_after > 0 for r in refused)
    assert len(store.writes) == 5
    await svc.close()


async def test_purge_drops_abandoned_waiting_games_and_tells_their_sockets() -> None:
    clock = Clock()
    svc = _service(clock=clock, waiting_ttl=3600.0, chat_retention=7200.0)
    old = await _create(svc)
    room, conn = await svc.connect(old.code, "d0", FakeConn)
    clock.now += 1800
    young = await _create(svc, game="tiles")
    finished = await _create(svc, device="d5", game="tiles")
    froom, fconn = await svc.connect(finished.code, "d5", FakeConn)
    assert (await _send(svc, froom, fconn, type="chat", text="bye"))["type"] == "ack"
    await svc.leave(finished.code, "d5")
    clock.now += 1801
    assert await svc.purge() == (1, 0)
    assert old.code not in svc.rooms and room.retired
    assert conn.out[-1] == {"type": "ended", "reason": "expired", "seat": None, "name": None}
    assert await svc.store.load_game(old.code) is None
    with pytest.raises(ServiceError) as gone:
        await svc.join_game(old.code, "d1", "Ben", "🐻")
    assert gone.value.status == 404
    assert young.code in svc.rooms and await svc.store.load_game(young.code) is not None
    clock.now += 7200
    assert await svc.purge() == (1, 1)  # the young game too, now; the ended game's chat
    assert svc.rooms[finished.code].chat == []
    assert await svc.store.chat_history(finished.code) == []
    await svc.close()


async def test_the_purge_task_runs_by_itself() -> None:
    clock = Clock()
    svc = _service(clock=clock, waiting_ttl=60.0)
    svc.purge_every = 0.01
    row = await _create(svc)
    await svc.start()
    clock.now += 61
    for _ in range(300):
        if row.code not in svc.rooms:
            break
        await asyncio.sleep(0.01)
    assert row.code not in svc.rooms
    await svc.close()


async def test_my_games_is_bounded_and_loads_no_room() -> None:
    clock = Clock()
    store = MemoryStore()
    svc = _service(store, clock=clock, games_per_hour=0, waiting_games_per_device=0)
    codes = []
    for _ in range(130):
        clock.now += 1
        codes.append((await _create(svc)).code)
    svc.rooms.clear()  # as after a restart: nothing in memory
    loads = 0
    real_load = store.load_game

    async def counting_load(code: str) -> GameRow | None:
        nonlocal loads
        loads += 1
        return await real_load(code)

    store.load_game = counting_load  # type: ignore[method-assign]
    games = await svc.my_games("d0")
    assert len(games) == 100 and loads == 0 and not svc.rooms
    assert [g["code"] for g in games] == codes[::-1][:100]  # the latest first
    assert all("updated_at" not in g and g["public_at"].endswith("Z") for g in games)
    await svc.close()


# ------------------------------------------------------------------ point 3: sockets


async def test_sockets_per_seat_and_frames_built_once_per_seat() -> None:
    svc = _service(sockets_per_seat=3)
    room, _c0, c1 = await _two_player_rummy(svc)
    more = [(await svc.connect(room.row.code, "d0", FakeConn))[1] for _ in range(2)]
    with pytest.raises(ServiceError) as refused:
        await svc.connect(room.row.code, "d0", FakeConn)
    assert refused.value.code == "too_many_sockets" and refused.value.status == 429
    await svc.connect(room.row.code, "d1", FakeConn)  # the other seat has its own allowance
    await svc.disconnect(room, more[0])
    await svc.connect(room.row.code, "d0", FakeConn)  # a place was freed
    sent: list[tuple[int, str]] = []
    svc.observer = lambda _room, seat, frame: sent.append((seat, frame))
    assert (await _send(svc, room, c1, type="chat", text="hi"))["type"] == "ack"
    rooms = [(seat, frame) for seat, frame in sent if frame.startswith('{"type":"room"')]
    assert len(rooms) == 5  # one per socket ...
    assert len({id(frame) for _seat, frame in rooms}) == 2  # ... built once per seat
    await svc.close()


# ------------------------------------------------------------------ point 6: side channels


async def test_a_private_turn_leaves_no_trace_for_the_other_seat() -> None:
    clock = Clock()
    svc = _service(clock=clock, grace_seconds=3600.0)
    room, c0, c1 = await _two_player_rummy(svc)
    code = room.row.code
    turn = room.state.turn
    me, other = (c0, c1)[turn], (c0, c1)[1 - turn]
    my_device, other_device = f"d{turn}", f"d{1 - turn}"

    async def seen_by_other() -> tuple[int, str, str]:
        summary = svc.summary(await svc.room(code), other_device)
        games = await svc.my_games(other_device)
        return len(other.out), json.dumps(summary), json.dumps(games)

    clock.now += 5
    before = await seen_by_other()
    v_before = other.views()[-1]["v"]
    clock.now += 7
    assert (await _act(svc, room, me, "draw"))["type"] == "ack"
    for _ in range(3):  # melds and undos, when the hand has a meld ...
        meld = next((a for a in me.views()[-1]["legal"] if a.startswith("meld")), None)
        if meld is None:
            break
        clock.now += 7
        assert (await _act(svc, room, me, meld))["type"] == "ack"
        assert (await _act(svc, room, me, "undo"))["type"] == "ack"
    card = next(a for a in me.views()[-1]["legal"] if a.startswith("discard")).split()[1]
    clock.now += 7
    assert (await _act(svc, room, me, f"discard {card}"))["type"] == "ack"
    assert (await _act(svc, room, me, "undo"))["type"] == "ack"  # ... a discard taken back ...
    assert (await _act(svc, room, me, f"discard {card}"))["type"] == "ack"  # ... and again
    assert room.row.grace_deadline is not None
    assert await seen_by_other() == before  # no frame, the same summary and games list
    # The other seat's chat ack carries its own version, not the game's.
    assert (await _send(svc, room, other, type="chat", text="hm"))["v"] == v_before
    before = await seen_by_other()
    # The grace window ends: one public change, one step of the other seat's version.
    room.row.grace_deadline = clock.now = clock.now + 1
    svc._schedule(room)
    for _ in range(300):
        if room.row.grace_deadline is None:
            break
        await asyncio.sleep(0.01)
    assert other.views()[-1]["v"] == v_before + 1
    after = await seen_by_other()
    assert (
        after != before
        and json.loads(after[2])[0]["public_at"] != json.loads(before[2])[0]["public_at"]
    )
    assert room.row.public_at == clock.now
    await svc.close()
    assert my_device != other_device


async def test_an_act_on_a_view_from_before_a_reload_is_stale() -> None:
    clock = Clock()
    store = MemoryStore()
    svc = _service(store, clock=clock)
    room, c0, c1 = await _two_player_rummy(svc)
    old = {0: c0.views()[-1]["v"], 1: c1.views()[-1]["v"]}
    # Evicted and reloaded in the same process, in the same instant (a stopped clock).
    svc.rooms.pop(room.row.code).retired = True
    again, e0 = await svc.connect(room.row.code, "d0", FakeConn)
    assert e0.views()[-1]["v"] > old[0]
    if again.state.turn == 0:
        reply = await _send(svc, again, e0, type="act", v=old[0], action="draw")
        assert reply["code"] == "stale"
    await svc.close()
    clock.now += 0.5  # a restart: a new process, some time later
    svc2 = _service(store, clock=clock)
    room2, d0 = await svc2.connect(room.row.code, "d0", FakeConn)
    _, d1 = await svc2.connect(room.row.code, "d1", FakeConn)
    assert d0.views()[-1]["v"] > old[0] and d1.views()[-1]["v"] > old[1]
    seat = room2.state.turn
    conn = (d0, d1)[seat]
    reply = await _send(svc2, room2, conn, type="act", v=old[seat], action="draw")
    assert reply["code"] == "stale"
    await svc2.close()


# ------------------------------------------------------------------ point 7: one transaction


async def test_a_join_that_fills_a_rummy_game_starts_it_in_the_same_save() -> None:
    store = RecordingStore()
    svc = _service(store)
    row = await _create(svc, seats=3)
    await svc.join_game(row.code, "d1", "Ben", "🐻")
    store.writes.clear()
    await svc.join_game(row.code, "d2", "Cy", "🐱")
    assert len(store.writes) == 1
    _, (status, kw) = store.writes[0]
    assert status == "active" and kw["new_seats"] == [2] and kw["action"].action == "start"
    stored = await store.load_game(row.code)
    assert stored is not None and stored.status == "active" and len(stored.seats) == 3
    await svc.close()


async def test_a_practice_game_is_created_started() -> None:
    store = RecordingStore()
    svc = _service(store, bot_delay=60.0)
    row = await _create(svc, practice=True, difficulty="easy", seats=3)
    assert store.writes == [("create_game", ("active", store.writes[0][1][1]))]
    assert store.writes[0][1][1].action == "start" and store.writes[0][1][1].v == 1
    assert row.status == "active" and (await store.actions(row.code))[0].action == "start"
    await svc.close()


# ------------------------------------------------------------------ point 8: names


@pytest.mark.parametrize(
    ("name", "emoji", "code"),
    [
        ("", "🦊", "bad_name"),
        ("A\u202eB", "🦊", "bad_name"),  # a bidi override
        ("Zero\u200bWidth", "🦊", "bad_name"),
        ("x" * 25, "🦊", "bad_name"),
        ("Ana", "free text", "bad_emoji"),
        ("Ana", "🦊🦊", "bad_emoji"),
    ],
)
async def test_names_and_emoji_follow_the_one_rule(name: str, emoji: str, code: str) -> None:
    svc = _service()
    with pytest.raises(ServiceError) as bad:
        await _create(svc, name=name, emoji=emoji)
    assert bad.value.code == code and bad.value.status == 400
    row = await _create(svc, name="  Ana   Lee ", emoji="👍🏽")
    assert (row.seats[0].name, row.seats[0].emoji) == ("Ana Lee", "👍🏽")
    with pytest.raises(ServiceError) as bad:
        await svc.join_game(row.code, "d1", name, emoji)
    assert bad.value.code == code
    await svc.close()


# ------------------------------------------------------------------ point 1: failed writes


async def test_every_failed_write_leaves_the_room_as_it_was() -> None:
    store = RecordingStore()
    svc = _service(store, grace_seconds=3600.0)
    store.fail = 1
    with pytest.raises(ServiceError) as refused:
        await _create(svc)
    assert refused.value.status == 503 and "not saved" in refused.value.message.replace(
        "could not save", "not saved"
    )
    assert not svc.rooms

    row = await _create(svc, game="tiles", seats=3)
    room = svc.rooms[row.code]

    def snapshot() -> str:
        return json.dumps(
            [repr(room.row), sorted(room.online), room.chat, repr(room.state)], default=str
        )

    before = snapshot()
    store.fail = 1
    with pytest.raises(ServiceError):
        await svc.join_game(row.code, "d1", "Ben", "🐻")
    assert snapshot() == before and len(room.row.seats) == 1
    await svc.join_game(row.code, "d1", "Ben", "🐻")
    room, c0 = await svc.connect(row.code, "d0", FakeConn)
    for msg in ({"type": "add_bot", "difficulty": "easy"}, {"type": "start"}):
        before = snapshot()
        store.fail = 1
        reply = await _send(svc, room, c0, **msg)
        assert reply["code"] == "server_error" and "did not happen" in reply["message"]
        assert snapshot() == before
        assert (await _send(svc, room, c0, **msg))["type"] == "ack"
    # chat: the message is the write; the read marker after it is only a marker.
    before = snapshot()
    store.fail = 1
    assert (await _send(svc, room, c0, type="chat", text="hi"))["code"] == "server_error"
    assert snapshot() == before
    # an action (once the bot, if it starts, has played)
    for _ in range(300):
        seat = min(room.kind.engine.to_act(room.state))
        if room.row.seats[seat].bot is None and room.timer is None:
            break
        await asyncio.sleep(0.01)
    conn = c0 if seat == 0 else (await svc.connect(row.code, "d1", FakeConn))[1]
    before = snapshot()
    version = room.row.version
    store.fail = 1
    assert (await _act(svc, room, conn, "draw"))["code"] == "server_error"
    assert snapshot() == before and room.row.version == version
    assert (await _act(svc, room, conn, "draw"))["type"] == "ack"
    # leaving
    before = snapshot()
    store.fail = 1
    with pytest.raises(ServiceError):
        await svc.leave(row.code, "d0")
    assert snapshot() == before and room.row.status == "active"
    await svc.close()


async def test_a_grace_window_whose_commit_fails_still_closes_once_the_disk_recovers() -> None:
    store = RecordingStore()
    svc = _service(store, grace_seconds=0.05)
    room, c0, c1 = await _two_player_rummy(svc)
    me = (c0, c1)[room.state.turn]
    assert (await _act(svc, room, me, "draw"))["type"] == "ack"
    card = next(a for a in me.views()[-1]["legal"] if a.startswith("discard")).split()[1]
    assert (await _act(svc, room, me, f"discard {card}"))["type"] == "ack"
    store.fail = 2  # the first two tries to close the window fail
    for _ in range(400):
        if room.row.grace_deadline is None:
            break
        await asyncio.sleep(0.01)
    assert room.row.grace_deadline is None and store.fail == 0
    assert room.backoff == 0.0
    assert (await store.actions(room.row.code))[-1].action == "commit"
    await svc.close()


async def test_a_bot_whose_move_fails_to_save_plays_it_later() -> None:
    store = RecordingStore()
    svc = _service(store)
    store.fail = 0
    row = await _create(svc, practice=True, difficulty="easy", seats=2)
    room = svc.rooms[row.code]
    store.fail = 1  # the bot's first deal
    for _ in range(300):
        if room.row.version >= 2:
            break
        await asyncio.sleep(0.01)
    assert room.row.version == 2 and store.fail == 0
    assert (await store.actions(row.code))[-1].seat == 1
    assert svc.bot_errors == 0
    await svc.close()


class CommitsButUnconfirmedStore(RecordingStore):
    """A store that stops while a write is on its way: the write commits, the caller hears
    only that it is unconfirmed (what SqlStore.close says when its bound runs out)."""

    def __init__(self) -> None:
        super().__init__()
        self.unconfirm = 0

    async def save_game(self, game: GameRow, **kw: Any) -> None:
        await super().save_game(game, **kw)
        if self.unconfirm:
            self.unconfirm -= 1
            raise WriteUnconfirmed("the server stopped before this write was confirmed")


async def test_an_unconfirmed_write_is_neither_acknowledged_nor_denied() -> None:
    store = CommitsButUnconfirmedStore()
    svc = _service(store, grace_seconds=3600.0)
    room, c0, c1 = await _two_player_rummy(svc)
    seat = min(room.kind.engine.to_act(room.state))
    conn = (c0, c1)[seat]
    version = room.row.version
    store.unconfirm = 1
    reply = await _act(svc, room, conn, "draw")
    assert reply["type"] == "error" and reply["code"] == "unconfirmed"
    assert "did not happen" not in reply["message"]
    # The room that may be behind the database is gone; the next use reloads the truth.
    assert room.retired and room.row.code not in svc.rooms
    fresh = await svc.room(room.row.code)
    assert fresh is not room and fresh.row.version == version + 1
    await svc.close()
