"""Several real server processes on one PostgreSQL database and one Redis (issue 30).

Each server here is ``gameshack serve`` in a process of its own (``hostile.proc.ServerProcess``),
so it can be killed with SIGKILL or stopped with SIGTERM. What must hold:

- a game's timers (a grace window's end, a bot's step) outlive the process that set them: another
  process fires them within 5 s of their due time, and the game goes on;
- nothing acknowledged is lost: every acknowledged action is in PostgreSQL's ``actions`` table
  (read here straight from the database, not through the server).
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from databases import _asyncpg_dsn
from hostile.proc import ServerProcess
from multi.conftest import same_device
from server.test_durability import _acked, _legal
from server.wsclient import Player, Sock

# Timer take-over must land within this many seconds of the due time (issue 30).
WITHIN = 5.0
# A grace window / a bot's step is due this long after the move that set it.
DUE = 2.0
SHUTDOWN_TIMEOUT = 5.0
STARTUP = 90.0  # seconds a process may take to come up (a few on an idle machine)


def _env(db: str, redis_url: str) -> dict[str, str]:
    return {
        "GAMESHACK_DATABASE_URL": db,
        "GAMESHACK_REDIS_URL": redis_url,
        "GAMESHACK_GRACE_SECONDS": str(DUE),
        "GAMESHACK_BOT_DELAY": str(DUE),
        "GAMESHACK_GAMES_PER_HOUR": "10000",
        "GAMESHACK_SHUTDOWN_TIMEOUT": str(SHUTDOWN_TIMEOUT),
    }


@contextlib.contextmanager
def _processes(
    tmp: Path, shared: tuple[str, str], count: int
) -> Iterator[Callable[[], ServerProcess]]:
    """A factory of server processes serving one site (all stopped at the end); ``count``
    of them are started at once (in parallel) before the first is handed out."""
    db, redis_url = shared
    started: list[ServerProcess] = []

    def start() -> ServerProcess:
        data = tmp / f"p{len(started)}"
        data.mkdir(parents=True, exist_ok=True)
        proc = ServerProcess(data, _env(db, redis_url))
        started.append(proc)
        return proc

    try:
        began = time.monotonic()
        ready = [start() for _ in range(count)]
        for proc in ready:
            proc.wait_ready(timeout=STARTUP)
        print(f"{count} server processes up in {time.monotonic() - began:.1f} s")
        it = iter(ready)
        yield lambda: next(it, None) or start().wait_ready(timeout=STARTUP)
    finally:
        for proc in started:
            proc.stop()


def _fetch(db: str, query: str, *args: Any) -> list[Any]:
    """Rows straight from the PostgreSQL database (asyncpg), not through any server."""

    async def go() -> list[Any]:
        conn = await asyncpg.connect(_asyncpg_dsn(db), timeout=10)
        try:
            return list(await conn.fetch(query, *args))
        finally:
            await conn.close()

    return asyncio.run(go())


def _game(db: str, code: str) -> Any:
    rows = _fetch(
        db, "select version, due_at, grace_deadline, status from games where code = $1", code
    )
    assert len(rows) == 1, code
    return rows[0]


def _latest(sock: Sock, pred: Callable[[dict[str, Any]], bool], timeout: float) -> dict[str, Any]:
    """Read until the socket's latest view satisfies ``pred`` (older frames are skipped)."""
    deadline = time.monotonic() + timeout
    while sock.view is None or not pred(sock.view):
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError(f"no such view; last frames: {sock.frames[-3:]}")
        with contextlib.suppress(TimeoutError):
            sock._recv(min(left, 0.5))
    sock.pending.clear()
    return sock.view


def _my_turn(view: dict[str, Any]) -> bool:
    room = view["room"]
    return room["you"] in room["to_act"] and bool(view["legal"]) and view["legal"] != ["undo"]


def _ready(sock: Sock, kind: str, log: list[tuple[int, str]]) -> str:
    """Play seat 0's turns up to the move that leaves the server something to do by itself (a
    Rummy discard: its grace window opens; a Tile Rummy draw: the bots are to move), and
    return that move, not yet made."""
    seen = 0  # the view version an action was last made on: act only on a newer view
    for _ in range(20):
        view = _latest(sock, lambda v, seen=seen: v["v"] > seen and _my_turn(v), timeout=30)
        seen, legal = view["v"], view["legal"]
        if kind == "tiles":
            return "draw"
        if "deal" in legal or "next" in legal:
            _acked(sock, "deal" if "deal" in legal else "next", log)
        elif "draw" in legal:
            _acked(sock, "draw", log)
        else:
            return _legal(sock, "discard ")
    raise AssertionError("no timer-leaving move came up")


def _make(sock: Sock, kind: str, action: str, log: list[tuple[int, str]]) -> None:
    """Make that move; back once the socket shows the timer it left."""
    assert sock.view is not None
    seen = sock.view["v"]
    _acked(sock, action, log)
    _latest(sock, lambda v: v["v"] > seen and _timer_left(kind)(v), timeout=DUE)


def _timer_left(kind: str) -> Callable[[dict[str, Any]], bool]:
    """The view (of seat 0) right after ``_play_until_timer``'s last move."""
    if kind == "rummy":
        return lambda v: v["grace"] is not None
    return lambda v: 0 not in v["room"]["to_act"]


def _timer_fired(kind: str) -> Callable[[dict[str, Any]], bool]:
    """Seat 0's view once that timer has fired: the window closed / a bot moved."""
    if kind == "rummy":
        return lambda v: v["grace"] is None and v["state"]["stage"] != "pending"
    return lambda v: 0 in v["room"]["to_act"]


def _hand_over(tmp: Path, shared: tuple[str, str], how: str) -> None:
    """A practice Rummy and a practice Tile Rummy game on P1 (which commits seat 0's moves, and
    so holds their timers), seat 0 also watching each from P2 (same device). P1 is stopped
    (``how``: "kill" = SIGKILL, "term" = SIGTERM) right after moves that leave a grace window
    open (Rummy) and bot turns due (Tile Rummy). P2 fires both within ``WITHIN`` s of their
    due times, and the games go on."""
    db = shared[0]
    kinds = ("rummy", "tiles")
    with _processes(tmp, shared, 2) as processes:
        p1, p2 = processes(), processes()
        ana = Player(p1, "Ana")  # type: ignore[arg-type]
        ana2 = same_device(ana, p2)  # type: ignore[arg-type]
        codes, on_p1, on_p2, logs, last = {}, {}, {}, {}, {}
        for kind in kinds:
            body = {"seats": 3, "target": 100} if kind == "rummy" else {"seats": 2}
            codes[kind] = code = ana.create(
                game=kind, practice=True, difficulty="easy", seed=7, **body
            )["code"]
            on_p1[kind], on_p2[kind] = ana.connect(code), ana2.connect(code)
            logs[kind] = []
            last[kind] = _ready(on_p1[kind], kind, logs[kind])
        for kind in kinds:
            _make(on_p1[kind], kind, last[kind], logs[kind])
        for kind in kinds:
            # P2 has heard of the commit (over Redis) before P1 goes.
            now = on_p1[kind].view["state"]  # type: ignore[index]
            _latest(on_p2[kind], lambda v, now=now: v["state"] == now, timeout=DUE)
        if how == "kill":
            p1.kill()
        else:
            took = p1.terminate(timeout=3 * SHUTDOWN_TIMEOUT)
            print(f"SIGTERM: P1 exited in {took:.2f} s")
            # uvicorn ends by re-raising the signal once its shutdown is complete.
            assert p1.proc.returncode in (0, -signal.SIGTERM), p1.log()
            assert "Application shutdown complete" in p1.log(), p1.log()
            assert took < SHUTDOWN_TIMEOUT, took
        games = {kind: _game(db, codes[kind]) for kind in kinds}
        for kind in kinds:
            game, code = games[kind], codes[kind]
            assert game["status"] == "active" and game["due_at"] is not None, dict(game)
            # P1 had not fired it: its commit of the move is the last one.
            stored = _fetch(db, "select action from actions where code = $1 order by v", code)
            assert stored[-1]["action"] == last[kind], (kind, stored[-3:])

        for kind in kinds:
            _latest(on_p2[kind], _timer_fired(kind), timeout=WITHIN + 10)
            lag = time.time() - games[kind]["due_at"]
            print(f"{kind} ({how}): P2 fired P1's timer {lag:.2f} s after its due time")
            assert lag < WITHIN, (kind, lag)

        for kind in kinds:
            # The game goes on, from P2: the bots move, it is seat 0's turn again, it plays.
            sock, log, code = on_p2[kind], logs[kind], codes[kind]
            _latest(sock, _my_turn, timeout=20)
            _acked(sock, "draw", log)
            stored_all = [
                r["action"]
                for r in _fetch(db, "select action from actions where code = $1 order by v", code)
            ]
            rest = iter(stored_all)
            for _v, action in log:
                assert any(a == action for a in rest), (kind, action, log, stored_all)
            sock.close()


@pytest.mark.slow
def test_practice_bots_carry_on_when_their_process_is_killed(
    tmp_path: Path, shared: tuple[str, str]
) -> None:
    _hand_over(tmp_path, shared, "kill")


@pytest.mark.slow
def test_sigterm_exits_in_time_and_another_process_fires_its_timers(
    tmp_path: Path, shared: tuple[str, str]
) -> None:
    _hand_over(tmp_path, shared, "term")


def _in_order(db: str, code: str, log: list[tuple[int, str]]) -> list[str]:
    """The game's stored actions; every acknowledged one of ``log`` is among them, in order,
    and no version holds two."""
    rows = _fetch(db, "select v, action from actions where code = $1 order by v", code)
    versions = [r["v"] for r in rows]
    assert len(versions) == len(set(versions)), (code, versions)
    stored = [r["action"] for r in rows]
    rest = iter(stored)
    for _v, action in log:
        assert any(a == action for a in rest), (code, action, log, stored)
    return stored


def _until(what: str, check: Callable[[], bool], timeout: float) -> float:
    """Poll ``check`` (e.g. the database) until it holds; the time.time() it first did."""
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting until {what}"
        time.sleep(0.1)
    return time.time()


@pytest.mark.slow
def test_kill_9_in_multi_process_mode_loses_nothing_acknowledged(
    tmp_path: Path, shared: tuple[str, str]
) -> None:
    """Live games on two processes; P1 is killed with SIGKILL mid-game and started again.
    Every acknowledged action is in PostgreSQL; the grace windows open at the kill end (fired
    by P2), the bots carry on, and every game goes on, on either process."""
    db = shared[0]
    with _processes(tmp_path, shared, 2) as processes:
        p1, p2 = processes(), processes()
        ana, ben = Player(p1, "Ana"), Player(p1, "Ben")  # type: ignore[arg-type]
        cy, di = Player(p2, "Cy"), Player(p2, "Di")  # type: ignore[arg-type]
        acked: dict[str, list[tuple[int, str]]] = {}

        # R: Rummy between two humans, both playing through P1, Ben watching from P2 too.
        rummy = ana.create(game="rummy", seats=2, seed=31)["code"]
        ben.join(rummy)
        a, b = ana.connect(rummy), ben.connect(rummy)
        b2 = same_device(ben, p2).connect(rummy)  # type: ignore[arg-type]
        log_r = acked[rummy] = []
        _acked(a, "deal", log_r)
        _acked(b, "deal", log_r)
        view = _latest(a, lambda v: v["state"]["phase"] == "playing", timeout=10)
        turn = view["room"]["to_act"][0]
        me = (a, b)[turn]
        _latest(me, _my_turn, timeout=10)
        _acked(me, "draw", log_r)
        discard = _legal(me, "discard ")

        # T: Tile Rummy between two humans on P2, a few turns in.
        tiles = cy.create(game="tiles", seats=2, seed=32)["code"]
        di.join(tiles)
        tc, td = cy.connect(tiles), di.connect(tiles)
        assert tc.request(type="start")["type"] == "ack"
        log_t = acked[tiles] = [(1, "start")]
        for _ in range(4):
            tc.drain(0.1)
            td.drain(0.1)
            assert tc.view is not None
            _acked(tc if 0 in tc.view["room"]["to_act"] else td, "draw", log_t)

        # Q: practice Rummy on P1 (bots), brought to its human's discard.
        practice = ana.create(game="rummy", seats=3, practice=True, difficulty="easy", seed=33)[
            "code"
        ]
        q = ana.connect(practice)
        log_q = acked[practice] = []
        q_discard = _ready(q, "rummy", log_q)

        # Both discards back to back: two grace windows open on P1; kill it.
        _make(me, "rummy", discard, log_r)
        _make(q, "rummy", q_discard, log_q)
        p1.kill()

        # Straight from PostgreSQL: everything acknowledged is there, the windows still open.
        for code, log in acked.items():
            _in_order(db, code, log)
        at_kill = {code: _game(db, code) for code in (rummy, practice)}
        for code, game in at_kill.items():
            assert game["grace_deadline"] is not None, (code, dict(game))

        # The windows end, fired by P2: R's discard reaches Ben's socket there, ...
        published = _latest(b2, lambda v: v["room"]["to_act"] == [1 - turn], timeout=WITHIN + 10)
        lag = time.time() - at_kill[rummy]["due_at"]
        print(f"R: P2 ended the grace window {lag:.2f} s after its end")
        assert lag < WITHIN and published["state"]["discard"][-1] == discard.split()[1]
        # ... and Q's (no socket of it anywhere now), then its bots carry on.
        q_v = at_kill[practice]["version"]
        ended = _until(
            "Q's window ended", lambda: _game(db, practice)["version"] > q_v, WITHIN + 10
        )
        print(f"Q: P2 ended the grace window {ended - at_kill[practice]['due_at']:.2f} s late")
        assert ended - at_kill[practice]["due_at"] < WITHIN
        _until("Q's bots moved", lambda: _game(db, practice)["version"] > q_v + 1, 15)

        # P1 comes back; every game goes on, through it or P2.
        p3 = processes()
        ana3, ben3 = same_device(ana, p3), same_device(ben, p3)  # type: ignore[arg-type]
        assert {g["code"] for g in ana3.games()} == {rummy, practice}
        a, b = ana3.connect(rummy), ben3.connect(rummy)
        other = (a, b)[1 - turn]
        _latest(other, _my_turn, timeout=5)
        _acked(other, "draw", log_r)
        tc.drain(0.1)
        assert tc.view is not None
        _acked(tc if 0 in tc.view["room"]["to_act"] else td, "draw", log_t)
        q = ana3.connect(practice)
        _latest(q, _my_turn, timeout=20)
        _acked(q, "draw", log_q)
        for code, log in acked.items():
            _in_order(db, code, log)
        for sock in (a, b, b2, tc, td, q):
            sock.close()
