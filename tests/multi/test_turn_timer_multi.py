"""The turn timer across real processes (PostgreSQL + Redis): the process that committed the
turn's start holds its clock; killed with SIGKILL, another process takes the clock over like
any timer (``games.due_at``, the lease) and applies the penalty within ``WITHIN`` seconds of
the deadline."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from multi.conftest import same_device
from multi.test_processes import WITHIN, _fetch, _game, _latest, _processes
from server.wsclient import Player


@pytest.mark.slow
def test_another_process_takes_the_turn_clock_over_and_applies_the_penalty(
    tmp_path: Path, shared: tuple[str, str]
) -> None:
    db = shared[0]
    with _processes(tmp_path, shared, 2) as processes:
        p1, p2 = processes(), processes()
        ana, ben = Player(p1, "Ana"), Player(p1, "Ben")  # type: ignore[arg-type]
        code = ana.create(game="tiles", seats=2, seed=7, turn_seconds=4)["code"]
        ben.join(code)
        a1, b1 = ana.connect(code), ben.connect(code)
        # Both also watch from P2 (the same devices), so nobody goes offline at the kill.
        a2 = same_device(ana, p2).connect(code)  # type: ignore[arg-type]
        b2 = same_device(ben, p2).connect(code)  # type: ignore[arg-type]
        assert a1.request(type="start")["type"] == "ack"  # committed on P1: its timer
        view = _latest(a2, lambda v: v["state"] is not None, timeout=10)
        turn = view["state"]["turn"]
        clock = view["room"]["clock"]
        assert clock["seat"] == turn and "deadline" in clock
        deadline = clock["deadline"] / 1000
        game = _game(db, code)
        assert abs(game["due_at"] - deadline) < 0.01  # the clock is the game's next timer
        p1.kill()
        for sock in (a1, b1):
            sock.close()
        watcher = a2 if turn == 1 else b2  # the other seat's socket on P2
        after = _latest(watcher, lambda v: v["state"]["turn"] != turn, timeout=WITHIN + 15)
        lag = time.time() - deadline
        print(f"P2 applied P1's turn penalty {lag:.2f} s after the deadline")
        assert lag < WITHIN + 1, lag
        assert after["room"]["clock"]["seat"] == 1 - turn
        stored = _fetch(db, "select seat, action, at from actions where code = $1 order by v", code)
        assert (stored[-1]["seat"], stored[-1]["action"]) == (turn, "draw")
        assert deadline <= stored[-1]["at"] < deadline + WITHIN
