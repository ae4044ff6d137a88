"""The fair turn timer over real WebSockets, a real SQLite file and (for the restart) a real
server process killed with SIGKILL.

Turn times here are a few seconds (the test switch, ``allow_seed``, accepts 1..600); every wait
is on a frame or on the database with a generous timeout, so the tests hold under load."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest

from server.test_durability import Proc
from server.wsclient import LiveServer, Player, Sock, drive, free_port, settings_for


def actions_of(db: Path, code: str) -> list[tuple[int | None, str, float]]:
    with sqlite3.connect(db) as conn:
        return conn.execute(
            "SELECT seat, action, at FROM actions WHERE code = ? ORDER BY v", (code,)
        ).fetchall()


def latest(sock: Sock) -> dict[str, Any]:
    sock.drain(0.1)
    assert sock.view is not None
    return sock.view


def clock(sock: Sock) -> dict[str, Any]:
    """The clock as this socket last heard it (a view's or a later room frame's)."""
    sock.drain(0.1)
    rooms = [m["room"] for m in sock.frames if m["type"] in ("view", "room")]
    return rooms[-1]["clock"]  # type: ignore[no-any-return]


def rummy_dealt(
    live: LiveServer, seconds: int, seed: int = 5, players: list[Player] | None = None
) -> tuple[str, Sock, Sock]:
    ana, ben = players or (live.player("Ana"), live.player("Ben"))
    code = ana.create(game="rummy", seats=2, seed=seed, turn_seconds=seconds)["code"]
    ben.join(code)
    a, b = ana.connect(code), ben.connect(code)
    assert clock(a) == {"seconds": seconds, "seat": None}  # the first-deal draw: no clock
    assert a.act("deal")["type"] == "ack"
    b.until_view(lambda m: "deal" in m["legal"] and m["state"]["first_draw"][0] is not None)
    assert b.act("deal")["type"] == "ack"
    a.until_view(lambda m: m["state"]["phase"] == "playing")
    b.until_view(lambda m: m["state"]["phase"] == "playing")
    return code, a, b


def mover(a: Sock, b: Sock) -> tuple[int, Sock, Sock]:
    turn = latest(a)["state"]["turn"]
    return (turn, a, b) if turn == 0 else (turn, b, a)


def test_rummy_expiry_undoes_the_turn_and_plays_draw_and_discard(tmp_path: Path) -> None:
    with LiveServer(settings_for(tmp_path)) as live:
        code, a, b = rummy_dealt(live, 2)
        seat, me, other = mover(a, b)
        started = clock(me)
        assert started["seat"] == seat and started == clock(other)  # the same for everyone
        # The first turn: one turn's time more (at most six seconds) while who starts is shown.
        dealt = actions_of(tmp_path / "gameshack.db", code)[-1]
        assert dealt[1] == "deal"
        assert 3.99 <= started["deadline"] / 1000 - dealt[2] < 4.2  # (ms, truncated)
        hand = latest(me)["state"]["hand"]
        assert me.act("draw")["type"] == "ack"
        drawn = latest(me)["state"]["drawn"]
        other.drain(0.1)
        quiet = len(other.frames)
        assert clock(me) == started  # a private step moves nothing
        # The time runs out: the turn passes with the drawn card discarded.
        after = other.until_view(lambda m: m["state"]["turn"] != seat, timeout=15)
        assert len(other.frames) == quiet + 1  # nothing reached the others before it
        assert after["state"]["discard"][-1] == drawn
        mine = me.until_view(lambda m: m["state"]["turn"] != seat)
        assert mine["state"]["hand"] == hand  # the hand is as it was when the turn began
        moves = actions_of(tmp_path / "gameshack.db", code)[-3:]
        assert [(s, t) for s, t, _ in moves] == [
            (seat, "draw"),
            (seat, f"discard {drawn}"),
            (seat, "commit"),
        ]
        at = moves[-1][2]
        assert started["deadline"] / 1000 <= at < started["deadline"] / 1000 + 3
        # The next seat's clock started with the commit, a normal turn's length.
        nxt = clock(other)
        assert nxt["seat"] == 1 - seat
        assert abs(nxt["deadline"] / 1000 - (at + 2)) < 0.5


def test_tiles_expiry_resets_the_arrangement_and_draws(tmp_path: Path) -> None:
    with LiveServer(settings_for(tmp_path)) as live:
        ana, ben = live.player("Ana"), live.player("Ben")
        code = ana.create(game="tiles", seats=2, seed=8, turn_seconds=1)["code"]
        ben.join(code)
        a, b = ana.connect(code), ben.connect(code)
        assert a.request(type="start")["type"] == "ack"
        seat, me, _other = mover(a, b)
        view = latest(me)
        rack = view["state"]["rack"]
        tile = rack[0]["tile"]
        assert me.act(f"move {tile} new")["type"] == "ack"
        after = me.until_view(lambda m: m["state"]["turn"] != seat, timeout=15)
        assert len(after["state"]["rack"]) == len(rack) + 1
        assert after["state"]["table"] == []
        moves = actions_of(tmp_path / "gameshack.db", code)
        assert [(s, t) for s, t, _ in moves[-2:]] == [(seat, "reset"), (seat, "draw")]


def test_pause_while_the_mover_is_away_resume_then_the_allowance_runs_out(
    tmp_path: Path,
) -> None:
    with LiveServer(settings_for(tmp_path)) as live:
        players = [live.player("Ana"), live.player("Ben")]
        code, a, b = rummy_dealt(live, 3, players=players)
        seat, me, other = mover(a, b)
        deadline = clock(other)["deadline"]
        before = time.time()
        me.close()  # the mover drops
        paused = other.wait(
            lambda m: m["type"] == "room" and m["room"]["clock"].get("paused"), timeout=10
        )["room"]["clock"]
        off = time.time()
        assert paused["seat"] == seat
        # Paused at what was left (the pause came between `before` and `off`).
        assert deadline - off * 1000 - 50 <= paused["left_ms"] <= deadline - before * 1000 + 50
        # Its own allowance: one turn's time (3 s) of pauses, then the penalty applies anyway.
        assert before + 3 - 0.05 <= paused["until"] / 1000 <= off + 3 + 0.05
        time.sleep(1.0)
        assert latest(other)["state"]["turn"] == seat  # paused: nothing happened
        # Back: the clock resumes with the time it had left.
        before = time.time()
        me2 = players[seat].connect(code)
        resumed = other.wait(
            lambda m: m["type"] == "room" and "deadline" in m["room"]["clock"], timeout=10
        )["room"]["clock"]
        now = time.time()
        left = paused["left_ms"] / 1000
        assert before + left - 0.05 <= resumed["deadline"] / 1000 <= now + left + 0.05
        # Away again, for good: the ~2 s of allowance left end the turn before its time would.
        me2.close()
        again = other.wait(
            lambda m: m["type"] == "room" and m["room"]["clock"].get("paused"), timeout=10
        )["room"]["clock"]
        assert again["until"] < again["left_ms"] + time.time() * 1000
        after = other.until_view(lambda m: m["state"]["turn"] != seat, timeout=15)
        assert after["room"]["clock"]["seat"] == 1 - seat
        ended = actions_of(tmp_path / "gameshack.db", code)[-1]
        assert ended[:2] == (seat, "commit")
        assert again["until"] / 1000 - 0.1 <= ended[2] < again["until"] / 1000 + 3


def test_no_clock_during_the_first_deal_or_between_hands(tmp_path: Path) -> None:
    with LiveServer(settings_for(tmp_path)) as live:
        ana, ben = live.player("Ana"), live.player("Ben")
        code = ana.create(game="rummy", seats=2, seed=11, turn_seconds=1)["code"]
        ben.join(code)
        a, b = ana.connect(code), ben.connect(code)
        # The first-deal draw: nobody's time runs, however long they wait.
        time.sleep(2.5)
        assert latest(a)["state"]["phase"] == "deal_draw"
        assert clock(a) == {"seconds": 1, "seat": None}
        assert [t for _, t, _ in actions_of(tmp_path / "gameshack.db", code)] == ["start"]
        # A hand played out (fast: a bot's play for each human, well within a turn's time).
        socks = {0: a, 1: b}
        drive(live, code, socks, lambda room: room.kind.only_next(room.state), timeout=120)
        room = live.service.rooms[code]
        assert room.row.turn_clock == {"s": 1} and room.row.due_at is None
        assert clock(a) == {"seconds": 1, "seat": None}
        n = len(actions_of(tmp_path / "gameshack.db", code))
        time.sleep(2.5)  # between hands: the result stays up as long as the players like
        assert len(actions_of(tmp_path / "gameshack.db", code)) == n
        assert latest(a)["state"]["phase"] == "hand_over"


def test_turn_seconds_are_checked_at_new_game(tmp_path: Path) -> None:
    with LiveServer(settings_for(tmp_path, allow_seed=False)) as live:
        ana = live.player("Ana")
        for bad in (45, 0.5, 601, -30, "soon"):
            r = ana.http.post(
                "/api/games",
                json={"name": "Ana", "game": "rummy", "seats": 2, "turn_seconds": bad},
            )
            assert r.status_code in (400, 422), (bad, r.text)
            if r.status_code == 400:
                assert r.json()["error"]["code"] == "bad_turn_seconds"
                assert "30 seconds, 1 minute or 2 minutes" in r.json()["error"]["message"]
        assert ana.games() == []  # nothing was created
        for good in (None, 30, 60, 120):
            code = ana.create(game="tiles", seats=2, turn_seconds=good)["code"]
            stored = live.service.rooms[code].row.turn_clock
            assert stored == (None if good is None else {"s": good})
    (tmp_path / "t").mkdir()
    with LiveServer(settings_for(tmp_path / "t", allow_seed=True)) as live:
        # Tests may use short turns (the test switch), still bounded.
        ana = live.player("Ana")
        assert ana.create(game="rummy", seats=2, turn_seconds=2)["status"] == "waiting"
        r = ana.http.post(
            "/api/games", json={"name": "Ana", "game": "rummy", "seats": 2, "turn_seconds": 601}
        )
        assert r.status_code == 400 and r.json()["error"]["code"] == "bad_turn_seconds"


@pytest.mark.slow
def test_the_clock_survives_a_kill_and_fires_on_time_after_the_restart(tmp_path: Path) -> None:
    port = free_port()
    srv = Proc(tmp_path, port)
    try:
        ana, ben = Player(srv, "Ana"), Player(srv, "Ben")  # type: ignore[arg-type]
        code, a, b = rummy_dealt(srv, 5, players=[ana, ben])  # type: ignore[arg-type]
        seat, me, _other = mover(a, b)
        deadline = clock(me)["deadline"] / 1000
        assert me.act("draw")["type"] == "ack"  # a private step, before the kill
        drawn = latest(me)["state"]["drawn"]
        srv.kill()
        srv = Proc(tmp_path, port)  # the same SQLite file
        assert time.time() < deadline - 1  # the restart came well before the deadline
        watcher = (ben if seat == 0 else ana).connect(code)
        after = watcher.until_view(lambda m: m["state"]["turn"] != seat, timeout=30)
        assert after["state"]["discard"][-1] == drawn
        moves = actions_of(tmp_path / "gameshack.db", code)[-3:]
        assert [(s, t) for s, t, _ in moves] == [
            (seat, "draw"),
            (seat, f"discard {drawn}"),
            (seat, "commit"),
        ]
        assert deadline <= moves[-1][2] < deadline + 3  # on time, not restarted from zero
    finally:
        srv.stop()


def test_bots_turns_are_not_clocked_and_the_humans_turn_is(tmp_path: Path) -> None:
    with LiveServer(settings_for(tmp_path, bot_delay=0.05)) as live:
        ana = live.player("Ana")
        code = ana.create(
            game="tiles", seats=3, practice=True, difficulty="easy", seed=4, turn_seconds=1
        )["code"]
        a = ana.connect(code)
        # Ana's turn times out each time (she never moves); the bots play theirs. Two rounds
        # of turns, every frame's clock checked against whose turn it is.
        a.wait(
            lambda m: m["type"] == "view" and len(m["state"]["log"]) >= 7,
            timeout=60,
        )
        a.drain(0.1)
        rooms = [m["room"] for m in a.frames if m["type"] in ("view", "room")]
        seen = set()
        for room in rooms:
            to_act, c = room["to_act"], room["clock"]
            if to_act == [0]:
                assert c["seat"] == 0 and ("deadline" in c or c.get("paused"))
                seen.add("human")
            elif to_act:
                assert c == {"seconds": 1, "seat": None}, room
                seen.add("bot")
        assert seen == {"human", "bot"}
        ana_moves = [t for s, t, _ in actions_of(tmp_path / "gameshack.db", code) if s == 0]
        assert ana_moves[:2] == ["draw", "draw"]  # the penalty, as Ana
