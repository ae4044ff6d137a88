"""Exact best play for Tile Rummy: the most rack tiles onto the table, every set valid.

``solve(table, rack)`` returns the play placing the most tiles, then the most value, moving
as few table tiles as a bounded amount of work finds (:mod:`.api`). The bots and hints use
it; ``gameshack tiles solve`` prints it.

- :mod:`.setrules` — the set rules, stated once, and the tables derived from them;
- :mod:`.entries` — the ways to use one number's tiles (the search's moves);
- :mod:`.search` — the exact search over the numbers 1..13 (its node function also in C,
  ``_dp_engine.c``);
- :mod:`.moved` — how many table tiles a play moves;
- :mod:`.rearrange` — the same play rearranged to move fewer, within a budget;
- :mod:`.api` — the public call, :func:`solve`.

Plain typed Python, compiled with mypyc when installed (the pure-Python fallback gives the
same answers). It is checked against an integer program (HiGHS) in the tests.
"""

from gameshack.rules.tiles_solver.api import INITIAL_MELD_MIN, MOVED_BUDGET, Solution, solve
from gameshack.rules.tiles_solver.moved import moved_count

__all__ = ["INITIAL_MELD_MIN", "MOVED_BUDGET", "Solution", "moved_count", "solve"]
