"""Leaving a game tears it down: every listener on window or document, interval, timer and
socket the game added is gone, and a settings change afterwards redraws no stale table.

The page is watched from outside the app: an init script wraps addEventListener, the timer
functions, WebSocket and createElement before any module runs, so the app needs no test hook."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from .helpers import dismiss_first_deal, view, wait_view

pytestmark = pytest.mark.browser

PROBE = r"""
(() => {
  const listeners = [];  // live {target, type, fn, capture} on window and document
  const intervals = new Set();
  const timeouts = new Map();  // id -> delay
  const sockets = [];
  const probe = { created: 0 };
  const owner = (t) => (t === window ? 'window' : t === document ? 'document' : null);
  const capture = (o) => (typeof o === 'boolean' ? o : !!(o && o.capture));
  const add = EventTarget.prototype.addEventListener;
  const remove = EventTarget.prototype.removeEventListener;
  EventTarget.prototype.addEventListener = function (type, fn, opts) {
    // Only the app's own (Playwright adds some of its own while it clicks); `once` listeners
    // remove themselves when they fire, and sound.js's are app-wide anyway.
    const mine = owner(this) && !(opts && opts.once) && /\/static\//.test(new Error().stack);
    if (mine) listeners.push({ target: owner(this), type, fn, capture: capture(opts) });
    return add.call(this, type, fn, opts);
  };
  EventTarget.prototype.removeEventListener = function (type, fn, opts) {
    const i = listeners.findIndex((l) => l.target === owner(this) && l.type === type && l.fn === fn && l.capture === capture(opts));
    if (i >= 0) listeners.splice(i, 1);
    return remove.call(this, type, fn, opts);
  };
  const [si, ci, st, ct] = [setInterval, clearInterval, setTimeout, clearTimeout];
  window.setInterval = (fn, ms, ...a) => { const id = si(fn, ms, ...a); intervals.add(id); return id; };
  window.clearInterval = (id) => { intervals.delete(id); ci(id); };
  window.setTimeout = (fn, ms = 0, ...a) => {
    const id = st((...x) => { timeouts.delete(id); if (typeof fn === 'function') fn(...x); }, ms, ...a);
    timeouts.set(id, ms);
    return id;
  };
  window.clearTimeout = (id) => { timeouts.delete(id); ct(id); };
  const WS = window.WebSocket;
  window.WebSocket = class extends WS { constructor(...a) { super(...a); sockets.push(this); } };
  const create = Document.prototype.createElement;
  Document.prototype.createElement = function (...a) { probe.created++; return create.apply(this, a); };
  probe.snapshot = () => ({
    listeners: listeners.map((l) => `${l.target}:${l.type}`).sort(),
    intervals: intervals.size,
    // Timers a player would notice: a toast, a countdown, an automatic step. Zero-delay ones
    // (a drag's click guard, the lobby's fetches) come and go on their own.
    timers: [...timeouts.values()].filter((ms) => ms >= 500).sort(),
    openSockets: sockets.filter((s) => s.readyState <= 1).length,
  });
  Object.defineProperty(window, '__probe', { value: probe });
})();
"""


def snapshot(page: Page) -> dict[str, Any]:
    return page.evaluate("() => window.__probe.snapshot()")


def open_lobby(page: Page, seed: int) -> dict[str, Any]:
    page.add_init_script(PROBE)
    page.goto(f"/?seed={seed}")
    expect(page.locator("#create-game")).to_be_enabled()
    page.wait_for_load_state("networkidle")
    return snapshot(page)


def start_practice(page: Page, game: str) -> None:
    """New Game from the lobby in this same document (a reload would reset the probe)."""
    page.fill("#lobby-name", "Ana")
    page.click(f"#new-game .seg[aria-label=Game] button[data-value={game}]")
    page.check("#practice")
    page.click("#create-game")
    page.wait_for_url("**/g/*")


def assert_torn_down(page: Page, lobby: dict[str, Any]) -> None:
    expect(page.locator("#create-game")).to_be_visible()
    expect(page.locator("#game")).to_have_count(0)
    # Whatever the game's last step scheduled has had time to run or be cancelled.
    page.wait_for_timeout(400)
    assert snapshot(page) == lobby
    # A settings change now reaches the lobby only: no stale table redraws itself.
    page.click("#btn-settings")
    created = page.evaluate(
        """() => {
          const before = window.__probe.created;
          document.querySelector('#set-meldPrompt').click();
          document.querySelector('#set-meldPrompt').click();
          return window.__probe.created - before;
        }"""
    )
    assert created == 0, f"a settings change after leaving built {created} elements"
    page.locator("dialog.settings-modal button[value=close]").click()


@pytest.mark.parametrize("moment", ["first-deal", "undo-window"])
def test_going_back_from_a_rummy_table_leaves_nothing_behind(device, moment: str) -> None:
    p = device("phone", "Ana")
    lobby = open_lobby(p, seed=11)
    for _ in range(10):
        start_practice(p, "rummy")
        p.click("#deal-deck")
        wait_view(p, "v.state.phase === 'playing'")
        state = view(p)["state"]
        if moment != "first-deal" or state["turn"] == state["seat"]:
            break
        # The bot won the first-deal draw (who draws first decides it) and, with no bot delay
        # here, moves at once, which takes the first-deal screen down: another game.
        p.go_back()
        expect(p.locator("#create-game")).to_be_visible()
    if moment == "first-deal":
        # The result screen moves on by itself after a few seconds: a live timer.
        expect(p.locator("#first-deal-continue")).to_be_visible()
        assert snapshot(p)["timers"], "the first-deal screen should be waiting to move on"
    else:
        dismiss_first_deal(p)
        expect(p.locator("#draw-pile")).to_be_enabled(timeout=20_000)
        p.click("#draw-pile")
        p.locator("#hand .card").first.click()
        p.click("#discard-selected")
        # My discard's Undo window: a countdown ticks on the Undo button.
        expect(p.locator("#undo.undo-grace")).to_be_visible()
        expect(p.locator("#undo .grace-left")).to_have_text(re.compile(r"\d+s"))
        assert snapshot(p)["intervals"] > lobby["intervals"]
    assert snapshot(p)["openSockets"] == 1
    p.go_back()
    assert_torn_down(p, lobby)


def test_leaving_a_tile_rummy_table_leaves_nothing_behind(device) -> None:
    p = device("desktop", "Ana")
    lobby = open_lobby(p, seed=5)
    start_practice(p, "tiles")
    expect(p.locator("#rack .tile")).to_have_count(14)
    p.locator("#rack .tile").first.click()
    expect(p.locator("#rack .tile.picked")).to_have_count(1)
    p.click("#btn-chat")
    expect(p.locator("#chat-panel")).to_be_visible()
    p.click("#leave-game")
    p.locator("dialog button[value=leave]").click()
    expect(p).to_have_url(re.compile(r"/$"))
    assert_torn_down(p, lobby)
