"""Replays in Chromium (issue 33): a match finished on a real server (over WebSocket), then
stepped through from the stats history and the game-over screen with the slider, the buttons
and ← →, with "Show every hand" off and on."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from gameshack.server.app import COOKIE
from server.wsclient import LiveServer, Player, drive, settings_for

from .axe import assert_accessible
from .conftest import PHONE, SHOTS

pytestmark = pytest.mark.browser


class Finished:
    def __init__(self, live: LiveServer, code: str, players: list[Player]) -> None:
        self.live, self.code, self.players = live, code, players


def _finish(live: LiveServer, kind: str) -> Finished:
    ana, ben = live.player("Ana", "🦊"), live.player("Ben", "🐻")
    if kind == "tiles":  # one-on-one between two people: it counts in the stats history
        code = ana.create(game="tiles", seats=2, target=1, seed=5)["code"]
        ben.join(code)
        with ana.socket(code) as a, ben.socket(code) as b:
            assert a.request(type="start")["type"] == "ack"
            a.wait(lambda m: m["type"] == "view" and m["room"]["status"] == "active")
            b.wait(lambda m: m["type"] == "view" and m["room"]["status"] == "active")
            drive(live, code, {0: a, 1: b}, lambda r: r.row.status == "finished", timeout=120)
        return Finished(live, code, [ana, ben])
    code = ana.create(game="rummy", seats=2, target=100, practice=True, difficulty="easy", seed=21)[
        "code"
    ]
    with ana.socket(code) as a:
        drive(live, code, {0: a}, lambda r: r.row.status == "finished", timeout=120)
    return Finished(live, code, [ana])


@pytest.fixture
def live(tmp_path: Path) -> Iterator[LiveServer]:
    with LiveServer(settings_for(tmp_path)) as server:
        yield server


@pytest.fixture
def context(browser: Browser, live: LiveServer) -> Iterator[tuple[BrowserContext, list[str]]]:
    ctx = browser.new_context(viewport=PHONE, base_url=live.base)
    errors: list[str] = []
    ctx.on("console", lambda m: m.type == "error" and errors.append(m.text))
    ctx.on("weberror", lambda e: errors.append(str(e.error)))
    yield ctx, errors
    ctx.close()
    assert errors == [], errors


def shot(page: Page, name: str) -> None:
    """The screen at phone (390x844) and desktop (1280x800) size, into the screenshots; axe
    finds no serious or critical violation on it."""
    assert_accessible(page, name)
    SHOTS.mkdir(parents=True, exist_ok=True)
    for label, size in (("phone", PHONE), ("desktop", {"width": 1280, "height": 800})):
        page.set_viewport_size(size)
        page.wait_for_timeout(150)
        page.screenshot(path=str(SHOTS / f"{name}-{label}.png"))
    page.set_viewport_size(PHONE)


def _views(page: Page, code: str, full: bool) -> list[dict[str, Any]]:
    meta = page.request.get(f"/api/replay/{code}").json()
    out: list[dict[str, Any]] = []
    for n in range((meta["count"] + meta["chunk"] - 1) // meta["chunk"]):
        r = page.request.get(f"/api/replay/{code}/views?page={n}&full={int(full)}")
        assert r.ok
        out.extend(r.json())
    return out


def _at(page: Page, step: int, full: bool = False) -> None:
    """Wait until the replay shows ``step`` (drawn, not only asked for)."""
    expect(page.locator("#replay")).to_have_attribute("data-step", str(step))
    expect(page.locator("#replay")).to_have_attribute("data-full", "true" if full else "false")


def _rack_faces(page: Page, seat: int) -> list[str]:
    return page.locator(f"[data-hand='{seat}'] .tile").evaluate_all(
        "els => els.map(e => e.dataset.face)"
    )


def test_step_a_tile_rummy_replay_from_the_stats_history(
    live: LiveServer, context: tuple[BrowserContext, list[str]]
) -> None:
    done = _finish(live, "tiles")
    ctx, _ = context
    p = ctx.new_page()
    p.goto("/")
    p.evaluate("() => localStorage.setItem('gameshack.settings', JSON.stringify({name: 'Ana'}))")
    # "Your Games": the match history links each match's replay.
    p.goto("/stats")
    link = p.locator("#stats-history .replay-link")
    expect(link).to_have_count(1)
    link.scroll_into_view_if_needed()
    shot(p, "replay-stats-history")
    link.click()
    expect(p).to_have_url(f"{live.base}/g/{done.code}/replay")
    _at(p, 0)
    public, full = _views(p, done.code, False), _views(p, done.code, True)
    last = len(public) - 1
    assert last > 5
    expect(p.locator("#replay-step")).to_contain_text(f"Step 0 of {last}")
    expect(p.locator("#replay-h")).to_contain_text("Tile Rummy")
    # ← → step one action at a time; Home and End jump.
    p.locator("#replay-h").click()
    for key, step in (("ArrowRight", 1), ("ArrowRight", 2), ("ArrowLeft", 1), ("End", last)):
        p.keyboard.press(key)
        _at(p, step)
    expect(p.locator("#replay-next")).to_be_disabled()
    p.keyboard.press("Home")
    _at(p, 0)
    expect(p.locator("#replay-prev")).to_be_disabled()
    # The slider: dragged (set) to a step, and stepped by its own arrow keys, once per press.
    slider = p.locator("#replay-slider")
    middle = last // 2
    slider.fill(str(middle))
    _at(p, middle)
    slider.focus()
    p.keyboard.press("ArrowRight")
    _at(p, middle + 1)
    p.keyboard.press("ArrowLeft")
    p.keyboard.press("ArrowLeft")
    _at(p, middle - 1)
    step = middle - 1
    expect(p.locator("#replay-step")).to_contain_text(f"Step {step} of {last}")
    # Public: no rack is shown, only sizes; the table is the step's committed table.
    assert p.locator(".rp-hand").count() == 0
    sizes = public[step]["rack_sizes"]
    expect(p.locator("[data-seat='0'] .rp-count")).to_have_text(f"{sizes[0]} tiles")
    table = [t for s in public[step]["table"] for t in s["faces"]]
    assert p.locator("#replay-board .tile").evaluate_all("e => e.map(x => x.dataset.face)") == table
    shot(p, "replay-tiles-public")
    # Show every hand: both racks, tile for tile as the server's full view of that step.
    p.locator("#replay-full").check()
    _at(p, step, full=True)
    for seat in (0, 1):
        assert _rack_faces(p, seat) == [t["face"] for t in full[step]["racks"][seat]]
    p.locator("#replay-h").click()
    p.keyboard.press("ArrowRight")
    _at(p, step + 1, full=True)
    for seat in (0, 1):
        assert _rack_faces(p, seat) == [t["face"] for t in full[step + 1]["racks"][seat]]
    shot(p, "replay-tiles-full")
    p.keyboard.press("End")
    _at(p, last, full=True)
    expect(p.locator("#replay-step")).to_contain_text("Match over")


def test_a_rummy_replay_from_the_game_over_screen(
    live: LiveServer, context: tuple[BrowserContext, list[str]]
) -> None:
    done = _finish(live, "rummy")
    ctx, _ = context
    # Ana's own device: her finished game's game-over panel offers its replay.
    ctx.add_cookies([{"name": COOKIE, "value": done.players[0].token, "url": live.base}])
    p = ctx.new_page()
    p.goto(f"/g/{done.code}")
    expect(p.locator("#game-over")).to_be_visible()
    shot(p, "replay-game-over-link")
    # Looking at the table instead, the toolbar offers it.
    p.locator("#view-table").click()
    expect(p.locator("#watch-replay")).to_be_visible()
    p.locator("#show-scores").click()
    p.locator("#game-over-replay").click()
    expect(p).to_have_url(f"{live.base}/g/{done.code}/replay")
    _at(p, 0)
    full = _views(p, done.code, True)
    p.locator("#replay-full").check()
    _at(p, 0, full=True)
    # From the first step with cards in hand (before it, the first-deal draw), five more.
    dealt = next(i for i, v in enumerate(full) if all(v["hands"]))
    p.locator("#replay-slider").fill(str(dealt))
    p.locator("#replay-h").click()
    for n in range(dealt, dealt + 6):
        if n > dealt:
            p.keyboard.press("ArrowRight")
        _at(p, n, full=True)
        for seat in (0, 1):
            cards = p.locator(f"[data-hand='{seat}'] .card").evaluate_all(
                "els => els.map(e => e.dataset.card)"
            )
            assert cards == full[n]["hands"][seat]
    shot(p, "replay-rummy-full")
    # Someone else's device, no seat: the finished game offers the replay too.
    other = ctx.browser.new_context(viewport=PHONE, base_url=live.base) if ctx.browser else None
    assert other is not None
    try:
        q = other.new_page()
        q.goto(f"/g/{done.code}")
        q.locator("#open-replay").click()
        expect(q.locator("#replay")).to_have_attribute("data-step", "0")
        # An unknown code: a clear message, no replay (its 404 is expected here: no watcher).
        q.goto("/g/ZZZZZ/replay")
        expect(q.locator("#replay .error-text")).to_have_text("There is no game with that code.")
        expect(q.locator("#replay-back")).to_be_visible()
    finally:
        other.close()


def test_a_match_someone_left_offers_its_replay_on_the_frozen_banner(
    live: LiveServer, context: tuple[BrowserContext, list[str]]
) -> None:
    ana = live.player("Ana", "🦊")
    code = ana.create(game="rummy", seats=2, target=100, practice=True, difficulty="easy")["code"]
    with ana.socket(code) as a:
        assert a.act("deal")["type"] == "ack"
    assert ana.http.post(f"/api/games/{code}/leave").status_code == 200
    ctx, _ = context
    ctx.add_cookies([{"name": COOKIE, "value": ana.token, "url": live.base}])
    p = ctx.new_page()
    p.goto(f"/g/{code}")
    expect(p.locator(".frozen-banner")).to_be_visible()
    p.locator("#frozen-replay").click()
    _at(p, 0)
    expect(p.locator("#replay-step")).to_contain_text("the deal · drawing for who starts")
    p.locator("#replay-h").click()
    p.keyboard.press("End")
    expect(p.locator("#replay-step")).to_contain_text("Ana taps the deck")
