"""Cold start: from running ``gameshack serve`` to the first 200 on ``/``.

Starts the real command several times on a free port, polls ``GET /`` every 5 ms and prints the
median and the slowest start (wall clock, and the CPU time the server process had used when
it answered: on a shared machine the wall clock also counts waiting for a core), for a fresh data directory (the database is created and
migrated) and for one that already holds the newest schema (an ordinary restart). Also prints
the time a fresh interpreter takes to import what ``serve`` imports.

    .venv/bin/python bench/cold_start.py --runs 5
    .venv/bin/python bench/cold_start.py --runs 5 --src /tmp/old/src

``--src`` also times another checkout's ``src`` (e.g. ``git worktree add /tmp/old <commit>``,
plus the compiled rules' ``.so`` files copied beside its sources), one start of each in turn,
so that both see the same moments of a shared machine.

Each ``src`` is byte-compiled first (``compileall``), as a start after the first one finds it:
Python writes the cache on the first import, unless ``PYTHONDONTWRITEBYTECODE`` is set — as
it is on the shared machine, where every start compiled our ~70 modules again (13% of it).
"""

from __future__ import annotations

import argparse
import compileall
import http.client
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

GAMESHACK = Path(sys.executable).with_name("gameshack")
SRC = Path(__file__).resolve().parent.parent / "src"
IMPORTS = (
    "import time; t = time.perf_counter(); "
    "import gameshack.cli, gameshack.server.app, gameshack.server.protocol_http, uvicorn; "
    "print(time.perf_counter() - t)"
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def first_ok(port: int, deadline: float) -> bool:
    while time.perf_counter() < deadline:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
        try:
            conn.request("GET", "/")
            if conn.getresponse().status == 200:
                return True
        except OSError:
            pass
        finally:
            conn.close()
        time.sleep(0.005)
    return False


def environment(src: Path | None, data: str = "") -> dict[str, str]:
    env = {**os.environ, "GAMESHACK_DATA_DIR": data}
    env.pop("GAMESHACK_DATABASE_URL", None)
    env.pop("GAMESHACK_REDIS_URL", None)
    if src is not None:
        env["PYTHONPATH"] = str(src)
    return env


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def start_once(src: Path | None, data: str) -> tuple[float, float]:
    """Wall seconds to the first 200 on ``/``, and the CPU seconds the server used by then."""
    port = free_port()
    env = environment(src, data)
    t0 = time.perf_counter()
    server = subprocess.Popen(
        [str(GAMESHACK), "serve", "--port", str(port), "--log-level", "warning"],
        env=env,
        stdout=subprocess.DEVNULL,  # the address line it prints once listening
        stderr=subprocess.DEVNULL,
    )
    try:
        if not first_ok(port, t0 + 30):
            raise SystemExit("the server did not answer / within 30 s (try: gameshack serve)")
        return time.perf_counter() - t0, cpu_seconds(server.pid)
    finally:
        server.terminate()
        server.wait(10)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--src", type=Path, action="append", default=[], help="another src/")
    args = parser.parse_args()
    sources: list[Path | None] = [None, *args.src]
    imports: dict[Path | None, list[float]] = {src: [] for src in sources}
    fresh: dict[Path | None, list[tuple[float, float]]] = {src: [] for src in sources}
    restart: dict[Path | None, list[tuple[float, float]]] = {src: [] for src in sources}
    for src in sources:
        compileall.compile_dir(src or SRC, quiet=1)  # the bytecode cache an ordinary start has
    load = machine_load()
    for _ in range(args.runs):
        for src in sources:
            out = subprocess.check_output(
                [sys.executable, "-c", IMPORTS], text=True, env=environment(src)
            )
            imports[src].append(float(out))
            data = tempfile.mkdtemp(prefix="gameshack-cold-")
            try:
                fresh[src].append(start_once(src, data))
                restart[src].append(start_once(src, data))
            finally:
                shutil.rmtree(data, ignore_errors=True)

    def line(what: str, xs: list[float]) -> str:
        return f"  {what:<28} median {statistics.median(xs):.2f} s, max {max(xs):.2f} s"

    def start_line(what: str, runs: list[tuple[float, float]]) -> str:
        cpu = statistics.median(c for _, c in runs)
        return line(what, [w for w, _ in runs]) + f"; server CPU median {cpu:.2f} s"

    print(f"runs               {args.runs} each, machine load {load} -> {machine_load()}")
    for src in sources:
        print(f"{src or 'this checkout'}")
        print(line("import (serve's modules)", imports[src]))
        print(start_line("serve -> first 200, new db", fresh[src]))
        print(start_line("serve -> first 200, restart", restart[src]))


def machine_load() -> str:
    with open("/proc/loadavg") as f:
        return f.read().split()[0]


if __name__ == "__main__":
    main()
