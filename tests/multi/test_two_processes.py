"""Two servers, one site (PostgreSQL + Redis): players on different processes play together.

Each player's socket is on a different server; everything one process commits reaches the
other's sockets through the bus and the database, in each seat's own form.
"""

from __future__ import annotations

import random
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from multi.conftest import same_device
from server.test_play import _discard_of, _to_play_stage
from server.wsclient import LiveServer, drive, engine_of


def test_a_rummy_hand_across_two_processes(pair: tuple[LiveServer, LiveServer]) -> None:
    a_srv, b_srv = pair
    ana, ben = a_srv.player("Ana", "🦊"), b_srv.player("Ben", "🐻")
    code = ana.create(game="rummy", seats=2, target=500, seed=11)["code"]
    assert ben.join(code)["seat"] == 1  # joined through the other process
    with ana.socket(code) as a, ben.socket(code) as b:
        for sock in (a, b):
            sock.wait(lambda m: m["type"] == "view" and m["room"]["status"] == "active")
        # Presence crosses processes: each sees the other online.
        a.wait(lambda m: m.get("room", {}).get("players", [{}, {}])[1].get("online") is True)
        # (Ben's first view may come before Ana's presence has crossed: then a frame follows.)
        assert b.view is not None
        if b.view["room"]["players"][0]["online"] is not True:
            b.wait(lambda m: m.get("room", {}).get("players", [{}, {}])[0].get("online") is True)

        # Chat crosses processes, with the unread count.
        assert a.request(type="chat", text="hi from A")["type"] == "ack"
        got = b.wait_type("chat")
        assert got["msg"]["text"] == "hi from A" and got["msg"]["name"] == "Ana"
        b.wait(lambda m: m["type"] == "room" and m["room"]["chat_unread"] == 1)
        assert b.request(type="chat_read")["type"] == "ack"
        b.wait(lambda m: m["type"] == "room" and m["room"]["chat_unread"] == 0)

        # A grace-window undo on one process: the other process's socket hears nothing.
        socks = {0: a, 1: b}
        turn = _to_play_stage(a_srv, code, socks)
        me, other = socks[turn], socks[1 - turn]
        other.drain(0.3)
        seen = len(other.frames)
        card = _discard_of(me).split()[1]
        assert me.act(f"discard {card}")["type"] == "ack"
        me.wait(lambda m: m["type"] == "view" and m["state"]["stage"] == "pending")
        assert me.act("undo")["type"] == "ack"
        back = me.wait(lambda m: m["type"] == "view" and m["grace"] is None)
        assert card in back["state"]["hand"]
        other.drain(0.6)
        assert len(other.frames) == seen, other.frames[seen:]
        # Discard for real: the other process publishes it when the window ends.
        assert me.act(f"discard {card}")["type"] == "ack"
        published = other.wait(
            lambda m: m["type"] == "view" and m["room"]["to_act"] == [1 - turn], timeout=5
        )
        assert published["state"]["discard"][-1] == card

        # Play on, from each seat's own process, until a multi-card pickup has happened and
        # the hand is over.
        took_deep = False

        def prefer(seat: int, view: dict[str, Any]) -> str | None:
            nonlocal took_deep
            if took_deep or view["state"] is None:
                return None
            pile = view["state"]["discard"]
            deep = [f"take {c}" for c in pile[:-1] if f"take {c}" in view["legal"]]
            if not deep:
                return None
            took_deep = True
            return deep[-1]

        def stop(room: Any) -> bool:
            return engine_of("rummy").outcome(room.state) is not None

        servers = {0: a_srv, 1: b_srv}
        acks = drive(servers, code, socks, stop, timeout=120, prefer=prefer)
        assert acks > 10
        for sock in (a, b):
            sock.drain(0.3)
            assert sock.view["state"]["phase"] in ("hand_over", "match_over")
        assert a.view["state"]["result"] == b.view["state"]["result"]
        # Every action committed once, in order, whichever process applied it.
        logged = a_srv.call(a_srv.service.store.actions(code))
        assert [x.v for x in logged] == sorted({x.v for x in logged})
        assert took_deep, "no multi-card pickup came up in this hand"


def test_a_tile_rummy_round_across_two_processes(pair: tuple[LiveServer, LiveServer]) -> None:
    a_srv, b_srv = pair
    ana, ben = a_srv.player("Ana"), b_srv.player("Ben")
    code = ana.create(game="tiles", seats=4, seed=5)["code"]
    with ana.socket(code) as a:
        ben.join(code)  # on the other process; the host, here, may start at once
        a.wait(lambda m: m["type"] == "room" and len(m["room"]["players"]) == 2)
        assert a.request(type="start")["type"] == "ack"
        with ben.socket(code) as b:
            b.wait(lambda m: m["type"] == "view" and m["room"]["status"] == "active")
            a.wait(lambda m: m["type"] == "view" and m["room"]["status"] == "active")
            servers = {0: a_srv, 1: b_srv}
            acks = drive(servers, code, {0: a, 1: b}, lambda r: bool(r.state.results), timeout=120)
            assert acks > 5
            for sock in (a, b):
                deadline = time.monotonic() + 5
                while sock.view["state"]["phase"] not in ("round_over", "match_over"):
                    assert time.monotonic() < deadline
                    sock.drain(0.1)
            recs = b_srv.call(b_srv.service.store.records(code))
            assert [r.scope for r in recs][:1] == ["hand"] and recs[0].names == ["Ana", "Ben"]


def test_a_start_right_after_a_join_elsewhere_is_not_refused(
    pair: tuple[LiveServer, LiveServer],
) -> None:
    """The host's process may not have heard of the join yet: it checks the database before
    refusing."""
    a_srv, b_srv = pair
    for seed in range(5):
        ana, ben = a_srv.player("Ana"), b_srv.player("Ben")
        code = ana.create(game="tiles", seats=2, seed=seed)["code"]
        with ana.socket(code) as a:
            ben.join(code)
            assert a.request(type="start")["type"] == "ack"


def test_one_device_on_two_processes_sees_one_game(pair: tuple[LiveServer, LiveServer]) -> None:
    a_srv, b_srv = pair
    ana, ben = a_srv.player("Ana"), a_srv.player("Ben")
    code = ana.create(game="rummy", seats=2, seed=3)["code"]
    ben.join(code)
    ana_b = same_device(ana, b_srv)
    with ana.socket(code) as a1, ana_b.socket(code) as a2, ben.socket(code) as b:
        for sock in (a1, a2, b):
            sock.wait(lambda m: m["type"] == "view" and m["room"]["status"] == "active")
        assert a2.act("deal")["type"] == "ack"  # on B; A's socket of the same seat follows
        on_b = a2.wait(lambda m: m["type"] == "view" and "deal" not in m["legal"])
        on_a = a1.wait(lambda m: m["type"] == "view" and "deal" not in m["legal"])
        assert on_a["state"] == on_b["state"] and on_a["legal"] == on_b["legal"]


def test_concurrent_moves_from_two_processes_one_wins_each_version(
    pair: tuple[LiveServer, LiveServer],
) -> None:
    """Each seat has a socket on both processes; the seat to move sends a (random, legal) move
    on both at once, many times: exactly one commits, the other is answered ``stale`` with the
    current view, and the log holds one action per version."""
    a_srv, b_srv = pair
    rng = random.Random(30)
    ana, ben = a_srv.player("Ana"), b_srv.player("Ben")
    code = ana.create(game="tiles", seats=2, seed=8)["code"]
    ben.join(code)
    ana_b, ben_a = same_device(ana, b_srv), same_device(ben, a_srv)
    with (
        ana.socket(code) as a0,
        ana_b.socket(code) as b0,
        ben_a.socket(code) as a1,
        ben.socket(code) as b1,
        ThreadPoolExecutor(2) as pool,
    ):
        assert a0.request(type="start")["type"] == "ack"
        pairs = {0: (a0, b0), 1: (a1, b1)}
        rounds = ones = 0
        deadline = time.monotonic() + 90
        while rounds < 40 and time.monotonic() < deadline:
            for sock in (a0, b0, a1, b1):
                sock.drain(0.02)
            views = [s.view for s in (a0, b0, a1, b1)]
            if any(v is None or v["room"]["status"] != "active" for v in views):
                continue
            to_act = views[0]["room"]["to_act"]
            if not to_act:
                continue
            x, y = pairs[to_act[0]]
            if x.view["state"] != y.view["state"] or not x.view["legal"]:
                continue  # one process has not heard of the last move yet
            moves = [rng.choice(x.view["legal"]), rng.choice(y.view["legal"])]
            replies = list(pool.map(lambda sm: sm[0].act(sm[1]), zip((x, y), moves, strict=True)))
            kinds = sorted(r["type"] for r in replies)
            if kinds == ["ack", "ack"]:
                raise AssertionError(f"both processes committed: {moves} {replies}")
            loser = [r for r in replies if r["type"] == "error"]
            assert [r["code"] for r in loser] in (["stale"], ["stale", "stale"]), replies
            ones += kinds == ["ack", "error"]
            rounds += 1
            # The loser was sent the current view straight after its error.
            for sock, reply in zip((x, y), replies, strict=True):
                if reply["type"] == "error":
                    sock.wait(lambda m: m["type"] == "view", timeout=5)
            if x.view["state"]["phase"] != "playing":
                break
        assert rounds >= 20 and ones >= rounds * 3 // 4, (rounds, ones)
    logged = a_srv.call(a_srv.service.store.actions(code))
    versions = [x.v for x in logged]
    assert len(versions) == len(set(versions))


def test_chat_with_a_nul_is_stored_on_postgresql(
    pair: tuple[LiveServer, LiveServer],
) -> None:
    """PostgreSQL cannot store a NUL: control characters are dropped, not a server error (a
    lone surrogate is refused by the protocol before it gets here)."""
    a_srv, b_srv = pair
    ana, ben = a_srv.player("Ana"), b_srv.player("Ben")
    code = ana.create(game="tiles", seats=2)["code"]
    ben.join(code)
    with ana.socket(code) as a, ben.socket(code) as b:
        a.send_raw('{"type": "chat", "text": "a\\u0000bc\\td", "id": "x"}')
        assert a.wait(lambda m: m.get("id") == "x")["type"] == "ack"
        assert b.wait_type("chat")["msg"]["text"] == "abc\td"
    history = a_srv.call(a_srv.service.store.chat_history(code))
    assert [c.text for c in history] == ["abc\td"]
