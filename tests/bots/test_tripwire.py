"""Strength tripwires: a few hundred hands at a fixed seed, so that a change that makes Hard
weaker than Medium (or Medium weaker than Easy) fails CI. The full ladder, with 1,000-pair runs
and confidence intervals, is ``bench/arena_ladder.py`` / ``gameshack arena`` (and the bench
test below)."""

from __future__ import annotations

import pytest

from gameshack.arena import run_arena


def test_rummy_hard_beats_medium_tripwire() -> None:
    # 40 mirrored pairs = 80 matches, ~190 hands. Hard measures ~70% here; a Hard no better
    # than Medium lands near 50%.
    r = run_arena("rummy", "hard", "medium", pairs=40, seed=101, workers=1)
    assert r.fallbacks == 0 and r.abandoned == 0
    assert len(r.points["a"]) >= 150
    assert r.rate("a") > 0.55, r.report()
    assert sum(r.points["a"]) > sum(r.points["b"]), r.report()


def test_rummy_medium_beats_easy_tripwire() -> None:
    r = run_arena("rummy", "medium", "easy", pairs=30, seed=102, workers=1)
    assert r.fallbacks == 0 and r.abandoned == 0
    assert r.rate("a") > 0.55, r.report()
    assert sum(r.points["a"]) > sum(r.points["b"]), r.report()


def test_tiles_medium_beats_easy_tripwire() -> None:
    r = run_arena("tiles", "medium", "easy", pairs=4, seed=103, workers=1)
    assert r.fallbacks == 0 and r.abandoned == 0
    assert r.rate("a") > 0.7, r.report()


@pytest.mark.bench
@pytest.mark.parametrize(
    ("game", "a", "b", "seed", "floor"),
    [
        ("rummy", "easy", "random", 1, 0.90),
        ("rummy", "medium", "easy", 1, 0.55),
        ("rummy", "hard", "medium", 1, 0.54),
        ("rummy", "hard", "medium", 2, 0.54),
    ],
)
def test_rummy_ladder_full(game: str, a: str, b: str, seed: int, floor: float) -> None:
    r = run_arena(game, a, b, pairs=1000, seed=seed)
    print(r.report())
    lo, _ = r.interval("a")
    assert (r.rate("a") if floor >= 0.9 else lo) > floor, r.report()
