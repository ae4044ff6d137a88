"""The accounts store port: the in-memory twin and the SQL store pass the same contract, and the
SQL store runs the real migrations (the server's and ours) on a real SQLite file."""

from __future__ import annotations

import asyncio

import pytest

from gameshack.accounts import CodeRecord, InMemoryAccountStore, SeatRef, SessionRecord
from gameshack.store import SqlStore
from gameshack.store.accounts import SqlAccountStore


@pytest.fixture(params=["memory", "sql"])
async def store(request, tmp_path):
    if request.param == "memory":
        yield InMemoryAccountStore()
        return
    sql = SqlStore(f"sqlite+aiosqlite:///{tmp_path}/gs.sqlite")
    await sql.start()
    try:
        yield SqlAccountStore.on(sql)
    finally:
        await sql.close()


def code(email="ana@example.com", h="h1", tries=0) -> CodeRecord:
    return CodeRecord(email, h, expires_at=100.0, tries=tries, created_at=0.0)


async def test_codes_contract(store):
    assert await store.get_code("ana@example.com") is None
    await store.put_code(code())
    assert (await store.get_code("ana@example.com")).code_hash == "h1"
    await store.put_code(code(h="h2"))  # replaces: the earlier code is void
    assert (await store.get_code("ana@example.com")).code_hash == "h2"
    assert await store.consume_code("ana@example.com", "h1") is False
    assert await store.add_wrong_try("ana@example.com", "h1") == 0  # not the live code
    assert await store.add_wrong_try("ana@example.com", "h2") == 1
    assert await store.add_wrong_try("ana@example.com", "h2") == 2
    assert (await store.get_code("ana@example.com")).tries == 2
    assert await store.consume_code("ana@example.com", "h2") is True
    assert await store.consume_code("ana@example.com", "h2") is False
    assert await store.get_code("ana@example.com") is None


async def test_racing_consumes_succeed_once(store):
    await store.put_code(code())
    results = await asyncio.gather(*[store.consume_code("ana@example.com", "h1") for _ in range(5)])
    assert sorted(results) == [False, False, False, False, True]


async def test_accounts_sessions_seats_contract(store):
    a = await store.get_or_create_account("ana@example.com", 5.0)
    assert (await store.get_or_create_account("ana@example.com", 9.0)).id == a.id
    b = await store.get_or_create_account("ben@example.com", 5.0)
    assert a.id != b.id and a.display_name is None
    await store.set_display_name(a.id, "Ana")
    assert (await store.get_account(a.id)).display_name == "Ana"
    assert await store.get_account("nope") is None

    await store.create_session(SessionRecord("s1", a.id, "dev-1", 0.0, 50.0))
    await store.create_session(SessionRecord("s2", a.id, "dev-2", 0.0, 10.0))
    await store.create_session(SessionRecord("s3", b.id, "dev-3", 0.0, 50.0))
    assert (await store.get_session("s1")).device_token == "dev-1"
    assert await store.live_devices(a.id, 20.0) == ["dev-1"]
    assert await store.live_devices(a.id, 5.0) == ["dev-1", "dev-2"]
    await store.delete_session("s1")
    assert await store.get_session("s1") is None
    assert await store.live_devices(a.id, 5.0) == ["dev-2"]

    await store.claim_seats(a.id, [SeatRef("AAAAA", 0), SeatRef("BBBBB", 1)])
    await store.claim_seats(a.id, [SeatRef("AAAAA", 0)])  # idempotent
    await store.claim_seats(b.id, [])
    assert await store.claimed_seats(a.id) == [SeatRef("AAAAA", 0), SeatRef("BBBBB", 1)]
    assert await store.claimed_seats(b.id) == []
