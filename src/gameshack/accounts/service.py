"""Passwordless sign-in: one-time codes by email, sessions, and the seats that join an account.

Security properties (each has a test in tests/accounts/):

- codes are ``code_digits`` digits from :mod:`secrets`, valid ``code_ttl`` seconds and once;
- ``max_tries`` wrong tries void a code; a new request voids the previous code;
- only ``HMAC-SHA256(secret, address + code)`` is stored, so a copy of the database does not
  reveal live codes (a plain hash of six digits could be reversed in a millisecond);
- requests and tries are rate limited per address and per IP;
- the answer to a request is the same whether or not the address has an account (the mail is
  sent in the background, so not even the timing differs); a wrong code, an expired code and
  no code at all give one identical error;
- a session id is 256 random bits, stored as its SHA-256, new at every sign-in (any session the
  browser held before is revoked), and deleted by sign-out.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import re
import secrets
import time
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Protocol

from gameshack.accounts.mailer import Mailer
from gameshack.accounts.models import Account, CodeRecord, SeatRef, SessionRecord
from gameshack.accounts.ports import AccountStore
from gameshack.accounts.ratelimit import Limit, RateLimiter

__all__ = [
    "AccountError",
    "AccountService",
    "AccountsConfig",
    "SeatDirectory",
    "SignIn",
    "normalize_email",
    "validate_display_name",
]

log = logging.getLogger("gameshack.accounts")

EMAIL_RE = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s.]{2,}$")
MAX_NAME_LEN = 24


class AccountError(Exception):
    """A refusal the client can show: ``code`` to switch on, ``message`` for people."""

    def __init__(self, code: str, message: str, status: int = 400, retry_after: int = 0) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status
        self.retry_after = retry_after


@dataclass(frozen=True, slots=True)
class AccountsConfig:
    secret: bytes
    code_digits: int = 6
    code_ttl: float = 600.0  # ten minutes
    max_tries: int = 5
    session_ttl: float = 180 * 24 * 3600.0
    # Requests: a typo and a resend or two per address, a household or office per IP.
    request_per_address: Limit = field(default_factory=lambda: Limit(5, 900.0))
    request_per_ip: Limit = field(default_factory=lambda: Limit(20, 900.0))
    # Tries across codes, so that asking for new codes does not buy unlimited guesses.
    tries_per_address: Limit = field(default_factory=lambda: Limit(10, 900.0))
    tries_per_ip: Limit = field(default_factory=lambda: Limit(30, 900.0))


@dataclass(frozen=True, slots=True)
class SignIn:
    session_token: str  # the cookie value; only its hash is stored
    account: Account

    @property
    def needs_name(self) -> bool:
        return not self.account.display_name


class SeatDirectory(Protocol):
    """What the accounts service needs from the game server: the seats devices hold."""

    async def seats_of_devices(self, device_tokens: Iterable[str]) -> list[SeatRef]: ...


def normalize_email(raw: str) -> str:
    email = unicodedata.normalize("NFC", raw or "").strip().lower()
    if len(email) > 254 or not EMAIL_RE.match(email):
        raise AccountError("invalid_email", "Enter a valid email address.")
    return email


def validate_display_name(raw: str) -> str:
    name = " ".join(unicodedata.normalize("NFC", raw or "").split())
    if not name:
        raise AccountError("invalid_name", "Pick a name (1–24 characters).")
    if len(name) > MAX_NAME_LEN:
        raise AccountError("invalid_name", f"Names are at most {MAX_NAME_LEN} characters.")
    if any(unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn") for ch in name):
        raise AccountError("invalid_name", "That name has characters that can't be shown.")
    return name


def hash_session_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _wrong_code() -> AccountError:
    # One error for a wrong, expired, used-up or never-requested code: nothing to tell apart.
    return AccountError(
        "wrong_code", "That code is wrong or has expired. Check it, or ask for a new one.", 400
    )


class AccountService:
    def __init__(
        self,
        store: AccountStore,
        mailer: Mailer,
        config: AccountsConfig,
        *,
        clock: Callable[[], float] = time.time,
        seats: SeatDirectory | None = None,
    ) -> None:
        self.store = store
        self.mailer = mailer
        self.config = config
        self.clock = clock
        self.seats = seats
        self.limiter = RateLimiter(clock)
        self._sending: set[asyncio.Task[None]] = set()

    # --- codes -----------------------------------------------------------------------------
    def _code_hash(self, email: str, code: str) -> str:
        return hmac.new(self.config.secret, f"{email}\x00{code}".encode(), "sha256").hexdigest()

    def _new_code(self) -> str:
        return "".join(secrets.choice("0123456789") for _ in range(self.config.code_digits))

    def _limit(self, bucket: str, key: str, limit: Limit, what: str) -> None:
        wait = self.limiter.retry_after(bucket, key, limit)
        if wait > 0:
            raise AccountError(
                "rate_limited",
                f"Too many {what}. Try again in {_human_wait(wait)}.",
                429,
                retry_after=int(wait) + 1,
            )

    async def request_code(self, raw_email: str, ip: str) -> None:
        """Send a fresh code to the address. The same outcome for every valid address."""
        email = normalize_email(raw_email)
        cfg = self.config
        self._limit("request-ip", ip, cfg.request_per_ip, "sign-in requests")
        self._limit("request-address", email, cfg.request_per_address, "codes requested")
        self.limiter.hit("request-ip", ip, cfg.request_per_ip)
        self.limiter.hit("request-address", email, cfg.request_per_address)
        code = self._new_code()
        now = self.clock()
        await self.store.put_code(
            CodeRecord(
                email=email,
                code_hash=self._code_hash(email, code),
                expires_at=now + cfg.code_ttl,
                tries=0,
                created_at=now,
            )
        )
        task = asyncio.create_task(self._send(email, code))
        self._sending.add(task)
        task.add_done_callback(self._sending.discard)

    async def _send(self, email: str, code: str) -> None:
        try:
            await self.mailer.send_code(email, code, round(self.config.code_ttl / 60))
        except Exception as exc:  # the request already answered; the log is all we can do
            # Never the code, and never the exception's text, which may quote the message.
            log.error("could not send the sign-in code to %s: %s", email, type(exc).__name__)

    async def drain(self) -> None:
        """Wait for mail still being sent (tests, shutdown)."""
        while self._sending:
            await asyncio.gather(*list(self._sending), return_exceptions=True)

    async def verify_code(
        self,
        raw_email: str,
        raw_code: str,
        ip: str,
        *,
        device_token: str | None = None,
        previous_session: str | None = None,
    ) -> SignIn:
        email = normalize_email(raw_email)
        code = "".join((raw_code or "").split())
        cfg = self.config
        self._limit("try-ip", ip, cfg.tries_per_ip, "attempts")
        self._limit("try-address", email, cfg.tries_per_address, "attempts")
        self.limiter.hit("try-ip", ip, cfg.tries_per_ip)
        self.limiter.hit("try-address", email, cfg.tries_per_address)
        if not code.isdigit() or len(code) != cfg.code_digits:
            raise AccountError(
                "invalid_code", f"Enter the {cfg.code_digits}-digit code from the email."
            )
        rec = await self.store.get_code(email)
        now = self.clock()
        if rec is None:
            raise _wrong_code()
        if now >= rec.expires_at or rec.tries >= cfg.max_tries:
            await self.store.delete_code(email)
            raise _wrong_code()
        if not hmac.compare_digest(self._code_hash(email, code), rec.code_hash):
            if await self.store.add_wrong_try(email, rec.code_hash) >= cfg.max_tries:
                await self.store.delete_code(email)
            raise _wrong_code()
        # Atomic: of two racing requests with the right code only one gets the row.
        if not await self.store.consume_code(email, rec.code_hash):
            raise _wrong_code()
        account = await self.store.get_or_create_account(email, now)
        if previous_session:  # rotation: whatever this browser held before stops working
            await self.store.delete_session(hash_session_token(previous_session))
        token = secrets.token_urlsafe(32)  # 256 bits
        await self.store.create_session(
            SessionRecord(
                id_hash=hash_session_token(token),
                account_id=account.id,
                device_token=device_token,
                created_at=now,
                expires_at=now + cfg.session_ttl,
            )
        )
        if device_token:
            await self._claim_device(account.id, device_token)
        log.info("signed in account %s", account.id)
        return SignIn(session_token=token, account=account)

    # --- sessions --------------------------------------------------------------------------
    async def session(self, token: str | None) -> tuple[SessionRecord, Account] | None:
        if not token or len(token) > 200:
            return None
        rec = await self.store.get_session(hash_session_token(token))
        if rec is None:
            return None
        if rec.expires_at <= self.clock():
            await self.store.delete_session(rec.id_hash)
            return None
        account = await self.store.get_account(rec.account_id)
        return None if account is None else (rec, account)

    async def account_for(self, token: str | None) -> Account | None:
        found = await self.session(token)
        return None if found is None else found[1]

    async def choose_name(self, token: str | None, raw_name: str) -> Account:
        found = await self.session(token)
        if found is None:
            raise AccountError("signed_out", "Sign in first.", 401)
        name = validate_display_name(raw_name)
        await self.store.set_display_name(found[1].id, name)
        account = await self.store.get_account(found[1].id)
        assert account is not None
        return account

    async def sign_out(self, token: str | None) -> None:
        found = await self.session(token)
        if found is None:
            return
        rec, account = found
        # The device's games stay with the account (they joined it while signed in).
        if rec.device_token:
            await self._claim_device(account.id, rec.device_token)
        await self.store.delete_session(rec.id_hash)

    # --- games on every device -------------------------------------------------------------
    async def _claim_device(self, account_id: str, device_token: str) -> None:
        if self.seats is not None:
            await self.store.claim_seats(
                account_id, await self.seats.seats_of_devices([device_token])
            )

    async def account_seats(self, account_id: str) -> set[SeatRef]:
        """Seats that belong to the account: claimed ones, plus every seat a device signed in
        to it holds now (so a game started on a signed-in phone shows up on the laptop)."""
        seats = set(await self.store.claimed_seats(account_id))
        if self.seats is not None:
            devices = await self.store.live_devices(account_id, self.clock())
            if devices:
                seats.update(await self.seats.seats_of_devices(devices))
        return seats

    async def seats_for_session(self, token: str | None) -> set[SeatRef]:
        """The extra seats a browser may open because it is signed in (empty when not)."""
        found = await self.session(token)
        return set() if found is None else await self.account_seats(found[1].id)


def _human_wait(seconds: float) -> str:
    if seconds < 60:
        return f"{int(seconds) + 1} seconds"
    minutes = int(seconds // 60) + 1
    return f"{minutes} minutes"
