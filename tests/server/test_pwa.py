"""Installable: the web app manifest and the service worker at the root, and the icons they
name, over real HTTP. The worker is revalidated on every check (a deploy's new worker must be
found at once) and carries the client's version, so it caches that version's files only."""

from __future__ import annotations

import json
import re
import shutil
import struct
import sys
from pathlib import Path

import httpx

from gameshack.server.static import StaticSite
from server.wsclient import LiveServer
from web.test_modules import WEB

BROWSER = {"Accept-Encoding": "gzip, deflate, br, zstd"}
ICON_LINKS = re.compile(
    r"""<link\b[^>]*\brel="(icon|apple-touch-icon|manifest)"[^>]*\bhref="([^"]+)\""""
)


def page_links(live: LiveServer) -> dict[str, str]:
    page = httpx.get(live.base + "/", headers=BROWSER)
    return dict(ICON_LINKS.findall(page.text))


def png_size(body: bytes) -> tuple[int, int]:
    assert body[:8] == b"\x89PNG\r\n\x1a\n" and body[12:16] == b"IHDR"
    width, height = struct.unpack(">II", body[16:24])
    return width, height


def test_manifest_is_served_revalidated_with_icons_that_exist(live: LiveServer) -> None:
    links = page_links(live)
    assert links["manifest"] == "/manifest.webmanifest"
    r = httpx.get(live.base + "/manifest.webmanifest", headers=BROWSER)
    assert r.status_code == 200
    assert r.headers["content-type"] == "application/manifest+json"
    assert r.headers["cache-control"] == "no-cache"  # like the page: its icons' URLs change
    assert r.headers["content-encoding"] == "br"
    assert "set-cookie" not in r.headers  # fetched without credentials: no device made
    again = httpx.get(
        live.base + "/manifest.webmanifest", headers={**BROWSER, "If-None-Match": r.headers["etag"]}
    )
    assert again.status_code == 304 and again.content == b""
    manifest = json.loads(r.content)
    assert manifest["start_url"] == "/" and manifest["scope"] == "/"
    assert manifest["display"] == "standalone"
    assert manifest["name"] == "GameShack" and manifest["short_name"]
    sizes = {}
    version = None
    for icon in manifest["icons"]:
        assert icon["src"].startswith("/static/"), icon
        version = version or icon["src"].split("/")[2]
        assert icon["src"].split("/")[2] == version  # the page's version: kept for a year
        got = httpx.get(live.base + icon["src"], headers=BROWSER)
        assert got.status_code == 200, icon
        assert got.headers["content-type"] == icon["type"], icon
        assert got.headers["cache-control"] == "public, max-age=31536000, immutable", icon
        assert got.content == (WEB / icon["src"].split("/", 3)[3]).read_bytes(), icon
        if icon["type"] == "image/png":
            assert "content-encoding" not in got.headers  # compressed already
            sizes[icon["sizes"]] = png_size(got.content)
    assert sizes == {"192x192": (192, 192), "512x512": (512, 512)}  # what Chrome asks for
    # The page's icon links are versioned the same way.
    for rel in ("icon", "apple-touch-icon"):
        assert links[rel].split("/")[2] == version, links
        assert httpx.get(live.base + links[rel]).status_code == 200, links


def test_service_worker_is_at_the_root_revalidated_and_knows_the_version(
    live: LiveServer,
) -> None:
    r = httpx.get(live.base + "/sw.js", headers=BROWSER)
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/javascript")
    assert r.headers["cache-control"] == "no-cache"
    assert "set-cookie" not in r.headers
    again = httpx.get(live.base + "/sw.js", headers={**BROWSER, "If-None-Match": r.headers["etag"]})
    assert again.status_code == 304
    head = httpx.head(live.base + "/sw.js", headers=BROWSER)
    assert head.status_code == 200 and head.headers["etag"] == r.headers["etag"]
    # The worker's version is the page's, written over the placeholder in web/pwa/sw.js.
    version = page_links(live)["icon"].split("/")[2]
    assert f"const VERSION = '{version}';" in r.text
    assert "__GS_VERSION__" not in r.text
    assert r.text == (WEB / "pwa" / "sw.js").read_text(encoding="utf-8").replace(
        "__GS_VERSION__", version
    )
    # Only at the root: nothing else with a dot is a page.
    assert httpx.get(live.base + "/sw.jsx").status_code == 404
    assert httpx.get(live.base + "/manifest.json").status_code == 404


def test_each_deploy_gets_a_new_worker(tmp_path: Path) -> None:
    copy = tmp_path / "web"
    shutil.copytree(WEB, copy)
    before = StaticSite(copy)
    app = copy / "app.js"
    app.write_text(app.read_text(encoding="utf-8") + "\n// changed\n", encoding="utf-8")
    after = StaticSite(copy)
    assert after.version != before.version
    # A browser compares the worker's bytes: a changed client makes a changed worker, which
    # then drops the old version's cache.
    assert after.worker.body != before.worker.body
    assert after.version.encode() in after.worker.body
    assert after.version.encode() in after.manifest.body
    assert before.version.encode() not in after.manifest.body


def test_icons_are_what_the_script_draws() -> None:
    """The committed icons are scripts/make_icons.py's: the SVG as it writes it, PNG sizes."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
    try:
        import make_icons
    finally:
        sys.path.pop(0)
    assert (WEB / "icons" / "icon.svg").read_text(encoding="utf-8") == make_icons.svg()
    for size in make_icons.SIZES:
        assert png_size((WEB / "icons" / f"icon-{size}.png").read_bytes()) == (size, size)
