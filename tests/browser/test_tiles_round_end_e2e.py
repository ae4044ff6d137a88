"""Tile Rummy practice to the end: Round Complete → Next Round, then Game Over → New Game.

The human only draws; Hard bots fill three seats (the server runs them with no delay). The seed
and a small target are picked offline from the engine and the same bots (policy.tiles_practice),
so the match is known to need more than one round and to end in a few dozen draws."""

from __future__ import annotations

import functools
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from .conftest import shot
from .helpers import create_game, view, wait_view
from .policy import tiles_practice

pytestmark = pytest.mark.browser

# Four seats: in a two-seat game a Hard bot never went out against a player who only draws
# (seeds 1..59 tried offline; every round ended with the pool empty), so no match would end.
SEATS = 4


@functools.cache
def quick_match() -> dict[str, Any]:
    """A seed whose first round a bot wins with under 200, and a target just above that
    score: the match then needs a second round. Fewest draws first among the seeds tried."""
    found = []
    for seed in range(30, 41):
        first = tiles_practice(seed, "hard", 200, seats=SEATS, max_steps=150)["results"]
        if not first or first[0]["winner"] is None or max(first[0]["scores"]) >= 200:
            continue
        target = max(first[0]["scores"]) + 1
        match = tiles_practice(seed, "hard", target, seats=SEATS)
        if match["phase"] == "match_over" and len(match["results"]) >= 2:
            found.append((sum(match["draws"]), seed, match | {"target": target}))
    assert found, "no seed in 30..40 gives a two-round practice match"
    return min(found, key=lambda f: f[:2])[2]


def check_scores(page: Page, panel: str, expected: dict[str, Any], totals: list[int]) -> None:
    """The panel's table shows the engine's round result: each seat's rack left, round score
    and total, and names the winner."""
    st = view(page)["state"]
    result = st["results"][-1]
    assert result == expected  # the page's view equals the offline engine's round
    assert st["totals"] == totals
    # The whole dialog is on screen wherever the page was scrolled to (the Draw button is at
    # the bottom of a phone's page).
    box = page.locator(f"#{panel}").bounding_box()
    size = page.viewport_size
    assert box and size and box["y"] >= 0 and box["y"] + box["height"] <= size["height"], box
    rows = page.locator(f"#{panel} .score-table tbody tr")
    expect(rows).to_have_count(SEATS)
    for s in range(SEATS):
        cells = rows.nth(s).locator("td")
        # Scores use one minus sign style: U+2212, as everywhere else.
        expect(cells.nth(2)).to_have_text(str(result["scores"][s]).replace("-", "\u2212"))
        expect(cells.nth(3)).to_have_text(str(st["totals"][s]).replace("-", "\u2212"))
        expect(cells.nth(1).locator(".tile")).to_have_count(len(result["remaining"][s]["faces"]))
    winner = view(page)["room"]["players"][result["winner"]]["name"]
    expect(page.locator(f"#{panel} .announce").first).to_have_text(f"{winner} emptied the rack!")
    expect(rows.nth(result["winner"])).to_have_class("winner")


def test_practice_tile_rummy_round_complete_next_round_and_game_over(device) -> None:
    match = quick_match()
    p = device("phone", "Ana")
    code = create_game(
        p, "tiles", "Ana", seats=SEATS, seed=match["seed"], practice="hard", target=match["target"]
    )
    wait_view(p, "v.state && v.state.phase === 'playing'")
    assert view(p)["room"]["you"] == 0
    expect(p.locator("#scorebar .race")).to_have_text(f"Race to {match['target']}")
    totals = [0] * SEATS
    rounds = 0
    draws = 0
    while True:
        wait_view(p, "v.state.phase !== 'playing' || v.state.turn === v.state.seat", 20_000)
        st = view(p)["state"]
        if st["phase"] == "playing":
            before = view(p)["v"]
            p.click("#draw")
            wait_view(p, f"v.v > {before}")
            draws += 1
            assert draws <= sum(match["draws"])
            continue
        expected = match["results"][rounds]
        totals = [t + s for t, s in zip(totals, expected["scores"], strict=True)]
        rounds += 1
        if st["phase"] == "round_over":
            panel = p.locator("#round-complete")
            expect(panel).to_be_visible()
            expect(panel.locator("h2")).to_have_text("Round Complete")
            expect(p.locator("#game-over")).to_have_count(0)
            check_scores(p, "round-complete", expected, totals)
            if rounds == 1:
                shot(p, "tiles-round-complete")
                # "View table" puts the result aside to look at the table, as in Rummy.
                p.click("#view-table")
                expect(panel).to_have_count(0)
                p.click("#show-scores")
                expect(panel).to_be_visible()
            p.click("#next-round")
            wait_view(p, f"v.state.phase === 'playing' && v.state.round === {rounds + 1}")
            expect(panel).to_have_count(0)
            # A fresh deal: a full rack, an empty table, the totals carried over.
            expect(p.locator("#rack .tile")).to_have_count(14)
            expect(p.locator(".tset")).to_have_count(0)
            expect(p.locator(f"#scorebar .score[data-seat='{expected['winner']}'] b")).to_have_text(
                str(totals[expected["winner"]])
            )
            continue
        assert st["phase"] == "match_over"
        break
    assert rounds == len(match["results"]) >= 2
    assert totals == match["totals"]
    over = p.locator("#game-over")
    expect(over).to_be_visible()
    expect(over.locator("h2")).to_have_text("Game Over")
    expect(p.locator("#next-round")).to_have_count(0)
    check_scores(p, "game-over", match["results"][-1], totals)
    best = max(totals)
    champion = view(p)["room"]["players"][totals.index(best)]["name"]
    assert best >= match["target"] and totals.count(best) == 1
    expect(over.locator(".announce").nth(1)).to_have_text(f"{champion} wins the game!")
    # A finished match offers the lobby, not "Leave Game".
    expect(p.locator("#leave-game")).to_be_hidden()
    expect(p.locator("#back-to-lobby")).to_be_visible()
    shot(p, "tiles-game-over")
    # A stranger opening the finished game is told it has finished.
    q = device("desktop", "Zed")
    q.goto(f"/g/{code}")
    expect(q.locator(".center-card h2")).to_have_text("Game Over")
    expect(q.locator(".center-card p")).to_contain_text("This game has finished.")

    # New Game: back to the lobby, which works in place: it starts another practice game.
    p.click("#game-over #new-game")
    p.wait_for_url("**/")
    expect(p.locator("#create-game")).to_be_enabled()
    shot(p, "tiles-new-game-lobby")
    p.fill("#lobby-name", "Ana")  # the game was made through the API: no name saved yet
    p.click("#new-game .seg[aria-label=Game] button[data-value=tiles]")
    p.check("#practice")
    p.click("#create-game")
    p.wait_for_url("**/g/*")
    code = p.url.rsplit("/", 1)[1]
    wait_view(p, f"v.room.code === '{code}' && v.state && v.state.phase === 'playing'")
    expect(p.locator("#rack .tile")).to_have_count(14)
