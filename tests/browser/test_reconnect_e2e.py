"""The reconnecting indicator: the server goes away mid-game and comes back; the tab shows
"Reconnecting…", then resyncs by itself to the same game."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect

from .conftest import PHONE, new_server, shot
from .helpers import create_game, dismiss_first_deal, view, wait_view

pytestmark = pytest.mark.browser


def test_reconnecting_indicator_and_resync_after_a_server_restart(browser: Browser) -> None:
    server = new_server()
    server.start()
    ctx = browser.new_context(viewport=PHONE, base_url=server.url)
    errors: list[str] = []
    try:
        page = ctx.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on(
            "console",
            # While the server is down the browser itself logs failed socket connections;
            # anything else is a bug.
            lambda m: (
                m.type == "error"
                and "WebSocket" not in m.text
                and "ERR_CONNECTION_REFUSED" not in m.text
                and errors.append(m.text)
            ),
        )
        create_game(page, "rummy", "Ana", practice="medium")
        page.click("#deal-deck")
        wait_view(page, "v.state.phase === 'playing'")
        dismiss_first_deal(page)
        before = view(page)
        expect(page.locator("#reconnecting")).to_be_hidden()
        server.stop()
        expect(page.locator("#reconnecting")).to_be_visible()
        expect(page.locator("#reconnecting")).to_have_text("Reconnecting…")
        shot(page, "reconnecting")
        server.start()
        expect(page.locator("#reconnecting")).to_be_hidden(timeout=15_000)
        wait_view(page, f"v.v >= {before['v']} && v.room.code === '{before['room']['code']}'")
        # Nothing was lost: my hand is the one I had (only my own moves could change it).
        assert sorted(view(page)["state"]["hand"]) == sorted(before["state"]["hand"])
        expect(page.locator("#hand .card")).to_have_count(len(view(page)["state"]["hand"]))
    finally:
        ctx.close()
        server.stop()
    assert errors == []


def test_the_client_puts_a_views_log_back_together_as_the_protocol_says(device) -> None:
    """The web client's rule (net.js ``takeView``/``joinLog``), run in the browser on the cases
    the protocol's reference (``outbound.join_log``) is tested on: a view brings the events
    after ``log_from``; one that does not follow the last view is refused, and the socket asks
    for the whole view once, however many views on their way are refused before it comes."""
    p = device("phone")
    p.goto("/")
    got = p.evaluate(
        """async () => {
          const { GameSocket } = await import('/static/net.js');
          const deal = { seat: 0, kind: 'deal' }, draw = { seat: 0, kind: 'draw' };
          const sent = [];
          const sock = {
            v: 0, log: null, syncing: false, joinLog: GameSocket.prototype.joinLog,
            send(m) { sent.push(m.type); return true; },
          };
          const feed = (v, from, log, state = { hand: [] }) => {
            const msg = { type: 'view', v, log_from: from, log, state };
            const ok = GameSocket.prototype.takeView.call(sock, msg);
            if (ok) sock.v = v;
            return [ok, msg.state && msg.state.log, 'log' in msg || 'log_from' in msg];
          };
          const views = [
            feed(7, 1, [draw]),      // a first view must bring the whole log
            feed(7, 0, [deal]),      // whole
            feed(8, 1, [draw]),      // the next one: only what is new
            feed(8, 2, []),          // the same view again
            feed(10, 2, [deal]),     // view 9 went missing
            feed(11, 3, [draw]),     // on its way already: refused too, no second sync
            feed(11, 0, [draw]),     // whole again (the sync's answer)
            feed(12, 0, null, null), // a room waiting for players
          ];
          return [views, sent];
        }"""
    )
    deal, draw = {"seat": 0, "kind": "deal"}, {"seat": 0, "kind": "draw"}
    views, sent = got
    assert views == [
        [False, None, False],
        [True, [deal], False],
        [True, [deal, draw], False],
        [True, [deal, draw], False],
        [False, None, False],
        [False, None, False],
        [True, [draw], False],
        [True, None, False],
    ]
    assert sent == ["sync", "sync"]  # one for the first view, one for the gap
