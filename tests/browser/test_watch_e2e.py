"""A spectator (issue 33) watches two devices play a Rummy hand: the host shares the watch link
from the game's 👁 control, a third browser context opens it and follows the table, the players
see the count, and when the host stops sharing the spectator is sent away."""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from .axe import assert_accessible
from .conftest import SHOTS
from .conftest import shot as suite_shot
from .helpers import create_game, dismiss_first_deal, join_game, view, wait_view
from .test_rummy_e2e import Driver, play_hand, useful_seed

pytestmark = pytest.mark.browser


def shot(page: Page, name: str) -> None:
    """The suite's phone and desktop shots, and one at 1280x800 (``<name>-laptop.png``); axe
    finds no serious or critical violation on the screen."""
    assert_accessible(page, name)
    suite_shot(page, name)
    original = page.viewport_size
    page.set_viewport_size({"width": 1280, "height": 800})
    page.wait_for_timeout(120)
    page.screenshot(path=str(SHOTS / f"{name}-laptop.png"))
    if original:
        page.set_viewport_size(original)


def watching(page: Page) -> dict[str, Any]:
    """The last `watching` frame this spectator's page was sent."""
    return page.evaluate("() => window.__gsWatch || null")  # type: ignore[no-any-return]


def test_a_spectator_watches_a_rummy_hand(device) -> None:
    seed = useful_seed()
    a = device("desktop", "Ana")
    b = device("phone", "Ben")
    w = device("phone", "Watcher")
    frames: list[str] = []  # every frame the spectator's socket received
    w.on("websocket", lambda ws: ws.on("framereceived", lambda f: frames.append(str(f))))
    code = create_game(a, "rummy", "Ana", seed=seed)
    join_game(b, code, "Ben")
    expect(a.locator("#btn-watchers")).to_have_text("👁 0")

    # The host's control: the game's watch link (on by default for a game between people).
    a.click("#btn-watchers")
    url = a.locator("#watch-url").input_value()
    assert "/w/" in url and code not in url
    shot(a, "watch-host-control")
    a.click("dialog.watch-modal button[value=close]")

    w.goto(url)
    expect(w.locator("#watch-banner")).to_contain_text("Watching Rummy")
    expect(w.locator("#watch-count")).to_have_text("1 spectator")
    expect(a.locator("#btn-watchers")).to_have_text("👁 1")
    expect(b.locator("#btn-watchers")).to_have_text("👁 1")
    expect(w.locator("#watch-seats .seat-box")).to_have_count(2)

    # A non-host sees the count only.
    b.click("#btn-watchers")
    expect(b.locator("#watchers-line")).to_have_text("1 spectator watching now.")
    expect(b.locator("#watch-url")).to_have_count(0)
    b.click("dialog button[value=close]")

    a.click("#deal-deck")
    b.click("#deal-deck")
    for p in (a, b):
        wait_view(p, "v.state.phase === 'playing'")
        dismiss_first_deal(p)
    w.wait_for_function("() => window.__gsWatch && window.__gsWatch.state.phase === 'playing'")
    expect(w.locator("#discard-pile .card")).to_have_count(len(view(a)["state"]["discard"]))
    shot(w, "watch-page-start")

    pages = {view(a)["room"]["you"]: a, view(b)["room"]["you"]: b}
    drivers = {s: Driver(p, pages[1 - s]) for s, p in pages.items()}
    play_hand(pages, drivers)
    for p in (a, b):
        wait_view(p, "v.state.phase === 'hand_over'")
    w.wait_for_function("() => window.__gsWatch && window.__gsWatch.state.phase === 'hand_over'")
    seen = watching(w)["state"]
    mine = view(a)["state"]
    # The spectator's table is the players' public table.
    assert seen["discard"] == mine["discard"]
    assert [m["cards"] for m in seen["melds"]] == [m["cards"] for m in mine["melds"]]
    assert seen["counts"] == mine["counts"] and seen["totals"] == mine["totals"]
    expect(w.locator("#melds .meld")).to_have_count(len(mine["melds"]))
    expect(w.locator("#watch-status")).to_contain_text("Hand over")
    expect(w.locator("#hand")).to_have_count(0)
    shot(w, "watch-page-hand-over")
    # Nothing the spectator was sent names a hand or a turn in progress.
    sent = [json.loads(f) for f in frames]
    views = [f for f in sent if f["type"] == "watching"]
    assert len(views) > 5
    for f in views:
        assert f["state"]["seat"] is None
        assert not {"hand", "hands", "pending", "legal"} & set(f["state"]), sorted(f["state"])
        assert code not in json.dumps(f)

    # The next hand starts (the result leaves the screen) and reaches the spectator too.
    b.click("#next-hand")
    wait_view(a, "v.state.phase === 'playing' && v.state.hand_no === 2")
    w.wait_for_function("() => window.__gsWatch.state.hand_no === 2")
    # The host stops sharing: the spectator is sent away, the players' count drops.
    a.click("#btn-watchers")
    a.click("#watch-off")
    expect(a.locator("#watch-on")).to_be_visible()
    expect(w.locator("#watch-closed")).to_contain_text("The host stopped sharing this game.")
    shot(w, "watch-closed")
    a.click("dialog.watch-modal button[value=close]")
    expect(a.locator("#btn-watchers")).to_have_text("👁 0")
    # The old link is dead.
    w.goto(url)
    expect(w.locator("#watch-closed")).to_contain_text("does not work")


def test_a_practice_games_link_is_off_until_the_host_shares_it(device) -> None:
    a = device("desktop", "Ana")
    w = device("phone", "Watcher")
    create_game(a, "tiles", "Ana", seats=3, seed=5, practice="easy")
    wait_view(a, "v.state && v.state.phase === 'playing'")
    a.click("#btn-watchers")
    expect(a.locator("#watch-on")).to_be_visible()  # off for a practice game
    shot(a, "watch-host-control-off")
    a.click("#watch-on")
    url = a.locator("#watch-url").input_value()
    a.click("dialog.watch-modal button[value=close]")
    w.goto(url)
    expect(w.locator("#watch-banner")).to_contain_text("Watching Tile Rummy")
    expect(w.locator("#watch-seats .seat-box")).to_have_count(3)
    expect(w.locator("#pool-size")).to_contain_text("Pool")
    expect(w.locator("#rack")).to_have_count(0)
    # The rack sizes the host's table shows (the bots may have moved: read both at rest).
    w.wait_for_function(
        "s => JSON.stringify(window.__gsWatch.state.rack_sizes) === s",
        arg=json.dumps(view(a)["state"]["rack_sizes"], separators=(",", ":")),
    )
    sizes = watching(w)["state"]["rack_sizes"]
    for seat, n in enumerate(sizes):
        expect(w.locator(f"#watch-seats .seat-box[data-seat='{seat}'] .count")).to_contain_text(
            f"{n} tiles"
        )
    expect(a.locator("#btn-watchers")).to_have_text("👁 1")
    shot(w, "watch-page-tiles")
