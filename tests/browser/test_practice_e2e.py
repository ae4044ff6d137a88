"""Practice mode: one device against a Hard bot, with the meld/lay-off/discard prompt on."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .conftest import shot
from .helpers import create_game, dismiss_first_deal, drag, view, wait_view
from .policy import choose
from .test_rummy_e2e import Driver

pytestmark = pytest.mark.browser


def test_practice_rummy_against_a_hard_bot_plays_several_turns(device) -> None:
    p = device("phone", "Ana")
    p.goto("/")
    p.evaluate(
        "() => localStorage.setItem('gameshack.settings', JSON.stringify({meldPrompt: true}))"
    )
    create_game(p, "rummy", "Ana", practice="hard")
    # Practice starts at once: no waiting room, straight to the first-deal draw.
    expect(p.locator("#deal-deck")).to_be_enabled()
    players = view(p)["room"]["players"]
    assert len(players) == 2 and players[1]["bot"] and players[1]["online"]
    p.click("#deal-deck")
    wait_view(p, "v.state.phase === 'playing'")
    dismiss_first_deal(p)
    me = view(p)["room"]["you"]
    driver = Driver(p, None, prompt=True)
    my_turns = 0
    hinted = False
    while my_turns < 4 and view(p)["state"]["phase"] == "playing":
        wait_view(
            p,
            f"v.state.phase !== 'playing' || (v.room.to_act[0] === {me} && (v.state.stage === 'draw' || v.state.stage === 'play'))",
            timeout=20_000,
        )
        if view(p)["state"]["phase"] != "playing":
            break
        if not hinted:
            # 💡 Hint answers for my seat only, with a sentence (and gold highlights).
            p.click("#hint")
            expect(p.locator("#hint-text")).not_to_be_empty()
            shot(p, "practice-hint")
            hinted = True
        while (action := choose(view(p)["state"])) is not None and not action.startswith("discard"):
            driver.play(action)
        if my_turns == 1:
            # Keyboard: a card can be selected with Enter and moved with Shift+Arrow.
            first = p.locator("#hand .card").first
            card = first.get_attribute("data-card")
            first.focus()
            p.keyboard.press("Shift+ArrowRight")
            # (waits for the hand to redraw: read at once, it was the old order now and then)
            expect(p.locator("#hand .card").nth(1)).to_have_attribute("data-card", card)
            # ...and by dragging it to the far end of the hand.
            drag(p, p.locator(f"#hand [data-card='{card}']"), p.locator("#hand .card").last)
            order = p.locator("#hand .card").evaluate_all("els => els.map(e => e.dataset.card)")
            assert order.index(card) >= len(order) - 2, order
        assert action is not None
        driver.play(action)
        my_turns += 1
        if my_turns == 1:
            shot(p, "practice-after-first-turn")
    assert my_turns >= 3 or view(p)["state"]["phase"] != "playing"
    # The bot has really played: its turns are in the public log.
    assert any(e["seat"] != me and e["kind"] == "discard" for e in view(p)["state"]["log"])
    shot(p, "practice-table")
