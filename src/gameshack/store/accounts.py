"""SQL persistence for sign-in and stats (issue 8), on the server store's engine.

- :class:`SqlAccountStore` implements :class:`gameshack.accounts.AccountStore`.
- :class:`SqlStatsSource` implements :class:`gameshack.accounts.stats.StatsSource`. The server
  writes one ``records`` row per finished hand and match, with names and scores as JSON lists;
  that cannot be indexed by name. So the counted matches (two seats, no bot, not practice) are
  copied, once each, into ``stat_matches`` — one row per player per match, indexed by
  ``(name, finished_at)`` — by an incremental sync that runs before each stats query and reads
  only the records newer than its watermark. The stats page of a name then reads its own rows
  through that index, however many other matches the site has.

The tables (:mod:`gameshack.store.models`) are created by the Alembic revisions
``0101_accounts`` (chained after the server's) and ``0103_signin_codes`` (a few live codes per
address).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Iterable
from typing import Any, TypeVar, cast

import orjson
from sqlalchemy import (
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
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from gameshack.accounts.models import Account, CodeRecord, SeatRef, SessionRecord
from gameshack.accounts.stats import PlayedMatch, Result, StatsReport, counted, match_result
from gameshack.accounts.stats import Record as StatRecord
from gameshack.store.models import (
    ACCOUNT_SEATS,
    ACCOUNTS,
    GAMES,
    RECORDS,
    SESSIONS,
    SIGNIN_CODES,
    STAT_MATCHES,
    STAT_SYNC,
)

__all__ = ["SqlAccountStore", "SqlStatsSource"]

T = TypeVar("T")


class _Db:
    """The server store's way to the database: ``fn(connection, *args)`` in a transaction
    (``write``; on SQLite through its one writer, with the game's writes) or on a read
    connection, off the event loop (:meth:`gameshack.store.sql.SqlStore.run`)."""

    def __init__(self, sql_store: Any) -> None:
        self._store = sql_store

    async def write(self, fn: Callable[..., T], *args: Any) -> T:
        return cast(T, await self._store.run(fn, *args))

    async def read(self, fn: Callable[..., T], *args: Any) -> T:
        return cast(T, await self._store.run(fn, *args, write=False))


# --- sign-in codes, accounts, sessions, seats: one function per statement group ----------------


def _add_code(conn: Connection, record: CodeRecord, keep: int) -> int:
    c = SIGNIN_CODES.c
    # The table holds only live codes: a few minutes of requests, whatever the traffic.
    conn.execute(delete(SIGNIN_CODES).where(c.expires_at <= record.created_at))
    code_id = int(
        conn.execute(
            insert(SIGNIN_CODES)
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
        ).scalar_one()
    )
    older = conn.scalars(
        select(c.id).where(c.email == record.email).order_by(c.id.desc()).offset(max(1, keep))
    ).all()
    if older:
        conn.execute(delete(SIGNIN_CODES).where(c.id.in_(older)))
    return code_id


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


def _list_codes(conn: Connection, email: str) -> list[CodeRecord]:
    c = SIGNIN_CODES.c
    rows = conn.execute(select(SIGNIN_CODES).where(c.email == email).order_by(c.id)).mappings()
    return [_code(r) for r in rows]


def _reserve_tries(
    conn: Connection, email: str, requester: str, now: float, max_tries: int
) -> list[CodeRecord]:
    c = SIGNIN_CODES.c
    mine = c.requester == requester
    conn.execute(
        delete(SIGNIN_CODES).where(
            c.email == email,
            or_(c.expires_at <= now, and_(c.tries >= max_tries, c.own_tries >= max_tries)),
        )
    )
    rows = conn.execute(
        update(SIGNIN_CODES)
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
        .returning(*SIGNIN_CODES.columns)
    ).mappings()
    return sorted((_code(r) for r in rows), key=lambda r: r.id)


def _consume_code(conn: Connection, email: str, code_id: int) -> bool:
    c = SIGNIN_CODES.c
    result = conn.execute(delete(SIGNIN_CODES).where(c.email == email, c.id == code_id))
    if result.rowcount != 1:  # another request with this code got it first
        return False
    conn.execute(delete(SIGNIN_CODES).where(c.email == email))
    return True


def _account(r: Any) -> Account:
    return Account(r["id"], r["email"], r["display_name"], r["created_at"])


def _account_where(conn: Connection, where: Any) -> Account | None:
    r = conn.execute(select(ACCOUNTS).where(where)).mappings().first()
    return None if r is None else _account(r)


def _add_account(conn: Connection, account: Account) -> None:
    conn.execute(
        insert(ACCOUNTS).values(
            id=account.id,
            email=account.email,
            display_name=account.display_name,
            created_at=account.created_at,
        )
    )


def _set_display_name(conn: Connection, account_id: str, name: str) -> None:
    conn.execute(update(ACCOUNTS).where(ACCOUNTS.c.id == account_id).values(display_name=name))


def _create_session(conn: Connection, record: SessionRecord) -> None:
    conn.execute(
        insert(SESSIONS).values(
            id_hash=record.id_hash,
            account_id=record.account_id,
            device_token=record.device_token,
            created_at=record.created_at,
            expires_at=record.expires_at,
        )
    )


def _get_session(conn: Connection, id_hash: str) -> SessionRecord | None:
    r = conn.execute(select(SESSIONS).where(SESSIONS.c.id_hash == id_hash)).mappings().first()
    if r is None:
        return None
    return SessionRecord(
        r["id_hash"], r["account_id"], r["device_token"], r["created_at"], r["expires_at"]
    )


def _delete_session(conn: Connection, id_hash: str) -> None:
    conn.execute(delete(SESSIONS).where(SESSIONS.c.id_hash == id_hash))


def _live_devices(conn: Connection, account_id: str, now: float) -> list[str]:
    s = SESSIONS.c
    rows = conn.scalars(
        select(s.device_token)
        .where(s.account_id == account_id, s.expires_at > now, s.device_token.is_not(None))
        .distinct()
    )
    return sorted(str(d) for d in rows)


def _claimed(conn: Connection, account_id: str) -> list[SeatRef]:
    a = ACCOUNT_SEATS.c
    rows = conn.execute(
        select(a.code, a.seat).where(a.account_id == account_id).order_by(a.code, a.seat)
    ).all()
    return [SeatRef(c, s) for c, s in rows]


def _claim_seats(conn: Connection, account_id: str, wanted: set[SeatRef]) -> None:
    new = wanted - set(_claimed(conn, account_id))
    if new:
        conn.execute(
            insert(ACCOUNT_SEATS),
            [{"account_id": account_id, "code": s.game_id, "seat": s.seat} for s in new],
        )


class SqlAccountStore:
    def __init__(self, sql_store: Any) -> None:
        self.db = _Db(sql_store)

    @classmethod
    def on(cls, sql_store: Any) -> SqlAccountStore:
        """On the game store's database (and, on SQLite, its one writer)."""
        return cls(sql_store)

    # --- codes -----------------------------------------------------------------------------
    async def add_code(self, record: CodeRecord, *, keep: int) -> int:
        return await self.db.write(_add_code, record, keep)

    async def list_codes(self, email: str) -> list[CodeRecord]:
        return await self.db.read(_list_codes, email)

    async def reserve_tries(
        self, email: str, requester: str, now: float, max_tries: int
    ) -> list[CodeRecord]:
        """One statement takes the try before any comparison: ``tries < max`` is checked and
        incremented by the database, so concurrent guesses (from any number of processes)
        can't all read the same count and all be compared."""
        return await self.db.write(_reserve_tries, email, requester, now, max_tries)

    async def consume_code(self, email: str, code_id: int) -> bool:
        return await self.db.write(_consume_code, email, code_id)

    # --- accounts --------------------------------------------------------------------------
    async def get_or_create_account(self, email: str, now: float) -> Account:
        for _ in range(2):
            found = await self.db.read(_account_where, ACCOUNTS.c.email == email)
            if found is not None:
                return found
            account = Account(uuid.uuid4().hex, email, None, now)
            try:
                await self.db.write(_add_account, account)
            except IntegrityError:  # created by a concurrent sign-in: read it back
                continue
            return account
        raise RuntimeError("could not create the account")

    async def get_account(self, account_id: str) -> Account | None:
        return await self.db.read(_account_where, ACCOUNTS.c.id == account_id)

    async def set_display_name(self, account_id: str, name: str) -> None:
        await self.db.write(_set_display_name, account_id, name)

    # --- sessions --------------------------------------------------------------------------
    async def create_session(self, record: SessionRecord) -> None:
        await self.db.write(_create_session, record)

    async def get_session(self, id_hash: str) -> SessionRecord | None:
        return await self.db.read(_get_session, id_hash)

    async def delete_session(self, id_hash: str) -> None:
        await self.db.write(_delete_session, id_hash)

    async def live_devices(self, account_id: str, now: float) -> list[str]:
        return await self.db.read(_live_devices, account_id, now)

    # --- seats -----------------------------------------------------------------------------
    async def claim_seats(self, account_id: str, seats: Iterable[SeatRef]) -> None:
        wanted = set(seats)
        if wanted:
            await self.db.write(_claim_seats, account_id, wanted)

    async def claimed_seats(self, account_id: str) -> list[SeatRef]:
        return await self.db.read(_claimed, account_id)


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


def _sync_read(conn: Connection, batch: int) -> tuple[int, int, list[dict[str, Any]]] | None:
    """The stored watermark, the new one, and the rows to add for the counted matches
    recorded after the stored one (at most ``batch`` records); ``None`` when there are none."""
    top = conn.scalar(select(func.max(RECORDS.c.id)))
    mark = int(conn.scalar(select(STAT_SYNC.c.last_record_id).where(STAT_SYNC.c.id == 1)) or 0)
    if top is None or top <= mark:
        return None
    r = RECORDS.c
    rows = (
        conn.execute(
            select(RECORDS, GAMES.c.practice.label("game_practice"))
            .join(GAMES, GAMES.c.code == r.code, isouter=True)
            .where(r.id > mark, r.scope == "match")
            .order_by(r.id)
            .limit(batch)
        )
        .mappings()
        .all()
    )
    last = int(rows[-1]["id"]) if len(rows) == batch else int(top)
    counted = [row for row in rows if _counts(row)]
    hands = _hands(conn, [row["code"] for row in counted])
    values = [v for row in counted for v in _rows_for(row, hands.get(row["code"], []))]
    return mark, last, values


def _hands(conn: Connection, codes: list[str]) -> dict[str, list[Any]]:
    """Per code, the hand records' score lists in hand order."""
    r = RECORDS.c
    out: dict[str, list[Any]] = {}
    for i in range(0, len(codes), 500):
        rows = conn.execute(
            select(r.code, r.scores)
            .where(r.code.in_(codes[i : i + 500]), r.scope == "hand")
            .order_by(r.code, r.number, r.id)
        ).all()
        for code, scores in rows:
            out.setdefault(code, []).append(orjson.loads(scores))
    return out


def _sync_write(conn: Connection, mark: int, last: int, values: list[dict[str, Any]]) -> None:
    if values:
        conn.execute(insert(STAT_MATCHES), values)
    if mark == 0 and not conn.scalar(select(func.count()).select_from(STAT_SYNC)):
        conn.execute(insert(STAT_SYNC).values(id=1, last_record_id=last))
    else:
        conn.execute(update(STAT_SYNC).where(STAT_SYNC.c.id == 1).values(last_record_id=last))


def _where(name: str, game: str | None) -> list[Any]:
    where = [STAT_MATCHES.c.name == name]
    if game:
        where.append(STAT_MATCHES.c.kind == game)
    return where


def _played_rows(conn: Connection, name: str, game: str | None) -> list[Any]:
    # Only the covering index's columns: no table lookups, no JSON.
    c = STAT_MATCHES.c
    return list(
        conn.execute(
            select(c.opponent, c.result, c.hands, c.hand_total, c.best_hand, c.kind)
            .where(*_where(name, game))
            .order_by(c.finished_at.desc(), c.id.desc())
        ).all()
    )


def _report_rows(conn: Connection, name: str, game: str | None) -> tuple[list[Any], list[Any]]:
    """Overall and By Opponent: counts and hand scores aggregated by the database (portable
    SQL: SQLite and PostgreSQL), and the results newest first for the streaks; both read
    only the covering index."""
    kind_sql = " AND kind = :kind" if game else ""
    totals_sql = text(
        "SELECT opponent, COUNT(*), SUM(CASE WHEN result = 'won' THEN 1 ELSE 0 END),"
        " SUM(CASE WHEN result = 'lost' THEN 1 ELSE 0 END),"
        " SUM(CASE WHEN result = 'tied' THEN 1 ELSE 0 END),"
        " SUM(hands), SUM(hand_total), MAX(best_hand)"
        f" FROM stat_matches WHERE name = :name{kind_sql} GROUP BY opponent"
    )
    totals = list(conn.execute(totals_sql, {"name": name, "kind": game}).all())
    if not totals:
        return [], []
    # Current streaks: the name's results newest first, two short columns read straight
    # from the covering index; the runs are counted in Python (SQLite 3.40 has no ordered
    # aggregates, and window functions cost more than this scan).
    c = STAT_MATCHES.c
    results = conn.execute(
        select(c.opponent, c.result)
        .where(*_where(name, game))
        .order_by(c.finished_at.desc(), c.id.desc())
    ).all()
    return totals, list(results)


def _history_rows(
    conn: Connection, name: str, game: str | None, offset: int, limit: int
) -> tuple[int, list[Any]]:
    where = _where(name, game)
    c = STAT_MATCHES.c
    total = conn.scalar(select(func.count()).select_from(STAT_MATCHES).where(*where))
    rows = (
        conn.execute(
            select(STAT_MATCHES)
            .where(*where)
            .order_by(c.finished_at.desc(), c.id.desc())
            .offset(offset)
            .limit(limit)
        )
        .mappings()
        .all()
    )
    return int(total or 0), list(rows)


class SqlStatsSource:
    """Counted matches of a name, from ``stat_matches`` (kept in step with ``records``)."""

    SYNC_BATCH = 2000

    def __init__(self, sql_store: Any) -> None:
        self.db = _Db(sql_store)
        self._sync_lock = asyncio.Lock()

    @classmethod
    def on(cls, sql_store: Any) -> SqlStatsSource:
        return cls(sql_store)

    async def sync(self) -> int:
        """Copy counted matches recorded since the last sync; returns how many were added."""
        added = 0
        async with self._sync_lock:
            while True:
                found = await self.db.read(_sync_read, self.SYNC_BATCH)
                if found is None:
                    return added
                mark, last, values = found
                await self.db.write(_sync_write, mark, last, values)
                added += len(values) // 2

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

    async def played_matches(self, name: str, game: str | None) -> list[PlayedMatch]:
        await self.sync()
        rows = await self.db.read(_played_rows, name, game)
        return [
            PlayedMatch("", kind, "", 0.0, opp, 0, 0, cast(Result, result), hands, total, best)
            for opp, result, hands, total, best, kind in rows
        ]

    async def report(self, name: str, game: str | None) -> StatsReport:
        await self.sync()
        totals, results = await self.db.read(_report_rows, name, game)
        if not totals:
            return StatsReport(name, game, StatRecord(), {})
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
        total, rows = await self.db.read(_history_rows, name, game, offset, limit)
        return total, [self._played(r) for r in rows]
