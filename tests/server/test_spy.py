"""The spy: hundreds of bot games through the real server, every outbound frame inspected.

For every frame the server hands to a socket, the spy knows the true state at that instant
(the server's own) and checks that:

- a ``view`` carries exactly ``engine.view(state, seat).to_dict()`` — nothing else about the game;
- no card or tile in the frame is one the seat may not see (other hands/racks, the stock or pool,
  another seat's turn in progress).

The human seat of each practice game is played over a real WebSocket by a simple client that
also asks for hints and makes private moves it then resets, so those paths are spied on too.

A spectator (issue 33) watches every game over its own socket: each ``watching`` frame must be
exactly ``engine.public_view`` of the committed state, name no card or tile of any hand, rack
or turn in progress, and differ from the one before (a frame on an unchanged view would tell
a private turn by its timing).
"""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
from websockets.asyncio.client import connect

from gameshack.rules.rummy import cards as rcards
from gameshack.server.app import COOKIE
from gameshack.service.watch import WATCHER
from gameshack.store import MemoryStore
from server.wsclient import LiveServer, engine_of, settings_for

# 200 games of each kind took 155 s (Rummy) and 344 s (Tile Rummy) on 2 busy shared cores
# (issue 33; 20 games with and without a spectator on each: the same time within noise): the
# suite runs 100 of each, so 200 watched bot games (issue 33 asks for 200), the bench marker
# 200 of each (`pytest -m bench tests/server/test_spy.py`); SPY_GAMES=n sets the suite's number.
GAMES_PER_KIND = int(__import__("os").environ.get("SPY_GAMES", "100"))
BENCH_GAMES = 200
CONCURRENCY = 10
# Historical, public records: earlier hands' results, the first-deal draw and the public log
# name cards that may since have moved into a hand (e.g. a card taken from the discard pile).
HISTORY_KEYS = {"log", "history", "first_draw", "results", "start_draw", "result"}
TILE_KEYS = {"tile", "tiles", "movable", "returnable", "placed", "table"}  # "table": hints


def _rummy_visible(state: Any, seat: int) -> set[int]:
    if seat == WATCHER:  # a spectator: only what is on the table for everyone
        vis = set(state.pub_discard)
        for m in state.pub_melds:
            vis |= set(m.cards)
        return vis
    vis = set(state.hands[seat]) | set(state.pub_discard)
    for m in state.pub_melds:
        vis |= set(m.cards)
    if state.turn == seat:
        vis |= set(state.discard)
        for m in state.melds:
            vis |= set(m.cards)
        if state.pending is not None:
            vis.add(state.pending)
    return vis


def _tiles_visible(state: Any, seat: int) -> set[int]:
    if seat == WATCHER:
        return {t for s in state.table for t in s}
    vis = set(state.racks[seat])
    for s in state.table:
        vis |= set(s)
    if state.turn == seat and state.work is not None:
        for s in state.work:
            vis |= set(s)
    return vis


def _cards_in(obj: Any, out: list[int], skip: bool = False) -> None:
    """Every card named anywhere in a frame (outside the historical keys)."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k not in HISTORY_KEYS:
                _cards_in(v, out)
    elif isinstance(obj, list):
        for v in obj:
            _cards_in(v, out)
    elif isinstance(obj, str):
        for token in obj.replace(",", " ").split():
            card = rcards._PARSE.get(token.upper())
            if card is not None:
                out.append(card)


def _tiles_in(obj: Any, out: list[int], key: str | None = None) -> None:
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k not in HISTORY_KEYS:
                _tiles_in(v, out, k)
    elif isinstance(obj, list):
        for v in obj:
            _tiles_in(v, out, key)
    elif isinstance(obj, int) and not isinstance(obj, bool) and key in TILE_KEYS:
        out.append(obj)


class Spy:
    def __init__(self) -> None:
        self.frames = 0
        self.views = 0
        self.problems: list[str] = []
        self.watching = 0  # spectators' ``watching`` frames
        self.last_watching: dict[str, Any] = {}  # per game: the last one sent

    def __call__(self, room: Any, seat: int, frame: str) -> None:
        self.frames += 1
        msg = orjson.loads(frame)
        state = room.state
        kind = room.row.kind
        engine = engine_of(kind)
        if seat == WATCHER:
            self.spectator(room, msg)
        if state is None:
            assert msg.get("state") is None
            return
        if msg["type"] == "view" and seat != WATCHER:
            self.views += 1
            # Every 3rd view is recomputed independently (all of them would double the run time).
            # (Its log travels beside it: the events after the first ``log_from``.)
            if self.views % 3 == 0:
                view = engine.view(state, seat).to_dict()
                log = view.pop("log")
                if msg["state"] != view or msg["log"] != log[msg["log_from"] :]:
                    self.problems.append(
                        f"{room.row.code} v{msg['v']}: view is not the engine's view"
                    )
        if kind == "rummy":
            found: list[int] = []
            _cards_in(msg, found)
            leaked = set(found) - _rummy_visible(state, seat)
        else:
            found = []
            _tiles_in(msg, found)
            leaked = set(found) - _tiles_visible(state, seat)
        if leaked:
            self.problems.append(
                f"{room.row.code} seat {seat} {msg['type']}: leaked {sorted(leaked)}"
            )

    def spectator(self, room: Any, msg: dict[str, Any]) -> None:
        assert msg["type"] in ("watching", "chat", "chat_history", "watch_closed", "pong", "error")
        if msg["type"] != "watching":
            return
        self.watching += 1
        code = room.row.code
        engine = engine_of(room.row.kind).ENGINE
        public = None if room.state is None else engine.public_view(room.state)
        if msg["state"] != public:
            self.problems.append(f"{code} watching: not the engine's public view")
        if code in json.dumps(msg):
            self.problems.append(f"{code} watching: names the join code")
        # Sent only on a change: the same content twice in a row is a frame on a private step
        # (or on nothing). (A newcomer changes the count, so every spectator is sent anew.)
        if self.last_watching.get(code) == msg:
            self.problems.append(f"{code} watching: sent again unchanged")
        self.last_watching[code] = msg


def _human_move(kind: str, view: dict[str, Any], rng: random.Random) -> str | None:
    """A simple human: random legal play for Rummy; for Tile Rummy, fiddle privately then draw."""
    legal = [a for a in view["legal"] if a != "undo"]
    if not legal:
        return None
    if kind == "rummy":
        plays = [a for a in legal if a.startswith(("meld", "layoff"))]
        if plays and rng.random() < 0.7:
            return rng.choice(plays)
        if "deal" in legal or "next" in legal:
            return legal[0]
        takes = [a for a in legal if a.startswith(("draw", "take"))]
        if takes:
            return rng.choice(takes)
        return rng.choice([a for a in legal if a.startswith("discard")] or legal)
    state = view["state"]
    if "next" in legal:
        return "next"
    work = state["work"]
    placed = sum(sum(state_set["new"]) for state_set in work) if work else 0
    if placed < 2 and state["can"]["movable"] and rng.random() < 0.5:
        rack = [t["tile"] for t in state["rack"]]
        if rack:
            return f"move {rng.choice(rack)} new"
    if "confirm" in legal and placed:
        return "confirm"
    return "draw"


async def _play_one(live: LiveServer, kind: str, i: int) -> int:
    rng = random.Random(i)
    async with httpx.AsyncClient(base_url=live.base, timeout=30) as http:
        # Tile Rummy's solver-backed bots cost ~10 ms a move: two seats keep 200 rounds quick.
        seats = 2 + i % 3 if kind == "rummy" else 2
        difficulty = (
            ("easy", "medium", "hard")[i % 3]
            if kind == "rummy"
            else ("hard" if i % 8 == 0 else "easy")
        )
        body = {
            "game": kind,
            "seats": seats,
            "practice": True,
            "difficulty": difficulty,
            "name": "Spy",
            "seed": 1000 + i,
            "target": 100 if kind == "rummy" else 1,
        }
        r = await http.post("/api/games", json=body)
        assert r.status_code == 201, r.text
        code = r.json()["code"]
        token = http.cookies[COOKIE]
        # A spectator watches every game (practice games' links are off until the host asks).
        r = await http.post(f"/api/games/{code}/watch")
        assert r.status_code == 200 and r.json()["on"], r.text
        async with connect(
            f"ws://127.0.0.1:{live.port}/ws/watch/{r.json()['url'].removeprefix('/w/')}",
            additional_headers={"Origin": live.base},
            max_size=None,
        ) as watcher:
            seen: list[str] = []

            async def watch() -> None:
                async for frame in watcher:
                    seen.append(orjson.loads(frame)["type"])

            reader = asyncio.create_task(watch())
            try:
                moves = await _play_seat(live, kind, code, token, rng)
            finally:
                await asyncio.sleep(0.05)
                reader.cancel()
            assert "watching" in seen and "chat_history" in seen, seen
            return moves


async def _play_seat(live: LiveServer, kind: str, code: str, token: str, rng: random.Random) -> int:
    """Play seat 0 of the game over its socket to the end of a hand/round; its move count."""
    moves = 0
    async with connect(
        f"ws://127.0.0.1:{live.port}/ws/{code}",
        additional_headers={"Cookie": f"{COOKIE}={token}", "Origin": live.base},
        max_size=None,
    ) as ws:
        answered = True  # no action of ours is waiting for its ack/error
        latest: dict[str, Any] | None = None
        sent: list[float] = []  # when our last messages went out

        async def send(payload: dict[str, Any]) -> None:
            # Keep under the server's 20 messages a second (it drops the rest): against
            # bots that answer at once this client could outpace it, and a dropped action
            # would never be answered.
            loop = asyncio.get_running_loop()
            while len(sent) >= 18 and loop.time() - sent[-18] < 1.0:
                await asyncio.sleep(1.0 - (loop.time() - sent[-18]))
            sent.append(loop.time())
            await ws.send(json.dumps(payload))

        while True:
            msg = orjson.loads(await asyncio.wait_for(ws.recv(), 60))
            if msg["type"] in ("ack", "error"):
                if msg.get("id") == "a":
                    answered = True
                continue
            if msg["type"] != "view":
                continue
            latest = msg
            phase = (latest["state"] or {}).get("phase")
            if phase in ("hand_over", "match_over", "round_over"):
                return moves
            if not answered or 0 not in latest["room"]["to_act"]:
                continue
            # Tile Rummy hints run the solver (~0.1 s each): ask for fewer of them.
            if moves % (11 if kind == "rummy" else 40) == 3:
                await send({"type": "hint"})
            action = _human_move(kind, latest, rng)
            if action is not None:
                await send({"type": "act", "v": latest["v"], "action": action, "id": "a"})
                moves += 1
                answered = False
        raise AssertionError(f"{kind} game {code} did not finish a hand")


async def _play_many(live: LiveServer, kind: str, games: int) -> list[int]:
    sem = asyncio.Semaphore(CONCURRENCY)

    async def one(i: int) -> int:
        async with sem:
            return await _play_one(live, kind, i)

    return await asyncio.gather(*(one(i) for i in range(games)))


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["rummy", "tiles"])
def test_no_frame_carries_a_card_or_tile_its_seat_may_not_see(tmp_path: Path, kind: str) -> None:
    _spy_on(tmp_path, kind, GAMES_PER_KIND)


@pytest.mark.bench
@pytest.mark.parametrize("kind", ["rummy", "tiles"])
def test_the_spy_over_200_games_of_each_kind(tmp_path: Path, kind: str) -> None:
    _spy_on(tmp_path, kind, BENCH_GAMES)


def _spy_on(tmp_path: Path, kind: str, games: int) -> None:
    spy = Spy()
    # The in-memory store twin keeps this fast; the spy is about what leaves the server.
    # Every spectator comes from 127.0.0.1: no cap on spectators per address here.
    settings = settings_for(tmp_path, grace_seconds=0.0, watchers_per_address=0)
    with LiveServer(settings, MemoryStore()) as live:
        live.service.observer = spy
        moves = asyncio.run(_play_many(live, kind, games))
        assert live.service.bot_errors == 0
    assert spy.problems == [], spy.problems[:5]
    assert len(moves) == games and sum(moves) > games
    assert spy.views > 10 * games
    assert spy.watching > 3 * games  # the spectators were sent the games as they went
