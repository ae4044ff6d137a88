"""The turn timer in Chromium: the New Game option, the countdown both devices see, and the
server's penalty when it runs out (a Tile Rummy turn: the tile moved goes back, the seat draws).

A 3-second turn is a test-only choice (the server accepts 1..600 with GAMESHACK_ALLOW_SEED,
which the browser suite's server runs with); the lobby offers off, 30 s, 1 min and 2 min."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from .axe import assert_accessible
from .conftest import shot
from .helpers import join_game, view, wait_view

pytestmark = pytest.mark.browser


def create_via_api(page: Page, body: dict) -> str:
    page.goto("/")
    made = page.evaluate(
        """async (body) => {
          const r = await fetch('/api/games', {method: 'POST', body: JSON.stringify(body),
            headers: {'Content-Type': 'application/json'}});
          return await r.json();
        }""",
        body,
    )
    assert made.get("url"), made
    page.goto(made["url"])
    return str(made["code"])


def test_new_game_offers_a_turn_timer(device) -> None:
    a = device("phone", "Ana")
    a.goto("/")
    a.fill("#lobby-name", "Ana")
    timer = a.locator("#new-game .seg[aria-label='Turn timer']")
    expect(timer.locator("button[data-value='null']")).to_have_attribute("aria-pressed", "true")
    timer.locator("button[data-value='60']").click()
    expect(timer.locator("button[data-value='60']")).to_have_attribute("aria-pressed", "true")
    timer.scroll_into_view_if_needed()
    assert_accessible(a, "turntimer-new-game")
    shot(a, "turntimer-new-game")
    a.click("#new-game .seg[aria-label=Game] button[data-value=tiles]")
    a.click("#create-game")
    a.wait_for_url("**/g/*")
    wait_view(a, "!!v.room")
    assert view(a)["room"]["clock"] == {"seconds": 60, "seat": None}
    # No countdown while nobody's turn runs (the waiting room).
    expect(a.locator("#turn-timer")).to_be_hidden()


def test_countdown_shown_to_both_and_the_penalty_when_it_runs_out(device) -> None:
    a = device("phone", "Ana")
    b = device("desktop", "Ben")
    code = create_via_api(
        a, {"game": "tiles", "seats": 2, "name": "Ana", "seed": 36, "turn_seconds": 4}
    )
    join_game(b, code, "Ben")
    expect(a.locator(".waiting .seat-list li")).to_have_count(2)
    a.click("#start-game")
    for p in (a, b):
        wait_view(p, "v.state && v.state.phase === 'playing'")
    turn = view(a)["state"]["turn"]
    me, other = (a, b) if view(a)["room"]["you"] == turn else (b, a)
    # Both see the same countdown, naming the seat to move; the mover's is marked as theirs.
    for p in (me, other):
        expect(p.locator("#turn-timer")).to_be_visible()
        expect(p.locator("#turn-timer")).to_have_attribute("data-seat", str(turn))
        expect(p.locator("#turn-timer .time")).to_have_text(re.compile(r"0:0\d"))
    expect(me.locator("#turn-timer .who")).to_have_text("You")
    expect(me.locator("#turn-timer")).to_have_class(re.compile(r"\bmine\b"))
    name = view(me)["room"]["players"][turn]["name"]
    expect(other.locator("#turn-timer .who")).to_have_text(name)
    # It counts down.
    first = me.locator("#turn-timer .time").inner_text()
    me.wait_for_function(
        "(t) => document.querySelector('#turn-timer .time').textContent !== t", arg=first
    )
    rack = len(view(me)["state"]["rack"])
    tile = view(me)["state"]["rack"][0]["tile"]
    me.click(f"[data-tile='{tile}']")
    me.click("#new-set")
    wait_view(me, "v.state.work && v.state.work.length === 1")
    me.wait_for_function("() => !document.querySelector('.board[data-motion=playing]')")
    assert_accessible(me, "turntimer-countdown")
    shot(me, "turntimer-countdown")
    # Time's up: the tile goes back to the rack, the seat draws, the turn passes.
    wait_view(me, f"v.state.turn !== {turn}", timeout=20_000)
    expect(me.locator("#toast")).to_contain_text("Time's up")
    assert len(view(me)["state"]["rack"]) == rack + 1
    assert view(me)["state"]["table"] == []
    for p in (me, other):
        expect(p.locator("#turn-timer")).to_have_attribute("data-seat", str(1 - turn))
    expect(other.locator("#turn-timer .who")).to_have_text("You")
    assert_accessible(other, "turntimer-next-turn")
    shot(other, "turntimer-next-turn")
    # The seat to move goes away: everyone sees its clock paused, and how long it is waited for.
    other.close()
    expect(me.locator("#turn-timer")).to_have_class(re.compile(r"\bpaused\b"))
    expect(me.locator("#turn-timer")).to_have_attribute("aria-label", re.compile("is offline"))
    assert_accessible(me, "turntimer-paused")
    shot(me, "turntimer-paused")
    # ...and once its allowance is spent, the penalty applies anyway: the turn comes back.
    wait_view(me, f"v.state.turn === {turn}", timeout=20_000)
    expect(me.locator("#turn-timer .who")).to_have_text("You")
