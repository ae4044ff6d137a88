"""The server edge under abuse (issue 28, points 3, 4, 8, 9), against a real server process.

Each attacker connects from its own loopback address (127.0.0.x: all of 127/8 is this machine),
so the per-address limits it trips are its own, and the normal player — 127.0.0.1, a seated
socket and plain HTTP — shows what everyone else sees meanwhile.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import resource
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from gameshack.server.app import COOKIE
from hostile.proc import ServerProcess, ping_times, quantile, running_server

LIMITS = {
    "GAMESHACK_HEADER_TIMEOUT": "2",
    "GAMESHACK_BODY_TIMEOUT": "1.5",
    "GAMESHACK_LOOKUPS_PER_MINUTE": "20",
    "GAMESHACK_SOCKETS_PER_ADDRESS": "6",
    "GAMESHACK_SOCKETS_PER_SEAT": "3",
}


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """One server for the abuses that don't need their own; each attacker has its address."""
    with running_server(tmp_path_factory.mktemp("edge") / "data", LIMITS) as server:
        yield server


class Visitor:
    """A browser-like client from one source address: HTTP with its device cookie, sockets."""

    def __init__(self, server: ServerProcess, address: str) -> None:
        self.server = server
        self.address = address
        transport = httpx.HTTPTransport(local_address=address)
        self.http = httpx.Client(base_url=server.base, transport=transport, timeout=20)
        self.http.get("/")
        self.token = self.http.cookies[COOKIE]

    def socket(self, code: str) -> ClientConnection:
        sock = socket.create_connection(
            ("127.0.0.1", self.server.port), source_address=(self.address, 0)
        )
        return connect(
            f"ws://127.0.0.1:{self.server.port}/ws/{code}",
            sock=sock,
            additional_headers={"Cookie": f"{COOKIE}={self.token}", "Origin": self.server.base},
            open_timeout=10,
        ).__enter__()  # entered, as websockets expects of a connection used directly


def closed_with(ws: ClientConnection) -> tuple[int, str]:
    """Read until the server closes the socket; its close code and reason."""
    with pytest.raises(ConnectionClosed) as info:
        while True:
            ws.recv(timeout=10)
    assert info.value.rcvd is not None
    return info.value.rcvd.code, info.value.rcvd.reason


def seated(ws: ClientConnection) -> None:
    """The socket got its seat: the server sends hello, the view and the chat history."""
    while json.loads(ws.recv(timeout=10))["type"] != "chat_history":
        pass


def rss_kb(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    match = re.search(r"VmRSS:\s+(\d+) kB", status)
    assert match
    return int(match.group(1))


def read_response(sock: socket.socket, timeout: float = 10.0) -> bytes:
    """Whatever the server sends until it closes (or ``timeout``)."""
    sock.settimeout(timeout)
    out = b""
    with contextlib.suppress(OSError):
        while chunk := sock.recv(65536):
            out += chunk
    return out


# ------------------------------------------------------------------ point 3: connections


@pytest.mark.slow
def test_slowloris_is_capped_per_address_and_timed_out(tmp_path: Path) -> None:
    # The tryout's server had the common limit of 1,024 open files, and 1,007 connections
    # trickling their headers locked everyone out. Same limit here, and 1,100 such connections
    # from one address.
    data = tmp_path / "data"
    data.mkdir()
    server = ServerProcess(data, {"GAMESHACK_HEADER_TIMEOUT": "2"})
    try:
        server.wait_ready()
        # Lowered from outside once it runs (the CLI raises its own soft limit to the hard one).
        resource.prlimit(server.proc.pid, resource.RLIMIT_NOFILE, (1024, 1024))
        ana, ben = server.player("Ana"), server.player("Ben")
        code = ana.create(game="rummy")["code"]
        ben.join(code)
        sock = ana.connect(code)
        # 16 pings a second: under the socket's message rate (20/s), which drops the excess.
        baseline = ping_times(sock, 30, gap=0.06)

        attack: dict[str, Any] = {}
        thread = threading.Thread(target=_slowloris, args=(server.port, 1100, 4.0, attack))
        thread.start()
        while "opened" not in attack:
            time.sleep(0.01)
        during = ping_times(sock, 60, gap=0.06)
        lobby = ben.http.get("/api/games")  # a new HTTP connection mid-attack
        thread.join()

        p99_before, p99_during = quantile(baseline, 0.99), quantile(during, 0.99)
        print(
            f"\nslowloris 1,100 conns from one address, 1,024-file server: "
            f"refused {attack['refused']}, held {attack['held']} then closed by the header "
            f"timeout {attack['timed_out']} (last open {attack['open_at_end']}); normal player "
            f"ping p99 {p99_before:.1f} ms before, {p99_during:.1f} ms during; lobby "
            f"{lobby.status_code}"
        )
        assert attack["held"] <= 128  # connections_per_address
        assert attack["refused"] >= 1100 - 128
        assert attack["timed_out"] == attack["held"]  # each held one got 408 and was closed
        assert attack["open_at_end"] == 0
        assert lobby.status_code == 200
        assert p99_during < 250, during
        assert sock.request(type="ping")["type"] == "pong"
    finally:
        server.stop()


def _slowloris(port: int, count: int, seconds: float, out: dict[str, Any]) -> None:
    """``count`` connections from 127.0.0.2 sending a header line every 0.25 s, for
    ``seconds``; how the server answered each."""
    conns: list[socket.socket] = []
    for _ in range(count):
        s = socket.socket()
        s.bind(("127.0.0.2", 0))
        s.connect(("127.0.0.1", port))
        s.sendall(b"GET /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        s.setblocking(False)
        conns.append(s)
    out["opened"] = True
    answers: dict[socket.socket, bytes] = {}
    alive = set(conns)
    deadline = time.monotonic() + seconds
    while alive and time.monotonic() < deadline:
        for s in list(alive):
            try:
                got = s.recv(4096)
            except BlockingIOError:
                got = None
            except OSError:
                got = b""
            if got is not None:  # an answer, or the end of the connection
                answers[s] = answers.get(s, b"") + got
                if not got:
                    alive.discard(s)
                continue
            with contextlib.suppress(OSError):
                s.send(b"X-Slow: 1\r\n")
        time.sleep(0.25)
    out["refused"] = sum(a.startswith(b"HTTP/1.1 429") for a in answers.values())
    out["timed_out"] = sum(a.startswith(b"HTTP/1.1 408") for a in answers.values())
    out["held"] = count - out["refused"]
    out["open_at_end"] = len(alive)
    for s in conns:
        s.close()


def test_sockets_per_address_and_per_seat(srv: ServerProcess) -> None:
    # One address may hold 6 game sockets, one seat 3 (LIMITS); the tryout opened 5,000.
    a, b, c = (Visitor(srv, "127.0.0.4") for _ in range(3))
    code = a.http.post("/api/games", json={"game": "rummy", "seats": 3, "name": "A"}).json()["code"]
    for v, name in ((b, "B"), (c, "C")):
        assert v.http.post(f"/api/games/{code}/join", json={"name": name}).status_code == 200
    held = []

    def hold(v: Visitor, n: int) -> None:
        for _ in range(n):
            ws = v.socket(code)
            seated(ws)
            held.append(ws)

    hold(a, 3)
    seat_code, seat_reason = closed_with(a.socket(code))  # the seat's 4th
    hold(b, 3)
    address_code, address_reason = closed_with(c.socket(code))  # the address's 7th
    print(
        f"\nseat cap: {seat_code} {seat_reason!r}; address cap: {address_code} {address_reason!r}"
    )
    assert (seat_code, address_code) == (4429, 4429)
    assert "3 open connections" in seat_reason  # the service's sentence
    assert address_reason == "too many connections"
    # Everyone else is served, and the held sockets still answer.
    ana = srv.player("Ana")
    game = ana.create(game="tiles")["code"]
    with ana.socket(game) as sock:
        assert sock.request(type="ping")["type"] == "pong"
    held[0].send(json.dumps({"type": "ping", "id": "p"}))
    while json.loads(held[0].recv(timeout=10))["type"] != "pong":
        pass
    for ws in held:
        ws.close()
    # Closed sockets are counted out again.
    time.sleep(0.3)
    ws = c.socket(code)
    seated(ws)
    ws.close()


# ------------------------------------------------------------------ point 4: request bodies


@pytest.mark.parametrize("framing", ["content-length", "chunked"])
def test_a_200_mb_post_is_refused_without_growing_the_process(
    srv: ServerProcess, framing: str
) -> None:
    # The tryout's 200 MB POST took the process to 690 MB.
    before = rss_kb(srv.proc.pid)
    size = 200 << 20
    s = socket.create_connection(("127.0.0.1", srv.port), source_address=("127.0.0.5", 0))
    head = "POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    head += (
        f"Content-Length: {size}\r\n\r\n"
        if framing == "content-length"
        else "Transfer-Encoding: chunked\r\n\r\n"
    )
    sent = [0]

    def upload() -> None:
        chunk = b"7" * 65536
        framed = chunk if framing == "content-length" else b"10000\r\n" + chunk + b"\r\n"
        with contextlib.suppress(OSError):
            s.sendall(head.encode())
            while sent[0] < size:
                s.sendall(framed)
                sent[0] += len(chunk)

    start = time.monotonic()
    uploader = threading.Thread(target=upload)
    uploader.start()
    answer = read_response(s)
    took = time.monotonic() - start
    uploader.join(20)
    s.close()
    grown = (rss_kb(srv.proc.pid) - before) / 1024
    print(
        f"\n200 MB POST ({framing}): {answer[:12]!r} in {took * 1000:.0f} ms after "
        f"{sent[0] / 1e6:.1f} MB sent; server RSS {grown:+.1f} MB"
    )
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert b'"too_large"' in answer and b"connection: close" in answer.lower()
    assert took < 5
    assert sent[0] < size  # the rest was never read
    assert grown < 20


def test_a_slow_body_gets_408(srv: ServerProcess) -> None:
    s = socket.create_connection(("127.0.0.1", srv.port), source_address=("127.0.0.5", 0))
    s.sendall(
        b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b'Content-Length: 100\r\n\r\n{"game":'
    )
    start = time.monotonic()
    answer = read_response(s)
    took = time.monotonic() - start
    s.close()
    assert answer.startswith(b"HTTP/1.1 408"), answer[:200]
    assert 1.0 < took < 4  # GAMESHACK_BODY_TIMEOUT=1.5


def test_slow_headers_get_408_even_while_trickling(srv: ServerProcess) -> None:
    s = socket.create_connection(("127.0.0.1", srv.port), source_address=("127.0.0.6", 0))
    start = time.monotonic()
    s.sendall(b"GET / HTTP/1.1\r\n")
    with contextlib.suppress(OSError):
        for _ in range(20):  # a header line every 0.2 s: slower than the 2 s deadline allows
            time.sleep(0.2)
            s.sendall(b"X-Slow: 1\r\n")
    answer = read_response(s)
    took = time.monotonic() - start
    s.close()
    assert answer.startswith(b"HTTP/1.1 408"), answer[:200]
    assert took < 5


# ------------------------------------------------------------------ point 8: edge checks


def test_cross_origin_posts_are_refused(srv: ServerProcess) -> None:
    ana, ben = srv.player("Ana"), srv.player("Ben")
    code = ana.create(game="rummy")["code"]
    ben.join(code)
    leave = f"/api/games/{code}/leave"
    for headers in (
        {"Origin": "http://evil.example"},
        {"Origin": "null"},
        {"Sec-Fetch-Site": "cross-site"},
        {"Sec-Fetch-Site": "same-site"},  # a sibling subdomain is another site
    ):
        r = ben.http.post(leave, headers=headers)
        assert r.status_code == 403, (headers, r.text)
        assert r.json()["error"]["code"] == "cross_site"
    assert ana.http.get(f"/api/games/{code}").json()["status"] != "ended"
    # The accounts routes too (one middleware for every route).
    r = ben.http.post(
        "/api/account/request-code",
        json={"email": "x@example.org"},
        headers={"Origin": "http://evil.example"},
    )
    assert r.status_code == 403 and r.json()["error"]["code"] == "cross_site"
    # This site's own page, and a script (no Origin, no Sec-Fetch-Site), may.
    assert ben.http.post(leave, headers={"Origin": srv.base}).status_code == 200


def test_lone_surrogate_is_malformed_and_the_socket_stays(srv: ServerProcess) -> None:
    ana = srv.player("Ana")
    code = ana.create(game="tiles")["code"]
    with ana.socket(code) as sock:
        for raw in (
            '{"type":"ping","id":"\\ud800"}',  # the tryout's frame: closed the socket
            '{"type":"chat","text":"hi \\udfff","id":"c1"}',
            '{"type":"ping","\\udc00":1}',
            b'{"type":"chat","text":"\xed\xa0\x80"}',  # an encoded surrogate in a binary frame
        ):
            sock.send_raw(raw)
            error = sock.wait_type("error")
            assert error["code"] == "malformed", error
            assert sock.request(type="ping")["type"] == "pong"
        assert "id" not in sock.frames[-4] or sock.frames[-4].get("id") in (None, "c1")


def test_device_cookie_is_secure_behind_an_https_proxy(tmp_path: Path) -> None:
    env = {"GAMESHACK_PROXY_HEADERS": "1", "FORWARDED_ALLOW_IPS": "127.0.0.1"}
    with running_server(tmp_path / "data", env) as server:
        https = httpx.get(f"{server.base}/", headers={"X-Forwarded-Proto": "https"})
        plain = httpx.get(f"{server.base}/")
        # From an address that is not the trusted proxy, the header is ignored.
        other = httpx.Client(transport=httpx.HTTPTransport(local_address="127.0.0.7")).get(
            f"{server.base}/", headers={"X-Forwarded-Proto": "https"}
        )
    assert "secure" in https.headers["set-cookie"].lower()
    assert "secure" not in plain.headers["set-cookie"].lower()
    assert "secure" not in other.headers["set-cookie"].lower()


def test_code_probing_is_rate_limited(srv: ServerProcess) -> None:
    ana = srv.player("Ana")
    code = ana.create(game="rummy")["code"]
    prober = Visitor(srv, "127.0.0.8")
    misses = 0
    start = time.monotonic()
    while True:
        r = prober.http.get(f"/api/games/{secrets.token_hex(3)[:5].upper()}")
        if r.status_code != 404:
            break
        misses += 1
        assert misses <= 20
    print(
        f"\ncode probing: {misses} misses in {time.monotonic() - start:.2f} s, then "
        f"{r.status_code} Retry-After {r.headers.get('retry-after')}"
    )
    assert misses == 20  # GAMESHACK_LOOKUPS_PER_MINUTE
    assert r.status_code == 429 and r.json()["error"]["code"] == "too_many_lookups"
    assert 1 <= int(r.headers["retry-after"]) <= 61
    # Over the limit, a real code is refused the same way (the answer tells nothing) ...
    assert prober.http.get(f"/api/games/{code}").status_code == 429
    assert prober.http.post(f"/api/games/{code}/join", json={"name": "P"}).status_code == 429
    assert closed_with(prober.socket(code))[0] == 4429
    # ... while everyone else looks games up as usual.
    assert ana.http.get(f"/api/games/{code}").status_code == 200
    assert srv.player("Ben").join(code)["seat"] == 1


def test_healthz(srv: ServerProcess) -> None:
    # 503 with the reason while writes fail: tests/hostile/test_storage.py, on a full disk.
    for path in ("/healthz", "/api/health"):
        r = httpx.get(srv.base + path)
        assert r.status_code == 200 and r.json() == {"ok": True}


# ------------------------------------------------------------------ point 9 and shutdown


def _start_fails(tmp_path: Path, env: dict[str, str]) -> tuple[int, list[str]]:
    full = {**os.environ, "GAMESHACK_DATA_DIR": str(tmp_path / "unused"), **env}
    done = subprocess.run(
        [sys.executable, "-m", "gameshack.cli", "serve", "--port", "0"],
        env=full,
        capture_output=True,
        text=True,
        timeout=60,
    )
    lines = (done.stdout + done.stderr).strip().splitlines()
    return done.returncode, [line for line in lines if not line.startswith("INFO:")]


@pytest.mark.parametrize("case", ["read-only", "under-a-file", "bad-url", "sync-driver"])
def test_unusable_data_dir_or_database_is_one_sentence(tmp_path: Path, case: str) -> None:
    env: dict[str, str] = {}
    if case == "read-only":
        ro = tmp_path / "ro"
        ro.mkdir()
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", str(ro)], capture_output=True
        )
        if done.returncode != 0:
            pytest.skip("cannot mount a read-only tmpfs here")
        env["GAMESHACK_DATA_DIR"] = str(ro)
    elif case == "under-a-file":
        (tmp_path / "file").write_text("not a directory")
        env["GAMESHACK_DATA_DIR"] = str(tmp_path / "file" / "data")
    elif case == "bad-url":
        env["GAMESHACK_DATABASE_URL"] = "nope://somewhere/db"
    else:  # PostgreSQL through a driver that is not asyncio's (and not installed)
        env["GAMESHACK_DATABASE_URL"] = "postgresql+psycopg2://localhost/games"
    try:
        status, lines = _start_fails(tmp_path, env)
    finally:
        if case == "read-only":
            subprocess.run(["umount", "-l", str(tmp_path / "ro")], capture_output=True)
    print(f"\n{case}: exit {status}: {lines}")
    assert status == 2
    assert len(lines) == 1 and lines[0].startswith("gameshack: "), lines
    assert "Traceback" not in lines[0]


def test_sigterm_stops_within_the_bound(tmp_path: Path) -> None:
    # In-flight work that would never finish by itself: a request whose body never comes, a
    # seated socket, a connection half-way through its headers.
    env = {
        "GAMESHACK_SHUTDOWN_TIMEOUT": "1.5",
        "GAMESHACK_BODY_TIMEOUT": "60",
        "GAMESHACK_HEADER_TIMEOUT": "60",
    }
    with running_server(tmp_path / "data", env) as server:
        ana = server.player("Ana")
        sock = ana.connect(ana.create(game="rummy")["code"])
        stuck = socket.create_connection(("127.0.0.1", server.port))
        stuck.sendall(
            b"POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: 50\r\n\r\n{"
        )
        slow = socket.create_connection(("127.0.0.1", server.port))
        slow.sendall(b"GET / HTTP/1.1\r\n")
        time.sleep(0.3)
        took = server.terminate()
        print(f"\nSIGTERM with stuck work: exited in {took:.2f} s ({server.proc.returncode})")
        assert took < 2 * 1.5 + 2
        assert server.proc.returncode in (0, -signal.SIGTERM)
        for s in (stuck, slow):
            s.close()
        with contextlib.suppress(Exception):
            sock.close()
