"""Spectators (issue 33) through the real server: the host's watch link, what a spectator's
socket is sent (the public view only, and only when it changed), the players' count, the caps.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from gameshack.protocol.outbound import decode
from server.wsclient import LiveServer, Player, Sock, engine_of, settings_for


def spectator(live: LiveServer, url: str) -> Sock:
    """A spectator's socket on a watch link (``/w/{token}``); waits for its chat history."""
    token = url.removeprefix("/w/")
    ws = connect(
        f"ws://127.0.0.1:{live.port}/ws/watch/{token}",
        additional_headers={"Origin": live.base},
        max_size=None,
        open_timeout=10,
    ).__enter__()
    sock = Sock(ws)
    sock.wait_type("chat_history")
    return sock


@contextlib.contextmanager
def watching(live: LiveServer, url: str) -> Iterator[Sock]:
    sock = spectator(live, url)
    try:
        yield sock
    finally:
        sock.close()


def refused(live: LiveServer, token: str) -> int:
    """The close code a spectator socket on ``token`` gets at once."""
    with connect(
        f"ws://127.0.0.1:{live.port}/ws/watch/{token}",
        additional_headers={"Origin": live.base},
        open_timeout=10,
    ) as ws:
        with pytest.raises(ConnectionClosed) as info:
            ws.recv(timeout=10)
        assert info.value.rcvd is not None
        return info.value.rcvd.code


def link(player: Player, code: str, method: str = "GET") -> tuple[int, dict[str, Any]]:
    r = player.http.request(method, f"/api/games/{code}/watch")
    return r.status_code, r.json()


def _two_player_rummy(live: LiveServer, seed: int = 5) -> tuple[Player, Player, str]:
    ana, ben = live.player("Ana", "🦊"), live.player("Ben", "🐻")
    code = ana.create(game="rummy", seats=2, seed=seed)["code"]
    ben.join(code)
    return ana, ben, code


def _public(live: LiveServer, code: str) -> dict[str, Any]:
    room = live.service.rooms[code]
    return engine_of(room.row.kind).ENGINE.public_view(room.state)  # type: ignore[no-any-return]


def test_the_link_is_on_for_games_and_off_for_practice(live: LiveServer) -> None:
    ana = live.player("Ana")
    code = ana.create(game="tiles", seats=2)["code"]
    status, body = link(ana, code)
    assert status == 200 and body["on"] and body["url"].startswith("/w/")
    assert code not in body["url"]  # a link of its own, not the join code
    practice = ana.create(game="rummy", seats=2, practice=True, difficulty="easy")["code"]
    assert link(ana, practice) == (200, {"on": False, "url": None})
    status, body = link(ana, practice, "POST")
    assert status == 200 and body["on"] and body["url"].startswith("/w/")
    assert link(ana, practice) == (200, body)  # turning it on again keeps the same link
    assert link(ana, practice, "POST") == (200, body)
    # The watch page is the one page.
    page = ana.http.get(body["url"])
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]


def test_only_the_host_reads_sets_or_revokes_the_link(live: LiveServer) -> None:
    ana, ben, code = _two_player_rummy(live)
    eve = live.player("Eve")
    _, on = link(ana, code)
    for method in ("GET", "POST", "DELETE"):
        status, body = link(ben, code, method)
        assert status == 403 and body["error"]["code"] == "not_host", body
        status, body = link(eve, code, method)
        assert status == 403 and body["error"]["code"] == "not_seated", body
    assert link(ana, code) == (200, on)  # nothing changed
    assert link(ana, "ZZZZZ")[0] == 404


def test_a_spectator_sees_the_public_view_only_and_only_when_it_changes(
    slow_grace: LiveServer,
) -> None:
    live = slow_grace
    ana, ben, code = _two_player_rummy(live, seed=21)
    _, body = link(ana, code)
    with ana.socket(code) as a, ben.socket(code) as b, watching(live, body["url"]) as w:
        socks = {0: a, 1: b}
        # Players are shown the count.
        for sock in (a, b):
            sock.wait(lambda m: m["type"] == "room" and m["room"]["watchers"] == 1)
        first = w.wait_type("watching")
        assert decode(w.raw[0]) is not None  # every frame is one of the protocol's
        assert first["state"] == _public(live, code)
        assert set(first["room"]) == {
            "game",
            "status",
            "seats",
            "target",
            "practice",
            "players",
            "to_act",
            "ended",
            "watchers",
            "clock",
        }
        assert code not in json.dumps(first)  # never the join code
        assert [p["name"] for p in first["room"]["players"]] == ["Ana", "Ben"]
        # The first deal: each public step reaches the spectator, as the engine's public view.
        for s in (0, 1):
            socks[s].drain(0.05)
            assert socks[s].act("deal")["type"] == "ack"
        for s in (0, 1):
            socks[s].wait(lambda m: m["type"] == "view" and m["state"]["phase"] == "playing")
        w.wait(lambda m: m["type"] == "watching" and m["state"]["phase"] == "playing")
        w.drain(0.3)
        assert w.frames[-1]["state"] == _public(live, code)
        turn = a.view["state"]["turn"]
        me, other = socks[turn], socks[1 - turn]
        seen = len(w.frames)
        # A private turn: a draw, then a discard inside its grace window, then undo.
        assert me.act("draw")["type"] == "ack"
        me.wait(lambda m: m["type"] == "view" and m["state"]["stage"] == "play")
        card = next(x for x in me.view["legal"] if x.startswith("discard ")).split()[1]
        assert me.act(f"discard {card}")["type"] == "ack"
        me.wait(lambda m: m["type"] == "view" and m["state"]["stage"] == "pending")
        assert me.act("undo")["type"] == "ack"
        me.wait(lambda m: m["type"] == "view" and m["state"]["stage"] == "play")
        w.drain(0.4)
        assert len(w.frames) == seen, w.frames[seen:]  # nothing sent, not even a same frame
        assert all(card != c for c in json.dumps(w.frames).split('"'))
        # The turn lands when the grace window ends: now the spectator is told.
        assert me.act(f"discard {card}")["type"] == "ack"
        landed = w.wait(lambda m: m["type"] == "watching", timeout=5)
        assert landed["room"]["to_act"] == [1 - turn]
        assert landed["state"]["discard"][-1] == card
        other.wait(lambda m: m["type"] == "view" and m["room"]["to_act"] == [1 - turn])
        assert landed["state"] == _public(live, code)
        assert "hand" not in landed["state"] and "hands" not in landed["state"]
        # Chat is read-only: spectators read it, and can send nothing but pings.
        assert a.request(type="chat", text="hello watchers")["type"] == "ack"
        said = w.wait_type("chat")
        assert said["msg"]["text"] == "hello watchers"
        reply = w.request(type="act", v=1, action="draw")
        assert reply["type"] == "error" and reply["code"] == "watching"
        assert w.request(type="chat", text="hi")["code"] == "watching"
        assert w.request(type="ping")["type"] == "pong"
        for frame in w.raw:
            decode(frame)
    # The spectator left: the players' count is back to 0.
    with ana.socket(code) as a:
        assert a.view is not None and a.view["room"]["watchers"] == 0


def test_a_revoked_link_closes_its_spectators_and_refuses_new_ones(live: LiveServer) -> None:
    ana, _ben, code = _two_player_rummy(live)
    _, body = link(ana, code)
    token = body["url"].removeprefix("/w/")
    with (
        ana.socket(code) as a,
        watching(live, body["url"]) as w1,
        watching(live, body["url"]) as w2,
    ):
        a.wait(lambda m: m["type"] == "room" and m["room"]["watchers"] == 2)
        assert link(ana, code, "DELETE") == (200, {"on": False, "url": None})
        for w in (w1, w2):
            closed = w.wait_type("watch_closed")
            assert closed["reason"] == "revoked"
            with pytest.raises(ConnectionClosed):
                while True:
                    w._recv(5)
        a.wait(lambda m: m["type"] == "room" and m["room"]["watchers"] == 0)
        assert refused(live, token) == 4404
        # Turned on again: a new link; the old one stays dead.
        status, again = link(ana, code, "POST")
        assert status == 200 and again["url"] != body["url"]
        assert refused(live, token) == 4404
        with watching(live, again["url"]) as w3:
            assert w3.wait_type("watching")["room"]["watchers"] == 1
    assert refused(live, "no-such-link") == 4404


def test_spectators_per_game_and_per_address_are_capped(tmp_path: Path) -> None:
    settings = settings_for(tmp_path, watchers_per_game=2, watchers_per_address=3)
    with LiveServer(settings) as live:
        ana = live.player("Ana")
        one = link(ana, ana.create(game="tiles", seats=2)["code"])[1]["url"]
        two = link(ana, ana.create(game="tiles", seats=2)["code"])[1]["url"]
        with watching(live, one), watching(live, one):
            assert refused(live, one.removeprefix("/w/")) == 4429  # the game's cap
            with watching(live, two):
                # Three from this address already: the address's cap, on any game.
                assert refused(live, two.removeprefix("/w/")) == 4429
            with watching(live, two):  # one closed: room again
                pass
        with watching(live, one), watching(live, one):  # both gone: the game has room again
            pass


def test_failed_links_and_codes_count_against_the_address(tmp_path: Path) -> None:
    with LiveServer(settings_for(tmp_path, lookups_per_minute=3)) as live:
        ana = live.player("Ana")
        url = link(ana, ana.create(game="tiles", seats=2)["code"])[1]["url"]
        with watching(live, url):  # a working link costs nothing
            pass
        assert refused(live, "wrong-1") == 4404
        assert link(ana, "ZZZZZ")[0] == 404  # a code that finds no game: its host control too
        assert refused(live, "wrong-2") == 4404
        # Over the rate: every lookup is refused for the minute, a working link too.
        assert refused(live, "wrong-3") == 4429
        assert refused(live, url.removeprefix("/w/")) == 4429
        status, body = link(ana, "ZZZZZ")
        assert status == 429 and body["error"]["code"] == "too_many_lookups"


def test_a_watched_game_stays_in_memory_and_goes_once_nobody_watches(tmp_path: Path) -> None:
    with LiveServer(settings_for(tmp_path, room_idle_seconds=0.2)) as live:
        ana = live.player("Ana")
        code = ana.create(game="tiles", seats=2)["code"]
        url = link(ana, code)[1]["url"]
        with watching(live, url) as w:
            time.sleep(1.0)  # several sweeps
            assert code in live.service.rooms
            assert ana.http.get(f"/api/games/{code}").status_code == 200
            w.drain(0.05)
        deadline = time.monotonic() + 10
        while code in live.service.rooms:
            assert time.monotonic() < deadline, "the room was never evicted"
            time.sleep(0.05)
        # Reloaded on the next spectator, with its link.
        with watching(live, url) as w2:
            assert w2.wait_type("watching")["room"]["status"] == "waiting"
