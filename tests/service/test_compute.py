"""Bots and hints think in a pool of worker processes, off the event loop and outside the lock.

The pool (``service/compute.py``) is bounded: a hint is refused as ``busy`` when it is full, a
bot waits its turn. A thought is used only if the game is still where it was when the thinking
began; a worker that dies is replaced, and a worker whose server dies ends too.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from gameshack.bots import decide, hint
from gameshack.protocol import parse_client
from gameshack.rules import rummy, tiles
from gameshack.service import GameService, Settings
from gameshack.service.compute import Pool
from gameshack.store import MemoryStore
from gameshack.worker import decide_from_state, hint_from_state

from .fakes import FakeConn


class GatedPool(Pool):
    """A real pool that holds every job until ``gate`` opens, and records what it ran."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.gate = asyncio.Event()
        self.calls: list[str] = []
        self.called = asyncio.Event()

    async def run(self, fn: Any, /, *args: Any, wait: bool) -> Any:
        self.calls.append(fn.__name__)
        self.called.set()
        await self.gate.wait()
        return await super().run(fn, *args, wait=wait)


def _settings(**over: Any) -> Settings:
    base: dict[str, Any] = {"grace_seconds": 0.05, "bot_delay": 0.0, "allow_seed": True, **over}
    return Settings(data_dir=Path("."), database_url="", **base)


async def _send(svc: GameService, room: Any, conn: FakeConn, **msg: Any) -> dict[str, Any]:
    msg.setdefault("id", f"m{len(conn.out)}")
    await svc.handle(room, conn, parse_client(json.dumps(msg)))
    return next(m for m in reversed(conn.out) if m.get("id") == msg["id"])


async def _practice(svc: GameService, game: str, seed: int) -> tuple[Any, FakeConn]:
    row = await svc.create_game(
        "d0",
        game=game,
        seats=2,
        target=None,
        practice=True,
        difficulty="hard",
        name="Ana",
        emoji="🦊",
        seed=seed,
    )
    room, conn = await svc.connect(row.code, "d0", FakeConn)
    return room, conn


async def _until(predicate: Any, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.01)


def _tiles_seed(first: int) -> int:
    """A seed whose Tile Rummy game (2 seats) starts with seat ``first``."""
    for seed in range(100):
        if tiles.new_match(tiles.Config(seats=2), seed=seed).turn == first:
            return seed
    raise AssertionError("no such seed")


def test_the_worker_answers_as_the_bot_does_on_the_same_view() -> None:
    rng = random.Random(3)
    for game, engine in (("rummy", rummy), ("tiles", tiles)):
        state = engine.new_match(engine.Config(seats=3), seed=5)
        if game == "rummy":
            for seat in range(3):
                state = engine.apply(state, seat, engine.Deal())
        seat = min(engine.to_act(state))
        saved = engine.state_to_dict(state)
        seed = rng.getrandbits(60)
        view = engine.view(state, seat)
        action, memory = decide(game, "hard", view, None, random.Random(seed))
        assert decide_from_state(game, "hard", saved, seat, None, seed) == (str(action), memory)
        assert hint_from_state(game, saved, seat) == hint(game, view)


async def test_a_bot_thinks_outside_the_lock_and_the_game_answers_meanwhile() -> None:
    pool = GatedPool()
    svc = GameService(MemoryStore(), _settings(), compute=pool)
    room, me = await _practice(svc, "tiles", _tiles_seed(first=1))  # the bot plays first
    await asyncio.wait_for(pool.called.wait(), 10)
    v = room.row.version
    assert not room.lock.locked() and room.timer is not None  # thinking: kept from the sweep
    assert (await _send(svc, room, me, type="ping"))["type"] == "pong"
    await svc.handle(room, me, parse_client(json.dumps({"type": "sync"})))
    assert me.out[-1]["type"] == "view"
    pool.gate.set()
    await _until(lambda: room.row.version > v)
    assert pool.calls[0] == "decide_from_state" and svc.bot_errors == 0
    await svc.close()


async def test_a_bot_thought_is_dropped_when_the_game_moved_meanwhile() -> None:
    pool = GatedPool()
    svc = GameService(MemoryStore(), _settings(), compute=pool)
    room, me = await _practice(svc, "tiles", _tiles_seed(first=1))
    await asyncio.wait_for(pool.called.wait(), 10)
    assert (await _send(svc, room, me, type="leave"))["type"] == "ack"
    v = room.row.version
    pool.gate.set()
    await asyncio.sleep(0.5)
    assert room.row.status == "ended" and room.row.version == v  # no bot move after the leave
    await svc.close()


async def test_a_hint_thought_out_while_the_seat_moved_is_thought_again() -> None:
    pool = GatedPool()
    svc = GameService(MemoryStore(), _settings(), compute=pool)
    room, me = await _practice(svc, "tiles", _tiles_seed(first=0))  # the human plays first
    asked = asyncio.create_task(_send(svc, room, me, type="hint", id="h"))
    await asyncio.wait_for(pool.called.wait(), 10)
    tile = me.views()[-1]["state"]["rack"][0]["tile"]
    v = me.views()[-1]["v"]
    moved = await _send(svc, room, me, type="act", v=v, action=f"move {tile} new")
    assert moved["type"] == "ack"
    pool.gate.set()
    answer = await asyncio.wait_for(asked, 30)
    assert answer["type"] == "hint"
    assert pool.calls == ["hint_from_state", "hint_from_state"]
    assert answer["v"] == me.views()[-1]["v"]  # the hint is for the position as it now is
    await svc.close()


async def test_a_full_pool_refuses_a_hint_and_a_bot_waits_its_turn() -> None:
    pool = Pool(workers=1, limit=1)
    svc = GameService(MemoryStore(), _settings(), compute=pool)
    room, me = await _practice(svc, "tiles", _tiles_seed(first=0))
    busy = asyncio.create_task(pool.run(time.sleep, 1.0, wait=True))
    await asyncio.sleep(0)
    answer = await _send(svc, room, me, type="hint", id="h")
    assert (answer["type"], answer["code"]) == ("error", "busy")
    v = me.views()[-1]["v"]
    assert (await _send(svc, room, me, type="act", v=v, action="draw"))["type"] == "ack"
    version = room.row.version  # the bot's turn: it waits for the one place in the pool
    await asyncio.sleep(0.3)
    assert room.row.version == version and not busy.done()
    await busy
    await _until(lambda: room.row.version > version)
    assert svc.bot_errors == 0
    await svc.close()


async def test_a_dead_worker_is_replaced_and_the_job_run_again() -> None:
    pool = Pool(workers=1)
    first = await pool.run(os.getpid, wait=True)
    os.kill(first, signal.SIGKILL)
    await asyncio.sleep(0.2)
    second = await pool.run(os.getpid, wait=True)
    assert second != first
    pool.close()


def _ended(pid: int) -> bool:
    """Gone, or a zombie nobody reaped yet (its parent was killed)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] == "Z"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_a_worker_ends_with_the_server_process_even_when_it_is_killed() -> None:
    server = (
        "import asyncio, os\n"
        "from gameshack.service.compute import Pool\n"
        "async def main():\n"
        "    print(await Pool(workers=1).run(os.getpid, wait=True), flush=True)\n"
        "    await asyncio.sleep(60)\n"
        "asyncio.run(main())\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", server], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    worker = int(proc.stdout.readline())
    assert not _ended(worker)
    proc.kill()  # no shutdown, no goodbye to the pool
    proc.wait()
    deadline = time.monotonic() + 10
    while not _ended(worker):
        assert time.monotonic() < deadline, "the worker outlived its server"
        time.sleep(0.05)


def test_warm_starts_the_workers_before_any_job() -> None:
    """A process serving with others warms its pool at start-up: a bot turn it takes over from
    a dead process must not wait for a worker to start (seconds) on top of being overdue."""
    import multiprocessing

    before = {p.pid for p in multiprocessing.active_children()}
    pool = Pool(workers=2)
    try:
        pool.warm()
        started = [p for p in multiprocessing.active_children() if p.pid not in before]
        assert len(started) == 2 and all(p.is_alive() for p in started)
    finally:
        pool.close()
