"""Rematch (issue 33) across two servers of one site: the offer made on one process is told to
sockets on the other, an accept from a socket on the other process counts, and two last
accepts at once (one on each process) start exactly one match."""

from __future__ import annotations

import threading
from typing import Any

from server.wsclient import LiveServer, Player, Sock, drive


def _finished(pair: tuple[LiveServer, LiveServer], seed: int) -> tuple[str, Sock, Sock, Player]:
    a_srv, b_srv = pair
    ana, ben = a_srv.player("Ana"), b_srv.player("Ben")
    code = ana.create(game="tiles", seats=2, target=1, seed=seed)["code"]
    a = ana.connect(code)
    ben.join(code)  # on the other process
    a.wait(lambda m: m["type"] == "room" and len(m["room"]["players"]) == 2)
    assert a.request(type="start")["type"] == "ack"
    b = ben.connect(code)
    drive({0: a_srv, 1: b_srv}, code, {0: a, 1: b}, lambda r: r.row.status == "finished")
    for sock in (a, b):
        sock.until_view(lambda m: m["room"]["status"] == "finished", timeout=15)
    return code, a, b, ben


def _offer(sock: Sock, pred: Any) -> dict[str, Any]:
    return sock.wait(lambda m: m["type"] == "rematch" and pred(m), timeout=15)


def test_an_accept_on_the_other_process_starts_the_rematch(
    pair: tuple[LiveServer, LiveServer],
) -> None:
    b_srv = pair[1]
    code, a, b, ben = _finished(pair, seed=6)
    assert a.request(type="rematch", accept=True)["type"] == "ack"
    # Ben's socket is on the other process: it hears of the offer from the database.
    assert _offer(b, lambda m: True)["accepted"] == [0]
    assert b.request(type="rematch", accept=True)["type"] == "ack"
    new = {sock.wait_type("rematch_started", timeout=15)["code"] for sock in (a, b)}
    assert len(new) == 1
    (new_code,) = new
    stored = b_srv.call(b_srv.service.store.load_game(code))
    assert stored.rematch_code == new_code
    # Ben plays the new match on his process, in his own seat.
    with ben.socket(new_code) as b2:
        assert b2.view["room"]["you"] == 1 and b2.view["room"]["status"] == "active"
    a.close()
    b.close()


def test_two_last_accepts_at_once_on_two_processes_start_one_match(
    pair: tuple[LiveServer, LiveServer],
) -> None:
    a_srv = pair[0]
    for seed in (6, 7):
        code, a, b, _ben = _finished(pair, seed=seed)
        go = threading.Barrier(2)

        def accept(sock: Sock, go: threading.Barrier = go) -> None:
            go.wait()
            sock.send(type="rematch", accept=True, id="yes")

        threads = [threading.Thread(target=accept, args=(s,)) for s in (a, b)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        answers = [s.wait(lambda m: m.get("id") == "yes", timeout=15) for s in (a, b)]
        assert [m["type"] for m in answers] == ["ack", "ack"], answers
        codes = {s.wait_type("rematch_started", timeout=15)["code"] for s in (a, b)}
        assert len(codes) == 1
        (new_code,) = codes
        for srv in pair:
            assert srv.call(srv.service.store.load_game(code)).rematch_code == new_code
        # One new game holds Ana's device: no second match was made.
        ana_games = a_srv.call(
            a_srv.service.store.games_for_device(a_srv.service.rooms[code].row.seats[0].device)
        )
        assert [g.code for g in ana_games] == [new_code]
        a.close()
        b.close()
