"""\"Your turn\" while the tab is in the background, and the installable site.

A headless browser keeps every tab visible, so a test sends a tab to the background as the
browser would tell it: `document.visibilityState` becomes "hidden" and `visibilitychange`
fires. The notification permission comes from the browser context (Playwright grants it, or
not: then Chromium answers "denied"); the test counts the page's calls to ask for it."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from .axe import assert_accessible
from .conftest import PHONE, shot
from .helpers import create_game, join_game, view, wait_view

pytestmark = pytest.mark.browser

# Counts the page's asks for permission and the tones it synthesizes (web/sound.js), before
# any module runs.
WATCH = """(() => {
  window.__asks = 0;
  window.__tones = 0;
  const ask = Notification.requestPermission.bind(Notification);
  Notification.requestPermission = (...a) => { window.__asks += 1; return ask(...a); };
  const tone = AudioContext.prototype.createOscillator;
  AudioContext.prototype.createOscillator = function (...a) { window.__tones += 1; return tone.apply(this, a); };
})();"""

VISIBILITY = """(hidden) => {
  Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => (hidden ? 'hidden' : 'visible') });
  Object.defineProperty(document, 'hidden', { configurable: true, get: () => hidden });
  document.dispatchEvent(new Event('visibilitychange'));
}"""
ICON = "() => document.querySelector('link[rel~=icon]').href"


def watched(page: Page) -> Page:
    page.add_init_script(WATCH)
    return page


def set_hidden(page: Page, hidden: bool) -> None:
    page.evaluate(VISIBILITY, hidden)


def start_tiles(a: Page, b: Page) -> str:
    code = create_game(a, "tiles", "Ana")
    join_game(b, code, "Ben")
    expect(a.locator(".waiting .seat-list li")).to_have_count(2)
    a.click("#start-game")
    for p in (a, b):
        wait_view(p, "v.state && v.state.phase === 'playing'")
    return code


def on_turn(page: Page) -> bool:
    v = view(page)
    return bool(v["state"]["turn"] == v["state"]["seat"])


def pass_turn(page: Page, other: Page) -> None:
    """Draw a tile (a Tile Rummy turn that ends at once); the other seat is then on turn."""
    page.click("#draw")
    wait_view(other, "v.state.turn === v.state.seat")


def notifications(page: Page, title: str = "Your turn") -> list[dict[str, str]]:
    """The notifications the page's service worker shows, once one has this title."""
    shown: list[dict[str, str]] = []
    for _ in range(200):
        shown = page.evaluate(
            """async () => (await (await navigator.serviceWorker.ready).getNotifications())
                 .map((n) => ({ title: n.title, body: n.body, tag: n.tag, path: n.data.path }))"""
        )
        if any(n["title"] == title for n in shown):
            break
        page.wait_for_timeout(100)
    return shown


def open_settings(page: Page):
    page.click("#btn-settings")
    dlg = page.locator("dialog.settings-modal")
    expect(dlg).to_be_visible()
    return dlg


def test_turn_and_chat_badge_the_hidden_tab_until_it_comes_back(device) -> None:
    a = device("desktop", "Ana")
    b = watched(device("phone", "Ben"))
    code = start_tiles(a, b)
    if on_turn(b):
        pass_turn(b, a)
    plain_icon = b.evaluate(ICON)
    assert re.search(r"/static/[0-9a-f]{12}/icons/icon\.svg$", plain_icon), plain_icon
    title = f"Tile Rummy · {code} · GameShack"
    expect(b).to_have_title(title)
    tones = b.evaluate("window.__tones")

    # Ben's tab goes to the background; Ana draws, so it becomes Ben's turn.
    set_hidden(b, True)
    pass_turn(a, b)
    expect(b).to_have_title(f"(1) ● {title}")
    b.wait_for_function(f"() => ({ICON})().startsWith('data:image/png')")
    # The chime played although the tab is hidden ("Play a sound" is on by default).
    b.wait_for_function(f"() => window.__tones > {tones}")
    # A chat message while hidden counts too.
    a.click("#btn-chat")
    a.fill("#chat-input", "your go")
    a.press("#chat-input", "Enter")
    expect(b).to_have_title(f"(2) ● {title}")
    expect(b.locator("#btn-chat .badge")).to_have_text("1")
    assert b.evaluate("window.__asks") == 0  # notifications are off: never asked

    # Back in front: the count and the dot go; the turn marker stays.
    set_hidden(b, False)
    expect(b).to_have_title(f"● {title}")
    assert b.evaluate(ICON) == plain_icon
    # The one on turn looking at the page gets no count; Ana's own message is no alert.
    a.fill("#chat-input", "take your time")
    a.press("#chat-input", "Enter")
    expect(b.locator("#btn-chat .badge")).to_have_text("2")
    expect(b).to_have_title(f"● {title}")

    # Ben plays; Ana's hidden tab counts Ben's message, not her own draw or a turn not hers.
    set_hidden(a, True)
    b.click("#btn-chat")
    b.fill("#chat-input", "thanks")
    b.press("#chat-input", "Enter")
    expect(a).to_have_title(f"(1) {title}")
    b.click("#chat-panel button[aria-label='Close chat']")
    pass_turn(b, a)
    expect(a).to_have_title(f"(2) ● {title}")
    set_hidden(a, False)
    expect(a).to_have_title(f"● {title}")

    # A hidden badge, on screen for the record.
    set_hidden(b, True)
    pass_turn(a, b)
    expect(b).to_have_title(f"(1) ● {title}")
    b.evaluate(
        """() => { const t = document.createElement('div'); t.id = 'shot-title';
          t.textContent = 'Tab title: ' + document.title;
          t.style.cssText = 'position:fixed;left:8px;right:8px;bottom:8px;z-index:99;padding:8px;background:#111;color:#fff;font:14px system-ui;border-radius:6px';
          const img = document.createElement('img'); img.alt = 'Tab icon'; img.src = document.querySelector('link[rel~=icon]').href;
          img.style.cssText = 'width:24px;height:24px;vertical-align:middle;margin-right:8px'; t.prepend(img);
          document.body.append(t); }"""
    )
    assert_accessible(b, "alerts-title-badge")
    shot(b, "alerts-title-badge")
    b.evaluate("() => document.getElementById('shot-title').remove()")


def test_sound_and_notification_settings_persist_and_ask_only_when_turned_on(
    device,
) -> None:
    # This device allows notifications; Ben's (below) does not.
    a = watched(device("desktop", "Ana"))
    a.context.grant_permissions(["notifications"])
    said: list[str] = []  # the page's console, to tell why a notification did not show
    a.on("console", lambda m: said.append(f"{m.type}: {m.text}"))
    b = watched(device("phone", "Ben"))
    code = start_tiles(a, b)
    if not on_turn(a):
        pass_turn(b, a)
    assert a.evaluate("window.__asks") == 0 and b.evaluate("window.__asks") == 0
    dlg = open_settings(a)
    expect(dlg.locator("#set-alertSound")).to_be_checked()
    expect(dlg.locator("#set-notify")).not_to_be_checked()
    dlg.locator("#set-alertSound").uncheck()
    dlg.locator("#set-notify").check()
    # This browser allows notifications already (the context's grant): nothing to ask.
    expect(dlg.locator("#set-notify")).to_be_checked()
    a.wait_for_function("() => JSON.parse(localStorage.getItem('gameshack.settings')).notify")
    a.set_viewport_size(PHONE)  # the new options are below the fold there: show them
    a.evaluate("() => document.getElementById('set-notify').scrollIntoView({ block: 'center' })")
    assert_accessible(a, "alerts-settings")
    shot(a, "alerts-settings")
    dlg.locator("button[value=close]").click()
    a.reload()
    wait_view(a, "v.state && v.state.phase === 'playing'")
    dlg = open_settings(a)
    expect(dlg.locator("#set-alertSound")).not_to_be_checked()
    expect(dlg.locator("#set-notify")).to_be_checked()
    dlg.locator("button[value=close]").click()

    # Ana's tab in the background, Ben plays: a system notification, through the service
    # worker, and no chime (she turned the sound off).
    a.evaluate("() => navigator.serviceWorker.ready.then(() => true)")
    tones = a.evaluate("window.__tones")
    pass_turn(a, b)
    set_hidden(a, True)
    pass_turn(b, a)
    expect(a).to_have_title(re.compile(r"^\(1\) ● Tile Rummy"))
    shown = notifications(a)
    assert {
        "title": "Your turn",
        "body": f"Tile Rummy · {code}",
        "tag": "gameshack-turn",
        "path": f"/g/{code}",
    } in shown, said
    assert a.evaluate("window.__tones") == tones
    set_hidden(a, False)
    assert a.evaluate("window.__asks") == 0

    # Ben's browser has not been asked: turning notifications on asks (Chromium headless then
    # refuses, as a player tapping "Block" would), and they stay off.
    assert b.evaluate("Notification.permission") == "default"
    assert b.evaluate("window.__asks") == 0
    dlg = open_settings(b)
    expect(dlg.locator("#set-alertSound")).to_be_checked()  # Ana's choices are her device's
    dlg.locator("#set-notify").check()
    b.wait_for_function("() => window.__asks === 1")
    expect(dlg.locator("#set-notify")).not_to_be_checked()
    expect(dlg.locator("#notify-note")).to_contain_text("blocked")
    assert b.evaluate("JSON.parse(localStorage.getItem('gameshack.settings')).notify") is False


def test_service_worker_caches_this_versions_static_files_only(device) -> None:
    p = device("desktop", "Ana")
    code = create_game(p, "rummy", "Ana")  # the waiting room
    expect(p.locator("#share-code")).to_have_text(code)
    scope = p.evaluate("() => navigator.serviceWorker.ready.then((r) => r.scope)")
    assert scope == p.url.split("/g/")[0] + "/"
    # Controlled from the next visit (the worker claims open pages too).
    p.reload()
    expect(p.locator("#share-code")).to_have_text(code)
    p.wait_for_function("() => !!navigator.serviceWorker.controller")
    answers = []
    p.on("response", lambda r: answers.append(r))
    p.reload()
    expect(p.locator("#share-code")).to_have_text(code)
    # Lazy modules load under the worker too: the rules dialog.
    p.click("#btn-rules")
    expect(p.locator("dialog.rules-modal")).to_be_visible()
    p.locator("dialog.rules-modal button[value=close]").click()
    api = p.evaluate(
        """async () => { const r = await fetch('/api/games/' + location.pathname.split('/')[2]);
                         return r.status; }"""
    )
    assert api == 200
    version = p.evaluate(ICON).split("/")[4]
    cached = p.evaluate(
        """async () => { const out = {};
          for (const name of await caches.keys()) {
            out[name] = (await (await caches.open(name)).keys()).map((r) => new URL(r.url).pathname);
          }
          return out; }"""
    )
    assert list(cached) == [f"gameshack-{version}"]
    paths = cached[f"gameshack-{version}"]
    assert "/static/" + version + "/app.js" in paths
    assert "/static/" + version + "/rules.js" in paths
    # This version's static files and the page, nothing else: no API answer, no other version.
    assert all(u == "/" or u.startswith(f"/static/{version}/") for u in paths), paths
    # The worker answered static files and the page; every /api/ answer came from the server.
    seen = [(r.url, r.from_service_worker) for r in answers]
    assert any(w for u, w in seen if f"/static/{version}/" in u), seen
    api_answers = [(u, w) for u, w in seen if "/api/" in u]
    assert api_answers and not any(w for _, w in api_answers), api_answers
    # A socket is never a fetch the worker sees; the game is live through it.
    wait_view(p, "v.room.code === " + repr(code))


def test_offline_the_page_starts_from_the_worker_but_game_state_does_not(device) -> None:
    p = device("desktop", "Ana")
    code = create_game(p, "rummy", "Ana")
    base = p.url.split("/g/")[0]
    # Its own context: offline, the failed API calls are console errors by design.
    ctx = p.context.browser.new_context(base_url=base)
    try:
        page = ctx.new_page()
        page.goto(f"/g/{code}")
        expect(page.locator("#join-this")).to_be_visible()
        page.evaluate("() => navigator.serviceWorker.ready.then(() => true)")
        page.reload()  # under the worker now: the page and the modules go into its cache
        page.wait_for_function("() => !!navigator.serviceWorker.controller")
        expect(page.locator("#join-this")).to_be_visible()
        ctx.set_offline(True)
        page.reload()
        # The page and its modules from the worker's cache; the game itself from nowhere.
        expect(page.locator("#site-menu")).to_be_visible()
        expect(page.locator(".center-card h2")).to_have_text("Can't open this game")
        expect(page.locator("#join-this")).to_have_count(0)
        assert page.evaluate(
            "() => fetch('/api/games').then(() => 'answered', () => 'failed')"
        ) == ("failed")
        ctx.set_offline(False)
        page.reload()
        expect(page.locator("#join-this")).to_be_visible()
    finally:
        ctx.close()
