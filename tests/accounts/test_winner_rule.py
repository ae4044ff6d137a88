"""Who won is the engines' to say: the stats read a match's recorded winners (the engine's
``match_outcome``) through one function, in the SQL source and its twin alike, and never work it
out again from the scores."""

from __future__ import annotations

import pytest

from gameshack.accounts.stats import RecordsStatsSource, counted, match_result
from gameshack.service import GameRow, RecordRow, SeatRow
from gameshack.store import SqlStore
from gameshack.store.accounts import SqlStatsSource


@pytest.mark.parametrize(
    ("winners", "results"),
    [
        ((0,), ("won", "lost")),
        ((1,), ("lost", "won")),
        ((0, 1), ("tied", "tied")),
        ((), ("tied", "tied")),  # nobody won
    ],
)
def test_a_seats_result_is_read_from_the_winners(winners, results):
    assert (match_result(0, winners), match_result(1, winners)) == results


def test_what_counts_is_a_finished_match_between_two_people():
    assert counted(["Ana", "Ben"], [False, False], False, "target_reached")
    assert not counted(["Ana", "Ben"], [False, True], False, "target_reached")  # a bot
    assert not counted(["Ana", "Ben"], [False, False], True, "target_reached")  # practice
    assert not counted(["Ana", "Ben", "Cy"], [False] * 3, False, "target_reached")
    assert not counted(["Ana", "Ana"], [False, False], False, "target_reached")
    assert not counted(["Ana", "Ben"], [False, False], False, "left")


@pytest.fixture
async def store(tmp_path):
    s = SqlStore(f"sqlite+aiosqlite:///{tmp_path}/gs.sqlite")
    await s.start()
    yield s
    await s.close()


async def _match(store, code, totals, winners):
    names = ["Ana", "Ben"]
    row = GameRow(
        code,
        "rummy",
        "finished",
        2,
        100,
        False,
        None,
        1,
        seats=[SeatRow(n, nm, "🙂", f"d-{code}-{n}") for n, nm in enumerate(names)],
        created_at=0.0,
        updated_at=10.0,
    )
    await store.create_game(row)
    record = RecordRow(
        code, "rummy", "match", 1, names, ["🙂"] * 2, [False] * 2, totals, winners,
        "target_reached", 0.0, 10.0,
    )  # fmt: skip
    await store.save_game(row, records=[record])


async def test_both_sources_take_the_recorded_winners_over_the_scores(store):
    # Winners that the totals alone would not give: the record is what counts.
    await _match(store, "AAAA2", [90, 120], [0])
    await _match(store, "AAAA3", [100, 100], [1])
    for source in (SqlStatsSource.on(store), RecordsStatsSource(store)):
        matches = await source.played_matches("Ana", None)
        assert sorted(m.result for m in matches) == ["lost", "won"], type(source).__name__
