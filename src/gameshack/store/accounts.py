"""SQL persistence for sign-in and stats (issue 8), on the server store's engine.

- :class:`SqlAccountStore` implements :class:`gameshack.accounts.AccountStore`.
- :class:`SqlStatsSource` implements :class:`gameshack.accounts.stats.StatsSource`. The server
  writes one ``records`` row per finished hand and match, with names and scores as JSON lists;
  that cannot be indexed by name. So the counted matches (two seats, no bot, not practice) are
  copied, once each, into ``stat_matches`` — one row per player per match, indexed by
  ``(name, finished_at)`` — by an incremental sync that runs before each stats query and reads
  only the records newer than its watermark. The stats page of a name then reads its own rows
  through that index, however many other matches the site has.

The tables are created by the Alembic revisions ``0101_accounts`` (chained after the server's)
and ``0103_signin_codes`` (a few live codes per address).
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator, Iterable
from typing import Any, cast

import orjson
from sqlalchemy import (
    Float,
    Index,
    Integer,
    String,
    UniqueConstraint,
    and_,
    case,
    delete,
    func,
    insert,
    or_,
    select,
    text,
    update,
)
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine
from sqlalchemy.orm import Mapped, mapped_column

from gameshack.accounts.models import Account, CodeRecord, SeatRef, SessionRecord
from gameshack.accounts.stats import PlayedMatch, Result, StatsReport, counted, match_result
from gameshack.accounts.stats import Record as StatRecord
from gameshack.store.models import Base, Game, Record

__all__ = [
    "AccountRow",
    "AccountSeatRow",
    "SessionRow",
    "SignInCodeRow",
    "SqlAccountStore",
    "SqlStatsSource",
    "StatMatchRow",
    "StatSyncRow",
]


class AccountRow(Base):
    __tablename__ = "accounts"
    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    email: Mapped[str] = mapped_column(String(254), unique=True)
    display_name: Mapped[str | None] = mapped_column(String(64), nullable=True)
    created_at: Mapped[float] = mapped_column(Float)


class SignInCodeRow(Base):
    """A live sign-in code; an address may hold a few (revision 0103)."""

    __tablename__ = "signin_codes"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    email: Mapped[str] = mapped_column(String(254), index=True)
    code_hash: Mapped[str] = mapped_column(String(64))
    requester: Mapped[str] = mapped_column(String(64))
    expires_at: Mapped[float] = mapped_column(Float)
    tries: Mapped[int] = mapped_column(Integer)
    own_tries: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[float] = mapped_column(Float)


class SessionRow(Base):
    __tablename__ = "account_sessions"
    id_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[str] = mapped_column(String(32), index=True)
    device_token: Mapped[str | None] = mapped_column(String(128), nullable=True)
    created_at: Mapped[float] = mapped_column(Float)
    expires_at: Mapped[float] = mapped_column(Float)


class AccountSeatRow(Base):
    __tablename__ = "account_seats"
    account_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    code: Mapped[str] = mapped_column(String(8), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)


STAT_INDEX_COLUMNS = (
    "name",
    "finished_at",
    "id",
    "kind",
    "opponent",
    "result",
    "hands",
    "hand_total",
    "best_hand",
)


class StatMatchRow(Base):
    """One counted match seen from one of its two players."""

    __tablename__ = "stat_matches"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    record_id: Mapped[int] = mapped_column(Integer)
    seat: Mapped[int] = mapped_column(Integer)
    code: Mapped[str] = mapped_column(String(8))
    kind: Mapped[str] = mapped_column(String(8))
    name: Mapped[str] = mapped_column(String(64))
    opponent: Mapped[str] = mapped_column(String(64))
    my_score: Mapped[int] = mapped_column(Integer)
    opponent_score: Mapped[int] = mapped_column(Integer)
    result: Mapped[str] = mapped_column(String(4))
    hands: Mapped[int] = mapped_column(Integer)
    hand_total: Mapped[int] = mapped_column(Integer)
    best_hand: Mapped[int | None] = mapped_column(Integer, nullable=True)
    finished_at: Mapped[float] = mapped_column(Float)
    __table_args__ = (
        UniqueConstraint("record_id", "seat", name="uq_stat_matches_record_seat"),
        # Covering: the Stats page of a name reads only this index, newest first.
        Index("ix_stat_matches_name", *STAT_INDEX_COLUMNS),
    )


class StatSyncRow(Base):
    __tablename__ = "stat_sync"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    last_record_id: Mapped[int] = mapped_column(Integer)


class _Db:
    """The server store's engine and (for SQLite) its single-writer lock."""

    def __init__(self, engine: AsyncEngine, write_lock: asyncio.Lock | None = None) -> None:
        self.engine = engine
        self._write = write_lock or asyncio.Lock()

    @classmethod
    def of(cls, sql_store: Any) -> _Db:
        return cls(sql_store.engine, getattr(sql_store, "_write", None))

    @contextlib.asynccontextmanager
    async def tx(self) -> AsyncIterator[AsyncConnection]:
        async with self._write, self.engine.begin() as conn:
            yield conn


class SqlAccountStore:
    def __init__(self, engine: AsyncEngine, write_lock: asyncio.Lock | None = None) -> None:
        self.db = _Db(engine, write_lock)

    @classmethod
    def on(cls, sql_store: Any) -> SqlAccountStore:
        """Share the game store's engine and writer lock (SQLite has one writer)."""
        return cls(sql_store.engine, getattr(sql_store, "_write", None))

    # --- codes -----------------------------------------------------------------------------
    async def add_code(self, record: CodeRecord, *, keep: int) -> int:
        c = SignInCodeRow
        async with self.db.tx() as conn:
            # The table holds only live codes: a few minutes of requests, whatever the traffic.
            await conn.execute(delete(c).where(c.expires_at <= record.created_at))
            code_id = int(
                (
                    await conn.execute(
                        insert(c)
                        .values(
                            email=record.email,
                            code_hash=record.code_hash,
                            requester=record.requester,
                            expires_at=record.expires_at,
                            tries=record.tries,
                            own_tries=record.own_tries,
                            created_at=record.created_at,
                        )
                        .returning(c.id)
                    )
                ).scalar_one()
            )
            older = (
                await conn.scalars(
                    select(c.id)
                    .where(c.email == record.email)
                    .order_by(c.id.desc())
                    .offset(max(1, keep))
                )
            ).all()
            if older:
                await conn.execute(delete(c).where(c.id.in_(older)))
        return code_id

    @staticmethod
    def _code(r: Any) -> CodeRecord:
        return CodeRecord(
            email=r["email"],
            code_hash=r["code_hash"],
            expires_at=r["expires_at"],
            tries=r["tries"],
            created_at=r["created_at"],
            requester=r["requester"],
            own_tries=r["own_tries"],
            id=r["id"],
        )

    async def list_codes(self, email: str) -> list[CodeRecord]:
        c = SignInCodeRow
        async with self.db.engine.connect() as conn:
            rows = (
                (await conn.execute(select(c).where(c.email == email).order_by(c.id)))
                .mappings()
                .all()
            )
        return [self._code(r) for r in rows]

    async def reserve_tries(
        self, email: str, requester: str, now: float, max_tries: int
    ) -> list[CodeRecord]:
        """One statement takes the try before any comparison: ``tries < max`` is checked and
        incremented by the database, so concurrent guesses (from any number of processes)
        can't all read the same count and all be compared."""
        c = SignInCodeRow
        mine = c.requester == requester
        async with self.db.tx() as conn:
            await conn.execute(
                delete(c).where(
                    c.email == email,
                    or_(c.expires_at <= now, and_(c.tries >= max_tries, c.own_tries >= max_tries)),
                )
            )
            rows = (
                (
                    await conn.execute(
                        update(c)
                        .where(
                            c.email == email,
                            c.expires_at > now,
                            or_(
                                and_(mine, c.own_tries < max_tries),
                                and_(c.requester != requester, c.tries < max_tries),
                            ),
                        )
                        .values(
                            tries=c.tries + case((mine, 0), else_=1),
                            own_tries=c.own_tries + case((mine, 1), else_=0),
                        )
                        .returning(*c.__table__.columns)
                    )
                )
                .mappings()
                .all()
            )
        return sorted((self._code(r) for r in rows), key=lambda r: r.id)

    async def consume_code(self, email: str, code_id: int) -> bool:
        c = SignInCodeRow
        async with self.db.tx() as conn:
            result = await conn.execute(delete(c).where(c.email == email, c.id == code_id))
            if result.rowcount != 1:  # another request with this code got it first
                return False
            await conn.execute(delete(c).where(c.email == email))
        return True

    # --- accounts --------------------------------------------------------------------------
    @staticmethod
    def _account(r: Any) -> Account:
        return Account(r["id"], r["email"], r["display_name"], r["created_at"])

    async def get_or_create_account(self, email: str, now: float) -> Account:
        for _ in range(2):
            async with self.db.engine.connect() as conn:
                r = (
                    (await conn.execute(select(AccountRow).where(AccountRow.email == email)))
                    .mappings()
                    .first()
                )
            if r is not None:
                return self._account(r)
            try:
                async with self.db.tx() as conn:
                    new_id = uuid.uuid4().hex
                    await conn.execute(
                        insert(AccountRow).values(
                            id=new_id, email=email, display_name=None, created_at=now
                        )
                    )
                return Account(new_id, email, None, now)
            except IntegrityError:  # created by a concurrent sign-in: read it back
                continue
        raise RuntimeError("could not create the account")

    async def get_account(self, account_id: str) -> Account | None:
        async with self.db.engine.connect() as conn:
            r = (
                (await conn.execute(select(AccountRow).where(AccountRow.id == account_id)))
                .mappings()
                .first()
            )
        return None if r is None else self._account(r)

    async def set_display_name(self, account_id: str, name: str) -> None:
        async with self.db.tx() as conn:
            await conn.execute(
                update(AccountRow).where(AccountRow.id == account_id).values(display_name=name)
            )

    # --- sessions --------------------------------------------------------------------------
    async def create_session(self, record: SessionRecord) -> None:
        async with self.db.tx() as conn:
            await conn.execute(
                insert(SessionRow).values(
                    id_hash=record.id_hash,
                    account_id=record.account_id,
                    device_token=record.device_token,
                    created_at=record.created_at,
                    expires_at=record.expires_at,
                )
            )

    async def get_session(self, id_hash: str) -> SessionRecord | None:
        async with self.db.engine.connect() as conn:
            r = (
                (await conn.execute(select(SessionRow).where(SessionRow.id_hash == id_hash)))
                .mappings()
                .first()
            )
        if r is None:
            return None
        return SessionRecord(
            r["id_hash"], r["account_id"], r["device_token"], r["created_at"], r["expires_at"]
        )

    async def delete_session(self, id_hash: str) -> None:
        async with self.db.tx() as conn:
            await conn.execute(delete(SessionRow).where(SessionRow.id_hash == id_hash))

    async def live_devices(self, account_id: str, now: float) -> list[str]:
        async with self.db.engine.connect() as conn:
            rows = await conn.scalars(
                select(SessionRow.device_token)
                .where(
                    SessionRow.account_id == account_id,
                    SessionRow.expires_at > now,
                    SessionRow.device_token.is_not(None),
                )
                .distinct()
            )
            return sorted(str(d) for d in rows)

    # --- seats -----------------------------------------------------------------------------
    async def claim_seats(self, account_id: str, seats: Iterable[SeatRef]) -> None:
        wanted = set(seats)
        if not wanted:
            return
        async with self.db.tx() as conn:
            have = {
                SeatRef(c, s)
                for c, s in (
                    await conn.execute(
                        select(AccountSeatRow.code, AccountSeatRow.seat).where(
                            AccountSeatRow.account_id == account_id
                        )
                    )
                ).all()
            }
            new = wanted - have
            if new:
                await conn.execute(
                    insert(AccountSeatRow),
                    [{"account_id": account_id, "code": s.game_id, "seat": s.seat} for s in new],
                )

    async def claimed_seats(self, account_id: str) -> list[SeatRef]:
        async with self.db.engine.connect() as conn:
            rows = (
                await conn.execute(
                    select(AccountSeatRow.code, AccountSeatRow.seat)
                    .where(AccountSeatRow.account_id == account_id)
                    .order_by(AccountSeatRow.code, AccountSeatRow.seat)
                )
            ).all()
        return [SeatRef(c, s) for c, s in rows]


def _counts(r: Any) -> bool:
    practice = bool(r["practice"] or r["game_practice"])
    return counted(orjson.loads(r["names"]), orjson.loads(r["bots"]), practice, r["reason"])


def _rows_for(r: Any, per_hand: list[list[int]]) -> list[dict[str, Any]]:
    names: list[str] = orjson.loads(r["names"])
    scores: list[int] = orjson.loads(r["scores"])
    winners: list[int] = orjson.loads(r["winners"])
    out = []
    for seat in (0, 1):
        other = 1 - seat
        out.append(
            {
                "record_id": r["id"],
                "seat": seat,
                "code": r["code"],
                "kind": r["kind"],
                "name": names[seat],
                "opponent": names[other],
                "my_score": int(scores[seat]),
                "opponent_score": int(scores[other]),
                "result": match_result(seat, winners),
                "hands": len(per_hand),
                "hand_total": sum(int(h[seat]) for h in per_hand),
                "best_hand": max((int(h[seat]) for h in per_hand), default=None),
                "finished_at": r["finished_at"],
            }
        )
    return out


def _run(results: list[Any]) -> tuple[Any, int]:
    """The newest result and how many times in a row it came (newest first)."""
    if not results:
        return None, 0
    n = 1
    while n < len(results) and results[n] == results[0]:
        n += 1
    return results[0], n


class SqlStatsSource:
    """Counted matches of a name, from ``stat_matches`` (kept in step with ``records``)."""

    SYNC_BATCH = 2000

    def __init__(self, engine: AsyncEngine, write_lock: asyncio.Lock | None = None) -> None:
        self.db = _Db(engine, write_lock)
        self._sync_lock = asyncio.Lock()
        self._mark: int | None = None  # the watermark as this process last saw it

    @classmethod
    def on(cls, sql_store: Any) -> SqlStatsSource:
        return cls(sql_store.engine, getattr(sql_store, "_write", None))

    async def sync(self) -> int:
        """Copy counted matches recorded since the last sync; returns how many were added."""
        added = 0
        async with self._sync_lock:
            while True:
                async with self.db.engine.connect() as conn:
                    top = await conn.scalar(select(func.max(Record.id)))
                    if top is None or (self._mark is not None and top <= self._mark):
                        return added
                    mark = await conn.scalar(
                        select(StatSyncRow.last_record_id).where(StatSyncRow.id == 1)
                    )
                    mark = int(mark or 0)
                    if top <= mark:
                        self._mark = mark
                        return added
                    rows = (
                        (
                            await conn.execute(
                                select(Record, Game.practice.label("game_practice"))
                                .join(Game, Game.code == Record.code, isouter=True)
                                .where(Record.id > mark, Record.scope == "match")
                                .order_by(Record.id)
                                .limit(self.SYNC_BATCH)
                            )
                        )
                        .mappings()
                        .all()
                    )
                    last = int(rows[-1]["id"]) if len(rows) == self.SYNC_BATCH else int(top)
                    counted = [r for r in rows if _counts(r)]
                    hands = await self._hands(conn, [r["code"] for r in counted])
                    values = [v for r in counted for v in _rows_for(r, hands.get(r["code"], []))]
                async with self.db.tx() as conn:
                    if values:
                        await conn.execute(insert(StatMatchRow), values)
                    if mark == 0 and not await conn.scalar(
                        select(func.count()).select_from(StatSyncRow)
                    ):
                        await conn.execute(insert(StatSyncRow).values(id=1, last_record_id=last))
                    else:
                        await conn.execute(
                            update(StatSyncRow)
                            .where(StatSyncRow.id == 1)
                            .values(last_record_id=last)
                        )
                self._mark = last
                added += len(values) // 2

    async def _hands(self, conn: AsyncConnection, codes: list[str]) -> dict[str, list[Any]]:
        """Per code, the hand records' score lists in hand order."""
        out: dict[str, list[Any]] = {}
        for i in range(0, len(codes), 500):
            rows = (
                await conn.execute(
                    select(Record.code, Record.scores)
                    .where(Record.code.in_(codes[i : i + 500]), Record.scope == "hand")
                    .order_by(Record.code, Record.number, Record.id)
                )
            ).all()
            for code, scores in rows:
                out.setdefault(code, []).append(orjson.loads(scores))
        return out

    @staticmethod
    def _played(r: Any) -> PlayedMatch:
        return PlayedMatch(
            match_id=f"{r['code']}-{r['record_id']}",
            game=r["kind"],
            code=r["code"],
            finished_at=r["finished_at"],
            opponent=r["opponent"],
            my_score=r["my_score"],
            opponent_score=r["opponent_score"],
            result=r["result"],
            hands=r["hands"],
            hand_total=r["hand_total"],
            best_hand=r["best_hand"],
        )

    def _where(self, name: str, game: str | None) -> list[Any]:
        where = [StatMatchRow.name == name]
        if game:
            where.append(StatMatchRow.kind == game)
        return where

    async def played_matches(self, name: str, game: str | None) -> list[PlayedMatch]:
        await self.sync()
        # Only the covering index's columns: no table lookups, no JSON.
        c = StatMatchRow
        async with self.db.engine.connect() as conn:
            rows = (
                await conn.execute(
                    select(c.opponent, c.result, c.hands, c.hand_total, c.best_hand, c.kind)
                    .where(*self._where(name, game))
                    .order_by(c.finished_at.desc(), c.id.desc())
                )
            ).all()
        return [
            PlayedMatch("", kind, "", 0.0, opp, 0, 0, cast(Result, result), hands, total, best)
            for opp, result, hands, total, best, kind in rows
        ]

    async def report(self, name: str, game: str | None) -> StatsReport:
        """Overall and By Opponent: counts and hand scores aggregated by the database (portable
        SQL: SQLite and PostgreSQL), streaks from the results column; both read only the
        covering index."""
        await self.sync()
        kind_sql = " AND kind = :kind" if game else ""
        params = {"name": name, "kind": game}
        totals_sql = text(
            "SELECT opponent, COUNT(*), SUM(CASE WHEN result = 'won' THEN 1 ELSE 0 END),"
            " SUM(CASE WHEN result = 'lost' THEN 1 ELSE 0 END),"
            " SUM(CASE WHEN result = 'tied' THEN 1 ELSE 0 END),"
            " SUM(hands), SUM(hand_total), MAX(best_hand)"
            f" FROM stat_matches WHERE name = :name{kind_sql} GROUP BY opponent"
        )
        c = StatMatchRow
        # Current streaks: the name's results newest first, two short columns read straight
        # from the covering index; the runs are counted here (SQLite 3.40 has no ordered
        # aggregates, and window functions cost more than this scan).
        order_sql = (
            select(c.opponent, c.result)
            .where(*self._where(name, game))
            .order_by(c.finished_at.desc(), c.id.desc())
        )
        async with self.db.engine.connect() as conn:
            totals = (await conn.execute(totals_sql, params)).all()
            if not totals:
                return StatsReport(name, game, StatRecord(), {})
            results = (await conn.execute(order_sql)).all()
        ores, on = _run([r for _, r in results])
        open_runs: dict[str, list[Any]] = {}  # opponent -> [result, count, still running]
        for opp, res in results:
            run = open_runs.get(opp)
            if run is None:
                open_runs[opp] = [res, 1, True]
            elif run[2]:
                if run[0] == res:
                    run[1] += 1
                else:
                    run[2] = False
        streaks = {o: (run[0], run[1]) for o, run in open_runs.items()}
        overall = StatRecord(streak_result=ores, streak=on)
        by_opponent: dict[str, StatRecord] = {}
        for opp, played, won, lost, tied, hands, total, best in totals:
            rec = StatRecord(
                played=int(played),
                won=int(won),
                lost=int(lost),
                tied=int(tied),
                hands=int(hands or 0),
                hand_total=int(total or 0),
                best_hand=best,
            )
            rec.streak_result, rec.streak = streaks.get(opp, (None, 0))
            by_opponent[opp] = rec
            overall.merge(rec)
        return StatsReport(name, game, overall, by_opponent)

    async def history(
        self, name: str, game: str | None, offset: int, limit: int
    ) -> tuple[int, list[PlayedMatch]]:
        await self.sync()
        where = self._where(name, game)
        async with self.db.engine.connect() as conn:
            total = await conn.scalar(select(func.count()).select_from(StatMatchRow).where(*where))
            rows = (
                (
                    await conn.execute(
                        select(StatMatchRow)
                        .where(*where)
                        .order_by(StatMatchRow.finished_at.desc(), StatMatchRow.id.desc())
                        .offset(offset)
                        .limit(limit)
                    )
                )
                .mappings()
                .all()
            )
        return int(total or 0), [self._played(r) for r in rows]
