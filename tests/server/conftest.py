from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from server.wsclient import LiveServer, settings_for


@pytest.fixture
def live(tmp_path: Path) -> Iterator[LiveServer]:
    """The real app on uvicorn with a real SQLite file: short grace window, instant bots."""
    with LiveServer(settings_for(tmp_path)) as server:
        yield server


@pytest.fixture
def slow_grace(tmp_path: Path) -> Iterator[LiveServer]:
    """A grace window long enough to look inside it."""
    with LiveServer(settings_for(tmp_path, grace_seconds=1.5)) as server:
        yield server
