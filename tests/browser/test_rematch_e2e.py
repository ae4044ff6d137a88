"""A full rematch between two browser contexts (issue 33): Ana (a phone) and Ben (a desktop)
finish a two-seat Tile Rummy match to 1 point, Ana taps Rematch, Ben sees the offer and
accepts, and both pages land in their own seats of the new match.

The match itself is played over extra sockets of the same two devices (their cookies), with
moves worked out offline by a Hard bot for each seat (``plan``); the pages watch it end and
then do the whole rematch through the real UI."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect
from websockets.sync.client import ClientConnection, connect

from gameshack.server.app import COOKIE

from .axe import assert_accessible
from .conftest import PHONE
from .helpers import create_game, join_game, view, wait_view

pytestmark = pytest.mark.browser

OUT = Path("/work/shots/rematch")
SEED = 3  # offline: the match ends when seat 0 goes out in the first round, after 77 actions


def plan(seed: int) -> list[tuple[int, str]]:
    """Offline, a two-seat Tile Rummy match to 1 point with a Hard bot's play for each seat:
    the actions (seat, notation) in order, to the match's end. The engine is deterministic
    given the seed, so the server accepts exactly these."""
    import random

    from gameshack.bots import decide
    from gameshack.rules import tiles

    state = tiles.new_match(tiles.Config(seats=2, target=1), seed=seed)
    memory: dict[int, Any] = {0: None, 1: None}
    out: list[tuple[int, str]] = []
    for step in range(400):
        if state.phase.value == "match_over":
            return out
        if state.phase.value == "round_over":
            seat, action = 0, tiles.parse_action("next")
        else:
            seat = state.turn
            action, memory[seat] = decide(
                "tiles", "hard", tiles.view(state, seat), memory[seat], random.Random(step)
            )
            if isinstance(action, str):
                action = tiles.parse_action(action)
        state = tiles.apply(state, seat, action)
        out.append((seat, str(action)))
    raise AssertionError(f"seed {seed}: no match end in 400 actions")


def snap(page: Page, name: str) -> None:
    """The screen at phone (390x844) and desktop (1280x800) size, into the issue's folder; axe
    finds no serious or critical violation on it."""
    assert_accessible(page, name)
    OUT.mkdir(parents=True, exist_ok=True)
    original = page.viewport_size
    for label, size in (("phone", PHONE), ("desktop", {"width": 1280, "height": 800})):
        page.set_viewport_size(size)
        page.wait_for_timeout(120)
        page.screenshot(path=str(OUT / f"{name}-{label}.png"))
    if original:
        page.set_viewport_size(original)


class Seat:
    """One more socket of a page's device, acting on its latest view."""

    def __init__(self, sockets: contextlib.ExitStack, page: Page, base: str, code: str) -> None:
        token = next(c["value"] for c in page.context.cookies() if c["name"] == COOKIE)
        self.ws: ClientConnection = sockets.enter_context(
            connect(
                f"ws://{base.split('://', 1)[1]}/ws/{code}",
                additional_headers={"Cookie": f"{COOKIE}={token}", "Origin": base},
                open_timeout=10,
            )
        )
        self.view: dict[str, Any] | None = None
        self.n = 0

    def recv(self, timeout: float) -> dict[str, Any]:
        msg: dict[str, Any] = json.loads(self.ws.recv(timeout=timeout))
        if msg["type"] == "view":
            self.view = msg
        return msg

    def act(self, action: str) -> None:
        """Send ``action`` on the latest view until it is acknowledged: each time after the
        frames already sent to this socket are read (a view not read yet would make it
        ``stale``), and well within the server's message rate."""
        for _ in range(20):
            with contextlib.suppress(TimeoutError):
                while True:
                    self.recv(0.03)
            while self.view is None:
                self.recv(10)
            self.n += 1
            mid = f"s{self.n}"
            self.ws.send(
                json.dumps({"type": "act", "v": self.view["v"], "action": action, "id": mid})
            )
            while True:
                msg = self.recv(10)
                if msg.get("id") == mid:
                    break
            if msg["type"] == "ack":
                return
            assert msg["code"] == "stale", msg
        raise AssertionError(f"{action} never acknowledged")


def test_a_full_rematch_between_two_browsers(device: Any, base_url: str) -> None:
    p = device("phone", "Ana")
    q = device("desktop", "Ben")
    code = create_game(p, "tiles", "Ana", seats=2, seed=SEED, target=1)
    join_game(q, code, "Ben")
    p.click("#start-game")
    with contextlib.ExitStack() as sockets:  # closed before the pages are looked at
        seats = [Seat(sockets, p, base_url, code), Seat(sockets, q, base_url, code)]
        for seat, action in plan(SEED):
            seats[seat].act(action)

    # Game Over on both pages, with the offer to play again.
    for page in (p, q):
        wait_view(page, "v.room.status === 'finished'", timeout=15_000)
        expect(page.locator("#game-over")).to_be_visible()
        expect(page.locator("#rematch-accept")).to_have_text("Rematch")
    expect(p.locator("#rematch .rematch-line")).to_have_text("Play again with the same players?")
    snap(p, "rematch-offer")
    p.click("#rematch-accept")
    expect(p.locator("#rematch .rematch-line")).to_have_text("Waiting for Ben to accept…")
    # Ben is asked: Ana has accepted.
    expect(q.locator("#rematch .rematch-line")).to_have_text("Ana wants a rematch.")
    expect(q.locator("#rematch-accept")).to_have_text("Accept rematch")
    expect(q.locator("#rematch-decline")).to_be_visible()
    answers = q.locator("#rematch .rematch-seats li")
    expect(answers).to_have_count(2)
    expect(answers.nth(0)).to_have_attribute("data-answer", "accepted")
    expect(answers.nth(1)).to_have_attribute("data-answer", "waiting")
    snap(q, "rematch-asked")
    snap(p, "rematch-waiting")
    q.click("#rematch-accept")

    # Both pages move to the new match, each in its own seat.
    for page in (p, q):
        page.wait_for_function(
            f"() => location.pathname.startsWith('/g/') && location.pathname !== '/g/{code}'"
        )
    new = p.url.rsplit("/", 1)[1]
    assert q.url.rsplit("/", 1)[1] == new != code
    for page, seat in ((p, 0), (q, 1)):
        wait_view(page, f"v.room.code === '{new}' && v.room.status === 'active'", timeout=15_000)
        room = view(page)["room"]
        assert room["you"] == seat
        assert [(x["name"], x["bot"]) for x in room["players"]] == [
            ("Ana", False),
            ("Ben", False),
        ]
        assert room["target"] == 1 and room["game"] == "tiles"
