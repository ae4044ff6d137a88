"""axe-core on every screen: lobby, New Game, waiting room, both tables, the Rules dialog (with
its keyboard shortcuts), Settings, Stats and Sign In. No serious or critical violation.

axe-core is vendored for the tests only (tests/browser/vendor/README.md) and injected with
``add_script_tag``; the site's Content-Security-Policy forbids inline scripts, so these pages
open in contexts that bypass it (the site's own scripts still load from 'self')."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from .axe import AXE, assert_accessible, axe_violations
from .conftest import DESKTOP, PHONE, shot
from .helpers import create_game, dismiss_first_deal, wait_view

pytestmark = pytest.mark.browser


@pytest.fixture
def a11y_device(browser: Browser, base_url: str) -> Iterator[Callable[[str], Page]]:
    """Like conftest's ``device`` (console errors fail the test) with ``bypass_csp`` so the
    vendored axe-core can be injected, and without the service worker: once it controls the
    page, the page's requests go through it, past ``page.route`` (which answers axe's URL)."""
    contexts, errors = [], []

    def open_device(kind: str = "desktop") -> Page:
        ctx = browser.new_context(
            viewport=PHONE if kind == "phone" else DESKTOP,
            base_url=base_url,
            bypass_csp=True,
            service_workers="block",
        )
        contexts.append(ctx)
        page = ctx.new_page()
        page.on("console", lambda m: m.type == "error" and errors.append(m.text))
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.set_default_timeout(10_000)
        return page

    yield open_device
    for ctx in contexts:
        ctx.close()
    assert errors == [], f"console errors: {errors}"


def test_vendored_file_is_axe_core() -> None:
    """The vendored file is axe-core itself, with its licence header."""
    head = AXE.read_text(encoding="utf-8")[:200]
    assert "axe v4." in head and "Mozilla Public" in head


def test_axe_reports_what_it_should(a11y_device) -> None:
    p = a11y_device("desktop")
    p.goto("/")
    expect(p.locator("#lobby-name")).to_be_visible()
    # A nameless button: the checker must see it (so a clean report means something).
    p.evaluate("() => document.getElementById('app').append(document.createElement('button'))")
    ids = {v["id"] for v in axe_violations(p)}
    assert "button-name" in ids


def test_lobby_new_game_settings_rules_stats_and_sign_in(a11y_device) -> None:
    p = a11y_device("desktop")
    p.goto("/")
    expect(p.locator("#lobby-name")).to_be_visible()
    assert_accessible(p, "lobby")
    # New Game with every option shown: Tile Rummy, practice, bot difficulty.
    p.fill("#lobby-name", "Ana")
    p.click("#new-game .seg[aria-label=Game] button[data-value=tiles]")
    p.check("#practice")
    expect(p.locator("#new-game .seg[aria-label='Bot difficulty']")).to_be_visible()
    assert_accessible(p, "new game")
    p.click("#btn-settings")
    expect(p.locator("dialog.settings-modal")).to_be_visible()
    assert_accessible(p, "settings")
    p.locator("dialog.settings-modal button[value=close]").click()
    p.click("#btn-rules")
    dlg = p.locator("dialog.rules-modal")
    expect(dlg.locator("#shortcuts")).to_contain_text("Keyboard shortcuts")
    assert_accessible(p, "rules (Rummy)")
    dlg.locator("button[value=other]").click()
    expect(p.locator("dialog.rules-modal #shortcuts")).to_contain_text("Confirm play")
    assert_accessible(p, "rules (Tile Rummy)")
    p.locator("dialog.rules-modal button[value=close]").click()
    p.goto("/stats")
    expect(p.locator("#stats-name")).to_be_visible()
    assert_accessible(p, "stats")
    p.goto("/signin")
    expect(p.locator("#signin-email")).to_be_visible()
    assert_accessible(p, "sign in")


def test_waiting_room_and_both_tables(a11y_device) -> None:
    p = a11y_device("phone")
    code = create_game(p, "tiles", "Ana", seats=3)
    expect(p.locator(".waiting .seat-list")).to_contain_text("Ana")
    assert_accessible(p, "waiting room")
    # Another device opening the link: the join prompt.
    j = a11y_device("desktop")
    j.goto(f"/g/{code}")
    expect(j.locator("#join-this")).to_be_visible()
    assert_accessible(j, "join prompt")

    r = a11y_device("desktop")
    create_game(r, "rummy", "Ana", practice="easy")
    expect(r.locator("#deal-deck")).to_be_enabled()
    assert_accessible(r, "Rummy first deal")
    r.click("#deal-deck")
    wait_view(r, "v.state.phase === 'playing'")
    dismiss_first_deal(r)
    assert_accessible(r, "Rummy table")
    # Cards selected, the move log open, the chat open: the table's other states.
    r.locator("#hand .card").first.focus()
    r.keyboard.press("Space")
    expect(r.locator("#hand .card.selected")).to_have_count(1)
    r.click("#btn-chat")
    expect(r.locator("#chat-panel")).to_be_visible()
    assert_accessible(r, "Rummy table, a card selected, chat open")
    r.click("#chat-panel button[aria-label='Close chat']")
    wait_view(r, "v.room.to_act[0] === v.room.you", timeout=20_000)
    r.click("#hint")
    expect(r.locator("#hint-text")).not_to_be_empty()
    assert_accessible(r, "Rummy table with a hint")

    t = a11y_device("phone")
    create_game(t, "tiles", "Ana", practice="easy")
    expect(t.locator("#rack .tile").first).to_be_visible()
    assert_accessible(t, "Tile Rummy table")
    wait_view(t, "v.state.turn === v.state.seat", timeout=20_000)
    t.locator("#rack .tile").first.focus()
    t.keyboard.press("Enter")
    expect(t.locator("#rack .tile.picked")).to_have_count(1)
    assert_accessible(t, "Tile Rummy table, a tile picked up")
    shot(t, "a11y-tile-picked")
    t.keyboard.press("n")  # to a new set: a set of one, invalid, with its reason under it
    expect(t.locator("#table-sets .tset.invalid")).to_have_count(1)
    assert_accessible(t, "Tile Rummy table, a turn in progress")
