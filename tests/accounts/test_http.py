"""Sign-in, games on every device and stats through the real app over real HTTP and WebSockets,
with the code read from mail delivered to a real SMTP server."""

from __future__ import annotations

import json

import httpx
import pytest
from websockets.exceptions import ConnectionClosed

from .live import recv_until


def test_games_follow_the_account_to_a_second_device(live, smtp):
    phone, friend, laptop, stranger = (live.device() for _ in range(4))
    # Before signing in: the phone starts a two-player Rummy game and a friend joins.
    g1 = phone.post(
        "/api/games", {"game": "rummy", "seats": 2, "name": "Ana", "emoji": "🦊", "seed": 7}
    ).json()["code"]
    assert friend.post(f"/api/games/{g1}/join", {"name": "Ben", "emoji": "🐻"}).status_code == 200

    # The phone signs in with the code from the mail; first sign-in: pick a name.
    me = phone.sign_in("ana@example.com", smtp)
    assert me == {"signed_in": True, "email": "ana@example.com", "name": None, "needs_name": True}
    assert phone.post("/api/account/name", {"name": "Ana"}).json()["name"] == "Ana"
    # A game the phone starts while signed in joins the account too.
    g2 = phone.post("/api/games", {"game": "tiles", "seats": 2, "name": "Ana"}).json()["code"]

    # The laptop: nothing of Ana's until it signs in to the same account.
    assert laptop.get("/api/games").json()["games"] == []
    me = laptop.sign_in("ana@example.com", smtp, nth=2)
    assert me["name"] == "Ana" and me["needs_name"] is False
    games = {g["code"]: g for g in laptop.get("/api/games").json()["games"]}
    assert set(games) == {g1, g2}
    assert games[g1]["seat"] == 0 and games[g1]["status"] == "active"
    assert laptop.get(f"/api/games/{g1}").json()["you"] == 0

    # Resume on the laptop: the same seat, and it can play for it.
    with laptop.socket(g1) as ws:
        hello = recv_until(ws, "hello")
        assert hello["seat"] == 0
        view = recv_until(ws, "view")
        assert view["room"]["you"] == 0
        legal = view["legal"]
        if not legal:  # the first deal: every seat taps the deck; seat 0 may already be done
            pytest.fail(f"seat 0 has nothing to do: {view}")
        ws.send(json.dumps({"type": "act", "v": view["v"], "action": legal[0], "id": "x1"}))
        ack = recv_until(ws, "ack")
        assert ack["id"] == "x1"

    # A device not signed in to the account still can't open it.
    with stranger.socket(g1) as ws, pytest.raises(ConnectionClosed) as closed:
        recv_until(ws, "hello")
    assert closed.value.rcvd.code == 4403

    # Signing out of the laptop takes the phone's games off it (and the socket is refused).
    assert laptop.post("/api/account/sign-out").status_code == 200
    assert laptop.get("/api/games").json()["games"] == []
    with laptop.socket(g1) as ws, pytest.raises(ConnectionClosed):
        recv_until(ws, "hello")
    # The phone itself is unaffected.
    assert {g["code"] for g in phone.get("/api/games").json()["games"]} == {g1, g2}


def test_cookie_flags_plain_http(live, smtp):
    dev = live.device()
    dev.post("/api/account/request-code", {"email": "ana@example.com"})
    code = smtp.inbox.code_for("ana@example.com")
    r = dev.post("/api/account/verify", {"email": "ana@example.com", "code": code})
    raw = [v for v in r.headers.get_list("set-cookie") if "gs_session" in v]
    assert len(raw) == 1
    cookie = raw[0].lower()
    # A local install over http: no Secure (the browser would drop it), so no __Host- either.
    assert cookie.startswith("gs_session=")
    assert "httponly" in cookie and "samesite=lax" in cookie and "path=/" in cookie
    assert "secure" not in cookie and "domain" not in cookie
    value = raw[0].split(";")[0].split("=", 1)[1]
    assert len(value) >= 43  # 32 random bytes, base64url


def test_cookie_flags_behind_https(live, smtp):
    # Behind a TLS-terminating proxy (X-Forwarded-Proto from a trusted address, as uvicorn's
    # proxy_headers handles it) the cookie is Secure and __Host- prefixed.
    dev = live.device()
    https = {"X-Forwarded-Proto": "https"}
    dev.post("/api/account/request-code", {"email": "ana@example.com"}, headers=https)
    code = smtp.inbox.code_for("ana@example.com")
    r = dev.post("/api/account/verify", {"email": "ana@example.com", "code": code}, headers=https)
    assert r.status_code == 200, r.text
    raw = [v for v in r.headers.get_list("set-cookie") if "gs_session" in v]
    cookie = raw[0].lower()
    assert cookie.startswith("__host-gs_session=")
    assert "httponly" in cookie and "samesite=lax" in cookie and "secure" in cookie
    assert "path=/" in cookie and "domain" not in cookie
    # And it works: the prefixed cookie identifies the session.
    value = raw[0].split(";")[0].split("=", 1)[1]
    fresh = httpx.Client(base_url=live.url, cookies={"__Host-gs_session": value})
    assert fresh.get("/api/account", headers=https).json()["signed_in"] is True


def test_sign_out_revokes_the_session_everywhere(live, smtp):
    dev = live.device()
    dev.sign_in("ana@example.com", smtp)
    stolen = dev.http.cookies["gs_session"]
    assert dev.get("/api/account").json()["signed_in"] is True
    r = dev.post("/api/account/sign-out")
    assert r.json()["signed_in"] is False
    assert any(
        "gs_session=" in v and "max-age=0" in v.lower() for v in r.headers.get_list("set-cookie")
    )
    # Even a copy of the old cookie value is dead: the server deleted the session.
    other = httpx.Client(base_url=live.url, cookies={"gs_session": stolen})
    assert other.get("/api/account").json()["signed_in"] is False
    assert other.post("/api/account/name", json={"name": "Eve"}).status_code == 401


def test_session_id_rotates_at_sign_in(live, smtp):
    dev = live.device()
    dev.sign_in("ana@example.com", smtp)
    first = dev.http.cookies["gs_session"]
    dev.sign_in("ana@example.com", smtp, nth=2)
    second = dev.http.cookies["gs_session"]
    assert first != second
    other = httpx.Client(base_url=live.url, cookies={"gs_session": first})
    assert other.get("/api/account").json()["signed_in"] is False


def test_request_rate_limit_answers_429(live, smtp):
    dev = live.device()
    statuses = [
        dev.post("/api/account/request-code", {"email": "ana@example.com"}).status_code
        for _ in range(6)
    ]
    assert statuses == [200] * 5 + [429]
    r = dev.post("/api/account/request-code", {"email": "ana@example.com"})
    assert r.json()["error"]["code"] == "rate_limited"
    assert int(r.headers["Retry-After"]) > 0


def test_sixth_try_over_http(live, smtp):
    dev = live.device()
    dev.post("/api/account/request-code", {"email": "ana@example.com"})
    code = smtp.inbox.code_for("ana@example.com")
    wrong = f"{(int(code) + 1) % 1_000_000:06d}"
    for _ in range(5):
        r = dev.post("/api/account/verify", {"email": "ana@example.com", "code": wrong})
        assert r.status_code == 400 and r.json()["error"]["code"] == "wrong_code"
    r = dev.post("/api/account/verify", {"email": "ana@example.com", "code": code})
    assert r.status_code == 400 and r.json()["error"]["code"] == "wrong_code"
    assert "gs_session" not in r.headers.get("set-cookie", "")


def test_same_answer_for_known_and_unknown_address(live, smtp):
    dev = live.device()
    dev.sign_in("ana@example.com", smtp)
    dev.post("/api/account/sign-out")
    known = dev.post("/api/account/request-code", {"email": "ana@example.com"})
    unknown = dev.post("/api/account/request-code", {"email": "zed@example.com"})
    assert known.status_code == unknown.status_code == 200
    strip = lambda r: json.dumps(r.json()).replace(r.json()["email"], "<address>")  # noqa: E731
    assert strip(known) == strip(unknown)
    assert set(known.headers.get_list("set-cookie")) == set(unknown.headers.get_list("set-cookie"))


def test_bad_input_and_cross_site_posts(live):
    dev = live.device()
    r = dev.post("/api/account/request-code", {"email": "not an address"})
    assert r.status_code == 400 and r.json()["error"]["code"] == "invalid_email"
    r = dev.post("/api/account/request-code", {"nope": 1})
    assert r.status_code == 422 and "error" in r.json()
    r = dev.post("/api/account/verify", {"email": "ana@example.com", "code": "12ab"})
    assert r.status_code == 400
    r = dev.post(
        "/api/account/request-code",
        {"email": "ana@example.com"},
        headers={"Origin": "https://evil.example"},
    )
    assert r.status_code == 403 and r.json()["error"]["code"] == "cross_site"
    assert dev.post("/api/account/name", {"name": "Ana"}).status_code == 401


def test_stats_and_history_over_http(live):
    t0 = 1_790_000_000.0
    # Ana vs Ben: Ana wins, loses, wins (newest). Ana vs Cy (Tile Rummy): a tie.
    live.add_finished_match(
        "AAAA2", "rummy", ("Ana", "Ben"), [[60, -10], [50, 5]], [110, -5], [0], t0
    )
    live.add_finished_match("AAAA3", "rummy", ("Ben", "Ana"), [[105, 20]], [105, 20], [0], t0 + 100)
    live.add_finished_match(
        "AAAA4", "tiles", ("Cy", "Ana"), [[40, -40], [-30, 30]], [10, 10], [0, 1], t0 + 200
    )
    live.add_finished_match(
        "AAAA5", "rummy", ("Ana", "Ben"), [[130, -20]], [130, -20], [0], t0 + 300
    )
    # Practice (a bot) and a three-player game: not counted.
    live.add_finished_match(
        "AAAA6", "rummy", ("Ana", "Robo"), [[200, 0]], [200, 0], [0], t0 + 400, bots=(False, True)
    )
    live.add_finished_match(
        "AAAA7", "rummy", ("Ana", "Ben", "Cy"), [[150, 0, 0]], [150, 0, 0], [0], t0 + 500
    )

    dev = live.device()
    s = dev.get("/api/stats", params={"name": "Ana"}).json()
    o = s["overall"]
    assert (o["played"], o["won"], o["lost"], o["tied"]) == (4, 2, 1, 1)
    assert o["win_rate"] == 0.5
    # Ana's hands: 60, 50, 20, -40, 30, 130 -> avg 41.7, best 130.
    assert o["hands"] == 6 and o["avg_hand"] == 41.7 and o["best_hand"] == 130
    assert o["streak"] == {"result": "won", "count": 1}
    opp = {x["opponent"]: x for x in s["by_opponent"]}
    assert set(opp) == {"Ben", "Cy"}
    assert (opp["Ben"]["played"], opp["Ben"]["won"], opp["Ben"]["lost"]) == (3, 2, 1)
    assert opp["Cy"]["tied"] == 1
    rummy = dev.get("/api/stats", params={"name": "Ana", "game": "rummy"}).json()["overall"]
    assert (rummy["played"], rummy["won"]) == (3, 2)

    h = dev.get("/api/stats/history", params={"name": "Ana"}).json()
    assert h["total"] == 4 and h["pages"] == 1
    assert [m["code"] for m in h["matches"]] == ["AAAA5", "AAAA4", "AAAA3", "AAAA2"]
    first = h["matches"][0]
    assert (first["opponent"], first["my_score"], first["opponent_score"], first["result"]) == (
        "Ben",
        130,
        -20,
        "won",
    )
    assert h["matches"][2]["result"] == "lost" and h["matches"][2]["my_score"] == 20
    ben = dev.get("/api/stats", params={"name": "Ben"}).json()["overall"]
    assert (ben["played"], ben["won"], ben["lost"]) == (3, 1, 2)
    assert dev.get("/api/stats", params={"name": ""}).status_code == 400
    assert dev.get("/api/stats", params={"name": "Ana", "game": "chess"}).status_code == 400


def test_history_pages(live):
    t0 = 1_790_000_000.0
    for i in range(45):
        live.add_finished_match(_code(i), "rummy", ("Ana", "Ben"), [[10, 0]], [10, 0], [0], t0 + i)
    dev = live.device()
    p1 = dev.get("/api/stats/history", params={"name": "Ana"}).json()
    p3 = dev.get("/api/stats/history", params={"name": "Ana", "page": 3}).json()
    assert (p1["total"], p1["pages"], len(p1["matches"]), len(p3["matches"])) == (45, 3, 20, 5)
    assert p1["matches"][0]["finished_at"] == t0 + 44 and p3["matches"][-1]["finished_at"] == t0


def _code(i: int) -> str:
    alphabet = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
    return "Q" + "".join(alphabet[(i // len(alphabet) ** k) % len(alphabet)] for k in range(4))


def test_account_answers_are_not_cached(live, smtp):
    dev = live.device()
    assert dev.get("/api/account").headers["cache-control"] == "no-store"
    r = dev.post("/api/account/request-code", {"email": "ana@example.com"})
    assert r.headers["cache-control"] == "no-store"
    code = smtp.inbox.code_for("ana@example.com")
    r = dev.post("/api/account/verify", {"email": "ana@example.com", "code": code})
    assert r.headers["cache-control"] == "no-store"
    assert dev.get("/api/stats", params={"name": "Ana"}).headers["cache-control"] == "no-store"
    r = dev.post("/api/account/verify", {"email": "ana@example.com", "code": code})
    assert r.status_code == 400 and r.headers["cache-control"] == "no-store"


def test_accounts_on_the_in_memory_game_store(tmp_path, smtp, monkeypatch, caplog):
    """A server run on the in-memory game store (tests, demos) gets the in-memory twins: the
    same endpoints, console codes, stats from the store's records."""
    import logging
    import re
    import time

    from gameshack.store import MemoryStore
    from server.wsclient import LiveServer, settings_for

    monkeypatch.delenv("GAMESHACK_SMTP_HOST", raising=False)
    monkeypatch.delenv("GAMESHACK_SECRET_KEY", raising=False)
    caplog.set_level(logging.WARNING, "gameshack.accounts.mail")
    with LiveServer(settings_for(tmp_path), MemoryStore()) as live:
        client = httpx.Client(base_url=live.base)
        assert client.get("/api/account").json()["signed_in"] is False
        r = client.post("/api/account/request-code", json={"email": "ana@example.com"})
        assert r.status_code == 200
        deadline = time.monotonic() + 10
        while not (m := re.search(r"code for ana@example.com: (\d{6})", caplog.text)):
            assert time.monotonic() < deadline, caplog.text  # the console "mail" is async
            time.sleep(0.02)
        r = client.post(
            "/api/account/verify", json={"email": "ana@example.com", "code": m.group(1)}
        )
        assert r.json()["signed_in"] is True
        assert client.get("/api/stats", params={"name": "Ana"}).json()["overall"]["played"] == 0
    # The key for code hashes was created once, private to the server's user.
    key = tmp_path / "secret.key"
    assert key.exists() and (key.stat().st_mode & 0o777) == 0o600
