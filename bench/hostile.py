"""What a normal player feels while one visitor abuses the server (issue 28).

Starts ``gameshack serve`` as a real process (fresh SQLite data directory, the common 1,024
open-file limit), seats a normal player in a two-player Rummy game, and measures that player's
ping round trip while an attacker runs one abuse at a time:

- ``create``: one device creates games from 8 threads, then reads its games list 4 at a time;
- ``slowloris``: 1,100 TCP connections that send request headers one byte every few seconds;
  afterwards a new visitor tries to load the home page;
- ``sockets``: 2,000 game sockets from the attacker's address to the attacker's seat, then one
  chat message to all of them;
- ``body``: one 200 MB POST, streamed; the server's memory before and after.

    .venv/bin/python bench/hostile.py                   # every abuse, this checkout
    .venv/bin/python bench/hostile.py --src /tmp/old/src --abuse create

``--src`` runs another checkout's ``src`` (e.g. ``git worktree add /tmp/old <commit>``) with
this environment, for a before/after in the same minutes. Prints one line per abuse: the
normal player's ping p50/p99/max and failed pings while the abuse ran, and what the attacker got.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
from websockets.sync.client import ClientConnection, connect

COOKIE = "gs_device"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def _low_file_limit() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (1024, 1024))


@contextlib.contextmanager
def server(src: Path | None) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        env = {
            **os.environ,
            "GAMESHACK_DATA_DIR": tmp,
            "GAMESHACK_BOT_DELAY": "0",
            "GAMESHACK_GRACE_SECONDS": "1",
        }
        env.pop("GAMESHACK_DATABASE_URL", None)
        if src is not None:
            env["PYTHONPATH"] = str(src)
        log = open(Path(tmp) / "server.log", "w")  # noqa: SIM115
        proc = subprocess.Popen(
            [sys.executable, "-m", "gameshack.cli", "serve", "--port", str(port)],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            preexec_fn=_low_file_limit,
        )
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while True:
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{base}/api/health", timeout=1).status_code == 200:
                    break
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError((Path(tmp) / "server.log").read_text())
            time.sleep(0.05)
        try:
            yield base, proc
        finally:
            proc.kill()
            proc.wait()
            log.close()


class Visitor:
    """A browser at ``address`` (any 127.x.y.z reaches the server over loopback): the attacker
    comes from 127.0.0.1, the normal player and the new visitor from other addresses."""

    def __init__(self, base: str, address: str = "127.0.0.1") -> None:
        self.base = base
        self.address = address
        transport = httpx.HTTPTransport(local_address=address)
        self.http = httpx.Client(base_url=base, timeout=30, transport=transport)
        self.http.get("/")
        self.token = self.http.cookies[COOKIE]

    def create(self, **body: Any) -> httpx.Response:
        return self.http.post("/api/games", json={"name": "Ana", "emoji": "🙂", **body})

    def socket(self, code: str) -> ClientConnection:
        return connect(
            self.base.replace("http", "ws") + f"/ws/{code}",
            additional_headers={"Cookie": f"{COOKIE}={self.token}", "Origin": self.base},
            open_timeout=10,
            source_address=(self.address, 0),
        ).__enter__()  # entered, as websockets expects of a connection used directly


class Pinger(threading.Thread):
    """The normal player: a ping every 60 ms on a seated socket (within the server's 20 messages
    a second per socket), timing each pong."""

    def __init__(self, ws: ClientConnection) -> None:
        super().__init__(daemon=True)
        self.ws = ws
        self.times: list[float] = []
        self.failed: Counter[str] = Counter()
        self.stop = threading.Event()

    def run(self) -> None:
        n = 0
        while not self.stop.is_set():
            n += 1
            start = time.perf_counter()
            try:
                self.ws.send(json.dumps({"type": "ping", "id": f"p{n}"}))
                while True:
                    msg = json.loads(self.ws.recv(timeout=5))
                    if msg.get("id") == f"p{n}":
                        break
                self.times.append((time.perf_counter() - start) * 1000)
            except Exception as exc:
                if self.stop.is_set():
                    break
                self.failed[type(exc).__name__] += 1
                time.sleep(0.5)
            time.sleep(0.06)

    def figures(self) -> str:
        t = sorted(self.times)
        if not t:
            return f"no pongs, failed {dict(self.failed)}"
        q = lambda p: t[min(len(t) - 1, int(p * len(t)))]  # noqa: E731
        return f"ping p50 {q(0.5):.1f} p99 {q(0.99):.1f} max {t[-1]:.0f} ms, failed {dict(self.failed) or 0}"


def normal_player(base: str) -> tuple[Pinger, ClientConnection]:
    ana, ben = Visitor(base, "127.0.0.2"), Visitor(base, "127.0.0.3")
    code = ana.create(game="rummy", seats=2).json()["code"]
    ben.http.post(f"/api/games/{code}/join", json={"name": "Ben", "emoji": "🦊"})
    ws = ana.socket(code)
    pinger = Pinger(ws)
    pinger.start()
    return pinger, ws


def abuse_create(base: str, seconds: float) -> str:
    attacker = Visitor(base)
    statuses: Counter[int] = Counter()
    end = time.monotonic() + seconds / 2

    def flood() -> None:
        client = httpx.Client(base_url=base, timeout=30, cookies=attacker.http.cookies)
        while time.monotonic() < end:
            r = client.post("/api/games", json={"name": "Mal", "game": "rummy", "seats": 4})
            statuses[r.status_code] += 1

    threads = [threading.Thread(target=flood) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    list_ms: list[float] = []
    end = time.monotonic() + seconds / 2

    def lists() -> None:
        client = httpx.Client(base_url=base, timeout=60, cookies=attacker.http.cookies)
        while time.monotonic() < end:
            start = time.perf_counter()
            client.get("/api/games")
            list_ms.append((time.perf_counter() - start) * 1000)

    threads = [threading.Thread(target=lists) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    worst = max(list_ms) if list_ms else float("nan")
    return f"creates {dict(statuses)}; {len(list_ms)} list reads, slowest {worst:.0f} ms"


def abuse_slowloris(base: str, seconds: float) -> str:
    port = int(base.rsplit(":", 1)[1])
    socks: list[socket.socket] = []
    refused = 0
    for _ in range(1100):
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=2)
            s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
            socks.append(s)
        except OSError:
            refused += 1
    end = time.monotonic() + seconds
    alive = len(socks)
    while time.monotonic() < end:
        alive = 0
        for s in socks:
            with contextlib.suppress(OSError):
                s.sendall(b"X")
                alive += 1
        time.sleep(2)
    start = time.perf_counter()
    try:
        status = Visitor(base, "127.0.0.4").http.get("/", timeout=10).status_code
        visitor = f"new visitor: {status} in {(time.perf_counter() - start) * 1000:.0f} ms"
    except httpx.HTTPError as exc:
        visitor = f"new visitor: {type(exc).__name__} after {time.perf_counter() - start:.1f} s"
    for s in socks:
        s.close()
    return f"opened {len(socks)} (refused {refused}), still open at the end {alive}; {visitor}"


def abuse_sockets(base: str, seconds: float) -> str:
    attacker = Visitor(base)
    code = attacker.create(game="rummy", seats=2).json()["code"]
    conns: list[ClientConnection] = []
    refused = 0
    for _ in range(2000):
        try:
            ws = attacker.socket(code)
            ws.recv(timeout=5)  # hello, or a close
            conns.append(ws)
        except Exception:
            refused += 1
    time.sleep(0.5)
    open_ = sum(1 for ws in conns if ws.protocol.state.name == "OPEN")
    if conns:
        with contextlib.suppress(Exception):
            conns[0].send(json.dumps({"type": "chat", "text": "hello everyone"}))
    time.sleep(seconds)
    for ws in conns:
        with contextlib.suppress(Exception):
            ws.close()
    return f"{len(conns)} accepted, {open_} still open, {refused} refused"


def abuse_body(base: str, seconds: float, pid: int) -> str:
    before = rss_mb(pid)
    chunk = b"x" * (1 << 20)

    def body() -> Iterator[bytes]:
        for _ in range(200):
            yield chunk

    start = time.perf_counter()
    try:
        r = httpx.post(
            base + "/api/games",
            content=body(),
            headers={"Content-Type": "application/json", "Origin": base},
            timeout=60,
        )
        got = f"{r.status_code}"
    except httpx.HTTPError as exc:
        got = type(exc).__name__
    took = time.perf_counter() - start
    time.sleep(min(seconds, 2))
    return f"200 MB POST: {got} in {took:.1f} s; RSS {before:.0f} -> {rss_mb(pid):.0f} MB"


ABUSES: dict[str, Callable[..., str]] = {
    "create": abuse_create,
    "slowloris": abuse_slowloris,
    "sockets": abuse_sockets,
    "body": abuse_body,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--src", type=Path, help="run this checkout's src/ instead")
    parser.add_argument("--abuse", default="all", choices=["all", *ABUSES])
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # the attacker needs many sockets
    names = list(ABUSES) if args.abuse == "all" else [args.abuse]
    print(f"server: {args.src or 'this checkout'}")
    for name in names:
        with server(args.src) as (base, proc):
            pinger, ws = normal_player(base)
            time.sleep(1)
            quiet = pinger.figures()
            pinger.times.clear()
            fn = ABUSES[name]
            extra = (proc.pid,) if name == "body" else ()
            try:
                got = fn(base, args.seconds, *extra)
            except Exception as exc:
                got = f"attack ended with {type(exc).__name__}: {exc}"
            pinger.stop.set()
            pinger.join(10)
            print(f"{name:10s} | quiet: {quiet} | under abuse: {pinger.figures()} | {got}")
            with contextlib.suppress(Exception):
                ws.close()


if __name__ == "__main__":
    main()
