"""Spectators (issue 33) with two servers serving one site: a spectator on the server that does
not hold the game's sockets is sent the public changes the other commits, and a revocation on
one server sends away the spectators of the other."""

from __future__ import annotations

import pytest
from websockets.exceptions import ConnectionClosed

from server.test_watch import refused, spectator
from server.wsclient import LiveServer


def test_a_revocation_on_one_server_closes_spectators_on_the_other(
    pair: tuple[LiveServer, LiveServer],
) -> None:
    a_srv, b_srv = pair
    ana, ben = a_srv.player("Ana", "🦊"), a_srv.player("Ben", "🐻")
    code = ana.create(game="rummy", seats=2, seed=7)["code"]
    url = ana.http.get(f"/api/games/{code}/watch").json()["url"]
    w = spectator(b_srv, url)  # watching on B; the players are on A
    first = w.wait_type("watching")
    assert first["room"]["status"] == "waiting"
    ben.join(code)  # committed on A: B hears of it over the bus and tells its spectator
    w.wait(lambda m: m["type"] == "watching" and m["room"]["status"] == "active", timeout=10)
    assert ana.http.delete(f"/api/games/{code}/watch").status_code == 200
    assert w.wait_type("watch_closed", timeout=10)["reason"] == "revoked"
    with pytest.raises(ConnectionClosed):
        while True:
            w._recv(5)
    assert refused(b_srv, url.removeprefix("/w/")) == 4404
