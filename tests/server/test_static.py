"""The client's files over real HTTP: brotli or gzip, versioned URLs kept for a year, the page
revalidated.

Walks the page the way a browser does — its stylesheet and module script, then every import of
every module, static and dynamic, resolved against the importing module's URL — and checks each
answer against the file on disk."""

from __future__ import annotations

import asyncio
import gzip
import re
import shutil
from pathlib import Path
from urllib.parse import urljoin

import brotli
import httpx

from gameshack.server.static import StaticSite, accepts, accepts_gzip
from server.wsclient import LiveServer
from web.test_modules import WEB, imports

BROWSER = {"Accept-Encoding": "gzip, deflate, br, zstd"}
GZIP = {"Accept-Encoding": "gzip, deflate"}
IDENTITY = {"Accept-Encoding": "identity"}
PAGE_LINKS = re.compile(r"""<(?:link|script)\b[^>]*\b(?:href|src)="(/static/[^"]+)\"""")
# The one URL a module builds beside itself (account.js loads accounts.css this way).
BESIDE = re.compile(r"""new URL\(\s*['"]([^'"]+)['"]\s*,\s*import\.meta\.url\s*\)""")


def test_page_is_compressed_revalidated_and_answers_304(live: LiveServer) -> None:
    for headers, coding in ((BROWSER, "br"), (GZIP, "gzip")):
        for path in ("/", "/g/ABCDEF", "/rummy"):
            r = httpx.get(live.base + path, headers=headers)
            assert r.status_code == 200 and r.headers["content-encoding"] == coding
            assert r.headers["cache-control"] == "no-cache"
            assert r.headers["content-type"].startswith("text/html")
            assert r.headers["vary"] == "Accept-Encoding"
            assert r.num_bytes_downloaded < len(r.content)  # compressed on the wire
            again = httpx.get(
                live.base + path, headers={**headers, "If-None-Match": r.headers["etag"]}
            )
            assert again.status_code == 304 and again.content == b""
            assert again.headers["etag"] == r.headers["etag"]
    gzipped = httpx.get(live.base + "/", headers=GZIP)
    br = httpx.get(live.base + "/", headers=BROWSER)
    plain = httpx.get(live.base + "/", headers=IDENTITY)
    assert "content-encoding" not in plain.headers and plain.text == br.text == gzipped.text
    # Three representations, three validators: none answers 304 for another.
    assert len({plain.headers["etag"], br.headers["etag"], gzipped.headers["etag"]}) == 3
    stale = httpx.get(live.base + "/", headers={**GZIP, "If-None-Match": br.headers["etag"]})
    assert stale.status_code == 200 and stale.headers["content-encoding"] == "gzip"
    assert plain.headers["vary"] == "Accept-Encoding"
    # Unchanged parts of index.html are as on disk; only its /static/ links carry the version.
    disk = (WEB / "index.html").read_text(encoding="utf-8")
    version = PAGE_LINKS.findall(br.text)[0].split("/")[2]
    assert br.text == disk.replace('="/static/', f'="/static/{version}/')


def test_every_file_the_page_loads_resolves_versioned_and_immutable(live: LiveServer) -> None:
    page = httpx.get(live.base + "/g/ABCDEF", headers=BROWSER)
    links = [u for u in PAGE_LINKS.findall(page.text) if u.endswith((".js", ".css"))]  # no icons
    todo = [urljoin(str(page.url), u) for u in links]
    assert {u.rsplit("/", 1)[1] for u in todo} >= {"app.css", "app.js"}
    seen: dict[str, httpx.Response] = {}
    while todo:
        url = todo.pop()
        if url in seen:
            continue
        r = seen[url] = httpx.get(url, headers=BROWSER)
        assert r.status_code == 200, url
        assert r.headers["cache-control"] == "public, max-age=31536000, immutable", url
        assert r.headers["content-encoding"] == "br", url
        name = url.rsplit("/", 1)[1]
        assert r.content == (WEB / name).read_bytes(), url  # the very file, decompressed
        if name.endswith(".js"):
            assert r.headers["content-type"].startswith("text/javascript"), url
            todo += [urljoin(url, spec) for spec in imports(r.text) + BESIDE.findall(r.text)]
        else:
            assert r.headers["content-type"].startswith("text/css"), url
    versions = {u.split("/")[4] for u in seen}
    assert len(versions) == 1  # one version for the whole page: no old module mixed in
    reached = {u.rsplit("/", 1)[1] for u in seen}
    on_disk = {p.name for p in WEB.iterdir() if p.suffix in (".js", ".css")}
    assert reached == on_disk  # every module and stylesheet, lazy ones too


def test_versioned_file_answers_304_and_unversioned_is_revalidated(live: LiveServer) -> None:
    page = httpx.get(live.base + "/", headers=GZIP)
    app_js = live.base + next(u for u in PAGE_LINKS.findall(page.text) if u.endswith("app.js"))
    r = httpx.get(app_js, headers=GZIP)
    again = httpx.get(app_js, headers={**GZIP, "If-None-Match": r.headers["etag"]})
    assert again.status_code == 304 and again.content == b""
    head = httpx.head(app_js, headers=GZIP)
    assert head.status_code == 200 and head.headers["etag"] == r.headers["etag"]
    old = httpx.get(live.base + "/static/app.js", headers=IDENTITY)
    assert old.status_code == 200 and old.headers["cache-control"] == "no-cache"
    assert old.content == (WEB / "app.js").read_bytes()
    # A page from an earlier deploy gets today's file, but not to keep.
    stale = httpx.get(live.base + "/static/000000000000/app.js")
    assert stale.status_code == 200 and stale.headers["cache-control"] == "no-cache"
    for missing in ("/static/nope.js", "/static/../pyproject.toml", "/static/%2e%2e/cli.py"):
        assert httpx.get(live.base + missing).status_code == 404, missing


def test_version_changes_with_any_file(tmp_path: Path) -> None:
    copy = tmp_path / "web"
    shutil.copytree(WEB, copy)
    before = StaticSite(copy)
    assert before.version == StaticSite(copy).version  # the same files, the same version
    dom = copy / "dom.js"
    dom.write_text(dom.read_text(encoding="utf-8") + "\n// changed\n", encoding="utf-8")
    after = StaticSite(copy)
    assert after.version != before.version
    assert after.version.encode() in after.page.body
    assert gzip.decompress(after.files["dom.js"].gzipped or b"") == dom.read_bytes()


def test_accept_encoding() -> None:
    assert accepts_gzip("gzip, deflate, br")
    assert accepts_gzip("br;q=1.0, GZIP;q=0.5")
    assert accepts_gzip("*")
    assert not accepts_gzip("gzip;q=0")
    assert not accepts_gzip("identity")
    assert not accepts_gzip("")
    assert accepts("gzip, deflate, br, zstd", "br")
    assert accepts("BR;q=0.5", "br")
    assert not accepts("gzip, deflate", "br")
    assert not accepts("br;q=0, gzip", "br")
    assert not accepts("br;q=1.2.3", "br") and not accepts_gzip("gzip;q=x")


def test_an_unreadable_weight_is_not_an_error(live: LiveServer) -> None:
    """A malformed ``Accept-Encoding`` gets the page uncompressed, not a 500."""
    r = httpx.get(live.base + "/", headers={"Accept-Encoding": "br;q=1.2.3, gzip;q=."})
    assert r.status_code == 200 and "content-encoding" not in r.headers
    assert r.headers["content-type"].startswith("text/html")


def test_each_file_is_brotli_compressed_once() -> None:
    """On first demand, not at start-up; requests made meanwhile share the one compression."""
    site = StaticSite(WEB)
    entry = site.files["app.css"]

    async def three_at_once() -> list[bytes]:
        return list(await asyncio.gather(*(site.brotli(entry) for _ in range(3))))

    first, second, third = asyncio.run(three_at_once())
    assert first is second is third
    assert brotli.decompress(first) == entry.body
    assert len(first) < len(entry.gzipped or b"")


def test_the_clients_files_set_no_cookie(live: LiveServer) -> None:
    page = httpx.get(live.base + "/", headers=GZIP)
    assert "gs_device" in page.headers.get("set-cookie", "")  # a new visitor gets a device
    for url in PAGE_LINKS.findall(page.text):
        r = httpx.get(live.base + url, headers=GZIP)  # no cookie sent, none set
        assert r.status_code == 200 and "set-cookie" not in r.headers, url
