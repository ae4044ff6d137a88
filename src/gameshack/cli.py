"""The ``gameshack`` command: ``serve`` starts the site; other subcommands are tools."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

__all__ = ["main"]

Handler = Callable[[argparse.Namespace], int]


def _serve(args: argparse.Namespace) -> int:
    import uvicorn

    uvicorn.run(
        "gameshack.server.app:create_app",
        factory=True,
        host=args.host,
        port=args.port,
        log_level=args.log_level,
        # Frames over 64 KB get a protocol error from the app; this only bounds what a socket
        # may make the server buffer before that check.
        ws_max_size=1 << 20,
        proxy_headers=args.proxy_headers,
    )
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gameshack", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="start the site")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--log-level", default="info", choices=["debug", "info", "warning", "error"])
    serve.add_argument(
        "--proxy-headers",
        action="store_true",
        help="trust X-Forwarded-* from a reverse proxy in front of the site",
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
