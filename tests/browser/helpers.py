"""Browser-side helpers shared by the e2e tests: reading a tab's own view and acting through
the real UI (taps, drags, keyboard)."""

from __future__ import annotations

import contextlib
from typing import Any

from playwright.sync_api import Locator, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout


def view(page: Page) -> dict[str, Any]:
    """The last `view` message this tab received (its own seat's view only)."""
    return page.evaluate("() => window.__gsView || null")


def wait_view(page: Page, predicate: str, timeout: int = 10_000) -> None:
    """Wait until ``predicate`` (a JS expression over ``v``, the view message) holds."""
    page.wait_for_function(
        f"() => {{ const v = window.__gsView; return !!v && ({predicate}); }}", timeout=timeout
    )


VISIBLE_POINT = """(el) => {
  const r = el.getBoundingClientRect();
  for (const fy of [0.25, 0.5, 0.1, 0.75]) {
    for (const fx of [0.1, 0.25, 0.5, 0.75, 0.9]) {
      const x = r.left + r.width * fx, y = r.top + r.height * fy;
      const hit = document.elementFromPoint(x, y);
      if (hit && (hit === el || el.contains(hit))) return { x, y };
    }
  }
  return null;
}"""


def drag(page: Page, source: Locator, target: Locator) -> None:
    """A real pointer drag (down, several moves, up), as a mouse or finger would do it.

    Waits for both ends to be visible, and reads their boxes again if one was redrawn in
    between (a hand redraws after a move: read mid-redraw, a card had no box, once in CI)."""
    # A card or tile in flight (web/motion.js) has no fixed box yet: start once the board is
    # still, as a finger aims at where a card has landed.
    page.wait_for_function(
        "() => !document.querySelector('.board[data-motion=playing]')", timeout=3_000
    )
    sb = tb = None
    for _ in range(20):
        expect(source).to_be_visible()
        expect(target).to_be_visible()
        sb = source.bounding_box()
        tb = target.bounding_box()
        if sb and tb:
            break
        page.wait_for_timeout(50)
    assert sb and tb, "drag source or target is not visible"
    # Grab where the card itself shows (cards overlap, and which side is covered depends on
    # the layout): the first point of a grid over its box that the page says is this card.
    # ... once it stays put: my own move slides the hand's cards into their new places (no
    # data-motion flag for that), and a finger aims at where a card has landed.
    seen = None
    for _ in range(40):
        now = source.evaluate(VISIBLE_POINT)
        if now is not None and now == seen:
            break
        seen = now
        page.wait_for_timeout(60)
    assert seen is not None, "no visible point of the drag source"
    x0, y0 = seen["x"], seen["y"]
    x1, y1 = tb["x"] + tb["width"] / 2, tb["y"] + tb["height"] / 2
    page.mouse.move(x0, y0)
    page.mouse.down()
    for i in range(1, 9):
        page.mouse.move(x0 + (x1 - x0) * i / 8, y0 + (y1 - y0) * i / 8)
    page.mouse.up()


def create_game(
    page: Page,
    game: str = "rummy",
    name: str = "Ana",
    seats: int = 2,
    seed: int | None = None,
    practice: str | None = None,
    target: int | None = None,
) -> str:
    page.goto("/" + (f"?seed={seed}" if seed is not None else ""))
    if game == "tiles" and target is not None:
        # The lobby offers no target for Tile Rummy (it plays to 200); with GAMESHACK_ALLOW_SEED
        # the server takes a smaller one, so a test reaches Game Over in a few rounds.
        body = {"game": game, "seats": seats, "target": target, "name": name, "seed": seed}
        if practice:
            body |= {"practice": True, "difficulty": practice}
        made = page.evaluate(
            """async (body) => {
              const r = await fetch('/api/games', {method: 'POST', body: JSON.stringify(body),
                headers: {'Content-Type': 'application/json'}});
              return await r.json();
            }""",
            body,
        )
        url = made.get("url")
        assert url, made
        page.goto(url)
        return url.rsplit("/", 1)[1]
    page.fill("#lobby-name", name)
    page.click(f"#new-game .seg[aria-label=Game] button[data-value={game}]")
    page.click(f"#new-game .seg[aria-label=Seats] button[data-value='{seats}']")
    if target is not None:
        page.click(f"#new-game .seg[aria-label='Target score'] button[data-value='{target}']")
    if practice:
        page.check("#practice")
        page.click(f"#new-game .seg[aria-label='Bot difficulty'] button[data-value={practice}]")
    page.click("#create-game")
    page.wait_for_url("**/g/*")
    return page.url.rsplit("/", 1)[1]


def join_game(page: Page, code: str, name: str = "Ben") -> None:
    page.goto("/")
    page.fill("#lobby-name", name)
    page.fill("#join-code", code.lower())  # codes are case-insensitive
    page.click("#join-game")
    page.wait_for_url(f"**/g/{code}")


def expect_toast(page: Page, text: str) -> None:
    expect(page.locator("#toast")).to_contain_text(text)


def dismiss_first_deal(page: Page) -> None:
    """Leave the first-deal result for the table: tap "Play" (it also goes by itself after a
    few seconds, so the button may vanish under the finger)."""
    btn = page.locator("#first-deal-continue")
    if btn.count():
        with contextlib.suppress(PlaywrightTimeout):
            btn.click(timeout=2_000)
    expect(page.locator("#hand")).to_be_visible()
