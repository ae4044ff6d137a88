"""Rummy: drawing by dragging a card from either pile into the hand, and the 💡 Hint after a
draw outlining in gold exactly the hand cards of the meld it suggests.

Two devices and a fixed seed, no bots: every move is known offline from the engine
(policy.rummy_drag_hint_deal), so the test knows which card is taken and what the hint says."""

from __future__ import annotations

import functools
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from .conftest import shot
from .helpers import create_game, dismiss_first_deal, drag, join_game, view, wait_view
from .policy import rummy_drag_hint_deal

pytestmark = pytest.mark.browser

GOLD = "rgb(245, 197, 66)"


@functools.cache
def deal() -> dict[str, Any]:
    for seed in range(1, 40):
        found = rummy_drag_hint_deal(seed)
        # A meld that is not the whole hand, so "exactly those cards" means something.
        if found and 3 <= len(found["highlight"]) <= len(found["hand"]) - 5:
            return found
    raise AssertionError("no seed in 1..39 gives a meld after the second player's draw")


def hand(page: Page) -> list[str]:
    return page.locator("#hand .card").evaluate_all("els => els.map(e => e.dataset.card)")


def test_drag_from_either_pile_into_the_hand_and_hint_highlights_a_meld(device) -> None:
    d = deal()
    a = device("phone", "Ana")
    b = device("desktop", "Ben")
    code = create_game(a, "rummy", "Ana", seed=d["seed"])
    join_game(b, code, "Ben")
    # Seat 0 draws for first deal before seat 1, as the offline replay does.
    a.click("#deal-deck")
    wait_view(b, "v.state.first_draw[0] !== null")
    b.click("#deal-deck")
    for p in (a, b):
        wait_view(p, "v.state.phase === 'playing'")
        dismiss_first_deal(p)
    pages = {view(a)["room"]["you"]: a, view(b)["room"]["you"]: b}
    s, o = pages[d["starter"]], pages[1 - d["starter"]]

    # The starter drags the discard pile's top card into the hand.
    wait_view(s, "v.state.stage === 'draw'")
    pile, stock = view(s)["state"]["discard"], view(s)["state"]["stock"]
    assert pile[-1] == d["take"]
    before = view(s)["v"]
    drag(s, s.locator(f"#discard-pile [data-card='{d['take']}']"), s.locator("#hand"))
    wait_view(s, f"v.v > {before} && v.state.stage === 'play'")
    st = view(s)["state"]
    assert d["take"] in st["hand"] and st["discard"] == pile[:-1]
    assert d["take"] in hand(s)
    expect(s.locator(f"#discard-pile [data-card='{d['take']}']")).to_have_count(0)
    assert st["stock"] == stock  # taken from the pile, not drawn
    shot(s, "rummy-after-drag-from-discard")
    s.click(f"#hand [data-card='{d['discard']}']", position={"x": 7, "y": 24})
    s.click("#discard-selected")
    wait_view(o, "v.state.stage === 'draw'")  # after the grace window

    # The other drags the draw pile into the hand: one card more, from the stock.
    stock = view(o)["state"]["stock"]
    held = set(view(o)["state"]["hand"])
    before = view(o)["v"]
    drag(o, o.locator("#draw-pile"), o.locator("#hand"))
    wait_view(o, f"v.v > {before} && v.state.stage === 'play'")
    st = view(o)["state"]
    assert st["stock"] == stock - 1 and len(st["hand"]) == len(held) + 1
    assert sorted(st["hand"]) == sorted(d["hand"])  # the same deal as the offline replay
    (new,) = set(st["hand"]) - held
    assert new in hand(o) and view(o)["state"]["discard"][-1] == d["discard"]

    # 💡 Hint: gold on exactly the cards of the suggested meld(s), orange on the discard.
    expect(o.locator("#hand .card.hint")).to_have_count(0)
    o.click("#hint")
    expect(o.locator("#hint-text")).not_to_be_empty()
    gold = o.locator("#hand .card.hint")
    expect(gold).to_have_count(len(d["highlight"]))
    assert sorted(gold.evaluate_all("els => els.map(e => e.dataset.card)")) == sorted(
        d["highlight"]
    )
    ring = gold.first.evaluate("e => getComputedStyle(e).boxShadow")
    assert ring.startswith(GOLD), ring
    plain = o.locator("#hand .card:not(.hint):not(.hint-discard)").first
    assert GOLD not in plain.evaluate("e => getComputedStyle(e).boxShadow")
    expect(o.locator("#hand .card.hint-discard")).to_have_attribute("data-card", d["hint_discard"])
    shot(o, "rummy-hint-after-draw")
