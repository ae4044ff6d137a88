"""Sending the sign-in code: real SMTP through aiosmtplib, or the console for a local install.

The code is logged only by :class:`ConsoleMailer`, which the app uses when no SMTP host is set.
:class:`SmtpMailer` never logs it — not on success and not on failure.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass
from email.message import EmailMessage
from typing import Final, Literal, Protocol

__all__ = [
    "ConsoleMailer",
    "Mailer",
    "SmtpMailer",
    "SmtpSettings",
    "build_code_message",
    "mailer_from_env",
]

log = logging.getLogger("gameshack.accounts.mail")

TlsMode = Literal["starttls", "ssl", "none"]


class Mailer(Protocol):
    configured: bool
    """True when mail really leaves the machine (then codes must never reach a log)."""

    async def send_code(self, email: str, code: str, minutes_valid: int) -> None: ...


@dataclass(frozen=True, slots=True)
class SmtpSettings:
    host: str
    port: int
    tls: TlsMode
    user: str | None
    password: str | None
    sender: str
    timeout: float = 15.0

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> SmtpSettings | None:
        """Read ``GAMESHACK_SMTP_*``; None when no host is set (console mode)."""
        env = os.environ if env is None else env
        host = env.get("GAMESHACK_SMTP_HOST", "").strip()
        if not host:
            return None
        tls = env.get("GAMESHACK_SMTP_TLS", "starttls").strip().lower() or "starttls"
        if tls not in ("starttls", "ssl", "none"):
            raise ValueError(f"GAMESHACK_SMTP_TLS must be starttls, ssl or none, not {tls!r}")
        default_port = {"starttls": 587, "ssl": 465, "none": 25}[tls]
        port = int(env.get("GAMESHACK_SMTP_PORT", "").strip() or default_port)
        return cls(
            host=host,
            port=port,
            tls=tls,  # type: ignore[arg-type]
            user=env.get("GAMESHACK_SMTP_USER") or None,
            password=env.get("GAMESHACK_SMTP_PASSWORD") or None,
            sender=env.get("GAMESHACK_SMTP_FROM", "").strip() or f"GameShack <no-reply@{host}>",
        )


def build_code_message(sender: str, email: str, code: str, minutes_valid: int) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = email
    msg["Subject"] = f"Your GameShack sign-in code: {code}"
    msg.set_content(
        f"Your GameShack sign-in code is:\n\n    {code}\n\n"
        f"Type it on the sign-in screen within {minutes_valid} minutes. It works once.\n\n"
        "If you did not ask to sign in, ignore this email: nobody can sign in without the code.\n"
    )
    return msg


class SmtpMailer:
    configured = True

    def __init__(self, settings: SmtpSettings) -> None:
        self.settings = settings

    async def send_code(self, email: str, code: str, minutes_valid: int) -> None:
        s = self.settings
        msg = build_code_message(s.sender, email, code, minutes_valid)
        import aiosmtplib  # here, not at start-up: most processes never send a mail

        await aiosmtplib.send(
            msg,
            hostname=s.host,
            port=s.port,
            username=s.user,
            password=s.password,
            use_tls=s.tls == "ssl",
            start_tls=s.tls == "starttls",
            timeout=s.timeout,
        )
        log.info("sent a sign-in code to %s", email)


class ConsoleMailer:
    """No SMTP configured: print the code so a local install can sign in out of the box."""

    configured = False

    async def send_code(self, email: str, code: str, minutes_valid: int) -> None:
        # WARNING so it shows with any logging set-up (Python's last-resort handler included);
        # framed so that it stands out among the request lines of the console.
        log.warning(
            "\n%s\n  GameShack sign-in code for %s: %s\n  (valid %d minutes; set "
            "GAMESHACK_SMTP_HOST to send codes by email instead)\n%s",
            _FRAME,
            email,
            code,
            minutes_valid,
            _FRAME,
        )


_FRAME: Final = "=" * 72


def mailer_from_env(env: Mapping[str, str] | None = None) -> Mailer:
    settings = SmtpSettings.from_env(env)
    return ConsoleMailer() if settings is None else SmtpMailer(settings)
