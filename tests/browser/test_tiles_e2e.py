"""Two devices play Tile Rummy: an initial meld (after a refused confirm) and, next turn, a
rearrangement of the table — all by tapping tiles and gaps in the real UI."""

from __future__ import annotations

import functools
import re

import pytest
from playwright.sync_api import Page, expect

from gameshack.service.codes import CODE_LETTERS

from .conftest import shot
from .helpers import create_game, join_game, view, wait_view
from .policy import tiles_seed_facts

pytestmark = pytest.mark.browser


@functools.cache
def useful_deal() -> dict:
    for seed in (36, *range(1, 150)):
        facts = tiles_seed_facts(seed)
        if facts:
            return facts
    raise AssertionError("no seed gives an initial meld followed by a rearrangement")


def place(page: Page, tile: int, set_index: int | None) -> None:
    """Tap a tile to pick it up, then tap the end gap of a set (or "+ New Set")."""
    page.click(f"[data-tile='{tile}']")
    expect(page.locator(f"[data-tile='{tile}']")).to_have_attribute("aria-pressed", "true")
    before = view(page)["v"]
    if set_index is None:
        page.click("#new-set")
    else:
        page.locator(f".tset[data-set='{set_index}'] .gap").last.click()
    wait_view(page, f"v.v > {before}")


def test_two_devices_tile_rummy_meld_refusal_and_rearrangement(device) -> None:
    deal = useful_deal()
    a = device("phone", "Ana")
    b = device("desktop", "Ben")
    code = create_game(a, "tiles", "Ana", seed=deal["seed"])
    # The seed's room code: 5 letters (no digits, no look-alikes), shown to share.
    assert re.fullmatch(f"[{CODE_LETTERS}]{{5}}", code), code
    expect(a.locator("#share-code")).to_have_text(code)
    join_game(b, code, "Ben")
    expect(a.locator(".waiting .seat-list li")).to_have_count(2)
    expect(a.locator(".waiting .seat-list")).to_contain_text("Ben")
    expect(b.locator("#start-game")).to_have_count(0)  # only the host starts
    shot(a, "tiles-waiting-host")
    a.click("#start-game")
    for p in (a, b):
        wait_view(p, "v.state && v.state.phase === 'playing'")
    seats = {view(a)["room"]["you"]: a, view(b)["room"]["you"]: b}
    s, o = seats[deal["starter"]], seats[1 - deal["starter"]]
    shot(s, "tiles-table-start")
    expect(s.locator("#meld-progress")).to_have_text("Initial meld 0 / 30")

    meld = list(deal["meld"][0])
    # "Return to rack": a tile played this turn can go back.
    place(s, meld[0], None)
    s.click(f"[data-tile='{meld[0]}']")
    s.click("#return-rack")
    wait_view(s, f"v.state.rack.some(r => r.tile === {meld[0]})")
    # Two tiles are not a set: Confirm is refused with the server's reason.
    place(s, meld[0], None)
    place(s, meld[1], 0)
    expect(s.locator(".tset[data-set='0']")).to_have_class("tset invalid changed")
    expect(s.locator(".set-reason")).not_to_be_empty()
    s.click("#confirm")
    expect(s.locator("#toast")).to_be_visible()
    assert view(s)["state"]["work"] is not None  # nothing committed
    shot(s, "tiles-refused-confirm")
    # The other device sees none of the arrangement in progress.
    assert view(o)["state"]["table"] == []
    for t in meld[2:]:
        place(s, t, 0)
    expect(s.locator("#meld-progress")).to_contain_text("/ 30")
    progress = view(s)["state"]["meld"]["progress"]
    assert progress >= 30
    expect(s.locator("#meld-progress")).to_have_text(f"Initial meld {progress} / 30")
    shot(s, "tiles-initial-meld-ready")
    s.click("#confirm")
    wait_view(o, "v.state.table.length === 1 && v.state.turn === v.state.seat")
    expect(o.locator(".tset")).to_have_count(1)
    shot(o, "tiles-after-initial-meld")

    o.click("#sort-number")
    o.click("#draw")
    wait_view(s, "v.state.turn === v.state.seat")

    tile, set_index, (r1, r2) = deal["move"]
    # Rearrange: take a tile off the existing run into a new set with two rack tiles.
    place(s, tile, None)
    new_index = len(view(s)["state"]["work"]) - 1
    place(s, r1, new_index)
    place(s, r2, new_index)
    expect(s.locator(".tset.invalid")).to_have_count(0)
    shot(s, "tiles-rearranged")
    s.click("#confirm")
    wait_view(o, "v.state.table.length === 2")
    faces = sorted(
        o.locator(".tset")
        .nth(1)
        .locator(".tile")
        .evaluate_all("els => els.map(e => e.dataset.tile)")
    )
    assert faces == sorted(str(t) for t in (tile, r1, r2))
    assert set_index == 0
    shot(o, "tiles-after-rearrangement")
