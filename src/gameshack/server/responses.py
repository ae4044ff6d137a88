"""The JSON response every route answers with: orjson, the server's one JSON library."""

from __future__ import annotations

from typing import Any

import orjson
from fastapi.responses import JSONResponse

__all__ = ["OrjsonResponse"]


class OrjsonResponse(JSONResponse):
    """Starlette's ``JSONResponse`` (compact, UTF-8) encoded by orjson. FastAPI's own
    ``ORJSONResponse`` is deprecated in favour of pydantic's encoder; this keeps one encoder
    for HTTP bodies, socket frames and stored JSON alike."""

    def render(self, content: Any) -> bytes:
        return orjson.dumps(content, option=orjson.OPT_NON_STR_KEYS)
