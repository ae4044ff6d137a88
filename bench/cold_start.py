"""Cold start: from running ``gameshack serve`` to the first 200 on ``/``.

Starts the real command several times on a free port, polls ``GET /`` every 5 ms and prints the
median and the slowest start, for a fresh data directory (the database is created and
migrated) and for one that already holds the newest schema (an ordinary restart). Also prints
the time a fresh interpreter takes to import what ``serve`` imports.

    .venv/bin/python bench/cold_start.py --runs 5
"""

from __future__ import annotations

import argparse
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


def start_once(data: str) -> float:
    port = free_port()
    env = {**os.environ, "GAMESHACK_DATA_DIR": data}
    env.pop("GAMESHACK_DATABASE_URL", None)
    env.pop("GAMESHACK_REDIS_URL", None)
    t0 = time.perf_counter()
    server = subprocess.Popen(
        [str(GAMESHACK), "serve", "--port", str(port), "--log-level", "warning"], env=env
    )
    try:
        if not first_ok(port, t0 + 30):
            raise SystemExit("the server did not answer / within 30 s")
        return time.perf_counter() - t0
    finally:
        server.terminate()
        server.wait(10)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with open("/proc/loadavg") as f:
        load = f.read().split()[0]
    imports = sorted(
        float(subprocess.check_output([sys.executable, "-c", IMPORTS], text=True))
        for _ in range(args.runs)
    )
    fresh, restart = [], []
    for _ in range(args.runs):
        data = tempfile.mkdtemp(prefix="gameshack-cold-")
        try:
            fresh.append(start_once(data))
            restart.append(start_once(data))
        finally:
            shutil.rmtree(data, ignore_errors=True)

    def line(what: str, xs: list[float]) -> str:
        return f"{what:<28} median {statistics.median(xs):.2f} s, max {max(xs):.2f} s"

    print(f"runs               {args.runs} each, machine load {load}")
    print(line("import (serve's modules)", imports))
    print(line("serve -> first 200, new db", fresh))
    print(line("serve -> first 200, restart", restart))


if __name__ == "__main__":
    main()
