"""The hostile suite: each abuse of issue 28 against a real server process (see proc.py)."""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "/hostile/" in str(item.fspath):
            item.add_marker(pytest.mark.hostile)
