"""Issue 28, point 1: a full disk under a real server process.

The data directory is a tiny tmpfs; a filler file takes its last byte. A player's move that
cannot be saved is answered ``error`` (never ``ack``), and is not in the game after a reconnect
nor in the database after a restart; ``/healthz`` says 503 with the reason while writes fail
and 200 once the disk has room and a write commits; SIGTERM stops the process in bounded time,
even with the disk still full and a write stuck behind a lock.
"""

from __future__ import annotations

import contextlib
import sqlite3
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from hostile.proc import ServerProcess, running_server
from server.wsclient import Sock
from store.tinyfs import Filler, tiny_tmpfs

SHUTDOWN = 3.0  # GAMESHACK_SHUTDOWN_TIMEOUT for these processes


def _next_move(sock: Sock) -> str:
    """A plain legal move for the seat whose turn it is: deal, draw, then discard."""
    assert sock.view is not None
    legal = [a for a in sock.view["legal"] if a != "undo"]
    for prefix in ("deal", "next", "draw", "discard "):
        for action in legal:
            if action.startswith(prefix):
                return action
    return legal[0]


def _mover(socks: list[Sock]) -> Sock:
    """The seat with a move to make (not only ``undo``: a grace window may still be open)."""
    deadline = time.monotonic() + 10
    while True:
        for sock in socks:
            sock.drain(0.05)
        for sock in socks:
            if sock.view is not None and any(a != "undo" for a in sock.view["legal"]):
                return sock
        assert time.monotonic() < deadline, "no seat has a move to make"


def _health(server: ServerProcess) -> httpx.Response:
    return httpx.get(f"{server.base}/healthz", timeout=5)


@pytest.mark.slow
def test_a_move_on_a_full_disk_is_refused_not_acknowledged(tmp_path: Path) -> None:
    env = {"GAMESHACK_SHUTDOWN_TIMEOUT": str(SHUTDOWN), "GAMESHACK_GRACE_SECONDS": "0"}
    with tiny_tmpfs(tmp_path / "data", "16m") as data:
        filler = Filler(data)
        server = ServerProcess(data, env).wait_ready()
        reader = locker = None
        try:
            ana, ben = server.player("Ana"), server.player("Ben")
            code = ana.create(game="rummy", seats=2, seed=28)["code"]
            ben.join(code)
            socks = [ana.connect(code), ben.connect(code)]
            acked: list[int] = []
            for _ in range(4):  # a few saved moves first
                mover = _mover(socks)
                reply = mover.act(_next_move(mover))
                assert reply["type"] == "ack", reply
                acked.append(reply["v"])
            assert _health(server).status_code == 200

            # A reader holding a snapshot (as a backup does) keeps SQLite from starting its log
            # over, so new moves need new disk; without it, moves can commit into log space
            # already held for minutes of play on a full disk (truly saved: fine, but slow to
            # test). Some may still fit in the log's tail; each is answered once; one soon fails.
            reader = sqlite3.connect(data / "gameshack.db", isolation_level=None)
            reader.execute("BEGIN")
            reader.execute("SELECT count(*) FROM games").fetchone()
            filler.fill()
            failed: dict[str, Any] | None = None
            for _ in range(300):
                sock = _mover(socks)
                before = sock.view
                assert before is not None
                action = _next_move(sock)
                reply = sock.act(action)
                assert reply["type"] in ("ack", "error"), reply
                if reply["type"] == "error":
                    failed = {"sock": sock, "before": before, "action": action, "reply": reply}
                    break
                acked.append(reply["v"])
                time.sleep(0.06)  # within the socket's message rate
            assert failed is not None, "300 moves committed on a full disk"
            print(f"{len(acked) - 4} moves committed on the full disk before one failed")
            sick = _health(server)
            assert sick.status_code == 503 and "full" in sick.json()["reason"], sick.text
            # No ack followed the error, and a fresh socket shows the move did not happen.
            sock = failed["sock"]
            sock.drain(0.3)
            assert not [f for f in sock.pending if f.get("id") == failed["reply"].get("id")]
            who = ana if sock is socks[0] else ben
            again = who.connect(code)
            assert again.view is not None
            assert again.view["v"] == failed["before"]["v"]
            assert again.view["state"] == failed["before"]["state"]
            again.close()

            reader.execute("COMMIT")
            filler.free()  # room again: the same move now commits, health turns good
            sock.drain(0.05)
            reply = sock.act(failed["action"])
            assert reply["type"] == "ack", reply
            acked.append(reply["v"])
            assert _health(server).status_code == 200

            # SIGTERM with the disk full again and a move stuck in the writer (another process
            # holds SQLite's write lock; the writer would wait 10 s): the process still stops.
            filler.fill()
            locker = sqlite3.connect(data / "gameshack.db", isolation_level=None, timeout=0)
            locker.execute("BEGIN IMMEDIATE")
            stuck = _mover(socks)
            stuck.send(type="act", v=stuck.view["v"], action=_next_move(stuck), id="stuck")
            time.sleep(0.3)
            took = server.terminate(timeout=SHUTDOWN * 2 + 10)
            print(f"SIGTERM with the disk full and a write stuck: stopped in {took:.2f} s")
            assert took < SHUTDOWN * 2 + 3, f"SIGTERM took {took:.1f} s"
            with contextlib.suppress(Exception):
                while True:
                    stuck._recv(0.2)
            assert not [f for f in stuck.frames if f.get("id") == "stuck" and f["type"] == "ack"]
        finally:
            for conn in (reader, locker):
                if conn is not None:
                    conn.close()
            server.stop()
            filler.free()

        # On disk: every acknowledged move, once; the refused try left no row of its own.
        db = sqlite3.connect(data / "gameshack.db")
        try:
            saved = [v for (v,) in db.execute("select v from actions where code = ?", (code,))]
            row_version = db.execute("select version from games where code = ?", (code,))
            version = row_version.fetchone()[0]
        finally:
            db.close()
        # The view's "v" is public (it skips private steps), so count: one row per version,
        # no gap, the game at the last one, and at least as many rows as acknowledged moves.
        assert sorted(saved) == list(range(1, version + 1)), (saved, version)
        assert len(saved) >= len(acked)
        with running_server(data, env) as restarted:  # the database opens clean afterwards
            assert _health(restarted).status_code == 200
