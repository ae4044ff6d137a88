"""Sign in through the real UI in Debian's Chromium with the code from the test SMTP server, then
the stats screens after a few one-on-one matches (practice and three-player games absent).
Screenshots at phone and desktop size go to test-artifacts/screenshots/accounts-*.png."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("playwright.sync_api")
from playwright.sync_api import expect, sync_playwright

pytestmark = [pytest.mark.browser]

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "test-artifacts" / "screenshots"
CHROMIUM = "/usr/bin/chromium"
SIZES = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1440, "height": 900}}


def seed_matches(live) -> None:
    t0 = 1_790_000_000.0
    # Ana's one-on-one record: beat Ben twice, lost to Ben once, tied Cy at Tile Rummy.
    live.add_finished_match(
        "BRWA2", "rummy", ("Ana", "Ben"), [[60, -10], [50, 5]], [110, -5], [0], t0
    )
    live.add_finished_match(
        "BRWA3", "rummy", ("Ben", "Ana"), [[105, 20]], [105, 20], [0], t0 + 86400
    )
    live.add_finished_match(
        "BRWA4", "tiles", ("Cy", "Ana"), [[40, -40], [-30, 30]], [10, 10], [0, 1], t0 + 2 * 86400
    )
    live.add_finished_match(
        "BRWA5", "rummy", ("Ana", "Ben"), [[130, -20]], [130, -20], [0], t0 + 3 * 86400
    )
    # Not counted: practice against a bot, and a three-player game.
    live.add_finished_match(
        "BRWA6",
        "rummy",
        ("Ana", "Robo Rita"),
        [[200, 0]],
        [200, 0],
        [0],
        t0 + 4 * 86400,
        bots=(False, True),
    )
    live.add_finished_match(
        "BRWA7", "rummy", ("Ana", "Ben", "Cy"), [[150, 0, 0]], [150, 0, 0], [0], t0 + 5 * 86400
    )


def test_sign_in_and_stats_in_chromium(live, smtp):
    seed_matches(live)
    SHOTS.mkdir(parents=True, exist_ok=True)
    errors: list[str] = []
    expected_400: list[bool] = []
    game_code = ""

    def on_console(m) -> None:
        # The one deliberate wrong code per sign-in logs its 400 as a console error; any other
        # console error fails the test.
        if m.type != "error":
            return
        if expected_400 and "status of 400" in m.text:
            expected_400.pop()
            return
        errors.append(m.text)

    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"]
        )
        try:
            for n, (size_name, viewport) in enumerate(SIZES.items(), start=1):
                ctx = browser.new_context(viewport=viewport, base_url=live.url)
                page = ctx.new_page()
                page.on("console", on_console)
                page.on("pageerror", lambda e: errors.append(str(e)))
                page.goto("/")
                page.get_by_role("link", name="Sign in to sync games & stats").click()
                expect(page.get_by_role("heading", name="Sign In")).to_be_visible()
                expect(
                    page.get_by_text("Sign in to resume your games on any device")
                ).to_be_visible()
                page.screenshot(path=str(SHOTS / f"accounts-signin-{size_name}.png"))

                page.fill("#signin-email", "ana@example.com")
                page.click("#signin-send")
                expect(page.locator("#signin-sent")).to_have_text(
                    "Enter the code emailed to ana@example.com."
                )
                page.screenshot(path=str(SHOTS / f"accounts-code-{size_name}.png"))
                code = smtp.inbox.code_for("ana@example.com", n)
                # A wrong code first: a clear error, still on the code screen.
                expected_400.append(True)
                page.fill("#signin-code", f"{(int(code) + 1) % 1_000_000:06d}")
                page.click("#signin-verify")
                expect(page.get_by_role("alert")).to_contain_text("wrong or has expired")
                page.fill("#signin-code", code)
                page.click("#signin-verify")
                if n == 1:  # first sign-in ever: pick the in-game name
                    expect(
                        page.get_by_text(
                            "Pick the name that'll show for you in-game (you can change it later in Settings)."
                        )
                    ).to_be_visible()
                    page.screenshot(path=str(SHOTS / f"accounts-name-{size_name}.png"))
                    page.fill("#signin-name", "Ana")
                    page.click("#signin-name-save")
                expect(page.locator("#signed-in-as")).to_contain_text("Ana")
                # The chosen name became the default name for new games on this device.
                expect(page.locator("#lobby-name")).to_have_value("Ana")
                if n == 1:
                    # The phone, signed in, starts a game (waiting for a second player).
                    r = page.request.post(
                        "/api/games", data={"game": "rummy", "seats": 2, "name": "Ana"}
                    )
                    game_code = r.json()["code"]
                else:
                    # The desktop is another device: the phone's game is under the account, and
                    # opening it resumes the same seat (the waiting room, not a join prompt).
                    item = page.locator(f"#active-games button[data-code='{game_code}']")
                    expect(item).to_be_visible()
                    page.screenshot(path=str(SHOTS / f"accounts-lobby-signed-in-{size_name}.png"))
                    item.click()
                    expect(page.locator("#share-code")).to_have_text(game_code)
                    expect(page.locator("#join-this")).to_have_count(0)
                    page.goto("/")
                if n == 1:
                    page.screenshot(path=str(SHOTS / f"accounts-lobby-signed-in-{size_name}.png"))

                page.click("#stats-link")
                expect(page.get_by_role("heading", name="Your Games")).to_be_visible()
                overall = page.locator("#stats-overall")

                def stat(k: str, overall=overall):
                    return overall.locator(f"[data-stat={k}] .stat-value")

                expect(stat("played")).to_have_text("4")
                expect(stat("won")).to_have_text("2")
                expect(stat("lost")).to_have_text("1")
                expect(stat("tied")).to_have_text("1")
                expect(stat("win_rate")).to_have_text("50%")
                expect(stat("avg_hand")).to_have_text("41.7")
                expect(stat("best_hand")).to_have_text("130")
                expect(stat("streak")).to_have_text("1 win")
                ben = page.locator("#stats-opponents tr[data-opponent='Ben']")
                expect(ben.locator("td").nth(0)).to_have_text("3")
                expect(ben.locator("td").nth(1)).to_have_text("2–1–0")
                expect(
                    page.locator("#stats-opponents tr[data-opponent='Cy'] td").nth(1)
                ).to_have_text("0–0–1")
                # Practice (vs a bot) and the three-player game are absent.
                expect(page.locator("#stats-opponents")).not_to_contain_text("Robo Rita")
                rows = page.locator("#stats-history li")
                expect(rows).to_have_count(4)
                expect(rows.nth(0)).to_contain_text("vs Ben")
                expect(rows.nth(0)).to_contain_text("130 : −20")
                expect(rows.nth(0)).to_contain_text("Won")
                expect(rows.nth(1)).to_contain_text("Tile Rummy")
                expect(rows.nth(1)).to_contain_text("Tied")
                expect(rows.nth(2)).to_contain_text("Lost")
                expect(page.locator("#toast")).to_be_hidden(timeout=6000)  # a clean screenshot
                page.screenshot(path=str(SHOTS / f"accounts-stats-{size_name}.png"))
                page.locator("#history-panel").scroll_into_view_if_needed()
                page.locator("#history-panel").screenshot(
                    path=str(SHOTS / f"accounts-history-{size_name}.png")
                )
                page.screenshot(
                    path=str(SHOTS / f"accounts-stats-full-{size_name}.png"), full_page=True
                )

                # Rummy only: the Tile Rummy tie drops out.
                page.get_by_role("button", name="Rummy", exact=True).click()
                expect(stat("played")).to_have_text("3")
                expect(rows).to_have_count(3)

                page.click("a[href='/']")
                if n == 2:
                    # "You can change it later in Settings": the account's name follows.
                    page.click("#btn-settings")
                    page.fill("#set-name", "Ana B")
                    page.keyboard.press("Escape")
                    expect(page.locator("#signed-in-as")).to_contain_text("Ana B")
                    assert (
                        live.run(
                            live.accounts.service.store.get_or_create_account(
                                "ana@example.com", 0.0
                            )
                        ).display_name
                        == "Ana B"
                    )
                # Sign out from the lobby.
                page.click("#sign-out")
                expect(
                    page.get_by_role("link", name="Sign in to sync games & stats")
                ).to_be_visible()
                ctx.close()
        finally:
            browser.close()
    assert errors == []


@pytest.mark.parametrize("live_env", [{}])  # the defaults: one mail a minute per address
def test_a_code_sent_moments_ago_is_typed_not_resent(live, smtp):
    """Issue 28: asking again within the minute is refused with the reason, and the screen goes
    on to the code already in the inbox, which signs in."""
    r = live.device().post("/api/account/request-code", {"email": "ana@example.com"})
    assert r.status_code == 200, r.text
    code = smtp.inbox.code_for("ana@example.com")
    errors: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"]
        )
        try:
            page = browser.new_page(viewport=SIZES["phone"], base_url=live.url)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto("/signin")
            page.fill("#signin-email", "ana@example.com")
            page.click("#signin-send")
            expect(page.get_by_role("alert")).to_contain_text(
                "A code was sent to this address less than a minute ago; check your inbox"
            )
            page.screenshot(path=str(SHOTS / "accounts-code-recently-sent-phone.png"))
            page.fill("#signin-code", code)
            page.click("#signin-verify")
            expect(page.locator("#signin-name")).to_be_visible()  # signed in: pick a name
        finally:
            browser.close()
    assert errors == []
    assert len([m for m in smtp.inbox.messages if m["To"] == "ana@example.com"]) == 1
