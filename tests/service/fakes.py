"""Test doubles shared by the service tests."""

from __future__ import annotations

import json
from typing import Any

from gameshack.protocol.outbound import join_log
from gameshack.service import Conn


class FakeConn(Conn):
    """A socket that keeps every frame the service sends it, decoded."""

    def __init__(self, code: str, seat: int) -> None:
        self.code, self.seat = code, seat
        self.out: list[dict[str, Any]] = []
        self.log: tuple[int, list[Any]] | None = None  # the last view's v and log (join_log)

    def send(self, text: str) -> None:
        msg = json.loads(text)
        if msg["type"] == "view":  # its whole log, as the web client puts it back together
            self.log = join_log(self.log, msg)
        self.out.append(msg)

    def views(self) -> list[dict[str, Any]]:
        return [m for m in self.out if m["type"] == "view"]
