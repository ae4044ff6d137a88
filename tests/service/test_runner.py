"""The match runner on its in-memory store twin, with fake sockets: the pipeline's guarantees."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from gameshack.protocol import parse_client
from gameshack.service import GameService, Settings
from gameshack.store import MemoryStore

from .fakes import FakeConn


def _settings(**over: Any) -> Settings:
    base: dict[str, Any] = {"grace_seconds": 0.05, "bot_delay": 0.0, **over}
    return Settings(data_dir=Path("."), database_url="", **base)


async def _act(svc: GameService, room: Any, conn: FakeConn, action: str) -> dict[str, Any]:
    v = conn.views()[-1]["v"]
    await svc.handle(
        room, conn, parse_client(json.dumps({"type": "act", "v": v, "action": action, "id": "x"}))
    )
    return next(m for m in reversed(conn.out) if m.get("id") == "x")


async def test_tile_arrangement_is_private_until_confirm() -> None:
    svc = GameService(MemoryStore(), _settings())
    row = await svc.create_game(
        "d0",
        game="tiles",
        seats=2,
        target=None,
        practice=False,
        difficulty=None,
        name="A",
        emoji="🦊",
    )
    await svc.join_game(row.code, "d1", "B", "🐻")
    room, c0 = await svc.connect(row.code, "d0", FakeConn)
    _, c1 = await svc.connect(row.code, "d1", FakeConn)
    await svc.start_game(room, 0)
    turn = min(room.kind.engine.to_act(room.state))
    me, other = (c0, c1)[turn], (c0, c1)[1 - turn]
    seen = len(other.out)
    tile = me.views()[-1]["state"]["rack"][0]["tile"]
    assert (await _act(svc, room, me, f"move {tile} new"))["type"] == "ack"
    assert me.views()[-1]["state"]["work"] is not None
    assert (await _act(svc, room, me, "reset"))["type"] == "ack"
    assert len(other.out) == seen  # nothing at all reached the other seat
    assert (await _act(svc, room, me, "draw"))["type"] == "ack"
    assert other.views()[-1]["room"]["to_act"] == [1 - turn]
    await svc.close()


async def test_bot_turns_resume_on_a_new_service() -> None:
    store = MemoryStore()
    svc = GameService(store, _settings(bot_delay=60.0))  # bots would wait a minute: "crash" first
    row = await svc.create_game(
        "d0",
        game="rummy",
        seats=3,
        target=100,
        practice=True,
        difficulty="easy",
        name="A",
        emoji="🦊",
    )
    room, c0 = await svc.connect(row.code, "d0", FakeConn)
    await _act(svc, room, c0, "deal")
    v = room.row.version
    await svc.close()  # the process dies with two bot deals pending
    svc2 = GameService(store, _settings(bot_delay=0.0))
    await svc2.start()
    for _ in range(200):
        await asyncio.sleep(0.01)
        room2 = svc2.rooms[row.code]
        if room2.state.phase.value == "playing":
            break
    assert room2.row.version >= v + 2
    assert room2.state.phase.value == "playing"
    await svc2.close()


async def test_an_overdue_bot_step_fires_at_once_not_a_bot_delay_later() -> None:
    """A bot step past its stored due time (its process died; another takes the game over)
    fires now: waiting a whole bot delay more would put it far past due."""
    store = MemoryStore()
    svc = GameService(store, _settings(bot_delay=0.3))
    row = await svc.create_game(
        "d0",
        game="rummy",
        seats=3,
        target=100,
        practice=True,
        difficulty="easy",
        name="A",
        emoji="🦊",
    )
    room, c0 = await svc.connect(row.code, "d0", FakeConn)
    await _act(svc, room, c0, "deal")
    v = room.row.version
    await svc.close()  # the process dies with two bot deals pending, due in 0.3 s
    await asyncio.sleep(0.5)  # ... which has passed
    svc2 = GameService(store, _settings(bot_delay=60.0))
    await svc2.start()
    for _ in range(200):
        await asyncio.sleep(0.01)
        if svc2.rooms[row.code].row.version > v:
            break
    assert svc2.rooms[row.code].row.version > v
    await svc2.close()


async def test_views_go_only_to_seats_whose_view_changed_and_commit_is_server_only() -> None:
    svc = GameService(MemoryStore(), _settings(grace_seconds=30.0))
    row = await svc.create_game(
        "d0",
        game="rummy",
        seats=2,
        target=None,
        practice=False,
        difficulty=None,
        name="A",
        emoji="🦊",
    )
    await svc.join_game(row.code, "d1", "B", "🐻")
    room, c0 = await svc.connect(row.code, "d0", FakeConn)
    _, c1 = await svc.connect(row.code, "d1", FakeConn)
    await _act(svc, room, c0, "deal")
    await _act(svc, room, c1, "deal")
    turn = room.state.turn
    me, other = (c0, c1)[turn], (c0, c1)[1 - turn]
    assert (await _act(svc, room, me, "commit"))["code"] == "server_only"
    assert (await _act(svc, room, other, "draw"))["code"] == "not_your_turn"
    seen = len(other.out)
    await _act(svc, room, me, "draw")
    card = next(a for a in me.views()[-1]["legal"] if a.startswith("discard")).split()[1]
    await _act(svc, room, me, f"discard {card}")
    assert room.row.grace_deadline is not None and me.views()[-1]["grace"]["remaining_ms"] > 25_000
    assert len(other.out) == seen
    assert "commit" not in me.views()[-1]["legal"]
    await svc.close()


async def test_bots_wait_while_who_starts_is_on_screen_then_pace_each_step() -> None:
    """A practice Tile Rummy game whose first move is a bot's: the bot waits six bot delays
    (who starts, and why, is on screen), then one bot delay per step."""
    delay = 0.1
    for seed in range(40):
        svc = GameService(MemoryStore(), _settings(bot_delay=delay))
        row = await svc.create_game(
            "d0",
            game="tiles",
            seats=2,
            target=None,
            practice=True,
            difficulty="easy",
            name="A",
            emoji="🦊",
            seed=seed,
        )
        room = svc.rooms[row.code]
        if 1 not in room.kind.engine.to_act(room.state):
            await svc.close()
            continue
        assert room.kind.engine.opening(room.state)
        started = asyncio.get_running_loop().time()
        while room.row.version == 1:
            await asyncio.sleep(0.01)
            assert asyncio.get_running_loop().time() - started < 5
        first = asyncio.get_running_loop().time() - started
        assert first >= 6 * delay * 0.95, first
        # Its next steps (an arrangement, then confirm or draw) come one bot delay apart.
        assert not room.kind.engine.opening(room.state)
        if 1 in room.kind.engine.to_act(room.state):
            version = room.row.version
            step = asyncio.get_running_loop().time()
            while room.row.version == version and room.row.status == "active":
                await asyncio.sleep(0.01)
                assert asyncio.get_running_loop().time() - step < 5
            assert delay * 0.9 <= asyncio.get_running_loop().time() - step < 4 * delay
        await svc.close()
        return
    raise AssertionError("no seed in 40 let the bot start")
