"""Test doubles shared by the service tests."""

from __future__ import annotations

import json
from typing import Any

from gameshack.service import Conn


class FakeConn(Conn):
    """A socket that keeps every frame the service sends it, decoded."""

    def __init__(self, code: str, seat: int) -> None:
        self.code, self.seat = code, seat
        self.out: list[dict[str, Any]] = []

    def send(self, text: str) -> None:
        self.out.append(json.loads(text))

    def views(self) -> list[dict[str, Any]]:
        return [m for m in self.out if m["type"] == "view"]
