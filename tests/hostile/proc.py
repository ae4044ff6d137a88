"""The hostile suite's server: ``gameshack serve`` as a real process on a real SQLite file.

Each test starts its own process with the environment it needs (limits, a data directory on a
tiny tmpfs, ...), attacks it over real HTTP/WebSocket/TCP, and checks what a normal player sees.
:func:`ping_p99` is that normal player: a seated socket sending pings, timing each pong.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

from server.wsclient import Player, free_port

__all__ = ["ServerProcess", "ping_times", "quantile", "running_server"]


class ServerProcess:
    """A real server process; enough of ``LiveServer`` (``base``, ``port``) for :class:`Player`."""

    def __init__(
        self, data_dir: Path, env: dict[str, str] | None = None, *, port: int | None = None
    ) -> None:
        self.data_dir = data_dir
        self.port = port or free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log_path = data_dir.parent / f"server-{self.port}-{time.monotonic_ns()}.log"
        full_env = {
            **os.environ,
            "GAMESHACK_DATA_DIR": str(data_dir),
            "GAMESHACK_GRACE_SECONDS": "0.3",
            "GAMESHACK_BOT_DELAY": "0",
            "GAMESHACK_ALLOW_SEED": "1",
            **(env or {}),
        }
        if "GAMESHACK_DATABASE_URL" not in (env or {}):
            full_env.pop("GAMESHACK_DATABASE_URL", None)
        self._log = open(self.log_path, "w")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "gameshack.cli", "serve", "--port", str(self.port)],
            env=full_env,
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )

    def wait_ready(self, timeout: float = 30.0) -> ServerProcess:
        deadline = time.monotonic() + timeout
        while True:
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{self.base}/api/health", timeout=1).status_code == 200:
                    return self
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode}:\n{self.log()}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"server did not start:\n{self.log()}")
            time.sleep(0.05)

    def log(self) -> str:
        self._log.flush()
        return self.log_path.read_text(errors="replace")

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def terminate(self, timeout: float = 20.0) -> float:
        """SIGTERM; the seconds the process took to exit (raises if it did not)."""
        start = time.monotonic()
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout)
        return time.monotonic() - start

    def stop(self) -> None:
        try:
            self.terminate()
        except subprocess.TimeoutExpired:
            self.kill()
        self._log.close()

    def player(self, name: str, emoji: str = "🙂") -> Player:
        return Player(self, name, emoji)  # type: ignore[arg-type]


@contextlib.contextmanager
def running_server(data_dir: Path, env: dict[str, str] | None = None) -> Iterator[ServerProcess]:
    data_dir.mkdir(parents=True, exist_ok=True)
    server = ServerProcess(data_dir, env)
    try:
        yield server.wait_ready()
    finally:
        server.stop()


def ping_times(sock: object, count: int, gap: float = 0.02) -> list[float]:
    """Round trips (ms) of ``count`` pings on a game socket (a ``server.wsclient.Sock``)."""
    out = []
    for _ in range(count):
        start = time.perf_counter()
        reply = sock.request(type="ping")  # type: ignore[attr-defined]
        assert reply["type"] == "pong", reply
        out.append((time.perf_counter() - start) * 1000)
        time.sleep(gap)
    return out


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]
