"""Chromium loads the client from versioned, brotli-compressed URLs and keeps them: on a second
visit the modules and stylesheets come from its cache."""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import Page, Response

from browser.conftest import shot


def test_client_loads_from_versioned_files_and_reuses_them(device: Callable[..., Page]) -> None:
    page = device("desktop")
    answers: list[Response] = []
    page.on("response", lambda r: answers.append(r))
    page.goto("/")
    page.wait_for_selector(".account-bar")  # the lobby, drawn by the modules
    # accounts.css (loaded by a module from beside itself) is applied.
    page.wait_for_function(
        "() => [...document.styleSheets].some((s) => (s.href || '').endsWith('/accounts.css'))"
    )
    bar = "getComputedStyle(document.querySelector('.account-bar')).display"
    assert page.evaluate(bar) == "flex"  # an unstyled <nav> is a block
    static = [r for r in answers if "/static/" in r.url]
    assert {r.url.rsplit("/", 1)[1] for r in static} >= {"app.js", "app.css", "accounts.css"}
    versions = {r.url.split("/")[4] for r in static}
    assert len(versions) == 1 and len(versions.pop()) == 12
    for r in static:
        assert r.status == 200, r.url
        assert r.headers["content-encoding"] == "br", r.url
        assert "immutable" in r.headers["cache-control"], r.url
    shot(page, "static-lobby")

    # A second visit: everything under /static/ comes from the browser's cache (transferSize
    # 0: nothing went over the network; the page's own 304 is in tests/server/test_static.py).
    page.goto("/")
    page.wait_for_selector(".account-bar")
    loads = page.evaluate(
        """() => performance.getEntriesByType('resource').filter((e) => e.name.includes('/static/'))
            .map((e) => [e.name, e.transferSize])"""
    )
    first = {r.url for r in static if r.url.endswith((".js", ".css"))}
    assert len(first) >= 15 and {u for u, _ in loads} >= first  # the lobby's modules, again
    assert [u for u, size in loads if size != 0] == []
