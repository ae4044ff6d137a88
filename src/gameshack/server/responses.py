"""The JSON response every route answers with (orjson, the server's one JSON library), and the
reading of a request's JSON body and query parameters into checked values.

A body or parameter that does not check raises :class:`BadRequest`; the app answers it with
422 ``bad_request`` and one sentence naming the first field at fault (server/app.py)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import orjson
from pydantic import BaseModel, ValidationError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

__all__ = ["BadRequest", "OrjsonResponse", "body_of", "methods", "query_bool", "query_int"]

M = TypeVar("M", bound=BaseModel)


class OrjsonResponse(JSONResponse):
    """Starlette's ``JSONResponse`` (compact, UTF-8) encoded by orjson: one encoder for HTTP
    bodies, socket frames and stored JSON alike."""

    def render(self, content: Any) -> bytes:
        return orjson.dumps(content, option=orjson.OPT_NON_STR_KEYS)


Endpoint = Callable[[Request], Awaitable[Response]]


def methods(path: str, **endpoints: Endpoint) -> Route:
    """One route for a path that several methods take, each its own endpoint (``get=``,
    ``post=``, ``delete=``): a method it does not take gets 405 with every one it does in
    ``Allow`` (one ``Route`` a method would name only the first route's)."""

    async def endpoint(request: Request) -> Response:
        method = "get" if request.method == "HEAD" else request.method.lower()
        return await endpoints[method](request)

    return Route(path, endpoint, methods=[m.upper() for m in endpoints])


class BadRequest(Exception):
    """A request whose body or parameters do not check; ``str()`` is the sentence to answer."""


def invalid(exc: ValidationError) -> BadRequest:
    """The first of pydantic's complaints as one sentence: "Invalid name: String should have
    at least 1 character."."""
    errors = exc.errors()
    first: Any = errors[0] if errors else {}
    where = ".".join(str(p) for p in first.get("loc", ()))
    return BadRequest(f"Invalid {where or 'request'}: {first.get('msg', 'invalid')}.")


async def body_of(request: Request, model: type[M]) -> M:
    """The request's JSON body as ``model`` (its size is bounded by the edge: server/edge.py)."""
    try:
        return model.model_validate_json(await request.body())
    except ValidationError as exc:
        raise invalid(exc) from None


def query_int(request: Request, name: str, default: int, *, ge: int | None = None) -> int:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise BadRequest(f"Invalid {name}: a whole number is expected.") from None
    if ge is not None and value < ge:
        raise BadRequest(f"Invalid {name}: it should be {ge} or more.")
    return value


TRUE = ("1", "true", "on", "yes")
FALSE = ("0", "false", "off", "no")


def query_bool(request: Request, name: str, default: bool = False) -> bool:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    if raw.lower() in TRUE:
        return True
    if raw.lower() in FALSE:
        return False
    raise BadRequest(f"Invalid {name}: true or false is expected.")
