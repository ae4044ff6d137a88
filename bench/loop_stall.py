"""How long the server's event loop stalls while hard bots play Tile Rummy.

Runs the game service in this process (in-memory store, no bot delay) with one practice Tile
Rummy game: seat 0 is a "human" that draws every turn, the other seats are hard bots. A probe
task sleeps 1 ms over and over and records how late each wake-up is: that lateness is the time
the loop spent on something else in one go (a bot's decision, a hint, a save, a broadcast, a
garbage collection; on a busy machine, also the time the process was not scheduled at all).
The human also asks for a hint on each of its turns, as a player might.

    .venv/bin/python bench/loop_stall.py --seats 4 --moves 400 --seed 7

Prints the moves made, the probe's lateness p50 / p99 / max, and the CPU time the loop's
thread used between two wake-ups (p99 / max): that one does not count the time the process
waited for a CPU, so it tells a stall from a busy machine.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import statistics
import time
from pathlib import Path
from typing import Any

import orjson

import gameshack.rules
from gameshack.protocol import Act, Hint
from gameshack.service import Conn, GameService, Settings
from gameshack.store import MemoryStore


class Seat0(Conn):
    """The human's socket: keeps its latest view version; wakes the human on every frame."""

    def __init__(self, code: str, seat: int) -> None:
        self.code, self.seat = code, seat
        self.v: int | None = None
        self.changed = asyncio.Event()
        self.hints = 0

    def send(self, text: str) -> None:
        msg = orjson.loads(text)
        if msg["type"] == "view":
            self.v = msg["v"]
        elif msg["type"] == "hint":
            self.hints += 1
        self.changed.set()


async def probe(lateness: list[float], busy: list[float], stop: asyncio.Event) -> None:
    while not stop.is_set():
        t, cpu = time.perf_counter(), time.thread_time()
        await asyncio.sleep(0.001)
        lateness.append(time.perf_counter() - t - 0.001)
        busy.append(time.thread_time() - cpu)


async def run(seats: int, moves: int, seed: int) -> dict[str, Any]:
    settings = Settings(
        data_dir=Path("."),
        database_url="",
        bot_delay=0.0,
        allow_seed=True,
        games_per_hour=0,
        room_idle_seconds=0.0,
    )
    store = MemoryStore()
    svc = GameService(store, settings)
    gc.collect()  # as the server does once started (server/app.py)
    gc.freeze()
    lateness: list[float] = []
    busy: list[float] = []
    stop = asyncio.Event()
    task: asyncio.Task[None] | None = None
    bot_moves = human = hints = games = 0
    t0 = time.perf_counter()
    while bot_moves < moves:
        row = await svc.create_game(
            "bench",
            game="tiles",
            seats=seats,
            target=None,
            practice=True,
            difficulty="hard",
            name="Ana",
            emoji="🦊",
            seed=seed + games,
        )
        games += 1
        room, me = await svc.connect(row.code, "bench", Seat0)
        assert isinstance(me, Seat0)
        if task is None:
            # warm up (a process pool's first job starts its workers): not measured
            await asyncio.sleep(0.5)
            task = asyncio.create_task(probe(lateness, busy, stop))
            t0 = time.perf_counter()
        start_version, mine, bot_moves_now = room.row.version, 0, 0
        while room.row.status == "active" and bot_moves + bot_moves_now < moves:
            me.changed.clear()
            if 0 in room.kind.engine.to_act(room.state):
                await svc.handle(room, me, Hint(type="hint", id="h"))
                action = "next" if room.kind.only_next(room.state) else "draw"
                before = room.row.version
                await svc.handle(room, me, Act(type="act", id="a", v=me.v or 0, action=action))
                mine += room.row.version - before  # 0 if refused as stale (a view follows)
            else:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(me.changed.wait(), 0.05)
            bot_moves_now = room.row.version - start_version - mine
        human += mine
        hints += me.hints
        bot_moves += bot_moves_now
        await svc.disconnect(room, me)
    elapsed = time.perf_counter() - t0
    stop.set()
    if task is not None:
        await task
    await svc.close()
    late, cpu = sorted(lateness), sorted(busy)
    return {
        "compiled": gameshack.rules.COMPILED,
        "games": games,
        "bot_moves": bot_moves,
        "human_moves": human,
        "hints": hints,
        "seconds": round(elapsed, 2),
        "probe_wakeups": len(late),
        "late_p50_ms": round(statistics.median(late) * 1000, 2),
        "late_p99_ms": round(late[int(len(late) * 0.99)] * 1000, 2),
        "late_max_ms": round(late[-1] * 1000, 2),
        "cpu_p99_ms": round(cpu[int(len(cpu) * 0.99)] * 1000, 2),
        "cpu_max_ms": round(cpu[-1] * 1000, 2),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seats", type=int, default=4)
    ap.add_argument("--moves", type=int, default=400, help="bot actions to measure over")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    print(orjson.dumps(asyncio.run(run(args.seats, args.moves, args.seed))).decode())


if __name__ == "__main__":
    main()
