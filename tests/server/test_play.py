"""Whole games through the real server and real WebSockets (uvicorn on a free port, SQLite)."""

from __future__ import annotations

import time

from server.wsclient import LiveServer, Sock, drive, engine_of


def test_two_humans_play_a_full_rummy_hand(live: LiveServer) -> None:
    ana, ben = live.player("Ana", "🦊"), live.player("Ben", "🐻")
    game = ana.create(game="rummy", seats=2, target=500, seed=11)
    code = game["code"]
    with ana.socket(code) as a:
        assert a.view is not None and a.view["room"]["status"] == "waiting"
        assert a.view["state"] is None
        ben.join(code)
        with ben.socket(code) as b:
            # Both seats filled: the first-deal draw, each player taps the deck.
            a.wait(lambda m: m["type"] == "view" and m["room"]["status"] == "active")
            assert a.view["legal"] == ["deal"]
            room = live.service.rooms[code]
            acks = drive(
                live, code, {0: a, 1: b}, lambda r: engine_of("rummy").outcome(r.state) is not None
            )
            assert acks > 10
            for sock in (a, b):
                sock.drain(0.1)
                state = sock.view["state"]
                assert state["phase"] in ("hand_over", "match_over")
                assert state["result"] is not None
            assert a.view["state"]["result"] == b.view["state"]["result"]
            assert "next" in a.view["legal"]
            # Every acknowledged action is in the committed log, in order.
            logged = live.call(live.service.store.actions(code))
            assert [x.v for x in logged] == list(range(1, room.row.version + 1))
            recs = live.call(live.service.store.records(code))
            hand = [r for r in recs if r.scope == "hand"]
            assert len(hand) == 1
            assert hand[0].names == ["Ana", "Ben"] and hand[0].bots == [False, False]
            assert hand[0].scores == a.view["state"]["result"]["scores"]
            # Next hand flows without a new draw.
            assert a.act("next")["type"] == "ack"
            a.wait(lambda m: m["type"] == "view" and m["state"]["phase"] == "playing")
            assert a.view["state"]["hand_no"] == 2


def test_two_humans_play_a_full_tile_rummy_round(live: LiveServer) -> None:
    ana, ben = live.player("Ana"), live.player("Ben")
    code = ana.create(game="tiles", seats=4, seed=5)["code"]
    with ana.socket(code) as a:
        # The host cannot start alone.
        assert a.request(type="start")["code"] == "not_enough_players"
        ben.join(code)
        a.wait(lambda m: m["type"] == "room" and len(m["room"]["players"]) == 2)
        with ben.socket(code) as b:
            assert b.request(type="start")["code"] == "not_host"
            assert a.request(type="start")["type"] == "ack"
            a.wait(lambda m: m["type"] == "view" and m["room"]["status"] == "active")
            b.wait(lambda m: m["type"] == "view" and m["room"]["status"] == "active")
            assert a.view["state"]["seats"] == 2 and len(a.view["state"]["rack"]) == 14
            acks = drive(live, code, {0: a, 1: b}, lambda r: bool(r.state.results), timeout=90)
            assert acks > 5
            for sock in (a, b):
                sock.drain(0.1)
                assert sock.view["state"]["phase"] in ("round_over", "match_over")
            recs = live.call(live.service.store.records(code))
            assert [r.scope for r in recs][:1] == ["hand"]
            assert recs[0].names == ["Ana", "Ben"]


def test_practice_rummy_runs_to_the_end_of_the_match(live: LiveServer) -> None:
    ana = live.player("Ana")
    game = ana.create(game="rummy", seats=3, target=100, practice=True, difficulty="hard", seed=3)
    assert game["status"] == "active"  # practice starts at once
    code = game["code"]
    with ana.socket(code) as a:
        players = a.view["room"]["players"]
        assert [p["bot"] for p in players] == [False, True, True]
        assert all(p["online"] for p in players[1:])  # bots are always online
        assert len({p["name"] for p in players}) == 3
        drive(live, code, {0: a}, lambda r: r.row.status == "finished", timeout=120)
        a.until_view(lambda m: m["room"]["status"] == "finished")
        assert a.view["state"]["phase"] == "match_over"
        assert a.view["state"]["match_winners"]
        assert live.service.bot_errors == 0
    recs = live.call(live.service.store.records(code))
    match = [r for r in recs if r.scope == "match"]
    assert len(match) == 1 and match[0].bots == [False, True, True]
    assert max(match[0].scores) >= 100
    assert len([r for r in recs if r.scope == "hand"]) == match[0].number
    assert ana.games() == []  # finished games leave "Your Active Games"


def test_practice_tile_rummy_starts_at_once_with_bots(live: LiveServer) -> None:
    ana = live.player("Ana")
    game = ana.create(game="tiles", seats=4, practice=True, difficulty="easy", target=1, seed=8)
    assert game["status"] == "active"
    with ana.socket(game["code"]) as a:
        assert [p["bot"] for p in a.view["room"]["players"]] == [False, True, True, True]
        drive(live, game["code"], {0: a}, lambda r: bool(r.state.results), timeout=90)
        assert live.service.bot_errors == 0


def _discard_of(sock: Sock) -> str:
    return next(x for x in sock.view["legal"] if x.startswith("discard "))


def _to_play_stage(live: LiveServer, code: str, socks: dict[int, Sock]) -> int:
    """Tap the first deal for both seats and draw for whoever starts; return that seat."""
    for s in (0, 1):
        socks[s].drain(0.05)
        reply = socks[s].act("deal")
        assert reply["type"] == "ack", reply
    for s in (0, 1):
        socks[s].wait(lambda m: m["type"] == "view" and m["state"]["phase"] == "playing")
        socks[s].drain(0.05)
    turn = socks[0].view["state"]["turn"]
    assert socks[turn].act("draw")["type"] == "ack"
    socks[turn].wait(lambda m: m["type"] == "view" and m["state"]["stage"] == "play")
    return turn


def test_grace_window_undo_during_publish_after_others_see_nothing(slow_grace: LiveServer) -> None:
    live = slow_grace
    ana, ben = live.player("Ana"), live.player("Ben")
    code = ana.create(game="rummy", seats=2, seed=21)["code"]
    ben.join(code)
    with ana.socket(code) as a, ben.socket(code) as b:
        socks = {0: a, 1: b}
        turn = _to_play_stage(live, code, socks)
        me, other = socks[turn], socks[1 - turn]
        other.drain(0.2)
        seen_before = len(other.frames)
        other_view = other.view
        card = _discard_of(me).split()[1]
        assert me.act(f"discard {card}")["type"] == "ack"
        mine = me.wait(lambda m: m["type"] == "view")
        assert mine["state"]["stage"] == "pending" and mine["state"]["pending"] == card
        assert mine["grace"] is not None and 0 < mine["grace"]["remaining_ms"] <= 1500
        assert mine["room"]["to_act"] == [turn]  # the gold indicator has not moved
        # Undo inside the window: instant, and the other seat was told nothing at all.
        assert me.act("undo")["type"] == "ack"
        back = me.wait(lambda m: m["type"] == "view")
        assert back["state"]["stage"] == "play" and back["grace"] is None
        assert card in back["state"]["hand"]
        other.drain(0.3)
        assert len(other.frames) == seen_before, other.frames[seen_before:]
        # Discard again and let the window end: everyone sees it at once and the turn passes.
        assert me.act(f"discard {card}")["type"] == "ack"
        t0 = time.monotonic()
        published = other.wait(lambda m: m["type"] == "view", timeout=5)
        assert time.monotonic() - t0 >= 1.0  # not before the window ended
        assert published["state"]["discard"][-1] == card
        assert published["room"]["to_act"] == [1 - turn]
        # The draw was private until now: the count is unchanged (drew one, discarded one) and
        # both steps appear in the public log together.
        assert published["state"]["counts"][turn] == other_view["state"]["counts"][turn]
        assert [e["kind"] for e in published["state"]["log"][-2:]] == ["draw", "discard"]
        me.wait(
            lambda m: (
                m["type"] == "view" and m["grace"] is None and m["room"]["to_act"] == [1 - turn]
            )
        )
        # Undo after the window is refused and changes nothing.
        reply = me.act("undo")
        assert reply["type"] == "error"


def test_leave_freezes_the_game_for_the_other_side(live: LiveServer) -> None:
    ana, ben = live.player("Ana"), live.player("Ben")
    code = ana.create(game="rummy", seats=2, seed=4)["code"]
    ben.join(code)
    with ana.socket(code) as a, ben.socket(code) as b:
        a.wait(lambda m: m["type"] == "view" and m["room"]["status"] == "active")
        b.wait(lambda m: m["type"] == "view" and m["room"]["status"] == "active")
        assert b.request(type="leave")["type"] == "ack"
        ended = a.wait_type("ended", timeout=3)
        assert ended == {"type": "ended", "reason": "left", "seat": 1, "name": "Ben"}
        frozen = a.wait(lambda m: m["type"] == "view")
        assert frozen["room"]["status"] == "ended" and frozen["legal"] == []
        v_before = live.service.rooms[code].row.version
        reply = a.act("deal")
        assert reply["type"] == "error" and reply["code"] == "ended"
        assert live.service.rooms[code].row.version == v_before
    # No rejoin, and it is gone from both players' active games.
    r = live.player("Cat").http.post(f"/api/games/{code}/join", json={"name": "Cat"})
    assert r.status_code == 409 and r.json()["error"]["code"] == "ended"
    assert ana.games() == [] and ben.games() == []


def test_cancel_from_the_waiting_room(live: LiveServer) -> None:
    ana = live.player("Ana")
    code = ana.create(game="rummy", seats=3)["code"]
    assert [g["code"] for g in ana.games()] == [code]
    assert ana.http.post(f"/api/games/{code}/leave").json() == {"ok": True}
    assert ana.games() == []
    r = live.player("Ben").http.post(f"/api/games/{code}/join", json={"name": "Ben"})
    assert r.status_code == 409


def test_chat_with_unread_counts(live: LiveServer) -> None:
    ana, ben = live.player("Ana"), live.player("Ben")
    code = ana.create(game="tiles", seats=2)["code"]
    ben.join(code)
    with ana.socket(code) as a:
        assert a.request(type="chat", text="<b>hi</b> Ben")["type"] == "ack"
        assert a.request(type="chat", text="you there?")["type"] == "ack"
        assert a.request(type="chat", text="   ")["code"] == "chat_empty"
        assert a.request(type="chat", text="x" * 501)["code"] == "chat_too_long"
        with ben.socket(code) as b:
            history = next(m for m in b.frames if m["type"] == "chat_history")
            assert [m["text"] for m in history["messages"]] == ["<b>hi</b> Ben", "you there?"]
            assert history["unread"] == 2 and b.view["room"]["chat_unread"] == 2
            assert a.view is not None
            a.drain(0.05)
            assert b.request(type="chat", text="yes")["type"] == "ack"
            got = a.wait_type("chat")
            assert got["msg"]["text"] == "yes" and got["msg"]["name"] == "Ben"
            room_a = a.wait(lambda m: m["type"] == "room" and m["room"]["chat_unread"] == 1)
            assert room_a["room"]["you"] == 0
            b.drain(0.05)
            assert b.request(type="chat_read")["type"] == "ack"
            b.wait(lambda m: m["type"] == "room" and m["room"]["chat_unread"] == 0)
            # Rate limit: a burst is cut off with a clear error.
            codes = [b.request(type="chat", text=f"m{i}")["type"] for i in range(7)]
            assert "error" in codes
    # Persisted: a reconnect after a restart-free reconnect still sees the read mark.
    with ben.socket(code) as b2:
        hist = next(m for m in b2.frames if m["type"] == "chat_history")
        assert hist["unread"] == 0


def test_reconnect_resync_and_second_tab(live: LiveServer) -> None:
    ana, ben = live.player("Ana"), live.player("Ben")
    code = ana.create(game="rummy", seats=2, seed=9)["code"]
    ben.join(code)
    a = ana.connect(code)
    b = ben.connect(code)
    a.wait(lambda m: m["type"] == "view" and m["room"]["status"] == "active")
    assert a.act("deal")["type"] == "ack"
    b.wait(lambda m: m["type"] == "room" and m["room"]["players"][0]["online"])
    a.close()
    b.wait(lambda m: m["type"] == "room" and not m["room"]["players"][0]["online"])
    # While Ana is away, Ben acts; she comes back and gets the current view at once.
    b.drain(0.05)
    assert b.act("deal")["type"] == "ack"
    a2 = ana.connect(code)
    hello = next(m for m in a2.frames if m["type"] == "hello")
    assert hello["seat"] == 0
    assert a2.view is not None and a2.view["state"]["phase"] == "playing"
    assert a2.view["v"] == live.service.rooms[code].view_v[0]  # the seat's own view counter
    # A second tab of the same device sees the same thing; an action from a stale tab is
    # refused with the current view attached.
    a3 = ana.connect(code)
    assert a3.view["v"] == a2.view["v"]
    a3.send(type="act", v=1, action="draw", id="old")
    err = a3.wait(lambda m: m.get("id") == "old")
    assert err["code"] == "stale"
    a3.wait(lambda m: m["type"] == "view")
    a3.send(type="sync", id="s")
    assert a3.wait_type("view")["v"] == a2.view["v"]
    for s in (a2, a3, b):
        s.close()
    # Another device cannot open a seat it does not hold.
    with_cat = live.player("Cat")
    import pytest
    from websockets.exceptions import ConnectionClosed

    with pytest.raises(ConnectionClosed) as info:
        with_cat.connect(code)
    assert info.value.rcvd is not None and info.value.rcvd.code == 4403


def test_your_active_games_says_whose_turn(live: LiveServer) -> None:
    ana, ben = live.player("Ana"), live.player("Ben")
    code = ana.create(game="rummy", seats=2, target=200)["code"]
    waiting = ana.games()
    assert waiting[0]["status"] == "waiting" and waiting[0]["to_act"] == []
    ben.join(code)
    games = ana.games()
    assert games[0]["status"] == "active" and games[0]["to_act"] == [0, 1]
    assert games[0]["your_turn"] is True and games[0]["target"] == 200
    assert ana.http.get("/api/my-games").json()["games"] == games
    look = live.player("Cat").http.get(f"/api/games/{code.lower()}").json()
    assert look["joinable"] is False and look["you"] is None


def test_bad_requests_get_clear_errors(live: LiveServer) -> None:
    ana = live.player("Ana")
    r = ana.http.post("/api/games", json={"game": "chess", "name": "Ana"})
    assert r.status_code == 422 and r.json()["error"]["code"] == "bad_request"
    r = ana.http.post(
        "/api/games", json={"game": "rummy", "seats": 3, "target": 150, "name": "Ana"}
    )
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad_target"
    r = ana.http.get("/api/games/ZZZZZ")
    assert r.status_code == 404 and r.json()["error"]["code"] == "not_found"
    page = ana.http.get("/g/ABCDE")
    assert (
        page.status_code == 200 and "default-src 'self'" in page.headers["content-security-policy"]
    )
    # Each complaint names the field at fault, in one sentence, and nothing is made.
    before = ana.games()
    for body, said in (
        ({"game": "rummy", "name": ""}, "Invalid name: String should have at least 1 character."),
        ({"game": "rummy", "name": "Ana", "seats": 9}, "Invalid seats: "),
        (b"{not json", "Invalid request: Invalid JSON: "),
    ):
        r = ana.http.post(
            "/api/games", **({"content": body} if isinstance(body, bytes) else {"json": body})
        )
        assert r.status_code == 422 and r.json()["error"]["message"].startswith(said), r.text
    assert ana.games() == before
    r = ana.http.get("/api/stats/history", params={"name": "Ana", "page": "two"})
    assert r.status_code == 422 and r.json()["error"]["message"] == (
        "Invalid page: a whole number is expected."
    )
    # No such route, or not that method: the same JSON errors as every other answer.
    r = ana.http.get("/api/nothing/here")
    assert r.status_code == 404 and r.json()["error"]["code"] == "not_found"
    r = ana.http.put("/api/games")
    assert r.status_code == 405 and r.json()["error"]["code"] == "method_not_allowed"
    assert set(r.headers["allow"].split(", ")) == {"GET", "HEAD", "POST"}
    # A page answers HEAD as it answers GET, without the body.
    head = ana.http.head("/")
    assert head.status_code == 200 and head.content == b""


def test_hint_goes_to_the_requesting_seat_only(live: LiveServer) -> None:
    ana, ben = live.player("Ana"), live.player("Ben")
    code = ana.create(game="rummy", seats=2, seed=12)["code"]
    ben.join(code)
    with ana.socket(code) as a, ben.socket(code) as b:
        socks = {0: a, 1: b}
        turn = _to_play_stage(live, code, socks)
        me, other = socks[turn], socks[1 - turn]
        other.drain(0.1)
        seen = len(other.frames)
        reply = me.request(type="hint")
        assert reply["type"] == "hint" and reply["hint"]["game"] == "rummy"
        assert (
            reply["hint"]["stage"] == "play"
            and reply["hint"]["discard"] in me.view["state"]["hand"]
        )
        assert other.request(type="hint")["code"] == "no_hint"  # not your turn
        other.drain(0.1)
        assert not [m for m in other.frames[seen:] if m["type"] == "hint"]


def test_tile_rummy_host_seats_a_bot_and_starts(live: LiveServer) -> None:
    ana = live.player("Ana")
    code = ana.create(game="tiles", seats=3)["code"]
    with ana.socket(code) as a:
        assert a.request(type="add_bot", difficulty="hard")["type"] == "ack"
        room = a.wait(lambda m: m["type"] == "room" and len(m["room"]["players"]) == 2)
        assert room["room"]["players"][1]["bot"] and room["room"]["players"][1]["online"]
        assert a.request(type="start")["type"] == "ack"
        a.wait(lambda m: m["type"] == "view" and m["room"]["status"] == "active")
        assert a.request(type="add_bot", difficulty="easy")["code"] == "not_waiting"
        drive(live, code, {0: a}, lambda r: r.row.version > 6, timeout=60)
    page = ana.http.get("/")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    assert ana.http.get("/static/index.html").status_code == 200
