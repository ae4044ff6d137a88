"""The ``gameshack`` command: ``serve`` starts the site; other subcommands are tools."""

from __future__ import annotations

import argparse
import contextlib
import gc
import logging
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["main"]

Handler = Callable[[argparse.Namespace], int]


def _fail(sentence: str) -> int:
    """Start-up cannot go on: one sentence for the operator, no traceback, exit status 2."""
    print(f"gameshack: {sentence}", file=sys.stderr)
    return 2


def _raise_file_limit(wanted: int = 65536) -> None:
    """Raise the soft limit on open files towards the hard one: every connection is a file, and
    the common default of 1,024 is what slow clients exhausted (issue 28). Never lowers it."""
    try:
        import resource
    except ImportError:  # pragma: no cover - not on Windows
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


class _StartupFailure(logging.Filter):
    """Hides uvicorn's own lines about a start-up failure the app put in one sentence (the CLI
    prints that sentence instead)."""

    def __init__(self, app: Any) -> None:
        super().__init__()
        self.app = app

    def filter(self, record: logging.LogRecord) -> bool:
        failed = getattr(self.app.state, "startup_error", None)
        return not (failed and record.levelno >= logging.ERROR)


def _several_processes_problem(database_url: str, redis_url: str) -> str | None:
    """Why this configuration cannot run as several processes (None: it can)."""
    if not database_url.startswith("postgresql"):
        return (
            "several processes need PostgreSQL (GAMESHACK_DATABASE_URL=postgresql+asyncpg://…): "
            "SQLite serves one process"
        )
    if not redis_url:
        return (
            "several processes need Redis (GAMESHACK_REDIS_URL=redis://…) to share moves, chat, "
            "presence and rate limits"
        )
    return None


def _serve(args: argparse.Namespace) -> int:
    # No garbage collection while the server imports and starts: a sixth of start-up, spent
    # scanning objects that live as long as the process. server/collector.py turns it back on.
    gc.disable()
    from gameshack.service import Settings

    try:
        settings = Settings.from_env()
    except ValueError as exc:
        return _fail(str(exc))
    if args.workers < 1:
        return _fail("--workers must be at least 1")
    if args.workers > 1:
        problem = _several_processes_problem(settings.database_url, settings.redis_url)
        if problem:
            return _fail(problem)
        return _supervise(args)
    return _serve_one(args)


def _supervise(args: argparse.Namespace) -> int:
    """``--workers N``: one listening socket, N identical server processes accepting on it (the
    kernel spreads connections); a worker that dies is started again; SIGTERM/SIGINT stop all."""
    import multiprocessing
    import signal
    import socket
    import time

    gc.enable()  # this process only watches the workers
    sock = socket.socket(socket.AF_INET6 if ":" in args.host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((args.host, args.port))
    except OSError as exc:
        return _fail(f"cannot listen on {args.host}:{args.port}: {exc.strerror}")
    sock.listen(2048)
    sock.set_inheritable(True)
    ctx = multiprocessing.get_context("spawn")
    stopping = False

    def start() -> multiprocessing.process.BaseProcess:
        proc = ctx.Process(target=_worker, args=(args, sock), daemon=False)
        proc.start()
        return proc

    def stop(_signum: int, _frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    workers = [start() for _ in range(args.workers)]
    from gameshack.server.share import share_line

    print(f"gameshack: {args.workers} workers on {args.host}:{args.port}", file=sys.stderr)
    print(share_line(args.host, args.port), file=sys.stderr, flush=True)
    while not stopping:
        time.sleep(0.5)
        for i, proc in enumerate(workers):
            if not proc.is_alive() and not stopping:
                print(
                    f"gameshack: worker {proc.pid} ended ({proc.exitcode}); starting another",
                    file=sys.stderr,
                )
                workers[i] = start()
    for proc in workers:
        if proc.is_alive() and proc.pid is not None:
            os.kill(proc.pid, signal.SIGTERM)
    for proc in workers:
        proc.join()
    return 0


def _worker(args: argparse.Namespace, sock: object) -> None:
    sys.exit(_serve_one(args, sock))


def _serve_one(args: argparse.Namespace, sock: object | None = None) -> int:
    gc.disable()  # as in _serve: a worker process starts here
    import uvicorn
    from uvicorn.middleware.proxy_headers import _TrustedHosts

    from gameshack.logs import QuietConsole
    from gameshack.server.app import create_app
    from gameshack.server.protocol_http import ConnectionLimits, edge_http_protocol
    from gameshack.server.share import share_line
    from gameshack.service import Settings

    class _AnnouncingServer(uvicorn.Server):
        """Says where to open the site (:func:`share_line`) once it is listening."""

        def __init__(self, config: uvicorn.Config, line: str | None, *, json: bool) -> None:
            super().__init__(config)
            self.line, self.json = line, json

        async def startup(self, sockets: list[Any] | None = None) -> None:
            await super().startup(sockets=sockets)
            if self.line is None or self.should_exit:
                return
            if self.json:  # every line a JSON object
                logging.getLogger("gameshack.serve").info("%s", self.line)
            else:
                print(f"\n{self.line} Ctrl+C stops it.\n", file=sys.stderr, flush=True)

    try:
        settings = Settings.from_env()
    except ValueError as exc:
        return _fail(str(exc))
    _raise_file_limit()
    app = create_app(settings)
    limits = ConnectionLimits(settings.connections_per_address, settings.header_timeout)
    from gameshack.logs import log_config

    logging_config = log_config(args.log_format, args.log_level)
    config = uvicorn.Config(
        app,
        host=args.host,
        port=args.port,
        log_level=args.log_level,
        **({"log_config": logging_config} if logging_config else {}),
        lifespan="on",
        # httptools (what uvicorn[standard] picks) with a header deadline and a cap on
        # connections per address (server/protocol_http.py).
        http=edge_http_protocol(limits),
        # Frames over 64 KB get a protocol error from the app; this only bounds what a socket
        # may make the server buffer before that check.
        ws_max_size=1 << 20,
        # No per-message deflate: it held about half of each socket's memory and ~8% of the
        # CPU, for frames of a few KB on links that compress at the proxy or not at all.
        ws_per_message_deflate=False,
        proxy_headers=args.proxy_headers,
        # SIGTERM: in-flight requests get this long, then closing the games and the database
        # gets as long again (server/app.py) — the process always ends.
        timeout_graceful_shutdown=settings.shutdown_timeout,  # type: ignore[arg-type]
    )
    if args.proxy_headers:
        # The proxy's connections carry every client: not capped per address here (the proxy
        # should cap per client); the per-client limits apply after the forwarded address.
        trusted = _TrustedHosts(config.forwarded_allow_ips)
        limits.exempt = trusted.__contains__
    logging.getLogger("uvicorn.error").addFilter(_StartupFailure(app))
    if args.log_format == "text" and args.log_level != "debug":
        quiet = QuietConsole()  # no line per lobby poll (issue 32)
        logging.getLogger("uvicorn.access").addFilter(quiet)
        logging.getLogger("uvicorn.error").addFilter(quiet)
    # A worker of --workers stays silent: the supervisor says where the site is.
    announce = share_line(args.host, args.port) if sock is None else None
    server = _AnnouncingServer(config, announce, json=args.log_format == "json")
    try:
        server.run(sockets=[sock] if sock is not None else None)  # type: ignore[list-item]
    except SystemExit:
        sentence = getattr(app.state, "startup_error", None)
        if sentence:
            return _fail(sentence)
        raise
    except KeyboardInterrupt:
        pass
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gameshack", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="start the site")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--log-level", default="info", choices=["debug", "info", "warning", "error"])
    serve.add_argument(
        "--log-format",
        default=os.environ.get("GAMESHACK_LOG_FORMAT", "text").strip().lower() or "text",
        choices=["text", "json"],
        help="json: one JSON object per line (also GAMESHACK_LOG_FORMAT=json)",
    )
    serve.add_argument(
        "--proxy-headers",
        action="store_true",
        default=os.environ.get("GAMESHACK_PROXY_HEADERS", "").strip().lower()
        in ("1", "true", "yes", "on"),
        help="trust X-Forwarded-For/-Proto from the reverse proxy in front of the site (the "
        "addresses in FORWARDED_ALLOW_IPS, default 127.0.0.1); also GAMESHACK_PROXY_HEADERS=1",
    )
    serve.add_argument(
        "--workers",
        type=int,
        default=int(os.environ.get("GAMESHACK_WORKERS", "1") or 1),
        help="server processes sharing the port (needs PostgreSQL and Redis; also "
        "GAMESHACK_WORKERS)",
    )
    serve.set_defaults(handler=_serve)

    # Subcommands owned by other modules register themselves here.
    from gameshack import cli_tools

    cli_tools.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler: Handler = args.handler
    return handler(args)


if __name__ == "__main__":
    sys.exit(main())
