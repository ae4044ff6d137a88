"""Tile Rummy strength tripwires. Matches to 200 between close bots last ~100 rounds (see
docs/decisions.md), so the quick check plays mirrored pairs of short matches (target 50) and
compares points per round. It is coarse: at this size it catches a Hard that is clearly weaker
than Medium (a few points a round), not a subtle loss; the full ladder is the bench test below
and ``gameshack arena tiles``."""

from __future__ import annotations

import pytest

from gameshack.arena import run_arena


def _points_gap(a: list[int], b: list[int]) -> float:
    return (sum(a) - sum(b)) / len(a)


def test_tiles_hard_not_weaker_than_medium_tripwire() -> None:
    # 6 mirrored pairs to 50 points: ~110 rounds, ~12 s compiled / ~25 s pure Python (CPU).
    r = run_arena("tiles", "hard", "medium", pairs=6, seed=2, target=50, workers=1)
    assert r.fallbacks == 0 and r.abandoned == 0
    assert len(r.points["a"]) >= 80, r.report()
    assert _points_gap(r.points["a"], r.points["b"]) > -2.0, r.report()


def test_tiles_easy_beats_random_tripwire() -> None:
    r = run_arena("tiles", "easy", "random", pairs=1, seed=3, workers=1)
    assert r.fallbacks == 0 and r.abandoned == 0
    assert r.rate("a") == 1.0, r.report()


@pytest.mark.bench
@pytest.mark.parametrize(
    ("a", "b", "seed", "pairs", "floor"),
    [
        ("easy", "random", 1, 100, 0.90),
        ("medium", "easy", 1, 1000, 0.55),
        ("hard", "medium", 1, 1000, 0.54),
        ("hard", "medium", 2, 1000, 0.54),
    ],
)
def test_tiles_ladder_full(a: str, b: str, seed: int, pairs: int, floor: float) -> None:
    # Hours on this machine for the 1,000-pair runs (matches between close bots are ~100
    # rounds long); run them one at a time.
    r = run_arena("tiles", a, b, pairs=pairs, seed=seed)
    print(r.report())
    lo, _ = r.interval("a")
    assert (r.rate("a") if floor >= 0.9 else lo) > floor, r.report()
