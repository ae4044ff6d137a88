"""Durability: `gameshack serve` as a real process, killed with SIGKILL mid-game, restarted.

Every action the server acknowledged must be in the database after the restart, a grace window
that was open at the kill must still end (and publish) afterwards, and bot turns carry on.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from server.wsclient import Player, Sock, free_port


class Proc:
    """Enough of LiveServer for :class:`Player`: a base URL and a port."""

    def __init__(self, data_dir: Path, port: int) -> None:
        self.port = port
        self.base = f"http://127.0.0.1:{port}"
        env = {
            **os.environ,
            "GAMESHACK_DATA_DIR": str(data_dir),
            "GAMESHACK_GRACE_SECONDS": "3",
            "GAMESHACK_BOT_DELAY": "0.3",
            "GAMESHACK_ALLOW_SEED": "1",
        }
        env.pop("GAMESHACK_DATABASE_URL", None)
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "gameshack.cli",
                "serve",
                "--port",
                str(port),
                "--log-level",
                "warning",
            ],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=open(data_dir / f"server-{port}-{time.monotonic_ns()}.log", "w"),  # noqa: SIM115
        )
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(f"{self.base}/api/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise RuntimeError("server did not start")
            time.sleep(0.1)

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()


def _acked(sock: Sock, action: str, log: list[tuple[int, str]]) -> dict[str, Any]:
    sock.drain(0.1)  # act on the latest view
    reply = sock.act(action)
    assert reply["type"] == "ack", reply
    log.append((reply["v"], action))
    return reply


def _legal(sock: Sock, prefix: str) -> str:
    sock.drain(0.1)
    return next(a for a in sock.view["legal"] if a.startswith(prefix))


@pytest.mark.slow
def test_kill_9_loses_no_acknowledged_action_and_games_carry_on(tmp_path: Path) -> None:
    port = free_port()
    srv = Proc(tmp_path, port)
    try:
        ana, ben = Player(srv, "Ana"), Player(srv, "Ben")  # type: ignore[arg-type]
        acked: dict[str, list[tuple[int, str]]] = {}

        # Game 1: Rummy between two humans, killed inside a grace window.
        rummy = ana.create(game="rummy", seats=2, seed=31)["code"]
        ben.join(rummy)
        a, b = ana.connect(rummy), ben.connect(rummy)
        log1 = acked[rummy] = []
        _acked(a, "deal", log1)
        _acked(b, "deal", log1)
        a.wait(lambda m: m["type"] == "view" and m["state"]["phase"] == "playing")
        a.drain(0.1)
        turn = a.view["state"]["turn"]
        me = (a, b)[turn]
        me.drain(0.1)
        _acked(me, "draw", log1)
        discard = _legal(me, "discard ")
        _acked(me, discard, log1)

        # Game 2: Tile Rummy between two humans, a few turns in.
        tiles = ana.create(game="tiles", seats=2, seed=32)["code"]
        ben.join(tiles)
        ta, tb = ana.connect(tiles), ben.connect(tiles)
        assert ta.request(type="start")["type"] == "ack"
        log2 = acked[tiles] = [(1, "start")]
        for _ in range(4):
            ta.drain(0.1)
            tb.drain(0.1)
            sock = ta if 0 in ta.view["room"]["to_act"] else tb
            _acked(sock, "draw", log2)

        # Game 3: practice Rummy with bots pacing 0.3 s a step.
        practice = ana.create(game="rummy", seats=3, practice=True, difficulty="medium", seed=33)[
            "code"
        ]
        pa = ana.connect(practice)
        log3 = acked[practice] = []
        _acked(pa, "deal", log3)
        time.sleep(0.4)  # let a bot step or two land, then kill while bots are mid-way

        with pytest.raises(Exception):  # noqa: B017 - any socket error: the server is gone
            srv.kill()
            a.ws.recv(timeout=5)
        for s in (a, b, ta, tb, pa):
            s.ws.close()

        # Straight from the database file: every acknowledged action is there.
        db = sqlite3.connect(tmp_path / "gameshack.db")
        # (An ack's v is the seat's own view counter, not the game's version: the acknowledged
        # actions, in the order acknowledged, must be found in that order among the stored ones.)
        for code, actions in acked.items():
            stored = [
                a
                for (a,) in db.execute(
                    "select action from actions where code = ? order by v", (code,)
                ).fetchall()
            ]
            rest = iter(stored)
            for _v, action in actions:
                assert any(a == action for a in rest), (code, action, actions, stored)
            (version,) = db.execute("select version from games where code = ?", (code,)).fetchone()
            assert version >= len(actions)
        (deadline,) = db.execute(
            "select grace_deadline from games where code = ?", (rummy,)
        ).fetchone()
        assert deadline is not None  # the kill came inside the window
        p_before = db.execute("select version from games where code = ?", (practice,)).fetchone()[0]
        db.close()

        srv = Proc(tmp_path, free_port())
        ana.server = ben.server = srv  # type: ignore[assignment]
        ana.http = httpx.Client(base_url=srv.base, cookies={"gs_device": ana.token})
        ben.http = httpx.Client(base_url=srv.base, cookies={"gs_device": ben.token})

        # Both players still have their games.
        assert {g["code"] for g in ana.games()} == {rummy, tiles, practice}

        # The grace window resumes: the discarder still sees it pending, the other does not,
        # and once it ends the discard is published and the turn passes.
        a, b = ana.connect(rummy), ben.connect(rummy)
        me, other = (a, b)[turn], (a, b)[1 - turn]
        card = discard.split()[1]
        if me.view["state"]["stage"] == "pending":
            # Restarted before the deadline: still private, and the turn has not passed.
            assert me.view["grace"] is not None
            assert other.view["room"]["to_act"] == [turn]
        published = other.wait(
            lambda m: m["type"] == "view" and m["room"]["to_act"] == [1 - turn], timeout=10
        )
        assert published["state"]["discard"][-1] == card
        # ... and play carries on.
        other.drain(0.1)
        _acked(other, "draw", log1)

        # Tile Rummy carries on from where it was.
        ta, tb = ana.connect(tiles), ben.connect(tiles)
        assert ta.view["v"] >= max(v for v, _ in log2)
        sock = ta if 0 in ta.view["room"]["to_act"] else tb
        _acked(sock, "draw", log2)

        # The bots of the practice game carry on by themselves after the restart.
        pa = ana.connect(practice)
        deadline = time.monotonic() + 15
        while True:
            pa.drain(0.2)
            with contextlib.closing(sqlite3.connect(tmp_path / "gameshack.db")) as db:
                (p_now,) = db.execute(
                    "select version from games where code = ?", (practice,)
                ).fetchone()
            if p_now > p_before or 0 in pa.view["room"]["to_act"]:
                break
            assert time.monotonic() < deadline, "bots did not resume"
        for s in (a, b, ta, tb, pa):
            s.close()
    finally:
        srv.stop()
