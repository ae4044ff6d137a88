"""``GAMESHACK_LOG_FORMAT=json``: every line a real server process logs is one JSON object."""

from __future__ import annotations

import json
from pathlib import Path

import httpx

from hostile.proc import running_server


def test_json_logs_are_one_object_per_line(tmp_path: Path) -> None:
    with running_server(tmp_path / "data", {"GAMESHACK_LOG_FORMAT": "json"}) as server:
        httpx.get(f"{server.base}/metrics", timeout=10)
        httpx.post(f"{server.base}/api/games", json={"game": "chess"}, timeout=10)
        lines = server.log().splitlines()
    assert len(lines) >= 5
    records = [json.loads(line) for line in lines]  # every line parses
    assert {"ts", "level", "logger", "msg", "pid"} <= set(records[0])
    assert any(r["logger"] == "uvicorn.access" and "/metrics" in r["msg"] for r in records)
