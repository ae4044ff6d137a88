"""Idle games leave the server's memory and come back, over the real WebSocket and SQLite.

The idle period is a fraction of a second of real time here, so the server's own sweep task
does the evicting (the service tests drive it with an injected clock instead).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from server.wsclient import LiveServer, Sock, settings_for

IDLE = 0.3  # seconds; the sweep runs every IDLE / 4


def _latest(*socks: Sock) -> None:
    for sock in socks:
        sock.drain(0.2)


def _turn(socks: dict[int, Sock]) -> int:
    to_act = next(iter(socks.values())).view["room"]["to_act"]  # type: ignore[index]
    assert len(to_act) == 1
    return int(to_act[0])


def _seen(view: dict[str, Any]) -> dict[str, Any]:
    """What a seat sees, less presence (who else is connected at that moment)."""
    room = {k: v for k, v in view["room"].items() if k != "players"}
    return {"state": view["state"], "legal": view["legal"], "grace": view["grace"], "room": room}


def test_an_idle_game_is_evicted_and_a_reconnect_plays_on(tmp_path: Path) -> None:
    with LiveServer(settings_for(tmp_path, room_idle_seconds=IDLE)) as live:
        ana, ben = live.player("Ana"), live.player("Ben")
        code = ana.create(game="rummy", seats=2, seed=11)["code"]
        ben.join(code)
        with ana.socket(code) as a, ben.socket(code) as b:
            room = live.service.rooms[code]
            assert a.act("deal")["type"] == "ack"
            _latest(b)  # Ana's card shows in Ben's view: act on the latest one
            assert b.act("deal")["type"] == "ack"
            _latest(a, b)
            me = (a, b)[_turn({0: a, 1: b})]
            assert me.act("draw")["type"] == "ack"
            _latest(me)
            assert me.view is not None
            card = next(x for x in me.view["legal"] if x.startswith("discard")).split()[1]
            assert me.act(f"discard {card}")["type"] == "ack"
            assert a.request(type="chat", text="your go")["type"] == "ack"
            time.sleep(4 * IDLE)  # open sockets keep the room through several sweeps
            assert live.service.rooms.get(code) is room
            _latest(a, b)  # the discard's grace window has ended
            before = {0: a.view, 1: b.view}
        assert before[1] is not None and before[1]["room"]["chat_unread"] == 1

        deadline = time.monotonic() + 10
        while code in live.service.rooms and time.monotonic() < deadline:
            time.sleep(0.02)
        assert code not in live.service.rooms and room.retired

        with ana.socket(code) as a, ben.socket(code) as b:
            for seat, sock in ((0, a), (1, b)):
                assert sock.view is not None and before[seat] is not None
                assert _seen(sock.view) == _seen(before[seat])  # type: ignore[arg-type]
            history = next(f for f in b.frames if f["type"] == "chat_history")
            assert [m["text"] for m in history["messages"]] == ["your go"]
            assert history["unread"] == 1
            fresh = live.service.rooms[code]
            assert fresh is not room
            turn = _turn({0: a, 1: b})
            assert (a, b)[turn].act("draw")["type"] == "ack"
            assert live.service.rooms[code] is fresh
            assert fresh.row.version == room.row.version + 1
