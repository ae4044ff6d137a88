"""Running it for friends (issue 32), on a real ``gameshack serve`` process: one start-up line
with the address(es) to share, a console without a line per lobby poll, sign-in codes that
stand out, and a Makefile whose ``run`` passes HOST/PORT and installs only the site."""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

from gameshack.server.share import lan_addresses
from server.wsclient import Player, free_port

ROOT = Path(__file__).resolve().parents[2]
SHARE = "GameShack is up"


class Console:
    """``gameshack serve`` with the given arguments; its console (stdout and stderr) in a file."""

    def __init__(self, tmp: Path, *args: str) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.path = tmp / f"console-{self.port}.log"
        env = {
            **os.environ,
            "GAMESHACK_DATA_DIR": str(tmp / "data"),
            "GAMESHACK_BOT_DELAY": "0",
        }
        for name in ("GAMESHACK_DATABASE_URL", "GAMESHACK_SMTP_HOST", "GAMESHACK_LOG_FORMAT"):
            env.pop(name, None)  # SQLite, sign-in codes on the console, text logs
        self._out = open(self.path, "w")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "gameshack.cli", "serve", "--port", str(self.port), *args],
            env=env,
            stdout=self._out,
            stderr=subprocess.STDOUT,
        )

    def text(self) -> str:
        self._out.flush()
        return self.path.read_text(errors="replace")

    def wait_for(self, pattern: str, timeout: float = 30.0) -> re.Match[str]:
        deadline = time.monotonic() + timeout
        while not (m := re.search(pattern, self.text())):
            assert self.proc.poll() is None, f"server exited:\n{self.text()}"
            assert time.monotonic() < deadline, f"no {pattern!r} in:\n{self.text()}"
            time.sleep(0.05)
        return m

    def stop(self) -> str:
        """SIGTERM, wait, and the whole console."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self._out.close()
        return self.path.read_text(errors="replace")

    def player(self, name: str) -> Player:
        return Player(self, name)  # type: ignore[arg-type]


@contextlib.contextmanager
def console(tmp: Path, *args: str) -> Iterator[Console]:
    c = Console(tmp, *args)
    try:
        c.wait_for(SHARE)
        yield c
    finally:
        c.stop()


def _share_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if SHARE in line]


def test_local_start_says_this_machine_only_and_how_to_let_friends_in(tmp_path: Path) -> None:
    with console(tmp_path, "--host", "127.0.0.1") as c:
        assert httpx.get(f"{c.base}/api/health", timeout=10).status_code == 200
        text = c.stop()
    [line] = _share_lines(text)
    assert f"http://127.0.0.1:{c.port}" in line
    assert "this machine only" in line and "HOST=0.0.0.0" in line
    # uvicorn's own "running on http://…" is left out: the one line above is the one to read.
    assert "Uvicorn running on" not in text


def test_on_every_network_it_names_the_lan_addresses_and_they_work(tmp_path: Path) -> None:
    with console(tmp_path, "--host", "0.0.0.0") as c:
        [line] = _share_lines(c.text())
        lan = lan_addresses()
        if not lan:  # a machine on no network: the line says so instead
            assert "No network address found" in line
            return
        shared = re.findall(r"http://([\d.]+):(\d+)", line.split("(here:")[0])
        assert [a for a, _ in shared] == lan
        for addr, port in shared:
            assert int(port) == c.port
            assert not addr.startswith(("127.", "0."))
            # A friend's browser on the network reaches the site at that address.
            r = httpx.get(f"http://{addr}:{port}/api/health", timeout=10)
            assert r.status_code == 200 and r.json()["ok"] is True
        assert f"(here: http://127.0.0.1:{c.port})" in line


def test_the_console_has_no_line_per_poll_and_the_sign_in_code_stands_out(
    tmp_path: Path,
) -> None:
    with console(tmp_path) as c:
        ana = c.player("Ana")
        code = ana.create(game="rummy", seats=2)["code"]
        for _ in range(10):  # the lobby's "Your Active Games" poll, the page, health checks
            assert ana.http.get("/api/games").status_code == 200
            assert ana.http.get("/api/health").status_code == 200
        assert ana.http.get(f"/api/games/{code}").status_code == 200
        with ana.socket(code) as sock:
            sock.send(type="ping", id="p")
            sock.wait_type("pong")
        assert ana.http.get("/api/games/ZZZZZ").status_code == 404
        r = ana.http.post("/api/account/request-code", json={"email": "ana@example.com"})
        assert r.status_code == 200
        c.wait_for(r"code for ana@example\.com: \d{6}")
        text = c.stop()
    lines = text.splitlines()
    # Reads that went well leave no line; what changes something, and errors, do.
    assert not [x for x in lines if re.search(r'"(GET|HEAD) /[^"]*" [23]\d\d', x)], text
    assert any('"POST /api/games HTTP/1.1" 201' in x for x in lines), text
    assert any('"GET /api/games/ZZZZZ HTTP/1.1" 404' in x for x in lines), text
    assert any('"WebSocket /ws/' in x and "[accepted]" in x for x in lines), text
    assert not any(x.strip() in ("connection open", "connection closed") for x in lines), text
    # The code sits alone on its line, between two frame lines.
    i = next(i for i, x in enumerate(lines) if "code for ana@example.com:" in x)
    assert set(lines[i - 1].strip()) == {"="} and len(lines[i - 1].strip()) >= 40
    assert set(lines[i + 2].strip()) == {"="}
    assert lines[i].strip().startswith("GameShack sign-in code")


def test_debug_level_logs_every_request(tmp_path: Path) -> None:
    with console(tmp_path, "--log-level", "debug") as c:
        assert httpx.get(f"{c.base}/api/games", timeout=10).status_code == 200
        c.wait_for(r'"GET /api/games HTTP/1.1" 200')


def _dry_run(*targets: str) -> str:
    done = subprocess.run(
        ["make", "--no-print-directory", "-n", "-B", *targets],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_make_run_passes_host_and_port_and_installs_only_the_site() -> None:
    run = _dry_run("run", "HOST=0.0.0.0", "PORT=8080")
    assert run.splitlines()[-1] == ".venv/bin/gameshack serve --host 0.0.0.0 --port 8080"
    installs = [x for x in run.splitlines() if "pip install" in x]
    assert installs and not [x for x in installs if "dev" in x], installs
    assert _dry_run("run").splitlines()[-1].endswith("serve --host 127.0.0.1 --port 8000")
    # The test tools come with `make test`, which CI runs.
    assert "dev-requirements" in _dry_run("test")
    assert "make test" in (ROOT / ".ci" / "run").read_text()
