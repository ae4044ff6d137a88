"""A view's log travels as the events its sockets have not had yet (docs/protocol.md, ``view``):
on the wire each view after a socket's first carries only the new events, and they add up to
exactly the engine's log; a socket's first view, and one asked for with ``sync``, bring it
whole. Real server, real WebSockets; the log is put back together as the web client does it."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from server.wsclient import LiveServer, Sock, drive, engine_of


def wire_views(sock: Sock) -> list[dict[str, Any]]:
    """The view frames as they came over the socket (before the log was put back together)."""
    return [m for m in map(orjson.loads, sock.raw) if m["type"] == "view"]


@pytest.mark.parametrize(("kind", "seats"), [("rummy", 2), ("tiles", 2)])
def test_views_carry_only_new_events_and_add_up_to_the_engines_log(
    live: LiveServer, kind: str, seats: int
) -> None:
    ana, ben = live.player("Ana"), live.player("Ben")
    code = ana.create(game=kind, seats=seats, seed=11)["code"]
    with ana.socket(code) as a:
        ben.join(code)
        with ben.socket(code) as b:
            if kind == "tiles":
                assert a.request(type="start")["type"] == "ack"
            a.wait(lambda m: m["type"] == "view" and m["room"]["status"] == "active")
            room = live.service.rooms[code]
            drive(live, code, {0: a, 1: b}, lambda r: len(r.state.log) >= 24, timeout=90)
            for sock in (a, b):
                sock.drain(0.2)
            engine = engine_of(kind)
            for seat, sock in ((0, a), (1, b)):
                assert sock.view is not None
                assert sock.view["state"]["log"] == engine.view(room.state, seat).to_dict()["log"]
                views = [v for v in wire_views(sock) if v["state"] is not None]
                assert views[0]["log_from"] == 0  # a socket's first view: the whole log
                whole = sum(
                    len(v["state"]["log"])
                    for v in sock.frames
                    if v["type"] == "view" and v["state"]
                )
                sent = sum(len(v["log"]) for v in views)
                assert sum(v["log_from"] > 0 for v in views) > len(views) // 2
                assert sent * 4 < whole, (sent, whole)  # each event went about once
                assert all("log" not in v["state"] for v in views)  # it travels beside it

            # Another tab of the same seat: its first view brings the whole log, ...
            with ana.socket(code) as a2:
                first = wire_views(a2)[0]
                assert first["log_from"] == 0 and first["log"] == a.view["state"]["log"]
                # ... and a `sync` brings it whole again, to the socket that asked only.
                before = len(wire_views(a))
                a2.send(type="sync")
                again = a2.wait(lambda m: m["type"] == "view")
                assert wire_views(a2)[-1]["log_from"] == 0
                assert again["state"]["log"] == first["log"]
                a.drain(0.2)
                assert len(wire_views(a)) == before


def test_a_new_hand_starts_its_log_afresh(live: LiveServer) -> None:
    ana, ben = live.player("Ana"), live.player("Ben")
    code = ana.create(game="rummy", seats=2, target=500, seed=11)["code"]
    with ana.socket(code) as a:
        ben.join(code)
        with ben.socket(code) as b:
            a.wait(lambda m: m["type"] == "view" and m["room"]["status"] == "active")
            drive(
                live, code, {0: a, 1: b}, lambda r: r.state.hand_no >= 2 and len(r.state.log) >= 3
            )
            for sock in (a, b):
                sock.drain(0.2)
            room = live.service.rooms[code]
            engine = engine_of("rummy")
            for seat, sock in ((0, a), (1, b)):
                assert sock.view is not None and sock.view["state"]["hand_no"] == 2
                assert sock.view["state"]["log"] == engine.view(room.state, seat).to_dict()["log"]
                hands = [
                    v["state"]["hand_no"] for v in sock.frames if v["type"] == "view" and v["state"]
                ]
                assert 1 in hands and 2 in hands
