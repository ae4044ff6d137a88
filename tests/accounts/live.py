"""The real app served by uvicorn on 127.0.0.1 in a background thread, on a real SQLite file,
with sign-in mail going to the test SMTP server. Each "device" is its own HTTP client with its
own cookie jar (so its own device token), and opens real WebSockets."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from websockets.sync.client import connect as ws_connect

from gameshack.server.app import create_app
from gameshack.service import GameRow, RecordRow, SeatRow, Settings

from .smtp import SmtpServer, free_port


class LiveServer:
    def __init__(self, data_dir: Path) -> None:
        self.settings = Settings(
            data_dir=data_dir,
            database_url=f"sqlite+aiosqlite:///{data_dir / 'gameshack.db'}",
            grace_seconds=0.3,
            bot_delay=0.0,
            allow_seed=True,
        )
        self.app = create_app(self.settings, freeze_gc=False)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(self.app, host="127.0.0.1", port=self.port, log_level="warning")
        self.server = uvicorn.Server(config)
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(
            target=lambda: self.loop.run_until_complete(self.server.serve()), daemon=True
        )

    def start(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("server did not start")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)

    def run(self, coro: Coroutine[Any, Any, Any]) -> Any:
        """Run a coroutine on the server's event loop (its store and services live there)."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(20)

    @property
    def service(self) -> Any:
        return self.app.state.service

    @property
    def accounts(self) -> Any:
        from gameshack.server.accounts_routes import accounts_runtime

        return accounts_runtime(self.app)

    def device(self) -> Device:
        return Device(self)

    def add_finished_match(
        self,
        code: str,
        kind: str,
        names: tuple[str, ...],
        hands: list[list[int]],
        totals: list[int],
        winners: list[int],
        finished_at: float,
        bots: tuple[bool, ...] | None = None,
    ) -> None:
        """Store a finished match the way the game server records one: a game row, a record
        per hand and a match record, through the store port."""
        bots = bots or tuple(False for _ in names)
        store = self.service.store

        async def go() -> None:
            seats = [
                SeatRow(i, n, "🙂", None if b else f"dev-{code}-{i}", bot="easy" if b else None)
                for i, (n, b) in enumerate(zip(names, bots, strict=True))
            ]
            row = GameRow(
                code=code,
                kind=kind,
                status="finished",
                capacity=len(names),
                target=100,
                practice=any(bots),
                difficulty="easy" if any(bots) else None,
                seed=1,
                seats=seats,
                created_at=finished_at - 600,
                updated_at=finished_at,
            )
            await store.create_game(row)
            records = [
                RecordRow(
                    code,
                    kind,
                    "hand",
                    i + 1,
                    list(names),
                    ["🙂"] * len(names),
                    list(bots),
                    h,
                    [max(range(len(h)), key=h.__getitem__)],
                    "went_out",
                    finished_at - 600,
                    finished_at - 600 + 60 * (i + 1),
                    practice=any(bots),  # as the server marks them
                )
                for i, h in enumerate(hands)
            ]
            records.append(
                RecordRow(
                    code,
                    kind,
                    "match",
                    len(hands),
                    list(names),
                    ["🙂"] * len(names),
                    list(bots),
                    totals,
                    winners,
                    "target_reached",
                    finished_at - 600,
                    finished_at,
                    practice=any(bots),
                )
            )
            await store.save_game(row, records=records)

        self.run(go())


class Device:
    """One browser: its own cookies (device token, session), HTTP and WebSockets."""

    def __init__(self, server: LiveServer) -> None:
        self.server = server
        self.http = httpx.Client(base_url=server.url, timeout=20)
        self.http.get("/api/health")  # the server hands out the device cookie

    def get(self, path: str, **kw: Any) -> httpx.Response:
        return self.http.get(path, **kw)

    def post(self, path: str, body: Any = None, **kw: Any) -> httpx.Response:
        return self.http.post(path, json=body if body is not None else {}, **kw)

    def sign_in(self, email: str, smtp: SmtpServer, nth: int = 1) -> dict[str, Any]:
        r = self.post("/api/account/request-code", {"email": email})
        assert r.status_code == 200, r.text
        code = smtp.inbox.code_for(email, nth)
        r = self.post("/api/account/verify", {"email": email, "code": code})
        assert r.status_code == 200, r.text
        return r.json()

    def socket(self, code: str) -> Any:
        cookie = "; ".join(f"{k}={v}" for k, v in self.http.cookies.items())
        return ws_connect(
            f"ws://127.0.0.1:{self.server.port}/ws/{code}",
            additional_headers={"Cookie": cookie, "Origin": self.server.url},
            open_timeout=10,
        )

    def close(self) -> None:
        self.http.close()


def recv_until(ws: Any, kind: str, timeout: float = 10.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        msg = json.loads(ws.recv(timeout=max(0.01, deadline - time.monotonic())))
        if msg.get("type") == kind:
            return msg
