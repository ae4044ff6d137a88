"""The accounts store port: the in-memory twin and the SQL store pass the same contract, and the
SQL store runs the real migrations (the server's and ours) on a real SQLite file."""

from __future__ import annotations

import asyncio

import pytest

import databases
from gameshack.accounts import CodeRecord, InMemoryAccountStore, SeatRef, SessionRecord
from gameshack.store import SqlStore
from gameshack.store.accounts import SqlAccountStore


@pytest.fixture(params=["memory", "sqlite", "postgresql"])
async def store(request, tmp_path):
    if request.param == "memory":
        yield InMemoryAccountStore()
        return
    with databases.url_for(request.param, tmp_path) as url:
        sql = SqlStore(url)
        await sql.start()
        try:
            yield SqlAccountStore.on(sql)
        finally:
            await sql.close()


def code(email="ana@example.com", h="h1", requester="phone", at=0.0) -> CodeRecord:
    return CodeRecord(email, h, expires_at=at + 100.0, tries=0, created_at=at, requester=requester)


async def test_codes_contract(store):
    ana = "ana@example.com"
    assert await store.list_codes(ana) == []
    h1 = await store.add_code(code(h="h1"), keep=3)
    h2 = await store.add_code(code(h="h2", requester="laptop", at=1.0), keep=3)
    await store.add_code(code("ben@example.com", "b1"), keep=3)
    # A new code voids none: both of Ana's are live, each with its own id.
    assert [(c.id, c.code_hash) for c in await store.list_codes(ana)] == [(h1, "h1"), (h2, "h2")]
    # A try from the phone (which asked for h1) takes one of h1's own tries and one of h2's
    # strangers' tries; both codes come back to be compared.
    got = await store.reserve_tries(ana, "phone", 50.0, 5)
    assert [(c.code_hash, c.own_tries, c.tries) for c in got] == [("h1", 1, 0), ("h2", 0, 1)]
    for _ in range(5):
        await store.reserve_tries(ana, "someone", 50.0, 5)
    # Strangers have used up h1's and h2's tries (5 each): a stranger gets nothing more, ...
    assert await store.reserve_tries(ana, "someone else", 50.0, 5) == []
    # ... while the phone and the laptop each keep their own tries on their own codes.
    assert [c.code_hash for c in await store.reserve_tries(ana, "phone", 50.0, 5)] == ["h1"]
    assert [c.code_hash for c in await store.reserve_tries(ana, "laptop", 50.0, 5)] == ["h2"]
    # Expired codes are never handed out, and are dropped: at 100, h1 (the phone's) has expired
    # and h2 has no tries left for the phone, a stranger to it.
    assert await store.reserve_tries(ana, "phone", 100.0, 5) == []
    assert [c.code_hash for c in await store.list_codes(ana)] == ["h2"]
    # Consuming one code voids the address's others, and works once.
    h3 = await store.add_code(code(h="h3", at=60.0), keep=3)
    assert await store.consume_code(ana, 999) is False
    assert await store.consume_code("ben@example.com", h3) is False  # not Ben's
    assert await store.consume_code(ana, h3) is True
    assert await store.consume_code(ana, h3) is False
    assert await store.list_codes(ana) == []
    assert [c.code_hash for c in await store.list_codes("ben@example.com")] == ["b1"]


async def test_add_code_keeps_the_newest_and_drops_expired(store):
    ana = "ana@example.com"
    for i in range(5):
        await store.add_code(code(h=f"h{i}", at=float(i)), keep=3)
    assert [c.code_hash for c in await store.list_codes(ana)] == ["h2", "h3", "h4"]
    await store.add_code(code("ben@example.com", "b1", at=200.0), keep=3)
    assert await store.list_codes(ana) == []  # expired at 104: dropped by any later request


async def test_racing_consumes_succeed_once(store):
    code_id = await store.add_code(code(), keep=3)
    results = await asyncio.gather(
        *[store.consume_code("ana@example.com", code_id) for _ in range(5)]
    )
    assert sorted(results) == [False, False, False, False, True]


async def test_racing_tries_get_a_code_at_most_five_times(store):
    await store.add_code(code(), keep=3)
    got = await asyncio.gather(
        *[store.reserve_tries("ana@example.com", f"ip-{i}", 50.0, 5) for i in range(10)],
        *[store.reserve_tries("ana@example.com", "phone", 50.0, 5) for i in range(10)],
    )
    assert sum(len(g) for g in got[:10]) == 5  # strangers
    assert sum(len(g) for g in got[10:]) == 5  # the phone that asked for it
    # Out of tries in both pools, the code is dead: the next calls dropped it.
    assert await store.list_codes("ana@example.com") == []


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
