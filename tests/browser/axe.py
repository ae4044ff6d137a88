"""axe-core for any page of the browser suite: :func:`assert_accessible`.

The vendored file (tests/browser/vendor/README.md) is fetched by the page from a same-origin
URL that the test answers itself (``page.route``), so the site's Content-Security-Policy
(scripts from 'self' only) holds as it does for players: no ``bypass_csp`` needed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playwright.sync_api import Page

__all__ = ["AXE", "assert_accessible", "axe_violations"]

AXE = Path(__file__).parent / "vendor" / "axe.min.js"
AXE_URL = "/__tests__/axe.min.js"  # answered by the test, never by the server
RUN_AXE = """async () => {
  const r = await axe.run(document, {resultTypes: ['violations']});
  return r.violations.map((v) => ({id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.slice(0, 4).map((n) => n.target.join(' ') + ' :: ' + n.failureSummary)}));
}"""


def axe_violations(page: Page) -> list[dict[str, Any]]:
    """Every violation axe finds on the page as it is now (all of axe's default rules)."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        # The context's route: it also sees a request that the page's service worker passes
        # on (Chromium), which the page's own route does not.
        page.context.route(
            f"**{AXE_URL}",
            lambda route: route.fulfill(path=str(AXE), content_type="text/javascript"),
        )
        page.add_script_tag(url=AXE_URL)
    return page.evaluate(RUN_AXE)  # type: ignore[no-any-return]


def assert_accessible(page: Page, screen: str) -> None:
    """No serious or critical violation on the page as it is now."""
    bad = [v for v in axe_violations(page) if v["impact"] in ("serious", "critical")]
    assert bad == [], f"{screen}: {bad}"
