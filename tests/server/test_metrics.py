"""/metrics: the process's figures in the Prometheus text format, read by a real parser."""

from __future__ import annotations

import httpx
from prometheus_client.parser import text_string_to_metric_families

from server.wsclient import LiveServer


def _samples(base: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    r = httpx.get(f"{base}/metrics", timeout=10)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(r.text)
        for s in family.samples
    }


def test_metrics_count_commits_errors_games_and_sockets(live: LiveServer) -> None:
    before = _samples(live.base)
    ana, ben = live.player("Ana"), live.player("Ben")
    code = ana.create(game="rummy", seats=2, seed=3)["code"]
    ben.join(code)
    with ana.socket(code) as a:
        assert a.act("deal")["type"] == "ack"
        a.send_raw("{not json")
        assert a.wait_type("error")["code"] == "malformed"
        after = _samples(live.base)
        assert after[("gameshack_open_sockets", ())] == 1
    assert after[("gameshack_live_games", ())] >= 1
    commits = ("gameshack_commit_seconds_count", ())
    assert after[commits] >= before.get(commits, 0) + 3  # create, join (+ start), deal
    malformed = ("gameshack_errors_total", (("code", "malformed"),))
    assert after[malformed] == before.get(malformed, 0) + 1
