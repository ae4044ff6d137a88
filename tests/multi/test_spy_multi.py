"""The spy (tests/server/test_spy.py) with several servers: games whose seats play through two
different servers (and a bot seat, moved by whichever server holds the game's timer), every
frame either server hands to a socket inspected against that server's own state of the game.
A spectator watches on each server (issue 33); the spy checks their frames too.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from server.test_spy import Spy
from server.test_watch import spectator
from server.wsclient import LiveServer, Sock, drive, engine_of


def _game_over(kind: str) -> Any:
    if kind == "rummy":
        return lambda room: engine_of("rummy").outcome(room.state) is not None
    return lambda room: bool(room.state.results)


def _play(a_srv: LiveServer, b_srv: LiveServer, kind: str, seed: int) -> int:
    """Seat 0 on A, seat 1 on B, seat 2 a bot; played to the end of a hand/round, with a hint
    asked for now and then (hints are frames too). Returns the acknowledged actions."""
    ana, ben = a_srv.player("Ana", "🦊"), b_srv.player("Ben", "🐻")
    code = ana.create(
        game=kind, seats=3, seed=seed, **({"target": 100} if kind == "rummy" else {})
    )["code"]
    url = ana.http.get(f"/api/games/{code}/watch").json()["url"]
    watchers = [spectator(a_srv, url), spectator(b_srv, url)]
    with ana.socket(code) as a:
        ben.join(code)
        a.wait(lambda m: m["type"] == "room" and len(m["room"]["players"]) == 2)
        assert a.request(type="add_bot", difficulty="easy")["type"] == "ack"
        a.drain(0.2)
        if a.view is None or a.view["room"]["status"] != "active":
            assert a.request(type="start")["type"] == "ack"
        with ben.socket(code) as b:
            socks: dict[int, Sock] = {0: a, 1: b}
            for sock in socks.values():
                if sock.view is None or sock.view["room"]["status"] != "active":
                    sock.wait(lambda m: m["type"] == "view" and m["room"]["status"] == "active")
            acks = 0
            stop = _game_over(kind)
            servers = {0: a_srv, 1: b_srv}
            for _ in range(40):
                # A few actions at a time, then a hint from whoever is to move.
                room = a_srv.service.rooms[code]
                if stop(room):
                    break
                target = room.row.version + 6
                acks += drive(
                    servers,
                    code,
                    socks,
                    lambda r, t=target: stop(r) or r.row.version >= t,
                    timeout=60,
                )
                for w in watchers:
                    w.drain(0.01)
                for seat, sock in socks.items():
                    sock.drain(0.05)
                    if sock.view is not None and seat in sock.view["room"]["to_act"]:
                        sock.request(type="hint")
            assert stop(a_srv.service.rooms[code]), f"{kind} {code} did not finish"
            for w in watchers:
                w.drain(0.2)
                assert sum(m["type"] == "watching" for m in w.frames) > 5
                w.close()
            return acks


@pytest.mark.slow
def test_no_frame_on_either_server_carries_a_hidden_card(
    pair: tuple[LiveServer, LiveServer],
) -> None:
    a_srv, b_srv = pair
    spies = Spy(), Spy()
    a_srv.service.observer, b_srv.service.observer = spies
    start = time.monotonic()
    acks = [_play(a_srv, b_srv, kind, seed) for kind, seed in (("rummy", 41), ("tiles", 42))]
    print(
        f"spy: {acks} actions, views {[s.views for s in spies]}, {time.monotonic() - start:.1f} s"
    )
    for spy in spies:
        assert spy.problems == [], spy.problems[:5]
        assert spy.views > 20  # both servers sent many views
        assert spy.watching > 10  # and their spectators many public views
    assert a_srv.service.bot_errors == b_srv.service.bot_errors == 0
