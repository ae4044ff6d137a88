from __future__ import annotations

from collections.abc import Iterator

import pytest

from .smtp import SmtpServer


class FakeClock:
    """An injectable clock: tests move time instead of sleeping."""

    def __init__(self, start: float = 1_800_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def smtp() -> Iterator[SmtpServer]:
    with SmtpServer() as server:
        yield server


@pytest.fixture
def live(tmp_path, smtp, monkeypatch):
    """The real app on a real port, mailing through the test SMTP server."""
    from .live import LiveServer

    for k, v in smtp.env().items():
        monkeypatch.setenv(k, v)
    monkeypatch.setenv("GAMESHACK_SECRET_KEY", "live-test-secret")
    server = LiveServer(tmp_path).start()
    try:
        yield server
    finally:
        server.stop()
