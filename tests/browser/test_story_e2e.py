"""Every move visible (issue 32): the move log in words, the marks on what the last turn put
down, and the movement of cards and tiles — played back, or skipped under reduced motion."""

from __future__ import annotations

import contextlib
import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from .conftest import SHOTS
from .helpers import create_game, dismiss_first_deal, join_game, view, wait_view
from .policy import choose
from .test_rummy_e2e import Driver, useful_seed

pytestmark = pytest.mark.browser

SUIT = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
STEP_KINDS = {"draw", "take", "meld", "layoff", "discard", "reshuffle"}
BOARD = "#game .board"


def sym(cards: list[str]) -> str:
    return " ".join(c[:-1] + SUIT[c[-1]] for c in cards)


def rummy_line(e: dict[str, Any], names: dict[int, str], me: int) -> str | None:
    """What the log must say for one Rummy event (None: not checked here)."""
    who = "You" if e["seat"] == me else names[e["seat"]]
    cards = e.get("cards", [])
    if e["kind"] == "draw":
        return f"{who} drew from the draw pile"
    if e["kind"] == "take":
        if len(cards) == 1:
            return f"{who} took {sym(cards)} from the discard pile"
        return f"{who} took {len(cards)} cards from the discard pile ({sym(cards)})"
    if e["kind"] == "meld":
        return f"{who} melded {sym(cards)}"
    if e["kind"] == "discard":
        return f"{who} discarded {sym(cards)}"
    if e["kind"] == "out":
        return f"{who} went out!"
    return None


def log_lines(page: Page) -> list[str]:
    return page.locator("#move-log-list li").all_text_contents()


def names_of(page: Page) -> dict[int, str]:
    return {p["seat"]: p["name"] for p in view(page)["room"]["players"]}


def start_practice(page: Page, seed: int) -> tuple[int, int]:
    create_game(page, "rummy", "Ana", practice="easy", seed=seed)
    page.click("#deal-deck")
    wait_view(page, "v.state.phase === 'playing'")
    dismiss_first_deal(page)
    me = view(page)["room"]["you"]
    return me, 1 - me


def my_turn(page: Page, me: int) -> bool:
    """Wait for my turn (True) or the end of the hand (False)."""
    wait_view(
        page,
        f"v.state.phase !== 'playing' || (v.room.to_act[0] === {me} && v.state.stage === 'draw')",
        timeout=20_000,
    )
    return view(page)["state"]["phase"] == "playing"


def play_my_turn(driver: Driver) -> int:
    """Play `choose`'s turn through the UI; return the log's length once it is committed."""
    p = driver.page
    while (action := choose(view(p)["state"])) is not None and not action.startswith("discard"):
        driver.play(action)
    assert action is not None
    n = len(view(p)["state"]["log"])
    driver.play(action)
    return n


def watch_motion(page: Page) -> None:
    """Record each playback as it starts (the board turns data-motion="playing"): the log's
    length then, its steps, and whether cards were in flight at that moment. The table's
    module loads on demand, so the board may be drawn a moment after the first view."""
    page.wait_for_selector(BOARD, state="attached")
    page.evaluate(
        f"""() => {{
          if (window.__motionSeen) return;
          window.__motionSeen = [];
          const board = document.querySelector('{BOARD}');
          new MutationObserver(() => {{
            if (board.dataset.motion !== 'playing') return;
            window.__motionSeen.push({{ log: window.__gsView.state.log.length,
              steps: board.dataset.motionSteps, animations: document.getAnimations().length > 0 }});
          }}).observe(board, {{ attributes: true, attributeFilter: ['data-motion'] }});
        }}"""
    )


def bot_turn_arrived(bot: int, since: int) -> str:
    return (
        f"v.state.log.length > {since} && v.state.log.slice({since})"
        f".some(e => e.seat === {bot} && (e.kind === 'discard' || e.kind === 'out'))"
    )


def test_bot_turn_is_logged_marked_and_played_back(device) -> None:
    p = device("phone", "Ana")
    me, bot = start_practice(p, seed=7)
    names = names_of(p)
    driver = Driver(p, None)
    board = p.locator(BOARD)
    checked = 0
    for size in ("phone", "desktop"):
        if size == "desktop":
            p.set_viewport_size({"width": 1440, "height": 900})
        if not my_turn(p, me):
            break
        watch_motion(p)
        since = play_my_turn(driver)
        # The bot's committed turn arrives in one view and is played back step by step.
        wait_view(p, bot_turn_arrived(bot, since), timeout=20_000)
        with contextlib.suppress(PlaywrightTimeout):  # a slow machine may be past it already
            p.wait_for_function(
                f"() => document.querySelector('{BOARD}').dataset.motion === 'playing'",
                timeout=1_000,
            )
            p.wait_for_timeout(110)  # mid-way through the first step
            p.screenshot(path=str(SHOTS / f"story-bot-turn-mid-animation-{size}.png"))
        log = view(p)["state"]["log"]
        theirs = [e for e in log[since:] if e["seat"] == bot]
        steps = [e for e in theirs if e["kind"] in STEP_KINDS]
        # It ran: cards were in flight when the board said so, one step per event.
        runs = p.evaluate("() => window.__motionSeen")
        assert [r for r in runs if r["log"] == len(log)] == [
            {"log": len(log), "steps": str(len(steps)), "animations": True}
        ], runs
        # ...within the steps' time, then the board is still.
        expect(board).to_have_attribute("data-motion", "idle", timeout=len(steps) * 250 + 5000)
        # The log says what the bot did, in words with suit symbols.
        lines = log_lines(p)
        assert len(lines) == len(log)
        for e, text in zip(log, lines, strict=True):
            want = rummy_line(e, names, me)
            if want is not None:
                assert text == want, (e, text)
        expect(p.locator("#move-log-last")).to_have_text(lines[-1])
        if view(p)["state"]["phase"] != "playing":
            break
        # The marks: the bot's discard on the pile, its new melds, its lay-offs.
        top = next(e for e in theirs if e["kind"] == "discard")["cards"][0]
        expect(p.locator(f"#discard-pile .card[data-card='{top}']")).to_have_class(
            re.compile("just-played")
        )
        for e in theirs:
            if e["kind"] == "meld":
                expect(p.locator(f"#melds .meld[data-meld='{e['meld']}']")).to_have_class(
                    re.compile("just-played")
                )
            if e["kind"] == "layoff":
                for c in e["cards"]:
                    expect(p.locator(f"#melds [data-card='{c}']")).to_have_class(
                        re.compile("just-played")
                    )
        marked = p.locator(".just-played").count()
        assert marked >= 1
        if size == "phone":
            # On a phone the log is a one-line strip that opens into the whole log; the
            # device remembers it open.
            expect(p.locator("#move-log-list")).to_be_hidden()
            p.click("#move-log-toggle")
            expect(p.locator("#move-log-list")).to_be_visible()
            expect(p.locator("#move-log-toggle")).to_have_attribute("aria-expanded", "true")
            p.screenshot(path=str(SHOTS / "story-log-open-phone.png"))
        else:
            expect(p.locator("#move-log-list")).to_be_visible()
            p.screenshot(path=str(SHOTS / "story-log-open-desktop.png"))
        checked += 1
        # My turn starts: the marks go.
        p.click("#draw-pile")
        wait_view(p, "v.state.stage === 'play'")
        expect(p.locator(".just-played")).to_have_count(0)
        play_rest = play_my_turn
        play_rest(driver)
        if not my_turn(p, me):
            break
    assert checked >= 1


@pytest.mark.parametrize("how", ["reduced-motion", "setting"])
def test_reduced_motion_and_the_setting_update_at_once(device, how: str) -> None:
    p = device("phone", "Ana")
    if how == "reduced-motion":
        p.emulate_media(reduced_motion="reduce")
    else:
        # The Settings toggle (per device): Animate moves, off.
        p.goto("/")
        p.click("#btn-settings")
        box = p.locator("#set-animations")
        expect(box).to_be_checked()
        box.uncheck()
        p.keyboard.press("Escape")
    me, bot = start_practice(p, seed=7)
    driver = Driver(p, None)
    board = p.locator(BOARD)
    for _ in range(2):
        if not my_turn(p, me):
            break
        since = play_my_turn(driver)
        wait_view(p, bot_turn_arrived(bot, since), timeout=20_000)
        # Nothing moves: the table is in its new state at once.
        assert board.get_attribute("data-motion") == "idle"
        assert p.evaluate("() => document.querySelectorAll('.motion-layer > *').length") == 0
        assert (
            p.evaluate(
                "() => document.getAnimations().filter(a => a.effect && a.effect.target"
                " && a.effect.target.closest && a.effect.target.closest('.board')).length"
            )
            == 0
        )
        st = view(p)["state"]
        if st["phase"] == "playing":
            top = st["discard"][-1]
            expect(p.locator("#discard-pile .card").last).to_have_attribute("data-card", top)
    expect(board).to_have_attribute("data-motion-runs", "0")


def test_multi_card_pickup_is_logged_on_both_devices(device) -> None:
    """Two people: the turn with a multi-card pickup reads, on both devices, "Ana took 3 cards
    from the discard pile (7♥ 4♥ 3♦)" once it is committed."""
    seed = useful_seed()
    a = device("phone", "Ana")
    code = create_game(a, "rummy", "Ana", seed=seed)
    b = device("desktop", "Ben")
    join_game(b, code, "Ben")
    for page in (a, b):
        expect(page.locator("#deal-deck")).to_be_enabled()
        page.click("#deal-deck")
    for page in (a, b):
        wait_view(page, "v.state.phase === 'playing'")
        dismiss_first_deal(page)
    pages = {view(a)["room"]["you"]: a, view(b)["room"]["you"]: b}
    names = names_of(a)
    drivers = {s: Driver(pg, pages[1 - s]) for s, pg in pages.items()}
    done = False
    while not done:
        assert view(a)["state"]["phase"] == "playing", "the hand ended without a multi-card pickup"
        seat = view(a)["room"]["to_act"][0]
        page = pages[seat]
        wait_view(page, "v.state.stage === 'draw' || v.state.stage === 'play'")
        while (act := choose(view(page)["state"])) is not None and not act.startswith("discard"):
            if act.startswith("take ") and act.split()[1] != view(page)["state"]["discard"][-1]:
                done = True
            drivers[seat].play(act)
        assert act is not None
        drivers[seat].play(act)
    take = [e for e in view(a)["state"]["log"] if e["kind"] == "take" and len(e["cards"]) > 1]
    assert take, "the multi-card pickup is in the public log"
    e = take[-1]
    for page in (a, b):
        me = view(page)["room"]["you"]
        who = "You" if e["seat"] == me else names[e["seat"]]
        want = f"{who} took {len(e['cards'])} cards from the discard pile ({sym(e['cards'])})"
        expect(page.locator("#move-log-list li", has_text=want)).to_have_count(1)
    # A wide screen shows the log open; a phone folds it to the last move.
    expect(b.locator("#move-log-list")).to_be_visible()
    expect(a.locator("#move-log-list")).to_be_hidden()
    expect(a.locator("#move-log-last")).to_have_text(log_lines(a)[-1])


def test_tile_rummy_bot_play_marks_the_changed_sets_and_is_logged(device) -> None:
    p = device("phone", "Ana")
    create_game(p, "tiles", "Ana", seed=3, practice="hard")
    wait_view(p, "v.state && v.state.phase === 'playing'")
    me = view(p)["room"]["you"]
    names = names_of(p)
    board = p.locator(BOARD)
    for _ in range(25):
        wait_view(p, "v.state.phase !== 'playing' || v.state.turn === v.state.seat", 20_000)
        st = view(p)["state"]
        assert st["phase"] == "playing", "the round ended before a bot played a tile"
        since = len(st["log"])
        watch_motion(p)
        p.click("#draw")
        wait_view(p, f"v.state.log.length > {since + 1}", timeout=20_000)
        # Whatever the bot did arrives played back: a draw as a tile back, a play as tiles
        # flying in from its seat.
        n = len(view(p)["state"]["log"])
        p.wait_for_function(f"() => window.__motionSeen.some((r) => r.log === {n})")
        runs = [r for r in p.evaluate("() => window.__motionSeen") if r["log"] == n]
        assert len(runs) == 1 and runs[0]["animations"], runs
        plays = [e for e in view(p)["state"]["log"][since:] if e["kind"] == "play"]
        if plays:
            p.screenshot(path=str(SHOTS / "story-tiles-bot-play-mid-animation-phone.png"))
            last = plays[-1]
            break
    else:
        raise AssertionError("no bot play in 25 turns")
    expect(board).to_have_attribute("data-motion", "idle", timeout=5_000)
    bot = last["seat"]
    # The tiles it put down are marked, and so is every set they went into.
    for t in last["tiles"]:
        tile = p.locator(f"#table-sets [data-tile='{t}']")
        expect(tile).to_have_class(re.compile("just-played"))
        expect(
            tile.locator("xpath=ancestor::div[contains(concat(' ', @class, ' '), ' tset ')]")
        ).to_have_class(re.compile("just-changed"))
    # The log says it in words, with each tile.
    lines = log_lines(p)
    verb = "made the initial meld:" if last["meld"] else f"played {len(last['tiles'])} tiles:"
    assert lines[-1].startswith(f"{names[bot]} {verb}"), lines[-1]
    assert p.locator("#move-log-list li").last.locator(".lt").count() == len(last["faces"])
    mine = [e for e in view(p)["state"]["log"] if e["seat"] == me and e["kind"] == "draw"]
    assert sum(1 for text in lines if text == "You drew a tile") == len(mine) >= 1
    # My turn starts when I pick a tile up and move it: then the marks go.
    rack = view(p)["state"]["rack"][0]["tile"]
    p.click(f"#rack [data-tile='{rack}']")
    p.click("#new-set")
    wait_view(p, "v.state.work !== null")
    expect(p.locator(".just-played, .just-changed")).to_have_count(0)


def reshuffled_view(max_seed: int = 80) -> tuple[dict[str, Any], str]:
    """Offline, a real Rummy view whose log has a reshuffle, and the card that stayed on the
    discard pile: the pile's bottom card in the view the reshuffle first shows in."""
    from gameshack.rules import rummy

    for seed in range(max_seed):
        state = rummy.new_match(rummy.Config(seats=2), seed=seed)
        for _ in range(600):
            if state.phase.value != "playing" and state.phase.value != "deal_draw":
                break
            seat = sorted(rummy.to_act(state))[0]
            act = choose(rummy.view(state, seat).to_dict())
            if act is None:
                break
            state = rummy.apply(state, seat, rummy.parse_action(act))
            if act.startswith("discard "):
                state = rummy.apply(state, seat, rummy.parse_action("commit"))
            v = rummy.view(state, 0).to_dict()
            if any(e["kind"] == "reshuffle" for e in v["log"]):
                return v, v["discard"][0]
    raise AssertionError("no reshuffle in the seeds tried")


def test_reshuffle_line_names_the_card_that_stays(device) -> None:
    """The log module in the browser, fed a real view from the engine."""
    v, kept = reshuffled_view()
    p = device("phone", "Ana")
    p.goto("/")
    lines = p.evaluate(
        """async (st) => {
          const m = await import('/static/movelog.js');
          const ctx = { player: (seat) => ({ name: ['Ana', 'Bob'][seat] }) };
          const log = m.createMoveLog();
          document.body.append(log.el);
          log.update(m.rummyLines(st, ctx));
          return [...log.el.querySelectorAll('li')].map((li) => li.textContent);
        }""",
        v,
    )
    assert f"The draw pile was reshuffled (the {sym([kept])} stays on top)" in lines, lines
