"""Bytes on the wire for the game page, first visit and repeat visit, from a real server.

Starts ``gameshack serve``, asks for ``/g/<code>`` as a browser does (``Accept-Encoding: gzip,
deflate, br, zstd``), then everything that page loads before it can run: the stylesheets and
the module script in ``index.html`` and, recursively, every static ``import`` of those modules
(dynamic ``import()`` is fetched when a screen needs it, so it is not counted) — and the one
dynamic import a game in play always makes before it shows its table: its own table module
(``game.js`` imports ``rummy.js`` or ``tiles.js`` once the game's kind is known, issue 31), with
its static imports. So it reports two pages, a Rummy game's and a Tile Rummy game's. Prints
each file's bytes on the wire (response bodies as sent, after any compression) and the totals;
then a repeat visit the way a browser with a warm cache makes it: ``index.html`` revalidated
with its ``ETag``, other files fetched again only when their ``Cache-Control`` does not let
them be reused for a day.

    .venv/bin/python bench/page_bytes.py
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import tempfile
import time
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin

import httpx

GAMESHACK = Path(sys.executable).with_name("gameshack")
BROWSER = {"Accept-Encoding": "gzip, deflate, br, zstd"}
# The table module each kind of game loads as soon as the page knows the kind (web/game.js).
TABLES = {"Rummy": "rummy.js", "Tile Rummy": "tiles.js"}
STATIC_IMPORT = re.compile(
    r"""(?:^|[;\n])\s*(?:import|export)\s+(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]"""
)


class PageLinks(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "link" and a.get("rel") == "stylesheet" and a.get("href"):
            self.urls.append(a["href"] or "")
        if tag == "script" and a.get("src"):
            self.urls.append(a["src"] or "")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def cacheable_for_a_day(response: httpx.Response) -> bool:
    cc = response.headers.get("cache-control", "")
    m = re.search(r"max-age=(\d+)", cc)
    return "no-cache" not in cc and "no-store" not in cc and bool(m) and int(m[1]) >= 86400


def visit(http: httpx.Client, page: str, table: str) -> list[tuple[str, httpx.Response]]:
    """The page and every file it loads before it shows ``table``'s game, each once."""
    first = http.get(page, headers=BROWSER)
    first.raise_for_status()
    parser = PageLinks()
    parser.feed(first.text)
    seen: dict[str, httpx.Response] = {}
    todo = [urljoin(str(first.url), u) for u in parser.urls]
    app = next(u for u in todo if u.endswith("/app.js"))
    todo.append(urljoin(app, table))  # beside app.js, under the same version
    while todo:
        url = todo.pop()
        if url in seen:
            continue
        r = http.get(url, headers=BROWSER)
        r.raise_for_status()
        seen[url] = r
        if url.split("?")[0].endswith(".js"):
            todo += [urljoin(url, spec) for spec in STATIC_IMPORT.findall(r.text)]
    return [(page, first), *sorted(seen.items())]


def main() -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {**os.environ, "GAMESHACK_DATA_DIR": tempfile.mkdtemp(prefix="gameshack-bytes-")}
    env.pop("GAMESHACK_DATABASE_URL", None)
    env.pop("GAMESHACK_REDIS_URL", None)
    server = subprocess.Popen(
        [str(GAMESHACK), "serve", "--port", str(port), "--log-level", "warning"],
        env=env,
        stdout=subprocess.DEVNULL,  # the address line it prints once listening
        stderr=subprocess.DEVNULL,
    )
    try:
        with httpx.Client(base_url=base, timeout=10) as http:
            for _ in range(300):
                try:
                    if http.get("/healthz").status_code == 200:
                        break
                except httpx.HTTPError:
                    time.sleep(0.05)
            totals = []
            for kind, table in TABLES.items():
                files = visit(http, f"{base}/g/ABCDEF", table)
                raw = wire = 0
                print(f"-- a {kind} game")
                for url, r in files:
                    raw += len(r.content)
                    wire += r.num_bytes_downloaded
                    enc = r.headers.get("content-encoding", "identity")
                    print(
                        f"{url.removeprefix(base):<44} {len(r.content):>7} B  {r.num_bytes_downloaded:>7} B {enc:<8} "
                        f"{r.headers.get('cache-control', '-')}"
                    )
                totals.append(
                    f"{kind + ' game page, first visit':<34} {wire / 1000:.1f} KB on the wire "
                    f"({raw / 1000:.1f} KB raw, {len(files)} files)"
                )
            print("\n".join(totals))
            again = 0
            page, index = files[0]
            etag = index.headers.get("etag")
            r = http.get(page, headers={**BROWSER, **({"If-None-Match": etag} if etag else {})})
            again += r.num_bytes_downloaded
            revalidated = r.status_code == 304
            for url, r in files[1:]:
                if not cacheable_for_a_day(r):
                    again += http.get(url, headers=BROWSER).num_bytes_downloaded
            print(
                f"{kind + ' game page, repeat visit':<34} {again / 1000:.1f} KB on the wire "
                f"(index.html {'304 Not Modified' if revalidated else 'sent again'})"
            )
    finally:
        server.terminate()
        server.wait(10)


if __name__ == "__main__":
    main()
