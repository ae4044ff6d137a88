"""The server process's garbage collector: off while ``gameshack serve`` starts, then frozen,
tuned, back on and timed on /metrics."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import httpx
from prometheus_client.parser import text_string_to_metric_families

from hostile.proc import running_server

SETTLE = """
import gc, sys
from gameshack import metrics
from gameshack.server import collector

gc.disable()
junk = []
for _ in range(1000):  # cycles only the collector frees
    a = []
    a.append(a)
    junk.append(a)
del junk, a
collector.settle()
assert gc.isenabled() and gc.get_threshold() == collector.THRESHOLDS
assert gc.get_freeze_count() > 10_000, gc.get_freeze_count()  # the interpreter and imports
gc.collect(0)
text = metrics.exposition().decode()
print(text)
"""


def pauses(text: str) -> dict[str, float]:
    """``generation -> count`` of gameshack_gc_pause_seconds."""
    return {
        s.labels["generation"]: s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
        if s.name == "gameshack_gc_pause_seconds_count"
    }


def test_settle_freezes_tunes_enables_and_times_collections() -> None:
    out = subprocess.run([sys.executable, "-c", SETTLE], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    counts = pauses(out.stdout)
    assert counts["2"] == 1  # settle's own full collection
    assert counts["0"] >= 1  # and the young one after it


def test_serve_turns_the_collector_back_on_once_started(tmp_path: Path) -> None:
    with running_server(tmp_path / "data") as server:
        deadline = time.monotonic() + 20
        counts: dict[str, float] = {}
        while time.monotonic() < deadline and counts.get("2", 0) < 1:
            counts = pauses(httpx.get(f"{server.base}/metrics", timeout=5).text)
            time.sleep(0.2)
        # settle ran (its own full collection is the first one timed): the collector is back
        # on, tuned and timed, as the test above checks in a process of its own.
        assert counts.get("2", 0) >= 1, counts
