"""How fast is the Stats page for a name with thousands of matches?

Builds a real SQLite database (the server's schema, migrated by Alembic) holding 5,000 finished
one-on-one matches of "Ana" among 25,000 matches of other players (each match with its hand
records, as the game server writes them), then times, through the same code the HTTP routes use:

- the one-off sync that copies counted matches into the indexed ``stat_matches`` table,
- the Stats query (overall + By Opponent) for Ana,
- one page of Ana's match history (first and last page),
- the same queries once a new match has arrived (incremental sync).

Usage: .venv/bin/python bench/stats_query.py [--matches 5000] [--others 20000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import tempfile
import time
from pathlib import Path

from sqlalchemy import insert

from gameshack.store import SqlStore
from gameshack.store.accounts import SqlStatsSource
from gameshack.store.models import GAMES, RECORDS

OPPONENTS = [f"Player {i}" for i in range(40)]


def _match_rows(
    code: str, kind: str, names: list[str], rng: random.Random, at: float
) -> list[dict]:
    hands = [[rng.randint(-60, 150), rng.randint(-60, 150)] for _ in range(rng.randint(1, 5))]
    totals = [sum(h[0] for h in hands), sum(h[1] for h in hands)]
    winners = [0] if totals[0] > totals[1] else [1] if totals[1] > totals[0] else [0, 1]
    common = {
        "code": code,
        "kind": kind,
        "names": json.dumps(names),
        "emojis": '["🙂","🙂"]',
        "bots": "[false,false]",
        "reason": "went_out",
        "started_at": at - 900,
    }
    rows = [
        {
            **common,
            "scope": "hand",
            "number": i + 1,
            "scores": json.dumps(h),
            "winners": json.dumps([0 if h[0] >= h[1] else 1]),
            "finished_at": at - 900 + 60 * i,
        }
        for i, h in enumerate(hands)
    ]
    rows.append(
        {
            **common,
            "scope": "match",
            "number": len(hands),
            "scores": json.dumps(totals),
            "winners": json.dumps(winners),
            "finished_at": at,
        }
    )
    return rows


async def build(store: SqlStore, matches: int, others: int) -> None:
    rng = random.Random(1)
    games, records = [], []
    t0 = 1_700_000_000.0
    for i in range(matches + others):
        code = f"B{i:07d}"
        kind = rng.choice(["rummy", "tiles"])
        if i < matches:
            names = ["Ana", rng.choice(OPPONENTS)]
            if rng.random() < 0.5:
                names.reverse()
        else:
            names = rng.sample(OPPONENTS, 2)
        at = t0 + i * 37.0
        games.append(
            {
                "code": code,
                "kind": kind,
                "status": "finished",
                "capacity": 2,
                "target": 200,
                "practice": False,
                "difficulty": None,
                "seed": i,
                "host": 0,
                "state": None,
                "version": 1,
                "grace_deadline": None,
                "grace_seat": None,
                "ended": None,
                "hands_recorded": 1,
                "created_at": at - 900,
                "updated_at": at,
            }
        )
        records.extend(_match_rows(code, kind, names, rng, at))

    def insert_all(conn) -> None:
        for i in range(0, len(games), 5000):
            conn.execute(insert(GAMES), games[i : i + 5000])
        for i in range(0, len(records), 5000):
            conn.execute(insert(RECORDS), records[i : i + 5000])

    await store.run(insert_all)


async def timed(label: str, fn, repeat: int = 15) -> object:
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = await fn()
        times.append((time.perf_counter() - start) * 1000)
    print(
        f"{label:<48} median {statistics.median(times):8.2f} ms   (min {min(times):.2f}, n={repeat})"
    )
    return result


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--matches", type=int, default=5000)
    ap.add_argument("--others", type=int, default=20000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        store = SqlStore(f"sqlite+aiosqlite:///{Path(tmp) / 'bench.db'}")
        await store.start()
        start = time.perf_counter()
        await build(store, args.matches, args.others)
        print(
            f"built {args.matches} matches of Ana among {args.matches + args.others} in "
            f"{time.perf_counter() - start:.1f} s"
        )
        stats = SqlStatsSource.on(store)
        start = time.perf_counter()
        added = await stats.sync()
        print(
            f"{'one-off sync (all records -> stat_matches)':<48} {1000 * (time.perf_counter() - start):8.0f} ms"
            f"   ({added} matches)"
        )

        async def page() -> object:
            return await stats.report("Ana", None)

        report = await timed("Stats page: overall + By Opponent (both games)", page)
        print(
            f"  -> {report.overall.played} matches, {report.overall.hands} hands, "  # type: ignore[attr-defined]
            f"{len(report.by_opponent)} opponents"
        )  # type: ignore[attr-defined]
        await timed("Stats page: Rummy only", lambda: stats.report("Ana", "rummy"))
        await timed("history page 1 (20 newest)", lambda: stats.history("Ana", None, 0, 20))
        await timed("history last page", lambda: stats.history("Ana", None, args.matches - 20, 20))
        await timed(
            "Stats page for a name with no matches", lambda: stats.played_matches("Nobody", None)
        )
        new = _match_rows("NEW01", "rummy", ["Ana", "Zed"], random.Random(2), 2e9)
        await store.run(lambda conn: conn.execute(insert(RECORDS), new))
        await timed("Stats page right after a new match (sync + query)", page, repeat=1)
        await store.close()


if __name__ == "__main__":
    asyncio.run(main())
