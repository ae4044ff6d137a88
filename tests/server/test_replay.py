"""Replays of finished matches (issue 33): played through the real server over WebSocket, then
replayed by GET /api/replay and compared step by step with the engine's own replay."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from gameshack.rules.engine import ENGINES
from gameshack.service.replay import CHUNK, Replays
from gameshack.worker import replay_from_log
from server.wsclient import LiveServer, Player, drive, settings_for

LOBBY = {"join", "start", "left", "cancelled"}


def _finish_practice(live: LiveServer, ana: Player, kind: str) -> str:
    """A practice match (Ana and bots) played to its end over Ana's WebSocket."""
    target = 100 if kind == "rummy" else 1
    game = ana.create(game=kind, seats=2, target=target, practice=True, difficulty="easy", seed=21)
    code = game["code"]
    with ana.socket(code) as a:
        drive(live, code, {0: a}, lambda r: r.row.status == "finished", timeout=120)
    return code


def _fetch(player: Player, code: str) -> tuple[dict[str, Any], list[Any], list[Any]]:
    """The replay's meta and every public and full view, page by page."""
    r = player.http.get(f"/api/replay/{code}")
    assert r.status_code == 200, r.text
    meta = r.json()
    public: list[Any] = []
    full: list[Any] = []
    for page in range((meta["count"] + meta["chunk"] - 1) // meta["chunk"]):
        for views, flag in ((public, "0"), (full, "1")):
            r = player.http.get(f"/api/replay/{code}/views", params={"page": page, "full": flag})
            assert r.status_code == 200, r.text
            assert r.headers["content-encoding"] == "gzip"
            views.extend(r.json())
    return meta, public, full


def _engine_replay(live: LiveServer, code: str) -> tuple[list[Any], list[Any], list[Any], Any]:
    """The engine's own replay of the stored match: new_match(config, seed), then each logged
    engine action; its steps, public views, full views and final state."""
    row = live.call(live.service.store.load_game(code))
    log = live.call(live.service.store.actions(code))
    engine = ENGINES[row.kind]
    state = engine.new_match(engine.config(row.capacity, row.target), row.seed)
    steps, public, full = [], [engine.public_view(state)], [engine.full_view(state)]
    started = [i for i, a in enumerate(log) if a.action == "start" and a.seat is None]
    assert len(started) == 1
    for a in log[started[0] + 1 :]:
        if a.action in LOBBY:
            continue
        state = engine.apply(state, a.seat, engine.parse_action(a.action))
        steps.append({"seat": a.seat, "action": a.action})
        public.append(engine.public_view(state))
        full.append(engine.full_view(state))
    # JSON as the server sends it (tuples become lists)
    public, full = json.loads(json.dumps(public)), json.loads(json.dumps(full))
    return steps, public, full, engine.state_to_dict(state) == row.state


@pytest.mark.parametrize("kind", ["rummy", "tiles"])
def test_a_finished_match_replays_step_by_step_as_the_engine_does(
    live: LiveServer, kind: str
) -> None:
    ana, bea = live.player("Ana", "🦊"), live.player("Bea")
    code = _finish_practice(live, ana, kind)
    # Anyone with the code may watch it (Bea holds no seat in it).
    meta, public, full = _fetch(bea, code)
    steps, e_public, e_full, reached_the_end = _engine_replay(live, code)
    assert reached_the_end  # the engine's replay ends in the stored final state
    assert meta["game"] == kind and meta["status"] == "finished" and meta["full"] is True
    assert meta["players"][0]["name"] == "Ana"
    assert [p["bot"] for p in meta["players"]] == [False, True]
    assert meta["steps"] == steps and len(steps) > 10
    assert meta["count"] == len(steps) + 1 == len(public) == len(full)
    for i in range(meta["count"]):
        assert public[i] == e_public[i], f"public view of step {i}"
        assert full[i] == e_full[i], f"full view of step {i}"
    # The public views hold no hand or rack; the full ones every seat's.
    secret = "hands" if kind == "rummy" else "racks"
    assert all(secret not in v and v["seat"] is None for v in public)
    assert all(len(v[secret]) == 2 for v in full)
    assert full[-1]["phase"] == "match_over"
    # Worked out once, in the worker pool, then kept: asking again costs nothing.
    replays: Replays = live.app.state.replays
    assert replays.computed == 1
    _fetch(ana, code)
    assert replays.computed == 1
    # Rows other features may log (no action of the game; after the match's end) change nothing.
    row = live.call(live.service.store.load_game(code))
    log = [(a.seat, a.action) for a in live.call(live.service.store.actions(code))]
    clean = replay_from_log(kind, row.capacity, row.target, row.seed, log, CHUNK)
    noisy = [*log[:5], (0, "watch on"), *log[5:], (0, "rematch accept"), (1, "draw")]
    assert replay_from_log(kind, row.capacity, row.target, row.seed, noisy, CHUNK) == clean
    assert clean["steps"] == steps


def test_a_match_still_being_played_has_no_replay_and_unknown_codes_are_404(
    live: LiveServer,
) -> None:
    ana = live.player("Ana")
    code = ana.create(game="rummy", seats=2, target=100, seed=3)["code"]  # waiting
    for path in (f"/api/replay/{code}", f"/api/replay/{code}/views"):
        r = ana.http.get(path)
        assert r.status_code == 409 and r.json()["error"]["code"] == "not_finished"
    practice = ana.create(game="tiles", seats=2, practice=True, difficulty="easy", seed=4)
    r = ana.http.get(f"/api/replay/{practice['code']}")  # active: under way
    assert r.status_code == 409 and r.json()["error"]["code"] == "not_finished"
    assert "still being played" in r.json()["error"]["message"]
    for unknown in ("ZZZZZ", "NOPE1", "A" * 40):
        r = ana.http.get(f"/api/replay/{unknown}")
        assert r.status_code == 404, r.text
        assert r.json()["error"] == {
            "code": "not_found",
            "message": "There is no game with that code.",
        }
    # The page is the static client's, whatever the code.
    r = ana.http.get(f"/g/{code}/replay")
    assert r.status_code == 200 and "text/html" in r.headers["content-type"]


def test_a_cancelled_game_never_started_and_bad_pages_are_refused(live: LiveServer) -> None:
    ana = live.player("Ana")
    code = ana.create(game="rummy", seats=2, target=100, seed=3)["code"]
    assert ana.http.post(f"/api/games/{code}/leave").status_code == 200  # cancelled
    r = ana.http.get(f"/api/replay/{code}")
    assert r.status_code == 409 and r.json()["error"]["code"] == "not_started"
    # A match left after it started is over too: it replays, every hand included.
    left = ana.create(game="rummy", seats=2, target=100, practice=True, difficulty="easy", seed=8)
    with ana.socket(left["code"]) as a:
        for _ in range(5):  # the bot's seat may move the view on first: act on the newest
            a.drain()
            a.until_view(lambda v: "deal" in (v.get("legal") or []))
            answer = a.act("deal")
            if answer["type"] == "ack":
                break
            assert answer.get("code") == "stale", answer
        else:
            raise AssertionError("the deal was never acknowledged")
    assert ana.http.post(f"/api/games/{left['code']}/leave").status_code == 200
    r = ana.http.get(f"/api/replay/{left['code']}")
    assert r.status_code == 200 and r.json()["status"] == "ended"
    assert {"seat": 0, "action": "deal"} in r.json()["steps"]
    done = _finish_practice(live, ana, "tiles")
    meta = ana.http.get(f"/api/replay/{done}").json()
    pages = (meta["count"] + CHUNK - 1) // CHUNK
    for bad in (str(pages), "-1", "x"):
        r = ana.http.get(f"/api/replay/{done}/views", params={"page": bad})
        assert r.status_code == 422, r.text
    # A client that takes no gzip gets plain JSON.
    r = ana.http.get(f"/api/replay/{done}/views", headers={"Accept-Encoding": "identity"})
    assert r.status_code == 200 and "content-encoding" not in r.headers
    assert len(r.json()) == min(CHUNK, meta["count"])


def test_a_thousand_requests_cost_one_replay_and_never_stall_the_loop(live: LiveServer) -> None:
    ana = live.player("Ana")
    code = _finish_practice(live, ana, "tiles")
    live.app.state.replays = Replays(live.service)  # nothing kept yet
    lags: list[float] = []
    stop = asyncio.Event()

    async def watch_loop() -> None:
        """How late the server's event loop wakes from a 10 ms sleep during the burst."""
        while not stop.is_set():
            t = time.perf_counter()
            await asyncio.sleep(0.01)
            lags.append(time.perf_counter() - t - 0.01)

    assert live.loop is not None
    watcher = asyncio.run_coroutine_threadsafe(watch_loop(), live.loop)

    async def burst() -> list[int]:
        limits = httpx.Limits(max_connections=8)
        async with httpx.AsyncClient(base_url=live.base, limits=limits, timeout=60) as client:
            client.cookies.update(ana.http.cookies)

            async def one(i: int) -> int:
                if i % 2:
                    r = await client.get(f"/api/replay/{code}")
                else:
                    r = await client.get(
                        f"/api/replay/{code}/views", params={"page": 0, "full": i % 4 == 0}
                    )
                return r.status_code

            return await asyncio.gather(*(one(i) for i in range(1000)))

    statuses = asyncio.run(burst())
    live.loop.call_soon_threadsafe(stop.set)
    watcher.result(10)
    assert statuses.count(200) == 1000
    assert live.app.state.replays.computed == 1  # the other 999 shared it or read it kept
    # The loop kept waking on time, give or take what 1000 requests (and this test's own
    # client, in the same process) cost it: a loose bound, as the machine may be busy.
    lags.sort()
    assert lags and lags[len(lags) // 2] < 0.25, (lags[len(lags) // 2], lags[-1])


def test_working_out_replays_is_rate_limited_per_address(live: LiveServer) -> None:
    ana = live.player("Ana")
    code = ana.create(game="rummy", seats=2, target=100, seed=3)["code"]
    codes = [r.status_code for r in (ana.http.get(f"/api/replay/{code}") for _ in range(31))]
    assert codes[:30] == [409] * 30  # each one looked at the store
    assert codes[30] == 429
    r = ana.http.get(f"/api/replay/{code}")
    assert r.json()["error"]["code"] == "too_many_replays" and int(r.headers["retry-after"]) >= 1


def test_a_match_finished_before_this_change_replays(tmp_path: Path) -> None:
    """Rows as a server before issue 33 wrote them (no watch_token, rematch, rematch_code or
    turn_clock): a match played there, then the server upgraded and asked for its replay."""
    with LiveServer(settings_for(tmp_path)) as live:
        ana = live.player("Ana")
        code = _finish_practice(live, ana, "rummy")
        _, public, full = _fetch(ana, code)
    db = sqlite3.connect(tmp_path / "gameshack.db")
    old = [c[1] for c in db.execute("pragma table_info(games)")]
    new = {"watch_token", "rematch", "rematch_code", "turn_clock"}
    assert new <= set(old)
    keep = ", ".join(c for c in old if c not in new)
    # The same match under another code, written with the old columns only.
    with db:
        db.execute(
            f"insert into games ({keep}) select {keep.replace('code', ':c', 1)} from games"
            " where code = :o",
            {"c": "OLD33", "o": code},
        )
        db.execute(
            "insert into seats select 'OLD33', seat, name, emoji, device, bot, memory,"
            " chat_read, joined_at from seats where code = ?",
            (code,),
        )
        db.execute(
            "insert into actions (code, v, seat, action, at)"
            " select 'OLD33', v, seat, action, at from actions where code = ?",
            (code,),
        )
    row = db.execute(
        "select watch_token, rematch, rematch_code, turn_clock, status from games"
        " where code = 'OLD33'"
    ).fetchone()
    assert row == (None, None, None, None, "finished")
    db.close()
    with LiveServer(settings_for(tmp_path)) as live:  # a restart: nothing kept in memory
        meta, old_public, old_full = _fetch(live.player("Bea"), "OLD33")
        assert meta["code"] == "OLD33" and meta["status"] == "finished"
        assert old_public == public and old_full == full


def test_probing_codes_through_replays_counts_as_failed_lookups(tmp_path: Path) -> None:
    with LiveServer(settings_for(tmp_path, lookups_per_minute=5)) as live:
        prober = live.player("Pat")
        found = [prober.http.get(f"/api/replay/QQQQ{c}").status_code for c in "ABCDE"]
        assert found == [404] * 5
        r = prober.http.get("/api/replay/QQQQF")
        assert r.status_code == 429 and r.json()["error"]["code"] == "too_many_lookups"
        # One limit with the lobby's lookups: probing here spends it there too.
        assert prober.http.get("/api/games/QQQQG").status_code == 429
