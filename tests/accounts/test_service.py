"""The sign-in rules, one test per security point, through the in-memory store and real SMTP."""

from __future__ import annotations

import asyncio
import logging
import re

import pytest

from gameshack.accounts import (
    AccountError,
    AccountsConfig,
    AccountService,
    ConsoleMailer,
    InMemoryAccountStore,
    SeatRef,
    SmtpMailer,
    SmtpSettings,
)
from gameshack.accounts.service import hash_session_token
from gameshack.throttle import Rate

from .smtp import SmtpServer

SECRET = b"test-secret-0123456789abcdef"


class Seats:
    """A stand-in seat directory: which seats each device holds."""

    def __init__(self) -> None:
        self.by_device: dict[str, list[SeatRef]] = {}

    async def seats_of_devices(self, device_tokens):
        return [s for d in device_tokens for s in self.by_device.get(d, [])]


def make_service(clock, mailer=None, **cfg) -> AccountService:
    # Tests here sign in again right after signing in: no minute between two mails unless a
    # test asks (the spacing has its own tests, in real time: the throttle's clock is real).
    cfg.setdefault("mail_interval", 0)
    return AccountService(
        InMemoryAccountStore(),
        mailer or ConsoleMailer(),
        AccountsConfig(secret=SECRET, **cfg),
        clock=clock,
        seats=Seats(),
    )


async def request(svc: AccountService, email: str, smtp: SmtpServer, nth: int = 1) -> str:
    await svc.request_code(email, "10.0.0.1")
    await svc.drain()
    return smtp.inbox.code_for(email.lower(), nth)


@pytest.fixture
def svc(clock, smtp):
    return make_service(clock, SmtpMailer(SmtpSettings.from_env(smtp.env())))


async def test_code_arrives_by_smtp_and_signs_in(svc, smtp):
    code = await request(svc, "Ana@Example.com", smtp)
    msg = smtp.inbox.wait_for("ana@example.com")
    assert msg["From"] == "GameShack <signin@gameshack.test>"
    assert code in msg["Subject"]
    assert len(code) == 6 and code.isdigit()
    sign_in = await svc.verify_code("ana@example.com", code, "10.0.0.1")
    assert sign_in.account.email == "ana@example.com"
    assert sign_in.needs_name
    assert (await svc.account_for(sign_in.session_token)).id == sign_in.account.id


async def test_code_is_stored_only_as_keyed_hash(svc, smtp):
    code = await request(svc, "ana@example.com", smtp)
    assert code not in repr(svc.store.codes)
    [rec] = svc.store.codes["ana@example.com"]
    # Not a plain hash either: without the server secret the six digits can't be brute-forced.
    import hashlib

    assert rec.code_hash != hashlib.sha256(code.encode()).hexdigest()
    assert rec.code_hash != hashlib.sha256(f"ana@example.com\x00{code}".encode()).hexdigest()


async def test_codes_come_from_a_cryptographic_source_and_vary(clock, monkeypatch):
    import secrets

    calls = []
    real = secrets.choice

    def spy(seq):
        calls.append(1)
        return real(seq)

    monkeypatch.setattr(secrets, "choice", spy)
    svc = make_service(clock)
    codes = {svc._new_code() for _ in range(50)}
    assert len(calls) == 50 * 6
    assert len(codes) > 45  # 50 draws from a million: repeats would mean a broken source


async def test_expired_code_is_refused(svc, smtp, clock):
    code = await request(svc, "ana@example.com", smtp)
    clock.advance(600)  # exactly ten minutes: no longer valid
    with pytest.raises(AccountError) as e:
        await svc.verify_code("ana@example.com", code, "10.0.0.1")
    assert e.value.code == "wrong_code"
    assert "ana@example.com" not in svc.store.codes


async def test_code_just_inside_ten_minutes_works(svc, smtp, clock):
    code = await request(svc, "ana@example.com", smtp)
    clock.advance(599)
    await svc.verify_code("ana@example.com", code, "10.0.0.1")


async def test_code_works_once(svc, smtp):
    code = await request(svc, "ana@example.com", smtp)
    await svc.verify_code("ana@example.com", code, "10.0.0.1")
    with pytest.raises(AccountError) as e:
        await svc.verify_code("ana@example.com", code, "10.0.0.1")
    assert e.value.code == "wrong_code"


async def test_sixth_try_fails_even_with_the_right_code(svc, smtp):
    code = await request(svc, "ana@example.com", smtp)
    wrong = f"{(int(code) + 1) % 1_000_000:06d}"
    for _ in range(5):
        with pytest.raises(AccountError) as e:
            await svc.verify_code("ana@example.com", wrong, "10.0.0.1")
        assert e.value.code == "wrong_code"
    with pytest.raises(AccountError) as e:
        await svc.verify_code("ana@example.com", code, "10.0.0.1")
    assert e.value.code == "wrong_code"


async def test_four_wrong_tries_then_the_right_code_works(svc, smtp):
    code = await request(svc, "ana@example.com", smtp)
    wrong = f"{(int(code) + 1) % 1_000_000:06d}"
    for _ in range(4):
        with pytest.raises(AccountError):
            await svc.verify_code("ana@example.com", wrong, "10.0.0.1")
    await svc.verify_code("ana@example.com", code, "10.0.0.1")


async def test_new_request_keeps_the_previous_code(svc, smtp):
    """A new request voids nothing (it used to void the previous code, so anyone could void the
    owner's); a sign-in with either code voids both."""
    first = await request(svc, "ana@example.com", smtp, 1)
    second = await request(svc, "ana@example.com", smtp, 2)
    if first == second:  # one in a million; what we test is which code still works
        pytest.skip("the two random codes happened to be equal")
    await svc.verify_code("ana@example.com", first, "10.0.0.1")
    with pytest.raises(AccountError) as e:
        await svc.verify_code("ana@example.com", second, "10.0.0.1")
    assert e.value.code == "wrong_code"


async def test_mail_spacing_per_address_and_request_limit_per_ip(clock):
    """Mail to one address: one per interval, a few an hour (whoever asks, from wherever);
    requests per IP. A refused request says why and when to come back."""
    svc = make_service(clock, mail_interval=1, mails_per_hour=3, requests_per_ip=(Rate(5, 900),))
    await svc.request_code("ana@example.com", "10.0.0.1")
    with pytest.raises(AccountError) as e:
        await svc.request_code("ana@example.com", "10.0.0.2")  # another IP: the address's limit
    assert (e.value.code, e.value.status, e.value.retry_after) == ("rate_limited", 429, 1)
    assert e.value.message == (
        "A code was sent to this address less than 1 s ago; check your inbox or try again in 1 s."
    )
    await asyncio.sleep(1.05)
    await svc.request_code("ana@example.com", "10.0.0.2")
    await asyncio.sleep(1.05)
    await svc.request_code("ana@example.com", "10.0.0.3")
    await asyncio.sleep(1.05)
    with pytest.raises(AccountError) as e:  # the fourth in an hour
        await svc.request_code("ana@example.com", "10.0.0.4")
    assert e.value.status == 429 and 3500 < e.value.retry_after <= 3600
    assert e.value.message.startswith(
        "3 codes were sent to this address in the last hour; check your inbox or try again in "
    )
    assert len(svc.store.codes["ana@example.com"]) == 3  # the refused ones made no code
    # The IP limit: 5 requests from 10.0.0.1, the refused ones included.
    await svc.request_code("ben@example.com", "10.0.0.1")
    await svc.request_code("cy@example.com", "10.0.0.1")
    await svc.request_code("dee@example.com", "10.0.0.1")
    with pytest.raises(AccountError):
        await svc.request_code("ana@example.com", "10.0.0.1")  # the address's limit
    with pytest.raises(AccountError) as e:
        await svc.request_code("eve@example.com", "10.0.0.1")  # a fresh address: the IP's
    assert e.value.status == 429 and e.value.message.startswith(
        "Too many sign-in requests from your network."
    )
    await svc.drain()


async def test_try_rate_limit_per_ip(clock):
    svc = make_service(clock, tries_per_ip=(Rate(4, 900),))
    for i in range(4):
        with pytest.raises(AccountError) as e:
            await svc.verify_code(f"p{i}@example.com", "123456", "10.9.9.9")
        assert e.value.code == "wrong_code"
    with pytest.raises(AccountError) as e:
        await svc.verify_code("p9@example.com", "123456", "10.9.9.9")
    assert e.value.code == "rate_limited"


async def test_same_answer_for_known_and_unknown_address(svc, smtp):
    # Make "ana" a known account.
    code = await request(svc, "ana@example.com", smtp)
    await svc.verify_code("ana@example.com", code, "10.0.0.1")
    accounts_before = dict(svc.store.accounts)
    known = await svc.request_code("ana@example.com", "10.0.0.2")
    unknown = await svc.request_code("zed@example.com", "10.0.0.2")
    assert known is None and unknown is None
    await svc.drain()
    # Both got a code mail, and asking did not create an account for the unknown address.
    assert smtp.inbox.wait_for("zed@example.com")
    assert smtp.inbox.wait_for("ana@example.com", 2)
    assert svc.store.accounts == accounts_before
    # A wrong code reads the same for a known address, an unknown one and one never asked for.
    errors = []
    for addr in ("ana@example.com", "zed@example.com", "nobody@example.com"):
        with pytest.raises(AccountError) as e:
            await svc.verify_code(addr, "000000" if code != "000000" else "111111", "10.0.0.3")
        errors.append((e.value.code, e.value.message, e.value.status))
    assert len(set(errors)) == 1


async def test_invalid_email_is_refused_and_changes_nothing(clock):
    svc = make_service(clock)
    for bad in (
        "",
        "ana",
        "ana@",
        "a b@example.com",
        "ana@example.com\r\nBcc: x@y.z",
        "x" * 250 + "@e.com",
    ):
        with pytest.raises(AccountError) as e:
            await svc.request_code(bad, "10.0.0.1")
        assert e.value.code == "invalid_email"
    assert svc.store.codes == {}


async def test_sessions_are_random_hashed_rotated_and_revocable(svc, smtp):
    code = await request(svc, "ana@example.com", smtp)
    first = await svc.verify_code("ana@example.com", code, "10.0.0.1", device_token="dev-a")
    assert len(first.session_token) >= 43  # 32 bytes, base64url: 256 bits
    assert first.session_token not in repr(svc.store.sessions)
    assert hash_session_token(first.session_token) in svc.store.sessions
    # Signing in again from the same browser rotates: the old id stops working.
    code = await request(svc, "ana@example.com", smtp, 2)
    second = await svc.verify_code(
        "ana@example.com",
        code,
        "10.0.0.1",
        device_token="dev-a",
        previous_session=first.session_token,
    )
    assert second.session_token != first.session_token
    assert await svc.account_for(first.session_token) is None
    assert (await svc.account_for(second.session_token)).email == "ana@example.com"
    await svc.sign_out(second.session_token)
    assert await svc.account_for(second.session_token) is None
    assert svc.store.sessions == {}


async def test_session_expires(clock, smtp):
    svc = make_service(clock, SmtpMailer(SmtpSettings.from_env(smtp.env())), session_ttl=3600)
    code = await request(svc, "ana@example.com", smtp)
    s = await svc.verify_code("ana@example.com", code, "10.0.0.1")
    clock.advance(3599)
    assert await svc.account_for(s.session_token) is not None
    clock.advance(1)
    assert await svc.account_for(s.session_token) is None
    assert svc.store.sessions == {}


async def test_choose_name(svc, smtp):
    code = await request(svc, "ana@example.com", smtp)
    s = await svc.verify_code("ana@example.com", code, "10.0.0.1")
    with pytest.raises(AccountError):
        await svc.choose_name(s.session_token, "   ")
    with pytest.raises(AccountError):
        await svc.choose_name(s.session_token, "x" * 25)
    acc = await svc.choose_name(s.session_token, "  Ana   Banana ")
    assert acc.display_name == "Ana Banana"
    with pytest.raises(AccountError) as e:
        await svc.choose_name("not-a-session", "Eve")
    assert e.value.status == 401


async def test_device_seats_join_the_account(svc, smtp):
    seats = svc.seats
    seats.by_device["phone"] = [SeatRef("AAAAA", 0)]
    code = await request(svc, "ana@example.com", smtp)
    s = await svc.verify_code("ana@example.com", code, "10.0.0.1", device_token="phone")
    # A game the phone joins later, while signed in, joins too.
    seats.by_device["phone"].append(SeatRef("BBBBB", 1))
    assert await svc.seats_for_session(s.session_token) == {
        SeatRef("AAAAA", 0),
        SeatRef("BBBBB", 1),
    }
    # After sign-out the games stay with the account; the phone's new games no longer join.
    await svc.sign_out(s.session_token)
    seats.by_device["phone"].append(SeatRef("CCCCC", 0))
    code = await request(svc, "ana@example.com", smtp, 2)
    laptop = await svc.verify_code("ana@example.com", code, "10.0.0.1", device_token="laptop")
    assert await svc.seats_for_session(laptop.session_token) == {
        SeatRef("AAAAA", 0),
        SeatRef("BBBBB", 1),
    }
    assert await svc.seats_for_session(None) == set()


async def test_code_not_logged_when_smtp_configured(svc, smtp, caplog):
    caplog.set_level(logging.DEBUG)
    code = await request(svc, "ana@example.com", smtp)
    await svc.verify_code("ana@example.com", code, "10.0.0.1")
    # Every logger in this process except the test SMTP server's own ("mail.log"), which stands
    # for the remote mail server and of course sees the message.
    ours = [r for r in caplog.records if not r.name.startswith("mail.log")]
    assert any(r.name.startswith("gameshack") for r in ours)
    logged = "\n".join(r.getMessage() for r in ours)
    assert code not in logged


async def test_code_not_logged_when_smtp_fails(clock, caplog):
    caplog.set_level(logging.DEBUG)
    # Nothing listens on this port: sending fails, and the failure is logged without the code.
    from .smtp import free_port

    settings = SmtpSettings("127.0.0.1", free_port(), "none", None, None, "gs@test", timeout=2)
    sent: list[str] = []

    class Spy(SmtpMailer):
        async def send_code(self, email, code, minutes_valid):
            sent.append(code)
            await super().send_code(email, code, minutes_valid)

    svc = make_service(clock, Spy(settings))
    await svc.request_code("ana@example.com", "10.0.0.1")
    await svc.drain()
    assert sent
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "could not send" in logged
    assert sent[0] not in logged


async def test_console_mailer_logs_the_code_without_smtp(clock, caplog):
    caplog.set_level(logging.INFO)
    svc = make_service(clock)
    await svc.request_code("ana@example.com", "10.0.0.1")
    await svc.drain()
    m = re.search(r"code for ana@example.com: (\d{6})", caplog.text)
    assert m
    await svc.verify_code("ana@example.com", m.group(1), "10.0.0.1")


def test_smtp_settings_from_env():
    assert SmtpSettings.from_env({}) is None
    s = SmtpSettings.from_env(
        {"GAMESHACK_SMTP_HOST": "mail.example.org", "GAMESHACK_SMTP_TLS": "ssl"}
    )
    assert (s.port, s.tls, s.user) == (465, "ssl", None)
    s = SmtpSettings.from_env(
        {"GAMESHACK_SMTP_HOST": "m", "GAMESHACK_SMTP_USER": "u", "GAMESHACK_SMTP_PASSWORD": "p"}
    )
    assert (s.port, s.tls, s.user, s.password) == (587, "starttls", "u", "p")
    with pytest.raises(ValueError):
        SmtpSettings.from_env({"GAMESHACK_SMTP_HOST": "m", "GAMESHACK_SMTP_TLS": "maybe"})
