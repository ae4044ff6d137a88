"""The bots' strength ladder: prints the arena report for each rung (see gameshack.arena).

    .venv/bin/python bench/arena_ladder.py rummy 1000     # pairs per rung
    .venv/bin/python bench/arena_ladder.py tiles 100

Rungs: Easy vs random, Medium vs Easy, Hard vs Medium (seed 1) and Hard vs Medium again with
seed 2. Each line of the goals is in the issue: Easy >= 90% vs random, Medium >= 60% (lower
95% bound > 55%), Hard >= 58% (lower bound > 54%) on both seeds.
"""

from __future__ import annotations

import sys

from gameshack.arena import run_arena

RUNGS = (("easy", "random", 1), ("medium", "easy", 1), ("hard", "medium", 1), ("hard", "medium", 2))


def main() -> int:
    game = sys.argv[1] if len(sys.argv) > 1 else "rummy"
    pairs = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    only = sys.argv[3:]  # optional rung filter like "hard-medium-2"
    for a, b, seed in RUNGS:
        if only and f"{a}-{b}-{seed}" not in only:
            continue
        print(run_arena(game, a, b, pairs=pairs, seed=seed).report(), flush=True)
        print(flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
