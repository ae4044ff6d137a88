"""CPU per move of the game service itself, in one process, without sockets or a load client.

The real service (``GameService``) on the real SQLite store (temp file, WAL, every move
committed before its ack), 4-seat games (3 in 4 Rummy, 1 in 4 Tile Rummy) whose seats are
in-process connections: each takes the frames the service hands a socket, parses them as a
client would (that parse is not counted: it runs on the "client" side of the clock split
below only approximately, so it is measured and subtracted), and plays a random legal move
when it is its turn, by the load client's policy (``server_load.choose``: no undos, melds when it
can, a draw from the stock). Prints the service's CPU time per acknowledged move (process time: the
event loop and the store's writer thread), the frames and bytes per move, and with
``--profile`` the top functions (cProfile, event-loop thread only). The garbage collector is
tuned as a server process's is (``server.collector.settle`` after the warm-up): at CPython's
default thresholds its collections were most of a move's CPU here, which the server never pays.

It is for A/B comparisons of the per-move path (run before and after a change, on the same
machine, and compare); the end-to-end figures with real sockets are ``server_load.py``'s.

    .venv/bin/python bench/move_cpu.py --games 200 --moves 20000
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import os
import pstats
import random
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import orjson

from gameshack.protocol.messages import parse_client
from gameshack.server import collector
from gameshack.service.fanout import Conn
from gameshack.service.runner import GameService
from gameshack.service.settings import Settings
from gameshack.store.sql import SqlStore
from server_load import choose  # the same policy as the load client's (bench/ is on the path)


def thread_cpu() -> dict[str, float]:
    """CPU seconds of each of this process's threads, by thread name (the event loop's is
    ``MainThread``; the store's writer and readers, the compute pool's threads)."""
    tick = os.sysconf("SC_CLK_TCK")
    out: dict[str, float] = {}
    for t in threading.enumerate():
        try:
            fields = Path(f"/proc/self/task/{t.native_id}/stat").read_text().rsplit(")", 1)[1]
        except OSError:
            continue
        utime, stime = fields.split()[11:13]
        name = t.name.rstrip("0123456789").rstrip("-_") or t.name
        out[name] = out.get(name, 0.0) + (int(utime) + int(stime)) / tick
    return out


class Seat(Conn):
    def __init__(self, code: str, seat: int, stats: dict[str, float]) -> None:
        self.code, self.seat, self.stats = code, seat, stats
        self.view: dict[str, Any] | None = None
        self.v = 0
        self.turn = asyncio.Event()

    def send(self, text: str) -> None:
        self.stats["frames"] += 1
        self.stats["bytes"] += len(text)
        t0 = time.process_time()
        frame = orjson.loads(text)
        if frame["type"] == "view":
            self.v = frame["v"]
            self.view = frame
            if frame["legal"] and self.seat in frame["room"]["to_act"]:
                self.turn.set()
            else:
                self.turn.clear()
        self.stats["client"] += time.process_time() - t0


async def play_game(
    svc: GameService, n: int, rng: random.Random, stats: dict[str, float], budget: list[int]
) -> None:
    game = "tiles" if n % 4 == 3 else "rummy"
    devices = [f"dev-{n}-{s}" for s in range(4)]
    row = await svc.create_game(
        devices[0],
        game=game,
        seats=4,
        target=None,
        practice=False,
        difficulty=None,
        name="P0",
        emoji="🦊",
    )
    code = row.code
    for s in range(1, 4):
        await svc.join_game(code, devices[s], f"P{s}", "🦊")
    seats: list[Seat] = []
    rooms = []
    for s in range(4):
        room, conn = await svc.connect(code, devices[s], lambda c, seat: Seat(c, seat, stats))
        seats.append(conn)  # type: ignore[arg-type]
        rooms.append(room)
    if game == "tiles":
        await svc.handle(rooms[0], seats[0], parse_client(b'{"type":"start","id":"s"}'))
    while budget[0] > 0:
        ready = [c for c in seats if c.turn.is_set()]
        if not ready:
            waits = [asyncio.ensure_future(c.turn.wait()) for c in seats]
            done, pending = await asyncio.wait(waits, timeout=5, return_when="FIRST_COMPLETED")
            for w in pending:
                w.cancel()
            if not done:
                return  # the game is over (or stuck: counted as over)
            continue
        conn = rng.choice(ready)
        conn.turn.clear()
        view = conn.view
        assert view is not None
        action = choose(game, view, rng)
        if action is None:
            continue
        budget[0] -= 1
        stats["moves"] += 1
        msg = parse_client(orjson.dumps({"type": "act", "v": conn.v, "action": action, "id": "m"}))
        await svc.handle(rooms[conn.seat], conn, msg)


async def main(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite+aiosqlite:///{tmp}/g.db"
        settings = Settings(
            data_dir=Path(tmp),
            database_url=url,
            grace_seconds=args.grace,
            bot_delay=0.0,
            games_per_hour=10**9,
            waiting_games_per_device=10**9,
        )
        store = SqlStore(url)
        await store.start()
        svc = GameService(store, settings)
        await svc.start()
        stats = {"frames": 0.0, "bytes": 0.0, "client": 0.0, "moves": 0.0}
        budget = [args.warmup]
        rng = random.Random(args.seed)
        await asyncio.gather(*(play_game(svc, n, rng, stats, budget) for n in range(args.games)))
        collector.settle()  # the server's collector: frozen, young collections every 50,000
        for k in stats:
            stats[k] = 0.0
        budget[0] = args.moves
        prof = cProfile.Profile() if args.profile else None
        t0, w0, th0 = time.process_time(), time.perf_counter(), thread_cpu()
        if prof:
            prof.enable()
        await asyncio.gather(
            *(play_game(svc, n, rng, stats, budget) for n in range(args.games, 2 * args.games))
        )
        if prof:
            prof.disable()
        cpu, wall, th1 = time.process_time() - t0, time.perf_counter() - w0, thread_cpu()
        await svc.close()
        await store.close()
    moves = stats["moves"]
    print(f"moves              {int(moves)} in {args.games} games ({wall:.1f} s wall)")
    print(
        f"service CPU        {(cpu - stats['client']) / moves * 1e6:.0f} µs per move "
        f"(process {cpu / moves * 1e6:.0f}, of which the in-process clients' parse "
        f"{stats['client'] / moves * 1e6:.0f}); game set-up excluded"
    )
    print(
        f"frames             {stats['frames'] / moves:.2f} per move, "
        f"{stats['bytes'] / moves / 1024:.1f} KB per move"
    )
    threads = {k: th1[k] - th0.get(k, 0.0) for k in th1 if th1[k] - th0.get(k, 0.0) > 0}
    print(
        "by thread          "
        + ", ".join(f"{k} {v / moves * 1e6:.0f} µs" for k, v in sorted(threads.items()))
        + " per move (the event loop is MainThread)"
    )
    if prof:
        pstats.Stats(prof).sort_stats(args.sort).print_stats(args.profile)


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--games", type=int, default=200)
    p.add_argument("--moves", type=int, default=20000)
    p.add_argument("--warmup", type=int, default=2000)
    p.add_argument("--grace", type=float, default=0.02, help="grace window seconds")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--profile", type=int, default=0, help="print this many top functions")
    p.add_argument("--sort", default="tottime", help="the profile's order (tottime, cumulative)")
    asyncio.run(main(p.parse_args()))
