"""A real SMTP server for the tests: aiosmtpd on 127.0.0.1, on a free port, in a thread."""

from __future__ import annotations

import email
import email.policy
import re
import socket
import threading
import time
from email.message import EmailMessage

from aiosmtpd.controller import Controller


class Inbox:
    """aiosmtpd handler that keeps every delivered message."""

    def __init__(self) -> None:
        self.messages: list[EmailMessage] = []
        self._cond = threading.Condition()

    async def handle_DATA(self, server, session, envelope):
        msg = email.message_from_bytes(envelope.content, policy=email.policy.default)
        with self._cond:
            self.messages.append(msg)  # type: ignore[arg-type]
            self._cond.notify_all()
        return "250 Message accepted for delivery"

    def wait_for(self, to: str, count: int = 1, timeout: float = 10.0) -> EmailMessage:
        """The ``count``-th message to ``to`` (1-based), waiting for it to arrive."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                mine = [m for m in self.messages if m["To"] == to]
                if len(mine) >= count:
                    return mine[count - 1]
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"no message #{count} for {to} within {timeout}s")
                self._cond.wait(left)

    def code_for(self, to: str, count: int = 1, timeout: float = 10.0) -> str:
        body = self.wait_for(to, count, timeout).get_content()
        m = re.search(r"\b(\d{6,})\b", body)
        assert m, body
        return m.group(1)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class SmtpServer:
    def __init__(self) -> None:
        self.inbox = Inbox()
        self.port = free_port()
        self.controller = Controller(self.inbox, hostname="127.0.0.1", port=self.port)

    def __enter__(self) -> SmtpServer:
        self.controller.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.controller.stop()

    def env(self) -> dict[str, str]:
        return {
            "GAMESHACK_SMTP_HOST": "127.0.0.1",
            "GAMESHACK_SMTP_PORT": str(self.port),
            "GAMESHACK_SMTP_TLS": "none",
            "GAMESHACK_SMTP_FROM": "GameShack <signin@gameshack.test>",
        }
