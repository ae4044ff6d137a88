"""A real server on a free port (uvicorn in a thread) and a small player client for tests."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from websockets.sync.client import ClientConnection, connect

from gameshack.server.app import COOKIE, create_app
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
        config = uvicorn.Config(
            self.app,
            host="127.0.0.1",
            port=self.port,
            log_level="warning",
            ws_max_size=1 << 20,
            lifespan="on",
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.loop: asyncio.AbstractEventLoop | None = None

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


def test_settings(tmp: Path, **over: Any) -> Settings:
    base = {
        "data_dir": tmp,
        "database_url": f"sqlite+aiosqlite:///{tmp / 'gameshack.db'}",
        "grace_seconds": 0.3,
        "bot_delay": 0.0,
        "allow_seed": True,
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
        self.seen = 0  # frames already handed out by next()

    def _recv(self, timeout: float) -> dict[str, Any]:
        text = self.ws.recv(timeout=timeout)
        assert isinstance(text, str)
        self.raw.append(text)
        msg = json.loads(text)
        self.frames.append(msg)
        if msg["type"] == "view":
            self.view = msg
        return msg

    def send(self, **msg: Any) -> None:
        self.ws.send(json.dumps(msg))

    def send_raw(self, raw: str | bytes) -> None:
        self.ws.send(raw)

    def wait(self, pred: Callable[[dict[str, Any]], bool], timeout: float = 10.0) -> dict[str, Any]:
        """The first frame (new or not yet handed out) matching ``pred``."""
        deadline = time.monotonic() + timeout
        while True:
            while self.seen < len(self.frames):
                msg = self.frames[self.seen]
                self.seen += 1
                if pred(msg):
                    return msg
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no matching frame; last: {self.frames[-3:]}")
            self._recv(left)

    def wait_type(self, kind: str, timeout: float = 10.0) -> dict[str, Any]:
        return self.wait(lambda m: m["type"] == kind, timeout)

    def drain(self, quiet: float = 0.05) -> list[dict[str, Any]]:
        """Read until nothing arrives for ``quiet`` seconds."""
        out = []
        with contextlib.suppress(TimeoutError):
            while True:
                out.append(self._recv(quiet))
        self.seen = len(self.frames)
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
            lambda m: m.get("id") == mid and m["type"] in ("ack", "error", "hint"), timeout
        )

    def close(self) -> None:
        self.ws.close()


class Player:
    def __init__(self, server: LiveServer, name: str, emoji: str) -> None:
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
        )
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
