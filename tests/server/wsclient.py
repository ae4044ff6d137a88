"""A real server on a free port (uvicorn in a thread) and a small player client for tests."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from websockets.sync.client import ClientConnection, connect

from gameshack.protocol.outbound import join_log
from gameshack.server.app import COOKIE, create_app
from gameshack.server.protocol_http import ConnectionLimits, edge_http_protocol
from gameshack.service import GameService, Settings
from gameshack.service.ports import Store


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LiveServer:
    """uvicorn serving :func:`create_app` in a background thread, on its own event loop."""

    def __init__(self, settings: Settings, store: Store | None = None) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.app = create_app(settings, store, freeze_gc=False)
        # The edge's HTTP protocol, as `gameshack serve` runs it (header deadline, per-address cap).
        self.limits = ConnectionLimits(settings.connections_per_address, settings.header_timeout)
        config = uvicorn.Config(
            self.app,
            host="127.0.0.1",
            port=self.port,
            log_level="warning",
            ws_max_size=1 << 20,
            lifespan="on",
            http=edge_http_protocol(self.limits),
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.loop: asyncio.AbstractEventLoop | None = None

    def _run(self) -> None:
        self.loop = asyncio.new_event_loop()
        asyncio.set_event_loop(self.loop)
        self.loop.run_until_complete(self.server.serve())

    def call(self, coro: Any, timeout: float = 10.0) -> Any:
        """Run a coroutine on the server's event loop (e.g. to read the store)."""
        assert self.loop is not None
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def __enter__(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("server did not start")
            time.sleep(0.01)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(10)

    @property
    def service(self) -> GameService:
        return self.app.state.service  # type: ignore[no-any-return]

    def player(self, name: str, emoji: str = "🙂") -> Player:
        return Player(self, name, emoji)


def settings_for(tmp: Path, **over: Any) -> Settings:
    base = {
        "data_dir": tmp,
        "database_url": f"sqlite+aiosqlite:///{tmp / 'gameshack.db'}",
        "grace_seconds": 0.05,
        "bot_delay": 0.0,
        "allow_seed": True,
        # Tests create hundreds of games from 127.0.0.1 within minutes: not an abuse here.
        "games_per_hour": 10_000,
    }
    base.update(over)
    return Settings(**base)


class Sock:
    """One game WebSocket, remembering the latest view."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.frames: list[dict[str, Any]] = []
        self.raw: list[str] = []
        self.view: dict[str, Any] | None = None
        self.pending: list[dict[str, Any]] = []  # frames not yet matched by wait()
        self.log: tuple[int, list[Any]] | None = None  # the last view's v and log (join_log)

    def _recv(self, timeout: float) -> dict[str, Any]:
        text = self.ws.recv(timeout=timeout)
        assert isinstance(text, str)
        self.raw.append(text)
        msg = json.loads(text)
        if msg["type"] == "view":  # its whole log, as the web client puts it back together
            self.log = join_log(self.log, msg)
            self.view = msg
        self.frames.append(msg)
        self.pending.append(msg)
        return msg

    def send(self, **msg: Any) -> None:
        self.ws.send(json.dumps(msg))

    def send_raw(self, raw: str | bytes) -> None:
        self.ws.send(raw)

    def wait(self, pred: Callable[[dict[str, Any]], bool], timeout: float = 10.0) -> dict[str, Any]:
        """The first frame not yet matched (or drained) that satisfies ``pred``."""
        deadline = time.monotonic() + timeout
        while True:
            for i, msg in enumerate(self.pending):
                if pred(msg):
                    del self.pending[i]
                    return msg
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no matching frame; last: {self.frames[-3:]}")
            self._recv(left)

    def until_view(
        self, pred: Callable[[dict[str, Any]], bool], timeout: float = 10.0
    ) -> dict[str, Any]:
        """The latest view if it satisfies ``pred`` (it may have been read, e.g. drained by
        :func:`drive`), else the next view that does."""
        if self.view is not None and pred(self.view):
            return self.view
        return self.wait(lambda m: m["type"] == "view" and pred(m), timeout)

    def wait_type(self, kind: str, timeout: float = 10.0) -> dict[str, Any]:
        return self.wait(lambda m: m["type"] == kind, timeout)

    def drain(self, quiet: float = 0.05) -> list[dict[str, Any]]:
        """Read until nothing arrives for ``quiet`` seconds."""
        out = []
        with contextlib.suppress(TimeoutError):
            while True:
                out.append(self._recv(quiet))
        self.pending.clear()
        return out

    def act(self, action: str, timeout: float = 10.0) -> dict[str, Any]:
        """Send an action on the latest view and return its ack or error."""
        assert self.view is not None
        mid = f"m{len(self.frames)}-{time.monotonic_ns()}"
        self.send(type="act", v=self.view["v"], action=action, id=mid)
        return self.wait(lambda m: m.get("id") == mid and m["type"] in ("ack", "error"), timeout)

    def request(self, timeout: float = 10.0, **msg: Any) -> dict[str, Any]:
        mid = f"r{len(self.frames)}-{time.monotonic_ns()}"
        self.send(**msg, id=mid)
        return self.wait(
            lambda m: m.get("id") == mid and m["type"] in ("ack", "error", "hint", "pong"), timeout
        )

    def close(self) -> None:
        self.ws.close()


class Player:
    def __init__(self, server: LiveServer, name: str, emoji: str = "🙂") -> None:
        self.server = server
        self.name = name
        self.emoji = emoji
        self.http = httpx.Client(base_url=server.base, timeout=20)
        self.http.get("/")  # gets the device cookie
        self.token = self.http.cookies[COOKIE]

    def create(self, **body: Any) -> dict[str, Any]:
        r = self.http.post("/api/games", json={"name": self.name, "emoji": self.emoji, **body})
        assert r.status_code == 201, r.text
        return r.json()  # type: ignore[no-any-return]

    def join(self, code: str) -> dict[str, Any]:
        r = self.http.post(f"/api/games/{code}/join", json={"name": self.name, "emoji": self.emoji})
        assert r.status_code == 200, r.text
        return r.json()  # type: ignore[no-any-return]

    def games(self) -> list[dict[str, Any]]:
        return self.http.get("/api/games").json()["games"]  # type: ignore[no-any-return]

    def connect(self, code: str, origin: str | None = None) -> Sock:
        ws = connect(
            f"ws://127.0.0.1:{self.server.port}/ws/{code}",
            additional_headers={
                "Cookie": f"{COOKIE}={self.token}",
                "Origin": origin or self.server.base,
            },
            max_size=None,
            open_timeout=10,
        ).__enter__()  # entered, as websockets expects of a connection used directly
        sock = Sock(ws)
        sock.wait_type("chat_history")
        return sock

    @contextlib.contextmanager
    def socket(self, code: str) -> Iterator[Sock]:
        sock = self.connect(code)
        try:
            yield sock
        finally:
            sock.close()


def engine_of(kind: str) -> Any:
    import gameshack.rules.rummy as rummy
    import gameshack.rules.tiles as tiles

    return rummy if kind == "rummy" else tiles


def drive(
    server: LiveServer | Mapping[int, LiveServer],
    code: str,
    socks: dict[int, Sock],
    stop: Callable[[Any], bool],
    *,
    timeout: float = 60.0,
    difficulty: str = "medium",
    prefer: Callable[[int, dict[str, Any]], str | None] | None = None,
) -> int:
    """Play the human seats in ``socks`` over their sockets until ``stop(room)``.

    Each human plays what a bot of ``difficulty`` would play from its own engine view (so hands
    really end); every action travels as notation over the WebSocket, and the driver only acts on
    a seat's *latest* view (the server's state and the socket agree on the version). Like a
    well-behaved client it keeps each socket within the server's message rate (the server drops
    frames past it, which would leave an action waiting for its ack).
    Returns the number of acknowledged actions.

    ``server`` may name each seat's server (several servers serving one site, tests/multi): a
    seat is then played from its own server's copy of the game, and ``stop`` is asked of the
    first seat's. ``prefer(seat, view)`` may name an action to play instead of the bot's.
    """
    import random

    from gameshack.bots import decide

    servers = server if isinstance(server, Mapping) else dict.fromkeys(socks, server)
    rooms = {seat: servers[seat].service.rooms[code] for seat in socks}
    room = rooms[min(socks)]
    server = servers[min(socks)]
    engine = engine_of(room.row.kind)
    memory: dict[int, Any] = {}
    acks = 0
    # per socket, a token bucket a little slower than the server's (settings.rate_*)
    settings = server.service.settings
    rate, burst = settings.rate_per_sec * 0.8, settings.rate_burst * 0.5
    tokens = {seat: burst for seat in socks}
    last = {seat: time.monotonic() for seat in socks}
    deadline = time.monotonic() + timeout
    while not stop(room):
        if time.monotonic() > deadline:
            raise TimeoutError(
                f"game {code} did not reach the stop condition; v={room.row.version}"
            )
        for sock in socks.values():
            sock.drain(0.002)
        rooms = {seat: servers[seat].service.rooms.get(code, rooms[seat]) for seat in socks}
        room = rooms[min(socks)]
        state = room.state
        ready = (
            [
                s
                for s in sorted(engine.to_act(state))
                if state is not None
                if s in socks
                and socks[s].view is not None
                and socks[s].view["v"] == rooms[s].view_v.get(s)
                and rooms[s].row.version == room.row.version
                and socks[s].view["legal"]
                and socks[s].view["legal"] != ["undo"]
            ]
            if state is not None
            else []
        )
        if not ready or room.row.status != "active":
            time.sleep(0.003)
            continue
        if stop(room):  # the server's clock (a grace window) may have moved the game on
            break
        seat = ready[0]
        legal = socks[seat].view["legal"]
        chosen = prefer(seat, socks[seat].view) if prefer is not None else None
        if chosen is not None:
            text = chosen
        elif legal == ["next"]:
            text = "next"
        else:
            rng = random.Random(room.row.version * 7 + seat)
            action, memory[seat] = decide(
                room.row.kind, difficulty, engine.view(state, seat), memory.get(seat), rng
            )
            text = str(action)
        now = time.monotonic()
        tokens[seat] = min(burst, tokens[seat] + (now - last[seat]) * rate)
        last[seat] = now
        if tokens[seat] < 1:
            time.sleep((1 - tokens[seat]) / rate)
            tokens[seat] = 1.0
            last[seat] = time.monotonic()
        tokens[seat] -= 1
        reply = socks[seat].act(text)
        if reply["type"] == "ack":
            acks += 1
        else:
            # Only a race with the server's own clock (the grace window closing) may refuse.
            assert reply["code"] in ("stale", "not_your_turn"), reply
    return acks
