"""The garbage collector of a server process: off while it starts, then tuned, and timed.

Importing the server builds tens of thousands of objects that live as long as the process; the
collector would scan them over and over while they are made (about a sixth of start-up) and
then at every full collection while games run. So ``gameshack serve`` turns it off before its
imports (``gc.disable()`` in cli.py), and once start-up has settled :func:`settle` collects once, moves
everything alive into the permanent generation (``gc.freeze``: never scanned again), raises the
thresholds so young collections run less often, and turns it back on.

:func:`settle` also times every collection (``gc.callbacks``) into
``gameshack_gc_pause_seconds{generation}`` on ``/metrics``: the pauses the event loop took.
"""

from __future__ import annotations

import gc
import time
from typing import Any

from gameshack import metrics

__all__ = ["SETTLE_SECONDS", "THRESHOLDS", "settle"]

# Young collections every 50,000 net allocations instead of 700. A young collection costs what
# is alive among the young objects, not what was allocated: under load that is the backlog
# (moves waiting, frames queued), so fewer collections cost proportionally less, and fewer
# short-lived objects survive into the older generations to be scanned again. At 10,000 a
# saturated server spent ~110 ms of every second collecting, at 50,000 ~15 (bench/RESULTS.md).
# The older two keep CPython's ratios (a full collection is also held back until the objects
# awaiting it are a quarter of those that survived the last one).
THRESHOLDS = (50_000, 10, 10)
SETTLE_SECONDS = 2.0  # after the app starts: its first requests have loaded what they load
_started: list[float] = []


def settle() -> None:
    """Time collections, collect once, freeze what is alive, set :data:`THRESHOLDS`, enable."""
    if _timer not in gc.callbacks:
        gc.callbacks.append(_timer)
    gc.collect()  # the one long pause, timed like the others
    gc.freeze()
    gc.set_threshold(*THRESHOLDS)
    gc.enable()


def _timer(phase: str, info: dict[str, Any]) -> None:
    if phase == "start":
        _started.append(time.perf_counter())
    elif _started:
        metrics.GC_PAUSE_SECONDS.labels(str(info["generation"])).observe(
            time.perf_counter() - _started.pop()
        )
