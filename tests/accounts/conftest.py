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
def live_env() -> dict[str, str]:
    """Settings of the ``live`` server. These tests sign in again right after signing in, so no
    minute between two mails to one address; a test that checks the spacing overrides this
    (``@pytest.mark.parametrize("live_env", [{}])``: the defaults)."""
    return {"GAMESHACK_SIGNIN_MAIL_INTERVAL": "0"}


@pytest.fixture
def live(tmp_path, smtp, monkeypatch, live_env):
    """The real app on a real port, mailing through the test SMTP server."""
    from .live import LiveServer

    monkeypatch.delenv("GAMESHACK_SIGNIN_MAIL_INTERVAL", raising=False)
    monkeypatch.delenv("GAMESHACK_SIGNIN_MAILS_PER_HOUR", raising=False)
    for k, v in {**smtp.env(), **live_env}.items():
        monkeypatch.setenv(k, v)
    monkeypatch.setenv("GAMESHACK_SECRET_KEY", "live-test-secret")
    server = LiveServer(tmp_path).start()
    try:
        yield server
    finally:
        server.stop()
