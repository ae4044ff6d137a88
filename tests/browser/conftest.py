"""Real-browser tests: the real server (uvicorn + create_app, temp data dir) and Debian's
Chromium driven by Playwright. Every page's console errors fail the test that opened it."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

pytest.importorskip("playwright.sync_api")
from playwright.sync_api import Browser, Page, sync_playwright

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "test-artifacts" / "screenshots"
CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1440, "height": 900}
GRACE_SECONDS = "2"  # long enough to click Undo, short enough to keep the suite quick


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """The real app under uvicorn in its own process, on a fixed port and data directory, so a
    test can stop it and start it again (a restart keeps every game: they are in SQLite)."""

    def __init__(self, port: int, data: str) -> None:
        self.port, self.data = port, data
        self.url = f"http://127.0.0.1:{port}"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        env = {
            **os.environ,
            "GAMESHACK_DATA_DIR": self.data,
            "GAMESHACK_DATABASE_URL": f"sqlite+aiosqlite:///{self.data}/gameshack.db",
            "GAMESHACK_ALLOW_SEED": "1",
            "GAMESHACK_BOT_DELAY": "0",
            "GAMESHACK_GRACE_SECONDS": GRACE_SECONDS,
            "GAMESHACK_ALLOWED_ORIGINS": self.url,
            # One server for the whole browser suite, every page from 127.0.0.1: lift the
            # per-address creation limit (tests/hostile/ checks the limits themselves).
            "GAMESHACK_GAMES_PER_HOUR": "10000",
        }
        log = open(Path(self.data) / "server.log", "a")  # noqa: SIM115
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "uvicorn",
                "--factory",
                "gameshack.server.app:create_app",
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--log-level",
                "warning",
            ],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=ROOT,
        )
        log.close()
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(self.url + "/", timeout=1).read()
                return
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    self.proc.kill()
                    raise RuntimeError(
                        f"server did not start; see {self.data}/server.log"
                    ) from None
                time.sleep(0.1)

    def stop(self) -> None:
        if self.proc is None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc = None


def new_server() -> Server:
    return Server(_free_port(), tempfile.mkdtemp(prefix="gs-browser-"))


@pytest.fixture(scope="session")
def base_url() -> Iterator[str]:
    external = os.environ.get("GAMESHACK_BROWSER_BASE_URL")  # a server you already run
    if external:
        yield external.rstrip("/")
        return
    server = new_server()
    server.start()
    yield server.url
    server.stop()


# Package scope, not session: Playwright's sync API keeps an event loop running in this thread
# while it is open, and asyncio.run() in the suite's later (non-browser) tests would fail.
@pytest.fixture(scope="package")
def browser() -> Iterator[Browser]:
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian's chromium is not installed (make browser-deps)")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture
def device(
    browser: Browser, base_url: str, request: pytest.FixtureRequest
) -> Iterator[Callable[..., Page]]:
    """``device("phone")`` opens a new browser context (a separate device, own cookies and
    localStorage) and returns its first page. Console errors from any of them fail the test."""
    contexts = []
    errors: list[str] = []

    def watch(page: Page, name: str) -> Page:
        page.on(
            "console",
            lambda m: (
                m.type == "error" and errors.append(f"{name}: {m.text} {m.location.get('url', '')}")
            ),
        )
        page.on("pageerror", lambda e: errors.append(f"{name}: {e}"))
        page.set_default_timeout(10_000)
        return page

    def open_device(kind: str = "phone", name: str | None = None) -> Page:
        ctx = browser.new_context(viewport=PHONE if kind == "phone" else DESKTOP, base_url=base_url)
        contexts.append(ctx)
        return watch(ctx.new_page(), name or f"{kind}{len(contexts)}")

    yield open_device
    for ctx in contexts:
        ctx.close()
    assert errors == [], f"console errors: {errors}"


def shot(page: Page, name: str) -> None:
    """Save the screen at phone and desktop size: ``<name>-phone.png``, ``<name>-desktop.png``."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    original = page.viewport_size
    for label, size in (("phone", PHONE), ("desktop", DESKTOP)):
        page.set_viewport_size(size)
        page.wait_for_timeout(120)
        page.screenshot(path=str(SHOTS / f"{name}-{label}.png"))
    if original:
        page.set_viewport_size(original)
