"""Stats: the arithmetic, and the SQL source (indexed table + SQL aggregates) agreeing with the
in-memory twin that scans the server's records, on the same real SQLite store."""

from __future__ import annotations

import random

import pytest

from gameshack.accounts.stats import PlayedMatch, RecordsStatsSource, compute_stats
from gameshack.service import GameRow, RecordRow, SeatRow
from gameshack.store import SqlStore
from gameshack.store.accounts import SqlStatsSource

ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"


def pm(result: str, opponent: str = "Ben", hands: tuple[int, ...] = (10,), at: float = 0.0):
    return PlayedMatch.with_hand_scores(
        list(hands),
        match_id="m",
        game="rummy",
        code="C",
        finished_at=at,
        opponent=opponent,
        my_score=sum(hands),
        opponent_score=0,
        result=result,
    )


def test_record_arithmetic():
    # Newest first: won, won, tied, lost.
    r = compute_stats(
        "Ana",
        None,
        [
            pm("won", hands=(50, -5)),
            pm("won", "Cy", (120,)),
            pm("tied", hands=(0,)),
            pm("lost", "Cy", (-30, 20)),
        ],
    )
    o = r.to_dict()["overall"]
    assert (o["played"], o["won"], o["lost"], o["tied"]) == (4, 2, 1, 1)
    assert o["win_rate"] == 0.5
    assert (o["hands"], o["avg_hand"], o["best_hand"]) == (6, round(155 / 6, 1), 120)
    assert o["streak"] == {"result": "won", "count": 2}
    opp = {x["opponent"]: x for x in r.to_dict()["by_opponent"]}
    assert opp["Ben"]["streak"] == {"result": "won", "count": 1}
    assert (opp["Cy"]["won"], opp["Cy"]["lost"]) == (1, 1)
    empty = compute_stats("Nobody", None, []).to_dict()["overall"]
    assert empty["played"] == 0 and empty["win_rate"] is None and empty["streak"] is None


def code(i: int) -> str:
    return "".join(ALPHABET[(i // len(ALPHABET) ** k) % len(ALPHABET)] for k in range(5))


async def add_match(store, i, kind, names, bots, hands, at):
    seats = [
        SeatRow(n, nm, "🙂", None if b else f"d{i}-{n}", bot="hard" if b else None)
        for n, (nm, b) in enumerate(zip(names, bots, strict=True))
    ]
    row = GameRow(
        code(i),
        kind,
        "finished",
        len(names),
        100,
        any(bots),
        None,
        i,
        seats=seats,
        created_at=at - 100,
        updated_at=at,
    )
    await store.create_game(row)
    totals = [sum(h[s] for h in hands) for s in range(len(names))]
    best = max(totals)
    winners = [s for s, t in enumerate(totals) if t == best]
    recs = [
        RecordRow(
            row.code,
            kind,
            "hand",
            k + 1,
            list(names),
            ["🙂"] * len(names),
            list(bots),
            h,
            [0],
            "went_out",
            at - 100,
            at - 50 + k,
            practice=any(bots),  # as the server marks them
        )
        for k, h in enumerate(hands)
    ]
    recs.append(
        RecordRow(
            row.code,
            kind,
            "match",
            len(hands),
            list(names),
            ["🙂"] * len(names),
            list(bots),
            totals,
            winners,
            "target_reached",
            at - 100,
            at,
            practice=any(bots),
        )
    )
    await store.save_game(row, records=recs)


@pytest.fixture
async def store(database_url):
    s = SqlStore(database_url)
    await s.start()
    yield s
    await s.close()


async def test_sql_source_matches_the_twin_and_excludes_practice(store):
    rng = random.Random(8)
    people = ["Ana", "Ben", "Cy", "Dee"]
    for i in range(1, 71):
        kind = rng.choice(["rummy", "tiles"])
        shape = rng.random()
        if shape < 0.15:  # practice: a bot in the other seat
            names, bots = (rng.choice(people), "Robo"), (False, True)
        elif shape < 0.25:  # three players
            names, bots = tuple(rng.sample(people, 3)), (False, False, False)
        else:
            names, bots = tuple(rng.sample(people, 2)), (False, False)
        hands = [
            [rng.choice([-20, 0, 15, 40, 40, 90]) for _ in names] for _ in range(rng.randint(1, 3))
        ]
        await add_match(store, i, kind, names, bots, hands, 1_000_000.0 + i * 10)
        if i == 35:  # a query midway: the later ones arrive through the incremental sync
            await SqlStatsSource.on(store).report("Ana", None)
    sql, twin = SqlStatsSource.on(store), RecordsStatsSource(store)
    for name in [*people, "Robo", "Nobody"]:
        for game in (None, "rummy", "tiles"):
            a = (await sql.report(name, game)).to_dict()
            b = (await twin.report(name, game)).to_dict()
            assert a == b, (name, game)
            ta, pa = await sql.history(name, game, 3, 7)
            tb, pb = await twin.history(name, game, 3, 7)
            assert ta == tb
            assert [m.to_dict() | {"id": None} for m in pa] == [
                m.to_dict() | {"id": None} for m in pb
            ]
    ana = (await sql.report("Ana", None)).to_dict()
    assert ana["overall"]["played"] > 10
    assert "Robo" not in {o["opponent"] for o in ana["by_opponent"]}
    assert (await sql.report("Robo", None)).overall.played == 0


async def test_sync_is_incremental_and_idempotent(store):
    src = SqlStatsSource.on(store)
    await add_match(store, 1, "rummy", ("Ana", "Ben"), (False, False), [[50, 10]], 100.0)
    assert await src.sync() == 1
    assert await src.sync() == 0
    # A second process (another SqlStatsSource) sees the stored watermark: nothing is copied twice.
    assert await SqlStatsSource.on(store).sync() == 0
    await add_match(store, 2, "tiles", ("Ben", "Ana"), (False, False), [[-5, 30]], 200.0)
    assert await src.sync() == 1
    assert (await src.report("Ana", None)).overall.won == 2


async def test_a_names_stats_read_only_the_covering_index(store):
    """What keeps the Stats page fast for a name with thousands of matches (figures:
    bench/stats_query.py): every stats query of a name is answered from its index."""
    from sqlalchemy import text

    if not store.url.startswith("sqlite"):
        pytest.skip("SQLite's query plan; PostgreSQL plans by table statistics, not this shape")

    await SqlStatsSource.on(store).sync()
    queries = [
        "SELECT opponent, COUNT(*), SUM(CASE WHEN result = 'won' THEN 1 ELSE 0 END),"
        " SUM(hands), MAX(best_hand)"
        " FROM stat_matches WHERE name = 'Ana' AND kind = 'rummy' GROUP BY opponent",
        "SELECT opponent, result FROM stat_matches WHERE name = 'Ana'"
        " ORDER BY finished_at DESC, id DESC",
        "SELECT count(*) FROM stat_matches WHERE name = 'Ana'",
    ]

    def plans(conn):
        return [
            " ".join(str(r[-1]) for r in conn.execute(text("EXPLAIN QUERY PLAN " + q)))
            for q in queries
        ]

    for q, plan in zip(queries, await store.run(plans, write=False), strict=True):
        assert "COVERING INDEX ix_stat_matches_name" in plan, (q, plan)
        assert "FOR ORDER BY" not in plan, (q, plan)  # no sort: the index is in order
