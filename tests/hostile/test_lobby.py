"""Issue 28, points 2 and 7, against a real ``gameshack serve``: a creation flood from one device
is refused at once (429/409) while a normal player's ping stays low, and a join that fills a
Rummy game is committed together with the match start."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import httpx
import pytest

from .proc import ping_times, quantile, running_server

FLOOD = 1000  # creation requests from one device
THREADS = 8


@pytest.mark.slow
def test_a_creation_flood_from_one_device_is_refused_and_others_keep_playing(
    tmp_path: Path,
) -> None:
    with running_server(tmp_path / "data") as server:
        ana, ben = server.player("Ana"), server.player("Ben")
        code = ana.create(game="rummy", seats=2)["code"]
        ben.join(code)
        sock = ana.connect(code)
        quiet = ping_times(sock, 40, gap=0.06)

        attacker = server.player("Mallory")
        statuses: list[int] = []
        retry_after: list[str] = []
        lock = threading.Lock()

        def flood(n: int) -> None:
            with httpx.Client(base_url=server.base, cookies=attacker.http.cookies) as http:
                for i in range(n):
                    practice = i % 2 == 0  # started games (the hourly rate) and waiting ones
                    r = http.post(
                        "/api/games",
                        json={
                            "game": "rummy",
                            "seats": 2,
                            "practice": practice,
                            "difficulty": "easy" if practice else None,
                            "name": "Mallory",
                        },
                    )
                    with lock:
                        statuses.append(r.status_code)
                        if r.status_code == 429:
                            retry_after.append(r.headers.get("retry-after", ""))
                    if i % 25 == 0:
                        http.get("/api/games")

        threads = [threading.Thread(target=flood, args=(FLOOD // THREADS,)) for _ in range(THREADS)]
        start = time.monotonic()
        for t in threads:
            t.start()
        loaded = []
        while any(t.is_alive() for t in threads):
            loaded += ping_times(sock, 10, gap=0.06)  # under 20 messages a second
        for t in threads:
            t.join()
        took = time.monotonic() - start

        made = statuses.count(201)
        # 30 an hour per device (its 5 waiting games among them), every other one refused.
        assert made <= 30 and statuses.count(409) > 0 and statuses.count(429) > 0
        assert made + statuses.count(409) + statuses.count(429) == FLOOD
        assert retry_after and all(int(v) > 0 for v in retry_after if v)
        assert len(attacker.games()) == made
        assert took < 60
        p99 = quantile(loaded, 0.99)
        print(
            f"\ncreation flood: {FLOOD} requests in {took:.1f} s, {made} created; normal "
            f"player's ping p99 {quantile(quiet, 0.99):.1f} ms quiet, {p99:.1f} ms during"
        )
        assert p99 < 250, p99
        # The normal players still play.
        ben_sock = ben.connect(code)
        assert sock.act("deal")["type"] == "ack"
        ben_sock.drain(0.2)
        assert ben_sock.act("deal")["type"] == "ack"


def test_a_join_that_fills_a_rummy_game_is_saved_with_the_match_start(tmp_path: Path) -> None:
    with running_server(tmp_path / "data") as server:
        ana, ben = server.player("Ana"), server.player("Ben")
        code = ana.create(game="rummy", seats=2)["code"]
        practice = ana.create(game="rummy", seats=3, practice=True, difficulty="easy")["code"]
        joined = ben.join(code)
        # Straight from the file, right after the acknowledgement: one transaction wrote the
        # seat, the start and the action that started it (there is no "full but waiting" row).
        db = sqlite3.connect(server.data_dir / "gameshack.db")
        try:
            for game, seats in ((code, 2), (practice, 3)):
                status, version = db.execute(
                    "select status, version from games where code = ?", (game,)
                ).fetchone()
                assert status == "active", (game, status)
                (count,) = db.execute(
                    "select count(*) from seats where code = ?", (game,)
                ).fetchone()
                assert count == seats
                actions = db.execute(
                    "select v, action from actions where code = ? order by v", (game,)
                ).fetchall()
                assert actions[0] == (1, "start") and version >= 1
        finally:
            db.close()
        assert joined["status"] == "active"
