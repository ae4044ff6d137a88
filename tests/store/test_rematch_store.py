"""The rematch write (issue 33): the old game's link and the new game, in one transaction, by
compare-and-set — on a real SQLite file, PostgreSQL and the in-memory twin."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

import databases
from gameshack.service.ports import (
    ActionRow,
    CodeTaken,
    GameRow,
    SeatRow,
    Store,
    VersionConflict,
)
from gameshack.store import MemoryStore, SqlStore


@pytest.fixture(params=["sqlite", "postgresql", "memory"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
    with databases.url_for(request.param, tmp_path) as url:
        s: Store = MemoryStore() if url is None else SqlStore(url)
        await s.start()
        yield s
        await s.close()


def _seats() -> list[SeatRow]:
    return [
        SeatRow(0, "Ana", "🦊", "dev-a", joined_at=1.0),
        SeatRow(1, "Ben", "🐻", "dev-b", joined_at=1.0),
        SeatRow(2, "Robo", "🤖", None, bot="hard", memory={"seen": [1]}, joined_at=1.0),
    ]


def _finished(code: str = "OLDGM") -> GameRow:
    return GameRow(
        code=code,
        kind="tiles",
        status="finished",
        capacity=3,
        target=50,
        practice=False,
        difficulty=None,
        seed=7,
        seats=_seats(),
        state={"phase": "match_over"},
        version=40,
        created_at=1.0,
        updated_at=2.0,
    )


def _rematch(old: GameRow, code: str) -> tuple[GameRow, GameRow, ActionRow]:
    """The old game as the service saves it (offer complete, linked) and the new one."""
    linked = dataclasses.replace(
        old,
        rematch={"accepted": [0, 1, 2], "declined": [], "left": []},
        rematch_code=code,
        version=old.version + 1,
        updated_at=3.0,
    )
    new = GameRow(
        code=code,
        kind=old.kind,
        status="active",
        capacity=3,
        target=old.target,
        practice=False,
        difficulty=None,
        seed=99,
        seats=[dataclasses.replace(s, memory=None, joined_at=3.0) for s in old.seats],
        state={"phase": "playing"},
        version=1,
        created_at=3.0,
        updated_at=3.0,
        public_at=3.0,
    )
    return linked, new, ActionRow(code, 1, None, "start", 3.0)


async def test_the_rematch_is_created_and_linked_in_one_write(store: Store) -> None:
    old = _finished()
    await store.create_game(old)
    offer = dataclasses.replace(
        old, rematch={"accepted": [0, 2], "declined": [], "left": []}, version=41
    )
    await store.save_game(offer, expect_version=40)
    assert (await store.load_game("OLDGM")).rematch == offer.rematch  # type: ignore[union-attr]
    linked, new, start = _rematch(offer, "NEWGM")
    await store.create_rematch(linked, new, action=start, expect_version=41)
    got_old = await store.load_game("OLDGM")
    assert got_old is not None
    assert got_old.rematch_code == "NEWGM" and got_old.version == 42
    assert got_old.rematch == {"accepted": [0, 1, 2], "declined": [], "left": []}
    assert got_old.status == "finished"
    got = await store.load_game("NEWGM")
    assert got is not None and got.status == "active" and got.rematch_code is None
    assert [(s.seat, s.name, s.device, s.bot) for s in got.seats] == [
        (0, "Ana", "dev-a", None),
        (1, "Ben", "dev-b", None),
        (2, "Robo", None, "hard"),
    ]
    assert await store.actions("NEWGM") == [start]
    # The humans' devices hold a seat in the new match ("Your Active Games").
    assert [g.code for g in await store.games_for_device("dev-b")] == ["NEWGM"]


async def test_a_stale_or_clashing_rematch_writes_nothing(store: Store) -> None:
    old = _finished()
    await store.create_game(old)
    await store.create_game(_finished("TAKEN"))
    # A code clash: neither the link nor any new game.
    linked, new, start = _rematch(old, "TAKEN")
    with pytest.raises(CodeTaken):
        await store.create_rematch(linked, new, action=start, expect_version=40)
    got = await store.load_game("OLDGM")
    assert got is not None and got.version == 40 and got.rematch_code is None
    assert (await store.load_game("TAKEN")).kind == "tiles"  # type: ignore[union-attr]
    assert await store.actions("TAKEN") == []
    # A lost compare-and-set: the game moved on; no new game, no link.
    linked, new, start = _rematch(old, "NEWGM")
    with pytest.raises(VersionConflict):
        await store.create_rematch(linked, new, action=start, expect_version=39)
    assert await store.load_game("NEWGM") is None
    assert (await store.load_game("OLDGM")).rematch_code is None  # type: ignore[union-attr]


async def test_two_last_accepts_at_once_start_one_match(store: Store) -> None:
    """Two writers that loaded the same version (two processes, each taking a last accept):
    exactly one new match exists afterwards, and the old game names it."""
    old = _finished()
    await store.create_game(old)
    one = _rematch(old, "MATCH")
    two = _rematch(old, "OTHER")
    results = await asyncio.gather(
        *(store.create_rematch(a, b, action=c, expect_version=40) for a, b, c in (one, two)),
        return_exceptions=True,
    )
    won = [r is None for r in results]
    assert sorted(won) == [False, True], results
    assert all(r is None or isinstance(r, VersionConflict) for r in results)
    winner, loser = ("MATCH", "OTHER") if won[0] else ("OTHER", "MATCH")
    assert (await store.load_game("OLDGM")).rematch_code == winner  # type: ignore[union-attr]
    assert await store.load_game(winner) is not None
    assert await store.load_game(loser) is None
    assert await store.actions(loser) == []
