"""Rematch (issue 33) through the real server, real WebSockets and a real SQLite file: the
offer at a finished match's end, accepted by every human (bots at once) or declined, or left."""

from __future__ import annotations

import time
from typing import Any

from gameshack.protocol import decode
from server.wsclient import LiveServer, Player, Sock, drive


def finished_match(
    live: LiveServer, ana: Player, ben: Player, *, bot: str | None = None, seed: int = 4
) -> tuple[str, Sock, Sock]:
    """A Tile Rummy match to 1 point (one round won ends it) between Ana and Ben (and a bot of
    ``bot`` difficulty), played to its end over their sockets; both sockets stay open."""
    code = ana.create(game="tiles", seats=3 if bot else 2, target=1, seed=seed)["code"]
    a = ana.connect(code)
    ben.join(code)
    b = ben.connect(code)
    if bot:
        assert a.request(type="add_bot", difficulty=bot)["type"] == "ack"
    assert a.request(type="start")["type"] == "ack"
    drive(live, code, {0: a, 1: b}, lambda r: r.row.status == "finished", timeout=120)
    for sock in (a, b):
        sock.until_view(lambda m: m["room"]["status"] == "finished")
    return code, a, b


def rematch_frame(sock: Sock, pred: Any = lambda m: True) -> dict[str, Any]:
    frame = sock.wait(lambda m: m["type"] == "rematch" and pred(m))
    decode(sock.raw[sock.frames.index(frame)])  # exactly one of the protocol's frames
    return frame


def test_everyone_accepts_and_the_rematch_starts_with_the_same_seats(live: LiveServer) -> None:
    ana, ben = live.player("Ana", "🦊"), live.player("Ben", "🐻")
    code, a, b = finished_match(live, ana, ben, bot="hard")
    old = live.service.rooms[code].row
    # Ana asks: the offer opens with her and the bot in it; Ben is told.
    assert a.request(type="rematch", accept=True)["type"] == "ack"
    for sock in (a, b):
        offer = rematch_frame(sock)
        assert offer == {
            "type": "rematch",
            "status": "open",
            "accepted": [0, 2],
            "declined": [],
            "left": [],
            "code": None,
        }
    # A second accept changes nothing.
    assert a.request(type="rematch", accept=True)["type"] == "ack"
    # Ben accepts: the new match starts; both are sent there.
    assert b.request(type="rematch", accept=True)["type"] == "ack"
    codes = {sock.wait_type("rematch_started")["code"] for sock in (a, b)}
    assert len(codes) == 1
    new = codes.pop()
    assert new != code
    for sock in (a, b):
        assert rematch_frame(sock)["status"] == "started"
    # Stored: the link on the old game, the new game with the same seats, started.
    stored_old = live.call(live.service.store.load_game(code))
    assert stored_old.rematch_code == new and stored_old.status == "finished"
    assert stored_old.rematch == {"accepted": [0, 1, 2], "declined": [], "left": []}
    stored = live.call(live.service.store.load_game(new))
    assert stored.status == "active" and stored.kind == "tiles" and stored.target == 1
    assert stored.seed != old.seed and stored.host == old.host
    assert [(s.name, s.emoji, s.device, s.bot) for s in stored.seats] == [
        (s.name, s.emoji, s.device, s.bot) for s in old.seats
    ]
    # Started, and nobody but the bot has moved yet (the bot may already be on turn).
    actions = live.call(live.service.store.actions(new))
    assert actions[0].action == "start" and all(x.seat == 2 for x in actions[1:])
    # Each human lands in their own seat of the new match; the new game is theirs.
    with ana.socket(new) as a2, ben.socket(new) as b2:
        assert a2.view["room"]["you"] == 0 and b2.view["room"]["you"] == 1
        assert a2.view["room"]["status"] == "active"
        assert [p["bot"] for p in a2.view["room"]["players"]] == [False, False, True]
    assert [g["code"] for g in ana.games()] == [new]
    # An accept after the start answers where the match is.
    assert a.request(type="rematch", accept=True)["type"] == "ack"
    assert a.wait_type("rematch_started")["code"] == new
    # A socket that opens on the old game hears that the rematch started.
    with ben.socket(code) as b3:
        assert rematch_frame(b3)["code"] == new
    a.close()
    b.close()


def test_a_decline_closes_the_offer_and_tells_the_others(live: LiveServer) -> None:
    ana, ben = live.player("Ana"), live.player("Ben")
    code, a, b = finished_match(live, ana, ben, seed=6)
    assert a.request(type="rematch", accept=True)["type"] == "ack"
    rematch_frame(b, lambda m: m["accepted"] == [0])
    assert b.request(type="rematch", accept=False)["type"] == "ack"
    for sock in (a, b):
        offer = rematch_frame(sock, lambda m: m["status"] != "open")
        assert offer["status"] == "closed" and offer["declined"] == [1]
        assert offer["accepted"] == [0]
    # Nobody can bring it back; nothing was started.
    refused = b.request(type="rematch", accept=True)
    assert refused["type"] == "error" and refused["code"] == "rematch_closed"
    stored = live.call(live.service.store.load_game(code))
    assert stored.rematch_code is None and stored.rematch["declined"] == [1]
    assert ana.games() == [] and ben.games() == []
    a.close()
    b.close()


def test_a_player_whose_socket_closes_has_left_the_offer(live: LiveServer) -> None:
    live.service.rematch.leave_after = 0.3
    ana, ben = live.player("Ana"), live.player("Ben")
    code, a, b = finished_match(live, ana, ben, seed=6)
    assert a.request(type="rematch", accept=True)["type"] == "ack"
    rematch_frame(b, lambda m: m["accepted"] == [0])
    # A reload (closed, opened again within the allowance) is not leaving.
    b.close()
    b = ben.connect(code)
    assert rematch_frame(b)["status"] == "open"
    time.sleep(0.6)
    b.drain(0.1)
    assert live.call(live.service.store.load_game(code)).rematch["left"] == []
    # Closed for good: Ana is told Ben left, and cannot start a rematch.
    b.close()
    offer = rematch_frame(a, lambda m: m["status"] != "open")
    assert offer["status"] == "closed" and offer["left"] == [1] and offer["accepted"] == [0]
    a.close()


def test_a_rematch_is_refused_before_the_end_and_must_be_a_yes_or_no(live: LiveServer) -> None:
    ana, ben = live.player("Ana"), live.player("Ben")
    code = ana.create(game="tiles", seats=2, target=1, seed=2)["code"]
    with ana.socket(code) as a:
        ben.join(code)
        assert a.request(type="rematch", accept=True)["code"] == "not_finished"
        assert a.request(type="start")["type"] == "ack"
        assert a.request(type="rematch", accept=True)["code"] == "not_finished"
        bad = a.request(type="rematch", accept="yes")
        assert bad["type"] == "error" and bad["code"] == "malformed"
        assert a.request(type="rematch")["code"] == "malformed"
    assert live.call(live.service.store.load_game(code)).rematch is None


def test_a_practice_rematch_starts_at_once_and_counts_in_stats(live: LiveServer) -> None:
    ana = live.player("Ana")
    game = ana.create(game="tiles", seats=2, practice=True, difficulty="hard", target=1, seed=9)
    code = game["code"]
    with ana.socket(code) as a:
        drive(live, code, {0: a}, lambda r: r.row.status == "finished", timeout=120)
        a.until_view(lambda m: m["room"]["status"] == "finished")
        assert a.request(type="rematch", accept=True)["type"] == "ack"
        new = a.wait_type("rematch_started")["code"]
    stored = live.call(live.service.store.load_game(new))
    assert stored.practice and stored.difficulty == "hard" and stored.status == "active"
    assert [s.bot for s in stored.seats] == [None, "hard"]
    # The new match is played like any other, and its result is recorded for stats.
    with ana.socket(new) as a2:
        drive(live, new, {0: a2}, lambda r: r.row.status == "finished", timeout=120)
    matches = [r for r in live.call(live.service.store.records()) if r.scope == "match"]
    assert {r.code for r in matches} == {code, new}
    assert all(r.practice and r.bots == [False, True] for r in matches)
