"""Replays of finished matches over HTTP (issue 33; the service side: service/replay.py).

- ``GET /api/replay/{code}``  the match's players and steps (seat and action of each), how many
  views there are (the deal, then one after each action) and the page size
- ``GET /api/replay/{code}/views?page=&full=``  the views of steps ``page * chunk`` onwards
  (up to ``chunk``) as a JSON array: the public view of each step, or (``full=1``) the full
  one, every hand shown; gzip-encoded for a client that accepts it (every browser does)

Both answer 404 ``not_found`` for an unknown code and 409 ``not_finished`` for a match still
being played (docs/protocol.md). The page ``/g/{code}/replay`` is the static client's.
"""

from __future__ import annotations

import gzip

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from gameshack.server.responses import query_bool, query_int
from gameshack.server.static import accepts_gzip
from gameshack.service.replay import Replays

__all__ = ["routes"]


def _replays(request: Request) -> Replays:
    state = request.app.state
    replays: Replays | None = getattr(state, "replays", None)
    if replays is None or replays.svc is not state.service:
        replays = state.replays = Replays(state.service)
    return replays


def _address(request: Request) -> str:
    return request.client.host if request.client else "unknown"


# A finished match's replay never changes: the browser may keep it for a while.
CACHE = "private, max-age=300"


async def replay(request: Request) -> Response:
    found = await _replays(request).get(request.path_params["code"], _address(request))
    return Response(found.meta, media_type="application/json", headers={"Cache-Control": CACHE})


async def replay_views(request: Request) -> Response:
    page, full = query_int(request, "page", 0, ge=0), query_bool(request, "full")
    found = await _replays(request).get(request.path_params["code"], _address(request))
    body = found.page(page, full)  # gzip-compressed, as kept
    headers = {"Cache-Control": CACHE, "Vary": "Accept-Encoding"}
    if accepts_gzip(request.headers.get("accept-encoding", "")):
        headers["Content-Encoding"] = "gzip"
    else:
        body = gzip.decompress(body)
    return Response(body, media_type="application/json", headers=headers)


routes = [
    Route("/api/replay/{code}", replay, methods=["GET"]),
    Route("/api/replay/{code}/views", replay_views, methods=["GET"]),
]
