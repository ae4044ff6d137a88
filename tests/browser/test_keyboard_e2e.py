"""Playing from the keyboard alone: a practice hand of Rummy against a bot to its end, and a
Tile Rummy turn (pick up, new set, place in a gap, return, reset, confirm, sort, hint). After
the page is open, every action goes through ``page.keyboard``: no clicks, no ``focus()``; the
page is only read (the view, which element has focus) to decide the next key."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from .conftest import shot
from .helpers import create_game, view, wait_view
from .policy import choose
from .test_a11y_e2e import a11y_device, assert_accessible  # noqa: F401 (a fixture)

pytestmark = pytest.mark.browser

RUMMY_SEED = 54  # a deal where the simple policy melds early and a hand ends in a few turns
TILES_SEED = 13  # seat 0 starts, with two rack-only sets worth 30 or more (policy.initial_meld)

FOCUSED = "() => { const a = document.activeElement; return a ? {id: a.id, card: a.dataset.card ?? null, tile: a.dataset.tile ?? null, meld: a.dataset.meld ?? null, set: a.dataset.set ?? null, pos: a.dataset.pos ?? null, cls: a.className} : null; }"


def focused(page: Page) -> dict:
    return page.evaluate(FOCUSED)


def key(page: Page, k: str) -> None:
    page.keyboard.press(k)


def arrow_to(page: Page, row: str, attr: str, value: str) -> None:
    """Move focus with ← → within ``row`` (a CSS selector list of its controls) to the control
    whose ``data-<attr>`` is ``value``."""
    for _ in range(60):
        items = page.locator(row).evaluate_all(
            f"els => els.filter(e => !e.disabled).map(e => e.dataset.{attr})"
        )
        now = focused(page)
        at = now.get(attr) if now else None
        if at == value:
            return
        assert value in items, f"{value} not in {row}: {items}"
        if at not in items:
            raise AssertionError(f"focus is not in {row}: {now}")
        key(page, "ArrowRight" if items.index(value) > items.index(at) else "ArrowLeft")
        page.wait_for_timeout(20)
    raise AssertionError(f"could not reach {value} in {row}")


# ---- Rummy ----

SORTED_HAND = """() => {
  const rank = (c) => ({A: 1, J: 11, Q: 12, K: 13})[c.slice(0, -1)] || Number(c.slice(0, -1));
  const key = (c) => 'SHCD'.indexOf(c.slice(-1)) * 20 + rank(c);
  const cards = [...document.querySelectorAll('#hand .card')].map((e) => e.dataset.card);
  return cards.length > 0 && cards.every((c, i) => i === 0 || key(cards[i - 1]) <= key(c));
}"""
SORTED_RACK = """(by) => {
  const num = (f) => (f === 'JK' ? 99 : Number(f.slice(1)));
  const col = (f) => (f === 'JK' ? 9 : 'RBYK'.indexOf(f[0]));
  const key = by === 'colour' ? (f) => col(f) * 100 + num(f) : (f) => num(f) * 10 + col(f);
  const faces = [...document.querySelectorAll('#rack .tile')].map((e) => e.dataset.face);
  return faces.length > 0 && faces.every((f, i) => i === 0 || key(faces[i - 1]) <= key(f));
}"""


def select_cards(page: Page, cards: list[str]) -> None:
    if page.locator("#hand .card.selected").count():
        key(page, "Escape")
        expect(page.locator("#hand .card.selected")).to_have_count(0)
    key(page, "y")
    for c in cards:
        arrow_to(page, "#hand button.card", "card", c)
        key(page, "Space")
        expect(page.locator(f"#hand [data-card='{c}']")).to_have_attribute("aria-pressed", "true")


def play_rummy(page: Page, action: str, used: set[str]) -> None:
    verb, *args = action.split()
    before = view(page)["v"]
    if verb == "draw":
        key(page, "d")
    elif verb == "take":
        if args[0] != view(page)["state"]["discard"][-1]:
            used.add("take below the top")
        key(page, "t")
        arrow_to(page, "#discard-pile button.card", "card", args[0])
        key(page, "Enter")
    elif verb == "meld":
        select_cards(page, args)
        key(page, "m")
    elif verb == "layoff":
        select_cards(page, args[:-1])
        key(page, "l")
        arrow_to(page, "#melds .meld", "meld", args[-1])
        key(page, "Enter")
    elif verb == "discard":
        select_cards(page, args)
        key(page, "x")
    else:
        raise AssertionError(action)
    used.add(verb)
    wait_view(page, f"v.v > {before}", timeout=15_000)


def test_rummy_hand_from_the_keyboard_only(a11y_device) -> None:  # noqa: F811
    p = a11y_device("desktop")  # as `device`, and axe-core can be injected (for the hand's end)
    create_game(p, "rummy", "Ana", seed=RUMMY_SEED, practice="easy")
    expect(p.locator("#deal-deck")).to_be_enabled()
    # The bot draws its card at once; an action sent while that view is on its way is refused
    # as stale (the protocol's rule, for a tap too), so press once the table is still.
    wait_view(p, "v.state.first_draw.filter(Boolean).length === v.state.first_draw.length - 1")
    # From here on: keys only.
    key(p, "d")  # draw for the first deal
    try:
        wait_view(p, "v.state.phase === 'playing'")
    except Exception as e:
        diag = p.evaluate(
            """() => ({active: document.activeElement && document.activeElement.outerHTML.slice(0, 120),
              keys: performance.getEntriesByType('resource').filter((r) => r.name.includes('keys.js')).length,
              deck: document.getElementById('deal-deck') && document.getElementById('deal-deck').outerHTML.slice(0, 200),
              toast: document.getElementById('toast').textContent, v: window.__gsView && window.__gsView.v,
              state: window.__gsView && [window.__gsView.state.phase, window.__gsView.state.first_draw, window.__gsView.legal]})"""
        )
        raise AssertionError(f"first-deal draw by key failed: {diag}") from e
    # "Play" leaves the first-deal result for the table (Enter with no control focused), if it
    # is still up: it goes by itself once the starter has moved.
    if p.locator("#first-deal-continue").count():
        key(p, "Enter")
    me = view(p)["room"]["you"]
    # Record what the live region says (read only), to check it at the end.
    p.evaluate(
        """() => { window.__said = []; const a = document.getElementById('announcer');
        new MutationObserver(() => window.__said.push(a.textContent.trim()))
          .observe(a, {childList: true, characterData: true, subtree: true}); }"""
    )
    used: set[str] = set()
    sorted_once = hinted = undone = False
    for _turn in range(40):
        wait_view(
            p,
            f"v.state.phase !== 'playing' || (v.room.to_act[0] === {me} && v.state.stage === 'draw')",
            timeout=30_000,
        )
        if view(p)["state"]["phase"] != "playing":
            break
        expect(p.locator("#hand")).to_be_visible()  # the first-deal result has gone (or Enter)
        if not hinted:
            key(p, "h")
            expect(p.locator("#hint-text")).not_to_be_empty()
            hinted = True
        if not sorted_once:
            key(p, "s")  # by suit (spades, hearts, clubs, diamonds), then rank, ace low
            p.wait_for_function(SORTED_HAND)
            sorted_once = True
        while (action := choose(view(p)["state"])) is not None:
            if action.startswith("discard") and not undone and "meld" in used:
                # Undo the pending discard with U, then discard again.
                play_rummy(p, action, used)
                if view(p)["state"]["stage"] == "pending":
                    key(p, "u")
                    wait_view(p, "v.state.stage === 'play'")
                    undone = True
                    continue
                break
            if action.startswith("meld") and "meld" not in used:
                select_cards(p, action.split()[1:])
                shot(p, "a11y-focus-card")  # focus on the last card selected
                before = view(p)["v"]
                key(p, "m")
                wait_view(p, f"v.v > {before}", timeout=15_000)
                # The focused card has left the hand: focus stays in the hand, not on the page.
                p.wait_for_function(
                    "() => !!document.activeElement && !!document.activeElement.closest('#hand')"
                )
                used.add("meld")
                continue
            play_rummy(p, action, used)
            if action.startswith("discard"):
                break
    wait_view(p, "v.state.phase === 'hand_over' || v.state.phase === 'match_over'", timeout=30_000)
    assert {"draw", "take", "take below the top", "meld", "layoff", "discard"} <= used, used
    assert undone, "the discard was never undone from the keyboard"
    said = p.evaluate("() => window.__said")
    assert any(x.endswith("Your turn") for x in said), said
    # Moves by the bot, cards by name: "Sasha discarded 5 of diamonds".
    bot = view(p)["room"]["players"][1 - me]["name"]
    assert any(re.search(rf"{bot} \w.* of (hearts|spades|diamonds|clubs)", x) for x in said), said
    # The hand's end panel takes focus; Enter starts the next hand.
    expect(p.locator("#hand-over, #game-over")).to_be_visible()
    shot(p, "a11y-hand-over")
    assert_accessible(p, "Rummy hand over")
    if view(p)["state"]["phase"] == "hand_over":
        key(p, "Enter")
        wait_view(p, "v.state.phase === 'playing' && v.state.hand_no === 2", timeout=15_000)


# ---- Tile Rummy ----


def place_from_rack(page: Page, tile: int, where: str) -> None:
    """Pick ``tile`` up from the rack (Y, arrows, Enter) and put it in a new set (N) or at the
    end of the last set (G, arrows to the last gap, Enter)."""
    before = view(page)["v"]
    key(page, "y")
    arrow_to(page, "#rack button.tile", "tile", str(tile))
    key(page, "Enter")
    expect(page.locator(f"#rack [data-tile='{tile}']")).to_have_attribute("aria-pressed", "true")
    if where == "new":
        key(page, "n")
    else:
        key(page, "g")
        sets = view(page)["state"]["work"] or view(page)["state"]["table"]
        last = len(sets) - 1
        gaps = page.locator("#table-sets .gap").evaluate_all(
            "els => els.map(e => e.dataset.set + ':' + e.dataset.pos)"
        )
        target = f"{last}:{len(sets[last]['tiles'])}"
        assert target in gaps
        for _ in range(80):
            f = focused(page)
            if f and f["set"] is not None and f"{f['set']}:{f['pos']}" == target:
                break
            key(page, "ArrowRight")
        key(page, "Enter")
    wait_view(page, f"v.v > {before}")


def test_tile_rummy_turn_from_the_keyboard_only(a11y_device) -> None:  # noqa: F811
    p = a11y_device("desktop")
    create_game(p, "tiles", "Ana", seed=TILES_SEED, practice="easy")
    wait_view(p, "v.state.phase === 'playing' && v.state.turn === v.state.seat")
    expect(p.locator("#rack .tile").first).to_be_visible()
    from .policy import initial_meld

    rack = [r["tile"] for r in view(p)["state"]["rack"]]
    meld = initial_meld(rack)
    assert meld and len(meld) >= 2
    # Sort by number (Shift+S), then by colour (S): the rack's order follows.
    key(p, "Shift+S")
    p.wait_for_function(SORTED_RACK, arg="number")
    key(p, "s")
    p.wait_for_function(SORTED_RACK, arg="colour")
    key(p, "y")  # focus on the rack's first tile
    shot(p, "a11y-focus-rack-tile")
    # Hint (H): the solver's play in words.
    key(p, "h")
    expect(p.locator("#hint-text")).not_to_be_empty()
    # A tile to a new set, then back to the rack with Esc (a table tile of mine: returnable).
    first = meld[0][0]
    place_from_rack(p, first, "new")
    assert view(p)["state"]["work"], "the tile is on the table"
    key(p, "g")
    # Tab/arrows reach table tiles too: the one just placed, picked up with Enter.
    for _ in range(10):
        f = focused(p)
        if f and f["tile"] == str(first):
            break
        key(p, "ArrowRight")
    key(p, "Enter")
    expect(p.locator(f"#table-sets [data-tile='{first}']")).to_have_attribute(
        "aria-pressed", "true"
    )
    shot(p, "a11y-focus-tile")
    before = view(p)["v"]
    key(p, "Escape")  # return to rack
    wait_view(p, f"v.v > {before}")
    assert any(r["tile"] == first for r in view(p)["state"]["rack"])
    # Another placement, then Reset Turn (R).
    place_from_rack(p, meld[1][0], "new")
    before = view(p)["v"]
    key(p, "r")
    wait_view(p, f"v.v > {before} && !v.state.work")
    # The initial meld: each set's first tile to a new set, the rest into the set's end gap.
    for s in meld:
        place_from_rack(p, s[0], "new")
        for t in s[1:]:
            place_from_rack(p, t, "end")
    expect(p.locator("#confirm")).to_be_enabled()
    before = view(p)["v"]
    key(p, "c")
    wait_view(p, f"v.v > {before} && v.state.melded[v.state.seat]", timeout=15_000)
    placed = {t for s in meld for t in s}
    assert not placed & {r["tile"] for r in view(p)["state"]["rack"]}
    table = [sorted(x["tiles"]) for x in view(p)["state"]["table"]]  # the bot may have played too
    assert all(sorted(s) in table for s in meld), (meld, table)
    assert_accessible(p, "Tile Rummy table with sets")
    # The next turn: draw from the pool with D.
    wait_view(p, "v.state.turn === v.state.seat", timeout=30_000)
    n = len(view(p)["state"]["rack"])
    key(p, "d")
    wait_view(p, f"v.state.rack.length === {n + 1} || v.state.turn !== v.state.seat")


def test_shortcut_list_opens_with_question_mark(device) -> None:
    p = device("phone", "Ana")
    create_game(p, "tiles", "Ana", practice="easy")
    expect(p.locator("#rack .tile").first).to_be_visible()
    key(p, "?")
    dlg = p.locator("dialog.rules-modal")
    expect(dlg.locator("#shortcuts")).to_contain_text("Confirm play")
    dlg.locator("#shortcuts").scroll_into_view_if_needed()
    shot(p, "a11y-shortcuts")
    key(p, "Escape")
    expect(dlg).to_have_count(0)
