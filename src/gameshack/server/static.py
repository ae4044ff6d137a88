"""The browser client's files, read and compressed once at start-up and served from memory.

Every file is served under a versioned path, ``/static/<version>/app.js``, where the version is
a hash of the whole client: such a response never changes, so browsers keep it for a year
without asking again (``immutable``). Modules import each other by relative paths
(``./dom.js``), which resolve under the same versioned path, so no module is rewritten; only
``index.html`` is, to point at the versioned files, and it is revalidated on every visit
(``no-cache`` with an ``ETag``: a 304 costs a few bytes). A change to any file changes the
version, so a deploy never mixes old and new modules in one page.

Text files are gzip-compressed once at start-up; a client that accepts gzip gets those bytes.
A client that accepts brotli (every current browser) gets brotli's, 13.5% fewer for a game
page (issue 31). Brotli at its best quality takes ~0.8 s for the whole client, too long for
start-up, so each file is brotli-compressed on the first request that wants it, once, in a
worker thread (the library releases the GIL: the event loop carries on meanwhile).
Unversioned ``/static/<name>`` still works, revalidated like the page.

Two files live at the root, revalidated like the page, with the version written in: the
service worker (``/sw.js``: its scope is the folder it is served from, the whole site) and the
web app manifest (``/manifest.webmanifest``, its icons at versioned URLs).
"""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import mimetypes
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import brotli
from starlette.responses import Response

__all__ = ["StaticSite"]

IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"
TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".json": "application/json",
    ".webmanifest": "application/manifest+json",
}
# Compressing these gains nothing (they are compressed already) or too little to matter.
INCOMPRESSIBLE = {".png", ".jpg", ".jpeg", ".gif", ".webp", ".woff", ".woff2", ".ico"}
VERSION_LEN = 12
WORKER = "pwa/sw.js"
MANIFEST = "pwa/manifest.webmanifest"
WORKER_VERSION = b"__GS_VERSION__"
BROTLI_QUALITY = 11  # the best: paid once per file, not per request


@dataclass(frozen=True, slots=True)
class Entry:
    body: bytes
    gzipped: bytes | None  # None: not worth compressing
    media_type: str
    etag: str


def _entry(name: str, body: bytes) -> Entry:
    suffix = Path(name).suffix.lower()
    media_type = TYPES.get(suffix) or mimetypes.guess_type(name)[0] or "application/octet-stream"
    gzipped = None
    if suffix not in INCOMPRESSIBLE:
        packed = gzip.compress(body, compresslevel=9, mtime=0)
        if len(packed) < len(body):
            gzipped = packed
    return Entry(body, gzipped, media_type, f'"{hashlib.sha256(body).hexdigest()[:20]}"')


def accepts(accept_encoding: str, *names: str) -> bool:
    """Whether an ``Accept-Encoding`` header lets the response be in a coding of one of
    ``names`` (RFC 9110 §12.5.3; ``*`` stands for any)."""
    for part in accept_encoding.split(","):
        name, _, params = part.partition(";")
        if name.strip().lower() in (*names, "*"):
            q = re.search(r"q\s*=\s*([^;,\s]*)", params)
            try:
                return not q or float(q[1]) > 0
            except ValueError:  # an unreadable weight ("q=1.2.3"): as if not offered
                return False
    return False


def accepts_gzip(accept_encoding: str) -> bool:
    """Whether the response may be gzip (the replays' pages are kept gzipped)."""
    return accepts(accept_encoding, "gzip", "x-gzip")


class StaticSite:
    """The files of one directory, each with its bytes, gzip bytes and ETag, plus the page;
    brotli bytes as they are first asked for."""

    def __init__(self, root: Path) -> None:
        raw = {
            p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*"))
            if p.is_file() and "__pycache__" not in p.parts
        }
        digest = hashlib.sha256()
        for name, body in raw.items():
            digest.update(name.encode() + b"\0" + hashlib.sha256(body).digest())
        self.version = digest.hexdigest()[:VERSION_LEN]
        self.files = {name: _entry(name, body) for name, body in raw.items()}
        page = raw.get("index.html")
        if page is None:
            page = b"<!doctype html><title>GameShack</title><h1>GameShack</h1>"
        # Attribute values only (href="/static/…", src="/static/…"): the page's own links.
        page = page.replace(b'="/static/', f'="/static/{self.version}/'.encode())
        self.page = _entry("index.html", page)
        # The worker caches this version's files only; the manifest names versioned icons.
        worker = raw.get(WORKER, b"")
        self.worker = _entry("sw.js", worker.replace(WORKER_VERSION, self.version.encode()))
        manifest = raw.get(MANIFEST, b"{}")
        manifest = manifest.replace(b'"/static/', f'"/static/{self.version}/'.encode())
        self.manifest = _entry("manifest.webmanifest", manifest)
        # Brotli bytes by ETag (a file under two paths is one entry), made on first demand.
        self._brotli: dict[str, asyncio.Future[bytes]] = {}

    async def page_response(self, headers: Mapping[str, str]) -> Response:
        """``index.html`` (for ``/`` and every client-side route), revalidated on each visit."""
        return await self._respond(self.page, headers, REVALIDATE)

    async def worker_response(self, headers: Mapping[str, str]) -> Response:
        """``/sw.js``: revalidated on each check, so a deploy's new worker is found at once."""
        return await self._respond(self.worker, headers, REVALIDATE)

    async def manifest_response(self, headers: Mapping[str, str]) -> Response:
        """``/manifest.webmanifest``, revalidated like the page."""
        return await self._respond(self.manifest, headers, REVALIDATE)

    async def file_response(self, path: str, headers: Mapping[str, str]) -> Response | None:
        """``/static/<path>``; None when there is no such file."""
        version, _, rest = path.partition("/")
        if rest and len(version) == VERSION_LEN and rest in self.files:
            # A page from before a deploy asking for an old version gets today's file, but
            # only for this visit: just the current version may be kept for good.
            cache = IMMUTABLE if version == self.version else REVALIDATE
            return await self._respond(self.files[rest], headers, cache)
        entry = self.files.get(path)
        if entry is None:
            return None
        return await self._respond(entry, headers, REVALIDATE)

    async def brotli(self, entry: Entry) -> bytes:
        """``entry``'s body brotli-compressed: the first call compresses it in a worker thread,
        every later one (and any made meanwhile) gets the same bytes."""
        job = self._brotli.get(entry.etag)
        if job is None:
            work = asyncio.to_thread(brotli.compress, entry.body, quality=BROTLI_QUALITY)
            job = self._brotli[entry.etag] = asyncio.ensure_future(work)
        # Shielded: a client that hangs up does not cancel the one compression of the file.
        return await asyncio.shield(job)

    async def _respond(self, entry: Entry, headers: Mapping[str, str], cache: str) -> Response:
        body, etag = entry.body, entry.etag
        out = {"Cache-Control": cache}
        coding = None
        if entry.gzipped is not None:
            out["Vary"] = "Accept-Encoding"
            wants = headers.get("accept-encoding", "")
            coding = "br" if accepts(wants, "br") else "gzip" if accepts_gzip(wants) else None
        if coding:
            # Another representation, so another strong validator.
            etag = f'{etag[:-1]}-{"gz" if coding == "gzip" else coding}"'
            out["Content-Encoding"] = coding
        out["ETag"] = etag
        wanted = {t.strip().removeprefix("W/") for t in headers.get("if-none-match", "").split(",")}
        if etag in wanted or "*" in wanted:
            out.pop("Content-Encoding", None)
            return Response(status_code=304, headers=out)
        if coding == "br":
            body = await self.brotli(entry)
        elif coding == "gzip":
            body = entry.gzipped or body
        return Response(body, media_type=entry.media_type, headers=out)
