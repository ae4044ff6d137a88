"""Passwordless sign-in: one-time codes by email, sessions, and the seats that join an account.

Security properties (each has a test in tests/accounts/ or tests/hostile/):

- codes are ``code_digits`` digits from :mod:`secrets`, valid ``code_ttl`` seconds and once;
- an address holds up to ``live_codes`` codes: a new request voids none of them, and a sign-in
  with any one voids them all;
- each code takes ``max_tries`` tries from the browser that asked for it and ``max_tries`` from
  everyone else, each try taken atomically in the store *before* the comparison; strangers'
  wrong guesses never use up the owner's tries, and there is no per-address try limit a
  stranger could exhaust (so no lockout);
- codes mailed to one address are throttled (``mail_interval``, ``mails_per_hour``), with the
  reason and the wait in the answer; a refused request creates and voids nothing;
- requests and tries are throttled per IP (IPv6 per /64) in moving windows, by
  :class:`gameshack.throttle.Throttle` (in memory, or shared through Redis);
- only ``HMAC-SHA256(secret, address + code)`` is stored, so a copy of the database does not
  reveal live codes (a plain hash of six digits could be reversed in a millisecond);
- the answer to a request is the same whether or not the address has an account (the mail is
  sent in the background, so not even the timing differs); a wrong code, an expired code and
  no code at all give one identical error;
- a session id is 256 random bits, stored as its SHA-256, new at every sign-in (any session the
  browser held before is revoked), and deleted by sign-out.

Brute force, with the defaults: codes are only made when a mail goes out, so one address gets
at most 5 codes an hour, each compared with at most 5 + 5 guesses: at most 50 guesses an hour
reach an address's codes, whatever the number of attacking IPs — a chance of at most 5e-5 an
hour (1.2e-3 a day, while mailing the owner 120 codes a day). One IP makes at most 10 tries a
minute and 60 an hour over all addresses.

Code expiry and sessions follow the injected ``clock``; throttles count in real time.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import ipaddress
import logging
import math
import os
import re
import secrets
import time
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from gameshack.accounts.mailer import Mailer
from gameshack.accounts.models import Account, CodeRecord, SeatRef, SessionRecord
from gameshack.accounts.ports import AccountStore
from gameshack.protocol.names import BadText, clean_name
from gameshack.throttle import Limited, Rate, Throttle

__all__ = [
    "AccountError",
    "AccountService",
    "AccountsConfig",
    "SeatDirectory",
    "SignIn",
    "ip_key",
    "normalize_email",
    "validate_display_name",
]

log = logging.getLogger("gameshack.accounts")

EMAIL_RE = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s.]{2,}$")


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
    max_tries: int = 5  # per code, for its requester and again for everyone else
    live_codes: int = 5  # codes an address holds at once (the oldest goes beyond)
    session_ttl: float = 180 * 24 * 3600.0
    # Mail to one address: at most one per ``mail_interval`` seconds (0: no spacing) and
    # ``mails_per_hour``. Every code made is mailed, so this also bounds the codes to guess.
    mail_interval: int = 60
    mails_per_hour: int = 5
    # Per IP (IPv6: per /64): a household or office asking for codes and typing them.
    requests_per_ip: tuple[Rate, ...] = field(
        default_factory=lambda: (Rate(20, 900), Rate(100, 86400))
    )
    # Growing waits: 10 tries a minute, then 60 an hour, then 300 a day.
    tries_per_ip: tuple[Rate, ...] = field(
        default_factory=lambda: (Rate(10, 60), Rate(60, 3600), Rate(300, 86400))
    )

    @classmethod
    def from_env(cls, secret: bytes, env: Mapping[str, str] | None = None) -> AccountsConfig:
        """``GAMESHACK_SIGNIN_MAIL_INTERVAL`` and ``GAMESHACK_SIGNIN_MAILS_PER_HOUR``."""
        env = os.environ if env is None else env

        def whole(name: str, default: int, least: int) -> int:
            raw = env.get(name, "").strip()
            if not raw:
                return default
            if not raw.isdigit() or int(raw) < least:
                raise ValueError(f"{name} must be a whole number of at least {least}, not {raw!r}")
            return int(raw)

        mails = whole("GAMESHACK_SIGNIN_MAILS_PER_HOUR", 5, 1)
        return cls(
            secret=secret,
            mail_interval=whole("GAMESHACK_SIGNIN_MAIL_INTERVAL", 60, 0),
            mails_per_hour=mails,
            live_codes=mails,  # then no request ever pushes out a live code
        )


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
    """The one rule for names (:func:`gameshack.protocol.names.clean_name`)."""
    try:
        return clean_name(raw)
    except BadText as exc:
        raise AccountError("invalid_name", exc.message) from None


def ip_key(ip: str) -> str:
    """What an IP is throttled as: itself, or its /64 for IPv6 (one host holds a whole /64)."""
    try:
        addr = ipaddress.ip_address(ip)
    except ValueError:
        return ip
    if isinstance(addr, ipaddress.IPv6Address):
        if addr.ipv4_mapped is not None:
            return str(addr.ipv4_mapped)
        return str(ipaddress.ip_network(f"{addr}/64", strict=False))
    return str(addr)


def hash_session_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _wrong_code() -> AccountError:
    # One error for a wrong, expired, used-up or never-requested code: nothing to tell apart.
    return AccountError(
        "wrong_code", "That code is wrong or has expired. Check it, or ask for a new one.", 400
    )


def _limited(exc: Limited, message: str) -> AccountError:
    wait = max(1, exc.retry_after)
    return AccountError("rate_limited", f"{message} {_human_wait(wait)}.", 429, retry_after=wait)


class AccountService:
    def __init__(
        self,
        store: AccountStore,
        mailer: Mailer,
        config: AccountsConfig,
        *,
        clock: Callable[[], float] = time.time,
        seats: SeatDirectory | None = None,
        throttle: Throttle | None = None,
    ) -> None:
        self.store = store
        self.mailer = mailer
        self.config = config
        self.clock = clock
        self.seats = seats
        self.throttle = throttle or Throttle()
        self._sending: set[asyncio.Task[None]] = set()

    # --- codes -----------------------------------------------------------------------------
    def _code_hash(self, email: str, code: str) -> str:
        return hmac.new(self.config.secret, f"{email}\x00{code}".encode(), "sha256").hexdigest()

    def _tag(self, kind: str, value: str) -> str:
        """A keyed digest: what the code table and the throttle's keys hold instead of a
        device, a network or an address."""
        digest = hmac.new(self.config.secret, f"{kind}\x00{value}".encode(), "sha256")
        return digest.hexdigest()[:32]

    def _requester(self, device: str | None, ip: str) -> str:
        """Who asks for or tries a code: the browser's device, else its network."""
        return self._tag("device", device) if device else self._tag("ip", ip_key(ip))

    def _new_code(self) -> str:
        return "".join(secrets.choice("0123456789") for _ in range(self.config.code_digits))

    async def _spend(self, bucket: str, key: str, rates: Iterable[Rate]) -> None:
        """Count one event in every window, or none (raising :class:`Limited`) when any is full."""
        rates = tuple(rates)
        for rate in rates:
            await self.throttle.check(bucket, key, rate)
        for rate in rates:
            await self.throttle.hit(bucket, key, rate)

    async def _mail_allowed(self, email: str) -> None:
        """Spend one mail of the address's budget, or say why not and for how long."""
        cfg = self.config
        windows = [
            (
                Rate(cfg.mails_per_hour, 3600),
                f"{cfg.mails_per_hour} codes were sent to this address in the last hour; "
                "check your inbox or try again in",
            )
        ]
        if cfg.mail_interval > 0:
            windows.append(
                (
                    Rate(1, cfg.mail_interval),
                    f"A code was sent to this address less than {_span(cfg.mail_interval)}"
                    " ago; check your inbox or try again in",
                )
            )
        # The longer wait is the one to tell, so it is checked first; then every window is
        # counted (hit refuses too, if a concurrent request took the last mail meanwhile).
        for step in (self.throttle.check, self.throttle.hit):
            for rate, why in windows:
                try:
                    await step("signin-mail", self._tag("mail", email), rate)
                except Limited as exc:
                    raise _limited(exc, why) from None

    async def request_code(
        self, raw_email: str, ip: str, *, device_token: str | None = None
    ) -> None:
        """Mail a fresh code to the address. The same outcome for every valid address.

        The address's earlier codes stay valid. A request over a limit creates nothing,
        voids nothing and mails nothing: a 429 :class:`AccountError` says why and how long."""
        email = normalize_email(raw_email)
        cfg = self.config
        try:
            await self._spend("signin-request-ip", ip_key(ip), cfg.requests_per_ip)
        except Limited as exc:
            raise _limited(
                exc, "Too many sign-in requests from your network. Try again in"
            ) from None
        await self._mail_allowed(email)
        code = self._new_code()
        now = self.clock()
        await self.store.add_code(
            CodeRecord(
                email=email,
                code_hash=self._code_hash(email, code),
                expires_at=now + cfg.code_ttl,
                tries=0,
                created_at=now,
                requester=self._requester(device_token, ip),
            ),
            keep=cfg.live_codes,
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
        try:
            await self._spend("signin-try-ip", ip_key(ip), cfg.tries_per_ip)
        except Limited as exc:
            raise _limited(
                exc, "Too many sign-in attempts from your network. Try again in"
            ) from None
        if not code.isdigit() or len(code) != cfg.code_digits:
            raise AccountError(
                "invalid_code", f"Enter the {cfg.code_digits}-digit code from the email."
            )
        now = self.clock()
        # The try is taken before the comparison, atomically in the store: ten guesses at once
        # against one code are compared at most max_tries times (per pool).
        live = await self.store.reserve_tries(
            email, self._requester(device_token, ip), now, cfg.max_tries
        )
        match = self._match(email, code, live)
        if match is None:
            raise _wrong_code()
        # Atomic: of two racing requests with the right code only one gets the row.
        if not await self.store.consume_code(email, match.id):
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

    def _match(self, email: str, code: str, live: list[CodeRecord]) -> CodeRecord | None:
        """The code among ``live`` (those whose try was reserved) that ``code`` is, if any."""
        wanted = self._code_hash(email, code)
        found = None
        for rec in live:  # every one compared, in constant time: no timing tells which
            if hmac.compare_digest(wanted, rec.code_hash) and found is None:
                found = rec
        return found

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
    """``40 s``, ``90 s``, ``5 minutes``, ``2 hours``: rounded up."""
    seconds = math.ceil(seconds)
    if seconds <= 90:
        return f"{seconds} s"
    if seconds <= 90 * 60:
        return f"{math.ceil(seconds / 60)} minutes"
    return f"{math.ceil(seconds / 3600)} hours"


def _span(seconds: int) -> str:
    """A window in words: ``a minute``, ``an hour``, else as a wait."""
    return {60: "a minute", 3600: "an hour"}.get(seconds) or _human_wait(seconds)
