"""Load client for the game server: N sockets, M games, a fixed total move rate, side by side
with a bare WebSocket fan-out server.

Starts ``gameshack serve`` as a real process on a free port with a throw-away data directory
(SQLite, WAL: every move is committed before its acknowledgement), opens the sockets (one per
seat, each seat its own device), plays Rummy (3 games in 4) and Tile Rummy games between
client-driven seats at the requested total move rate, and prints moves/s, the latency from
sending an action to its ``ack`` (sent after the commit) and to the next view (p50/p99/max),
errors, the server's CPU (% of a core and per move), its memory (idle, with the sockets open,
at the end, per socket) and the garbage collector's pauses during the measured window (from
``/metrics``). A seat plays a simple random legal policy from its own view; only the rate
limiter paces moves. The per-address abuse limits (sockets, connections, games an hour,
lookups) are lifted: every client here is 127.0.0.1. This client's own garbage collector is
tuned as the server's is (what it holds once the sockets are open is frozen, young collections
are rare) and its collections in the window are printed: each one delays every frame it has
yet to read, which would count as the server's latency.

``--reference`` (on by default when the reference is found) then runs the bare fan-out servers
of ``shared/reference/server_bench`` (``server_ws.py``; ``server_starlette.py`` with uvloop and
orjson, as the game server runs) through their own load client ``ref_load.py``, with the same
sockets, rate and seconds, and prints the ratios. Its rooms have 4 seats (use ``--seats 4``);
it persists and validates nothing and does not compress. ``--reference-dir`` or
``GAMESHACK_REFERENCE_DIR`` says where it is (default: the first ``shared/reference/
server_bench`` above this repository).

The rows of issue 31's table (each one run; the machine's load is printed with it); ``--table``
runs them all in turn and prints the table with each goal (``make bench`` runs that):

    bench/server_load.py --seats 4 --sockets 10000 --idle                  # RSS, 10,000 sockets
    bench/server_load.py --seats 4 --sockets 1000 --rate 200 --seconds 30  # p99 at 200/s, CPU/move
    bench/server_load.py --seats 4 --sockets 1000 --rate 500 --seconds 30  # p99 at 500/s
    bench/server_load.py --seats 4 --sockets 1000 --rate 5000 --seconds 30 # saturation, moves/s

``--processes N`` runs ``gameshack serve --workers N`` on PostgreSQL and Redis instead (``--shared``
runs one process there, for the comparison) (a
scratch database, created and dropped; ``--postgres``, ``--redis-url``); CPU and memory are then
summed over the server's processes, and the GC pauses are one worker's.

``--wrap`` runs the server under another command. Under callgrind, the instructions a move
costs over real sockets repeat within ~1% on a VM whose CPU seconds swing ±20%: take the
difference of a 10 s and a 40 s run (``--sockets 100 --rate 20``) over the moves between them
(bench/RESULTS.md, 2026-12-07).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import random
import resource
import secrets
import shlex
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import orjson
from prometheus_client.parser import text_string_to_metric_families
from websockets.asyncio.client import ClientConnection, connect

from gameshack.server import collector

COOKIE = "gs_device"
ROOT = Path(__file__).resolve().parents[1]
GAMESHACK = Path(sys.executable).with_name("gameshack")
# Every client of the bench is 127.0.0.1: the per-address abuse limits would refuse it (0: off).
NO_ADDRESS_LIMITS = {
    "GAMESHACK_SOCKETS_PER_ADDRESS": "0",
    "GAMESHACK_CONNECTIONS_PER_ADDRESS": "0",
    "GAMESHACK_GAMES_PER_HOUR": "0",
    "GAMESHACK_LOOKUPS_PER_MINUTE": "0",
}
# The reference servers, each with the environment it runs with (server_bench/README.md).
REFERENCES = [("server_ws.py", []), ("server_starlette.py", ["UVLOOP=1", "ORJSON=1"])]


class ClientGC:
    """This load client's own garbage collections while it counts (``gc.callbacks``): its
    pauses delay the frames it reads, so they would show as the server's latency."""

    def __init__(self) -> None:
        self.counting = False
        self.pauses: list[float] = []
        self._start = 0.0
        gc.callbacks.append(self._timer)

    def _timer(self, phase: str, _info: dict[str, Any]) -> None:
        if phase == "start":
            self._start = time.perf_counter()
        elif self.counting:
            self.pauses.append(time.perf_counter() - self._start)

    def settle(self) -> None:
        """As the server does (:func:`gameshack.server.collector.settle`): what is alive now
        (this run's sockets and games) is frozen, never scanned again, and young collections
        are rarer. A run before this one (``--table``) is unfrozen first, so its closed sockets
        can go, and its pauses are forgotten."""
        gc.unfreeze()
        collector.settle()
        self.pauses.clear()

    def report(self) -> str:
        p = self.pauses
        return f"{len(p)} × (sum {sum(p) * 1000:.0f} ms, max {max(p, default=0) * 1000:.0f} ms)"


CLIENT_GC = ClientGC()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def raise_file_limit() -> None:
    """Every socket is a file: up to the hard limit, for 10,000 of them."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def process_tree(pid: int) -> list[int]:
    """``pid`` and its live descendants (``--workers`` children, worker pools)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError):
                with open(f"/proc/{entry}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
                children.setdefault(ppid, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += children.get(p, [])
    return out


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds used so far by process ``pid`` and its descendants."""
    total = 0.0
    for p in process_tree(pid):
        with contextlib.suppress(OSError):
            with open(f"/proc/{p}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def rss_mb(pid: int) -> float:
    """Resident memory of ``pid`` and its descendants, MB."""
    total = 0.0
    for p in process_tree(pid):
        with contextlib.suppress(OSError), open(f"/proc/{p}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) / 1024
    return total


def machine_load() -> str:
    with open("/proc/loadavg") as f:
        return f.read().split()[0]


def gc_pauses(base: str) -> dict[str, dict[str, float]]:
    """The server's ``gameshack_gc_pause_seconds`` by generation: count, sum, bucket counts."""
    try:
        text = httpx.get(f"{base}/metrics", timeout=10).text
    except httpx.HTTPError:
        return {}
    out: dict[str, dict[str, float]] = {}
    for family in text_string_to_metric_families(text):
        if family.name != "gameshack_gc_pause_seconds":
            continue
        for s in family.samples:
            gen = out.setdefault(s.labels["generation"], {})
            if s.name.endswith("_bucket"):
                gen[f"le {s.labels['le']}"] = s.value
            else:
                gen[s.name.rsplit("_", 1)[1]] = s.value
    return out


def gc_report(before: dict[str, dict[str, float]], after: dict[str, dict[str, float]]) -> str:
    """Collections in the window per generation: how many, their total, the longest's bucket."""
    parts = []
    for gen in sorted(after):
        was = before.get(gen, {})
        count = after[gen].get("count", 0) - was.get("count", 0)
        if not count:
            continue
        total = (after[gen].get("sum", 0) - was.get("sum", 0)) * 1000
        top = "?"
        for key, value in sorted(
            ((k, v) for k, v in after[gen].items() if k.startswith("le ")),
            key=lambda kv: float(kv[0][3:]),
        ):
            if value - was.get(key, 0) >= count:
                top = f"{float(key[3:]) * 1000:g} ms" if key != "le +Inf" else "over 1 s"
                break
        parts.append(f"gen{gen} {count:.0f} × (sum {total:.0f} ms, max ≤ {top})")
    return ", ".join(parts) or "none"


@dataclass
class Seat:
    ws: ClientConnection
    seat: int
    view: dict[str, Any] | None = None
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    waiting: dict[str, float] = field(default_factory=dict)  # act id -> send time
    sent_v: int = -1  # version our pending action was sent on


@dataclass
class Stats:
    moves: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    latencies: list[float] = field(default_factory=list)
    ack_latencies: list[float] = field(default_factory=list)
    counting: bool = False


def choose(kind: str, view: dict[str, Any], rng: random.Random) -> str | None:
    legal = [a for a in view["legal"] if a != "undo"]
    if not legal:
        return None
    if kind == "rummy":
        if legal[0] in ("deal", "next"):
            return legal[0]
        plays = [a for a in legal if a.startswith(("meld", "layoff"))]
        if plays and rng.random() < 0.7:
            return rng.choice(plays)
        takes = [a for a in legal if a.startswith(("draw", "take"))]
        if takes:
            return "draw" if "draw" in takes else rng.choice(takes)
        return rng.choice([a for a in legal if a.startswith("discard")] or legal)
    if "next" in legal:
        return "next"
    state = view["state"]
    if state["work"] is None and state["rack"] and rng.random() < 0.3:
        return f"move {state['rack'][0]['tile']} new"
    if "reset" in legal:
        return "reset"
    return "draw"


async def reader(seat: Seat, stats: Stats) -> None:
    try:
        async for raw in seat.ws:
            msg = orjson.loads(raw)
            t = msg.get("type")
            if t == "view":
                seat.view = msg
                if seat.waiting and msg["v"] > seat.sent_v:
                    for _mid, sent in seat.waiting.items():
                        if stats.counting:
                            stats.latencies.append(time.perf_counter() - sent)
                    seat.waiting.clear()
                seat.changed.set()
            elif t == "ack":
                sent = seat.waiting.get(msg.get("id"))
                if sent is not None and stats.counting:
                    stats.ack_latencies.append(time.perf_counter() - sent)
            elif t == "error":
                stats.errors[msg["code"]] = stats.errors.get(msg["code"], 0) + 1
                seat.waiting.pop(msg.get("id"), None)
                seat.changed.set()
    except Exception:
        pass


async def play_game(
    kind: str,
    seats: list[Seat],
    tokens: asyncio.Queue[None],
    stats: Stats,
    stop: asyncio.Event,
    rng: random.Random,
) -> None:
    n = 0
    while not stop.is_set():
        ready = [
            s
            for s in seats
            if s.view is not None
            and not s.waiting
            and s.seat in s.view["room"]["to_act"]
            and s.view["room"]["status"] == "active"
        ]
        if not ready:
            for s in seats:
                s.changed.clear()
            waiters = [asyncio.create_task(s.changed.wait()) for s in seats]
            _done, pending = await asyncio.wait(
                waiters, timeout=1.0, return_when=asyncio.FIRST_COMPLETED
            )
            for w in pending:
                w.cancel()
            continue
        s = ready[0]
        assert s.view is not None
        action = choose(kind, s.view, rng)
        if action is None:
            s.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(s.changed.wait(), 1.0)
            continue
        await tokens.get()
        if stop.is_set():
            return
        if s.view is None or s.waiting:
            continue
        n += 1
        mid = f"{n}"
        s.sent_v = s.view["v"]
        s.waiting[mid] = time.perf_counter()
        await s.ws.send(json.dumps({"type": "act", "v": s.view["v"], "action": action, "id": mid}))
        if stats.counting:
            stats.moves += 1


async def _post(http: httpx.AsyncClient, url: str, **kw: Any) -> httpx.Response:
    for attempt in range(5):  # a reused keep-alive connection can be reset under load: retry
        try:
            r = await http.post(url, **kw)
            r.raise_for_status()
            return r
        except httpx.TransportError:
            if attempt == 4:
                raise
            await asyncio.sleep(0.2)
    raise AssertionError("unreachable")


async def open_game(
    http: httpx.AsyncClient, base: str, port: int, kind: str, i: int, seats: int
) -> list[Seat]:
    # Device tokens are made here (the server takes any cookie value as a device's token), so
    # one HTTP client serves every player.
    tokens = [secrets.token_urlsafe(32) for _ in range(seats)]
    hdr = [{"Cookie": f"{COOKIE}={t}"} for t in tokens]
    body = {"game": kind, "seats": seats, "name": f"H{i}", "emoji": "🦊"}
    code = (await _post(http, "/api/games", json=body, headers=hdr[0])).json()["code"]
    for seat in range(1, seats):
        join = {"name": f"G{i}-{seat}", "emoji": "🐻"}
        await _post(http, f"/api/games/{code}/join", json=join, headers=hdr[seat])
    out: list[Seat] = []
    for seat, token in enumerate(tokens):
        ws = await connect(
            f"ws://127.0.0.1:{port}/ws/{code}",
            additional_headers={"Cookie": f"{COOKIE}={token}", "Origin": base},
            max_size=None,
            open_timeout=60,
        )
        out.append(Seat(ws, seat))
    if kind == "tiles":
        await out[0].ws.send(json.dumps({"type": "start"}))
    return out


@contextlib.contextmanager
def scratch_postgres(admin: str) -> Iterator[str]:
    """A new, empty PostgreSQL database (dropped afterwards); its SQLAlchemy URL."""
    import asyncpg

    name = f"gs_bench_{secrets.token_hex(4)}"

    async def execute(sql: str) -> None:
        conn = await asyncpg.connect(admin, timeout=10)
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    asyncio.run(execute(f'CREATE DATABASE "{name}"'))
    try:
        yield f"postgresql+asyncpg://{admin.split('://', 1)[1].rsplit('/', 1)[0]}/{name}"
    finally:
        asyncio.run(execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@contextlib.contextmanager
def game_server(args: argparse.Namespace) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    """``gameshack serve`` (``--workers N`` on PostgreSQL and Redis with ``--processes N``)."""
    port = free_port()
    data = tempfile.mkdtemp(prefix="gameshack-load-")
    env = {
        **os.environ,
        **NO_ADDRESS_LIMITS,
        "GAMESHACK_DATA_DIR": data,
        "GAMESHACK_GRACE_SECONDS": str(args.grace),
        "GAMESHACK_BOT_DELAY": "0",
    }
    for name in ("GAMESHACK_DATABASE_URL", "GAMESHACK_REDIS_URL", "GAMESHACK_WORKERS"):
        env.pop(name, None)
    command = [str(GAMESHACK), "serve", "--port", str(port), "--log-level", "warning"]
    command = shlex.split(args.wrap) + command
    with contextlib.ExitStack() as stack:
        stack.callback(shutil.rmtree, data, ignore_errors=True)
        if args.processes > 1 or args.shared:
            env["GAMESHACK_DATABASE_URL"] = stack.enter_context(scratch_postgres(args.postgres))
            env["GAMESHACK_REDIS_URL"] = args.redis_url
            if args.processes > 1:
                command += ["--workers", str(args.processes)]
        server = subprocess.Popen(command, env=env)
        try:
            yield server, port
        finally:
            server.terminate()
            try:
                server.wait(20)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()


async def wait_ready(base: str, server: subprocess.Popen[bytes]) -> None:
    async with httpx.AsyncClient(base_url=base, timeout=1) as http:
        for _ in range(600):
            if server.poll() is not None:
                raise SystemExit(f"the server exited with {server.returncode}")
            with contextlib.suppress(httpx.HTTPError):
                if (await http.get("/api/health")).status_code == 200:
                    return
            await asyncio.sleep(0.1)
    raise SystemExit("the server did not become healthy within 60 s")


async def measure(
    args: argparse.Namespace, server: subprocess.Popen[bytes], port: int
) -> dict[str, Any]:
    """Open the sockets, play at the rate, and return the figures (the reference's keys)."""
    base = f"http://127.0.0.1:{port}"
    await wait_ready(base, server)
    if args.nice:
        # On a machine shared with other work, give the server and this load client the CPU
        # share dedicated hosts would have (root only).
        for pid in process_tree(server.pid):
            os.setpriority(os.PRIO_PROCESS, pid, args.nice)
        os.setpriority(os.PRIO_PROCESS, 0, args.nice)
    rss0 = rss_mb(server.pid)
    games = args.sockets // args.seats
    t0 = time.perf_counter()
    sem = asyncio.Semaphore(20)
    http = httpx.AsyncClient(base_url=base, timeout=60, limits=httpx.Limits(max_connections=20))

    async def opener(i: int) -> tuple[str, list[Seat]]:
        kind = "rummy" if i % 4 else "tiles"
        async with sem:
            return kind, await open_game(http, base, port, kind, i, args.seats)

    opened = await asyncio.gather(*(opener(i) for i in range(games)))
    await http.aclose()
    t_open = time.perf_counter() - t0
    await asyncio.sleep(1.0)  # as ref_load.py: let the server settle before reading memory
    CLIENT_GC.settle()
    res: dict[str, Any] = {
        "sockets": games * args.seats,
        "games": games,
        "open_s": round(t_open, 1),
        "rss_idle_mb": round(rss0, 1),
        "rss_open_mb": round(rss_mb(server.pid), 1),
        "load": machine_load(),
    }
    stats = Stats()
    readers = [asyncio.create_task(reader(s, stats)) for _, seats in opened for s in seats]
    try:
        if not args.idle:
            res.update(await play(args, base, server.pid, opened, stats))
    finally:
        for _, seats in opened:
            for s in seats:
                with contextlib.suppress(Exception):
                    await s.ws.close()
        for r in readers:
            r.cancel()
    return res


async def play(
    args: argparse.Namespace,
    base: str,
    pid: int,
    opened: list[tuple[str, list[Seat]]],
    stats: Stats,
) -> dict[str, Any]:
    tokens: asyncio.Queue[None] = asyncio.Queue(maxsize=max(1, int(args.rate // 10)))
    stop = asyncio.Event()

    async def producer() -> None:
        interval = 1.0 / args.rate
        next_t = time.perf_counter()
        while not stop.is_set():
            next_t += interval
            delay = next_t - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            if tokens.full():
                continue  # the games cannot keep up: the rate is not reached
            tokens.put_nowait(None)

    rng = random.Random(1)
    players = [
        asyncio.create_task(
            play_game(kind, seats, tokens, stats, stop, random.Random(rng.random()))
        )
        for kind, seats in opened
    ]
    prod = asyncio.create_task(producer())
    await asyncio.sleep(args.warmup)
    gc_before = await asyncio.to_thread(gc_pauses, base)
    stats.counting = CLIENT_GC.counting = True
    t1 = time.perf_counter()
    srv_cpu0, cli_cpu0 = cpu_seconds(pid), time.process_time()
    await asyncio.sleep(args.seconds)
    stats.counting = CLIENT_GC.counting = False
    elapsed = time.perf_counter() - t1
    srv_cpu = (cpu_seconds(pid) - srv_cpu0) / elapsed
    cli_cpu = (time.process_time() - cli_cpu0) / elapsed
    rss_end = rss_mb(pid)
    load = machine_load()
    stop.set()
    prod.cancel()
    for p in players:
        p.cancel()
    gc_after = await asyncio.to_thread(gc_pauses, base)

    def pct(xs: list[float], p: float) -> float | None:
        xs = sorted(xs)
        return round(xs[min(len(xs) - 1, int(p * len(xs)))] * 1000, 2) if xs else None

    rate = stats.moves / elapsed
    return {
        "rate": args.rate,
        "moves_per_s": round(rate, 1),
        "acked": len(stats.ack_latencies),
        "p50_ms": pct(stats.ack_latencies, 0.5),
        "p99_ms": pct(stats.ack_latencies, 0.99),
        "max_ms": pct(stats.ack_latencies, 1.0),
        "view_p50_ms": pct(stats.latencies, 0.5),
        "view_p99_ms": pct(stats.latencies, 0.99),
        "view_mean_ms": round(statistics.fmean(stats.latencies) * 1000, 2)
        if stats.latencies
        else None,
        "errors": stats.errors,
        "server_cpu_pct": round(srv_cpu * 100),
        "client_cpu_pct": round(cli_cpu * 100),
        "server_cpu_us_per_move": round(srv_cpu * 1e6 / rate) if rate else None,
        "rss_end_mb": round(rss_end, 1),
        "gc": gc_report(gc_before, gc_after),
        "gc_ms_per_s": round(
            sum(g.get("sum", 0) - gc_before.get(k, {}).get("sum", 0) for k, g in gc_after.items())
            * 1000
            / elapsed,
            1,
        ),
        "load": load,
    }


def reference_dir(given: str | None) -> Path | None:
    """Where the bare reference servers are: given, or ``shared/reference/server_bench`` in the
    nearest directory above this repository that has one."""
    if given:
        return Path(given)
    for parent in ROOT.parents:
        candidate = parent / "shared" / "reference" / "server_bench"
        if (candidate / "ref_load.py").is_file():
            return candidate
    return None


def run_reference(
    args: argparse.Namespace, where: Path, server: str, env: list[str]
) -> dict[str, Any]:
    """One reference server through its own load client, with this run's shape; its JSON."""
    command = [
        sys.executable,
        str(where / "ref_load.py"),
        server,
        "--sockets",
        str(args.sockets),
        "--rate",
        str(args.rate),
        "--seconds",
        str(args.seconds),
        "--warmup",
        str(args.warmup),
    ]
    if env:
        command += ["--env", *env]
    if args.idle:
        command.append("--idle")
    out = subprocess.run(command, capture_output=True, text=True, timeout=600)
    lines = [line for line in out.stdout.splitlines() if line.startswith("{")]
    if out.returncode != 0 or not lines:
        raise SystemExit(f"{server} failed: {out.stderr[-2000:]}")
    return dict(json.loads(lines[-1]))


def per_socket_kb(res: dict[str, Any]) -> float:
    return (res["rss_open_mb"] - res["rss_idle_mb"]) * 1024 / max(1, res["sockets"])


def report(args: argparse.Namespace, ours: dict[str, Any]) -> None:
    kinds = "3/4 Rummy, 1/4 Tile Rummy"
    where = (
        f"{args.processes} process{'es' if args.processes > 1 else ''}, PostgreSQL + Redis"
        if args.processes > 1 or args.shared
        else "1 process, SQLite"
    )
    print(
        f"sockets            {ours['sockets']} ({ours['games']} {args.seats}-seat games, {kinds}; {where})"
    )
    print(f"opened in          {ours['open_s']:.1f} s, machine load {ours['load']}")
    print(
        f"server RSS         {ours['rss_idle_mb']:.0f} MB idle, {ours['rss_open_mb']:.0f} MB with the sockets open"
        + (f", {ours['rss_end_mb']:.0f} MB at the end" if "rss_end_mb" in ours else "")
    )
    print(f"per socket         {per_socket_kb(ours):.0f} KB")
    if args.idle:
        return
    print(
        f"target rate        {args.rate:g} moves/s for {args.seconds:g} s (after {args.warmup:g} s warm-up)"
    )
    print(f"moves/s            {ours['moves_per_s']:.1f} ({ours['acked']} acknowledged)")
    print(
        f"send->ack          p50 {ours['p50_ms']} ms, p99 {ours['p99_ms']} ms, max {ours['max_ms']} ms"
    )
    print(
        f"send->view         p50 {ours['view_p50_ms']} ms, p99 {ours['view_p99_ms']} ms, mean {ours['view_mean_ms']} ms"
    )
    print(f"errors             {ours['errors'] or 'none'}")
    print(
        f"CPU                server {ours['server_cpu_pct']}% of a core, {ours['server_cpu_us_per_move']} µs per move; "
        f"load client {ours['client_cpu_pct']}%; machine load {ours['load']}"
    )
    print(f"GC pauses          {ours['gc']}; {ours['gc_ms_per_s']} ms per second")
    print(f"load client's GC   {CLIENT_GC.report()}")


def report_reference(
    args: argparse.Namespace, ours: dict[str, Any], refs: list[tuple[str, dict[str, Any]]]
) -> None:
    """Each reference's figures, and this server's over them (×2.0: twice the reference's)."""
    print(
        "reference          bare fan-out, 4-seat rooms, nothing persisted or validated, "
        f"no compression; this run: {args.seats}-seat games"
    )
    figures: list[tuple[str, Any, str]] = [("KB/socket", per_socket_kb, ".0f")]
    if not args.idle:
        figures += [
            ("p99 ms", lambda r: r.get("p99_ms"), ".1f"),
            ("moves/s", lambda r: r.get("moves_per_s"), ".0f"),
            ("CPU µs/move", lambda r: r.get("server_cpu_us_per_move"), ".0f"),
        ]
    for name, res in refs:
        cells = []
        for label, get, fmt in figures:
            mine, theirs = get(ours), get(res)
            if theirs is None:
                cells.append(f"{label} -")
                continue
            ratio = f" (×{mine / theirs:.1f})" if mine is not None and theirs else ""
            cells.append(f"{label} {theirs:{fmt}}{ratio}")
        if "load" in res:
            cells.append(f"machine load {res['load']}")
        print(f"  {name:<32} {'; '.join(cells)}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sockets", type=int, default=200)
    parser.add_argument("--seats", type=int, choices=(2, 4), default=4, help="seats per game")
    parser.add_argument("--rate", type=float, default=100.0, help="total moves per second offered")
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--warmup", type=float, default=2.0)
    parser.add_argument(
        "--idle", action="store_true", help="open the sockets and report memory only"
    )
    parser.add_argument(
        "--grace", type=float, default=0.2, help="grace window seconds on the server"
    )
    parser.add_argument(
        "--nice", type=int, default=0, help="server process priority (e.g. -10; root only)"
    )
    parser.add_argument(
        "--wrap",
        default="",
        help="run the server under this command, e.g. 'valgrind --tool=callgrind"
        " --callgrind-out-file=/tmp/cg.%%p' (instructions a move over real sockets)",
    )
    parser.add_argument(
        "--reference",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="also run the bare reference servers with the same shape (default: when found)",
    )
    parser.add_argument("--reference-dir", default=os.environ.get("GAMESHACK_REFERENCE_DIR"))
    parser.add_argument(
        "--processes", type=int, default=1, help="gameshack serve --workers N (PostgreSQL + Redis)"
    )
    parser.add_argument(
        "--shared",
        action="store_true",
        help="on PostgreSQL + Redis even with one process (to compare with --processes N)",
    )
    parser.add_argument(
        "--postgres",
        default=os.environ.get(
            "GAMESHACK_BENCH_POSTGRES", "postgresql://postgres@127.0.0.1:5432/postgres"
        ),
        help="admin URL to create the scratch database with",
    )
    parser.add_argument(
        "--redis-url", default=os.environ.get("GAMESHACK_BENCH_REDIS", "redis://127.0.0.1:6379/13")
    )
    parser.add_argument(
        "--table",
        action="store_true",
        help="run every row of issue 31's table (what `make bench` runs) and print the table",
    )
    args = parser.parse_args()
    raise_file_limit()
    if not args.table:
        run_once(args)
        return
    results = {}
    for name, shape in TABLE_ROWS:
        row = argparse.Namespace(**{**vars(args), **shape})
        print(f"\n== {name}: " + " ".join(f"--{k} {v}" for k, v in shape.items()))
        results[name] = run_once(row)
    print_table(results)


def run_once(args: argparse.Namespace) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """One run of this server and, when asked or found, the references with the same shape;
    prints both and returns the figures (ours, the references')."""
    with game_server(args) as (server, port):
        ours = asyncio.run(measure(args, server, port))
    report(args, ours)
    where = reference_dir(args.reference_dir)
    if args.reference is None:
        args.reference = where is not None
    if not args.reference:
        return ours, []
    if where is None or not (where / "ref_load.py").is_file():
        raise SystemExit(
            f"no reference servers at {where} (--reference-dir or GAMESHACK_REFERENCE_DIR)"
        )
    refs = [
        (" ".join([name, *env]), run_reference(args, where, name, env)) for name, env in REFERENCES
    ]
    report_reference(args, ours, refs)
    return ours, [res for _, res in refs]


# Issue 31's table: each row's shape, one run each (the rest of the options as given).
TABLE_ROWS: list[tuple[str, dict[str, Any]]] = [
    ("memory", {"sockets": 10_000, "idle": True}),
    ("200/s", {"sockets": 1000, "rate": 200.0, "seconds": 30.0}),
    ("500/s", {"sockets": 1000, "rate": 500.0, "seconds": 30.0}),
    ("saturation", {"sockets": 1000, "rate": 5000.0, "seconds": 30.0}),
]


def print_table(results: dict[str, tuple[dict[str, Any], list[dict[str, Any]]]]) -> None:
    """The rows of issue 31's table from the runs above, each against its goal."""

    def refs(name: str, get: Any, fmt: str, unit: str = "") -> str:
        got = [get(r) for r in results[name][1] if get(r) is not None]
        return " / ".join(f"{g:{fmt}}" for g in got) + unit if got else "none"

    def ratios(name: str, get: Any) -> list[float]:
        mine = get(results[name][0])
        return [mine / get(r) for r in results[name][1] if mine and get(r)]

    mem = results["memory"][0]
    cpu = lambda r: r.get("server_cpu_us_per_move")  # noqa: E731
    rate = lambda r: r.get("moves_per_s")  # noqa: E731
    cpu_x = [x for name in ("200/s", "500/s", "saturation") for x in ratios(name, cpu)]
    sat_x = ratios("saturation", rate)
    rows = [
        (
            f"RSS, {mem['sockets']:,} seated sockets",
            f"{mem['rss_open_mb']:.0f} MB ({per_socket_kb(mem):.0f} KB/socket)",
            refs("memory", per_socket_kb, ".0f", " KB/socket"),
            "≤ 400 MB",
            mem["rss_open_mb"] <= 400,
        ),
        *(
            (
                f"p99 send→ack at {name}",
                f"{results[name][0]['p99_ms']} ms",
                refs(name, lambda r: r.get("p99_ms"), ".1f", " ms"),
                goal,
                results[name][0]["p99_ms"] is not None and results[name][0]["p99_ms"] <= limit,
            )
            for name, goal, limit in (("200/s", "≤ 20 ms", 20), ("500/s", "≤ 50 ms", 50))
        ),
        (
            "CPU per move, 200/s, 500/s, saturated",
            ", ".join(f"{cpu(results[n][0])} µs" for n in ("200/s", "500/s", "saturation")),
            ", ".join(refs(n, cpu, ".0f", " µs") for n in ("200/s", "500/s", "saturation")),
            "≤ 2× the reference" + (f" (×{min(cpu_x):.1f}–{max(cpu_x):.1f})" if cpu_x else ""),
            bool(cpu_x) and max(cpu_x) <= 2,
        ),
        (
            "saturation, moves/s",
            f"{rate(results['saturation'][0]):.0f}",
            refs("saturation", rate, ".0f"),
            "≥ 50% of the reference" + (f" ({min(sat_x):.0%}–{max(sat_x):.0%})" if sat_x else ""),
            bool(sat_x) and min(sat_x) >= 0.5,
        ),
    ]
    print("\nissue 31's table (one run each; reference: server_ws.py / server_starlette.py)")
    for label, ours, theirs, goal, met in rows:
        print(f"  {label:<38} {ours:<32} ref {theirs:<40} {goal} {'✔' if met else '✘'}")


if __name__ == "__main__":
    main()
