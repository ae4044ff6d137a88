"""Issue 32, "hints that teach" and "phone and desktop fit": hints in words with a highlight per
step, "Show me" staging exactly the solver's play, 44 px touch targets measured from the DOM at
390x844, the action row on screen with a full rack and with the chat open, tile colours told
apart by shape, who starts, the pool as a control, the bot difficulty in the waiting room."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from .conftest import DESKTOP, SHOTS, shot
from .helpers import create_game, dismiss_first_deal, view, wait_view
from .policy import choose

pytestmark = pytest.mark.browser

SYMBOL = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
COLOUR = {"R": "red", "B": "blue", "Y": "yellow", "K": "black"}


def card_name(code: str) -> str:
    return code[:-1] + SYMBOL[code[-1]]


def tile_name(face: str) -> str:
    return "joker" if face == "JK" else f"{COLOUR[face[0]]} {face[1:]}"


def capture_hints(page: Page) -> list[dict[str, Any]]:
    """Every `hint` frame the page's socket receives, in order (the server's own payload)."""
    got: list[dict[str, Any]] = []

    def on_ws(ws: Any) -> None:
        def on_frame(payload: str | bytes) -> None:
            msg = json.loads(payload)
            if msg.get("type") == "hint":
                got.append(msg["hint"])

        ws.on("framereceived", on_frame)

    page.on("websocket", on_ws)
    return got


def ask_hint(page: Page, hints: list[dict[str, Any]]) -> dict[str, Any]:
    n = len(hints)
    page.click("#hint")
    for _ in range(100):
        if len(hints) > n:
            break
        page.wait_for_timeout(50)
    assert len(hints) > n, "no hint frame arrived"
    return hints[-1]


# Every card of the discard pile shows at least 44 x 44 px (up to the next card, in its row).
FANNED_44 = """() => {
  const cs = [...document.querySelectorAll('#discard-pile .card')];
  return cs.length > 1 && cs.every((c, i) => {
    const r = c.getBoundingClientRect();
    const n = cs[i + 1] && cs[i + 1].getBoundingClientRect();
    const shown = !n || n.top > r.top + 1 ? r.width : Math.min(r.width, n.left - r.left);
    return shown >= 44 && r.height >= 44;
  });
}"""


def box(page: Page, selector: str) -> dict[str, float]:
    b = page.locator(selector).first.bounding_box()
    assert b, f"{selector} has no box"
    return b


def practice_tiles(page: Page, seed: int) -> None:
    create_game(page, "tiles", "Ana", seats=2, seed=seed, practice="easy", target=200)
    wait_view(
        page, "v.state && v.state.phase === 'playing' && v.state.turn === v.state.seat", 20_000
    )


def test_tile_hint_steps_and_show_me_stage_the_solvers_play(device) -> None:
    p = device("phone", "Ana")
    hints = capture_hints(p)
    hn: dict[str, Any] = {}
    for seed in range(1, 40):
        practice_tiles(p, seed)
        hn = ask_hint(p, hints)
        if hn["found"]:
            break
    assert hn["found"], "no seed in 1..39 gives a first-turn play"
    st = view(p)["state"]
    committed = [t["tiles"] for t in st["table"]]
    # Every set the play changes is one numbered step; each rack tile it puts down is named.
    steps = p.locator("#hint-text .hint-step")
    changed = [s for s in hn["table"] if s not in [t["tiles"] for t in st["table"]]]
    expect(steps).to_have_count(len(changed))
    text = p.locator("#hint-text").inner_text()
    for face in hn["placed_faces"]:
        assert tile_name(face) in text
    assert "R7" not in text and "[" not in text  # no notation dump
    # Each step's tiles carry that step's colour on the rack.
    for i, target in enumerate(changed):
        for t in target:
            if t in hn["placed"]:
                expect(p.locator(f"#rack [data-tile='{t}']")).to_have_attribute(
                    "data-hint-step", str(i % 4 + 1)
                )
    shot(p, "fit-tile-hint")
    p.click("#hint-show-me")
    wait_view(p, "v.state.work !== null")
    st = view(p)["state"]
    # Staged exactly: the work area is the solver's arrangement, tile for tile, in order...
    assert [s["tiles"] for s in st["work"]] == hn["table"]
    # ...and it is still mine to Confirm or Reset: nothing is committed.
    assert [t["tiles"] for t in st["table"]] == committed
    expect(p.locator("#confirm")).to_be_enabled()
    expect(p.locator("#reset")).to_be_enabled()
    shot(p, "fit-tile-show-me")
    p.click("#reset")
    wait_view(p, "v.state.work === null")


def test_rummy_hint_names_the_meld_and_marks_the_pickup_apart(device) -> None:
    p = device("phone", "Ana")
    hints = capture_hints(p)
    create_game(p, "rummy", "Ana", seats=2, seed=11, practice="easy")
    p.click("#deal-deck")
    wait_view(p, "v.state.phase === 'playing'")
    dismiss_first_deal(p)
    me = view(p)["room"]["you"]
    named = fanned = took = False
    for _ in range(30):
        wait_view(
            p,
            f"v.state.phase !== 'playing' || (v.room.to_act[0] === {me} && "
            "(v.state.stage === 'draw' || v.state.stage === 'play'))",
            20_000,
        )
        st = view(p)["state"]
        if st["phase"] != "playing":
            break
        if st["stage"] == "draw":
            hn = ask_hint(p, hints)
            if hn["take"]:
                # A suggested pickup: its own mark on every card it takes, not the gold glow.
                for c in hn["cards"]:
                    expect(p.locator(f"#discard-pile [data-card='{c}'].hint-take")).to_have_count(1)
                if not took:
                    shot(p, "fit-rummy-pickup-hint")
                    took = True
            else:
                expect(p.locator("#draw-pile.hint-take")).to_have_count(1)
            expect(p.locator("#hint-text")).not_to_contain_text(st["discard"][-1])
            pile = [c for c in st["discard"] if f"take {c}" in st["legal"]]
            if len(pile) >= 2 and not fanned:
                # Phone: a covered card first fans the pile out; then each card is 44 px wide.
                p.click(f"#discard-pile [data-card='{pile[0]}']", position={"x": 6, "y": 20})
                expect(p.locator("#discard-pile.fanned")).to_have_count(1)
                assert view(p)["state"]["stage"] == "draw"  # the tap only fanned
                # (the cards slide apart: wait for the end of the transition, then measure)
                p.wait_for_function(FANNED_44)
                shot(p, "fit-rummy-fanned-pile")
                fanned = True
                p.click(f"#discard-pile [data-card='{pile[0]}']")
                wait_view(p, "v.state.stage === 'play'")
                continue
            p.click("#draw-pile")
            wait_view(p, "v.state.stage === 'play'")
            continue
        hn = ask_hint(p, hints)
        if hn["melds"] and not named:
            meld = hn["melds"][0]
            first = p.locator("#hint-text .hint-step").first
            expect(first).to_contain_text("Meld " + " ".join(card_name(c) for c in meld))
            for c in meld:
                expect(p.locator(f"#hand [data-card='{c}']")).to_have_attribute(
                    "data-hint-step", "1"
                )
            if hn["discard"]:
                # The suggested discard is marked apart (orange, labelled), not as a meld.
                discard = p.locator(f"#hand [data-card='{hn['discard']}']")
                expect(discard).to_have_class(re.compile(r"\bhint-discard\b"))
            text = p.locator("#hint-text").inner_text()
            for c in [*meld, *([hn["discard"]] if hn["discard"] else [])]:
                assert c not in text.split(), text  # "KH" notation nowhere
            shot(p, "fit-rummy-meld-hint")
            named = True
        while (action := choose(view(p)["state"])) is not None:
            verb = action.split()[0]
            before = view(p)["v"]
            if verb == "discard":
                p.click(f"#hand [data-card='{action.split()[1]}']", position={"x": 6, "y": 20})
                p.click("#discard-selected")
                wait_view(p, f"v.v > {before}")
                break
            if verb == "meld":
                for c in action.split()[1:]:
                    p.click(f"#hand [data-card='{c}']", position={"x": 6, "y": 20})
                p.click("#new-meld")
            elif verb == "layoff":
                *cards, meld_id = action.split()[1:]
                for c in cards:
                    p.click(f"#hand [data-card='{c}']", position={"x": 6, "y": 20})
                p.click(f"#melds [data-meld='{meld_id}']")
            else:
                break
            wait_view(p, f"v.v > {before}")
        if named and fanned:
            break
    assert named, "no turn in this game had a meld to hint"
    # Hand cards overlap only when they must to fit: on a desktop a hand that fits lies flat.
    p.set_viewport_size(DESKTOP)
    p.wait_for_timeout(300)  # (margins transition)
    fit = p.evaluate(
        """() => {
          const hand = document.getElementById('hand');
          const cs = [...hand.querySelectorAll('.card')].map(c => c.getBoundingClientRect());
          return {fits: cs.length * cs[0].width <= hand.clientWidth - 8,
                  overlap: cs.slice(1).some((r, i) => r.left < cs[i].right - 0.5)};
        }"""
    )
    assert not fit["fits"] or not fit["overlap"], fit


def test_touch_targets_and_the_action_row_on_a_phone(device) -> None:
    p = device("phone", "Ana")
    practice_tiles(p, 3)
    assert len(view(p)["state"]["rack"]) >= 14
    # The action row is on screen with a full rack, without scrolling.
    for sel in ("#confirm", "#reset", "#draw"):
        b = box(p, sel)
        assert b["y"] >= 0 and b["y"] + b["height"] <= 844, (sel, b)
        assert b["height"] >= 44 and b["width"] >= 44, (sel, b)
    shot(p, "fit-full-rack")
    # Tiles, the pool and the frame's buttons: 44 x 44 at least.
    sizes = p.evaluate(
        """(TARGETS) => [...document.querySelectorAll(TARGETS)]
            .filter(e => e.offsetParent !== null)
            .map(e => { const r = e.getBoundingClientRect();
                        return [e.id || e.className, r.width, r.height]; })""",
        "#rack .tile, #pool, #hint, #sort-colour, #sort-number, .toolbar button, #btn-rules, #btn-settings",
    )
    small = [s for s in sizes if s[1] < 44 or s[2] < 44]
    assert not small, small
    # Picking a tile up opens the drop gaps and "+ New Set": 44 x 44 each.
    tile = view(p)["state"]["rack"][0]["tile"]
    p.click(f"#rack [data-tile='{tile}']")
    p.click("#new-set")
    wait_view(p, "v.state.work !== null && v.state.work.length === 1")
    tile2 = view(p)["state"]["rack"][0]["tile"]
    p.click(f"#rack [data-tile='{tile2}']")
    expect(p.locator(".board.tiles.picking")).to_have_count(1)
    gaps = p.locator(".tset .gap").evaluate_all(
        "els => els.map(e => { const r = e.getBoundingClientRect(); return [r.width, r.height]; })"
    )
    assert gaps and all(w >= 44 and hgt >= 44 for w, hgt in gaps), gaps
    ns = box(p, "#new-set")
    assert ns["width"] >= 44 and ns["height"] >= 44
    shot(p, "fit-picking-gaps")
    p.click(f"#rack [data-tile='{tile2}']")  # put it down again
    # The chat sheet leaves the rack and the action buttons usable.
    p.click("#btn-chat")
    expect(p.locator("#chat-panel")).to_be_visible()
    for sel in ("#confirm", "#reset", "#draw"):
        p.locator(sel).scroll_into_view_if_needed()
        b = box(p, sel)
        hit = p.evaluate(
            "([x, y, sel]) => !!document.elementFromPoint(x, y)?.closest(sel)",
            [b["x"] + b["width"] / 2, b["y"] + b["height"] / 2, sel],
        )
        assert hit, f"{sel} is covered by the chat sheet"
    rack_tile = p.locator("#rack .tile").last
    rack_tile.scroll_into_view_if_needed()
    b = rack_tile.bounding_box()
    assert b
    assert p.evaluate(
        "([x, y]) => !!document.elementFromPoint(x, y)?.closest('#rack')",
        [b["x"] + b["width"] / 2, b["y"] + b["height"] / 2],
    )
    p.evaluate("() => window.scrollTo(0, 0)")
    shot(p, "fit-chat-open")
    p.click("#btn-chat")
    # The pool is the draw control: tapping it draws one tile and ends the turn.
    p.click("#reset")
    wait_view(p, "v.state.work === null")
    pool = view(p)["state"]["pool_size"]
    rack = len(view(p)["state"]["rack"])
    expect(p.locator("#pool")).to_contain_text(str(pool))
    p.click("#pool")
    wait_view(p, f"v.state.rack.length === {rack + 1}")
    assert view(p)["state"]["pool_size"] <= pool - 1


# Whether a tap at the centre of each element of `sel` lands on it (nothing covers it) and the
# centre is on screen.
UNCOVERED = """(sel) => [...document.querySelectorAll(sel)].map((e) => {
  const r = e.getBoundingClientRect();
  const x = r.left + r.width / 2, y = r.top + r.height / 2;
  const on = y >= 0 && y <= innerHeight && x >= 0 && x <= innerWidth;
  return [e.id || e.dataset.tile, on && !!document.elementFromPoint(x, y)?.closest(sel)];
})"""


def test_the_rack_and_the_buttons_stay_in_view_at_four_seats_on_a_phone(device) -> None:
    # Three opponents, the move log and the pool above the table: the page scrolls on a phone,
    # and the rack with Confirm / Reset / Draw stays at the bottom of the screen, uncovered.
    p = device("phone", "Ana")
    create_game(p, "tiles", "Ana", seats=4, seed=5, practice="easy", target=200)
    wait_view(p, "v.state && v.state.phase === 'playing' && v.state.turn === v.state.seat", 20_000)
    p.wait_for_function("() => document.querySelectorAll('#rack .tile').length >= 14")
    p.wait_for_function("() => document.documentElement.scrollHeight > innerHeight")
    for where in ("top", "bottom"):
        p.evaluate("(top) => window.scrollTo(0, top ? 0 : 1e6)", where == "top")
        p.wait_for_timeout(100)
        hits = p.evaluate(UNCOVERED, "#rack .tile, #confirm, #reset, #draw")
        assert len(hits) >= 14 + 3 and all(ok for _, ok in hits), (where, hits)
    p.evaluate("() => window.scrollTo(0, 0)")
    shot(p, "fit-four-seats-rack")


def test_tile_colours_have_shapes_and_who_starts_is_said(device) -> None:
    p = device("desktop", "Ana")
    practice_tiles(p, 3)
    st = view(p)["state"]
    # Who starts, and why: the start draw's highest tile, named.
    sd = st["start_draw"]
    line = p.locator("#starter-line")
    starter = (
        "You" if sd["starter"] == st["seat"] else view(p)["room"]["players"][sd["starter"]]["name"]
    )
    expect(line).to_contain_text(starter)
    drawn = next(x for x in sd["rounds"][-1] if x["seat"] == sd["starter"])
    expect(line).to_contain_text(f"{tile_name(drawn['face'])} was the highest")
    # Each colour has its own shape, so grey scale loses nothing.
    shapes = p.evaluate(
        """() => {
          const out = {};
          for (const c of ['red', 'blue', 'yellow', 'black']) {
            const d = document.querySelector(`#rack .tile.${c} .dot`);
            if (d) { const s = getComputedStyle(d); out[c] = s.clipPath + '|' + s.borderRadius; }
          }
          return out;
        }"""
    )
    assert len(shapes) >= 3 and len(set(shapes.values())) == len(shapes), shapes
    # Yellow reads as yellow: red and green high, blue low.
    rgb = p.evaluate(
        "() => getComputedStyle(document.querySelector('#rack .tile.yellow') || document.body).color"
    )
    r, g, b = (int(x) for x in rgb[rgb.index("(") + 1 : rgb.index(")")].split(",")[:3])
    assert r > 200 and g > 160 and b < 60, rgb
    # A table joker names the tile it stands for, on its face and in its label.
    joker = p.evaluate(
        """async () => {
          const { tileEl } = await import('/static/cards.js');
          const t = tileEl('JK', { jokerAs: 'R5' });
          return [t.getAttribute('aria-label'), t.querySelector('.as').textContent];
        }"""
    )
    assert joker == ["Joker as red 5", "5"]
    # On a desktop the open chat is a side sheet: the rack and every action button stay usable.
    p.click("#btn-chat")
    expect(p.locator("#chat-panel")).to_be_visible()
    for sel in ("#confirm", "#reset", "#draw", "#sort-number", "#rack .tile:last-child"):
        b = box(p, sel)
        assert p.evaluate(
            "([x, y, sel]) => !!document.elementFromPoint(x, y)?.closest(sel)",
            [b["x"] + b["width"] / 2, b["y"] + b["height"] / 2, sel],
        ), f"{sel} is covered by the chat sheet"
    p.click("#btn-chat")
    # Grey scale through the CSSOM (the page's CSP refuses inline style sheets).
    p.evaluate("() => { document.documentElement.style.filter = 'grayscale(1)'; }")
    shot(p, "fit-tiles-greyscale")
    assert (SHOTS / "fit-tiles-greyscale-phone.png").exists()


def test_host_picks_the_bot_difficulty_and_lobby_rules_say_close(device) -> None:
    p = device("phone", "Ana")
    sent: list[dict[str, Any]] = []
    p.on("websocket", lambda ws: ws.on("framesent", lambda f: sent.append(json.loads(f))))
    p.goto("/")
    p.click("#btn-rules")
    expect(p.locator("dialog.modal .modal-actions")).to_contain_text("Close")
    expect(p.locator("dialog.modal .modal-actions")).not_to_contain_text("Back to Game")
    p.keyboard.press("Escape")
    create_game(p, "tiles", "Ana", seats=3)
    expect(p.locator("#bot-level [data-value=medium]")).to_have_attribute("aria-checked", "true")
    p.click("#bot-level [data-value=hard]")
    expect(p.locator("#add-bot")).to_have_text("+ Computer player (Hard)")
    p.click("#add-bot")
    expect(p.locator(".waiting .seat-list li .pill", has_text="bot")).to_have_count(1)
    assert any(m.get("type") == "add_bot" and m.get("difficulty") == "hard" for m in sent), sent
    # No duplicated ? and ⚙ on the table: the toolbar's copies show only when the menu is hidden.
    p.click("#start-game")
    wait_view(p, "v.state && v.state.phase === 'playing'")
    expect(p.locator(".toolbar [aria-label=Rules]")).to_be_hidden()
    expect(p.locator("#btn-rules")).to_be_visible()
    p.click("#btn-focus")
    expect(p.locator(".toolbar [aria-label=Rules]")).to_be_visible()
    p.click("#btn-focus")
