"""Issue 28, point 5: no stranger can lock an address out of signing in, or bomb its mailbox.

Through the SQL store on a real SQLite file and real SMTP (aiosmtpd). Two "processes" are two
SQL stores on one database file, each with its own engine and writer lock, so only the database
can keep a code's try count right when their guesses race.
"""

from __future__ import annotations

import asyncio
import re

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.config import Config as AlembicConfig

from gameshack.accounts import (
    AccountError,
    AccountsConfig,
    AccountService,
    InMemoryAccountStore,
    SmtpMailer,
    SmtpSettings,
)
from gameshack.store import SqlStore
from gameshack.store.accounts import SqlAccountStore
from gameshack.store.sql import MIGRATIONS

SECRET = b"test-secret-0123456789abcdef"
ANA = "ana@example.com"
OWNER = {"device_token": "ana-phone-device", "ip": "198.51.100.7"}


async def sql_stores(path, count: int) -> list[SqlStore]:
    stores = []
    for _ in range(count):
        s = SqlStore(f"sqlite+aiosqlite:///{path}")
        await s.start()
        stores.append(s)
    return stores


def service(store, smtp, **cfg) -> AccountService:
    return AccountService(
        store, SmtpMailer(SmtpSettings.from_env(smtp.env())), AccountsConfig(SECRET, **cfg)
    )


@pytest.fixture
async def db(tmp_path):
    stores = await sql_stores(tmp_path / "gs.sqlite", 2)
    try:
        yield [SqlAccountStore.on(s) for s in stores]
    finally:
        for s in stores:
            await s.close()


def wrong(code: str, i: int = 1) -> str:
    return f"{(int(code) + i) % 1_000_000:06d}"


async def owner_requests(svc: AccountService, smtp, nth: int = 1) -> str:
    await svc.request_code(ANA, OWNER["ip"], device_token=OWNER["device_token"])
    await svc.drain()
    return smtp.inbox.code_for(ANA, nth)


async def owner_signs_in(svc: AccountService, code: str) -> None:
    s = await svc.verify_code(ANA, code, OWNER["ip"], device_token=OWNER["device_token"])
    assert s.account.email == ANA


async def test_strangers_wrong_tries_do_not_stop_the_owner(db, smtp):
    svc = service(db[0], smtp)
    code = await owner_requests(svc, smtp)
    outcomes = []
    # One attacking IP: ten tries in a minute, then it is told to wait.
    for i in range(12):
        with pytest.raises(AccountError) as e:
            await svc.verify_code(ANA, wrong(code, i + 1), "203.0.113.5")
        outcomes.append((e.value.code, e.value.status))
    assert outcomes == [("wrong_code", 400)] * 10 + [("rate_limited", 429)] * 2
    assert 1 <= e.value.retry_after <= 60
    # Twenty more IPs, each guessing in turn — and the last one even has the right code: the
    # code took its five tries from strangers long ago, so it is void for them...
    for i in range(20):
        guess = code if i == 19 else wrong(code, 100 + i)
        with pytest.raises(AccountError) as e:
            await svc.verify_code(ANA, guess, f"192.0.2.{i + 1}")
        assert e.value.code == "wrong_code"
    # ... but not for the browser that asked for it: the owner signs in.
    await owner_signs_in(svc, code)


async def test_requests_neither_void_the_owners_code_nor_bomb_the_mailbox(db, smtp):
    svc = service(db[0], smtp)  # the defaults: a mail a minute, five an hour
    code = await owner_requests(svc, smtp)
    for i in range(30):  # an attacker asks again and again, from ten IPs
        with pytest.raises(AccountError) as e:
            await svc.request_code(ANA, f"203.0.113.{i % 10}")
        assert (e.value.code, e.value.status) == ("rate_limited", 429)
        assert e.value.message.startswith("A code was sent to this address less than a minute")
    await svc.drain()
    assert len([m for m in smtp.inbox.messages if m["To"] == ANA]) == 1
    await owner_signs_in(svc, code)


async def test_the_hourly_mail_cap_holds_and_the_owners_code_survives_it(db, smtp):
    # No spacing (as if the attacker waited a minute each time): the hourly cap is the bound.
    svc = service(db[0], smtp, mail_interval=0, live_codes=5)
    code = await owner_requests(svc, smtp)
    refused = 0
    for i in range(30):
        try:
            await svc.request_code(ANA, f"203.0.113.{i % 10}")
        except AccountError as e:
            assert e.status == 429 and e.retry_after > 3500
            assert e.message.startswith("5 codes were sent to this address in the last hour")
            refused += 1
    await svc.drain()
    assert refused == 26
    smtp.inbox.wait_for(ANA, 5)
    assert len([m for m in smtp.inbox.messages if m["To"] == ANA]) == 5
    # Four codes came after the owner's; the owner's still works (and then voids them all).
    assert len(await db[0].list_codes(ANA)) == 5
    await owner_signs_in(svc, code)
    assert await db[0].list_codes(ANA) == []


@pytest.mark.parametrize("guesser", ["stranger", "owner"])
@pytest.mark.parametrize("where", ["sql", "memory"])
async def test_ten_concurrent_guesses_are_compared_at_most_five_times(
    tmp_path, smtp, where, guesser
):
    if where == "sql":  # two processes' stores on one database file
        stores = await sql_stores(tmp_path / "gs.sqlite", 2)
        account_stores = [SqlAccountStore.on(s) for s in stores]
    else:
        stores, account_stores = [], [InMemoryAccountStore()] * 2
    try:
        services = [service(s, smtp) for s in account_stores]
        compared: list[int] = []
        for svc in services:
            real = svc._match

            def counting(email, code, live, real=real):
                compared.append(len(live))
                return real(email, code, live)

            svc._match = counting  # type: ignore[method-assign]
        code = await owner_requests(services[0], smtp)

        def guess(i: int, the_code: str):
            svc = services[i % 2]
            if guesser == "owner":
                return svc.verify_code(ANA, the_code, OWNER["ip"], device_token="ana-phone-device")
            return svc.verify_code(ANA, the_code, f"203.0.113.{i}")

        results = await asyncio.gather(
            *[guess(i, wrong(code, i + 1)) for i in range(10)], return_exceptions=True
        )
        assert all(isinstance(r, AccountError) and r.code == "wrong_code" for r in results)
        assert sum(compared) == 5  # ten guesses, five compared: the other five found no code
        # The guesser's five tries are spent: now even the right code fails for them.
        with pytest.raises(AccountError) as e:
            await guess(10, code)
        assert e.value.code == "wrong_code"
        if guesser == "stranger":  # the owner's own tries are untouched
            await owner_signs_in(services[1], code)
    finally:
        for s in stores:
            await s.close()


async def test_migration_0103_keeps_live_codes(tmp_path):
    """login_codes (one code per address) becomes signin_codes; live codes survive both ways."""
    path = tmp_path / "gs.sqlite"
    engine = sa.create_engine(f"sqlite:///{path}")
    cfg = AlembicConfig()
    cfg.set_main_option("script_location", str(MIGRATIONS))

    def migrate(target: str, down: bool = False) -> None:
        with engine.begin() as conn:
            cfg.attributes["connection"] = conn
            (command.downgrade if down else command.upgrade)(cfg, target)

    migrate("0102")
    with engine.begin() as conn:
        conn.execute(
            sa.text(
                "INSERT INTO login_codes VALUES ('ana@example.com', 'h-ana', 2e9, 2, 1.5e9),"
                " ('ben@example.com', 'h-ben', 2e9, 0, 1.5e9)"
            )
        )
    migrate("0103")
    store = SqlStore(f"sqlite+aiosqlite:///{path}")
    await store.start()  # to head, whatever follows 0103
    try:
        [rec] = await SqlAccountStore.on(store).list_codes("ana@example.com")
        assert (rec.code_hash, rec.tries, rec.own_tries, rec.requester) == ("h-ana", 2, 0, "")
    finally:
        await store.close()
    migrate("0102", down=True)
    with engine.connect() as conn:
        rows = conn.execute(sa.text("SELECT email, code_hash FROM login_codes ORDER BY email"))
        assert rows.all() == [("ana@example.com", "h-ana"), ("ben@example.com", "h-ben")]
    engine.dispose()


@pytest.mark.parametrize("live_env", [{}])  # the defaults: one mail a minute per address
def test_mail_throttle_answers_429_with_retry_after_and_a_sentence(live, smtp):
    owner, attacker = live.device(), live.device()
    assert owner.post("/api/account/request-code", {"email": ANA}).status_code == 200
    code = smtp.inbox.code_for(ANA)
    answers = {}
    for who, email in (("owner", ANA), ("attacker", ANA), ("fresh", "zed@example.com")):
        dev = attacker if who != "owner" else owner
        answers[who] = dev.post("/api/account/request-code", {"email": email})
    for who in ("owner", "attacker"):
        r = answers[who]
        assert r.status_code == 429 and r.json()["error"]["code"] == "rate_limited"
        wait = int(r.headers["Retry-After"])
        assert 1 <= wait <= 60
        assert r.json()["error"]["message"] == (
            "A code was sent to this address less than a minute ago; check your inbox or try"
            f" again in {wait} s."
        )
    # Another address is not held up by it (and whether an address has an account changes
    # nothing: ana has none yet, and the answers are about mail, not accounts).
    assert answers["fresh"].status_code == 200
    assert re.fullmatch(r"\d{6}", smtp.inbox.code_for("zed@example.com"))
    assert len([m for m in smtp.inbox.messages if m["To"] == ANA]) == 1
    r = owner.post("/api/account/verify", {"email": ANA, "code": code})
    assert r.status_code == 200 and r.json()["signed_in"] is True
